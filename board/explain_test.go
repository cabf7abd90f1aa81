package board

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// queryPlan returns SQLite's EXPLAIN QUERY PLAN details for q.
func queryPlan(t *testing.T, s *Store, q string, args ...any) []string {
	t.Helper()
	var rows []struct {
		ID      int    `bun:"id"`
		Parent  int    `bun:"parent"`
		NotUsed int    `bun:"notused"`
		Detail  string `bun:"detail"`
	}
	if err := s.read.NewRaw("EXPLAIN QUERY PLAN "+q, args...).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	var plan []string
	for _, r := range rows {
		plan = append(plan, r.Detail)
	}
	return plan
}

// planProblems lists what is wrong with a plan that should read the rows
// in order from index: a table scan, a temporary B-tree or another index.
func planProblems(plan []string, index string) []string {
	var problems []string
	text := strings.Join(plan, "\n")
	if strings.Contains(text, "TEMP B-TREE") {
		problems = append(problems, "sorts in a temporary B-tree")
	}
	if !strings.Contains(text, "USING INDEX "+index) && !strings.Contains(text, "USING COVERING INDEX "+index) {
		problems = append(problems, "does not use index "+index)
	}
	for _, line := range plan {
		if strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "INDEX") {
			problems = append(problems, "scans a table: "+line)
		}
	}
	return problems
}

// TestFeedQueryPlans asserts on SQLite that every feed query walks its
// index in the requested order: no full table scan and no temporary
// B-tree for the ORDER BY.
func TestFeedQueryPlans(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "plan.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// The checker itself must catch a query the indexes do not serve.
	bad := queryPlan(t, s, `SELECT p.id FROM predictions AS p ORDER BY p.title LIMIT 20`)
	if got := planProblems(bad, "predictions_recent"); len(got) < 2 {
		t.Fatalf("planProblems(%q) = %q, want a temporary B-tree and a missing index", bad, got)
	}

	for _, sort := range []Sort{SortRecent, SortConfidence, SortPopular} {
		for _, byDomain := range []bool{false, true} {
			index := "predictions_" + string(sort)
			args := []any{20, 40}
			if byDomain {
				index = "predictions_domain_" + string(sort)
				args = append([]any{"AI"}, args...)
			}
			t.Run(index, func(t *testing.T) {
				plan := queryPlan(t, s, feedSQL(sort, byDomain), args...)
				t.Logf("plan:\n%s", strings.Join(plan, "\n"))
				for _, p := range planProblems(plan, index) {
					t.Errorf("feed query %s", p)
				}
			})
		}
	}
}
