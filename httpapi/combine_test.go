package httpapi_test

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/tools"
)

// combined is the part of a combine_forecasts answer that the recency and
// skill pools change.
type combined struct {
	Method    string        `json:"method"`
	P         float64       `json:"p"`
	Median    float64       `json:"median"`
	Recency   float64       `json:"recency"`
	Skill     float64       `json:"skill"`
	N         int           `json:"n"`
	Forecasts []combinedRow `json:"forecasts"`
}

type combinedRow struct {
	P     float64  `json:"p"`
	At    string   `json:"at"`
	Skill *float64 `json:"skill"`
}

// TestCombineForecastsTimed pools over HTTP with the items' times and
// skills. The expected values are worked by hand: the n-th of N forecasts
// by time has the recency weight e^(√n − √N); for N = 3 these are 0.4809,
// 0.7277 and 1, for N = 4 0.3679, 0.5567, 0.7649 and 1; a skill s
// multiplies a weight by e^(0.08·s), and the skill pool multiplies the
// mean log-odds by 1.2 from 3 forecasts on.
func TestCombineForecastsTimed(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	path := tools.PathPrefix + "/combine_forecasts"
	logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
	logistic := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	w4 := []float64{math.Exp(1 - 2), math.Exp(math.Sqrt(2) - 2), math.Exp(math.Sqrt(3) - 2), 1}
	r31, r32 := math.Exp(1-math.Sqrt(3)), math.Exp(math.Sqrt(2)-math.Sqrt(3))
	four := `[{"p":0.8,"at":"2026-11-20T11:00:00Z"},{"p":0.1,"at":"2026-11-20T09:00:00Z"},` +
		`{"p":0.9,"at":"2026-11-20T12:00:00Z"},{"p":0.2,"at":"2026-11-20T10:00:00Z"}]`
	// By time 0.1, 0.2, 0.8, 0.9: sorted by p the cumulative recency
	// weights reach 0.3679, 0.9246, then 1.6895, past half of 2.6895, at
	// 0.8. The skill pool, all skills 0: the log-odds weighted by w4,
	// times 1.2.
	fourSkill := logistic(1.2 * (w4[0]*logit(0.1) + w4[1]*logit(0.2) + w4[2]*logit(0.8) + w4[3]*logit(0.9)) /
		(w4[0] + w4[1] + w4[2] + w4[3]))
	fourRows := []combinedRow{{P: 0.8, At: "2026-11-20T11:00:00Z"}, {P: 0.1, At: "2026-11-20T09:00:00Z"},
		{P: 0.9, At: "2026-11-20T12:00:00Z"}, {P: 0.2, At: "2026-11-20T10:00:00Z"}}
	tests := []struct {
		name   string
		method string // POST, or GET with the body's fields as the query
		body   string
		want   combined
	}{
		{
			"recency leads", http.MethodPost, `{"forecasts":` + four + `,"method":"recency"}`,
			combined{Method: "recency", P: 0.8, Median: 0.5, Recency: 0.8, Skill: fourSkill, N: 4, Forecasts: fourRows},
		},
		{
			"recency leads, GET", http.MethodGet, `{"forecasts":` + four + `,"method":"recency"}`,
			combined{Method: "recency", P: 0.8, Median: 0.5, Recency: 0.8, Skill: fourSkill, N: 4, Forecasts: fourRows},
		},
		{
			// 10:00+01:00 is 09:00Z, the time of the first: the tie keeps
			// the list order, so by time 0.2, 0.5 (skill 3), 0.9 (skill
			// −2.5) weigh 0.4809, 0.7277·e^0.24 and e^−0.2. Recency: 0.2
			// holds 0.4809, 0.5 brings 1.2086, past half of 2.2086.
			"skill leads, skills and offsets", http.MethodPost,
			`{"forecasts":[{"p":0.2,"at":"2026-11-20T09:00:00Z"},{"p":0.5,"at":"2026-11-20T10:00:00+01:00","skill":3},` +
				`{"p":"90%","at":"2026-11-20T09:30:00Z","skill":-2.5}],"method":"skill"}`,
			combined{Method: "skill", P: 0.6481023182063148, Median: 0.5, Recency: 0.5, Skill: 0.6481023182063148, N: 3,
				Forecasts: []combinedRow{{P: 0.2, At: "2026-11-20T09:00:00Z"}, {P: 0.5, At: "2026-11-20T09:00:00Z", Skill: new(3.0)},
					{P: 0.9, At: "2026-11-20T09:30:00Z", Skill: new(-2.5)}}},
		},
		{
			// No times: the list order, oldest first. Skill: (−0.4809·ln 4
			// + ln 9)/2.2086, times 1.2.
			"no times keep the list order", http.MethodPost,
			`{"forecasts":[{"p":"20%"},{"p":"50%"},{"p":"90%"}],"method":"skill"}`,
			combined{Method: "skill", P: logistic(1.2 * (-r31*math.Log(4) + math.Log(9)) / (r31 + r32 + 1)), Median: 0.5, Recency: 0.5,
				Skill: logistic(1.2 * (-r31*math.Log(4) + math.Log(9)) / (r31 + r32 + 1)), N: 3,
				Forecasts: []combinedRow{{P: 0.2}, {P: 0.5}, {P: 0.9}}},
		},
		{
			// Two forecasts: no recency weights and no extremizing;
			// skills 0 (null) and 10 weigh 1 and e^0.8. Recency is the
			// median of the two.
			"two, null skill and time", http.MethodPost,
			`{"forecasts":[{"p":0.2,"skill":null,"at":null},{"p":0.6,"skill":10,"at":"2026-11-20T09:00:00.5Z"}]}`,
			combined{Method: "geo_odds", P: logistic((logit(0.2) + logit(0.6)) / 2), Median: 0.4, Recency: 0.4,
				Skill: logistic((logit(0.2) + math.Exp(0.8)*logit(0.6)) / (1 + math.Exp(0.8))), N: 2,
				Forecasts: []combinedRow{{P: 0.2}, {P: 0.6, At: "2026-11-20T09:00:00.5Z", Skill: new(10.0)}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp *http.Response
			var body []byte
			if tt.method == http.MethodGet {
				resp, body = e.Do(t, http.MethodGet, path+"?"+apitest.QueryOf(t, []byte(tt.body)), nil, nil, apitest.MustPass)
			} else {
				resp, body = e.Do(t, http.MethodPost, path, []byte(tt.body), nil, apitest.MustPass)
			}
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, want 200: %s", resp.StatusCode, apitest.Trim(body))
			}
			var got combined
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("combine_forecasts %s (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

// TestCombineForecastsTimedErrors: a bad time or skill is a 400 naming
// the item's field, with how to fix it.
func TestCombineForecastsTimedErrors(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	path := tools.PathPrefix + "/combine_forecasts"
	const timeHint = `send an RFC 3339 time with its offset, such as "2026-11-20T17:05:00Z" (UTC) or "2026-11-20T18:05:00+01:00"`
	tests := []struct {
		name string
		body string
		// rv: what openapi.json says of the request. A string that is not
		// a time is one it allows (a format is not checked).
		rv   apitest.ReqValid
		want httpapi.Problem // Docs, Disclaimer and Terms are not compared
	}{
		{
			"month 13", `{"forecasts":[{"p":0.2},{"p":0.5},{"p":0.9,"at":"2026-13-20T09:00:00Z"}]}`, apitest.Beyond,
			httpapi.Problem{Error: `forecasts[2].at: is "2026-13-20T09:00:00Z", which is not an RFC 3339 time`, Hint: timeHint},
		},
		{
			"a date without a time", `{"forecasts":[{"p":0.2,"at":"2026-11-20"}],"method":"recency"}`, apitest.Beyond,
			httpapi.Problem{Error: `forecasts[0].at: is "2026-11-20", which is not an RFC 3339 time`, Hint: timeHint},
		},
		{
			"a time without its offset", `{"forecasts":[{"p":0.2},{"p":0.4,"at":"2026-11-20T09:00:00"}]}`, apitest.Beyond,
			httpapi.Problem{Error: `forecasts[1].at: is "2026-11-20T09:00:00", which is not an RFC 3339 time`, Hint: timeHint},
		},
		{
			"a long string is cut", `{"forecasts":[{"p":0.2,"at":"` + "tomorrow at nine, or thereabouts, give or take an hour" + `"}]}`, apitest.Beyond,
			httpapi.Problem{Error: `forecasts[0].at: is "tomorrow at nine, or thereabouts, give o…", which is not an RFC 3339 time`, Hint: timeHint},
		},
		{
			"a number for a time", `{"forecasts":[{"p":0.2,"at":1763629200}]}`, apitest.MustFail,
			httpapi.Problem{Error: "forecasts[0].at: must be a string, not a number"},
		},
		{
			"skill above the bound", `{"forecasts":[{"p":0.2},{"p":0.5,"skill":1000.5}],"method":"skill"}`, apitest.MustFail,
			httpapi.Problem{Error: "forecasts[1].skill: is 1000.5; it must be at most 1000", Hint: "use a number from -1000 to 1000"},
		},
		{
			"skill below the bound", `{"forecasts":[{"p":0.2,"skill":-2e3}]}`, apitest.MustFail,
			httpapi.Problem{Error: "forecasts[0].skill: is -2000; it must be at least -1000", Hint: "use a number from -1000 to 1000"},
		},
		{
			"skill as a string", `{"forecasts":[{"p":0.2,"skill":"10"}]}`, apitest.MustFail,
			httpapi.Problem{Error: "forecasts[0].skill: must be a number, not a string"},
		},
		{
			"unknown method", `{"forecasts":[{"p":0.2}],"method":"recent"}`, apitest.MustFail,
			httpapi.Problem{Error: `method: is "recent", which is not one of the allowed values`, Hint: "use one of: geo_odds, mean, median, recency, skill"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := e.Do(t, http.MethodPost, path, []byte(tt.body), nil, tt.rv)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", resp.StatusCode, apitest.Trim(body))
			}
			p := apitest.ProblemOf(t, body)
			got := httpapi.Problem{Error: p.Error}
			if tt.want.Hint != "" {
				got.Hint = p.Hint
			} else if p.Hint == "" {
				t.Errorf("no hint: %s", body)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("combine_forecasts %s (-want +got):\n%s", tt.body, diff)
			}
		})
	}
	// The same through GET, where the items come as one JSON parameter.
	q := url.Values{"forecasts": {`[{"p":0.2,"at":"yesterday"}]`}}
	resp, body := e.Do(t, http.MethodGet, path+"?"+q.Encode(), nil, nil, apitest.Beyond)
	if p := apitest.ProblemOf(t, body); resp.StatusCode != http.StatusBadRequest || p.Error != `forecasts[0].at: is "yesterday", which is not an RFC 3339 time` {
		t.Errorf("GET with a bad time: %d %s", resp.StatusCode, apitest.Trim(body))
	}
}
