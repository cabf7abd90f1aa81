package database

import (
	"fmt"
	"testing"
)

// The bounds of the tests' caches: the board's page cache's.
const (
	maxPages     = 512
	maxPageBytes = 16 << 20
)

// TestVersionCache: a result is served only at the version it was read
// after; a result of an older version never replaces a newer one; a full
// cache drops older versions first.
func TestVersionCache(t *testing.T) {
	c := VersionCache[int]{MaxEntries: maxPages, MaxBytes: maxPageBytes}
	c.Put("a", 2, 2, 0)
	for _, tc := range []struct {
		version int64
		ok      bool
	}{{1, false}, {2, true}, {3, false}} {
		if _, ok := c.Get("a", tc.version); ok != tc.ok {
			t.Errorf("Get(a, %d) found %v, want %v", tc.version, ok, tc.ok)
		}
	}
	c.Put("a", 1, 1, 0)
	if v, ok := c.Get("a", 2); !ok || v != 2 {
		t.Errorf("a result of version 1 replaced that of version 2: %v, %v", v, ok)
	}
	for i := range maxPages - 1 {
		c.Put(fmt.Sprint(i), 2, 0, 0)
	}
	if len(c.m) != maxPages {
		t.Fatalf("%d results kept, want %d", len(c.m), maxPages)
	}
	c.Put("new", 3, 0, 0)
	if len(c.m) != 1 {
		t.Errorf("a full cache put a result of a newer version and kept %d results, want only it", len(c.m))
	}
	for i := range maxPages + 1 {
		c.Put(fmt.Sprint(i), 3, 0, 0)
	}
	if len(c.m) > maxPages {
		t.Errorf("%d results kept, above the bound %d", len(c.m), maxPages)
	}
}

// TestVersionCacheBytes: the cache keeps at most MaxBytes, and a result
// above an eighth of it is not kept at all.
func TestVersionCacheBytes(t *testing.T) {
	c := VersionCache[int]{MaxEntries: maxPages, MaxBytes: maxPageBytes}
	c.Put("huge", 1, 0, maxPageBytes/8+1)
	if len(c.m) != 0 {
		t.Errorf("a result of %d bytes was kept", maxPageBytes/8+1)
	}
	for i := range 20 {
		c.Put(fmt.Sprint(i), 1, 0, maxPageBytes/8)
		if c.bytes > maxPageBytes {
			t.Fatalf("after %d results of an eighth: %d bytes kept, above %d", i+1, c.bytes, maxPageBytes)
		}
	}
	sum := 0
	for _, r := range c.m {
		sum += r.size
	}
	if sum != c.bytes {
		t.Errorf("bytes = %d, the results' sizes add up to %d", c.bytes, sum)
	}
	c.Put("0", 2, 0, 10)
	c.Put("0", 3, 0, 20)
	if r := c.m["0"]; r.version != 3 || c.bytes < 20 {
		t.Errorf("replacing a result: %+v, %d bytes", r, c.bytes)
	}
}
