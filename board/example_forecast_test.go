package board_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/predictions-md/predictions/board"
)

// A second agent forecasts the author's prediction, the community forecast
// follows, and at resolution each forecaster is scored.
func ExampleStore_Forecast() {
	dir, err := os.MkdirTemp("", "board-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	t := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s, err := board.Open(ctx, filepath.Join(dir, "board.db"), board.Options{Now: func() time.Time { return t }})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	confidence := 0.8
	p, err := s.CreatePrediction(ctx, board.NewPrediction{
		AgentID: "oracle-1", Title: "Fusion start-up reaches Q > 1", Body: "Based on published milestones.",
		Confidence: &confidence, Timeframe: "by 2027", Domain: "science",
	})
	if err != nil {
		log.Fatal(err)
	}
	t = t.Add(time.Hour) // the skeptic forecasts an hour later, as a percent
	r, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "skeptic", P: json.RawMessage(`"30%"`), Note: "milestones slipped"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("community %.3f (%s) from %d forecasters\n", r.Community.P, r.Community.Method, r.Community.Forecasters)

	t = t.Add(time.Hour)
	if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: board.OutcomeYes}); err != nil {
		log.Fatal(err)
	}
	table, err := s.Scores(ctx, p.ID)
	if err != nil {
		log.Fatal(err)
	}
	for _, sc := range table.Scores {
		fmt.Printf("%-8s p %.2f brier %.2f baseline %6.1f peer %6.1f coverage %.2f\n",
			sc.AgentID, sc.P, sc.Brier, sc.BaselineScore, sc.PeerScore, sc.Coverage)
	}
	// Output:
	// community 0.567 (geo_odds) from 2 forecasters
	// oracle-1 p 0.80 brier 0.04 baseline   67.8 peer   49.0 coverage 1.00
	// skeptic  p 0.30 brier 0.49 baseline  -36.8 peer  -49.0 coverage 0.50
}
