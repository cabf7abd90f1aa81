package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeBlock is one ```sh block of README.md.
type readmeBlock struct {
	line int    // the line of its opening fence
	text string // its lines
}

// readmeBlocks returns the ```sh blocks of the Markdown in src.
func readmeBlocks(src []byte) []readmeBlock {
	var out []readmeBlock
	var cur *readmeBlock
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && line == "```sh":
			cur = &readmeBlock{line: n}
		case cur != nil && strings.HasPrefix(line, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	return out
}

// readmeSkipped are the README's shell blocks a test cannot run, each by
// the start of its first command line, with the reason.
var readmeSkipped = []struct{ start, reason string }{
	{"go run ./cmd/predictions serve", "starts the server from source (minutes on a cold build cache) and runs the whole suite; the test runs the built binary's serve instead"},
	{"claude mcp add", "configures Claude Code, which is not here"},
	{"#!/bin/sh", "a git pre-commit hook: git runs it at a commit"},
	{"predictions serve --addr :8080 --db 'postgres://user:pass@db.internal", "a deployment: needs the PostgreSQL server it names"},
	{"predictions serve --db 'postgres://…' --redis-url", "a deployment: needs the PostgreSQL and Redis servers it names"},
	{"predictions backup --db /var/lib/predictions", "a deployment: the board of an installed service"},
	{"pg_dump -Fc", "needs the PostgreSQL server it names"},
	{"predictions serve --base-url https://predictions.example.org", "a deployment: needs the mail server it names"},
}

// readmeBase is the base address the README's commands use; the test
// gives each block its server's address instead, and nothing else of the
// block changes but what readmeRewrites lists.
const readmeBase = "127.0.0.1:8080"

// readmeRewrites are the changes made to a block besides its server's
// address, each with the reason: the binary for `go run`, and waits cut
// short so that the test stays short.
var readmeRewrites = []struct{ from, to, why string }{
	{"go run ./cmd/predictions ", "$PREDICTIONS ", "the binary built for the test, the same package"},
	{"date -u -d '+1 minute'", "date -u -d '+4 seconds'", "the question's close a few seconds away rather than a minute"},
	{"sleep 60", "sleep 5", "the wait for that close"},
	{"curl -sN ", "stream ", "an event stream never ends: stream reads it for 2 seconds"},
}

// readmeServeRE finds the flags a block asks its server to start with.
var readmeServeRE = regexp.MustCompile(`# With the server started as: go run \./cmd/predictions serve (.*)`)

// readmePrelude is run before each block by sh -e: every request must
// answer 2xx (curl exits 22 otherwise, which stops the block), unless a
// block pipes the answer on (a pipeline's status is its last command's),
// as the README does to show an error.
const readmePrelude = `curl() { command curl --fail-with-body --max-time 20 "$@"; }
stream() { command curl --fail-with-body -sN --max-time 2 "$@" || [ $? -eq 28 ]; }
`

// TestREADMEShellBlocks runs every ```sh block of README.md as written,
// in order, against the built binary and a server on a new SQLite board
// (its moderator token the README's "change-me"), each command in a
// temporary directory that holds the repository's examples: only the
// base address changes, and what readmeRewrites lists. A block is listed
// in readmeSkipped with its reason, or it runs; a request that does not
// answer 2xx fails its block. A block that starts with "With the server
// started as: ... serve FLAGS" gets a server of its own started with
// those flags.
func TestREADMEShellBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	for _, tool := range []string{"sh", "curl", "jq", "date"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the README's commands need %s: %v", tool, err)
		}
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	main := startServer(t, bin, filepath.Join(dir, "server.db"), "--moderator-token", "change-me")

	blocks := readmeBlocks(src)
	used := map[string]bool{}
	ran := 0
	for _, b := range blocks {
		first := firstCommand(b.text)
		name := fmt.Sprintf("line_%d", b.line)
		if reason, ok := skipReason(first); ok {
			used[reason] = true
			t.Logf("README.md:%d skipped (%s): %s", b.line, reason, first)
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			srv := main
			if m := readmeServeRE.FindStringSubmatch(b.text); m != nil {
				srv = startServer(t, bin, filepath.Join(t.TempDir(), "server.db"), strings.Fields(m[1])...)
			}
			script := strings.ReplaceAll(b.text, readmeBase, srv.addr)
			script = strings.ReplaceAll(script, "localhost:8080", srv.addr)
			for _, r := range readmeRewrites {
				script = strings.ReplaceAll(script, r.from, r.to)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-e", "-c", readmePrelude+script)
			cmd.Dir = dir
			cmd.Env = append(cleanEnv(), "PREDICTIONS="+bin)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("README.md:%d: the block failed (%v):\n%s\noutput:\n%s", b.line, err, b.text, out)
			}
		})
	}
	for _, s := range readmeSkipped {
		if !used[s.reason] {
			t.Errorf("readmeSkipped names a block that starts %q, which README.md no longer has: remove it", s.start)
		}
	}
	if ran == 0 {
		t.Fatalf("no shell block of README.md ran (of %d)", len(blocks))
	}
}

// firstCommand is the first line of a block that is not a comment, or
// its first line when every line is one ("#!/bin/sh" among them).
func firstCommand(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if strings.HasPrefix(lines[0], "#!") {
		return lines[0]
	}
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return lines[0]
}

// skipReason is the reason readmeSkipped gives for a block whose first
// command is first.
func skipReason(first string) (string, bool) {
	for _, s := range readmeSkipped {
		if strings.HasPrefix(first, s.start) {
			return s.reason, true
		}
	}
	return "", false
}
