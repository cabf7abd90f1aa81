package evaluate_test

import (
	"fmt"
	"log"

	"github.com/predictions-md/predictions/evaluate"
	"github.com/predictions-md/predictions/forecastfile"
)

// A question two forecasters answered: after each forecast every pool
// gives a community forecast, scored once the question resolved.
func ExampleRun() {
	f, err := forecastfile.Parse([]byte(`# Will the beta open by January?

- id: beta-open
- resolves: yes if the sign-up page is live
- status: resolved
- outcome: yes
- opens_at: 2026-01-01 00:00
- close_at: 2026-01-11 00:00

## Forecasts

- 2026-01-01 00:00 · agent:scout · 80%
- 2026-01-06 00:00 · agent:skeptic · 40%
`))
	if err != nil {
		log.Fatal(err)
	}
	rep, err := evaluate.Run([]*forecastfile.File{f}, evaluate.Options{})
	if err != nil {
		log.Fatal(err) // for example evaluate.ErrNoQuestions
	}
	for _, p := range rep.Pools {
		fmt.Printf("%-8s log score at the close %.3f, time-averaged %.3f\n", p.Method, p.Scores.LogClose, p.Scores.LogAverage)
	}
	// Output:
	// geo_odds log score at the close -0.478, time-averaged -0.350
	// mean     log score at the close -0.511, time-averaged -0.367
	// median   log score at the close -0.511, time-averaged -0.367
	// recency  log score at the close -0.511, time-averaged -0.367
	// skill    log score at the close -0.478, time-averaged -0.350
}
