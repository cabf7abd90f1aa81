package board_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/predictions-md/predictions/board"
)

// Open creates the SQLite file but not missing directories unless asked,
// and with MustExist creates nothing.
func TestOpenPaths(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	existing := filepath.Join(dir, "board.db")
	s, err := board.Open(ctx, existing, board.Options{})
	if err != nil {
		t.Fatalf("Open(%s) = %v, want the file created", existing, err)
	}
	s.Close()
	for _, tc := range []struct {
		name    string
		path    string
		opt     board.Options
		want    error // nil: opens
		created bool  // whether path exists afterwards
	}{
		{"file in an existing directory", filepath.Join(dir, "new.db"), board.Options{}, nil, true},
		{"missing directory", filepath.Join(dir, "a", "b", "x.db"), board.Options{}, board.ErrNoDatabase, false},
		{"missing directory, CreateDirs", filepath.Join(dir, "c", "d", "x.db"), board.Options{CreateDirs: true}, nil, true},
		{"MustExist, existing file", existing, board.Options{MustExist: true}, nil, true},
		{"MustExist, missing file", filepath.Join(dir, "typo.db"), board.Options{MustExist: true}, board.ErrNoDatabase, false},
		{"MustExist, missing directory", filepath.Join(dir, "e", "x.db"), board.Options{MustExist: true, CreateDirs: true}, board.ErrNoDatabase, false},
		{"MustExist, a directory", dir, board.Options{MustExist: true}, board.ErrNoDatabase, true},
		{"control character", filepath.Join(dir, "x\x00.db"), board.Options{}, board.ErrInvalid, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := board.Open(ctx, tc.path, tc.opt)
			if s != nil {
				s.Close()
			}
			if !errors.Is(err, tc.want) || (tc.want != nil) != (err != nil) {
				t.Errorf("Open(%q, %+v) = %v, want %v", tc.path, tc.opt, err, tc.want)
			}
			_, serr := os.Stat(tc.path)
			if got := serr == nil; got != tc.created {
				t.Errorf("after Open(%q): exists = %v, want %v", tc.path, got, tc.created)
			}
		})
	}
}
