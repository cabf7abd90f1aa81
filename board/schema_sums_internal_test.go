package board

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/uptrace/bun"
)

// TestRefillSums: the migration's fill of the running sums, from the
// stored scores alone, gives the tables that scoring one resolution at a
// time kept (to rounding), and pages read from them answer the same.
func TestRefillSums(t *testing.T) {
	ctx := context.Background()
	s, _ := dailyBoard(t, 24, func(i int) (Outcome, string, []string) {
		outcome := OutcomeYes
		if i%3 == 1 {
			outcome = OutcomeNo
		}
		return outcome, []string{"science", "ai", "space"}[i%3], []string{"ann", "bob", "cy", "dan"}[:2+i%3]
	})
	read := func() (map[string]any, error) {
		out := map[string]any{}
		for _, d := range []string{"", "Science", "AI", "Space"} {
			page, err := s.Agents(ctx, AgentQuery{Sort: AgentSortSkill, Domain: d})
			if err != nil {
				return nil, err
			}
			out["agents "+d] = page
		}
		for _, a := range []string{"ann", "bob", "cy", "dan"} {
			ag, err := s.Agent(ctx, a)
			if err != nil {
				return nil, err
			}
			out["agent "+a] = ag
		}
		return out, nil
	}
	before, err := read()
	if err != nil {
		t.Fatal(err)
	}
	err = s.write.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return refillSums(ctx, tx)
	})
	if err != nil {
		t.Fatalf("refillSums: %v", err)
	}
	bad, err := s.CounterMismatches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("after refillSums: %q", bad)
	}
	after, err := read()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("pages after refillSums (-kept one score at a time +refilled):\n%s", diff)
	}
}
