package httpapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden pins the published descriptions. They are generated from
// tools.All(): after a tool changes, review the diff and run
//
//	go test ./httpapi -run TestGolden -update
func TestGolden(t *testing.T) {
	// The board routes are published only with a store; describing them
	// calls no store method. /mcp is mounted, as serve mounts it.
	srv := httpapi.New(httpapi.Options{BaseURL: "https://predictions.example", Logger: apitest.Discard, Board: boardapi.New(boardapi.Options{Store: describeOnly{}}), MCP: newMCP(t)})
	for _, tc := range []struct{ path, file string }{
		{"/openapi.json", "openapi.json"},
		{"/llms.txt", "llms.txt"},
		{"/llms-full.txt", "llms-full.txt"},
		{httpapi.ManifestPath, "manifest.json"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
			if rec.Code != 200 {
				t.Fatalf("GET %s: %d", tc.path, rec.Code)
			}
			got := rec.Body.Bytes()
			if filepath.Ext(tc.file) == ".json" { // indent for readable diffs
				var b bytes.Buffer
				if err := json.Indent(&b, got, "", "  "); err != nil {
					t.Fatal(err)
				}
				got = b.Bytes()
			}
			golden := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./httpapi -run TestGolden -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("GET %s differs from %s (-want +got); if intended, run with -update:\n%s", tc.path, golden, diff)
			}
		})
	}
}

// TestDescriptionsStable checks that two builds of each description are
// byte-identical (no map-order or clock dependence).
func TestDescriptionsStable(t *testing.T) {
	srv := httpapi.New(httpapi.Options{BaseURL: "https://predictions.example", Logger: apitest.Discard, Board: boardapi.New(boardapi.Options{Store: describeOnly{}}), MCP: newMCP(t)})
	for _, p := range []string{"/openapi.json", "/llms.txt", "/llms-full.txt", httpapi.ManifestPath} {
		var bodies [2][]byte
		for i := range bodies {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
			bodies[i] = rec.Body.Bytes()
		}
		if !bytes.Equal(bodies[0], bodies[1]) {
			t.Errorf("GET %s gives different bodies on two calls", p)
		}
	}
}

// describeOnly is a Board for the descriptions: calling it panics.
type describeOnly struct{ boardapi.Board }
