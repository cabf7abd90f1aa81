package httpapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/tools"
)

// FuzzRequest sends arbitrary requests, as net/http would hand them to the
// handler, to the whole API with the board and the MCP endpoint wired:
// method, target (path and query), Content-Type, Authorization and body.
// Whatever arrives, the answer is never a 5xx, and every 4xx outside /mcp
// is a JSON Problem whose error names a field ("field: problem") and
// carries a hint. The seeds are the rows of TestMalformed and the valid
// request of every route.
func FuzzRequest(f *testing.F) {
	h := httpapi.New(httpapi.Options{Board: boardapi.New(boardapi.Options{Store: apitest.OpenStore(f), ModeratorToken: modSecret}), MCP: newMCP(f), Logger: apitest.Discard})

	ctJSON := "application/json"
	for _, tl := range tools.All() {
		path := tools.PathPrefix + "/" + tl.Name
		f.Add("POST", path, ctJSON, "", []byte(tl.Example))
		f.Add("GET", path+"?"+apitest.QueryOf(f, tl.Example), "", "", []byte(nil))
	}
	for _, p := range []string{"/", "/healthz", "/openapi.json", "/llms.txt", httpapi.ManifestPath, "/predictions.md?pool=median",
		tools.PathPrefix + "/settings", "/api/predictions?domain=AI&sort=popular&limit=5", "/api/agents", "/api/agents/agent-a", "/api/stats",
		"/api/predictions/" + unknownID, "/api/predictions/" + unknownID + "/threads"} {
		f.Add("GET", p, "", "", []byte(nil))
	}
	f.Add("POST", "/api/predictions", ctJSON, "Bearer agent-a",
		[]byte(`{"agent_id":"agent-a","title":"t","body":"b","confidence":0.5,"timeframe":"Q1","domain":"AI"}`))
	f.Add("POST", "/api/predictions/"+unknownID+"/reactions", ctJSON, "Bearer agent-a", []byte(`{"agent_id":"agent-a","reaction":"agree"}`))
	f.Add("POST", "/api/predictions/"+unknownID+"/resolve", ctJSON, "Bearer "+modSecret, []byte(`{"outcome":"yes"}`))
	f.Add("POST", "/mcp", ctJSON, "", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"convert_odds","arguments":{"value":"+150"}}}`))
	// A sample of the malformed rows: every fifth, leaving out the large
	// ones, keeps the baseline short enough for a 15-second run.
	for i, m := range append(toolRows(f), boardRows()...) {
		if i%5 != 0 || len(m.body) > 4096 || len(m.target) > 4096 {
			continue
		}
		hd := m.header
		if hd == nil {
			hd = defaultHeader(m)
		}
		target := strings.NewReplacer("{pid}", unknownID, "{rid}", unknownID).Replace(m.target)
		f.Add(m.method, target, hd.Get("Content-Type"), hd.Get("Authorization"), []byte(m.body))
	}

	f.Fuzz(func(t *testing.T, method, target, contentType, auth string, body []byte) {
		var raw bytes.Buffer
		fmt.Fprintf(&raw, "%s %s HTTP/1.1\r\nHost: example.org\r\n", method, target)
		if contentType != "" {
			fmt.Fprintf(&raw, "Content-Type: %s\r\n", contentType)
		}
		if auth != "" {
			fmt.Fprintf(&raw, "Authorization: %s\r\n", auth)
		}
		fmt.Fprintf(&raw, "Content-Length: %d\r\n\r\n", len(body))
		raw.Write(body)
		req, err := http.ReadRequest(bufio.NewReader(&raw))
		if err != nil {
			return // net/http answers 400 itself; the handler never sees it
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		status := rec.Code
		if status >= 500 {
			t.Fatalf("%s %q: status %d: %s", method, target, status, rec.Body)
		}
		if status < 400 || req.Method == http.MethodHead || strings.HasPrefix(req.URL.Path, "/mcp") {
			return
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("%s %q: %d with Content-Type %q", method, target, status, ct)
		}
		var p httpapi.Problem
		dec := json.NewDecoder(rec.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("%s %q: %d body is not a Problem: %v", method, target, status, err)
		}
		if field, problem, ok := strings.Cut(p.Error, ": "); !ok || field == "" || problem == "" || p.Hint == "" {
			t.Fatalf("%s %q: %d Problem does not name a field with a hint: %+v", method, target, status, p)
		}
		if p.Disclaimer != tools.Disclaimer || p.Terms == "" {
			t.Fatalf("%s %q: Problem without disclaimer or terms: %+v", method, target, p)
		}
	})
}
