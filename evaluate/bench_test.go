package evaluate_test

import (
	"testing"

	"github.com/predictions-md/predictions/evaluate"
	"github.com/predictions-md/predictions/forecastfile"
)

// BenchmarkRun evaluates 1,000 generated questions (996 with forecasts
// before their close, 4,289 forecasts) with the default 2,000 resamples.
func BenchmarkRun(b *testing.B) {
	_, text := generate(1, 1000)
	f := mustParse(b, text)
	files := []*forecastfile.File{f}
	for b.Loop() {
		if _, err := evaluate.Run(files, evaluate.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
