package board_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/backuptest"
)

// boardWriters posts, forecasts, replies (debates and answers in them)
// and reacts on s from n goroutines until stop is closed, and counts the
// writes that succeeded. Every write must succeed: a backup must not fail
// a writer.
func boardWriters(t *testing.T, s *board.Store, n int, stop <-chan struct{}, writes *atomic.Int64) *sync.WaitGroup {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var preds []string
	replies := map[string][]string{} // prediction → its replies
	pick := func(r *rand.Rand) (string, string) {
		mu.Lock()
		defer mu.Unlock()
		if len(preds) == 0 {
			return "", ""
		}
		p := preds[r.IntN(len(preds))]
		parent := ""
		if rs := replies[p]; len(rs) > 0 && r.IntN(2) == 0 {
			parent = rs[r.IntN(len(rs))]
		}
		return p, parent
	}
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				agent := fmt.Sprintf("writer-%d-%d", g, r.IntN(5))
				p, parent := pick(r)
				var err error
				switch op := r.IntN(4); {
				case op == 0 || p == "":
					np := newPrediction(agent)
					np.Title = fmt.Sprintf("Backup check %d of writer %d", i, g)
					np.Body = fmt.Sprintf("Written while the backup runs, umbrella %d", i)
					np.Confidence = ptr(float64(r.IntN(99)+1) / 100)
					var got board.Prediction
					if got, err = s.CreatePrediction(ctx, np); err == nil {
						mu.Lock()
						preds = append(preds, got.ID)
						mu.Unlock()
					}
				case op == 1:
					_, err = s.Forecast(ctx, p, board.NewForecast{AgentID: agent, P: raw(fmt.Sprintf(`"%d%%"`, r.IntN(99)+1))})
				case op == 2:
					body := "[DEBATE] Does the vendor ship on time?"
					if parent != "" {
						body = "[CHALLENGE] The last release slipped."
					}
					var got board.Reply
					if got, err = s.Reply(ctx, p, board.NewReply{AgentID: agent, Body: body, ParentID: parent}); err == nil {
						mu.Lock()
						replies[p] = append(replies[p], got.ID)
						mu.Unlock()
					}
				default:
					kinds := []board.ReactionKind{"agree", "disagree", "uncertain"}
					_, err = s.React(ctx, p, board.NewReaction{AgentID: agent, Reaction: kinds[r.IntN(3)]})
				}
				if err != nil {
					t.Errorf("writer %d, write %d: %v", g, i, err)
					return
				}
				writes.Add(1)
			}
		}()
	}
	return &wg
}

// waitWrites waits until writes reaches n.
func waitWrites(t *testing.T, writes *atomic.Int64, n int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for writes.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d writes in 2 minutes", writes.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBackupWhileWriting backs up a SQLite board while four goroutines
// post, forecast, reply and react, before, during and after the backup.
// The copy opens with Open, holds every table's rows as of one moment
// (backuptest.Check), its counters equal recounts of its rows, its search
// finds its predictions, and nothing but the copy is left beside it.
func TestBackupWhileWriting(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "board.db")
	s := mustOpen(t, src, board.Options{})
	ctx := context.Background()

	stop := make(chan struct{})
	var writes atomic.Int64
	wg := boardWriters(t, s, 4, stop, &writes)
	waitWrites(t, &writes, 200)
	before := writes.Load()
	dst := filepath.Join(dir, "backup.db")
	err := s.Backup(ctx, dst)
	during := writes.Load() - before
	if err == nil {
		// Writes the copy cannot hold, to tell a snapshot from a copy
		// made after the writers stopped.
		waitWrites(t, &writes, writes.Load()+100)
	}
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") || strings.HasPrefix(e.Name(), "backup.db-") {
			t.Errorf("left beside the copy: %s", e.Name())
		}
	}
	if st, err := os.Stat(dst); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the copy: %v, mode %v; want mode 0600 (it holds key hashes and addresses)", err, st.Mode().Perm())
	}

	tables := backuptest.Check(t, src, dst)
	var behind []string
	for _, tb := range tables {
		if tb.Source > tb.Copy {
			behind = append(behind, fmt.Sprintf("%s %d of %d", tb.Name, tb.Copy, tb.Source))
		}
	}
	if len(behind) == 0 {
		t.Errorf("the copy holds every row of the source, though the writers wrote after the backup: %+v", tables)
	}
	t.Logf("%d writes before the backup, %d while it ran, %d in all; rows in the copy: %s",
		before, during, writes.Load(), strings.Join(behind, ", "))

	cp := mustOpen(t, dst, board.Options{})
	if m, err := cp.CounterMismatches(ctx); err != nil || len(m) != 0 {
		t.Errorf("the copy's counters: %v %v", m, err)
	}
	f, err := cp.Feed(ctx, board.FeedQuery{Q: "umbrella", Limit: 100})
	if err != nil || f.Total == 0 || len(f.Predictions) == 0 {
		t.Errorf("search of the copy for umbrella: %d found, %v", f.Total, err)
	}
	for _, p := range f.Predictions {
		if !strings.Contains(p.Body, "umbrella") {
			t.Errorf("search of the copy for umbrella found %s: %q", p.ID, p.Body)
		}
	}
}

// TestBackupRefuses: each path a backup refuses leaves no file at the
// path and nothing beside it; an existing file is left as it was. On
// PostgreSQL every backup is refused with ErrPostgresBackup.
func TestBackupRefuses(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		mustCreate(t, s, newPrediction("scout"))
		dir := t.TempDir()
		if s.Dialect() == "postgres" {
			err := s.Backup(ctx, filepath.Join(dir, "backup.db"))
			if !errors.Is(err, board.ErrPostgresBackup) || !strings.Contains(err.Error(), "pg_dump") {
				t.Errorf("Backup on PostgreSQL = %v, want ErrPostgresBackup naming pg_dump", err)
			}
			return
		}
		existing := filepath.Join(dir, "existing.db")
		if err := os.WriteFile(existing, []byte("keep me"), 0o644); err != nil {
			t.Fatal(err)
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		tests := []struct {
			name string
			ctx  context.Context
			path string
			want error
		}{
			{"empty path", ctx, "", board.ErrInvalid},
			{"driver parameters", ctx, filepath.Join(dir, "b.db?mode=memory"), board.ErrInvalid},
			{"existing file", ctx, existing, fs.ErrExist},
			{"existing directory", ctx, dir, fs.ErrExist},
			{"missing directory", ctx, filepath.Join(dir, "no", "such", "b.db"), fs.ErrNotExist},
			{"cancelled", cancelled, filepath.Join(dir, "cancelled.db"), context.Canceled},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := s.Backup(tt.ctx, tt.path)
				if !errors.Is(err, tt.want) {
					t.Fatalf("Backup(%q) = %v, want %v", tt.path, err, tt.want)
				}
				if tt.want == fs.ErrExist && !strings.Contains(err.Error(), "never replaces") {
					t.Errorf("Backup(%q) = %v; want it to say why", tt.path, err)
				}
				if tt.want != fs.ErrExist && tt.path != "" {
					if _, err := os.Lstat(tt.path); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("Backup(%q) failed but left the file: %v", tt.path, err)
					}
				}
			})
		}
		if b, err := os.ReadFile(existing); err != nil || string(b) != "keep me" {
			t.Errorf("the existing file now holds %q, %v", b, err)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != "existing.db" {
				t.Errorf("left behind: %s", e.Name())
			}
		}
	})
}

// TestBackupSkipMigrations: a board opened with SkipMigrations keeps its
// older schema, and its backup holds that schema (and, before the search
// migration, no full-text index to rebuild).
func TestBackupSkipMigrations(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "old.db")
	if err := board.SeedAt(ctx, src, "20261125000000", nil, nil); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, src, board.Options{SkipMigrations: true, MustExist: true})
	dst := filepath.Join(dir, "copy.db")
	if err := s.Backup(ctx, dst); err != nil {
		t.Fatal(err)
	}
	tables := backuptest.Check(t, src, dst)
	for _, tb := range tables {
		if tb.Name == "board_migrations" && (tb.Copy != tb.Source || tb.Copy >= 8) {
			t.Errorf("board_migrations: %d rows in the copy, %d in the source; want the old schema's few in both", tb.Copy, tb.Source)
		}
		if strings.HasPrefix(tb.Name, "predictions_fts") || tb.Name == "forecasts" {
			t.Errorf("the old board's copy has %s, of a later migration", tb.Name)
		}
	}
}
