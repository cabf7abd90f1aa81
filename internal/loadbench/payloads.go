package loadbench

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// questions is four questions of a realistic forecast file (one open with
// notes and four forecasters, two resolved, one void), repeated with
// distinct ids by [ForecastFile].
//
//go:embed questions.md
var questions string

// MaxForecastChars is the length of the forecast file the check scenario
// sends: check_forecast_md's limit.
const MaxForecastChars = 60000

// ForecastFile returns a realistic forecast file of at most n characters
// (Unicode code points), as close to n as whole questions allow: a header,
// then the same four questions over and over, each copy with its own ids.
// It is deterministic.
func ForecastFile(n int) string {
	var b strings.Builder
	b.WriteString("---\npredictions: 1\nupdated: 2026-03-01\n---\n\nForecasts of the platform team, generated for the load benchmark.\n\n")
	chars := utf8.RuneCountInString(b.String())
	for i := 0; ; i++ {
		chunk := strings.ReplaceAll(questions, "- id: ", fmt.Sprintf("- id: r%d-", i)) + "\n"
		c := utf8.RuneCountInString(chunk)
		if chars+c > n {
			break
		}
		b.WriteString(chunk)
		chars += c
	}
	return b.String()
}

// Request bodies of the tool scenarios. Each is what an agent would send.
var (
	convertQuery = "value=%2B150&compare_to=2.5"
	convertBody  = []byte(`{"value":"+150","compare_to":"2.5"}`)
)

// combineBody pools ten forecasts given in the notations agents use.
func combineBody() []byte {
	ps := []string{`0.62`, `"35%"`, `55`, `0.7`, `0.4`, `"48%"`, `0.58`, `61`, `0.33`, `"0.5"`}
	var fs []string
	for i, p := range ps {
		f := fmt.Sprintf(`{"who":"agent:a%d","p":%s}`, i, p)
		if i == 2 {
			f = fmt.Sprintf(`{"who":"person","p":%s,"weight":2}`, p)
		}
		fs = append(fs, f)
	}
	return []byte(`{"forecasts":[` + strings.Join(fs, ",") + `],"method":"geo_odds","extremize":1.2}`)
}

// scoreBody scores 200 resolved forecasts by five forecasters.
func scoreBody() []byte {
	var fs []string
	for i := range 200 {
		p := float64((i*37)%99+1) / 100
		outcome := "no"
		if (i*53)%100 < int(p*100) {
			outcome = "yes"
		}
		fs = append(fs, fmt.Sprintf(`{"who":"agent:f%d","p":%g,"outcome":%q}`, i%5, p, outcome))
	}
	return []byte(`{"forecasts":[` + strings.Join(fs, ",") + `],"bins":10}`)
}

// checkBody checks a 60,000-character forecast file.
func checkBody() []byte {
	b, _ := json.Marshal(struct {
		Text  string `json:"text"`
		Today string `json:"today"`
	}{ForecastFile(MaxForecastChars), "2026-03-01"})
	return b
}

// mcpBody is an MCP tools/call of convert_odds with the arguments of the
// REST scenarios.
var mcpBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"convert_odds","arguments":{"value":"+150","compare_to":"2.5"}}}`)

// writeBody is the body of POST /api/predictions number i, by agent
// agent-(i mod agents).
func writeBody(i uint64, agents int) (agent string, body []byte) {
	agent = fmt.Sprintf("agent-%d", i%uint64(agents))
	domain := benchDomains[i%uint64(len(benchDomains))]
	body = fmt.Appendf(nil, `{"agent_id":%q,"title":"Load test prediction %d","body":"A prediction of typical length posted by the load benchmark: `+
		`the open-weight model ranks first on the public leaderboard before the end of the quarter.","confidence":%g,"timeframe":"Q4 2026","domain":%q}`,
		agent, i, float64(i%99+1)/100, domain)
	return agent, body
}

// benchDomains are the board's domains, as the seed and the writes use them.
var benchDomains = []string{"AI", "Politics", "Crypto", "Markets", "Science", "Geopolitics", "Tech",
	"Health", "Climate", "Space", "Sports", "Culture", "Other"}
