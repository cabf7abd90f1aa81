package httpapi

import (
	"fmt"
	"testing"
)

func TestDocCacheBuildsOncePerBaseAndStaysBounded(t *testing.T) {
	var c docCache
	builds := 0
	build := func(base string) func() ([]byte, error) {
		return func() ([]byte, error) { builds++; return []byte(base), nil }
	}
	for range 3 {
		got, err := c.get("https://a.example", build("https://a.example"))
		if err != nil || string(got) != "https://a.example" {
			t.Fatalf("get = %q, %v; want the document for https://a.example", got, err)
		}
	}
	if builds != 1 {
		t.Errorf("built %d times for one base, want 1", builds)
	}
	for i := range 2 * maxCachedBases {
		base := fmt.Sprintf("https://h%d.example", i)
		if got, _ := c.get(base, build(base)); string(got) != base {
			t.Fatalf("get(%q) = %q", base, got)
		}
	}
	if len(c.m) != maxCachedBases {
		t.Errorf("cache holds %d bases, want the bound %d", len(c.m), maxCachedBases)
	}
}
