package board_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/uptrace/bun"
)

// addPerson creates the person id in a transaction of its own.
func addPerson(t *testing.T, s *board.Store, id, name string) (board.Agent, error) {
	t.Helper()
	var a board.Agent
	err := s.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		var err error
		a, err = s.AddPerson(ctx, tx, id, name)
		return err
	})
	return a, err
}

// wantTaken checks that err is the refusal of an id of the other kind
// (or taken): a *ValidationError on field wrapping ErrTaken and
// ErrConflict.
func wantTaken(t *testing.T, what string, err error, field string) {
	t.Helper()
	var ve *board.ValidationError
	if !errors.As(err, &ve) || ve.Field != field || !errors.Is(err, board.ErrTaken) || !errors.Is(err, board.ErrConflict) {
		t.Errorf("%s: error %v; want a *ValidationError on %s wrapping ErrTaken and ErrConflict", what, err, field)
	}
}

// TestAgentsKind: the agent list's kind filter keeps, in every sort and
// with a domain, the forecasters of that kind in the order of the whole
// list, with Total counting them; the page echoes the kind; another kind
// is a 400 naming kind.
func TestAgentsKind(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		for _, id := range []string{"pat", "quinn"} {
			if _, err := addPerson(t, s, id, ""); err != nil {
				t.Fatal(err)
			}
		}
		np := newPrediction("author")
		np.Confidence = ptr(0.7)
		scored := mustCreate(t, s, np)
		for _, f := range []struct {
			who, kind, p string
		}{{"sharp", "", "0.95"}, {"dull", board.KindAgent, "0.05"}, {"pat", board.KindPerson, "0.9"}, {"quinn", board.KindPerson, "0.2"}} {
			if _, err := s.Forecast(ctx, scored.ID, board.NewForecast{AgentID: f.who, Kind: f.kind, P: raw(f.p)}); err != nil {
				t.Fatalf("Forecast(%s): %v", f.who, err)
			}
			clk.Advance(time.Minute)
		}
		if _, err := s.Resolve(ctx, scored.ID, board.NewResolution{Outcome: board.OutcomeYes}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Hour)
		other := newPrediction("newbie")
		other.Domain = "science"
		later := mustCreate(t, s, other)
		clk.Advance(time.Hour)
		if _, err := addPerson(t, s, "rae", "Rae"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Forecast(ctx, later.ID, board.NewForecast{AgentID: "rae", Kind: board.KindPerson, P: raw("0.4")}); err != nil {
			t.Fatal(err)
		}

		kinds := map[string]string{"author": "agent", "sharp": "agent", "dull": "agent", "newbie": "agent",
			"pat": "person", "quinn": "person", "rae": "person"}
		ids := func(p board.AgentPage) []string {
			out := []string{}
			for _, a := range p.Agents {
				out = append(out, a.ID)
				if a.Kind != kinds[a.ID] {
					t.Errorf("agent %s has kind %q, want %q", a.ID, a.Kind, kinds[a.ID])
				}
			}
			return out
		}
		for _, sort := range []board.AgentSort{board.AgentSortRecent, board.AgentSortSkill, board.AgentSortPeer, board.AgentSortBrier, board.AgentSortTrust} {
			for _, domain := range []string{"", "AI"} {
				all, err := s.Agents(ctx, board.AgentQuery{Sort: sort, Domain: domain})
				if err != nil {
					t.Fatal(err)
				}
				for _, kind := range []string{board.KindAgent, board.KindPerson} {
					name := fmt.Sprintf("sort=%s domain=%q kind=%s", sort, domain, kind)
					want := []string{}
					for _, id := range ids(all) {
						if kinds[id] == kind {
							want = append(want, id)
						}
					}
					got, err := s.Agents(ctx, board.AgentQuery{Sort: sort, Domain: domain, Kind: kind})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if diff := cmp.Diff(want, ids(got)); diff != "" {
						t.Errorf("%s (-want +got):\n%s", name, diff)
					}
					if got.Total != len(want) || got.Kind != kind || len(want) == 0 {
						t.Errorf("%s: total %d, kind %q; want %d, %q (and some of the kind)", name, got.Total, got.Kind, len(want), kind)
					}
					// One page at a time, by cursor, gives the same list.
					var walked []string
					q := board.AgentQuery{Sort: sort, Domain: domain, Kind: kind, Limit: 1}
					for range 10 {
						p, err := s.Agents(ctx, q)
						if err != nil {
							t.Fatalf("%s by cursor: %v", name, err)
						}
						walked = append(walked, ids(p)...)
						if q.Cursor = p.NextCursor; q.Cursor == "" {
							break
						}
					}
					if diff := cmp.Diff(want, walked); diff != "" {
						t.Errorf("%s, a page of 1 at a time (-want +got):\n%s", name, diff)
					}
				}
			}
		}
		if p, err := s.Agents(ctx, board.AgentQuery{Kind: " Person "}); err != nil || p.Kind != board.KindPerson || p.Total != 3 {
			t.Errorf("kind=\" Person \": %d, %q, %v; want the 3 people", p.Total, p.Kind, err)
		}
		_, err := s.Agents(ctx, board.AgentQuery{Kind: "robot"})
		var ve *board.ValidationError
		if !errors.As(err, &ve) || ve.Field != "kind" || !errors.Is(err, board.ErrInvalid) || ve.Hint == "" {
			t.Errorf("kind=robot: %v; want a *ValidationError on kind with a hint", err)
		}
	})
}

// TestWriteToOtherKind: a write under an id of the other kind is
// refused on every write path, as a *ValidationError on agent_id wrapping
// ErrTaken, and writes nothing; each kind writes under its own ids.
func TestWriteToOtherKind(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		pat, err := addPerson(t, s, "pat", "Pat")
		if err != nil {
			t.Fatal(err)
		}
		if pat.Kind != board.KindPerson || pat.Name != "Pat" || !pat.FirstSeen.Equal(pat.LastSeen) {
			t.Errorf("AddPerson = %+v; want kind person, named Pat, first seen when last seen", pat)
		}
		p := mustCreate(t, s, newPrediction("bot"))
		before, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		person := board.KindPerson
		for _, tc := range []struct {
			name    string
			id, kin string
			write   func(id, kind string) error
		}{
			{"post", "pat", "", func(id, kind string) error {
				np := newPrediction(id)
				np.Kind = kind
				_, err := s.CreatePrediction(ctx, np)
				return err
			}},
			{"forecast", "pat", board.KindAgent, func(id, kind string) error {
				_, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: id, Kind: kind, P: raw("0.3")})
				return err
			}},
			{"reply", "pat", "", func(id, kind string) error {
				_, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: id, Kind: kind, Body: "why?"})
				return err
			}},
			{"agree reply", "pat", "", func(id, kind string) error {
				_, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: id, Kind: kind, Body: "[AGREE] yes"})
				return err
			}},
			{"react", "pat", "", func(id, kind string) error {
				_, err := s.React(ctx, p.ID, board.NewReaction{AgentID: id, Kind: kind, Reaction: board.ReactionAgree})
				return err
			}},
			{"person's post under an agent's id", "bot", person, func(id, kind string) error {
				np := newPrediction(id)
				np.Kind = kind
				_, err := s.CreatePrediction(ctx, np)
				return err
			}},
			{"person's forecast under an agent's id", "bot", person, func(id, kind string) error {
				_, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: id, Kind: kind, P: raw("0.3")})
				return err
			}},
		} {
			err := tc.write(tc.id, tc.kin)
			wantTaken(t, tc.name, err, "agent_id")
			if err != nil && tc.kin != person && err.Error() != `board: agent_id "pat" is a person's id on this board (choose another agent id)` {
				t.Errorf("%s: error %q", tc.name, err)
			}
		}
		after, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("refused writes changed the statistics (-want +got):\n%s", diff)
		}
		if got, err := s.Agent(ctx, "pat"); err != nil || got.Predictions+got.Forecasts+got.Replies+got.Reactions != 0 || !got.LastSeen.Equal(pat.LastSeen) {
			t.Errorf("pat after the refused writes = %+v, %v; want untouched", got, err)
		}

		// Each kind writes under its own ids, on every path.
		np := newPrediction("pat")
		np.Kind = board.KindPerson
		mine := mustCreate(t, s, np)
		if _, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "pat", Kind: board.KindPerson, P: raw("0.4")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "pat", Kind: board.KindPerson, Body: "[DISAGREE] too high"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.React(ctx, mine.ID, board.NewReaction{AgentID: "bot", Reaction: board.ReactionAgree}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Agent(ctx, "pat")
		if err != nil {
			t.Fatal(err)
		}
		if got.Kind != board.KindPerson || got.Predictions != 1 || got.Forecasts != 2 || got.Replies != 1 || got.Reactions != 1 {
			t.Errorf("pat = %+v; want a person with 1 post, 2 forecasts, 1 reply, 1 reaction", got)
		}
		if a, err := s.Agent(ctx, "bot"); err != nil || a.Kind != board.KindAgent {
			t.Errorf("bot = %+v, %v; want kind agent", a, err)
		}
		checkCounters(t, s)

		_, err = s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "pat", Kind: "Person", P: raw("0.4")})
		var ve *board.ValidationError
		if !errors.As(err, &ve) || ve.Field != "kind" {
			t.Errorf("kind Person: %v; want a *ValidationError on kind", err)
		}
	})
}

// TestAddPerson: a person's id is refused when any forecaster has it
// (person_id, ErrTaken) and when the board's rules refuse it.
func TestAddPerson(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		mustCreate(t, s, newPrediction("bot"))
		if _, err := addPerson(t, s, "pat", ""); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"bot", "pat"} {
			_, err := addPerson(t, s, id, "Someone")
			wantTaken(t, "AddPerson("+id+")", err, "person_id")
			if err != nil && err.Error() != fmt.Sprintf("board: person_id %q is taken (choose another id)", id) {
				t.Errorf("AddPerson(%s): error %q", id, err)
			}
		}
		if a, err := s.Agent(context.Background(), "bot"); err != nil || a.Kind != board.KindAgent || a.Name != "bot" {
			t.Errorf("bot after AddPerson(bot) = %+v, %v; want the agent unchanged", a, err)
		}
		for _, tc := range []struct{ id, name, field string }{
			{"", "", "agent_id"},
			{"has space", "", "agent_id"},
			{"ok-id", "two\nlines", "agent_name"},
		} {
			_, err := addPerson(t, s, tc.id, tc.name)
			var ve *board.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, board.ErrInvalid) {
				t.Errorf("AddPerson(%q, %q) = %v; want a *ValidationError on %s", tc.id, tc.name, err, tc.field)
			}
		}
	})
}

// TestAddPersonRace: a person's id asked for while an agent forecasts
// under the same new id: exactly one of them wins, the other is refused
// with ErrTaken, and the row is of the winner's kind.
func TestAddPersonRace(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		p := mustCreate(t, s, newPrediction("author"))
		for i := range 20 {
			id := fmt.Sprintf("new-%d", i)
			var wg sync.WaitGroup
			start := make(chan struct{})
			var personErr, agentErr error
			wg.Add(2)
			go func() {
				defer wg.Done()
				<-start
				personErr = s.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
					_, err := s.AddPerson(ctx, tx, id, "")
					return err
				})
			}()
			go func() {
				defer wg.Done()
				<-start
				_, agentErr = s.Forecast(ctx, p.ID, board.NewForecast{AgentID: id, P: raw("0.5")})
			}()
			close(start)
			wg.Wait()
			a, err := s.Agent(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case personErr == nil && agentErr != nil:
				wantTaken(t, id+": the agent's forecast", agentErr, "agent_id")
				if a.Kind != board.KindPerson || a.Forecasts != 0 {
					t.Errorf("%s = %+v; want a person without forecasts", id, a)
				}
			case agentErr == nil && personErr != nil:
				wantTaken(t, id+": AddPerson", personErr, "person_id")
				if a.Kind != board.KindAgent || a.Forecasts != 1 {
					t.Errorf("%s = %+v; want an agent with its forecast", id, a)
				}
			default:
				t.Errorf("%s: AddPerson %v, forecast %v; want exactly one refused", id, personErr, agentErr)
			}
		}
		checkCounters(t, s)
	})
}

// TestUpgradeToKinds: a board made before forecaster kinds has every
// forecaster an agent after the upgrade, which keeps writing as before;
// a person's id cannot take theirs.
func TestUpgradeToKinds(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			ctx := context.Background()
			dsn := b.dsn(t)
			t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			ins := `INSERT INTO agents (id, name, first_seen, last_seen) VALUES (?, ?, ?, ?)`
			if err := board.SeedAt(ctx, dsn, "20261130000010", []string{ins, ins},
				[][]any{{"alice", "Alice", t0, t0}, {"bob", "bob", t0, t0}}); err != nil {
				t.Fatalf("SeedAt: %v", err)
			}
			s := mustOpen(t, dsn, board.Options{})
			page, err := s.Agents(ctx, board.AgentQuery{Kind: board.KindAgent})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range page.Agents {
				got = append(got, a.ID+":"+a.Kind)
			}
			if diff := cmp.Diff([]string{"alice:agent", "bob:agent"}, got); diff != "" {
				t.Errorf("agents after the upgrade (-want +got):\n%s", diff)
			}
			mustCreate(t, s, newPrediction("alice"))
			_, err = addPerson(t, s, "bob", "")
			wantTaken(t, "AddPerson(bob)", err, "person_id")
		})
	}
}
