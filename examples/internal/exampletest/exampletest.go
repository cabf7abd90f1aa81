// Package exampletest holds what the examples' tests share: a server wired
// the way `predictions serve` wires it, and golden files with an -update
// flag. The examples themselves use only the public packages.
package exampletest

import (
	"context"
	"flag"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/mcpserver"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Server starts the whole service as cmd/predictions/serve.go wires it:
// httpapi with the board (SQLite in a temporary directory) and the MCP
// adapter at /mcp. It is closed when the test ends.
func Server(tb testing.TB) *httptest.Server {
	tb.Helper()
	quiet := slog.New(slog.DiscardHandler)
	store, err := board.Open(context.Background(), filepath.Join(tb.TempDir(), "board.db"), board.Options{Flag: forecastfile.Flags})
	if err != nil {
		tb.Fatalf("board.Open: %v", err)
	}
	tb.Cleanup(func() { store.Close() })
	mcp, err := mcpserver.Handler(mcpserver.Options{Logger: quiet})
	if err != nil {
		tb.Fatalf("mcpserver.Handler: %v", err)
	}
	ts := httptest.NewServer(httpapi.New(httpapi.Options{Board: boardapi.New(boardapi.Options{Store: store}), MCP: mcp, Logger: quiet}))
	tb.Cleanup(ts.Close)
	return ts
}

// Golden compares got with the file testdata/name and shows the difference
// as (-want +got). With -update it writes got to the file instead.
func Golden(tb testing.TB, name, got string) {
	tb.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		tb.Errorf("output differs from %s (-want +got):\n%s", path, diff)
	}
}

// Normalize replaces what differs from run to run: each server address
// becomes BASE, each UUID becomes <id-N> by order of first appearance, and
// each RFC 3339 time becomes <time>.
func Normalize(s string, bases ...string) string {
	for _, b := range bases {
		s = strings.ReplaceAll(s, b, "BASE")
	}
	ids := map[string]string{}
	s = uuidRe.ReplaceAllStringFunc(s, func(id string) string {
		if n, ok := ids[id]; ok {
			return n
		}
		ids[id] = "<id-" + strconv.Itoa(len(ids)+1) + ">"
		return ids[id]
	})
	return timeRe.ReplaceAllString(s, "<time>")
}

var (
	uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRe = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
)

// GoCommand is the go command of the toolchain running the tests: the one
// in $GOROOT/bin when the go command set GOROOT, else the go on PATH.
func GoCommand() string {
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}
