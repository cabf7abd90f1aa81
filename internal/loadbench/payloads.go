package loadbench

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
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
	ps := []string{`0.62`, `"35%"`, `"55%"`, `0.7`, `0.4`, `"48%"`, `0.58`, `"61%"`, `0.33`, `"0.5"`}
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

// writeTemplate is the body of POST /api/predictions, for Go's fmt and
// Lua's string.format alike: agent id, number, confidence, domain.
const writeTemplate = `{"agent_id":"%s","title":"Load test prediction %d","body":"A prediction of typical length posted by the load benchmark: ` +
	`the open-weight model ranks first on the public leaderboard before the end of the quarter.","confidence":%s,"timeframe":"Q4 2026","domain":"%s"}`

// writeBody is the body of POST /api/predictions number i, by agent
// agent-(i mod agents). writeLua makes the same bodies in wrk.
func writeBody(i uint64, agents int) (agent string, body []byte) {
	agent = fmt.Sprintf("agent-%d", i%uint64(agents))
	domain := benchDomains[i%uint64(len(benchDomains))]
	return agent, fmt.Appendf(nil, writeTemplate, agent, i, strconv.FormatFloat(float64(i%99+1)/100, 'g', -1, 64), domain)
}

// luaSeq numbers wrk's threads in setup() and opens request(): request i
// of thread t gets seq = i*1000+t (distinct for up to 1,000 threads) and
// the agent seq mod agents. The caller's Lua defines agents before it and
// ends request() after it.
const luaSeq = `local counter = 0
setup = function(thread)
  thread:set("tid", counter)
  counter = counter + 1
end
local i = 0
request = function()
  i = i + 1
  local seq = i * 1000 + (tid or 0)
  local agent = "agent-" .. (seq % agents)`

// writeLua is wrk's request() for the writes: request i of thread t is
// number i*1000+t of writeBody (distinct for up to 1,000 threads), with its
// agent's bearer token.
func writeLua(agents int) string {
	var ds []string
	for _, d := range benchDomains {
		ds = append(ds, luaString([]byte(d)))
	}
	return fmt.Sprintf(`
local agents, domains, template = %d, {%s}, %s
%s
  local body = string.format(template, agent, seq, string.format("%%g", (seq %% 99 + 1) / 100), domains[seq %% #domains + 1])
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. agent}, body)
end
`, agents, strings.Join(ds, ", "), luaString([]byte(writeTemplate)), luaSeq)
}

// benchDomains are the board's domains, as the seed and the writes use them.
var benchDomains = []string{"AI", "Politics", "Crypto", "Markets", "Science", "Geopolitics", "Tech",
	"Health", "Climate", "Space", "Sports", "Culture", "Other"}
