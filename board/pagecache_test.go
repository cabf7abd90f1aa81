package board

import (
	"context"
	"path/filepath"
	"testing"
	"unsafe"
)

// TestFeedUsesPageCache: a first page read twice without a write between
// is read from the database once; a write makes the next read go to the
// database again.
func TestFeedUsesPageCache(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "board.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := 0.6
	np := NewPrediction{AgentID: "alice", Title: "A title", Body: "A body.", Confidence: &c, Timeframe: "2027", Domain: "AI"}
	if _, err := s.CreatePrediction(ctx, np); err != nil {
		t.Fatal(err)
	}
	rowsOf := func() *predictionRow {
		t.Helper()
		if _, err := s.Feed(ctx, FeedQuery{}); err != nil {
			t.Fatal(err)
		}
		if n := s.pages.Len(); n != 1 {
			t.Fatalf("%d pages cached, want 1", n)
		}
		for _, p := range s.pages.All() {
			return &p.rows[0]
		}
		return nil
	}
	a, b := rowsOf(), rowsOf()
	if a != b {
		t.Errorf("the second read of an unchanged first page read the database again")
	}
	if _, err := s.CreatePrediction(ctx, np); err != nil {
		t.Fatal(err)
	}
	if c := rowsOf(); c == a {
		t.Errorf("after a write the first page came from the cache")
	}
	// Pages with an offset or a search are not cached; a page after a
	// cursor is.
	for _, q := range []FeedQuery{{Offset: 1}, {Q: "title"}} {
		if _, err := s.Feed(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.pages.Len(); n != 1 {
		t.Errorf("%d pages cached after reads with an offset and a search, want 1", n)
	}
	f, err := s.Feed(ctx, FeedQuery{Limit: 1})
	if err != nil || f.NextCursor == "" {
		t.Fatalf("Feed(limit 1) = %+v, %v; want a next_cursor", f, err)
	}
	if _, err := s.Feed(ctx, FeedQuery{Limit: 1, Cursor: f.NextCursor}); err != nil {
		t.Fatal(err)
	}
	if n := s.pages.Len(); n != 3 {
		t.Errorf("%d pages cached after a first page of limit 1 and the page after its cursor, want 3", n)
	}
}

// TestPageRowBytes: rowBytes, by which a page's size is reckoned, is at
// least a row's fields.
func TestPageRowBytes(t *testing.T) {
	if got := int(unsafe.Sizeof(predictionRow{})); got > rowBytes {
		t.Errorf("a predictionRow's fields take %d bytes, above rowBytes = %d", got, rowBytes)
	}
}
