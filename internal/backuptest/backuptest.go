// Package backuptest checks, for the tests of package board and of the
// predictions command, that a backup of a SQLite board holds its source's
// rows as of one moment, though writers kept writing during the backup.
//
// SQLite gives each new row of a table the next rowid and the board has
// one writer at a time, so a table's rows in rowid order are its rows in
// commit order. A copy taken at one moment therefore holds, of each
// table, exactly the source's rows up to some rowid (those committed
// before it), each as it was then. Rows never changed after their insert
// must be equal byte for byte; of the rows the board updates in place
// (counters, standing forecasts, last seen), what [Updated] names may have
// moved on in the source since, and the board's recount
// (board.Store.CounterMismatches on the copy) checks the counters among
// them against the copy's own rows.
package backuptest

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// Updated lists, per table, the columns the board changes after a row is
// inserted, by posting, forecasting, replying and reacting: they are left
// out when a row of the copy is compared with the source's row.
var Updated = map[string][]string{
	"agents": {"name", "flags", "last_seen", "predictions", "replies", "reactions", "resolved", "brier_sum", "correct", "decided",
		"forecasts", "scored", "peer_sum", "baseline_sum", "fbrier_sum", "flog_sum", "peer_sq_sum", "coverage_sum"},
	"predictions": {"agree", "disagree", "uncertain", "replies", "popularity",
		"replies_plain", "replies_agree", "replies_disagree", "replies_challenge", "replies_debate",
		"community_geo", "community_mean", "community_median", "community_recency", "community_skill", "community_spread", "community_disagree", "community_notes",
		"community_updated_at", "forecasters",
		"status", "outcome", "resolved_at", "closed_at"},
	"standings":     {"forecast_id", "p", "updated_at"},
	"reactions":     {"kind", "updated_at"},
	"domain_counts": {"predictions", "replies", "reactions", "threads", "resolved", "void"},
	"feed_version":  {"v"},
	// The webhook fan-out moves its position; deliveries change an
	// endpoint's state.
	"outbox_positions": {"position"},
	"webhooks":         {"status", "status_reason", "disabled_at", "failing_since"},
}

// Table is what [Check] found of one table.
type Table struct {
	Name   string
	Copy   int // rows in the copy
	Source int // rows in the source now
}

// Check compares the backup at copyPath with the board at srcPath (both
// SQLite files, no longer written) and reports with t.Errorf every way in
// which the copy is not the source as of one moment: a schema that
// differs, a row the source never had or holds otherwise, a row missing
// among the rows committed before the copy's last, a failed integrity,
// foreign key or full-text index check. Every table is compared but the
// shadow tables of full-text indexes, which the index check covers. It
// returns the row counts of each table, in name order.
func Check(t testing.TB, srcPath, copyPath string) []Table {
	t.Helper()
	ctx := context.Background()
	src, cp := open(t, srcPath), open(t, copyPath)

	// One schema.
	schema := `SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name`
	if diff := cmp.Diff(rows(t, src, schema), rows(t, cp, schema)); diff != "" {
		t.Errorf("the copy's schema differs from the source's (-source +copy):\n%s", diff)
	}

	// The copy is sound on its own.
	if got := rows(t, cp, `PRAGMA integrity_check`); len(got) != 1 || fmt.Sprint(got[0][0]) != "ok" {
		t.Errorf("PRAGMA integrity_check of the copy: %v", got)
	}
	if got := rows(t, cp, `PRAGMA foreign_key_check`); len(got) != 0 {
		t.Errorf("PRAGMA foreign_key_check of the copy: %v", got)
	}
	var fts []string
	for _, r := range rows(t, cp, `SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`) {
		name := fmt.Sprint(r[0])
		fts = append(fts, name)
		// With rank 1 the index is checked against its content table too.
		if _, err := cp.ExecContext(ctx, `INSERT INTO "`+name+`" ("`+name+`", rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Errorf("full-text index %s of the copy: %v", name, err)
		}
	}

	var out []Table
	for _, r := range rows(t, cp, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`) {
		name := fmt.Sprint(r[0])
		if slices.ContainsFunc(fts, func(v string) bool { return strings.HasPrefix(name, v+"_") }) {
			continue
		}
		out = append(out, compareTable(t, src, cp, name))
	}
	return out
}

// compareTable checks that the copy's rows of one table are the source's
// rows up to the rowid of the copy's last, matched by primary key (by
// rowid in a table without one).
func compareTable(t testing.TB, src, cp *sql.DB, table string) Table {
	t.Helper()
	var key []string
	skip := map[string]bool{}
	for _, c := range Updated[table] {
		skip[c] = true
	}
	var cols []string
	for _, r := range rows(t, cp, `SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`, table) {
		cols = append(cols, fmt.Sprint(r[0]))
		if fmt.Sprint(r[1]) != "0" {
			key = append(key, fmt.Sprint(r[0]))
		}
	}
	if len(key) == 0 {
		key = []string{"rowid"}
	}
	q := `SELECT rowid, ` + quoteAll(key) + `, ` + quoteAll(cols) + ` FROM "` + table + `" ORDER BY rowid`
	type row struct {
		rowid  int64
		key    string
		values map[string]any // the columns not in Updated
	}
	read := func(db *sql.DB) []row {
		var out []row
		for _, r := range rows(t, db, q) {
			v := row{rowid: r[0].(int64), key: fmt.Sprint(r[1 : 1+len(key)]...), values: map[string]any{}}
			for i, c := range cols {
				if !skip[c] {
					v.values[c] = r[1+len(key)+i]
				}
			}
			out = append(out, v)
		}
		return out
	}
	srcRows, cpRows := read(src), read(cp)
	byKey := map[string]row{}
	for _, r := range srcRows {
		byKey[r.key] = r
	}
	var last int64 // the source rowid of the copy's last row
	for _, r := range cpRows {
		s, ok := byKey[r.key]
		if !ok {
			t.Errorf("%s: the copy has a row the source never had: %s = %s", table, strings.Join(key, ", "), r.key)
			continue
		}
		last = max(last, s.rowid)
		if diff := cmp.Diff(s.values, r.values); diff != "" {
			t.Errorf("%s: row %s differs (-source +copy):\n%s", table, r.key, diff)
		}
	}
	in := map[string]bool{}
	for _, r := range cpRows {
		in[r.key] = true
	}
	for _, s := range srcRows {
		if s.rowid <= last && !in[s.key] {
			t.Errorf("%s: the copy lacks row %s, committed before its row at rowid %d: the copy is not one moment", table, s.key, last)
		}
	}
	return Table{Name: table, Copy: len(cpRows), Source: len(srcRows)}
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
		if n == "rowid" {
			q[i] = n
		}
	}
	return strings.Join(q, ", ")
}

func open(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open(sqliteshim.ShimName, path)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// rows reads every row of q as the driver's values.
func rows(t testing.TB, db *sql.DB, q string, args ...any) [][]any {
	t.Helper()
	rs, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rs.Next() {
		v := make([]any, len(cols))
		p := make([]any, len(cols))
		for i := range v {
			p[i] = &v[i]
		}
		if err := rs.Scan(p...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, v)
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}
