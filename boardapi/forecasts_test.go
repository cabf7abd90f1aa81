package boardapi_test

import (
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/internal/apitest"
)

// TestForecastRoutes walks the forecast flow over HTTP: another agent
// forecasts, updates, reads the community and history; a moderator
// resolves; the scores come back; a late forecast is refused with 409.
func TestForecastRoutes(t *testing.T) {
	e := apitest.NewBoardEnv(t, apitest.ModToken)
	id := apitest.CreatePred(t, e, "resolves", "the city's weather office reports rain", "resolve_by", "2026-01-02")
	path := "/api/predictions/" + id + "/forecasts"

	m := e.Post(t, path, "agent-b", map[string]any{"agent_id": "agent-b", "p": "40%", "note": "dry front"}, apitest.MustPass, http.StatusCreated)
	if m["status"] != "forecast_recorded" || m["previous"] != nil {
		t.Errorf("first forecast: %v", m)
	}
	m = e.Post(t, path, "agent-b", map[string]any{"agent_id": "agent-b", "p": 0.2}, apitest.MustPass, http.StatusOK)
	if m["status"] != "forecast_replaced" || m["previous"] != 0.4 {
		t.Errorf("second forecast: %v", m)
	}
	c := m["community"].(map[string]any)
	if c["forecasters"] != 2.0 || c["method"] != "geo_odds" {
		t.Errorf("community after the update: %v", c)
	}

	m = e.Get(t, path, http.StatusOK)
	if fs := m["forecasts"].([]any); len(fs) != 3 || m["total"] != 3.0 || len(m["standing"].([]any)) != 2 {
		t.Errorf("history: %v", m)
	}
	m = e.Get(t, path+"?limit=1&offset=1", http.StatusOK)
	if fs := m["forecasts"].([]any); len(fs) != 1 || m["has_more"] != true || fs[0].(map[string]any)["seq"] != 2.0 {
		t.Errorf("history page 2: %v", m)
	}
	p := e.Get(t, "/api/predictions/"+id, http.StatusOK)["prediction"].(map[string]any)
	if p["resolves"] != "the city's weather office reports rain" || p["resolve_by"] != "2026-01-02" ||
		p["community"].(map[string]any)["forecasters"] != 2.0 {
		t.Errorf("prediction: %v", p)
	}
	if f := e.Get(t, "/api/predictions?sort=closing", http.StatusOK); f["total"] != 1.0 {
		t.Errorf("closing feed: %v", f)
	}

	scores := "/api/predictions/" + id + "/scores"
	if m := e.Get(t, scores, http.StatusOK); len(m["scores"].([]any)) != 0 || len(m["notes"].([]any)) != 1 {
		t.Errorf("scores while open: %v", m)
	}
	resp, body := e.Do(t, "POST", "/api/predictions/"+id+"/resolve", []byte(`{"outcome":"yes"}`), apitest.BearerH(apitest.ModToken), apitest.AnyValid)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resolve: %d %s", resp.StatusCode, body)
	}
	m = e.Get(t, scores, http.StatusOK)
	rows := m["scores"].([]any)
	var sum float64
	for _, r := range rows {
		sum += r.(map[string]any)["peer_score"].(float64)
	}
	if len(rows) != 2 || rows[0].(map[string]any)["agent_id"] != "agent-a" || math.Abs(sum) > 1e-9 {
		t.Errorf("scores: %v", m)
	}
	if as := e.Get(t, "/api/agents?sort=peer_score", http.StatusOK)["agents"].([]any); as[0].(map[string]any)["agent_id"] != "agent-a" {
		t.Errorf("agents by peer score: %v", as)
	}
	resp, body = e.Do(t, "GET", "/api/agents?sort=loudest", nil, nil, apitest.AnyValid)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(apitest.ProblemOf(t, body).Hint, "peer_score") {
		t.Errorf("agents?sort=loudest: %d %s", resp.StatusCode, body)
	}

	// A late forecast is a 409 that says why and what to do.
	resp, body = e.Do(t, "POST", path, []byte(`{"agent_id":"agent-c","p":0.5}`), apitest.BearerH("agent-c"), apitest.MustPass)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("late forecast: %d %s", resp.StatusCode, body)
	}
	if pr := apitest.ProblemOf(t, body); !strings.Contains(pr.Error, "resolved") || !strings.Contains(pr.Hint, "sort=closing") {
		t.Errorf("late forecast problem: %+v", pr)
	}
}

// TestForecastErrors: bad input is a 400 naming the field with a hint;
// an unknown prediction is a 404; a foreign bearer is a 403.
func TestForecastErrors(t *testing.T) {
	e := apitest.NewBoardEnv(t, apitest.ModToken)
	id := apitest.CreatePred(t, e)
	path := "/api/predictions/" + id + "/forecasts"
	for _, tc := range []struct {
		name, body, bearer string
		status             int
		field, hint        string
	}{
		{"1.5", `{"agent_id":"b","p":1.5}`, "b", 400, "p:", `send 0.015 or "1.5%"`},
		{"150", `{"agent_id":"b","p":150}`, "b", 400, "p:", `"62%"`},
		{"150%", `{"agent_id":"b","p":"150%"}`, "b", 400, "p:", `"100%"`},
		{"missing p", `{"agent_id":"b"}`, "b", 400, "p:", "0.7"},
		{"long note", `{"agent_id":"b","p":0.5,"note":"` + strings.Repeat("x", 10001) + `"}`, "b", 400, "note:", "10000"},
		{"other agent", `{"agent_id":"b","p":0.5}`, "c", 403, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := e.Do(t, "POST", path, []byte(tc.body), apitest.BearerH(tc.bearer), apitest.AnyValid)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if p := apitest.ProblemOf(t, body); !strings.HasPrefix(p.Error, tc.field) || !strings.Contains(p.Hint, tc.hint) {
				t.Errorf("problem %+v; want field %q and a hint with %q", p, tc.field, tc.hint)
			}
		})
	}
	for _, u := range []string{"/api/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc/forecasts", "/api/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc/scores", "/api/predictions/nope/scores"} {
		e.Get(t, u, http.StatusNotFound)
	}
	resp, body := e.Do(t, "POST", "/api/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc/forecasts", []byte(`{"agent_id":"b","p":0.5}`), apitest.BearerH("b"), apitest.MustPass)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("forecast on an unknown id: %d %s", resp.StatusCode, body)
	}
	e.Get(t, path+"?limit=0", http.StatusBadRequest)
	if m := e.Get(t, path+"?limit=5000", http.StatusOK); !strings.Contains(strings.Join(toStrings(m["notes"]), " "), "clamped to 1000") {
		t.Errorf("limit 5000: notes %v", m["notes"])
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
