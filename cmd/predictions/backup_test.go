package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/backuptest"
	"github.com/uptrace/bun/driver/pgdriver"
)

// newBoardFile creates a SQLite board at path with one prediction and
// one forecast on it.
func newBoardFile(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	s, err := board.Open(ctx, dsn, board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conf := 0.7
	p, err := s.CreatePrediction(ctx, board.NewPrediction{AgentID: "scout", Title: "Launch slips", Body: "Vendors missed dates.",
		Confidence: &conf, Timeframe: "2027-Q1", Domain: "Tech", Resolves: "a later date is announced", ResolveBy: "2027-04-15"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "skeptic", P: []byte(`"35%"`)}); err != nil {
		t.Fatal(err)
	}
}

// TestBackupCommand: the command's exit statuses and messages, and a
// copy that export reads as it reads the board.
func TestBackupCommand(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "board.db")
	newBoardFile(t, src)
	existing := filepath.Join(dir, "existing.db")
	if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.db")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a piece of it
		stderr string
	}{
		{"no file", []string{"backup", "--db", src}, 2, "", "Usage: predictions backup [--db DSN] FILE"},
		{"two files", []string{"backup", "--db", src, "a.db", "b.db"}, 2, "", "Usage: predictions backup"},
		{"missing board", []string{"backup", "--db", missing, filepath.Join(dir, "never.db")}, 2, "", "does not exist"},
		{"existing file", []string{"backup", "--db", src, existing}, 2, "", "never replaces"},
		{"written", []string{"backup", "--db", src, filepath.Join(dir, "copy.db")}, 0, "restore it with: predictions serve --db " + filepath.Join(dir, "copy.db"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, nil, tt.args...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) || (tt.stderr == "") != (stderr == "") {
				t.Errorf("predictions %q = %d\nstdout: %s\nstderr: %s\nwant %d, stdout with %q, stderr with %q",
					tt.args, code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
	for _, p := range []string{missing, filepath.Join(dir, "never.db")} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was created: %v", p, err)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep" {
		t.Errorf("the existing file now holds %q", b)
	}
	_, want, _ := runCmd(t, nil, "export", "--db", src)
	_, got, errs := runCmd(t, nil, "export", "--db", filepath.Join(dir, "copy.db"))
	if diff := cmp.Diff(want, got); diff != "" || errs != "" {
		t.Errorf("export of the copy differs from the board's (-board +copy):\n%s%s", diff, errs)
	}
}

// TestBackupCommandPostgres: on PostgreSQL backup writes nothing and
// prints pg_dump and pg_restore commands; run as printed (when pg_dump
// is installed), they restore a board that exports as the original does.
func TestBackupCommandPostgres(t *testing.T) {
	dsn := pgDatabase(t)
	newBoardFile(t, dsn)
	dump := filepath.Join(t.TempDir(), "board.dump")
	code, stdout, stderr := runCmd(t, nil, "backup", "--db", dsn, dump)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "  pg_dump -Fc -f "+dump+" '"+dsn+"'\n") {
		t.Fatalf("backup on PostgreSQL = %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if _, err := os.Stat(dump); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("backup on PostgreSQL wrote %s: %v", dump, err)
	}
	var cmds []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "  ") {
			cmds = append(cmds, strings.TrimSpace(l))
		}
	}
	if len(cmds) != 3 || !strings.HasPrefix(cmds[1], "psql ") || !strings.HasPrefix(cmds[2], "pg_restore ") {
		t.Fatalf("want pg_dump, psql and pg_restore lines:\n%s", stderr)
	}
	for _, tool := range []string{"pg_dump", "psql", "pg_restore"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the printed commands are not run", tool)
		}
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/") + "_restored"
	u.Path = "/" + name
	restored := u.String()
	t.Cleanup(func() {
		db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(os.Getenv(pgEnv))))
		defer db.Close()
		if _, err := db.Exec(`DROP DATABASE IF EXISTS "` + name + `" WITH (FORCE)`); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	for _, c := range cmds {
		if out, err := exec.Command("sh", "-c", c).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", c, err, out)
		}
	}
	if !strings.Contains(cmds[2], restored) {
		t.Fatalf("pg_restore line %q does not name %s", cmds[2], restored)
	}
	_, want, _ := runCmd(t, nil, "export", "--db", dsn)
	_, got, errs := runCmd(t, nil, "export", "--db", restored)
	if diff := cmp.Diff(want, got); diff != "" || errs != "" {
		t.Errorf("export of the restored board differs (-board +restored):\n%s%s", diff, errs)
	}
}

// TestBackupWhileServing runs the binary: serve takes posts, forecasts
// and replies from three clients while another process backs the board
// up. The copy holds every table as of one moment, its counters equal
// recounts, and serve --db on the copy shows what it holds.
func TestBackupWhileServing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary under load; skipped with -short")
	}
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "board.db"), filepath.Join(dir, "backup.db")
	p := startServer(t, bin, src)
	client := &http.Client{Timeout: 30 * time.Second}

	stop := make(chan struct{})
	var acks atomic.Int64
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			agent := fmt.Sprintf("client-%d", g)
			var last string
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				switch {
				case last == "" || i%3 == 0:
					conf := 0.6
					var got board.Prediction
					got, err = postPrediction(client, p.url("/api/predictions"), board.NewPrediction{AgentID: agent,
						Title: fmt.Sprintf("Prediction %d of %s", i, agent), Body: "Posted during a backup.", Confidence: &conf,
						Timeframe: "2027", Domain: "Tech"})
					last = got.ID
				case i%3 == 1:
					_, err = postForecast(client, p.url("/api/predictions/"+last+"/forecasts"), fmt.Sprintf("client-%d", (g+1)%3), 0.3)
				default:
					_, err = postReply(client, p.url("/api/predictions/"+last+"/threads"), agent, "[DEBATE] Will it hold?")
				}
				if err != nil {
					t.Errorf("client %d, write %d: %v", g, i, err)
					return
				}
				acks.Add(1)
			}
		}()
	}
	wait := func(n int64) {
		deadline := time.Now().Add(2 * time.Minute)
		for acks.Load() < n && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	wait(150)
	before := acks.Load()
	code, stdout, stderr := runBin(t, bin, "", "backup", "--db", src, dst)
	during := acks.Load() - before
	wait(acks.Load() + 60)
	close(stop)
	wg.Wait()
	if code != 0 {
		t.Fatalf("backup = %d\nstdout: %s\nstderr: %s\nserver:\n%s", code, stdout, stderr, p.logs.String())
	}

	tables := backuptest.Check(t, src, dst)
	copied := map[string]int{}
	for _, tb := range tables {
		copied[tb.Name] = tb.Copy
	}
	t.Logf("%d writes acknowledged before the backup, %d while it ran, %d in all; the copy: %+v", before, during, acks.Load(), tables)
	cp, err := board.Open(context.Background(), dst, board.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := cp.CounterMismatches(context.Background()); err != nil || len(m) != 0 {
		t.Errorf("the copy's counters: %v %v", m, err)
	}
	cp.Close()

	restored := startServer(t, bin, dst)
	var stats struct{ Predictions, Replies int }
	if status := getJSON(t, client, restored.url("/api/stats"), &stats); status != http.StatusOK ||
		stats.Predictions != copied["predictions"] || stats.Replies != copied["replies"] || stats.Predictions == 0 {
		t.Errorf("serve --db on the copy: status %d, %+v; want the copy's %d predictions and %d replies",
			status, stats, copied["predictions"], copied["replies"])
	}
}

// TestBackupKilled kills a backup with SIGKILL while it writes: FILE does
// not exist, only the temporary file beside it, and the next backup to
// FILE succeeds.
func TestBackupKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary on a large board; skipped with -short")
	}
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "board.db"), filepath.Join(dir, "backup.db")
	bulkBoard(t, bin, src, 3000)

	cmd := exec.Command(bin, "backup", "--db", src, dst)
	cmd.Env = cleanEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var tmp string
	var size int64
	for tmp == "" || size == 0 {
		select {
		case err := <-done:
			t.Fatalf("backup ended (%v) before it could be killed mid-copy:\n%s", err, out.String())
		default:
		}
		matches, _ := filepath.Glob(dst + ".*.tmp")
		if len(matches) == 1 {
			tmp = matches[0]
			if st, err := os.Stat(tmp); err == nil {
				size = st.Size()
			}
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done
	if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after SIGKILL mid-backup (%s at %d bytes), %s exists: %v", filepath.Base(tmp), size, dst, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, "board.db") && !strings.HasSuffix(n, ".tmp") && !strings.HasSuffix(n, ".tmp-journal") {
			t.Errorf("left after the kill: %s", n)
		}
	}
	t.Logf("killed with %s at %d bytes", filepath.Base(tmp), size)

	if code, stdout, stderr := runBin(t, bin, "", "backup", "--db", src, dst); code != 0 {
		t.Fatalf("backup after the kill = %d\n%s%s", code, stdout, stderr)
	}
	_, want, _ := runBin(t, bin, "", "export", "--db", src)
	_, got, stderr := runBin(t, bin, "", "export", "--db", dst)
	if want != got || len(got) < 3000*4000 {
		t.Errorf("export of the copy: %d bytes, of the board: %d bytes, equal: %v; stderr: %s", len(got), len(want), want == got, stderr)
	}
}

// bulkBoard creates a board at path with n predictions of about 4,000
// characters each, imported by the binary (the race detector would slow
// SQLite in this process a hundredfold): large enough that a backup takes
// a while.
func bulkBoard(t *testing.T, bin, path string, n int) {
	t.Helper()
	var b strings.Builder
	words := strings.Repeat("calibrated forecasts need honest records ", 100)
	for i := range n {
		fmt.Fprintf(&b, "# Bulk question %d\n\n%s%d\n\n- id: bulk-%05d\n- resolves: yes if it happens\n- resolve_by: 2027-06-30\n- status: open\n\n"+
			"## Forecasts\n\n- 2026-01-05 · agent:bulk · 40%%\n\n", i, words, i, i)
	}
	file := filepath.Join(t.TempDir(), "bulk.md")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runBin(t, bin, "", "import", "--db", path, file); code != 0 {
		t.Fatalf("import = %d\n%s%s", code, stdout, stderr)
	}
}
