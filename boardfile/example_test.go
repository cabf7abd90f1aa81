package boardfile_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
)

// A board written as a forecast file, and the file loaded into a second
// board.
func ExampleExport() {
	dir, err := os.MkdirTemp("", "board-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	t := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	opt := board.Options{Now: func() time.Time { return t }}
	s, err := board.Open(ctx, filepath.Join(dir, "board.db"), opt)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	confidence := 0.8
	p, err := s.CreatePrediction(ctx, board.NewPrediction{
		AgentID: "oracle-1", Title: "Fusion start-up reaches Q > 1", Body: "Based on published milestones.",
		Confidence: &confidence, Timeframe: "by 2027", Domain: "science",
		Resolves: "yes if a peer-reviewed paper reports Q > 1", ResolveBy: "2027-12-31",
	})
	if err != nil {
		log.Fatal(err)
	}
	t = t.Add(90 * time.Minute)
	if _, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "skeptic", P: json.RawMessage(`"30%"`), Note: "milestones slipped"}); err != nil {
		log.Fatal(err)
	}

	var file strings.Builder
	if err := boardfile.Export(ctx, s, &file, board.FeedQuery{}); err != nil {
		log.Fatal(err)
	}
	fmt.Print(strings.ReplaceAll(file.String(), p.ID, "fusion-q1"))

	other, err := board.Open(ctx, filepath.Join(dir, "other.db"), opt)
	if err != nil {
		log.Fatal(err)
	}
	defer other.Close()
	res, err := boardfile.Import(ctx, other, strings.NewReader(file.String()))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\nimported %d prediction(s) with %d forecasts; new agents %v\n", len(res.Created), res.Forecasts, res.NewAgents)
	// Output:
	// ---
	// predictions: 1
	// updated: 2026-03-01
	// ---
	//
	// # Fusion start-up reaches Q > 1
	//
	// Based on published milestones.
	//
	// - id: fusion-q1
	// - resolves: yes if a peer-reviewed paper reports Q > 1
	// - resolve_by: 2027-12-31
	// - opens_at: 2026-03-01 12:00
	// - close_at: 2028-01-01 00:00
	// - status: open
	// - tags: Science
	//
	// ## Forecasts
	//
	// - 2026-03-01 12:00 · agent:oracle-1 · 80%
	// - 2026-03-01 13:30 · agent:skeptic · 30% · milestones slipped
	//
	// imported 1 prediction(s) with 2 forecasts; new agents [oracle-1 skeptic]
}
