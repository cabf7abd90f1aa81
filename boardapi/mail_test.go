package boardapi_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
)

func init() {
	// Request validation reads the raw e-mail of POST /api/inbound/email as a string.
	openapi3filter.RegisterBodyDecoder("message/rfc822", openapi3filter.FileBodyDecoder)
}

func TestRegisterAgent(t *testing.T) {
	e := apitest.NewBoardEnv(t, "") // no mail: registrations stay unconfirmed
	reg := func(agent string, body map[string]any, want int) map[string]any {
		t.Helper()
		return e.Post(t, "/api/agents", agent, body, apitest.MustPass, want)
	}
	m := reg("ada", map[string]any{"agent_id": "ada", "email": "Ada Lovelace <ada@example.org>"}, 201)
	a := m["agent"].(map[string]any)
	if m["status"] != "confirmation_not_sent" || m["email"] != "ada@example.org" || a["agent_name"] != "Ada Lovelace" || m["expires_at"] == nil {
		t.Errorf("register: %v", m)
	}
	if m := reg("ada", map[string]any{"agent_id": "ada", "email": "ada@example.net", "subscribe": []string{"ai"}}, 200); m["status"] != "confirmation_not_sent" ||
		fmt.Sprint(m["pending_subscribe"]) != "map[all:false domains:[AI]]" {
		t.Errorf("another address: %v", m)
	}
	apitest.CreatePred(t, e, "agent_id", "poster")
	if m := reg("poster", map[string]any{"agent_id": "poster", "email": "poster@example.org"}, 200); m["created"] != false ||
		m["agent"].(map[string]any)["predictions"] != 1.0 {
		t.Errorf("existing agent: %v", m)
	}

	for _, tc := range []struct {
		name, bearer string
		body         map[string]any
		status       int
		field        string
	}{
		{"not an address", "eve", map[string]any{"agent_id": "eve", "email": "eve at example"}, 400, "email:"},
		{"missing", "eve", map[string]any{"agent_id": "eve"}, 400, "email:"},
		{"other bearer", "mallory", map[string]any{"agent_id": "eve", "email": "eve@example.org"}, 403, "agent_id:"},
		{"unknown domain", "eve", map[string]any{"agent_id": "eve", "email": "eve@example.org", "subscribe": []string{"AI", "Weather"}}, 400, "subscribe[1]:"},
	} {
		rv := apitest.MustPass
		switch tc.name {
		case "missing", "unknown domain":
			rv = apitest.MustFail
		case "not an address": // RFC 5322's address grammar, with display names, is beyond a schema
			rv = apitest.Beyond
		}
		resp, body := e.Do(t, http.MethodPost, "/api/agents", apitest.JSONBody(t, tc.body), apitest.BearerH(tc.bearer), rv)
		if resp.StatusCode != tc.status || !strings.HasPrefix(apitest.ProblemOf(t, body).Error, tc.field) {
			t.Errorf("%s: %d %s; want %d naming %s", tc.name, resp.StatusCode, body, tc.status, tc.field)
		}
	}
	resp, _ := e.Do(t, http.MethodPost, "/api/agents", apitest.JSONBody(t, map[string]any{"agent_id": "eve", "email": "eve@example.org"}), nil, apitest.AnyValid)
	if resp.StatusCode != 401 {
		t.Errorf("without Authorization: %d, want 401", resp.StatusCode)
	}
	// Addresses are never published.
	_, body := e.Do(t, http.MethodGet, "/api/agents", nil, nil, apitest.MustPass)
	if bytes.Contains(body, []byte("example.net")) || bytes.Contains(body, []byte("poster@")) {
		t.Errorf("the agent list shows addresses: %s", body)
	}
}

// mailEnv is a board with e-mail on, the moderator token, and a prediction
// whose id replaces the one in the email package's test messages.
func mailEnv(t *testing.T) (*apitest.Env, string) {
	t.Helper()
	s, err := board.Open(context.Background(), boardtest.SQLite(t), board.Options{
		Now: apitest.TickClock(), Flag: forecastfile.Flags,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	mb := withMail(t, s)
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, Mail: mb, ModeratorToken: apitest.ModToken})})
	id := apitest.CreatePred(t, e, "agent_id", "author")
	e.Post(t, "/api/agents", "ada", map[string]any{"agent_id": "ada", "email": "ada.lovelace@gmail.com"}, apitest.MustPass, 201)
	confirm(t, e, s, "ada.lovelace@gmail.com")
	return e, id
}

func eml(t *testing.T, name, predictionID string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "email", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(b, []byte("0192f3a4-5b6c-7d8e-9f00-112233445566"), []byte(predictionID))
}

func rfc822(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"message/rfc822"}}
}

func TestInboundEmail(t *testing.T) {
	e, id := mailEnv(t)
	const path = "/api/inbound/email"
	gmail := eml(t, "gmail-reply.eml", id)
	refusals := []struct {
		name   string
		body   []byte
		header http.Header
		status int
		prefix string
	}{
		{"no token", gmail, http.Header{"Content-Type": {"message/rfc822"}}, 401, "Authorization:"},
		{"agent token", gmail, rfc822("ada"), 403, "Authorization:"},
		{"JSON", gmail, http.Header{"Authorization": {"Bearer " + apitest.ModToken}, "Content-Type": {"application/json"}}, 415, "Content-Type:"},
		{"too large", append(bytes.Clone(gmail), bytes.Repeat([]byte("x"), boardapi.MaxMessageBytes)...), rfc822(apitest.ModToken), 413, "body:"},
		{"malformed", eml(t, "bad-from.eml", id), rfc822(apitest.ModToken), 400, "From:"},
		{"unknown sender", bytes.Replace(gmail, []byte("ada.lovelace@gmail.com"), []byte("stranger@example.org"), 1), rfc822(apitest.ModToken), 422, "From:"},
		{"auto-reply", eml(t, "auto-reply.eml", id), rfc822(apitest.ModToken), 422, "Auto-Submitted:"},
		{"no prediction", eml(t, "gmail-reply.eml", "not.a.prediction"), rfc822(apitest.ModToken), 422, "In-Reply-To:"},
		{"gone", eml(t, "gmail-reply.eml", "0192f3a4-0000-7000-8000-000000000000"), rfc822(apitest.ModToken), 404, "In-Reply-To:"},
	}
	for _, r := range refusals {
		rv := apitest.MustPass
		switch r.status {
		case 415:
			rv = apitest.MustFail
		case 401, 403, 413: // authentication and size are not checked by the validator
			rv = apitest.AnyValid
		case 400: // the message's own grammar (RFC 5322)
			rv = apitest.Beyond
		}
		resp, body := e.Do(t, http.MethodPost, path, r.body, r.header, rv)
		if resp.StatusCode != r.status || !strings.HasPrefix(apitest.ProblemOf(t, body).Error, r.prefix) {
			t.Errorf("%s: %d %s; want %d naming %s", r.name, resp.StatusCode, apitest.Trim(body), r.status, r.prefix)
		}
	}
	// Nothing was recorded by the refusals.
	if th := e.Get(t, "/api/predictions/"+id+"/threads", 200); th["count"] != 0.0 {
		t.Fatalf("refusals recorded replies: %v", th["count"])
	}

	resp, body := e.Do(t, http.MethodPost, path, gmail, rfc822(apitest.ModToken), apitest.MustPass)
	if resp.StatusCode != 201 {
		t.Fatalf("gmail reply: %d %s", resp.StatusCode, body)
	}
	m := apitest.DecodeMap(t, body)
	r := m["reply"].(map[string]any)
	if r["agent_id"] != "ada" || r["kind"] != "challenge" || !strings.HasPrefix(r["body"].(string), "[challenge] Helion") ||
		strings.Contains(r["body"].(string), "wrote:") || !strings.Contains(m["summary"].(string), "by e-mail from ada.lovelace@gmail.com") {
		t.Errorf("recorded reply: %v", m)
	}
	// The same message again: 200, status duplicate, the same reply, nothing recorded.
	resp, body = e.Do(t, http.MethodPost, path, gmail, rfc822(apitest.ModToken), apitest.MustPass)
	if d := apitest.DecodeMap(t, body); resp.StatusCode != 200 || d["status"] != "duplicate" || d["reply_id"] != r["id"] {
		t.Errorf("the same message again: %d %s; want 200, duplicate of %v", resp.StatusCode, apitest.Trim(body), r["id"])
	}
	p := e.Get(t, "/api/predictions/"+id, 200)["prediction"].(map[string]any)
	if k := p["reply_kinds"].(map[string]any); k["challenge"] != 1.0 {
		t.Errorf("reply_kinds = %v", k)
	}
}

// TestInboundEmailOff: without a moderator token the route answers 403.
func TestInboundEmailOff(t *testing.T) {
	e := apitest.NewBoardEnv(t, "")
	resp, body := e.Do(t, http.MethodPost, "/api/inbound/email", []byte("From: a@b.org\r\n\r\nhi\r\n"), rfc822("x"), apitest.AnyValid)
	if resp.StatusCode != 403 || !strings.Contains(apitest.ProblemOf(t, body).Error, "no moderator token") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}
