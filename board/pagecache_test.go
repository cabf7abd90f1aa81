package board

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"unsafe"
)

// TestPageCache: a page is served only at the version it was read after;
// a page of an older version never replaces a newer one; a full cache
// drops older versions first.
func TestPageCache(t *testing.T) {
	var c pageCache
	c.put("a", cachedPage{version: 2, total: 2})
	for _, tc := range []struct {
		version int64
		ok      bool
	}{{1, false}, {2, true}, {3, false}} {
		if _, ok := c.get("a", tc.version); ok != tc.ok {
			t.Errorf("get(a, %d) found %v, want %v", tc.version, ok, tc.ok)
		}
	}
	c.put("a", cachedPage{version: 1, total: 1})
	if p, ok := c.get("a", 2); !ok || p.total != 2 {
		t.Errorf("a page of version 1 replaced that of version 2: %+v, %v", p, ok)
	}
	for i := range maxPages - 1 {
		c.put(fmt.Sprint(i), cachedPage{version: 2})
	}
	if len(c.m) != maxPages {
		t.Fatalf("%d pages kept, want %d", len(c.m), maxPages)
	}
	c.put("new", cachedPage{version: 3})
	if len(c.m) != 1 {
		t.Errorf("a full cache put a page of a newer version and kept %d pages, want only it", len(c.m))
	}
	for i := range maxPages + 1 {
		c.put(fmt.Sprint(i), cachedPage{version: 3})
	}
	if len(c.m) > maxPages {
		t.Errorf("%d pages kept, above the bound %d", len(c.m), maxPages)
	}
}

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
		if len(s.pages.m) != 1 {
			t.Fatalf("%d pages cached, want 1", len(s.pages.m))
		}
		for _, p := range s.pages.m {
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
	if len(s.pages.m) != 1 {
		t.Errorf("%d pages cached after reads with an offset and a search, want 1", len(s.pages.m))
	}
	f, err := s.Feed(ctx, FeedQuery{Limit: 1})
	if err != nil || f.NextCursor == "" {
		t.Fatalf("Feed(limit 1) = %+v, %v; want a next_cursor", f, err)
	}
	if _, err := s.Feed(ctx, FeedQuery{Limit: 1, Cursor: f.NextCursor}); err != nil {
		t.Fatal(err)
	}
	if len(s.pages.m) != 3 {
		t.Errorf("%d pages cached after a first page of limit 1 and the page after its cursor, want 3", len(s.pages.m))
	}
}

// TestPageCacheBytes: the cache keeps at most maxPageBytes, and a page
// above an eighth of it is not kept at all; rowBytes is at least a row's
// fields.
func TestPageCacheBytes(t *testing.T) {
	if got := int(unsafe.Sizeof(predictionRow{})); got > rowBytes {
		t.Errorf("a predictionRow's fields take %d bytes, above rowBytes = %d", got, rowBytes)
	}
	var c pageCache
	c.put("huge", cachedPage{version: 1, size: maxPageBytes/8 + 1})
	if len(c.m) != 0 {
		t.Errorf("a page of %d bytes was kept", maxPageBytes/8+1)
	}
	for i := range 20 {
		c.put(fmt.Sprint(i), cachedPage{version: 1, size: maxPageBytes / 8})
		if c.bytes > maxPageBytes {
			t.Fatalf("after %d pages of an eighth: %d bytes kept, above %d", i+1, c.bytes, maxPageBytes)
		}
	}
	sum := 0
	for _, p := range c.m {
		sum += p.size
	}
	if sum != c.bytes {
		t.Errorf("bytes = %d, the pages' sizes add up to %d", c.bytes, sum)
	}
	c.put("0", cachedPage{version: 2, size: 10})
	c.put("0", cachedPage{version: 3, size: 20})
	if p := c.m["0"]; p.version != 3 || c.bytes < 20 {
		t.Errorf("replacing a page: %+v, %d bytes", p, c.bytes)
	}
}
