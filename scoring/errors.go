package scoring

import (
	"errors"
	"fmt"
	"math"
)

// Sentinel errors. Test for them with [errors.Is]; the typed errors
// [*ForecastError] and [*OutcomeError] wrap them and carry the detail.
var (
	// ErrEmpty is returned when there is no forecast to score.
	ErrEmpty = errors.New("scoring: no forecasts to score; send at least one resolved forecast")

	// ErrProbability is wrapped by [*ForecastError] when a forecast's
	// probability is NaN or outside [0, 1].
	ErrProbability = errors.New("scoring: p must be a probability from 0 to 1")

	// ErrBins is returned (wrapped, with the value) when the number of
	// calibration bins is negative or above [MaxBins].
	ErrBins = errors.New("scoring: bins out of range")

	// ErrOutcome is wrapped by [*OutcomeError] when [ParseOutcome] does not
	// recognise a text.
	ErrOutcome = errors.New("scoring: outcome must be yes, no, 1 or 0")
)

// ForecastError reports a forecast that cannot be scored. Index is the
// forecast's 0-based position in the slice given (the same index a JSON
// array uses); Who and P repeat the offending forecast's fields. Err is
// [ErrProbability].
type ForecastError struct {
	Index int
	Who   string
	P     float64
	Err   error
}

// Error names the forecast, says what is wrong with it and how to fix it.
func (e *ForecastError) Error() string {
	who := ""
	if e.Who != "" {
		who = fmt.Sprintf(" (who %q)", e.Who)
	}
	if !errors.Is(e.Err, ErrProbability) {
		return fmt.Sprintf("scoring: forecasts[%d]%s: %v", e.Index, who, e.Err)
	}
	what := fmt.Sprintf("p = %v is outside 0 to 1", e.P)
	if math.IsNaN(e.P) {
		what = "p is NaN (not a number)"
	}
	return fmt.Sprintf("scoring: forecasts[%d]%s: %s; send p as a fraction from 0 to 1, e.g. 0.75 for 75%%", e.Index, who, what)
}

// Unwrap returns Err, so that errors.Is(err, ErrProbability) holds.
func (e *ForecastError) Unwrap() error { return e.Err }

// OutcomeError reports a text that [ParseOutcome] does not read as an
// outcome. Value is the text as given.
type OutcomeError struct {
	Value string
}

// Error quotes the text and lists the accepted values.
func (e *OutcomeError) Error() string {
	return fmt.Sprintf("scoring: outcome %q is not one of yes, no, 1, 0; send yes (or 1) if the question resolved yes, no (or 0) if it resolved no; void questions are not scored", e.Value)
}

// Unwrap returns [ErrOutcome].
func (e *OutcomeError) Unwrap() error { return ErrOutcome }

// check validates forecast i.
func check(i int, f Forecast) error {
	if !(f.P >= 0 && f.P <= 1) { // also catches NaN
		return &ForecastError{Index: i, Who: f.Who, P: f.P, Err: ErrProbability}
	}
	return nil
}

// binsFor turns the bins argument into a bin count: 0 means [DefaultBins].
func binsFor(bins int) (int, error) {
	switch {
	case bins == 0:
		return DefaultBins, nil
	case bins < 0 || bins > MaxBins:
		return 0, fmt.Errorf("%w: bins = %d; use 1 to %d (0 means the default, %d)", ErrBins, bins, MaxBins, DefaultBins)
	}
	return bins, nil
}
