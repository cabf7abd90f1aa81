package board

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/internal/database/databasetest"
	"github.com/uptrace/bun"
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
		// The total sums the counters (domain_counts: at most 16 rows a
		// domain); a scan of them is fine.
		if strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "INDEX") && line != "SCAN domain_counts" {
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

	for _, c := range planCases() {
		t.Run(c.name, func(t *testing.T) {
			q, args := s.pageSQL(c.f, c.after, 21, 0)
			plan := queryPlan(t, s, q, args...)
			t.Logf("plan:\n%s", strings.Join(plan, "\n"))
			for _, p := range planProblems(plan, c.index) {
				t.Errorf("feed query %s", p)
			}
		})
	}
}

// planCase is a feed query and the index that should serve it.
type planCase struct {
	name  string
	f     feedFilter
	after *cursor
	index string
}

// planCases lists every sort with and without the domain filter, each
// first page and after a cursor, and the agent and status filters.
func planCases() []planCase {
	var cs []planCase
	conf, pop, by := 0.5, int64(3), "2027-01-01T00:00:00Z"
	for _, sort := range []Sort{SortRecent, SortConfidence, SortPopular, SortClosing} {
		for _, domain := range []string{"", "AI"} {
			for _, deep := range []bool{false, true} {
				index := "predictions_" + string(sort)
				if domain != "" && sort != SortClosing {
					index = "predictions_domain_" + string(sort)
				}
				c := planCase{name: index, f: feedFilter{sort: sort, domain: domain, cut: "2026-03-01 12:00:00+00:00"}, index: index}
				if domain != "" && sort == SortClosing {
					c.name += "/domain"
				}
				if deep {
					c.name += "/cursor"
					after := &cursor{Sort: sort, At: "2026-03-01T12:00:00Z", ID: "0190f5a2-7b3c-7d4e-8f90-123456789abc"}
					switch sort {
					case SortConfidence:
						after.Conf = &conf
					case SortPopular:
						after.Pop = &pop
					case SortClosing:
						after.Close = &by
					}
					c.after = after
				}
				cs = append(cs, c)
			}
		}
	}
	after := &cursor{Sort: SortRecent, At: "2026-03-01T12:00:00Z", ID: "0190f5a2-7b3c-7d4e-8f90-123456789abc"}
	cs = append(cs,
		planCase{name: "agent", f: feedFilter{sort: SortRecent, agent: "scout"}, index: "predictions_agent_recent"},
		planCase{name: "agent/cursor", f: feedFilter{sort: SortRecent, agent: "scout"}, after: after, index: "predictions_agent_recent"},
		planCase{name: "status", f: feedFilter{sort: SortRecent, status: StatusVoid}, index: "predictions_status_recent"},
		planCase{name: "status/cursor", f: feedFilter{sort: SortRecent, status: StatusVoid}, after: after, index: "predictions_status_recent"},
	)
	return cs
}

// TestFeedQueryPlansPostgres asserts on PostgreSQL that every feed query
// can be served in order by its index. The table is empty, so the planner
// would rightly prefer a sequential scan and a sort; with both priced out
// (enable_seqscan and enable_sort off), a plan still holds a Sort node or
// a Seq Scan only when no index gives the order.
func TestFeedQueryPlansPostgres(t *testing.T) {
	admin := os.Getenv("PREDICTIONS_TEST_POSTGRES")
	if admin == "" {
		t.Skip("PREDICTIONS_TEST_POSTGRES is not set")
	}
	ctx := context.Background()
	s, conn := pgPlanConn(t, admin)
	plan := func(q string, args ...any) string {
		var lines []string
		if err := conn.NewRaw("EXPLAIN "+q, args...).Scan(ctx, &lines); err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}
	// The checker itself must catch a query no index serves.
	if bad := plan(`SELECT p.id FROM predictions AS p ORDER BY p.title LIMIT 20`); !strings.Contains(bad, "Sort") {
		t.Fatalf("plan of an unindexed order has no Sort:\n%s", bad)
	}
	for _, c := range planCases() {
		t.Run(c.name, func(t *testing.T) {
			q, args := s.pageSQL(c.f, c.after, 21, 0)
			p := plan(q, args...)
			t.Logf("plan:\n%s", p)
			if !strings.Contains(p, "Index Scan using "+c.index+" ") && !strings.Contains(p, "Index Only Scan using "+c.index+" ") {
				t.Errorf("feed query does not scan index %s", c.index)
			}
			if strings.Contains(p, "Sort") || strings.Contains(p, "Seq Scan on predictions") {
				t.Errorf("feed query sorts or scans the table")
			}
		})
	}
}

// pgPlanConn opens a board in a new database on the server at admin and
// returns it with a read connection with sequential scans and sorts priced out
// (enable_seqscan and enable_sort off), for plans on empty tables; both
// close when the test ends.
func pgPlanConn(t *testing.T, admin string) (*Store, bun.Conn) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, pgTestDatabase(t, admin), Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	conn, err := s.read.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	for _, q := range []string{"SET enable_seqscan = off", "SET enable_sort = off"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return s, conn
}

// pgTestDatabase creates a database on the server at admin and drops it
// when the test ends.
func pgTestDatabase(t testing.TB, admin string) string {
	t.Helper()
	return databasetest.NewPostgres(t, admin)
}

// TestSearchQueryPlan asserts that the feed's search reads the full-text
// index (SQLite FTS5; PostgreSQL's GIN index with the planner's scans
// priced as they are), never a scan of the predictions' text.
func TestSearchQueryPlan(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q, args := s.pageSQL(feedFilter{sort: SortRecent, q: "launch"}, nil, 21, 0)
	plan := strings.Join(queryPlan(t, s, q, args...), "\n")
	t.Logf("plan:\n%s", plan)
	if !strings.Contains(plan, "VIRTUAL TABLE INDEX") || strings.Contains(plan, "SCAN p\n") || strings.HasSuffix(plan, "SCAN p") {
		t.Errorf("search does not read predictions_fts by its index")
	}
	admin := os.Getenv("PREDICTIONS_TEST_POSTGRES")
	if admin == "" {
		return
	}
	pg, err := Open(ctx, pgTestDatabase(t, admin), Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	conn, err := pg.read.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	q, args = pg.pageSQL(feedFilter{sort: SortRecent, q: "launch"}, nil, 21, 0)
	var lines []string
	if err := conn.NewRaw("EXPLAIN "+q, args...).Scan(ctx, &lines); err != nil {
		t.Fatal(err)
	}
	p := strings.Join(lines, "\n")
	t.Logf("plan:\n%s", p)
	if !strings.Contains(p, "predictions_search") {
		t.Errorf("search does not use the GIN index predictions_search")
	}
}

// leaderboardPlanCases are the first pages of the leaderboards by skill,
// each with the index that gives their order.
func leaderboardPlanCases() []struct{ name, domain, kind, index string } {
	return []struct{ name, domain, kind, index string }{
		{"whole board", "", "", "agents_skill"},
		{"people", "", KindPerson, "agents_skill"},
		{"a domain", "Science", "", "agent_domain_sums_skill"},
		{"a domain's agents", "Science", KindAgent, "agent_domain_sums_skill"},
	}
}

// TestLeaderboardQueryPlans asserts on SQLite that a leaderboard page by
// skill on a board of 5,000 agents reads the agents in the order of its
// index, sorting only the ties of the key (by last seen and id), never
// every agent. (On an empty board SQLite rightly sorts.)
func TestLeaderboardQueryPlans(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
	INSERT INTO agents (id, name, kind, first_seen, last_seen, scored, peer_sum, coverage_sum)
	SELECT 'a' || i, 'a' || i, CASE WHEN i % 50 = 0 THEN 'person' ELSE 'agent' END, '2026-01-01', '2026-01-01', i % 40, (i % 17) - 8.5, (i % 40) * 0.9 FROM n`,
		`INSERT INTO agent_domain_sums (domain, agent_id, scored, peer_sum, coverage_sum)
	SELECT CASE WHEN scored % 3 = 0 THEN 'Science' ELSE 'AI' END, id, scored, peer_sum, coverage_sum FROM agents`,
	} {
		if _, err := s.write.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// A sort of the key's ties (a temporary B-tree for the right part
	// of the ORDER BY) is what the leaderboard asks for; a sort of every
	// row is not.
	problems := func(plan []string, index string) []string {
		var kept []string
		for _, line := range plan {
			if !strings.Contains(line, "TEMP B-TREE FOR RIGHT PART") && !strings.Contains(line, "TEMP B-TREE FOR LAST") {
				kept = append(kept, line)
			}
		}
		return planProblems(kept, index)
	}
	// The checker itself must catch the sort an index does not serve.
	q, args := agentPageSQL(AgentSortPeer, nil, 51, false, "", "")
	if got := problems(queryPlan(t, s, q, args...), "agents_skill"); len(got) == 0 {
		t.Fatalf("the leaderboard by peer score passes the check of an index on skill")
	}
	for _, c := range leaderboardPlanCases() {
		t.Run(c.name, func(t *testing.T) {
			q, args := agentPageSQL(AgentSortSkill, nil, 51, false, c.domain, c.kind)
			plan := queryPlan(t, s, q, args...)
			t.Logf("plan:\n%s", strings.Join(plan, "\n"))
			for _, p := range problems(plan, c.index) {
				t.Errorf("leaderboard query %s", p)
			}
		})
	}
}

// TestLeaderboardQueryPlansPostgres is TestLeaderboardQueryPlans on
// PostgreSQL, its scans and sorts priced out as in
// TestFeedQueryPlansPostgres: an incremental sort of the key's ties is
// fine, a sort of every row is not.
func TestLeaderboardQueryPlansPostgres(t *testing.T) {
	admin := os.Getenv("PREDICTIONS_TEST_POSTGRES")
	if admin == "" {
		t.Skip("PREDICTIONS_TEST_POSTGRES is not set")
	}
	ctx := context.Background()
	_, conn := pgPlanConn(t, admin)
	for _, c := range leaderboardPlanCases() {
		t.Run(c.name, func(t *testing.T) {
			q, args := agentPageSQL(AgentSortSkill, nil, 51, true, c.domain, c.kind)
			var lines []string
			if err := conn.NewRaw("EXPLAIN "+q, args...).Scan(ctx, &lines); err != nil {
				t.Fatal(err)
			}
			p := strings.Join(lines, "\n")
			t.Logf("plan:\n%s", p)
			if !strings.Contains(p, "Index Scan using "+c.index+" ") && !strings.Contains(p, "Index Only Scan using "+c.index+" ") {
				t.Errorf("leaderboard query does not scan index %s", c.index)
			}
			for _, l := range lines {
				if strings.Contains(l, "Sort") && !strings.Contains(l, "Incremental Sort") && !strings.Contains(l, "Sort Key") && !strings.Contains(l, "Presorted Key") {
					t.Errorf("leaderboard query sorts every row: %s", l)
				}
			}
		})
	}
}
