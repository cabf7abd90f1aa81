package boardapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/agentkey"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
)

// postRoute is a POST route of the board, as the manifest publishes it.
type postRoute struct {
	Name          string          `json:"name"`
	Method        string          `json:"method"`
	URL           string          `json:"url"`
	Authorization string          `json:"authorization"`
	ExampleBody   json.RawMessage `json:"example_body"`
}

// Kinds of authorization of the POST routes, by the manifest's text.
const (
	authIDText        = "Authorization: Bearer <agent_id>, equal to the body's agent_id"
	authKeyText       = "Authorization: Bearer <key>, the key of the body's agent_id"
	authModeratorText = "Authorization: Bearer <moderator token>"
	authKeyRouteText  = "none for an agent's first key; Authorization: Bearer <current key> to rotate it"
	authOwnerText     = "Authorization: Bearer <agent_id>, equal to the path's agent id"
	authOwnerKeyText  = "Authorization: Bearer <key>, the key of the path's agent id"
)

// boardPosts reads the POST routes from the server's manifest, so that a
// route added to the table is walked without editing the tests. Every POST
// route must be of a known kind.
func boardPosts(t *testing.T, e *apitest.Env) (agent []postRoute) {
	t.Helper()
	_, body := e.Do(t, "GET", httpapi.ManifestPath, nil, nil, apitest.MustPass)
	var m struct {
		Board []postRoute `json:"board"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	for _, r := range m.Board {
		if r.Method != http.MethodPost {
			continue
		}
		r.URL = strings.TrimPrefix(r.URL, e.TS.URL)
		switch r.Authorization {
		case authIDText, authKeyText:
			agent = append(agent, r)
		case authModeratorText, authKeyRouteText: // TestBoardResolveAuth, TestKeyRoute
		case authOwnerText, authOwnerKeyText: // the agent is the path's: TestWebhookRoutes, TestWebhookKeyMode
		case "none": // the token is the proof: TestConfirmEmail, TestUnsubscribe
		default:
			t.Errorf("POST %s has authorization %q, which this test does not know: add it", r.URL, r.Authorization)
		}
	}
	if len(agent) < 3 {
		t.Fatalf("%d agent POST routes, want at least 3", len(agent))
	}
	return agent
}

// agentOf is the agent_id of an example body.
func agentOf(t *testing.T, body []byte) string {
	t.Helper()
	var v struct {
		AgentID string `json:"agent_id"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.AgentID == "" {
		t.Fatalf("example body without agent_id: %s", body)
	}
	return v.AgentID
}

// send posts body to path with the Authorization header (none when auth
// is "") and returns the status, the header and the decoded body.
func send(t *testing.T, e *apitest.Env, path, auth string, body []byte) (int, http.Header, map[string]any) {
	t.Helper()
	h := http.Header{"Content-Type": {"application/json"}}
	if auth != "" {
		h.Set("Authorization", auth)
	}
	resp, got := e.Do(t, "POST", path, body, h, apitest.AnyValid)
	var m map[string]any
	if len(got) > 0 {
		m = apitest.DecodeMap(t, got)
	}
	return resp.StatusCode, resp.Header, m
}

// TestImpersonation walks every POST route of the board that acts as an
// agent (read from the manifest, so new routes are covered): no bearer is
// 401 with WWW-Authenticate, another agent's id 403, the body's own 2xx.
func TestImpersonation(t *testing.T) {
	e := apitest.NewBoardEnv(t, apitest.ModToken)
	id := apitest.CreatePred(t, e)
	for _, r := range boardPosts(t, e) {
		path := strings.Replace(r.URL, "{id}", id, 1)
		agent := agentOf(t, r.ExampleBody)
		for _, tc := range []struct {
			name, auth string
			status     int
		}{
			{"missing", "", 401},
			{"other agent", "Bearer intruder-1", 403},
			{"other case", "Bearer " + strings.ToUpper(agent), 403},
			{"own id", "Bearer " + agent, 2},
		} {
			t.Run(r.Name+"/"+tc.name, func(t *testing.T) {
				status, h, m := send(t, e, path, tc.auth, r.ExampleBody)
				if tc.status == 2 {
					if status/100 != 2 {
						t.Fatalf("status %d, want 2xx: %v", status, m)
					}
					return
				}
				if status != tc.status {
					t.Fatalf("status %d, want %d: %v", status, tc.status, m)
				}
				if wa := h.Get("WWW-Authenticate"); (status == 401) != (wa != "") {
					t.Errorf("WWW-Authenticate = %q with %d", wa, status)
				}
				if hint, _ := m["hint"].(string); hint == "" {
					t.Errorf("no hint: %v", m)
				}
			})
		}
	}
}

func newKeyEnv(t *testing.T) (*apitest.Env, string) {
	t.Helper()
	path := boardtest.SQLite(t)
	dir := filepath.Dir(path)
	s, err := board.Open(t.Context(), path, board.Options{Now: apitest.TickClock()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, Keys: apitest.OpenKeys(t, s), Webhooks: apitest.OpenWebhooks(t, s), Auth: boardapi.AuthKeys, ModeratorToken: apitest.ModToken})}), dir
}

// register posts to the key route and returns the key.
func register(t *testing.T, e *apitest.Env, agent, auth string, want int) string {
	t.Helper()
	status, h, m := send(t, e, "/api/agents/"+agent+"/key", auth, nil)
	if status != want {
		t.Fatalf("key for %s: status %d, want %d: %v", agent, status, want, m)
	}
	key, _ := m["key"].(string)
	if !strings.HasPrefix(key, agentkey.KeyPrefix) || m["agent_id"] != agent || h.Get("Cache-Control") != "no-store" ||
		!strings.Contains(m["note"].(string), "shown once") {
		t.Fatalf("key answer: %v, Cache-Control %q", m, h.Get("Cache-Control"))
	}
	return key
}

// TestKeyMode walks the same routes in key mode: an agent id alone no
// longer authenticates, only the agent's registered key does, and a
// rotation stops the old key at once.
func TestKeyMode(t *testing.T) {
	e, _ := newKeyEnv(t)
	hostKey := register(t, e, "host", "", 201)
	status, _, m := send(t, e, "/api/predictions", "Bearer "+hostKey, apitest.JSONBody(t, apitest.Pred("agent_id", "host")))
	if status != 201 {
		t.Fatalf("create with a key: %d %v", status, m)
	}
	id := m["prediction_id"].(string)
	intruderKey := register(t, e, "intruder-1", "", 201)

	for _, r := range boardPosts(t, e) {
		if r.Authorization != authKeyText {
			t.Errorf("%s: authorization %q in key mode, want %q", r.Name, r.Authorization, authKeyText)
		}
		path := strings.Replace(r.URL, "{id}", id, 1)
		// One agent per route, so that each starts without a key.
		var body map[string]any
		if err := json.Unmarshal(r.ExampleBody, &body); err != nil {
			t.Fatal(err)
		}
		agent := agentOf(t, r.ExampleBody) + "-" + r.Name
		body["agent_id"] = agent
		r.ExampleBody = apitest.JSONBody(t, body)
		t.Run(r.Name, func(t *testing.T) {
			check := func(name, auth string, want int, hintHas string) {
				t.Helper()
				status, h, m := send(t, e, path, auth, r.ExampleBody)
				if want == 2 {
					if status/100 != 2 {
						t.Errorf("%s: status %d, want 2xx: %v", name, status, m)
					}
					return
				}
				if status != want {
					t.Errorf("%s: status %d, want %d: %v", name, status, want, m)
					return
				}
				if hint, _ := m["hint"].(string); !strings.Contains(hint, hintHas) {
					t.Errorf("%s: hint %q lacks %q", name, hint, hintHas)
				}
				if wa := h.Get("WWW-Authenticate"); (status == 401) != (wa != "") {
					t.Errorf("%s: WWW-Authenticate = %q with %d", name, wa, status)
				}
			}
			keyRoute := "POST /api/agents/" + agent + "/key"
			check("missing", "", 401, "/api/agents/{id}/key")
			check("agent id, no key yet", "Bearer "+agent, 403, keyRoute)
			key := register(t, e, agent, "", 201)
			check("agent id alone", "Bearer "+agent, 403, keyRoute)
			check("other agent's key", "Bearer "+intruderKey, 403, keyRoute)
			check("key with a character changed", "Bearer "+key[:len(key)-1]+flip(key[len(key)-1]), 403, keyRoute)
			check("own key", "Bearer "+key, 2, "")
			newKey := register(t, e, agent, "Bearer "+key, 200)
			check("old key after rotation", "Bearer "+key, 403, keyRoute)
			check("new key", "Bearer "+newKey, 2, "")
		})
	}
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

// TestKeyRoute: the key route's answers, and that the key is nowhere in
// the database files.
func TestKeyRoute(t *testing.T) {
	t.Run("id mode", func(t *testing.T) {
		e := apitest.NewBoardEnv(t, "")
		for _, auth := range []string{"", "Bearer agent-a"} {
			status, _, m := send(t, e, "/api/agents/agent-a/key", auth, nil)
			if hint, _ := m["hint"].(string); status != 403 || !strings.Contains(hint, "--auth keys") || !strings.HasPrefix(m["error"].(string), "Authorization: keys are turned off") {
				t.Errorf("key route in id mode with %q: %d %v", auth, status, m)
			}
		}
	})

	e, dir := newKeyEnv(t)
	key := register(t, e, "agent-a", "", 201)
	for _, tc := range []struct {
		name, agent, auth string
		status            int
		errorHas          string
	}{
		{"second registration", "agent-a", "", 401, "already has a key"},
		{"agent id as bearer", "agent-a", "Bearer agent-a", 403, "not the current key"},
		{"another agent's key", "agent-b", "", 201, ""}, // registers agent-b
		{"malformed header", "agent-a", "Basic eDp5", 401, "Bearer <token>"},
		{"invalid id", "no%20spaces", "", 400, "id:"},
		{"id too long", strings.Repeat("a", 65), "", 400, "id:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, m := send(t, e, "/api/agents/"+tc.agent+"/key", tc.auth, nil)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %v", status, tc.status, m)
			}
			if msg, _ := m["error"].(string); !strings.Contains(msg, tc.errorHas) {
				t.Errorf("error %q lacks %q", msg, tc.errorHas)
			}
		})
	}
	// A bearer for an agent without a key registers it: the header is not needed.
	register(t, e, "agent-c", "Bearer whatever", 201)

	// Rotation: the new key works, the old one does not, even to rotate.
	newKey := register(t, e, "agent-a", "Bearer "+key, 200)
	if status, _, m := send(t, e, "/api/agents/agent-a/key", "Bearer "+key, nil); status != 403 {
		t.Errorf("rotating with the old key: %d %v", status, m)
	}

	// Neither key is stored; the current one's SHA-256 is.
	var files []byte
	matches, _ := filepath.Glob(filepath.Join(dir, "board.db*"))
	for _, f := range matches {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b...)
	}
	sum := sha256.Sum256([]byte(newKey))
	if !bytes.Contains(files, []byte(hex.EncodeToString(sum[:]))) {
		t.Errorf("the key's SHA-256 is not in %v", matches)
	}
	for _, k := range []string{key, newKey} {
		if bytes.Contains(files, []byte(k)) {
			t.Errorf("a key is stored in clear in %v", matches)
		}
	}
}

// TestKeyModeDescriptions: a key-mode server publishes key mode only.
func TestKeyModeDescriptions(t *testing.T) {
	e, _ := newKeyEnv(t)
	for _, p := range []string{"/llms-full.txt", "/openapi.json", httpapi.ManifestPath} {
		_, body := e.Do(t, "GET", p, nil, nil, apitest.MustPass)
		if bytes.Contains(body, []byte("Bearer <agent_id>")) {
			t.Errorf("%s of a key-mode server mentions Bearer <agent_id>", p)
		}
		if !bytes.Contains(body, []byte("Bearer <key>")) {
			t.Errorf("%s of a key-mode server does not mention Bearer <key>", p)
		}
	}
	_, llms := e.Do(t, "GET", "/llms-full.txt", nil, nil, apitest.MustPass)
	if !bytes.Contains(llms, []byte("This server runs in key mode")) {
		t.Error("llms-full.txt does not say the server runs in key mode")
	}
}

func TestParseAuth(t *testing.T) {
	for in, want := range map[string]boardapi.Auth{"": boardapi.AuthID, "id": boardapi.AuthID, "ID": boardapi.AuthID, "keys": boardapi.AuthKeys, " Keys ": boardapi.AuthKeys} {
		got, err := boardapi.ParseAuth(in)
		if err != nil || got != want {
			t.Errorf("ParseAuth(%q) = %v, %v, want %v", in, got, err, want)
		}
		if got.String() != map[boardapi.Auth]string{boardapi.AuthID: "id", boardapi.AuthKeys: "keys"}[want] {
			t.Errorf("%v.String() = %q", want, got.String())
		}
	}
	if _, err := boardapi.ParseAuth("token"); err == nil || !strings.Contains(err.Error(), "keys") {
		t.Errorf("ParseAuth(token) = %v", err)
	}
}
