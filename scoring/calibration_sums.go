package scoring

// BinSums are what one calibration bin keeps of its forecasts: how many,
// how many resolved yes, and the sum of their probabilities. A store keeps
// a forecaster's calibration table as one BinSums a bin, changed by each
// score it adds or takes back ([CalibrationBin] names the bin), and reads
// the table back with [CalibrationFromSums] without reading the forecasts.
type BinSums struct {
	Count int
	Yes   int
	SumP  float64
}

// CalibrationBin returns the bin that [Calibration] puts p in, in a table
// of the given number of equal-width bins (0 means [DefaultBins]). It
// returns [ErrBins] (wrapped) or a [*ForecastError] for a p outside
// [0, 1].
func CalibrationBin(p float64, bins int) (int, error) {
	k, err := binsFor(bins)
	if err != nil {
		return 0, err
	}
	if err := check(0, Forecast{P: p}); err != nil {
		return 0, err
	}
	return newGrid(k).index(p), nil
}

// CalibrationFromSums returns the calibration table of sums, one bin each,
// as [Calibration] gives it for the forecasts summed: the same bins,
// counts and observed frequencies, and each mean forecast SumP / Count,
// which can differ from Calibration's in the last bits. A bin with
// a Count of 0 or less is empty (its means nil). It returns [ErrBins]
// (wrapped) for a number of bins outside 1 to [MaxBins] and [ErrEmpty]
// when every bin is empty.
func CalibrationFromSums(sums []BinSums) ([]Bin, error) {
	if len(sums) == 0 {
		return nil, ErrEmpty
	}
	k, err := binsFor(len(sums))
	if err != nil {
		return nil, err
	}
	g := newGrid(k)
	rows := make([]Bin, k)
	means := make([]float64, 2*k) // backing store for the row pointers
	empty := true
	for i, b := range sums {
		rows[i] = Bin{Lo: g[i], Hi: g[i+1]}
		if b.Count <= 0 {
			continue
		}
		empty = false
		n := float64(b.Count)
		rows[i].Count, rows[i].Yes = b.Count, b.Yes
		means[2*i], means[2*i+1] = min(max(b.SumP/n, g[i]), g[i+1]), float64(b.Yes)/n
		rows[i].MeanForecast, rows[i].ObservedFrequency = &means[2*i], &means[2*i+1]
	}
	if empty {
		return nil, ErrEmpty
	}
	return rows, nil
}
