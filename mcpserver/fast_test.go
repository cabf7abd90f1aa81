package mcpserver

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/predictions-md/predictions/internal/tools"
)

// A fastCase is one request for TestFastPath: the body, the headers set
// on top of the defaults (an empty value deletes the header), and whether
// the fast path must answer it (true) or leave it to the SDK (false).
type fastCase struct {
	name   string
	method string // POST when empty
	header map[string]string
	body   string
	chunk  bool // send the body without a Content-Length
	fast   bool
}

func rpc(id, method, params string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
}

func toolParams(name, args string) string {
	return `{"name":"` + name + `","arguments":` + args + `}`
}

// fastCases are the requests on which the fast path and the SDK must agree:
// every tool with good and bad input under every protocol version the fast
// path serves, and every way a request can step outside what it serves.
func fastCases() []fastCase {
	var cs []fastCase
	for _, v := range fastVersions {
		for _, t := range tools.All() {
			cs = append(cs,
				fastCase{name: t.Name + "/example/" + v, header: map[string]string{"Mcp-Protocol-Version": v},
					body: rpc("1", "tools/call", toolParams(t.Name, string(t.Example))), fast: true},
				fastCase{name: t.Name + "/empty/" + v, header: map[string]string{"Mcp-Protocol-Version": v},
					body: rpc(`"req-7"`, "tools/call", toolParams(t.Name, `{}`)), fast: true})
		}
	}
	conv := func(args string) string { return rpc("3", "tools/call", toolParams("convert_odds", args)) }
	good := conv(`{"value":"+150","compare_to":"40%"}`)
	cs = append(cs, []fastCase{
		// Arguments of every shape: the tool answers each, as over HTTP.
		{name: "args/null", body: conv(`null`), fast: true},
		{name: "args/missing", body: rpc("3", "tools/call", `{"name":"convert_odds"}`), fast: true},
		{name: "args/array", body: conv(`[1,2]`), fast: true},
		{name: "args/string", body: conv(`"+150"`), fast: true},
		{name: "args/number", body: conv(`2.5`), fast: true},
		{name: "args/wrong type", body: conv(`{"value":true}`), fast: true},
		{name: "args/too long", body: conv(`{"value":"` + strings.Repeat("1", 41) + `"}`), fast: true},
		{name: "args/unknown field", body: conv(`{"value":"2","x":{"y":1}}`), fast: true},
		{name: "args/html", body: conv(`{"value":"<b>&amp;</b>"}`), fast: true},
		{name: "args/escapes", body: conv(`{"value":"\u002b150","from":"a\u0075to"}`), fast: true},
		{name: "args/unicode", body: conv(`{"value":"évens"}`), fast: true},
		{name: "args/invalid utf8", body: conv("{\"value\":\"2\xff\"}"), fast: true},
		{name: "args/spaces", body: "{ \"jsonrpc\" : \"2.0\" , \"id\" : 3 , \"method\" : \"tools/call\" , \"params\" : { \"name\" : \"convert_odds\" , \"arguments\" : { \"value\" : \"2\" } } }", fast: true},
		{name: "args/certain", body: conv(`{"value":"1"}`), fast: true},

		// Ids: plain strings and whole numbers are the fast path's.
		{name: "id/negative", body: rpc("-12", "tools/call", toolParams("convert_odds", `{"value":"2"}`)), fast: true},
		{name: "id/zero", body: rpc("0", "tools/call", toolParams("convert_odds", `{"value":"2"}`)), fast: true},
		{name: "id/15 digits", body: rpc("999999999999999", "tools/call", toolParams("convert_odds", `{"value":"2"}`)), fast: true},
		{name: "id/unicode", body: rpc(`"é-1"`, "tools/call", toolParams("convert_odds", `{"value":"2"}`)), fast: true},
		{name: "id/empty string", body: rpc(`""`, "tools/call", toolParams("convert_odds", `{"value":"2"}`)), fast: true},
		{name: "id/fraction", body: rpc("1.5", "tools/call", toolParams("convert_odds", `{"value":"2"}`))},
		{name: "id/exponent", body: rpc("1e3", "tools/call", toolParams("convert_odds", `{"value":"2"}`))},
		{name: "id/16 digits", body: rpc("9007199254740993", "tools/call", toolParams("convert_odds", `{"value":"2"}`))},
		{name: "id/minus zero", body: rpc("-0", "tools/call", toolParams("convert_odds", `{"value":"2"}`)), fast: true},
		{name: "id/escaped", body: rpc(`"a\u0041"`, "tools/call", toolParams("convert_odds", `{"value":"2"}`))},
		{name: "id/null", body: rpc("null", "tools/call", toolParams("convert_odds", `{"value":"2"}`))},
		{name: "id/bool", body: rpc("true", "tools/call", toolParams("convert_odds", `{"value":"2"}`))},
		{name: "id/object", body: rpc("{}", "tools/call", toolParams("convert_odds", `{"value":"2"}`))},
		{name: "id/missing", body: `{"jsonrpc":"2.0","method":"tools/call","params":` + toolParams("convert_odds", `{}`) + `}`},

		// Messages the SDK answers.
		{name: "unknown tool", body: rpc("1", "tools/call", toolParams("nope", `{}`))},
		{name: "name escaped", body: rpc("1", "tools/call", `{"name":"convert\u005fodds","arguments":{}}`)},
		{name: "name not a string", body: rpc("1", "tools/call", `{"name":7,"arguments":{}}`)},
		{name: "params extra member", body: rpc("1", "tools/call", `{"name":"convert_odds","arguments":{},"x":1}`)},
		{name: "params _meta", body: rpc("1", "tools/call", `{"name":"convert_odds","arguments":{"value":"2"},"_meta":{"progressToken":"t"}}`)},
		{name: "params not object", body: rpc("1", "tools/call", `[1]`)},
		{name: "params null", body: rpc("1", "tools/call", `null`)},
		{name: "params missing", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`},
		{name: "extra member", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + toolParams("convert_odds", `{}`) + `,"x":1}`},
		{name: "version 1.0", body: strings.Replace(good, `"2.0"`, `"1.0"`, 1)},
		{name: "version missing", body: `{"id":1,"method":"tools/call","params":` + toolParams("convert_odds", `{}`) + `,"x":1}`},
		{name: "duplicate method", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","method":"tools/call","params":` + toolParams("convert_odds", `{"value":"2"}`) + `}`, fast: true}, // both read the last
		{name: "duplicate name", body: rpc("1", "tools/call", `{"name":"nope","name":"convert_odds","arguments":{"value":"2"}}`), fast: true},
		{name: "key case", body: `{"jsonrpc":"2.0","ID":1,"method":"tools/call","params":` + toolParams("convert_odds", `{}`) + `}`},
		{name: "leading space", body: " " + good},
		{name: "trailing data", body: good + " x"},
		{name: "two values", body: good + good},
		{name: "batch", body: "[" + good + "]"},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{name: "initialize", body: rpc("1", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)},
		{name: "tools/list", body: rpc("1", "tools/list", `{}`)},
		{name: "invalid json", body: `{"jsonrpc":"2.0",`},
		{name: "empty body", body: ``},
		{name: "over the limit", body: good + strings.Repeat(" ", MaxBodyBytes), chunk: true},

		// Headers.
		{name: "no content type", header: map[string]string{"Content-Type": ""}, body: good, fast: true},
		{name: "content type charset", header: map[string]string{"Content-Type": "application/json; charset=utf-8"}, body: good, fast: true},
		{name: "content type text", header: map[string]string{"Content-Type": "text/plain"}, body: good},
		{name: "content type bad", header: map[string]string{"Content-Type": "application/json; ="}, body: good},
		{name: "accept missing", header: map[string]string{"Accept": ""}, body: good, fast: true},
		{name: "accept json only", header: map[string]string{"Accept": "application/json"}, body: good, fast: true},
		{name: "accept any", header: map[string]string{"Accept": "*/*"}, body: good, fast: true},
		{name: "accept html", header: map[string]string{"Accept": "text/html"}, body: good},
		{name: "last event id", header: map[string]string{"Last-Event-ID": "x_1"}, body: good},
		{name: "protocol 2026-07-28", header: map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, body: good},
		{name: "protocol unknown", header: map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, body: good},
		{name: "GET", method: http.MethodGet},
		{name: "DELETE", method: http.MethodDelete},
	}...)
	return cs
}

// An answer is what a client sees of a response, less its Date.
type answer struct {
	Status           int
	Header           http.Header
	TransferEncoding []string
	Body             string
}

// TestFastPath holds the fast path to the SDK: every request of fastCases
// gets the same status, headers, framing and body from a handler with the
// fast path as from one without, and the fast path answers exactly the
// requests it is meant to.
func TestFastPath(t *testing.T) {
	fast, slow := newTestHandlers(t)
	mux := http.NewServeMux()
	mux.Handle("/fast", fast)
	mux.Handle("/sdk", slow)
	ts := httptest.NewServer(mux)
	defer ts.Close()

	for _, tc := range fastCases() {
		t.Run(tc.name, func(t *testing.T) {
			before := fast.fastCalls.Load()
			got := send(t, ts.URL+"/fast", tc)
			took := fast.fastCalls.Load() != before
			want := send(t, ts.URL+"/sdk", tc)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("answer differs from the SDK's (-sdk +fast):\n%s", diff)
			}
			if took != tc.fast {
				t.Errorf("fast path answered: %v, want %v (status %d, %.200s)", took, tc.fast, got.Status, got.Body)
			}
			if slow.fastCalls.Load() != 0 {
				t.Fatal("the handler without the fast path took it")
			}
		})
	}
}

func newTestHandlers(tb testing.TB) (fast, slow *handler) {
	tb.Helper()
	f, err := Handler(Options{})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := Handler(Options{})
	if err != nil {
		tb.Fatal(err)
	}
	fast, slow = f.(*handler), s.(*handler)
	slow.noFast = true
	return fast, slow
}

// send makes the request of tc to url and returns the answer.
func send(t *testing.T, url string, tc fastCase) answer {
	t.Helper()
	method := tc.method
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader = strings.NewReader(tc.body)
	if tc.chunk {
		body = io.MultiReader(body) // hides the length: chunked
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range tc.header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Header.Del("Date")
	return answer{Status: resp.StatusCode, Header: resp.Header, TransferEncoding: resp.TransferEncoding, Body: string(b)}
}

// FuzzFastPath checks, for any body and any of the protocol versions, that
// a handler with the fast path answers as the SDK does.
func FuzzFastPath(f *testing.F) {
	for _, tc := range fastCases() {
		if !tc.chunk && tc.method == "" {
			f.Add(tc.body, tc.header["Mcp-Protocol-Version"])
		}
	}
	fast, slow := newTestHandlers(f)
	f.Fuzz(func(t *testing.T, body, version string) {
		var got, want answer
		for _, h := range []*handler{fast, slow} {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if version != "" {
				req.Header.Set("Mcp-Protocol-Version", version)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			a := answer{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
			if h == fast {
				got = a
			} else {
				want = a
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("body %q, version %q: answer differs from the SDK's (-sdk +fast):\n%s", body, version, diff)
		}
	})
}

// BenchmarkFastPath compares a tools/call answered by the fast path with
// the same call answered by the SDK, in process.
func BenchmarkFastPath(b *testing.B) {
	fast, slow := newTestHandlers(b)
	t := tools.Lookup("convert_odds")
	body := rpc("1", "tools/call", toolParams(t.Name, string(t.Example)))
	for _, h := range []*handler{slow, fast} {
		name := "sdk"
		if h == fast {
			name = "fast"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(fmt.Sprint(rec.Code, rec.Body))
				}
			}
		})
	}
}
