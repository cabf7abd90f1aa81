package boardapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/webhooks"
	"github.com/predictions-md/predictions/webhooks/signature"
)

func TestWebhookRoutes(t *testing.T) {
	e := apitest.NewBoardEnv(t, apitest.ModToken)
	const path = "/api/agents/ada/webhooks"
	created := e.Post(t, path, "ada", map[string]any{"url": "https://hooks.example.org/a", "types": []string{"Forecast.Created", "reply.created"}, "domain": "ai"},
		apitest.MustPass, http.StatusCreated)
	hook := created["webhook"].(map[string]any)
	id := hook["id"].(string)
	secret, _ := created["secret"].(string)
	if _, err := signature.ParseSecret(secret); err != nil || !strings.HasPrefix(secret, signature.SecretPrefix) {
		t.Errorf("secret %q: %v", secret, err)
	}
	if diff := cmp.Diff(map[string]any{"id": id, "agent_id": "ada", "url": "https://hooks.example.org/a",
		"types": []any{"forecast.created", "reply.created"}, "domain": "AI", "status": "active", "created_at": hook["created_at"]}, hook); diff != "" {
		t.Errorf("created endpoint (-want +got):\n%s", diff)
	}

	// Listing: the owner sees it, without the secret; another agent is refused.
	resp, body := e.Do(t, http.MethodGet, path, nil, apitest.BearerH("ada"), apitest.MustPass)
	if resp.StatusCode != http.StatusOK || strings.Contains(string(body), secret) || !strings.Contains(string(body), id) {
		t.Errorf("GET %s = %d %s", path, resp.StatusCode, apitest.Trim(body))
	}
	if got, want := apitest.DecodeMap(t, body)["summary"], "ada has 1 endpoint, 0 disabled."; got != want {
		t.Errorf("GET %s: summary %q, want %q", path, got, want)
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		target := path
		if m == http.MethodDelete {
			target += "/" + id
		}
		resp, body = e.Do(t, m, target, nil, apitest.BearerH("bob"), apitest.MustPass)
		if p := apitest.ProblemOf(t, body); resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(p.Error, "id"+":") {
			t.Errorf("%s %s as bob = %d %s, want 403 on id", m, target, resp.StatusCode, apitest.Trim(body))
		}
	}
	resp, _ = e.Do(t, http.MethodGet, path, nil, nil, apitest.AnyValid)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET %s without Authorization = %d, want 401", path, resp.StatusCode)
	}
	// bob's own delete of ada's id is a 404: he has no such endpoint.
	resp, body = e.Do(t, http.MethodDelete, "/api/agents/bob/webhooks/"+id, nil, apitest.BearerH("bob"), apitest.MustPass)
	if p := apitest.ProblemOf(t, body); resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(p.Error, "webhook_id"+":") {
		t.Errorf("DELETE of another's endpoint = %d %s, want 404 on webhook_id", resp.StatusCode, apitest.Trim(body))
	}

	// Bad registrations name the field.
	for _, tc := range []struct {
		body  map[string]any
		rv    apitest.ReqValid
		field string
	}{
		{map[string]any{"url": "http://hooks.example.org/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://example.org:99999/"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://example.org:0/"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://127.1/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://2130706433/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://0x7f.1/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://localhost/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://hooks..example.org/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://user:pw@hooks.example.org/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://127.0.0.1/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://[::1]:8443/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://169.254.169.254/latest/meta-data"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://10.0.0.7/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "ftp://hooks.example.org/a"}, apitest.Beyond, "url"},
		{map[string]any{"url": "https://hooks.example.org/" + strings.Repeat("a", webhooks.MaxWebhookURL)}, apitest.MustFail, "url"},
		{map[string]any{"url": "https://hooks.example.org/a", "types": []string{"forecast.made"}}, apitest.MustFail, "types"},
		{map[string]any{"url": "https://hooks.example.org/a", "domain": "Cooking"}, apitest.MustFail, "domain"},
		{map[string]any{}, apitest.MustFail, "url"},
	} {
		resp, body := e.Do(t, http.MethodPost, path, apitest.JSONBody(t, tc.body), apitest.BearerH("ada"), tc.rv)
		if p := apitest.ProblemOf(t, body); resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(p.Error, tc.field+":") {
			t.Errorf("POST %v = %d %s, want 400 on %s", tc.body, resp.StatusCode, apitest.Trim(body), tc.field)
		}
	}

	// The cap, at its boundary: up to MaxWebhooksPerAgent, then 409.
	for i := 1; i < webhooks.MaxWebhooksPerAgent; i++ {
		e.Post(t, path, "ada", map[string]any{"url": fmt.Sprintf("https://hooks.example.org/%d", i)}, apitest.MustPass, http.StatusCreated)
	}
	resp, body = e.Do(t, http.MethodPost, path, apitest.JSONBody(t, map[string]any{"url": "https://hooks.example.org/x"}), apitest.BearerH("ada"), apitest.MustPass)
	if p := apitest.ProblemOf(t, body); resp.StatusCode != http.StatusConflict || !strings.HasPrefix(p.Error, "url"+":") {
		t.Errorf("POST over the cap = %d %s, want 409 on url", resp.StatusCode, apitest.Trim(body))
	}

	// Deleting frees a place.
	resp, body = e.Do(t, http.MethodDelete, path+"/"+id, nil, apitest.BearerH("ada"), apitest.MustPass)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE = %d %s", resp.StatusCode, apitest.Trim(body))
	}
	resp, _ = e.Do(t, http.MethodDelete, path+"/"+id, nil, apitest.BearerH("ada"), apitest.MustPass)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("DELETE again = %d, want 404", resp.StatusCode)
	}
	list := e.Do
	_, body = list(t, http.MethodGet, path, nil, apitest.BearerH("ada"), apitest.MustPass)
	if got := apitest.DecodeMap(t, body)["count"]; got != float64(webhooks.MaxWebhooksPerAgent-1) {
		t.Errorf("count after delete = %v, want %d", got, webhooks.MaxWebhooksPerAgent-1)
	}
	if got, want := apitest.DecodeMap(t, body)["summary"], fmt.Sprintf("ada has %d endpoints, 0 disabled.", webhooks.MaxWebhooksPerAgent-1); got != want {
		t.Errorf("summary after delete %q, want %q", got, want)
	}
	// The hints say how to fix the URL.
	for u, says := range map[string]string{
		"http://hooks.example.org/a": "--webhooks-allow-http",
		"https://example.org:99999/": "1 to 65535",
		"https://0x7f.1/a":           "127.0.0.1",
	} {
		_, body := e.Do(t, http.MethodPost, path, apitest.JSONBody(t, map[string]any{"url": u}), apitest.BearerH("ada"), apitest.Beyond)
		if p := apitest.ProblemOf(t, body); !strings.Contains(p.Error+" "+p.Hint, says) {
			t.Errorf("POST url %s = %s, want it to say %q", u, apitest.Trim(body), says)
		}
	}
	e.Post(t, path, "ada", map[string]any{"url": "https://hooks.example.org/again"}, apitest.MustPass, http.StatusCreated)
}

// TestWebhookLoopbackFlags: the operator's flags open http to loopback
// and private addresses.
func TestWebhookLoopbackFlags(t *testing.T) {
	s := apitest.OpenStore(t)
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, Webhooks: apitest.OpenWebhooks(t, s),
		WebhookURLs: webhooks.ClientOptions{AllowHTTPLoopback: true, AllowPrivate: true}})})
	for _, u := range []string{"http://127.0.0.1:9999/hook", "http://localhost:9999/hook", "https://10.0.0.7/hook"} {
		e.Post(t, "/api/agents/ada/webhooks", "ada", map[string]any{"url": u}, apitest.MustPass, http.StatusCreated)
	}
	resp, body := e.Do(t, http.MethodPost, "/api/agents/ada/webhooks", apitest.JSONBody(t, map[string]any{"url": "http://10.0.0.7/hook"}),
		apitest.BearerH("ada"), apitest.Beyond)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("http to a private address = %d %s, want 400", resp.StatusCode, apitest.Trim(body))
	}
}

// TestWebhookKeyMode: in key mode the owner's key, not its id, lists and
// registers its endpoints.
func TestWebhookKeyMode(t *testing.T) {
	e, _ := newKeyEnv(t)
	key := register(t, e, "ada", "", 201)
	const path = "/api/agents/ada/webhooks"
	body := apitest.JSONBody(t, map[string]any{"url": "https://hooks.example.org/a"})
	for _, tc := range []struct {
		method, auth string
		body         []byte
		want         int
	}{
		{http.MethodPost, "Bearer ada", body, http.StatusForbidden},
		{http.MethodGet, "Bearer ada", nil, http.StatusForbidden},
		{http.MethodPost, "Bearer " + key, body, http.StatusCreated},
		{http.MethodGet, "Bearer " + key, nil, http.StatusOK},
	} {
		resp, got := e.Do(t, tc.method, path, tc.body, http.Header{"Authorization": {tc.auth}, "Content-Type": {"application/json"}}, apitest.AnyValid)
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s with %s = %d %s, want %d", tc.method, path, tc.auth[:12], resp.StatusCode, apitest.Trim(got), tc.want)
		}
	}
}

// TestWebhookBoardCap: past the board's most active endpoints, any
// agent's registration is a 409 naming url, whose hint names the
// operator's flag; deleting one frees a place.
func TestWebhookBoardCap(t *testing.T) {
	s := apitest.OpenStore(t)
	eps, err := webhooks.Open(context.Background(), s, webhooks.Options{MaxActive: 2})
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, Webhooks: eps})})
	first := e.Post(t, "/api/agents/ada/webhooks", "ada", map[string]any{"url": "https://hooks.example.org/a"}, apitest.MustPass, http.StatusCreated)
	e.Post(t, "/api/agents/bob/webhooks", "bob", map[string]any{"url": "https://hooks.example.org/b"}, apitest.MustPass, http.StatusCreated)
	resp, body := e.Do(t, http.MethodPost, "/api/agents/cy/webhooks", apitest.JSONBody(t, map[string]any{"url": "https://hooks.example.org/c"}),
		apitest.BearerH("cy"), apitest.MustPass)
	if p := apitest.ProblemOf(t, body); resp.StatusCode != http.StatusConflict || !strings.HasPrefix(p.Error, "url:") || !strings.Contains(p.Hint, "--webhooks-max-endpoints") {
		t.Errorf("a registration past the board's bound = %d %s, want 409 on url naming --webhooks-max-endpoints", resp.StatusCode, apitest.Trim(body))
	}
	id := first["webhook"].(map[string]any)["id"].(string)
	if resp, body := e.Do(t, http.MethodDelete, "/api/agents/ada/webhooks/"+id, nil, apitest.BearerH("ada"), apitest.MustPass); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE = %d %s", resp.StatusCode, apitest.Trim(body))
	}
	e.Post(t, "/api/agents/cy/webhooks", "cy", map[string]any{"url": "https://hooks.example.org/c"}, apitest.MustPass, http.StatusCreated)
}

// TestWebhookRegistrationLimit: one client address registers at most
// RateLimit.Registration endpoints, whichever agents they are for (agent
// ids cost nothing); a registration refused for its input gives its
// budget back.
func TestWebhookRegistrationLimit(t *testing.T) {
	s := apitest.OpenStore(t)
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, Webhooks: apitest.OpenWebhooks(t, s)}),
		RateLimit: middleware.RateLimit{Registration: middleware.Rate{Events: 2, Per: time.Hour, Burst: 2}}})
	post := func(agent, url string) (int, httpapi.Problem) {
		rv := apitest.AnyValid
		if strings.Contains(url, "127.0.0.1") {
			rv = apitest.Beyond // an address rule no schema says
		}
		resp, body := e.Do(t, http.MethodPost, "/api/agents/"+agent+"/webhooks", apitest.JSONBody(t, map[string]any{"url": url}),
			apitest.BearerH(agent), rv)
		if resp.StatusCode == http.StatusCreated {
			return resp.StatusCode, httpapi.Problem{}
		}
		return resp.StatusCode, apitest.ProblemOf(t, body)
	}
	var got []int
	for _, r := range []struct{ agent, url string }{
		{"ada", "https://hooks.example.org/a"},
		{"bob", "https://127.0.0.1/b"}, // refused: its budget comes back
		{"bob", "https://hooks.example.org/b"},
		{"cy", "https://hooks.example.org/c"},
	} {
		status, p := post(r.agent, r.url)
		got = append(got, status)
		if status == http.StatusTooManyRequests && (!strings.HasPrefix(p.Error, "rate limit:") || !strings.Contains(p.Error, "registrations")) {
			t.Errorf("429 %q, want it to name the registrations' limit", p.Error)
		}
	}
	if diff := cmp.Diff([]int{201, 400, 201, 429}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}
