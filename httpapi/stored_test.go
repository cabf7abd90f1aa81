package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
)

// TestStored: the manifest, llms.txt and /terms say what is stored: nothing
// without a board; the board's posts, names, forecasts, e-mail addresses and
// hashed keys with one.
func TestStored(t *testing.T) {
	boardWords := []string{"predictions", "forecasts", "names", "e-mail addresses", "hashes"}
	for _, tc := range []struct {
		name  string
		board httpapi.Board
	}{{"no board", nil}, {"board", boardapi.New(boardapi.Options{Store: describeOnly{}})}} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(httpapi.New(httpapi.Options{Logger: apitest.Discard, RateLimit: apitest.NoLimits, Board: tc.board}))
			t.Cleanup(ts.Close)
			get := func(p string) string {
				resp, err := ts.Client().Get(ts.URL + p)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return string(b)
			}
			var m struct{ Stored string }
			if err := json.Unmarshal([]byte(get(httpapi.ManifestPath)), &m); err != nil {
				t.Fatal(err)
			}
			llms, terms := get("/llms.txt"), get("/terms")
			for _, doc := range []string{m.Stored, llms, terms} {
				if !strings.Contains(doc, "stateless") {
					t.Errorf("no word on the stateless tools in %.200q", doc)
				}
				for _, w := range boardWords {
					if got := strings.Contains(doc, "e-mail addresses") && strings.Contains(doc, w); got != (tc.board != nil) {
						t.Errorf("mentions the board's %q: %v, want %v", w, got, tc.board != nil)
					}
				}
			}
			if tc.board != nil && strings.Contains(llms, "nothing sent is stored") {
				t.Error("llms.txt with a board says nothing is stored")
			}
		})
	}
}
