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
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/redislimit"
)

// EnvVar names the Redis server of the tests.
const EnvVar = "PREDICTIONS_TEST_REDIS"

// Prefix returns a key prefix unique to this test and run, so that runs
// and tests share one Redis database without meeting.
func Prefix(tb testing.TB) string {
	return fmt.Sprintf("predictions-test:%s:%d:", strings.ReplaceAll(tb.Name(), "/", "."), time.Now().UnixNano())
}

// Open opens a limiter with prefix on the server named by EnvVar and
// closes it when the test ends. It skips the test when EnvVar is unset
// and fails it when Redis does not answer.
func Open(tb testing.TB, prefix string) *redislimit.Limiter {
	tb.Helper()
	url := os.Getenv(EnvVar)
	if url == "" {
		tb.Skip(EnvVar + " is not set (such as redis://127.0.0.1:6379/0)")
	}
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
