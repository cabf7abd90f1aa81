package board_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

func TestReplyKind(t *testing.T) {
	tests := []struct {
		body string
		want board.ReplyKind
	}{
		{"[AGREE] the trend holds", board.ReplyAgree},
		{"[agree]", board.ReplyAgree},
		{"  [ agree ] text", board.ReplyAgree},
		{"\n\t[Agree]\nnext line", board.ReplyAgree},
		{"[AGREE]no space after", board.ReplyAgree},
		{"[DISAGREE] no", board.ReplyDisagree},
		{"[ DisAgree\t]", board.ReplyDisagree},
		{"[CHALLENGE] see the 2024 data", board.ReplyChallenge},
		{"[challenge]", board.ReplyChallenge},
		{"[DEBATE] Is the base rate right?", board.ReplyDebate},
		{"[ debate ]", board.ReplyDebate},
		{"[AGREE] [DISAGREE]", board.ReplyAgree}, // the first tag counts
		// Not tags.
		{"[AGREE", board.ReplyPlain},
		{"I [AGREE]", board.ReplyPlain},
		{"AGREE", board.ReplyPlain},
		{"[AGREED] past tense", board.ReplyPlain},
		{"[AG REE]", board.ReplyPlain},
		{"[UNCERTAIN]", board.ReplyPlain},
		{"[]", board.ReplyPlain},
		{"[[AGREE]]", board.ReplyPlain},
		{"(AGREE)", board.ReplyPlain},
		{"[AGREE)", board.ReplyPlain},
		{"[ＡGREE]", board.ReplyPlain},    // a full-width A is not ASCII
		{"[diſagree]", board.ReplyPlain}, // long s folds to s in Unicode, not here
		{"> [AGREE] quoted", board.ReplyPlain},
		{"", board.ReplyPlain},
	}
	for _, tt := range tests {
		if got := board.ReplyKindOf(tt.body); got != tt.want {
			t.Errorf("replyKind(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func FuzzParseTag(f *testing.F) {
	for _, s := range []string{"[AGREE] x", "  [ debate ]\ntitle", "[AGREE", "I [AGREE]", "[", "]", "[challenge]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		kind, rest := board.ParseTag(body)
		switch kind {
		case board.ReplyPlain:
			if rest != body {
				t.Errorf("parseTag(%q): plain, but rest = %q", body, rest)
			}
		case board.ReplyAgree, board.ReplyDisagree, board.ReplyChallenge, board.ReplyDebate:
			if !strings.HasSuffix(body, rest) || !strings.Contains(strings.ToLower(body[:len(body)-len(rest)]), string(kind)) {
				t.Errorf("parseTag(%q) = %q, rest %q: the tag is not before rest", body, kind, rest)
			}
			if again, _ := board.ParseTag(body[:len(body)-len(rest)]); again != kind {
				t.Errorf("parseTag(%q) = %q, but the tag alone parses as %q", body, kind, again)
			}
		default:
			t.Errorf("parseTag(%q) = unknown kind %q", body, kind)
		}
		if title := board.DebateTitle(body); utf8.RuneCountInString(title) > board.MaxTitle || strings.ContainsAny(title, "\r\n\v\f\u0085\u2028\u2029") {
			t.Errorf("debateTitle(%q) = %q: too long or several lines", body, title)
		}
	})
}

func TestDebateTitle(t *testing.T) {
	for body, want := range map[string]string{
		"[DEBATE] Is the base rate right?\nDetails": "Is the base rate right?",
		"[debate]\n\n  Second line  \nthird":        "Second line",
		"[DEBATE]":                                  "",
		"[DEBATE] " + strings.Repeat("é", 300):      strings.Repeat("é", board.MaxTitle),
	} {
		if got := board.DebateTitle(body); got != want {
			t.Errorf("debateTitle(%q) = %q, want %q", body, got, want)
		}
	}
}

// TestTaggedReplies: [AGREE] and [DISAGREE] replies record the agent's
// reaction (one per agent, replaced), every kind is counted on the
// prediction and in the feed.
func TestTaggedReplies(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		p := mustCreate(t, s, newPrediction("author"))
		reply := func(agent, body string) board.Reply {
			t.Helper()
			clk.Advance(time.Second)
			r, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: agent, Body: body})
			if err != nil {
				t.Fatalf("Reply(%s, %q): %v", agent, body, err)
			}
			return r
		}

		first := reply("x", "[AGREE] base rates support it")
		if first.Kind != board.ReplyAgree || first.Body != "[AGREE] base rates support it" {
			t.Errorf("kind %q body %q; want agree and the body as sent", first.Kind, first.Body)
		}
		want := &board.Reaction{PredictionID: p.ID, AgentID: "x", Reaction: board.ReactionAgree,
			CreatedAt: first.CreatedAt, UpdatedAt: first.CreatedAt, Counts: &board.ReactionCounts{Agree: 1}}
		if diff := cmp.Diff(want, first.Reaction); diff != "" {
			t.Errorf("[AGREE] reply's reaction (-want +got):\n%s", diff)
		}

		second := reply("x", " [ disagree ] new data changed my mind")
		want = &board.Reaction{PredictionID: p.ID, AgentID: "x", Reaction: board.ReactionDisagree,
			CreatedAt: first.CreatedAt, UpdatedAt: second.CreatedAt, Previous: board.ReactionAgree,
			Counts: &board.ReactionCounts{Disagree: 1}}
		if diff := cmp.Diff(want, second.Reaction); diff != "" {
			t.Errorf("[DISAGREE] after [AGREE] (-want +got):\n%s", diff)
		}

		// A tag and the reaction route write the same reaction.
		if _, err := s.React(ctx, p.ID, board.NewReaction{AgentID: "y", Reaction: board.ReactionUncertain}); err != nil {
			t.Fatal(err)
		}
		third := reply("y", "[agree]")
		if third.Reaction == nil || third.Reaction.Previous != board.ReactionUncertain {
			t.Errorf("[agree] after reacting uncertain: reaction %+v, want previous uncertain", third.Reaction)
		}
		reply("z", "[CHALLENGE] the 2024 launch slipped by a year")
		reply("z", "[CHALLENGE] and so did 2025's")
		reply("w", "[DEBATE] Which base rate?")
		reply("w", "I [AGREE] in part")
		if r := reply("author", "[AGREE] my own"); r.Reaction == nil {
			t.Errorf("the author's [AGREE] recorded no reaction")
		}

		got, err := s.Prediction(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantKinds := board.ReplyKindCounts{Plain: 1, Agree: 3, Disagree: 1, Challenge: 2, Debate: 1}
		if diff := cmp.Diff(wantKinds, got.ReplyKinds); diff != "" {
			t.Errorf("reply_kinds (-want +got):\n%s", diff)
		}
		wantReactions := board.ReactionCounts{Agree: 2, Disagree: 1} // x disagree, y agree, author agree
		if got.Reactions != wantReactions || got.Replies != 8 || got.Popularity != 8+3 {
			t.Errorf("reactions %+v replies %d popularity %d; want %+v, 8 and 11", got.Reactions, got.Replies, got.Popularity, wantReactions)
		}
		f, err := s.Feed(ctx, board.FeedQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantKinds, f.Predictions[0].ReplyKinds); diff != "" {
			t.Errorf("feed reply_kinds (-want +got):\n%s", diff)
		}
		list, err := s.Reactions(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		byAgent := map[string]board.ReactionKind{}
		for _, r := range list {
			byAgent[r.AgentID] = r.Reaction
		}
		if diff := cmp.Diff(map[string]board.ReactionKind{"x": "disagree", "y": "agree", "author": "agree"}, byAgent); diff != "" {
			t.Errorf("reactions (-want +got):\n%s", diff)
		}
		x, err := s.Agent(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		if x.Replies != 2 || x.Reactions != 1 {
			t.Errorf("agent x: %d replies, %d reactions; want 2 and 1", x.Replies, x.Reactions)
		}
		// A tagged reply to an unknown prediction records nothing.
		if _, err := s.Reply(ctx, "01900000-0000-7000-8000-000000000000", board.NewReply{AgentID: "v", Body: "[AGREE]"}); err == nil {
			t.Error("Reply to an unknown prediction succeeded")
		}
		if _, err := s.Agent(ctx, "v"); err == nil {
			t.Error("a rejected [AGREE] reply created its agent")
		}
		checkCounters(t, s)
	})
}

// TestDebates: a [DEBATE] reply opens a debate; replies under it, at any
// depth, join it; a [DEBATE] inside it opens a nested one.
func TestDebates(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		p := mustCreate(t, s, newPrediction("author"))
		reply := func(agent, body, parent string) board.Reply {
			t.Helper()
			clk.Advance(time.Second)
			r, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: agent, Body: body, ParentID: parent})
			if err != nil {
				t.Fatalf("Reply(%q): %v", body, err)
			}
			return r
		}
		before := reply("a", "plain, before any debate", "")
		d1 := reply("b", "[DEBATE] Is 0.7 too high?\nThe base rate is 40%.", "")
		e1 := reply("c", "[CHALLENGE] the base rate ignores 2025", d1.ID)
		e2 := reply("b", "fair, but", e1.ID)              // depth 2 joins too
		e3 := reply("d", "[AGREE] with b", e2.ID)         // depth 3, tagged
		d2 := reply("c", "[DEBATE] Which source?", e1.ID) // nested debate
		n1 := reply("a", "the agency's", d2.ID)
		outside := reply("d", "unrelated", before.ID)
		d3 := reply("e", "[debate]", "")

		for _, c := range []struct {
			r    board.Reply
			want string
		}{{before, ""}, {d1, d1.ID}, {e1, d1.ID}, {e2, d1.ID}, {e3, d1.ID}, {d2, d2.ID}, {n1, d2.ID}, {outside, ""}, {d3, d3.ID}} {
			if c.r.DebateID != c.want {
				t.Errorf("reply %q: debate_id %q, want %q", c.r.Body, c.r.DebateID, c.want)
			}
		}
		thread, err := s.Thread(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		strip := func(rs ...board.Reply) []board.Reply { // Thread does not carry Reaction
			out := []board.Reply{}
			for _, r := range rs {
				r.Reaction = nil
				out = append(out, r)
			}
			return out
		}
		if diff := cmp.Diff(strip(before, d1, e1, e2, e3, d2, n1, outside, d3), thread); diff != "" {
			t.Fatalf("Thread (-want +got):\n%s", diff)
		}
		want := []board.Debate{
			{ID: d1.ID, OpenedBy: "b", OpenedByName: "b", OpenedAt: d1.CreatedAt, Title: "Is 0.7 too high?",
				Entries: strip(e1, e2, e3, d2), Counts: board.ReplyKindCounts{Plain: 1, Agree: 1, Challenge: 1, Debate: 1}},
			{ID: d2.ID, OpenedBy: "c", OpenedByName: "c", OpenedAt: d2.CreatedAt, Title: "Which source?", ParentDebateID: d1.ID,
				Entries: strip(n1), Counts: board.ReplyKindCounts{Plain: 1}},
			{ID: d3.ID, OpenedBy: "e", OpenedByName: "e", OpenedAt: d3.CreatedAt, Title: "", Entries: []board.Reply{}},
		}
		if diff := cmp.Diff(want, board.Debates(thread)); diff != "" {
			t.Errorf("Debates (-want +got):\n%s", diff)
		}
		if got := board.Debates(nil); got == nil || len(got) != 0 {
			t.Errorf("Debates(nil) = %v, want an empty, non-nil list", got)
		}
		got, err := s.Prediction(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.ReplyKinds.Debate != 3 {
			t.Errorf("reply_kinds.debate = %d, want 3", got.ReplyKinds.Debate)
		}
		checkCounters(t, s)
	})
}

// TestConcurrentTaggedReplies: agents send [AGREE] and [DISAGREE] replies
// and reactions to one prediction at once, and join one debate. Each
// agent ends with one reaction, the last one it wrote; every counter
// equals a recount.
func TestConcurrentTaggedReplies(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		p := mustCreate(t, s, newPrediction("author"))
		debate, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "host", Body: "[DEBATE] open floor"})
		if err != nil {
			t.Fatal(err)
		}
		const agents, rounds = 16, 4
		bodies := []string{"[AGREE] yes", "[DISAGREE] no", "[CHALLENGE] hmm", "plain"}
		last := make([]board.ReactionKind, agents)
		var wg sync.WaitGroup
		errc := make(chan error, agents*rounds*2)
		for a := range agents {
			wg.Go(func() {
				agent := fmt.Sprintf("agent-%d", a)
				for r := range rounds {
					body := bodies[(a+r)%len(bodies)]
					parent := ""
					if r%2 == 1 {
						parent = debate.ID
					}
					rep, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: agent, Body: body, ParentID: parent})
					if err != nil {
						errc <- err
						continue
					}
					if rep.Reaction != nil {
						last[a] = rep.Reaction.Reaction
					}
					if (parent != "") != (rep.DebateID == debate.ID) {
						errc <- fmt.Errorf("reply with parent %q has debate_id %q", parent, rep.DebateID)
					}
					if r == 2 {
						re, err := s.React(ctx, p.ID, board.NewReaction{AgentID: agent, Reaction: board.ReactionUncertain})
						if err != nil {
							errc <- err
							continue
						}
						last[a] = re.Reaction
					}
				}
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Errorf("concurrent write: %v", err)
		}
		list, err := s.Reactions(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]board.ReactionKind{}
		for _, r := range list {
			got[r.AgentID] = r.Reaction
		}
		want := map[string]board.ReactionKind{}
		for a, k := range last {
			if k != "" {
				want[fmt.Sprintf("agent-%d", a)] = k
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("final reactions (-want +got):\n%s", diff)
		}
		pr, err := s.Prediction(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantKinds := board.ReplyKindCounts{Debate: 1}
		for a := range agents {
			for r := range rounds {
				switch bodies[(a+r)%len(bodies)] {
				case "[AGREE] yes":
					wantKinds.Agree++
				case "[DISAGREE] no":
					wantKinds.Disagree++
				case "[CHALLENGE] hmm":
					wantKinds.Challenge++
				default:
					wantKinds.Plain++
				}
			}
		}
		if diff := cmp.Diff(wantKinds, pr.ReplyKinds); diff != "" {
			t.Errorf("reply_kinds (-want +got):\n%s", diff)
		}
		thread, err := s.Thread(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := board.Debates(thread); len(d) != 1 || len(d[0].Entries) != agents*rounds/2 {
			t.Errorf("debates: %d, entries %d; want 1 with %d", len(d), len(d[0].Entries), agents*rounds/2)
		}
		checkCounters(t, s)
	})
}

// TestTagsMigration: a database written before migration 20261122000001
// gets replies_plain from its reply counts.
func TestTagsMigration(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			ctx := context.Background()
			dsn := b.dsn(t)
			s, err := board.Open(ctx, dsn, board.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := mustCreate(t, s, newPrediction("a"))
			for range 2 {
				if _, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "b", Body: "plain"}); err != nil {
					t.Fatal(err)
				}
			}
			if err := board.UndoTagsMigration(ctx, s); err != nil {
				t.Fatalf("undoing the migration: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s = mustOpen(t, dsn, board.Options{})
			got, err := s.Prediction(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.ReplyKinds != (board.ReplyKindCounts{Plain: 2}) {
				t.Errorf("after migrating: reply_kinds %+v, want 2 plain", got.ReplyKinds)
			}
			checkCounters(t, s)
		})
	}
}
