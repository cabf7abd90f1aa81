package board_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/predictions-md/predictions/board"
)

// Classify tells an outage (503, retry later) from other errors.
func ExampleClassify() {
	for _, err := range []error{sql.ErrConnDone, board.ErrNotFound} {
		fmt.Println(errors.Is(board.Classify(err), board.ErrUnavailable))
	}
	// Output:
	// true
	// false
}

// CheckWrite is a readiness probe: nil while the database accepts writes.
func ExampleStore_CheckWrite() {
	dir, _ := os.MkdirTemp("", "board")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := board.Open(ctx, filepath.Join(dir, "board.db"), board.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.CheckWrite(ctx))
	s.Close()
	fmt.Println(errors.Is(s.CheckWrite(ctx), board.ErrUnavailable))
	// Output:
	// <nil>
	// true
}
