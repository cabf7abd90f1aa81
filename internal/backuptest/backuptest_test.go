package backuptest

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uptrace/bun/driver/sqliteshim"
)

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestCheckFinds: Check passes a true snapshot and finds each way a copy
// can fail to be one: a row missing before the copy's last, a row changed,
// a row the source never had, a schema that differs.
func TestCheckFinds(t *testing.T) {
	tests := []struct {
		name   string
		change string // run on the copy
		want   string // in a reported problem; "" for none
	}{
		{"snapshot", "", ""},
		{"row missing in the middle", `DELETE FROM t WHERE id = 'b'`, "lacks row b"},
		{"row changed", `UPDATE t SET v = 'changed' WHERE id = 'a'`, "row a differs"},
		{"updated column changed", `UPDATE agents SET last_seen = 'later' WHERE id = 'x'`, ""},
		{"row the source never had", `INSERT INTO t VALUES ('z', 'new')`, "never had"},
		{"schema", `CREATE INDEX t_v ON t (v)`, "schema differs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src, dst := filepath.Join(dir, "src.db"), filepath.Join(dir, "copy.db")
			db, err := sql.Open(sqliteshim.ShimName, src)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range []string{
				`CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT NOT NULL)`,
				`CREATE TABLE agents (id TEXT PRIMARY KEY, last_seen TEXT NOT NULL)`,
				`INSERT INTO t VALUES ('a', '1'), ('b', '2'), ('c', '3')`,
				`INSERT INTO agents VALUES ('x', 'now')`,
				`VACUUM INTO '` + dst + `'`,
				`INSERT INTO t VALUES ('d', 'after the copy')`,
			} {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if tt.change != "" {
				cp, err := sql.Open(sqliteshim.ShimName, dst)
				if err != nil {
					t.Fatal(err)
				}
				_, err = cp.Exec(tt.change)
				cp.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			rec := &recorder{TB: t}
			tables := Check(rec, src, dst)
			all := strings.Join(rec.errs, "\n")
			if tt.want == "" && all != "" || tt.want != "" && !strings.Contains(all, tt.want) {
				t.Errorf("Check reported %q; want %q", all, tt.want)
			}
			if tt.want == "" && (len(tables) != 2 || tables[1] != (Table{Name: "t", Copy: 3, Source: 4})) {
				t.Errorf("tables = %+v", tables)
			}
		})
	}
}
