// Package redistest opens [redislimit.Limiter]s on the Redis server that
// tests are given in PREDICTIONS_TEST_REDIS (such as
// redis://127.0.0.1:6379/0), and skips tests cleanly without it.
//
//	prefix := redistest.Prefix(t)
//	a, b := redistest.Open(t, prefix), redistest.Open(t, prefix) // two "replicas"
package redistest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/redislimit"
	"github.com/redis/go-redis/v9"
)

// EnvVar names the Redis server of the tests.
const EnvVar = "PREDICTIONS_TEST_REDIS"

// Prefix returns a key prefix unique to this test and run, so that runs
// and tests share one Redis database without meeting. When the test ends
// the keys that hold the prefix are deleted, so that a run leaves none
// behind (they would otherwise stay until their windows expire, hours for
// the daily limits).
func Prefix(tb testing.TB) string {
	prefix := fmt.Sprintf("predictions-test:%s:%d:", strings.ReplaceAll(tb.Name(), "/", "."), time.Now().UnixNano())
	if url := os.Getenv(EnvVar); url != "" {
		tb.Cleanup(func() {
			if err := deleteKeys(url, prefix); err != nil {
				tb.Errorf("deleting the test's Redis keys: %v", err)
			}
		})
	}
	return prefix
}

// deleteKeys deletes the keys of the Redis server at url that hold
// prefix anywhere (the limiter's library puts its own prefix before it).
func deleteKeys(url, prefix string) error {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return err
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	iter := rdb.Scan(ctx, 0, "*"+globEscaper.Replace(prefix)+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return err
	}
	for batch := range slices.Chunk(keys, 1000) {
		if err := rdb.Del(ctx, batch...).Err(); err != nil {
			return err
		}
	}
	return nil
}

// globEscaper escapes the characters that Redis's MATCH patterns give a
// meaning (SCAN's documentation: glob-style patterns as KEYS takes).
var globEscaper = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)

// URL returns the URL of the tests' Redis server, named by EnvVar, and
// skips the test when EnvVar is unset.
func URL(tb testing.TB) string {
	tb.Helper()
	url := os.Getenv(EnvVar)
	if url == "" {
		tb.Skip(EnvVar + " is not set (such as redis://127.0.0.1:6379/0)")
	}
	return url
}

// Open opens a limiter with prefix on the server named by EnvVar and
// closes it when the test ends. It skips the test when EnvVar is unset
// and fails it when Redis does not answer.
func Open(tb testing.TB, prefix string) *redislimit.Limiter {
	tb.Helper()
	url := URL(tb)
	l, err := redislimit.Open(url, redislimit.Options{Prefix: prefix, Timeout: time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	if err := l.Ping(context.Background()); err != nil {
		tb.Fatalf("%s is set but Redis does not answer: %v", EnvVar, err)
	}
	return l
}
