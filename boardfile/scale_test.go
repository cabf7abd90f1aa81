package boardfile_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/pool"
)

// crowdLines writes n forecast lines on one question by forecasters
// drawn from a crowd of m (so that some replace their forecast), a
// second apart from 2026-01-01.
func crowdLines(n, m int) string {
	var b strings.Builder
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		at := t0.Add(time.Duration(i) * time.Second)
		p := []string{"0%", "100%", "50%", "0.1%", "12.5%", "87%"}[i%6]
		if i%7 != 0 {
			p = fmt.Sprintf("%d%%", 1+(i*53)%99)
		}
		fmt.Fprintf(&b, "- %s · agent:c%03d · %s\n", at.Format("2006-01-02 15:04:05"), (i*31)%m, p)
	}
	return b.String()
}

func crowdQuestion(id, status, lines string) string {
	head := fmt.Sprintf("# Question %s\n\n- id: %s\n- resolves: the crowd says so\n- resolve_by: 2026-01-31\n- opens_at: 2026-01-01 00:00\n- close_at: 2026-01-31 00:00\n", id, id)
	if status == "resolved" {
		head += "- status: resolved\n- closed_at: 2026-01-30 00:00\n- outcome: yes\n"
	} else {
		head += "- status: open\n"
	}
	return head + "\n## Forecasts\n\n" + lines + "\n"
}

func crowdDoc(questions ...string) string {
	return fmt.Sprintf("---\npredictions: %d\nupdated: 2026-02-01\n---\n\n", len(questions)) + strings.Join(questions, "")
}

// history reads a prediction's whole history.
func history(t *testing.T, s *board.Store, id string) []board.Forecast {
	t.Helper()
	var all []board.Forecast
	for off := 0; ; off += board.MaxForecastPage {
		pg, err := s.Forecasts(context.Background(), id, board.Page{Limit: board.MaxForecastPage, Offset: off})
		if err != nil {
			t.Fatalf("Forecasts(%s): %v", id, err)
		}
		all = append(all, pg.Forecasts...)
		if !pg.HasMore {
			return all
		}
	}
}

// TestImportCommunityHistory imports a question of 600 forecast lines by
// 97 forecasters (0% and 100% among them), whole and in two files (the
// second adding to the question the board has), and checks the history
// against package pool: after each forecast, the community stored on its
// row is Combine's on the standing forecasts then, to 1e-12 (the import
// pools them as they change, with a pool.Standing); the prediction's own
// community is Combine's exactly; and both imports give the same board.
func TestImportCommunityHistory(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	lines := crowdLines(600, 97)
	whole := crowdDoc(crowdQuestion("crowd", "open", lines))
	cut := strings.Index(lines, "2026-01-01 00:05:00") // the first 300 lines
	first := crowdDoc(crowdQuestion("crowd", "open", lines[:cut]))
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		one := open(board.Options{Now: now})
		if _, err := boardfile.Import(ctx, one, strings.NewReader(whole)); err != nil {
			t.Fatal(err)
		}
		two := open(board.Options{Now: now})
		if _, err := boardfile.Import(ctx, two, strings.NewReader(first)); err != nil {
			t.Fatal(err)
		}
		res, err := boardfile.Import(ctx, two, strings.NewReader(whole))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Updated) != 1 || res.Updated[0].Forecasts != 300 {
			t.Fatalf("second import: Updated = %+v, want crowd with 300 forecasts", res.Updated)
		}
		want := history(t, one, "crowd")
		if len(want) != 600 {
			t.Fatalf("history has %d forecasts, want 600", len(want))
		}
		standing := map[string]float64{}
		for i, f := range want {
			if f.Seq != i+1 {
				t.Fatalf("forecast %d has seq %d", i, f.Seq)
			}
			standing[f.AgentID] = f.P
			var fs []pool.Forecast
			for _, a := range slices.Sorted(func(yield func(string) bool) {
				for a := range standing {
					if !yield(a) {
						return
					}
				}
			}) {
				fs = append(fs, pool.Forecast{Who: a, P: standing[a]})
			}
			c, err := pool.Combine(fs, pool.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(f.Community.P-c.GeoOdds) > 1e-12 || f.Community.Forecasters != c.N {
				t.Fatalf("forecast %d: community %+v, Combine gives %v with %d forecasters", f.Seq, f.Community, c.GeoOdds, c.N)
			}
		}
		for _, s := range []*board.Store{one, two} {
			if m, err := s.CommunityMismatches(ctx, "crowd"); err != nil || len(m) > 0 {
				t.Errorf("CommunityMismatches: %v %v", m, err)
			}
			if m, err := s.CounterMismatches(ctx); err != nil || len(m) > 0 {
				t.Errorf("CounterMismatches: %v %v", m, err)
			}
		}
		got := history(t, two, "crowd")
		ignoreIDs := cmp.Transformer("noID", func(f board.Forecast) board.Forecast { f.ID = ""; return f })
		if diff := cmp.Diff(want, got, ignoreIDs, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-12 })); diff != "" {
			t.Errorf("history imported in two files mismatch (-whole +two files):\n%s", diff)
		}
		a1, err := one.Agents(ctx, board.AgentQuery{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		a2, err := two.Agents(ctx, board.AgentQuery{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a1, a2); diff != "" {
			t.Errorf("agents after two files mismatch (-whole +two files):\n%s", diff)
		}
	})
}

// TestImportBatches imports three questions of 30 lines in transactions
// of at most 40 (Import's are of 2,000 lines; the rule is the same), so
// that each question goes to the board in a transaction of its own: when
// the third fails, the first two stay stored and the error says so, and
// the same file sent again stores the third and gives the board a single
// import gives.
func TestImportBatches(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	const perQuestion, batch = 30, 40
	lines := crowdLines(perQuestion, 12)
	doc := crowdDoc(crowdQuestion("q1", "resolved", lines), crowdQuestion("q2", "open", lines), crowdQuestion("q3", "resolved", lines))
	for _, b := range boardtest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel() // a database of its own
			ctx := context.Background()
			ref := mustOpen(t, b.Migrated(t), board.Options{Now: now})
			if _, err := boardfile.Import(ctx, ref, strings.NewReader(doc)); err != nil {
				t.Fatal(err)
			}
			s := mustOpen(t, b.Migrated(t), board.Options{Now: now})
			refuse := []string{`CREATE TRIGGER refuse_q3 BEFORE INSERT ON predictions WHEN NEW.id = 'q3' BEGIN SELECT RAISE(ABORT, 'q3 refused'); END`}
			undo := []string{`DROP TRIGGER refuse_q3`}
			if b.Name == "postgres" {
				refuse = []string{`CREATE FUNCTION refuse_q3() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.id = 'q3' THEN RAISE EXCEPTION 'q3 refused'; END IF; RETURN NEW; END $$`,
					`CREATE TRIGGER refuse_q3 BEFORE INSERT ON predictions FOR EACH ROW EXECUTE FUNCTION refuse_q3()`}
				undo = []string{`DROP TRIGGER refuse_q3 ON predictions`, `DROP FUNCTION refuse_q3()`}
			}
			for _, q := range refuse {
				if err := execRaw(ctx, s, q); err != nil {
					t.Fatal(err)
				}
			}
			_, err := boardfile.ImportBatched(ctx, s, strings.NewReader(doc), batch)
			if err == nil || !strings.Contains(err.Error(), "the first 2 of the file's 3 questions were stored") || !strings.Contains(err.Error(), "q3 refused") {
				t.Fatalf("Import with q3 refused: err = %v, want one saying the first 2 of 3 questions were stored, wrapping the refusal", err)
			}
			for id, want := range map[string]bool{"q1": true, "q2": true, "q3": false} {
				_, err := s.Prediction(ctx, id)
				if got := err == nil; got != want {
					t.Errorf("after the failed import, %s stored = %v (%v), want %v", id, got, err, want)
				}
			}
			for _, q := range undo {
				if err := execRaw(ctx, s, q); err != nil {
					t.Fatal(err)
				}
			}
			res, err := boardfile.ImportBatched(ctx, s, strings.NewReader(doc), batch)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"q1", "q2"}, res.Existing); diff != "" || len(res.Created) != 1 || res.Created[0].ID != "q3" || res.Forecasts != perQuestion {
				t.Errorf("Import again: %+v, want q3 created with %d forecasts and q1, q2 existing (Existing -want +got):\n%s", res, perQuestion, diff)
			}
			if diff := cmp.Diff(export(t, ref, board.FeedQuery{}), export(t, s, board.FeedQuery{})); diff != "" {
				t.Errorf("board imported in two goes mismatch (-one go +two goes):\n%s", diff)
			}
			if m, err := s.CounterMismatches(ctx); err != nil || len(m) > 0 {
				t.Errorf("CounterMismatches: %v %v", m, err)
			}
		})
	}
}

// TestImportEvents: an import appends one event a question, in its
// transaction: prediction.created for each question created (at its
// opening) and the resolution of a resolved one; a question given new
// forecast lines, community.moved.
func TestImportEvents(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	lines := crowdLines(40, 9)
	cut := strings.Index(lines, "2026-01-01 00:00:20")
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{Now: now})
		if _, err := boardfile.Import(ctx, s, strings.NewReader(crowdDoc(crowdQuestion("r", "resolved", lines), crowdQuestion("o", "open", lines[:cut])))); err != nil {
			t.Fatal(err)
		}
		if _, err := boardfile.Import(ctx, s, strings.NewReader(crowdDoc(crowdQuestion("o", "open", lines)))); err != nil {
			t.Fatal(err)
		}
		pg, err := s.Events(ctx, board.EventQuery{})
		if err != nil {
			t.Fatal(err)
		}
		type ev struct {
			Type board.EventType
			ID   string
			At   time.Time
		}
		var got []ev
		for _, e := range pg.Events {
			got = append(got, ev{e.Type, e.PredictionID, e.At.UTC()})
		}
		opens := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		want := []ev{
			{board.EventPredictionCreated, "r", opens},
			{board.EventResolved, "r", time.Date(2026, 1, 30, 0, 0, 0, 0, time.UTC)},
			{board.EventPredictionCreated, "o", opens},
			{board.EventCommunityMoved, "o", opens.Add(39 * time.Second)},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("events of two imports mismatch (-want +got):\n%s", diff)
		}
	})
}
