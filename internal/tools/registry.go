package tools

// registry builds the tools in the order of the specification's section 4.
func registry() []*Tool {
	return []*Tool{
		convertOdds(),
		impliedProbabilities(),
		combineForecasts(),
		bayesUpdate(),
		scoreForecasts(),
		checkForecastMD(),
		buildSettings(),
	}
}
