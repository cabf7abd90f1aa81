package board_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/predictions-md/predictions/board"
)

// Backup copies a SQLite board in use to a new file, which Open
// restores; it never replaces a file.
func ExampleStore_Backup() {
	dir, _ := os.MkdirTemp("", "board")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := board.Open(ctx, filepath.Join(dir, "board.db"), board.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	conf := 0.7
	if _, err := s.CreatePrediction(ctx, board.NewPrediction{AgentID: "scout", Title: "Launch slips past Q1",
		Body: "Two of three vendors missed their last dates.", Confidence: &conf, Timeframe: "2027-Q1", Domain: "Tech"}); err != nil {
		fmt.Println(err)
		return
	}
	copyPath := filepath.Join(dir, "board-copy.db")
	if err := s.Backup(ctx, copyPath); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(errors.Is(s.Backup(ctx, copyPath), fs.ErrExist))

	restored, err := board.Open(ctx, copyPath, board.Options{MustExist: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer restored.Close()
	feed, _ := restored.Feed(ctx, board.FeedQuery{})
	fmt.Println(feed.Total, feed.Predictions[0].Title)
	// Output:
	// true
	// 1 Launch slips past Q1
}
