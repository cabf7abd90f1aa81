package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseServe(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want serveConfig
	}{
		{"defaults", nil, nil, serveConfig{addr: "127.0.0.1:8080", db: "predictions.db", logFormat: "text"}},
		{"environment", nil, map[string]string{"PREDICTIONS_ADDR": ":9000", "PREDICTIONS_DB": "x.db",
			"PREDICTIONS_BASE_URL": "https://p.example/", "PREDICTIONS_MODERATOR_TOKEN": "tok", "PREDICTIONS_TRUST_PROXY": "true"},
			serveConfig{addr: ":9000", db: "x.db", baseURL: "https://p.example", moderatorToken: "tok", trustProxy: true, logFormat: "text"}},
		{"flag wins", []string{"--addr", ":7000", "--moderator-token=flag", "--log-format=json"},
			map[string]string{"PREDICTIONS_ADDR": ":9000", "PREDICTIONS_MODERATOR_TOKEN": "env"},
			serveConfig{addr: ":7000", db: "predictions.db", moderatorToken: "flag", logFormat: "json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseServe(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if *cfg != tc.want {
				t.Errorf("parseServe(%q) = %+v, want %+v", tc.args, *cfg, tc.want)
			}
		})
	}
}

func TestParseServeErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--base-url", "predictions.example"},
		{"--base-url", "ftp://p.example"},
		{"--log-format", "xml"},
		{"--no-such-flag"},
		{"extra"},
	} {
		if _, err := parseServe(args, func(string) string { return "" }, io.Discard); err == nil || errors.Is(err, flag.ErrHelp) {
			t.Errorf("parseServe(%q) = %v, want an error", args, err)
		}
	}
}

func TestServeHelp(t *testing.T) {
	var out bytes.Buffer
	env := &cmdEnv{stdout: &out, stderr: &out, getenv: func(string) string { return "" }}
	if code := run(context.Background(), env, []string{"serve", "--help"}); code != 0 {
		t.Fatalf("serve --help exit %d", code)
	}
	for _, want := range []string{"Usage: predictions serve", "-addr", "-db", "-base-url", "-moderator-token", "PREDICTIONS_ADDR"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("serve --help lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	run(context.Background(), env, []string{"help"})
	if !strings.Contains(out.String(), "serve") {
		t.Errorf("help does not list serve:\n%s", out.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServeRunsAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncBuffer
	env := &cmdEnv{stdout: io.Discard, stderr: &logs, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, env, []string{"serve", "--addr", "127.0.0.1:0", "--db", t.TempDir() + "/p.db"})
	}()

	addrRE := regexp.MustCompile(`listening addr=(\S+)`)
	var addr string
	for deadline := time.Now().Add(5 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("server did not start:\n%s", logs.String())
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("/healthz: %d, X-Request-Id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	if !strings.Contains(logs.String(), "path=/healthz status=200") {
		t.Errorf("no request log line:\n%s", logs.String())
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after cancel:\n%s", code, logs.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop after the context was cancelled")
	}
}
