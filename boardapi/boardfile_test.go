package boardapi_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/internal/apitest"
)

func markdownH(token string) http.Header {
	h := http.Header{"Content-Type": {"text/markdown; charset=utf-8"}}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return h
}

// TestBoardFileRoundTrip: the board written as a forecast file passes the
// checker, loads into another board, and that board writes the same text.
func TestBoardFileRoundTrip(t *testing.T) {
	const mod = "mod-token"
	a := apitest.NewBoardEnv(t, mod)
	id := apitest.CreatePred(t, a, "agent_id", "scout", "confidence", 0.7, "resolves", "Yes if it rains at the station.", "resolve_by", "2026-12-31")
	apitest.CreatePred(t, a, "agent_id", "skeptic", "title", "Second question", "confidence", "25%")
	a.Post(t, "/api/predictions/"+id+"/forecasts", "skeptic", map[string]any{"agent_id": "skeptic", "p": 0.4, "note": "models disagree"}, apitest.MustPass, 201)
	resp, _ := a.Do(t, "POST", "/api/predictions/"+id+"/resolve", []byte(`{"outcome":"yes"}`), apitest.BearerH(mod), apitest.MustPass)
	if resp.StatusCode != 200 {
		t.Fatalf("resolve: %d", resp.StatusCode)
	}

	resp, text := a.Do(t, "GET", "/api/predictions.md", nil, nil, apitest.MustPass)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/markdown") {
		t.Fatalf("GET /api/predictions.md: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	f, err := forecastfile.Parse(text)
	if err != nil {
		t.Fatalf("the export does not parse: %v\n%s", err, text)
	}
	// The second prediction states no resolves or resolve_by: the file
	// leaves them out, which the format's rule 1 names and the board's
	// import takes.
	for _, opt := range []forecastfile.Options{{}, {BoardImport: true}} {
		for _, d := range forecastfile.Check(f, opt) {
			if d.Severity == forecastfile.Finding && (opt.BoardImport || d.Rule != 1) {
				t.Errorf("the export has a finding (BoardImport %v): %v\n%s", opt.BoardImport, d, text)
			}
		}
	}
	for _, want := range []string{"agent:scout", "agent:skeptic", "models disagree", "outcome: yes"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the export lacks %q:\n%s", want, text)
		}
	}

	b := apitest.NewBoardEnv(t, mod)
	for i, want := range []int{201, 200} { // the second import changes nothing
		resp, body := b.Do(t, "POST", "/api/import", text, markdownH(mod), apitest.MustPass)
		if resp.StatusCode != want {
			t.Fatalf("import %d: %d, want %d: %s", i+1, resp.StatusCode, want, body)
		}
	}
	_, again := b.Do(t, "GET", "/api/predictions.md", nil, nil, apitest.MustPass)
	if diff := cmp.Diff(string(text), string(again)); diff != "" {
		t.Errorf("export, import, export (-first +second):\n%s", diff)
	}
	stats := b.Get(t, "/api/stats", 200)
	if got := stats["predictions"]; got != float64(2) {
		t.Errorf("after two imports the board has %v predictions, want 2", got)
	}
}

func TestBoardFileErrors(t *testing.T) {
	const mod = "mod-token"
	e := apitest.NewBoardEnv(t, mod)
	bad := []byte("# Forecasts\n\n## Will it rain?\n\n- id: rain\n- forecast: 2026-01-02 · 150% · agent:scout\n")
	tests := []struct {
		name      string
		method    string
		target    string
		body      []byte
		header    http.Header
		status    int
		errPrefix string
	}{
		{"no token", "POST", "/api/import", bad, markdownH(""), 401, "Authorization"},
		{"agent token", "POST", "/api/import", bad, markdownH("scout"), 403, ""},
		{"JSON", "POST", "/api/import", []byte(`{}`), apitest.BearerH(mod), 415, "Content-Type"},
		{"findings", "POST", "/api/import", bad, markdownH(mod), 400, "file: has"},
		{"at the limit", "POST", "/api/import", []byte(strings.Repeat("x", boardapi.MaxImportBytes)), markdownH(mod), 200, ""}, // no questions: a warning
		{"too large", "POST", "/api/import", []byte(strings.Repeat("x", boardapi.MaxImportBytes+1)), markdownH(mod), 413, "body"},
		{"UTF-16", "POST", "/api/import", bad, http.Header{"Content-Type": {"text/markdown; charset=utf-16"}, "Authorization": {"Bearer " + mod}}, 415, `Content-Type: has charset "utf-16"`},
		{"limit over", "GET", "/api/predictions.md?limit=1001", nil, nil, 400, "limit"},
		{"unknown domain", "GET", "/api/predictions.md?domain=Cooking", nil, nil, 400, "domain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rv := apitest.AnyValid
			switch tt.name {
			case "findings":
				rv = apitest.Beyond // the forecast file's own rules
			case "UTF-16":
				rv = apitest.Beyond // a media type's parameter, which openapi.json does not list
			case "limit over", "unknown domain":
				rv = apitest.MustFail
			}
			resp, body := e.Do(t, tt.method, tt.target, tt.body, tt.header, rv)
			if resp.StatusCode != tt.status {
				t.Fatalf("%d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.status == 200 {
				return
			}
			p := apitest.ProblemOf(t, body)
			if !strings.HasPrefix(p.Error, tt.errPrefix) || p.Hint == "" {
				t.Errorf("Problem %+v, want an error starting %q and a hint", p, tt.errPrefix)
			}
			if tt.name == "findings" && !strings.Contains(p.Error, "line ") {
				t.Errorf("findings without their lines: %q", p.Error)
			}
			if limit := fmt.Sprint(boardapi.MaxImportBytes); tt.status == 413 && !strings.Contains(p.Error, limit) {
				t.Errorf("413 %q does not name the limit, %s bytes", p.Error, limit)
			}
		})
	}
	if s := e.Get(t, "/api/stats", 200)["predictions"]; s != float64(0) {
		t.Errorf("refused imports wrote %v predictions", s)
	}
}

// TestImportedPredictionByID: a prediction imported from a forecast file
// keeps the question's id (not a UUID), and every route that names a
// prediction reaches it by that id.
func TestImportedPredictionByID(t *testing.T) {
	const mod = "mod-token"
	e := apitest.NewBoardEnv(t, mod)
	text, err := os.ReadFile(filepath.Join("..", "examples", "score", "forecasts.md"))
	if err != nil {
		t.Fatal(err)
	}
	if resp, body := e.Do(t, "POST", "/api/import", text, markdownH(mod), apitest.MustPass); resp.StatusCode != 201 {
		t.Fatalf("import: %d: %s", resp.StatusCode, body)
	}
	feed := e.Get(t, "/api/predictions?limit=100", 200)
	preds, _ := feed["predictions"].([]any)
	if len(preds) == 0 {
		t.Fatal("the import made no prediction")
	}
	for _, p := range preds {
		id, _ := p.(map[string]any)["id"].(string)
		if _, err := uuid.Parse(id); err == nil {
			t.Fatalf("imported prediction %q has a UUID, not its question id", id)
		}
		for _, path := range []string{"/api/predictions/" + id, "/api/predictions/" + id + "/forecasts",
			"/api/predictions/" + id + "/threads", "/api/predictions/" + id + "/scores"} {
			e.Get(t, path, 200)
		}
	}
	// An id with characters no prediction id has is still a 404 at once.
	if resp, _ := e.Do(t, "GET", "/api/predictions/no%20such", nil, nil, apitest.AnyValid); resp.StatusCode != 404 {
		t.Errorf("GET /api/predictions/no%%20such: %d, want 404", resp.StatusCode)
	}
}

// TestImportTextPlainAndEmpty: the import reads text/plain as Markdown and
// an empty body as an empty file, as openapi.json says (the validator
// checks both), and a 403 names the route refused.
func TestImportTextPlainAndEmpty(t *testing.T) {
	const mod = "mod-token"
	src := apitest.NewBoardEnv(t, mod)
	apitest.CreatePred(t, src, "agent_id", "scout", "resolves", "Yes if it rains at the station.", "resolve_by", "2026-12-31")
	_, file := src.Do(t, "GET", "/api/predictions.md", nil, nil, apitest.MustPass)
	e := apitest.NewBoardEnv(t, mod)
	plain := http.Header{"Authorization": {"Bearer " + mod}, "Content-Type": {"text/plain; charset=utf-8"}}
	if resp, body := e.Do(t, "POST", "/api/import", file, plain, apitest.MustPass); resp.StatusCode != 201 {
		t.Errorf("text/plain: %d %s", resp.StatusCode, apitest.Trim(body))
	}
	if resp, body := e.Do(t, "POST", "/api/import", []byte{}, markdownH(mod), apitest.MustPass); resp.StatusCode != 200 {
		t.Errorf("empty body: %d %s", resp.StatusCode, apitest.Trim(body))
	}
	resp, body := e.Do(t, "POST", "/api/import", file, markdownH("scout"), apitest.AnyValid)
	if p := apitest.ProblemOf(t, body); resp.StatusCode != 403 || !strings.Contains(p.Hint, "POST /api/import") {
		t.Errorf("agent token: %d %+v; want 403 whose hint names POST /api/import", resp.StatusCode, p)
	}
}
