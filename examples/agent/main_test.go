package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

// The agent runs against the whole service on a fresh board. Ids differ
// from run to run, so they are numbered by first appearance.
func TestRun(t *testing.T) {
	ts := exampletest.Server(t)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-base", ts.URL}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	exampletest.Golden(t, "run.txt", exampletest.Normalize(out.String(), ts.URL))
}

// Without a server, the error says where the agent looked.
func TestRunNoServer(t *testing.T) {
	ts := exampletest.Server(t)
	url := ts.URL
	ts.Close()
	err := run(context.Background(), []string{"-base", url}, new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), "is the board running at "+url) {
		t.Errorf("run against a closed server = %v, want an error naming %s", err, url)
	}
}
