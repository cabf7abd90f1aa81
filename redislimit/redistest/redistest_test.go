package redistest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/redislimit/redistest"
	"github.com/redis/go-redis/v9"
)

// TestPrefixKeysDeleted: the keys a test's limiter writes under its
// prefix are gone once the test ends, even with a test name that holds
// the characters of Redis's match patterns; keys of another prefix stay.
func TestPrefixKeysDeleted(t *testing.T) {
	opt, err := redis.ParseURL(redistest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	// A key of another prefix that begins as the subtest's does: it stays.
	other := "predictions-test:" + t.Name() + ".a[*]?-other"
	if err := rdb.Set(ctx, other, "1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Del(ctx, other) })

	match := "*predictions-test:" + t.Name() + ".a*" // the subtest's keys and other
	var prefix string
	mine := func() []string {
		var got []string
		for _, k := range keys(t, rdb, match) {
			if strings.Contains(k, prefix) {
				got = append(got, k)
			}
		}
		return got
	}
	t.Run("a[*]?", func(t *testing.T) {
		prefix = redistest.Prefix(t)
		l := redistest.Open(t, prefix)
		for _, key := range []string{"agent:x", "address:198.51.100.1"} {
			if _, err := l.Take(ctx, key, 10, time.Hour, 10); err != nil {
				t.Fatal(err)
			}
		}
		if got := mine(); len(got) != 2 {
			t.Fatalf("during the test: keys %v, want 2", got)
		}
	})
	if got := mine(); len(got) != 0 {
		t.Errorf("after the test: keys %v are left", got)
	}
	if n, err := rdb.Exists(ctx, other).Result(); err != nil || n != 1 {
		t.Errorf("after the test: %q was deleted too (exists %d, %v)", other, n, err)
	}
}

func keys(t *testing.T, rdb *redis.Client, match string) []string {
	t.Helper()
	var got []string
	iter := rdb.Scan(context.Background(), 0, match, 1000).Iterator()
	for iter.Next(context.Background()) {
		got = append(got, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}
