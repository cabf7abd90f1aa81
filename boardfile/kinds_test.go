package boardfile_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/uptrace/bun"
)

// kindsOf lists the board's forecasters as id:kind, in id order.
func kindsOf(t *testing.T, s *board.Store) []string {
	t.Helper()
	page, err := s.Agents(context.Background(), board.AgentQuery{Limit: board.MaxAgentLimit})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range page.Agents {
		out = append(out, a.ID+":"+a.Kind)
	}
	slices.Sort(out)
	return out
}

// TestPeopleRoundTrip: a person's forecasts are exported as
// person:<id>, and importing the file into a fresh board gives the same
// forecasters with the same kinds, and the same text again. A file
// forecaster of the kind the board does not hold for its id is refused,
// naming it; the plain word person stays an agent's name.
func TestPeopleRoundTrip(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		c := newClock()
		src := open(board.Options{Now: c.Now})
		if err := src.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, err := src.AddPerson(ctx, tx, "pat", "Pat")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		np := board.NewPrediction{AgentID: "pat", Kind: board.KindPerson, Title: "Rain in Lisbon on Sunday",
			Body: "Rain in Lisbon on Sunday", Confidence: ptr(0.6), Timeframe: "this week", Domain: "Science", Resolves: "yes if IPMA records rain"}
		p, err := src.CreatePrediction(ctx, np)
		if err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Minute)
		if _, err := src.Forecast(ctx, p.ID, board.NewForecast{AgentID: "bot", P: raw("0.3")}); err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Minute)
		if _, err := src.Forecast(ctx, p.ID, board.NewForecast{AgentID: "pat", Kind: board.KindPerson, P: raw("0.7")}); err != nil {
			t.Fatal(err)
		}
		text := export(t, src, board.FeedQuery{})
		for _, line := range []string{" · person:pat · 60%", " · agent:bot · 30%", " · person:pat · 70%"} {
			if !strings.Contains(text, line) {
				t.Errorf("export lacks %q:\n%s", line, text)
			}
		}
		if fs := findings(t, text, true); len(fs) > 0 {
			t.Errorf("the exported file has findings for the board's import: %v", fs)
		}

		dst := open(board.Options{Now: c.Now})
		if _, err := boardfile.Import(ctx, dst, strings.NewReader(text)); err != nil {
			t.Fatalf("Import: %v", err)
		}
		if diff := cmp.Diff(kindsOf(t, src), kindsOf(t, dst)); diff != "" {
			t.Errorf("forecasters after the round trip (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(text, export(t, dst, board.FeedQuery{})); diff != "" {
			t.Errorf("export of the imported board (-want +got):\n%s", diff)
		}

		// bot forecasting as a person, pat as an agent: each refused,
		// named, and nothing written.
		for _, tc := range []struct{ who, id, problem string }{
			{"person:bot", "bot", `"bot" is an agent's id on this board`},
			{"agent:pat", "pat", `"pat" is a person's id on this board`},
		} {
			file := "# Another\n\n- id: another\n- resolves: yes\n- resolve_by: 2026-06-30\n- status: open\n\n## Forecasts\n\n- 2026-02-01 · " + tc.who + " · 40%\n"
			_, err := boardfile.Import(ctx, dst, strings.NewReader(file))
			var ve *board.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, board.ErrTaken) || ve.Field != "agent_id" || ve.Problem != tc.problem {
				t.Errorf("Import of %s: %v; want a *ValidationError on agent_id wrapping ErrTaken: %s", tc.who, err, tc.problem)
			}
			if _, err := dst.Prediction(ctx, "another"); !errors.Is(err, board.ErrNotFound) {
				t.Errorf("Import of %s created the prediction: %v", tc.who, err)
			}
		}
		// The same on a question the board has: a forecast added to it.
		c.Advance(time.Hour)
		added := strings.Replace(text, " · person:pat · 70%\n", " · person:pat · 70%\n- 2026-03-01 12:30 · person:bot · 50%\n", 1)
		added = strings.Replace(added, " · agent:bot · ", " · person:bot · ", 1)
		_, err = boardfile.Import(ctx, dst, strings.NewReader(added))
		var ve *board.ValidationError
		if added == text || !errors.As(err, &ve) || !errors.Is(err, board.ErrTaken) || ve.Problem != `"bot" is an agent's id on this board` {
			t.Errorf("Import of a forecast by person:bot on a question the board has: %v", err)
		}
		if h, err := dst.Forecasts(ctx, p.ID, board.Page{}); err != nil || len(h.Forecasts) != 3 {
			t.Errorf("forecasts of %s after the refused import: %d, %v; want 3", p.ID, len(h.Forecasts), err)
		}
		// One forecaster of two kinds in a file is a finding.
		file := "# Two\n\n- id: two\n- resolves: yes\n- resolve_by: 2026-06-30\n- status: open\n\n## Forecasts\n\n- 2026-02-01 · person:sam · 40%\n- 2026-02-02 · agent:sam · 50%\n"
		_, err = boardfile.Import(ctx, dst, strings.NewReader(file))
		var ie *boardfile.ImportError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), `forecaster "agent:sam" is an agent here and a person elsewhere`) {
			t.Errorf("Import of sam as two kinds: %v", err)
		}
		// The word person is the agent named person, as before.
		file = "# Three\n\n- id: three\n- resolves: yes\n- resolve_by: 2026-06-30\n- status: open\n\n## Forecasts\n\n- 2026-02-01 · person · 40%\n"
		if _, err := boardfile.Import(ctx, dst, strings.NewReader(file)); err != nil {
			t.Fatal(err)
		}
		if a, err := dst.Agent(ctx, "person"); err != nil || a.Kind != board.KindAgent {
			t.Errorf("the forecaster person = %+v, %v; want an agent", a, err)
		}
	})
}
