package board_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/board"
)

// eventTypes reads the whole log after after and returns the types and
// the events.
func readEvents(t *testing.T, s *board.Store, q board.EventQuery) []board.Event {
	t.Helper()
	var out []board.Event
	for {
		page, err := s.Events(context.Background(), q)
		if err != nil {
			t.Fatalf("Events(%+v): %v", q, err)
		}
		out = append(out, page.Events...)
		q.After = page.LastID
		if !page.HasMore {
			return out
		}
	}
}

func typesOf(evs []board.Event) []board.EventType {
	out := []board.EventType{}
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// TestEventsEveryChange makes each change the log records and checks
// its event, in commit order, with the ids, agents and data a reader
// needs.
func TestEventsEveryChange(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		ctx := context.Background()
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		np := newPrediction("scout")
		closeAt := clk.Now().Add(time.Hour)
		np.CloseAt = closeAt.Format(time.RFC3339)
		p := mustCreate(t, s, np)
		f := func(agent string, pr float64) {
			t.Helper()
			raw, _ := json.Marshal(pr)
			if _, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: agent, P: raw}); err != nil {
				t.Fatalf("Forecast: %v", err)
			}
		}
		f("skeptic", 0.4)
		f("skeptic", 0.4) // the same standing value: the community does not move
		reply := func(agent, body, parent string) board.Reply {
			t.Helper()
			r, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: agent, Body: body, ParentID: parent})
			if err != nil {
				t.Fatalf("Reply: %v", err)
			}
			return r
		}
		plain := reply("skeptic", "Vendor C shipped early.", "")
		reply("scout", "Not this time.", plain.ID)
		d := reply("skeptic", "[DEBATE] Will vendor C slip?", "")
		reply("scout", "It will.", d.ID)
		reply("critic", "[AGREE] fair", "")
		if _, err := s.React(ctx, p.ID, board.NewReaction{AgentID: "critic", Reaction: board.ReactionAgree}); err != nil {
			t.Fatal(err) // unchanged: no event
		}
		if _, err := s.React(ctx, p.ID, board.NewReaction{AgentID: "critic", Reaction: board.ReactionDisagree}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(2 * time.Hour)
		for i, want := range []int{1, 0} { // announced once
			if n, err := s.AnnounceCloses(ctx); err != nil || n != want {
				t.Fatalf("AnnounceCloses #%d = %d, %v; want %d", i+1, n, err, want)
			}
		}
		if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: board.OutcomeYes}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: board.OutcomeYes}); err != nil {
			t.Fatal(err) // the same outcome: no event
		}
		if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: board.OutcomeNo, By: "dana"}); err != nil {
			t.Fatal(err)
		}
		v := mustCreate(t, s, newPrediction("critic"))
		if _, err := s.Resolve(ctx, v.ID, board.NewResolution{Outcome: board.OutcomeVoid}); err != nil {
			t.Fatal(err)
		}

		evs := readEvents(t, s, board.EventQuery{})
		want := []board.EventType{
			board.EventPredictionCreated,
			board.EventForecast, board.EventCommunityMoved,
			board.EventForecast,
			board.EventReply, board.EventReply,
			board.EventReply, board.EventDebateEntry, // a debate opened: a reply, and a debate entry
			board.EventReply, board.EventDebateEntry, // and joined
			board.EventReply, board.EventReaction,
			board.EventReaction,
			board.EventClosed,
			board.EventResolved, board.EventCorrected,
			board.EventPredictionCreated, board.EventVoided,
		}
		if diff := cmp.Diff(want, typesOf(evs)); diff != "" {
			t.Fatalf("event types (-want +got):\n%s", diff)
		}
		for i := 1; i < len(evs); i++ {
			if evs[i].ID <= evs[i-1].ID {
				t.Errorf("ids not increasing: %d then %d", evs[i-1].ID, evs[i].ID)
			}
		}
		type who struct{ Pred, Domain, Author, Agent, To string }
		got := []who{}
		for _, e := range evs[:14] {
			got = append(got, who{e.PredictionID, e.Domain, e.AuthorID, e.AgentID, e.ToAgentID})
		}
		w := func(agent, to string) who { return who{p.ID, "AI", "scout", agent, to} }
		if diff := cmp.Diff([]who{w("scout", ""), w("skeptic", ""), w("", ""), w("skeptic", ""),
			w("skeptic", ""), w("scout", "skeptic"), w("skeptic", ""), w("skeptic", ""), w("scout", "skeptic"), w("scout", "skeptic"),
			w("critic", ""), w("critic", ""), w("critic", ""), w("", "")}, got); diff != "" {
			t.Errorf("who (-want +got):\n%s", diff)
		}
		data := func(i int) map[string]any {
			var m map[string]any
			if err := json.Unmarshal(evs[i].Data, &m); err != nil {
				t.Fatalf("event %d data %s: %v", i, evs[i].Data, err)
			}
			return m
		}
		checks := []struct {
			i    int
			want map[string]any
		}{
			{2, map[string]any{"p": data(2)["p"], "previous": 0.7, "forecasters": 2.0, "method": "geo_odds"}},
			{3, map[string]any{"forecast_id": data(3)["forecast_id"], "p": 0.4, "previous": 0.4}},
			{6, map[string]any{"reply_id": d.ID, "kind": "debate", "debate_id": d.ID}},
			{7, data(6)},
			{8, map[string]any{"reply_id": data(8)["reply_id"], "parent_id": d.ID, "kind": "plain", "debate_id": d.ID}},
			{9, data(8)},
			{12, map[string]any{"reaction": "disagree", "previous": "agree"}},
			{13, map[string]any{"close_at": closeAt.Format(time.RFC3339)}},
			{15, map[string]any{"outcome": "no", "previous": "yes", "closed_at": closeAt.Format(time.RFC3339), "by": "dana"}},
		}
		for _, c := range checks {
			if diff := cmp.Diff(c.want, data(c.i)); diff != "" {
				t.Errorf("event %d (%s) data (-want +got):\n%s", c.i, evs[c.i].Type, diff)
			}
		}
		if p, _ := data(2)["p"].(float64); p <= 0.4 || p >= 0.7 {
			t.Errorf("community.moved p = %v, want between 0.4 and 0.7", p)
		}
	})
}

// TestEventsRollback: a write that fails after appending its events
// leaves neither its rows nor its events.
func TestEventsRollback(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{})
		p := mustCreate(t, s, newPrediction("scout"))
		before, err := s.LastEventID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		boom := errors.New("boom")
		board.SetAfterAppend(s, func() error { return boom })
		raw := json.RawMessage("0.2")
		writes := map[string]func() error{
			"forecast": func() error {
				_, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "skeptic", P: raw})
				return err
			},
			"reply": func() error {
				_, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "skeptic", Body: "[AGREE] yes"})
				return err
			},
			"react": func() error {
				_, err := s.React(ctx, p.ID, board.NewReaction{AgentID: "skeptic", Reaction: board.ReactionAgree})
				return err
			},
			"resolve": func() error {
				_, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: board.OutcomeYes})
				return err
			},
		}
		for name, w := range writes {
			if err := w(); !errors.Is(err, boom) {
				t.Errorf("%s with a failing commit = %v, want boom", name, err)
			}
		}
		board.SetAfterAppend(s, nil)
		if after, err := s.LastEventID(ctx); err != nil || after != before {
			t.Errorf("LastEventID = %d, %v; want %d (no event)", after, err, before)
		}
		got, err := s.Prediction(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != board.StatusOpen || got.Replies != 0 || got.Community.Forecasters != 1 || got.Reactions.Agree != 0 {
			t.Errorf("after rolled back writes: %+v", got)
		}
	})
}

// TestEventsResumeAndFilters: a read after an id returns exactly the
// events after it; each filter keeps what it says; bad filters name
// their field.
func TestEventsResumeAndFilters(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{})
		a := mustCreate(t, s, newPrediction("scout"))
		np := newPrediction("critic")
		np.Domain = "science"
		b := mustCreate(t, s, np)
		r, err := s.Reply(ctx, b.ID, board.NewReply{AgentID: "critic", Body: "My own note."})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reply(ctx, b.ID, board.NewReply{AgentID: "skeptic", Body: "Answering critic.", ParentID: r.ID}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reply(ctx, a.ID, board.NewReply{AgentID: "critic", Body: "On scout's."}); err != nil {
			t.Fatal(err)
		}
		all := readEvents(t, s, board.EventQuery{})
		if len(all) != 5 {
			t.Fatalf("%d events, want 5: %v", len(all), typesOf(all))
		}
		for i := range all {
			got := readEvents(t, s, board.EventQuery{After: all[i].ID})
			if diff := cmp.Diff(all[i+1:], got, cmpopts.EquateEmpty(), cmp.Comparer(func(x, y json.RawMessage) bool { return string(x) == string(y) })); diff != "" {
				t.Errorf("after %d (-want +got):\n%s", all[i].ID, diff)
			}
		}
		ids := func(evs []board.Event) []int64 {
			out := []int64{}
			for _, e := range evs {
				out = append(out, e.ID)
			}
			return out
		}
		for _, c := range []struct {
			name string
			q    board.EventQuery
			want []int64
		}{
			{"type", board.EventQuery{Types: []board.EventType{board.EventReply}}, ids(all[2:])},
			{"prediction", board.EventQuery{PredictionID: a.ID}, []int64{all[0].ID, all[4].ID}},
			// critic's own prediction and the reply answering its reply; not its reply on scout's.
			{"agent", board.EventQuery{AgentID: "critic"}, ids(all[1:4])},
			{"agent answered", board.EventQuery{AgentID: "scout"}, []int64{all[0].ID, all[4].ID}},
			{"domain", board.EventQuery{Domain: "SCIENCE"}, ids(all[1:4])},
			{"limit", board.EventQuery{Limit: 2}, ids(all[:2])},
		} {
			page, err := s.Events(ctx, c.q)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if diff := cmp.Diff(c.want, ids(page.Events)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", c.name, diff)
			}
		}
		for _, c := range []struct {
			q     board.EventQuery
			field string
		}{
			{board.EventQuery{After: -1}, "after"},
			{board.EventQuery{Types: []board.EventType{"forecast"}}, "type"},
			{board.EventQuery{PredictionID: "a b"}, "prediction_id"},
			{board.EventQuery{AgentID: "no spaces"}, "agent_id"},
			{board.EventQuery{Domain: "cooking"}, "domain"},
			{board.EventQuery{Limit: -3}, "limit"},
		} {
			_, err := s.Events(ctx, c.q)
			var ve *board.ValidationError
			if !errors.As(err, &ve) || ve.Field != c.field || ve.Hint == "" {
				t.Errorf("Events(%+v) = %v, want a ValidationError on %s with a hint", c.q, err, c.field)
			}
		}
	})
}

func TestParseEvents(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []board.EventType
		ok   bool
	}{
		{"forecast.created", []board.EventType{board.EventForecast}, true},
		{" Reply.Created , forecast.created,reply.created", []board.EventType{board.EventReply, board.EventForecast}, true},
		{"", nil, false},
		{"reply", nil, false},
		{"reply.created,", nil, false},
	} {
		got, err := board.ParseEventTypes("type", c.in)
		if (err == nil) != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("ParseEventTypes(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{{"42", 42, true}, {" 0 ", 0, true}, {"-1", 0, false}, {"+5", 0, false}, {"-0", 0, false}, {"4x", 0, false}, {"", 0, false}, {"99999999999999999999", 0, false}} {
		got, err := board.ParseEventID("last_event_id", c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseEventID(%q) = %d, %v; want %d (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}

func FuzzParseEventTypes(f *testing.F) {
	for _, s := range []string{"forecast.created", "a,b", " , ", "reply.created,REPLY.CREATED"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := board.ParseEventTypes("type", s)
		if err != nil {
			var ve *board.ValidationError
			if !errors.As(err, &ve) || ve.Field != "type" {
				t.Fatalf("ParseEventTypes(%q) error %v is not a ValidationError on type", s, err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatalf("ParseEventTypes(%q) = no types, no error", s)
		}
		for _, e := range got {
			if !slices.Contains(board.EventTypes(), e) {
				t.Fatalf("ParseEventTypes(%q) gave unknown %q", s, e)
			}
		}
	})
}

// TestEventsTrim: events older than the retention go, a reader behind
// them is told so (410 over HTTP), and one from 0 or after them is not.
func TestEventsTrim(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		ctx := context.Background()
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		for range 3 {
			mustCreate(t, s, newPrediction("scout"))
		}
		old, _ := s.LastEventID(ctx)
		clk.Advance(8 * 24 * time.Hour)
		mustCreate(t, s, newPrediction("scout"))
		if n, err := s.TrimEvents(ctx, 0); err != nil || n != 3 {
			t.Fatalf("TrimEvents = %d, %v; want 3", n, err)
		}
		_, err := s.Events(ctx, board.EventQuery{After: old - 1})
		var ve *board.ValidationError
		if !errors.Is(err, board.ErrEventsTrimmed) || !errors.As(err, &ve) || ve.Field != "after" {
			t.Errorf("Events after a trimmed id = %v, want ErrEventsTrimmed on after", err)
		}
		for _, after := range []int64{0, old} {
			page, err := s.Events(ctx, board.EventQuery{After: after})
			if err != nil || len(page.Events) != 1 {
				t.Errorf("Events(after %d) = %d events, %v; want the 1 kept", after, len(page.Events), err)
			}
		}
	})
}

// TestEventsConcurrentWriters is the rule of eventsStmt on PostgreSQL:
// with writers committing at random moments after taking their ids, a
// reader that follows the log (each read after the last id it saw)
// misses none. Without the appends' lock, ids commit out of order and
// it misses some.
func TestEventsConcurrentWriters(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := open(board.Options{MaxConns: 12})
		preds := make([]board.Prediction, 6)
		for i := range preds {
			preds[i] = mustCreate(t, s, newPrediction("scout"))
		}
		board.SetAfterAppend(s, func() error {
			time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
			return nil
		})
		start, _ := s.LastEventID(ctx)
		const perWriter = 15
		var wg sync.WaitGroup
		done := make(chan struct{})
		seen := []int64{}
		go func() { // the reader
			defer close(done)
			after := start
			for {
				select {
				case <-ctx.Done():
					return
				default:
				}
				page, err := s.Events(ctx, board.EventQuery{After: after, Limit: board.MaxEventPage})
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					t.Errorf("Events: %v", err)
					return
				}
				for _, e := range page.Events {
					seen = append(seen, e.ID)
				}
				after = page.LastID
				if len(seen) >= len(preds)*perWriter {
					return
				}
				if len(page.Events) == 0 {
					time.Sleep(time.Millisecond) // nothing new: leave the CPU to the writers
				}
			}
		}()
		for i, p := range preds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range perWriter {
					agent := "agent-" + string(rune('a'+i))
					if _, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: agent, Body: "note " + string(rune('a'+j))}); err != nil {
						t.Errorf("Reply: %v", err)
						return
					}
				}
			}()
		}
		wg.Wait()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cancel()
			<-done
			t.Fatalf("the reader saw %d of %d events", len(seen), len(preds)*perWriter)
		}
		board.SetAfterAppend(s, nil)
		all := readEvents(t, s, board.EventQuery{After: start})
		want := []int64{}
		for _, e := range all {
			want = append(want, e.ID)
		}
		if diff := cmp.Diff(want, seen); diff != "" {
			t.Errorf("the following reader saw (-log +seen):\n%s", diff)
		}
	})
}

// TestEventsChangedAcrossStores: on PostgreSQL, a write through one
// store wakes the readers of another store on the same database; on
// every database, a write wakes its own store's readers.
func TestEventsChangedAcrossStores(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			dsn := b.migrated(t)
			one := mustOpen(t, dsn, board.Options{})
			two := one
			if b.name == "postgres" {
				two = mustOpen(t, dsn, board.Options{})
				two.EventsChanged()                // starts listening
				time.Sleep(200 * time.Millisecond) // LISTEN is in place
			}
			woken := two.EventsChanged()
			p := mustCreate(t, one, newPrediction("scout"))
			select {
			case <-woken:
			case <-time.After(5 * time.Second):
				t.Fatal("the other store's readers were not woken")
			}
			page, err := two.Events(context.Background(), board.EventQuery{})
			if err != nil || len(page.Events) != 1 || page.Events[0].PredictionID != p.ID {
				t.Errorf("Events = %+v, %v; want the new prediction's", page.Events, err)
			}
		})
	}
}

func FuzzParseEventID(f *testing.F) {
	for _, s := range []string{"0", "42", " 7 ", "-1", "x", "9223372036854775807", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := board.ParseEventID("last_event_id", s)
		if err != nil {
			var ve *board.ValidationError
			if !errors.As(err, &ve) || ve.Field != "last_event_id" || ve.Hint == "" {
				t.Fatalf("ParseEventID(%q) error %v is not a ValidationError on last_event_id with a hint", s, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseEventID(%q) = %d, below 0", s, n)
		}
		if back, err := board.ParseEventID("last_event_id", strconv.FormatInt(n, 10)); err != nil || back != n {
			t.Fatalf("ParseEventID(%q) = %d, but its text reads back as %d, %v", s, n, back, err)
		}
	})
}
