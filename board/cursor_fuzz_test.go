package board

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseCursor: any text is either a cursor that encodes back to
// itself or a *ValidationError naming cursor with a hint; never a panic.
func FuzzParseCursor(f *testing.F) {
	conf, pop, by := 0.75, int64(4), "2027-03-31T18:00:00Z"
	filters := []feedFilter{{sort: SortRecent}, {sort: SortConfidence, domain: "AI"}, {sort: SortPopular, q: "launch"}, {sort: SortClosing, agent: "scout"}}
	for _, c := range []cursor{
		{Sort: SortRecent, At: "2026-03-01T12:00:00.123456Z", ID: "0190f5a2-7b3c-7d4e-8f90-123456789abc"},
		{Sort: SortConfidence, At: "2026-03-01T12:00:00Z", ID: "q-1", Conf: &conf},
		{Sort: SortPopular, At: "2026-03-01T12:00:00Z", ID: "x", Pop: &pop},
		{Sort: SortClosing, At: "2026-03-01T12:00:00Z", ID: "y", Close: &by},
	} {
		for _, ff := range filters {
			c.Filter = ff.tag()
			f.Add(c.encode(), uint8(0))
		}
	}
	f.Add("", uint8(1))
	f.Add("eyJzIjoicmVjZW50In0", uint8(2))
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		ff := filters[int(which)%len(filters)]
		c, err := parseCursor(s, ff)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "cursor" || ve.Hint == "" || !errors.Is(err, ErrInvalid) {
				t.Fatalf("parseCursor(%q) = %v, want a ValidationError on cursor with a hint", s, err)
			}
			return
		}
		if c.Sort != ff.sort || c.Filter != ff.tag() {
			t.Fatalf("parseCursor(%q) = %+v for %+v: another sort or filter", s, c, ff)
		}
		again, err := parseCursor(c.encode(), ff)
		if err != nil {
			t.Fatalf("parseCursor(encode(%+v)) = %v", c, err)
		}
		if diff := cmp.Diff(c, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		_ = c.at() // readable
	})
}

// FuzzParseAgentCursor: any text is either an agent list cursor that
// encodes back to itself or a *ValidationError naming cursor with a hint;
// never a panic.
func FuzzParseAgentCursor(f *testing.F) {
	key := 12.5
	sorts := []AgentSort{AgentSortRecent, AgentSortPeer, AgentSortBrier, AgentSortTrust}
	for _, c := range []agentCursor{
		{Sort: AgentSortRecent, Seen: "2026-03-01T12:00:00.123456Z", ID: "forecaster-7"},
		{Sort: AgentSortPeer, Key: &key, Seen: "2026-03-01T12:00:00Z", ID: "a.b_c"},
		{Sort: AgentSortBrier, Seen: "2026-03-01T12:00:00Z", ID: "unscored"},
		{Sort: AgentSortTrust, Key: &key, Seen: "2026-03-01T12:00:00Z", ID: "x"},
	} {
		for i := range sorts {
			f.Add(c.encode(), uint8(i))
		}
	}
	f.Add(cursor{Sort: SortRecent, At: "2026-03-01T12:00:00Z", ID: "x", Filter: feedFilter{sort: SortRecent}.tag()}.encode(), uint8(0))
	f.Add("", uint8(1))
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		sort := sorts[int(which)%len(sorts)]
		c, err := parseAgentCursor(s, sort)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "cursor" || ve.Hint == "" || !errors.Is(err, ErrInvalid) {
				t.Fatalf("parseAgentCursor(%q) = %v, want a ValidationError on cursor with a hint", s, err)
			}
			return
		}
		if c.Sort != sort {
			t.Fatalf("parseAgentCursor(%q) = %+v for sort %s", s, c, sort)
		}
		again, err := parseAgentCursor(c.encode(), sort)
		if err != nil {
			t.Fatalf("parseAgentCursor(encode(%+v)) = %v", c, err)
		}
		if diff := cmp.Diff(c, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		q, args := agentPageSQL(sort, &c, 3, which%2 == 0, "", "")
		if q == "" || len(args) == 0 {
			t.Fatalf("agentPageSQL after %+v = %q, %v", c, q, args)
		}
	})
}
