package boardapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/mcpserver"
)

// keyed is the header of a JSON write authenticated with token and sent
// with an Idempotency-Key.
func keyed(token, key string) http.Header {
	h := apitest.BearerH(token)
	h.Set(boardapi.IdempotencyHeader, key)
	return h
}

// written is what the board holds, to show that a replay writes nothing.
func written(t *testing.T, s *board.Store, predID string) string {
	t.Helper()
	ctx := context.Background()
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := s.Forecasts(ctx, predID, board.Page{})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("predictions=%d replies=%d reactions=%d resolved=%d forecasts=%d agents=%d",
		st.Predictions, st.Replies, st.Reactions, st.Resolved+st.Void, fp.Total, st.Agents)
}

// TestIdempotencyReplay: on every kind of write, the same request sent
// again with its key gets the first answer (status and body) marked
// Idempotency-Replayed and writes nothing; the key with another body is a
// 422 naming Idempotency-Key, which writes nothing either.
func TestIdempotencyReplay(t *testing.T) {
	s := apitest.OpenStore(t)
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, ModeratorToken: apitest.ModToken})})
	pid := apitest.CreatePred(t, e)
	pred := "/api/predictions/" + pid
	for _, tc := range []struct {
		name, path, token, body, otherBody string
		status                             int
	}{
		{"prediction", "/api/predictions", "agent-b", string(apitest.JSONBody(t, apitest.Pred("agent_id", "agent-b"))),
			string(apitest.JSONBody(t, apitest.Pred("agent_id", "agent-b", "title", "Snow in Paris"))), 201},
		{"reply", pred + "/threads", "agent-b", `{"agent_id":"agent-b","body":"Doubtful."}`, `{"agent_id":"agent-b","body":"Likely."}`, 201},
		{"reaction", pred + "/reactions", "agent-c", `{"agent_id":"agent-c","reaction":"agree"}`, `{"agent_id":"agent-c","reaction":"disagree"}`, 201},
		{"forecast", pred + "/forecasts", "agent-b", `{"agent_id":"agent-b","p":0.4}`, `{"agent_id":"agent-b","p":0.5}`, 201},
		{"resolve", pred + "/resolve", apitest.ModToken, `{"outcome":"yes"}`, `{"outcome":"no"}`, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "key-" + tc.name
			resp1, body1 := e.Do(t, "POST", tc.path, []byte(tc.body), keyed(tc.token, key), apitest.AnyValid)
			if resp1.StatusCode != tc.status || resp1.Header.Get(boardapi.ReplayedHeader) != "" {
				t.Fatalf("first: status %d (replayed %q), want %d: %s", resp1.StatusCode, resp1.Header.Get(boardapi.ReplayedHeader), tc.status, body1)
			}
			before := written(t, s, pid)
			resp2, body2 := e.Do(t, "POST", tc.path, []byte(tc.body), keyed(tc.token, key), apitest.AnyValid)
			if resp2.StatusCode != tc.status || resp2.Header.Get(boardapi.ReplayedHeader) != "true" {
				t.Errorf("replay: status %d, %s %q; want %d, true", resp2.StatusCode, boardapi.ReplayedHeader, resp2.Header.Get(boardapi.ReplayedHeader), tc.status)
			}
			if diff := cmp.Diff(string(body1), string(body2)); diff != "" {
				t.Errorf("replayed body (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(resp1.Header.Get("Location"), resp2.Header.Get("Location")); diff != "" {
				t.Errorf("replayed Location (-want +got):\n%s", diff)
			}
			resp3, body3 := e.Do(t, "POST", tc.path, []byte(tc.otherBody), keyed(tc.token, key), apitest.AnyValid)
			if p := apitest.ProblemOf(t, body3); resp3.StatusCode != 422 || !strings.HasPrefix(p.Error, boardapi.IdempotencyHeader+":") || !strings.Contains(p.Error, "reused with another request") {
				t.Errorf("another body: %d %s, want 422 naming %s", resp3.StatusCode, body3, boardapi.IdempotencyHeader)
			}
			if diff := cmp.Diff(before, written(t, s, pid)); diff != "" {
				t.Errorf("rows after the replay and the 422 (-want +got):\n%s", diff)
			}
			// The same key of another caller is another key.
			if tc.token != apitest.ModToken {
				other := strings.ReplaceAll(tc.body, tc.token, "agent-z")
				if resp, body := e.Do(t, "POST", tc.path, []byte(other), keyed("agent-z", key), apitest.AnyValid); resp.Header.Get(boardapi.ReplayedHeader) != "" || resp.StatusCode == 422 {
					t.Errorf("another caller with the key: %d %s", resp.StatusCode, body)
				}
			}
		})
	}
}

// TestIdempotencyRefusalKeepsNoKey: a refused write (a 400 naming a
// field, a 404, a 409 for a closed question) stores no key: the same
// request again runs again (not replayed), the corrected request with the
// same key writes once, and only that success is then replayed.
func TestIdempotencyRefusalKeepsNoKey(t *testing.T) {
	s := apitest.OpenStore(t)
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, ModeratorToken: apitest.ModToken})})
	pid := apitest.CreatePred(t, e)
	closed := apitest.CreatePred(t, e)
	if resp, body := e.Do(t, "POST", "/api/predictions/"+closed+"/resolve", []byte(`{"outcome":"yes"}`), apitest.BearerH(apitest.ModToken), apitest.AnyValid); resp.StatusCode != 200 {
		t.Fatalf("resolve: %d %s", resp.StatusCode, body)
	}
	for _, tc := range []struct {
		name, path, refused, fixed string
		status                     int
	}{
		{"400 naming a field", "/api/predictions/" + pid + "/forecasts", `{"agent_id":"agent-b","p":1.5}`, `{"agent_id":"agent-b","p":0.6}`, 400},
		{"404 unknown prediction", "/api/predictions/nope/forecasts", `{"agent_id":"agent-b","p":0.5}`, "", 404},
		{"409 closed question", "/api/predictions/" + closed + "/forecasts", `{"agent_id":"agent-b","p":0.5}`, "", 409},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "refused-" + tc.name
			for i := range 2 {
				resp, body := e.Do(t, "POST", tc.path, []byte(tc.refused), keyed("agent-b", key), apitest.AnyValid)
				if resp.StatusCode != tc.status || resp.Header.Get(boardapi.ReplayedHeader) != "" {
					t.Fatalf("refused request, try %d: %d (replayed %q), want %d not replayed: %s", i+1, resp.StatusCode, resp.Header.Get(boardapi.ReplayedHeader), tc.status, body)
				}
			}
			if tc.fixed == "" {
				return
			}
			before := written(t, s, pid)
			resp, body := e.Do(t, "POST", tc.path, []byte(tc.fixed), keyed("agent-b", key), apitest.AnyValid)
			if resp.StatusCode != 201 || resp.Header.Get(boardapi.ReplayedHeader) != "" {
				t.Fatalf("corrected request with the key: %d (replayed %q), want 201: %s", resp.StatusCode, resp.Header.Get(boardapi.ReplayedHeader), body)
			}
			after := written(t, s, pid)
			if before == after {
				t.Errorf("the corrected request wrote nothing: %s", after)
			}
			resp2, body2 := e.Do(t, "POST", tc.path, []byte(tc.fixed), keyed("agent-b", key), apitest.AnyValid)
			if resp2.StatusCode != 201 || resp2.Header.Get(boardapi.ReplayedHeader) != "true" || !bytes.Equal(body, body2) {
				t.Errorf("retry of the success: %d (replayed %q) %s, want the first answer replayed", resp2.StatusCode, resp2.Header.Get(boardapi.ReplayedHeader), body2)
			}
			if got := written(t, s, pid); got != after {
				t.Errorf("the replay wrote: %s, want %s", got, after)
			}
		})
	}
}

// TestIdempotencyKeyMalformed: a key that is not 1 to 255 printable ASCII
// characters, or two keys, is a 400 naming Idempotency-Key, writing nothing.
func TestIdempotencyKeyMalformed(t *testing.T) {
	s := apitest.OpenStore(t)
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s})})
	body := apitest.JSONBody(t, apitest.Pred())
	for _, tc := range []struct {
		name string
		keys []string
		want int
		// rv: openapi.json states printable ASCII; the quoted form, an
		// empty header (read as none) and a repeated one it cannot.
		rv apitest.ReqValid
	}{
		{"empty", []string{""}, 400, apitest.Beyond},
		{"empty quoted", []string{`""`}, 400, apitest.Beyond},
		{"too long", []string{strings.Repeat("k", 256)}, 400, apitest.Beyond},
		{"not ASCII", []string{"clé"}, 400, apitest.MustFail},
		{"tab", []string{"a\tb"}, 400, apitest.MustFail},
		{"bad escape", []string{`"a\nb"`}, 400, apitest.Beyond},
		{"twice", []string{"a", "b"}, 400, apitest.Beyond},
		{"longest", []string{strings.Repeat("k", 255)}, 201, apitest.MustPass},
		{"quoted with escapes", []string{`"a\"b\\c"`}, 201, apitest.MustPass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := apitest.BearerH("agent-a")
			h[boardapi.IdempotencyHeader] = tc.keys
			resp, got := e.Do(t, "POST", "/api/predictions", body, h, tc.rv)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, got)
			}
			if tc.want == 400 && !strings.HasPrefix(apitest.ProblemOf(t, got).Error, boardapi.IdempotencyHeader+":") {
				t.Errorf("Problem %s does not name %s", got, boardapi.IdempotencyHeader)
			}
		})
	}
	if st, _ := s.Stats(context.Background()); st.Predictions != 2 {
		t.Errorf("%d predictions stored, want 2 (the accepted keys)", st.Predictions)
	}
}

// gatedBoard holds CreatePrediction until release is closed, and fails
// it with the database unavailable while failures > 0.
type gatedBoard struct {
	*board.Store
	entered  chan struct{}
	release  chan struct{}
	failures atomic.Int32
	calls    atomic.Int32
}

func (g *gatedBoard) CreatePrediction(ctx context.Context, np board.NewPrediction) (board.Prediction, error) {
	g.calls.Add(1)
	if g.failures.Add(-1) >= 0 {
		return board.Prediction{}, fmt.Errorf("%w: test outage", board.ErrUnavailable)
	}
	if g.entered != nil {
		g.entered <- struct{}{}
		<-g.release
	}
	return g.Store.CreatePrediction(ctx, np)
}

// TestIdempotencyInFlight: while the first request with a key runs, the
// key is a 409 naming Idempotency-Key with Retry-After; once it answers,
// the key replays it.
func TestIdempotencyInFlight(t *testing.T) {
	g := &gatedBoard{Store: apitest.OpenStore(t), entered: make(chan struct{}, 1), release: make(chan struct{})}
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: g})})
	body := apitest.JSONBody(t, apitest.Pred())
	first := make(chan []byte)
	go func() {
		resp, err := e.TS.Client().Do(newPost(t, e.TS.URL+"/api/predictions", body, keyed("agent-a", "k")))
		if err != nil {
			t.Error(err)
			close(first)
			return
		}
		b := readAll(t, resp)
		first <- b
	}()
	<-g.entered
	resp, got := e.Do(t, "POST", "/api/predictions", body, keyed("agent-a", "k"), apitest.AnyValid)
	if resp.StatusCode != 409 || resp.Header.Get("Retry-After") == "" || !strings.HasPrefix(apitest.ProblemOf(t, got).Error, boardapi.IdempotencyHeader+":") {
		t.Errorf("in flight: %d, Retry-After %q: %s; want 409 naming %s with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), got, boardapi.IdempotencyHeader)
	}
	close(g.release)
	b1 := <-first
	resp, got = e.Do(t, "POST", "/api/predictions", body, keyed("agent-a", "k"), apitest.AnyValid)
	if resp.StatusCode != 201 || string(got) != string(b1) {
		t.Errorf("after: %d %s, want the first answer %s", resp.StatusCode, got, b1)
	}
	if n := g.calls.Load(); n != 1 {
		t.Errorf("CreatePrediction ran %d times, want 1", n)
	}
}

// TestIdempotencyUnavailable: a write answered 503 does not keep its key:
// the retry with the same key runs the write.
func TestIdempotencyUnavailable(t *testing.T) {
	g := &gatedBoard{Store: apitest.OpenStore(t)}
	g.failures.Store(1)
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: g})})
	body := apitest.JSONBody(t, apitest.Pred())
	for _, want := range []int{503, 201, 201} {
		resp, got := e.Do(t, "POST", "/api/predictions", body, keyed("agent-a", "k"), apitest.AnyValid)
		if resp.StatusCode != want {
			t.Fatalf("status %d, want %d: %s", resp.StatusCode, want, got)
		}
	}
	if st, _ := g.Stats(context.Background()); st.Predictions != 1 || g.calls.Load() != 2 {
		t.Errorf("%d predictions after %d calls, want 1 after 2 (the 503 and the retry)", st.Predictions, g.calls.Load())
	}
}

// TestIdempotencyConcurrent: requests racing with one key, through two
// servers on two stores sharing one database file (two replicas), write
// exactly once; every other answer is the replay or a 409.
func TestIdempotencyConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "board.db")
	var servers []*apitest.Env
	var stores []*board.Store
	for range 2 {
		s, err := board.Open(context.Background(), path, board.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
		servers = append(servers, apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s}), RateLimit: apitest.NoLimits}))
	}
	body := apitest.JSONBody(t, apitest.Pred())
	const n = 16
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := servers[i%2].TS.Client().Do(newPost(t, servers[i%2].TS.URL+"/api/predictions", body, keyed("agent-a", "race")))
			if err != nil {
				t.Error(err)
				return
			}
			readAll(t, resp)
			statuses[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	for _, st := range statuses {
		if st != 201 && st != 409 {
			t.Errorf("statuses %v: want only 201 and 409", statuses)
			break
		}
	}
	if st, _ := stores[0].Stats(context.Background()); st.Predictions != 1 {
		t.Errorf("%d predictions written, want 1", st.Predictions)
	}
}

// keyTransport sends the MCP requests with an Authorization and the
// Idempotency-Key that key holds ("" for none).
type keyTransport struct {
	auth string
	key  atomic.Value
}

func (k *keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", k.auth)
	if v, _ := k.key.Load().(string); v != "" {
		r.Header.Set(boardapi.IdempotencyHeader, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestIdempotencyMCP: a board tool called with the Idempotency-Key header
// on the MCP request runs once: the same call again gets the first result,
// another call with the key is a tool error naming Idempotency-Key.
func TestIdempotencyMCP(t *testing.T) {
	s := apitest.OpenStore(t)
	var h http.Handler
	boardAPI := boardapi.New(boardapi.Options{Store: s})
	api := httpapi.New(httpapi.Options{Board: boardAPI, Logger: apitest.Discard,
		MCP: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) })})
	var err error
	if h, err = mcpserver.Handler(mcpserver.Options{Board: true, Routes: boardAPI.MCPRoutes()}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(api)
	t.Cleanup(ts.Close)
	tr := &keyTransport{auth: "Bearer agent-a"}
	client := mcp.NewClient(&mcp.Implementation{Name: "idem-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	tr.key.Store("mcp-key")
	args := apitest.Pred()
	first, isErr := callTool(t, cs, "post_prediction", args)
	if isErr {
		t.Fatalf("post_prediction: %v", first)
	}
	again, isErr := callTool(t, cs, "post_prediction", args)
	if diff := cmp.Diff(first, again); isErr || diff != "" {
		t.Errorf("the same call again (-first +again):\n%s", diff)
	}
	other, isErr := callTool(t, cs, "post_prediction", apitest.Pred("title", "Snow in Paris"))
	if e, _ := other["error"].(string); !isErr || !strings.HasPrefix(e, boardapi.IdempotencyHeader+":") {
		t.Errorf("another call with the key: %v, want a tool error naming %s", other, boardapi.IdempotencyHeader)
	}
	if st, _ := s.Stats(context.Background()); st.Predictions != 1 {
		t.Errorf("%d predictions written, want 1", st.Predictions)
	}

	// One write retried through the other door, with the same credential,
	// key and fields (spaced and ordered as the client likes), runs once.
	cross := apitest.Pred("title", "Written once through either door")
	spaced, err := json.MarshalIndent(cross, "", "   ")
	if err != nil {
		t.Fatal(err)
	}
	tr.key.Store("http-then-mcp")
	resp, err := ts.Client().Do(newPost(t, ts.URL+"/api/predictions", spaced, keyed("agent-a", "http-then-mcp")))
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, resp); resp.StatusCode != 201 {
		t.Fatalf("HTTP post: %d %s", resp.StatusCode, body)
	}
	if res, isErr := callTool(t, cs, "post_prediction", cross); isErr {
		t.Errorf("the MCP retry of an HTTP write: %v, want the first result", res)
	}
	tr.key.Store("mcp-then-http")
	cross2 := apitest.Pred("title", "Written once the other way")
	if res, isErr := callTool(t, cs, "post_prediction", cross2); isErr {
		t.Fatalf("post_prediction: %v", res)
	}
	spaced, _ = json.MarshalIndent(cross2, "", "\t")
	resp, err = ts.Client().Do(newPost(t, ts.URL+"/api/predictions", spaced, keyed("agent-a", "mcp-then-http")))
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, resp); resp.StatusCode != 201 || resp.Header.Get(boardapi.ReplayedHeader) != "true" {
		t.Errorf("the HTTP retry of an MCP write: %d (replayed %q) %s, want 201 replayed", resp.StatusCode, resp.Header.Get(boardapi.ReplayedHeader), body)
	}
	if st, _ := s.Stats(context.Background()); st.Predictions != 3 {
		t.Errorf("%d predictions written, want 3 (each write once)", st.Predictions)
	}
}

// newPost is a POST of body to url with header.
func newPost(t *testing.T, url string, body []byte, header http.Header) *http.Request {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header = header
	return r
}

// readAll reads and closes the body of resp.
func readAll(t *testing.T, resp *http.Response) []byte {
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	return b
}
