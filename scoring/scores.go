package scoring

// Brier returns the Brier score of fs: the mean of (p − outcome)², where
// outcome is 1 for yes and 0 for no (Brier 1950). It is 0 for perfect
// forecasts and 1 for forecasts certain of the wrong outcome.
// It returns [ErrEmpty] or a [*ForecastError].
func Brier(fs []Forecast) (float64, error) {
	if len(fs) == 0 {
		return 0, ErrEmpty
	}
	var sum float64
	for i, f := range fs {
		if err := check(i, f); err != nil {
			return 0, err
		}
		d := f.P
		if f.Outcome {
			d = 1 - f.P
		}
		sum += d * d
	}
	return sum / float64(len(fs)), nil
}

// Log returns the log score of fs: the mean natural logarithm of the
// probability each forecast gave to what happened (Good 1952). It is at
// most 0; higher is better; it is the negative of scikit-learn's log_loss.
// Each p is first clipped to [ClipLow, ClipHigh] and clipped says how many
// were. Divide by [math.Ln2] for bits. It returns [ErrEmpty] or a
// [*ForecastError].
func Log(fs []Forecast) (score float64, clipped int, err error) {
	if len(fs) == 0 {
		return 0, 0, ErrEmpty
	}
	a := acc{bins: make([]binAcc, 1)}
	for i, f := range fs {
		if err := check(i, f); err != nil {
			return 0, 0, err
		}
		a.add(f.P, f.Outcome, 0)
	}
	return a.logSum / float64(a.n), a.clipped, nil
}

// Calibration returns the calibration table of fs with the given number of
// equal-width bins (0 means [DefaultBins]): bin i holds i/bins ≤ p <
// (i+1)/bins, the last bin also p = 1. Empty bins are kept, with Count 0
// and nil means, so tables of the same size line up. It returns [ErrBins]
// (wrapped), [ErrEmpty] or a [*ForecastError].
func Calibration(fs []Forecast, bins int) ([]Bin, error) {
	a, g, err := accumulate(fs, bins)
	if err != nil {
		return nil, err
	}
	rows, _ := table(a, g)
	return rows, nil
}

// Decompose returns the Murphy decomposition of the Brier score of fs over
// the given number of calibration bins (0 means [DefaultBins]); see
// [Murphy] for the identity it satisfies. It returns [ErrBins] (wrapped),
// [ErrEmpty] or a [*ForecastError].
func Decompose(fs []Forecast, bins int) (Murphy, error) {
	a, g, err := accumulate(fs, bins)
	if err != nil {
		return Murphy{}, err
	}
	_, m := table(a, g)
	return m, nil
}

// accumulate sums fs into one group.
func accumulate(fs []Forecast, bins int) (*acc, grid, error) {
	k, err := binsFor(bins)
	if err != nil {
		return nil, nil, err
	}
	if len(fs) == 0 {
		return nil, nil, ErrEmpty
	}
	g := newGrid(k)
	a := &acc{bins: make([]binAcc, k)}
	for i, f := range fs {
		if err := check(i, f); err != nil {
			return nil, nil, err
		}
		a.add(f.P, f.Outcome, g.index(f.P))
	}
	return a, g, nil
}
