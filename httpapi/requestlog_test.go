package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
)

// TestRequestLogLine: each request gets one line with its method, path,
// status, size and the X-Request-Id of its answer, and a duration.
func TestRequestLogLine(t *testing.T) {
	var records []slog.Record
	srv := httpapi.New(httpapi.Options{Logger: slog.New(recordAll{slog.NewTextHandler(io.Discard, nil), &records}), RateLimit: apitest.NoLimits})
	for _, tc := range []struct {
		method, target, body string
		status               int
	}{
		{http.MethodPost, "/api/v1/convert_odds", `{"value":"+150"}`, http.StatusOK},
		{http.MethodGet, "/api/v1/convert_odds?value=abc", "", http.StatusBadRequest},
		{http.MethodGet, "/nowhere", "", http.StatusNotFound},
	} {
		records = records[:0]
		req := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Fatalf("%s %s: status %d, want %d", tc.method, tc.target, rec.Code, tc.status)
		}
		if len(records) != 1 {
			t.Fatalf("%s %s: %d log records, want 1", tc.method, tc.target, len(records))
		}
		r := records[0]
		got := map[string]string{"msg": r.Message, "level": r.Level.String()}
		var elapsed time.Duration
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "duration" {
				elapsed = a.Value.Duration()
				return true
			}
			got[a.Key] = a.Value.String()
			return true
		})
		path, _, _ := strings.Cut(tc.target, "?")
		want := map[string]string{"msg": "request", "level": "INFO", "method": tc.method, "path": path,
			"status": strconv.Itoa(tc.status), "bytes": strconv.Itoa(rec.Body.Len()), "request_id": rec.Header().Get("X-Request-Id")}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %s: log line (-want +got):\n%s", tc.method, tc.target, diff)
		}
		if elapsed <= 0 {
			t.Errorf("%s %s: duration %v, want above 0", tc.method, tc.target, elapsed)
		}
	}
}

// recordAll keeps every record it handles, then passes it on.
type recordAll struct {
	slog.Handler
	records *[]slog.Record
}

func (h recordAll) Handle(ctx context.Context, r slog.Record) error {
	*h.records = append(*h.records, r.Clone())
	return h.Handler.Handle(ctx, r)
}

// TestRequestLogSource: the log line's source, for a handler that adds
// it, is the chain's line that logs the request, as when it called
// Logger.LogAttrs itself, on the first request as on later ones.
func TestRequestLogSource(t *testing.T) {
	var records []slog.Record
	h := slog.NewTextHandler(io.Discard, &slog.HandlerOptions{AddSource: true})
	srv := httpapi.New(httpapi.Options{Logger: slog.New(recordAll{h, &records}), RateLimit: apitest.NoLimits})
	var got []string
	for range 2 {
		records = records[:0]
		srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil))
		if len(records) != 1 {
			t.Fatalf("%d log records, want 1", len(records))
		}
		src := records[0].Source()
		if src == nil {
			t.Fatal("no source")
		}
		// The closure's name depends on inlining: only its method's is fixed.
		fn := src.Function
		if i := strings.Index(fn, ".logRequests."); i >= 0 {
			fn = "logRequests"
		}
		got = append(got, fmt.Sprintf("%s %s line %d", filepath.Base(src.File), fn, src.Line))
	}
	if got[1] != got[0] {
		t.Errorf("sources differ: first %s, then %s", got[0], got[1])
	}
	src, err := os.ReadFile(filepath.Join("middleware", "middleware.go"))
	if err != nil {
		t.Fatal(err)
	}
	before, _, ok := strings.Cut(string(src), "s.logRequest(r.Context()")
	if !ok {
		t.Fatal("middleware.go: no call of logRequest")
	}
	if want := fmt.Sprintf("middleware.go logRequests line %d", strings.Count(before, "\n")+1); got[0] != want {
		t.Errorf("source %s, want %s", got[0], want)
	}
}

// TestRequestLogLevel: a logger that takes only errors gets no line for
// an answered request; the handler is not called at all.
func TestRequestLogLevel(t *testing.T) {
	var records []slog.Record
	h := slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError})
	srv := httpapi.New(httpapi.Options{Logger: slog.New(recordAll{h, &records}), RateLimit: apitest.NoLimits})
	srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil))
	srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/nowhere", nil))
	if len(records) != 0 {
		t.Errorf("%d records at level ERROR, want 0: %v", len(records), records)
	}
}
