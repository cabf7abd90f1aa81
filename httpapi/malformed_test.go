package httpapi_test

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/tools"
)

// malformed is one bad request and the answer it must get: a 4xx Problem
// whose error starts with the field named.
type malformed struct {
	name   string
	method string
	target string      // request target as sent; {pid} and {rid} are replaced
	header http.Header // nil: the route's defaults (see defaultHeader)
	body   string      // sent when method is not GET, even if empty
	length string      // Content-Length to announce instead of len(body)
	status int
	field  string // the Problem's error must start with field + ": "
	// beyond says why openapi.json allows the request although the
	// server refuses it with 400: a rule no schema can state. Empty: the
	// document refuses what the server refuses.
	beyond string
}

const (
	agentA    = "agent-a"
	modSecret = "mod-secret"
	unknownID = "0190f5a2-7b3c-7d4e-8f90-123456789abc" // a UUID no prediction has
)

// hdr builds a header from pairs; a name given twice is sent twice.
func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// defaultHeader is what a row without its own header sends: JSON for a
// body, and the bearer a board POST needs (the moderator's for resolve).
func defaultHeader(m malformed) http.Header {
	h := http.Header{}
	if m.method != http.MethodGet {
		h.Set("Content-Type", "application/json")
	}
	if m.method == http.MethodPost && strings.HasPrefix(m.target, boardapi.BoardPrefix+"/predictions") {
		if strings.Contains(m.target, "/resolve") {
			h.Set("Authorization", "Bearer "+modSecret)
		} else {
			h.Set("Authorization", "Bearer "+agentA)
		}
	}
	return h
}

// rawResponse is what the server answered on the wire.
type rawResponse struct {
	status int
	header http.Header
	body   []byte
}

// sendRaw writes the request byte for byte on a new connection, so that
// targets, headers and Content-Length are sent exactly as given, and reads
// the answer.
func sendRaw(t *testing.T, addr, method, target string, header http.Header, body []byte, length string) rawResponse {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, addr)
	keys := make([]string, 0, len(header))
	for k := range header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range header[k] {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	switch {
	case length != "":
		fmt.Fprintf(&b, "Content-Length: %s\r\n", length)
	case method != http.MethodGet:
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n")
	// A server that refuses early may close before it has read the whole
	// body; the answer is still there to read.
	go func() { _, _ = conn.Write(append([]byte(b.String()), body...)) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, trimTarget(target), err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, trimTarget(target), err)
	}
	return rawResponse{status: resp.StatusCode, header: resp.Header, body: got}
}

func trimTarget(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// toolBad is a bad value for one field of a tool and the field the
// Problem must name, for POST (value spliced into the example body) and
// for GET (value as the query parameter's text; "" when the text reads as
// valid input over GET, and the row is not sent).
type toolBad struct {
	kind      string
	raw       string // JSON text of the value; need not be valid JSON
	post      string
	get       string
	getStatus int // 0 means 400
}

var (
	deepArray  = strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	deepObject = strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	badUTF8    = "\"\xff\xfe\xfd\""
	rawControl = "\"a\x01b\""
	long50k    = `"` + strings.Repeat("9", 50000) + `"`
)

// toolBadValues lists, per tool, the field made bad and the values tried.
// Each kind of bad value appears for every tool where it means something.
func toolBadValues() []struct {
	tool, field string
	values      []toolBad
} {
	// scalar lists the bad values of a field that takes a string or a
	// number (an odds value, a probability); every one names the field
	// except where POST cannot parse the body at all.
	scalar := func(f string, extra ...toolBad) []toolBad {
		return append([]toolBad{
			{"object", `{"a":1}`, f, f, 0},
			{"array", `[1,2]`, f, f, 0},
			{"boolean", `true`, f, f, 0},
			{"null", `null`, f, f, 0},
			{"NaN", `NaN`, "body", f, 0},
			{"Infinity", `Infinity`, "body", f, 0},
			{"-Infinity", `-Infinity`, "body", f, 0},
			{"huge number 1e400", `1e400`, f, f, 0},
			{"huge negative -1e400", `-1e400`, f, f, 0},
			{"negative number", `-5`, f, f, 0},
			{"deep nesting 10,000 arrays", deepArray, f, f, 0},
			{kind: "deep nesting 10,000 objects", raw: deepObject, post: f, get: "query", getStatus: 414}, // 10,000 levels overflow a GET query
			{"invalid UTF-8", badUTF8, f, f, 0},
			{"lone surrogate escape", `"\udc00"`, f, "", 0},
			{"raw control character", rawControl, "body", f, 0},
			{"escaped NUL", `"\u0000"`, f, f, 0},
			{"overlong string", long50k, f, f, 0},
			{"empty string", `""`, f, f, 0},
		}, extra...)
	}
	// array lists the bad values of a field that takes an array of objects.
	array := func(f string, extra ...toolBad) []toolBad {
		return append([]toolBad{
			{"string", `"x"`, f, f, 0},
			{"number", `5`, f, f, 0},
			{"object", `{"p":0.5}`, f, f, 0},
			{"null", `null`, f, f, 0},
			{"array of numbers", `[1,2,3]`, f + "[0]", f + "[0]", 0},
			{"array of strings", `["a","b"]`, f + "[0]", f + "[0]", 0},
			{"NaN", `NaN`, "body", f, 0},
			{"Infinity", `Infinity`, "body", f, 0},
			{"huge number", `1e400`, f, f, 0},
			// The first item is an array, not an object: named as such before the depth.
			{"deep nesting 10,000 arrays", deepArray, f + "[0]", f + "[0]", 0},
			{kind: "deep nesting 10,000 objects", raw: deepObject, post: f, get: "query", getStatus: 414},
			{"broken JSON", `[{"p":`, "body", f, 0},
			{"trailing comma", `[{"p":0.5},]`, "body", f, 0},
			{"empty array", `[]`, f, f, 0},
		}, extra...)
	}
	items := func(n int, item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	return []struct {
		tool, field string
		values      []toolBad
	}{
		{"convert_odds", "value", scalar("value",
			toolBad{"certain probability 1", `1`, "value", "value", 0},
			toolBad{"probability 0 as negative zero", `-0`, "value", "value", 0},
			toolBad{"underflow 1e-400", `1e-400`, "value", "value", 0},
			toolBad{"exponent 1e400 as a percent", `"1e400%"`, "value", "value", 0},
		)},
		{"convert_odds", "from", []toolBad{
			{"unknown notation", `"roman"`, "from", "from", 0},
			{"number", `5`, "from", "from", 0},
			{"invalid UTF-8", badUTF8, "from", "from", 0},
		}},
		{"implied_probabilities", "outcomes", array("outcomes",
			toolBad{"one item (minimum 2)", items(1, `{"odds":"2.0"}`), "outcomes", "outcomes", 0},
			toolBad{"31 items (maximum 30)", items(31, `{"odds":"2.0"}`), "outcomes", "outcomes", 0},
			toolBad{"odds NaN in an item", `[{"odds":NaN},{"odds":"2.0"}]`, "body", "outcomes", 0},
			toolBad{"odds 1e400 in an item", `[{"odds":1e400},{"odds":"2.0"}]`, "outcomes[0].odds", "outcomes[0].odds", 0},
			toolBad{"odds invalid UTF-8 in an item", "[{\"odds\":\"\xff\"},{\"odds\":\"2.0\"}]", "outcomes[0].odds", "outcomes", 0},
			toolBad{"odds lone surrogate in an item", `[{"odds":"\ud800x"},{"odds":"2.0"}]`, "outcomes[0].odds", "outcomes[0].odds", 0},
			toolBad{"label of 61 characters", `[{"label":"` + strings.Repeat("x", 61) + `","odds":"2.0"},{"odds":"3.0"}]`, "outcomes[0].label", "outcomes[0].label", 0},
		)},
		{"implied_probabilities", "method", []toolBad{
			{"unknown method", `"magic"`, "method", "method", 0},
			{"array", `["shin"]`, "method", "method", 0},
		}},
		{"combine_forecasts", "forecasts", array("forecasts",
			toolBad{"101 items (maximum 100)", items(101, `{"p":0.5}`), "forecasts", "forecasts", 0},
			toolBad{"p above 100", `[{"p":101}]`, "forecasts[0].p", "forecasts[0].p", 0},
			toolBad{"p 1e400", `[{"p":1e400}]`, "forecasts[0].p", "forecasts[0].p", 0},
			toolBad{"p exponent 1e3", `[{"p":1e3}]`, "forecasts[0].p", "forecasts[0].p", 0},
			toolBad{"weight negative", `[{"p":0.5,"weight":-1}]`, "forecasts[0].weight", "forecasts[0].weight", 0},
			toolBad{"duplicate key in an item", `[{"p":0.5,"p":0.6}]`, "forecasts[0].p", "forecasts[0].p", 0},
		)},
		{"combine_forecasts", "extremize", []toolBad{
			{"below the minimum", `0.5`, "extremize", "extremize", 0},
			{"exponent 5e0", `5e0`, "extremize", "extremize", 0},
			{"negative zero", `-0`, "extremize", "extremize", 0},
			{"string", `"x"`, "extremize", "extremize", 0},
			{"NaN", `NaN`, "body", "extremize", 0},
			{"1e400", `1e400`, "extremize", "extremize", 0},
		}},
		{"bayes_update", "prior", scalar("prior",
			toolBad{"percent above 100", `"150%"`, "prior", "prior", 0},
			toolBad{"exponent 1e3", `1e3`, "prior", "prior", 0},
		)},
		{"bayes_update", "evidence", array("evidence",
			toolBad{"51 items (maximum 50)", items(51, `{"lr":2}`), "evidence", "evidence", 0},
			toolBad{"lr negative", `[{"lr":-2}]`, "evidence[0].lr", "evidence[0].lr", 0},
			toolBad{"p_if_yes above 1", `[{"p_if_yes":1.5,"p_if_no":0.5}]`, "evidence[0].p_if_yes", "evidence[0].p_if_yes", 0},
		)},
		{"score_forecasts", "forecasts", array("forecasts",
			toolBad{"201 items (maximum 200)", items(201, `{"p":0.5,"outcome":"yes"}`), "forecasts", "forecasts", 0},
			toolBad{"outcome unknown", `[{"p":0.5,"outcome":"maybe"}]`, "forecasts[0].outcome", "forecasts[0].outcome", 0},
			toolBad{"outcome 2", `[{"p":0.5,"outcome":2}]`, "forecasts[0].outcome", "forecasts[0].outcome", 0},
			toolBad{"outcome missing", `[{"p":0.5}]`, "forecasts[0].outcome", "forecasts[0].outcome", 0},
		)},
		{"score_forecasts", "bins", []toolBad{
			{"fraction", `2.5`, "bins", "bins", 0},
			{"exponent 1e2", `1e2`, "bins", "bins", 0},
			{"negative zero", `-0`, "bins", "bins", 0},
			{"huge 1e400", `1e400`, "bins", "bins", 0},
			{"string", `"ten"`, "bins", "bins", 0},
			{"NaN", `NaN`, "body", "bins", 0},
			{"Infinity", `Infinity`, "body", "bins", 0},
			{"array", `[5]`, "bins", "bins", 0},
		}},
		{"check_forecast_md", "text", []toolBad{
			{"number", `5`, "text", "", 0},
			{"object", `{"a":1}`, "text", "", 0},
			{"array", `["# q"]`, "text", "", 0},
			{"null", `null`, "text", "", 0},
			{"empty string", `""`, "text", "text", 0},
			{"NaN", `NaN`, "body", "", 0},
			{"invalid UTF-8", badUTF8, "text", "text", 0},
			{"raw control character", rawControl, "body", "", 0},
			{"deep nesting 10,000 arrays", deepArray, "text", "", 0},
			{"60,001 characters", `"` + strings.Repeat("x", 60001) + `"`, "text", "text", 0},
		}},
		{"check_forecast_md", "today", []toolBad{
			{"not a date", `"yesterday"`, "today", "today", 0},
			{"number", `20261122`, "today", "today", 0},
			{"invalid UTF-8", badUTF8, "today", "today", 0},
			{"month 13", `"2026-13-01"`, "today", "today", 0},
		}},
		{"build_settings", "preset", []toolBad{
			{"unknown preset", `"lax"`, "preset", "preset", 0},
			{"number", `5`, "preset", "preset", 0},
			{"NaN", `NaN`, "body", "preset", 0},
			{"invalid UTF-8", badUTF8, "preset", "preset", 0},
			{"escaped NUL", `"\u0000"`, "preset", "preset", 0},
			{"deep nesting 10,000 arrays", deepArray, "preset", "preset", 0},
			{"overlong string", long50k, "preset", "preset", 0},
		}},
		{"build_settings", "min_forecasters", []toolBad{
			{"unknown word", `"many"`, "min_forecasters", "min_forecasters", 0},
			{"boolean", `true`, "min_forecasters", "min_forecasters", 0},
			{"Infinity", `Infinity`, "body", "min_forecasters", 0},
			{"1e400", `1e400`, "min_forecasters", "min_forecasters", 0},
		}},
	}
}

// spliceBody is the tool's example with field set to raw, keys sorted.
func spliceBody(t testing.TB, tl *tools.Tool, field, raw string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(tl.Example, &m); err != nil {
		t.Fatal(err)
	}
	keys := []string{field}
	for k := range m {
		if k != field {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if k == field {
			b.WriteString(raw)
		} else {
			b.Write(m[k])
		}
	}
	b.WriteByte('}')
	return b.String()
}

// spliceQuery is the tool's example as a query string, with field set to
// the text of raw: a JSON string's contents (its bytes between the quotes
// when it does not decode), else raw itself.
func spliceQuery(t testing.TB, tl *tools.Tool, field, raw string) string {
	t.Helper()
	q, err := url.ParseQuery(apitest.QueryOf(t, tl.Example))
	if err != nil {
		t.Fatal(err)
	}
	text := raw
	var s string
	if !utf8.ValidString(raw) && len(raw) >= 2 && raw[0] == '"' {
		text = raw[1 : len(raw)-1] // the bad bytes as they are, percent-encoded
	} else if strings.HasPrefix(raw, `"`) && json.Unmarshal([]byte(raw), &s) == nil {
		text = s
	} else if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		text = raw[1 : len(raw)-1]
	}
	q.Set(field, text)
	return q.Encode()
}

// toolRows generates the rows of the seven tools: each bad value over POST
// and GET, then the defects of a body, a query and a method every tool
// must refuse alike.
func toolRows(t testing.TB) []malformed {
	var rows []malformed
	for _, g := range toolBadValues() {
		tl := tools.Lookup(g.tool)
		if tl == nil {
			t.Fatalf("no tool %q", g.tool)
		}
		path := tools.PathPrefix + "/" + g.tool
		for _, v := range g.values {
			rows = append(rows, malformed{name: fmt.Sprintf("%s %s %s POST", g.tool, g.field, v.kind),
				method: http.MethodPost, target: path, body: spliceBody(t, tl, g.field, v.raw), status: 400, field: v.post})
			if v.get != "" {
				rows = append(rows, malformed{name: fmt.Sprintf("%s %s %s GET", g.tool, g.field, v.kind),
					method: http.MethodGet, target: path + "?" + spliceQuery(t, tl, g.field, v.raw), status: cmp.Or(v.getStatus, 400), field: v.get})
			}
		}
	}
	for _, tl := range tools.All() {
		path := tools.PathPrefix + "/" + tl.Name
		ex := string(tl.Example)
		firstKey := func() string {
			var m map[string]json.RawMessage
			_ = json.Unmarshal(tl.Example, &m)
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return keys[0]
		}()
		dup := strings.Replace(ex, "{", `{"`+firstKey+`":null,`, 1)
		q := spliceQuery(t, tl, firstKey, "null") // any valid-looking query
		for _, r := range []malformed{
			{name: "empty body", method: "POST", body: "", status: 400, field: "body"},
			{name: "white space only", method: "POST", body: " \n\t ", status: 400, field: "body"},
			{name: "JSON null", method: "POST", body: "null", status: 400, field: "body"},
			{name: "JSON array", method: "POST", body: "[" + ex + "]", status: 400, field: "body"},
			{name: "JSON string", method: "POST", body: `"` + tl.Name + `"`, status: 400, field: "body"},
			{name: "trailing object", method: "POST", body: ex + "{}", status: 400, field: "body"},
			{name: "trailing garbage", method: "POST", body: ex + "garbage", status: 400, field: "body"},
			{name: "unterminated object", method: "POST", body: strings.TrimSuffix(ex, "}"), status: 400, field: "body"},
			{name: "byte order mark", method: "POST", body: "\ufeff" + ex, status: 400, field: "body"},
			{name: "invalid UTF-8 key", method: "POST", body: strings.Replace(ex, "{", "{\"\xff\":1,", 1), status: 400, field: "\ufffd"},
			{name: "duplicate top-level key", method: "POST", body: dup, status: 400, field: firstKey},
			{name: "text/plain", method: "POST", body: ex, header: hdr("Content-Type", "text/plain"), status: 415, field: "Content-Type"},
			{name: "form encoded", method: "POST", body: "value=1", header: hdr("Content-Type", "application/x-www-form-urlencoded"), status: 415, field: "Content-Type"},
			{name: "charset utf-16", method: "POST", body: ex, header: hdr("Content-Type", "application/json; charset=utf-16"), status: 415, field: "Content-Type"},
			{name: "malformed media type", method: "POST", body: ex, header: hdr("Content-Type", "application/json; charset"), status: 415, field: "Content-Type"},
			{name: "huge Content-Length", method: "POST", body: ex, length: "1000000000000", status: 413, field: "body"},
			{name: "body over 64 KB", method: "POST", body: ex + strings.Repeat(" ", httpapi.MaxBodyBytes), status: 413, field: "body"},
			{name: "PUT", method: "PUT", body: ex, status: 405, field: "method"},
			{name: "DELETE", method: "DELETE", status: 405, field: "method"},
			{name: "PATCH", method: "PATCH", body: ex, status: 405, field: "method"},
			{name: "GET bad escape", method: "GET", target: path + "?" + q + "&x=%zz", status: 400, field: "query"},
			{name: "GET semicolon", method: "GET", target: path + "?" + q + ";x=1", status: 400, field: "query"},
			{name: "GET parameter twice", method: "GET", target: path + "?" + q + "&" + firstKey + "=1", status: 400, field: firstKey},
			{name: "GET invalid UTF-8 parameter name", method: "GET", target: path + "?" + q + "&%FF=1", status: 400, field: "query"},
			{name: "GET query over 64 KB", method: "GET", target: path + "?" + q + "&x=" + strings.Repeat("1", httpapi.MaxQueryBytes), status: 414, field: "query"},
		} {
			r.name = tl.Name + " " + r.name
			if r.target == "" {
				r.target = path
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// boardRows are the bad requests of the board routes, the settings
// catalog, the skill file and unknown paths.
func boardRows() []malformed {
	const preds = boardapi.BoardPrefix + "/predictions"
	body := func(kv ...string) string { // a valid prediction with raw field values replaced
		fields := map[string]string{"agent_id": `"agent-a"`, "title": `"Rain in Paris"`, "body": `"It will rain."`,
			"confidence": `0.7`, "timeframe": `"tomorrow"`, "domain": `"Climate"`}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(fields, kv[i])
			} else {
				fields[kv[i]] = kv[i+1]
			}
		}
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, `"`+k+`":`+fields[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	long := func(n int) string { return str(strings.Repeat("x", n)) }
	jsonH := func(auth string) http.Header { return hdr("Content-Type", "application/json", "Authorization", auth) }
	reply := preds + "/{pid}/threads"
	react := preds + "/{pid}/reactions"
	resolve := preds + "/{pid}/resolve"
	rows := []malformed{
		// POST /api/predictions: each field, wrong.
		{name: "agent_id number", method: "POST", target: preds, body: body("agent_id", `5`), status: 400, field: "agent_id"},
		{name: "agent_id empty", method: "POST", target: preds, body: body("agent_id", `""`), status: 400, field: "agent_id"},
		{name: "agent_id missing", method: "POST", target: preds, body: body("agent_id", ""), status: 400, field: "agent_id"},
		{name: "agent_id path traversal", method: "POST", target: preds, body: body("agent_id", `"../etc"`), header: jsonH("Bearer ../etc"), status: 400, field: "agent_id"},
		{name: "agent_id encoded traversal", method: "POST", target: preds, body: body("agent_id", `"%2e%2e%2f"`), header: jsonH("Bearer %2e%2e%2f"), status: 400, field: "agent_id"},
		{name: "agent_id NUL", method: "POST", target: preds, body: body("agent_id", `"a\u0000b"`), status: 403, field: "agent_id"},
		{name: "agent_id 65 characters", method: "POST", target: preds, body: body("agent_id", long(65)), header: jsonH("Bearer " + strings.Repeat("x", 65)), status: 400, field: "agent_id"},
		{name: "agent_id not the bearer", method: "POST", target: preds, body: body("agent_id", `"agent-b"`), status: 403, field: "agent_id"},
		{name: "agent_id invalid UTF-8", method: "POST", target: preds, body: body("agent_id", badUTF8), status: 400, field: "agent_id"},
		{name: "agent_name 81 characters", method: "POST", target: preds, body: body("agent_name", long(81)), status: 400, field: "agent_name"},
		{name: "agent_name control character", method: "POST", target: preds, body: body("agent_name", `"a\u0007b"`), status: 400, field: "agent_name"},
		{name: "agent_name object", method: "POST", target: preds, body: body("agent_name", `{}`), status: 400, field: "agent_name"},
		{name: "title number", method: "POST", target: preds, body: body("title", `5`), status: 400, field: "title"},
		{name: "title empty", method: "POST", target: preds, body: body("title", `""`), status: 400, field: "title"},
		{name: "title blank", method: "POST", target: preds, body: body("title", `"   "`), status: 400, field: "title"},
		{name: "title 201 characters", method: "POST", target: preds, body: body("title", long(201)), status: 400, field: "title"},
		{name: "title overlong 60,000", method: "POST", target: preds, body: body("title", long(60000)), status: 400, field: "title"},
		{name: "title escaped NUL", method: "POST", target: preds, body: body("title", `"a\u0000b"`), status: 400, field: "title"},
		{name: "title escape character", method: "POST", target: preds, body: body("title", `"a\u001b[31mb"`), status: 400, field: "title"},
		{name: "title line break", method: "POST", target: preds, body: body("title", `"a\nb"`), status: 400, field: "title"},
		{name: "title raw control character", method: "POST", target: preds, body: body("title", rawControl), status: 400, field: "body"},
		{name: "title invalid UTF-8", method: "POST", target: preds, body: body("title", badUTF8), status: 400, field: "title"},
		{name: "title lone surrogate escape", method: "POST", target: preds, body: body("title", `"\ud800"`), status: 400, field: "title"},
		{name: "title deep nesting", method: "POST", target: preds, body: body("title", deepArray), status: 400, field: "title"},
		{name: "title array", method: "POST", target: preds, body: body("title", `["a"]`), status: 400, field: "title"},
		{name: "body 10,001 characters", method: "POST", target: preds, body: body("body", long(10001)), status: 400, field: "body"},
		{name: "body number", method: "POST", target: preds, body: body("body", `1`), status: 400, field: "body"},
		{name: "body missing", method: "POST", target: preds, body: body("body", ""), status: 400, field: "body"},
		{name: "body NUL", method: "POST", target: preds, body: body("body", `"x\u0000"`), status: 400, field: "body"},
		{name: "confidence string", method: "POST", target: preds, body: body("confidence", `"high"`), status: 400, field: "confidence"},
		{name: "confidence percent string above 100%", method: "POST", target: preds, body: body("confidence", `"170%"`), status: 400, field: "confidence"},
		{name: "confidence NaN", method: "POST", target: preds, body: body("confidence", `NaN`), status: 400, field: "body"},
		{name: "confidence Infinity", method: "POST", target: preds, body: body("confidence", `Infinity`), status: 400, field: "body"},
		{name: "confidence 1e400", method: "POST", target: preds, body: body("confidence", `1e400`), status: 400, field: "confidence"},
		{name: "confidence -1e400", method: "POST", target: preds, body: body("confidence", `-1e400`), status: 400, field: "confidence"},
		{name: "confidence exponent 1E+1", method: "POST", target: preds, body: body("confidence", `1E+1`), status: 400, field: "confidence"},
		{name: "confidence percent 75", method: "POST", target: preds, body: body("confidence", `75`), status: 400, field: "confidence"},
		{name: "confidence negative", method: "POST", target: preds, body: body("confidence", `-0.1`), status: 400, field: "confidence"},
		{name: "confidence just above 1", method: "POST", target: preds, body: body("confidence", `1.0000000001`), status: 400, field: "confidence"},
		{name: "confidence null", method: "POST", target: preds, body: body("confidence", `null`), status: 400, field: "confidence"},
		{name: "confidence missing", method: "POST", target: preds, body: body("confidence", ""), status: 400, field: "confidence"},
		{name: "confidence boolean", method: "POST", target: preds, body: body("confidence", `true`), status: 400, field: "confidence"},
		{name: "confidence array", method: "POST", target: preds, body: body("confidence", `[0.5]`), status: 400, field: "confidence"},
		{name: "confidence hex", method: "POST", target: preds, body: body("confidence", `0x1`), status: 400, field: "body"},
		{name: "confidence leading zero", method: "POST", target: preds, body: body("confidence", `00.5`), status: 400, field: "body"},
		{name: "timeframe 101 characters", method: "POST", target: preds, body: body("timeframe", long(101)), status: 400, field: "timeframe"},
		{name: "timeframe line break", method: "POST", target: preds, body: body("timeframe", `"Q3\n2026"`), status: 400, field: "timeframe"},
		{name: "domain unknown", method: "POST", target: preds, body: body("domain", `"Astrology"`), status: 400, field: "domain"},
		{name: "domain empty", method: "POST", target: preds, body: body("domain", `""`), status: 400, field: "domain"},
		{name: "domain number", method: "POST", target: preds, body: body("domain", `7`), status: 400, field: "domain"},
		{name: "duplicate title", method: "POST", target: preds, body: strings.Replace(body(), "{", `{"title":"x",`, 1), status: 400, field: "title"},
		{name: "duplicate key in unknown field", method: "POST", target: preds, body: strings.Replace(body(), "{", `{"meta":{"a":1,"a":2},`, 1), status: 400, field: "meta.a"},
		{name: "deep unknown field", method: "POST", target: preds, body: strings.Replace(body(), "{", `{"meta":`+deepObject+`,`, 1), status: 400, field: "meta"},
		{name: "trailing data", method: "POST", target: preds, body: body() + "[]", status: 400, field: "body"},
		{name: "empty body", method: "POST", target: preds, status: 400, field: "body"},
		{name: "array body", method: "POST", target: preds, body: "[" + body() + "]", status: 400, field: "body"},
		{name: "text/plain", method: "POST", target: preds, body: body(), header: hdr("Content-Type", "text/plain", "Authorization", "Bearer agent-a"), status: 415, field: "Content-Type"},
		{name: "no Authorization", method: "POST", target: preds, body: body(), header: hdr("Content-Type", "application/json"), status: 401, field: "Authorization"},
		{name: "Basic Authorization", method: "POST", target: preds, body: body(), header: jsonH("Basic YWdlbnQtYTp4"), status: 401, field: "Authorization"},
		{name: "Bearer without token", method: "POST", target: preds, body: body(), header: jsonH("Bearer"), status: 401, field: "Authorization"},
		{name: "Bearer with two tokens", method: "POST", target: preds, body: body(), header: jsonH("Bearer agent-a agent-b"), status: 401, field: "Authorization"},
		{name: "Authorization twice", method: "POST", target: preds, body: body(),
			header: hdr("Content-Type", "application/json", "Authorization", "Bearer agent-a", "Authorization", "Bearer agent-a"), status: 401, field: "Authorization"},
		{name: "bearer invalid UTF-8", method: "POST", target: preds, body: body(), header: jsonH("Bearer \xff"), status: 403, field: "agent_id"},
		{name: "huge Content-Length", method: "POST", target: preds, body: body(), length: "99999999999999", status: 413, field: "body"},
		{name: "body over 64 KB", method: "POST", target: preds, body: body("body", long(httpapi.MaxBodyBytes)), status: 413, field: "body"},
		{name: "PUT", method: "PUT", target: preds, body: body(), status: 405, field: "method"},
		{name: "DELETE", method: "DELETE", target: preds, status: 405, field: "method"},

		// Replies.
		{name: "reply body missing", method: "POST", target: reply, body: `{"agent_id":"agent-a"}`, status: 400, field: "body"},
		{name: "reply body 10,001 characters", method: "POST", target: reply, body: `{"agent_id":"agent-a","body":` + long(10001) + `}`, status: 400, field: "body"},
		{name: "reply body number", method: "POST", target: reply, body: `{"agent_id":"agent-a","body":3}`, status: 400, field: "body"},
		{name: "reply body invalid UTF-8", method: "POST", target: reply, body: `{"agent_id":"agent-a","body":` + badUTF8 + `}`, status: 400, field: "body"},
		{name: "reply body NUL", method: "POST", target: reply, body: `{"agent_id":"agent-a","body":"a\u0000"}`, status: 400, field: "body"},
		{name: "reply duplicate body", method: "POST", target: reply, body: `{"agent_id":"agent-a","body":"a","body":"b"}`, status: 400, field: "body"},
		{name: "reply parent_id unknown", method: "POST", target: reply, body: `{"agent_id":"agent-a","body":"x","parent_id":"` + unknownID + `"}`, status: 400, field: "parent_id"},
		{name: "reply parent_id traversal", method: "POST", target: reply, body: `{"agent_id":"agent-a","body":"x","parent_id":"../../etc/passwd"}`, status: 400, field: "parent_id"},
		{name: "reply parent_id number", method: "POST", target: reply, body: `{"agent_id":"agent-a","body":"x","parent_id":7}`, status: 400, field: "parent_id"},
		{name: "reply agent_id not the bearer", method: "POST", target: reply, body: `{"agent_id":"agent-b","body":"x"}`, status: 403, field: "agent_id"},
		{name: "reply agent_id invalid", method: "POST", target: reply, body: `{"agent_id":"a b","body":"x"}`, header: jsonH("Bearer a_b"), status: 403, field: "agent_id"},
		{name: "reply no Authorization", method: "POST", target: reply, body: `{"agent_id":"agent-a","body":"x"}`, header: hdr("Content-Type", "application/json"), status: 401, field: "Authorization"},
		{name: "reply id not a UUID", method: "POST", target: preds + "/not-a-uuid/threads", body: `{"agent_id":"agent-a","body":"x"}`, status: 404, field: "id"},
		{name: "reply id unknown", method: "POST", target: preds + "/" + unknownID + "/threads", body: `{"agent_id":"agent-a","body":"x"}`, status: 404, field: "id"},
		{name: "reply id encoded NUL", method: "POST", target: preds + "/%00/threads", body: `{"agent_id":"agent-a","body":"x"}`, status: 400, field: "id"},
		{name: "reply id encoded traversal", method: "POST", target: preds + "/%2e%2e%2f%2e%2e%2fagents/threads", body: `{"agent_id":"agent-a","body":"x"}`, status: 404, field: "path"},
		{name: "reply id dot-dot", method: "POST", target: preds + "/../threads", body: `{"agent_id":"agent-a","body":"x"}`, status: 404, field: "id"},
		{name: "reply trailing data", method: "POST", target: reply, body: `{"agent_id":"agent-a","body":"x"} {}`, status: 400, field: "body"},

		// Reactions.
		{name: "reaction unknown", method: "POST", target: react, body: `{"agent_id":"agent-a","reaction":"love"}`, status: 400, field: "reaction"},
		{name: "reaction number", method: "POST", target: react, body: `{"agent_id":"agent-a","reaction":1}`, status: 400, field: "reaction"},
		{name: "reaction missing", method: "POST", target: react, body: `{"agent_id":"agent-a"}`, status: 400, field: "reaction"},
		{name: "reaction empty", method: "POST", target: react, body: `{"agent_id":"agent-a","reaction":""}`, status: 400, field: "reaction"},
		{name: "reaction array", method: "POST", target: react, body: `{"agent_id":"agent-a","reaction":["agree"]}`, status: 400, field: "reaction"},
		{name: "reaction invalid UTF-8", method: "POST", target: react, body: `{"agent_id":"agent-a","reaction":` + badUTF8 + `}`, status: 400, field: "reaction"},
		{name: "reaction NUL", method: "POST", target: react, body: `{"agent_id":"agent-a","reaction":"agree\u0000"}`, status: 400, field: "reaction"},
		{name: "reaction agent_id not the bearer", method: "POST", target: react, body: `{"agent_id":"agent-b","reaction":"agree"}`, status: 403, field: "agent_id"},
		{name: "reaction id not a UUID", method: "POST", target: preds + "/xyz/reactions", body: `{"agent_id":"agent-a","reaction":"agree"}`, status: 404, field: "id"},
		{name: "reaction id unknown", method: "POST", target: preds + "/" + unknownID + "/reactions", body: `{"agent_id":"agent-a","reaction":"agree"}`, status: 404, field: "id"},
		{name: "reaction form encoded", method: "POST", target: react, body: "reaction=agree", header: hdr("Content-Type", "application/x-www-form-urlencoded", "Authorization", "Bearer agent-a"), status: 415, field: "Content-Type"},
		{name: "reaction deep nesting", method: "POST", target: react, body: `{"agent_id":"agent-a","reaction":` + deepArray + `}`, status: 400, field: "reaction"},

		// Resolve (moderator).
		{name: "resolve outcome unknown", method: "POST", target: resolve, body: `{"outcome":"maybe"}`, status: 400, field: "outcome"},
		{name: "resolve outcome missing", method: "POST", target: resolve, body: `{}`, status: 400, field: "outcome"},
		{name: "resolve outcome number", method: "POST", target: resolve, body: `{"outcome":1}`, status: 400, field: "outcome"},
		{name: "resolve outcome boolean", method: "POST", target: resolve, body: `{"outcome":true}`, status: 400, field: "outcome"},
		{name: "resolve outcome NaN", method: "POST", target: resolve, body: `{"outcome":NaN}`, status: 400, field: "body"},
		{name: "resolve outcome invalid UTF-8", method: "POST", target: resolve, body: `{"outcome":` + badUTF8 + `}`, status: 400, field: "outcome"},
		{name: "resolve wrong token", method: "POST", target: resolve, body: `{"outcome":"yes"}`, header: jsonH("Bearer not-the-token"), status: 403, field: "Authorization"},
		{name: "resolve agent bearer", method: "POST", target: resolve, body: `{"outcome":"yes"}`, header: jsonH("Bearer agent-a"), status: 403, field: "Authorization"},
		{name: "resolve no Authorization", method: "POST", target: resolve, body: `{"outcome":"yes"}`, header: hdr("Content-Type", "application/json"), status: 401, field: "Authorization"},
		{name: "resolve id unknown", method: "POST", target: preds + "/" + unknownID + "/resolve", body: `{"outcome":"yes"}`, status: 404, field: "id"},
		{name: "resolve id encoded NUL", method: "POST", target: preds + "/%00/resolve", body: `{"outcome":"yes"}`, status: 400, field: "id"},

		// The feed.
		{name: "feed limit word", method: "GET", target: preds + "?limit=abc", status: 400, field: "limit"},
		{name: "feed limit 0", method: "GET", target: preds + "?limit=0", status: 400, field: "limit"},
		{name: "feed limit negative zero", method: "GET", target: preds + "?limit=-0", status: 400, field: "limit"},
		{name: "feed limit exponent", method: "GET", target: preds + "?limit=1e2", status: 400, field: "limit"},
		{name: "feed limit fraction", method: "GET", target: preds + "?limit=2.5", status: 400, field: "limit"},
		{name: "feed limit huge", method: "GET", target: preds + "?limit=99999999999999999999999", status: 400, field: "limit"},
		{name: "feed limit negative", method: "GET", target: preds + "?limit=-5", status: 400, field: "limit"},
		{name: "feed limit NaN", method: "GET", target: preds + "?limit=NaN", status: 400, field: "limit"},
		{name: "feed limit with NUL", method: "GET", target: preds + "?limit=20%00", status: 400, field: "limit"},
		{name: "feed limit twice", method: "GET", target: preds + "?limit=1&limit=2", status: 400, field: "limit"},
		{name: "feed offset negative", method: "GET", target: preds + "?offset=-1", status: 400, field: "offset"},
		{name: "feed offset Infinity", method: "GET", target: preds + "?offset=Infinity", status: 400, field: "offset"},
		{name: "feed offset huge", method: "GET", target: preds + "?offset=1e400", status: 400, field: "offset"},
		{name: "feed domain unknown", method: "GET", target: preds + "?domain=Astrology", status: 400, field: "domain"},
		{name: "feed domain empty", method: "GET", target: preds + "?domain=", status: 400, field: "domain"},
		{name: "feed domain invalid UTF-8", method: "GET", target: preds + "?domain=%FF", status: 400, field: "domain"},
		{name: "feed domain JSON", method: "GET", target: preds + "?domain=" + url.QueryEscape(`{"a":1}`), status: 400, field: "domain"},
		{name: "feed sort unknown", method: "GET", target: preds + "?sort=sideways", status: 400, field: "sort"},
		{name: "feed sort NUL", method: "GET", target: preds + "?sort=%00", status: 400, field: "sort"},
		{name: "feed bad escape", method: "GET", target: preds + "?limit=%zz", status: 400, field: "query"},
		{name: "feed broken escape at end", method: "GET", target: preds + "?domain=AI%", status: 400, field: "query"},
		{name: "feed query over 64 KB", method: "GET", target: preds + "?x=" + strings.Repeat("1", httpapi.MaxQueryBytes), status: 414, field: "query"},

		// One prediction, its thread, agents, statistics.
		{name: "prediction id not a UUID", method: "GET", target: preds + "/not-a-uuid", status: 404, field: "id"},
		{name: "prediction id dot-dot", method: "GET", target: preds + "/%2e%2e", status: 404, field: "id"},
		{name: "prediction id encoded traversal", method: "GET", target: preds + "/%2e%2e%2f%2e%2e%2fetc%2fpasswd", status: 404, field: "path"},
		{name: "prediction id raw traversal", method: "GET", target: preds + "/../../etc/passwd", status: 404, field: "path"},
		{name: "prediction id encoded NUL", method: "GET", target: preds + "/%00", status: 400, field: "id"},
		{name: "prediction id unknown UUID", method: "GET", target: preds + "/" + unknownID, status: 404, field: "id"},
		{name: "prediction id braced UUID", method: "GET", target: preds + "/%7B" + unknownID + "%7D", status: 404, field: "id"},
		{name: "prediction id URN", method: "GET", target: preds + "/urn:uuid:" + unknownID, status: 404, field: "id"},
		{name: "prediction id 10,000 characters", method: "GET", target: preds + "/" + strings.Repeat("a", 10000), status: 404, field: "id"},
		{name: "prediction id invalid UTF-8", method: "GET", target: preds + "/%FF%FE", status: 400, field: "id"},
		{name: "prediction id SQL", method: "GET", target: preds + "/" + url.PathEscape("' OR 1=1 --"), status: 404, field: "id"},
		{name: "prediction bad query escape", method: "GET", target: preds + "/{pid}?x=%zz", status: 400, field: "query"},
		{name: "thread id not a UUID", method: "GET", target: preds + "/nope/threads", status: 404, field: "id"},
		{name: "thread id encoded NUL", method: "GET", target: preds + "/%00/threads", status: 400, field: "id"},
		{name: "thread id unknown", method: "GET", target: preds + "/" + unknownID + "/threads", status: 404, field: "id"},
		{name: "thread id encoded slash", method: "GET", target: preds + "/a%2fb/threads", status: 404, field: "path"},
		{name: "agent id 65 characters", method: "GET", target: boardapi.BoardPrefix + "/agents/" + strings.Repeat("a", 65), status: 404, field: "id"},
		{name: "agent id encoded NUL", method: "GET", target: boardapi.BoardPrefix + "/agents/%00", status: 400, field: "id"},
		{name: "agent id dot-dot", method: "GET", target: boardapi.BoardPrefix + "/agents/%2e%2e", status: 404, field: "id"},
		{name: "agent id encoded traversal", method: "GET", target: boardapi.BoardPrefix + "/agents/%2e%2e%2fpredictions", status: 404, field: "path"},
		{name: "agent id unknown", method: "GET", target: boardapi.BoardPrefix + "/agents/nobody", status: 404, field: "id"},
		{name: "agent id space", method: "GET", target: boardapi.BoardPrefix + "/agents/a%20b", status: 404, field: "id"},
		{name: "agent id invalid UTF-8", method: "GET", target: boardapi.BoardPrefix + "/agents/%FF", status: 400, field: "id"},
		{name: "agents bad query escape", method: "GET", target: boardapi.BoardPrefix + "/agents?%zz", status: 400, field: "query"},
		{name: "agents PUT", method: "PUT", target: boardapi.BoardPrefix + "/agents", body: `{}`, status: 405, field: "method"},
		{name: "stats bad query escape", method: "GET", target: boardapi.BoardPrefix + "/stats?a=%", status: 400, field: "query"},
		{name: "stats invalid UTF-8 parameter", method: "GET", target: boardapi.BoardPrefix + "/stats?x=%C3", status: 400, field: "x"},
		{name: "stats DELETE", method: "DELETE", target: boardapi.BoardPrefix + "/stats", status: 405, field: "method"},

		// Settings catalog, skill file, unknown paths.
		{name: "settings bad query escape", method: "GET", target: tools.PathPrefix + "/settings?x=%zz", status: 400, field: "query"},
		{name: "settings query over 64 KB", method: "GET", target: tools.PathPrefix + "/settings?x=" + strings.Repeat("1", httpapi.MaxQueryBytes), status: 414, field: "query"},
		{name: "settings invalid UTF-8", method: "GET", target: tools.PathPrefix + "/settings?x=%FF", status: 400, field: "x"},
		{name: "settings POST", method: "POST", target: tools.PathPrefix + "/settings", body: `{}`, status: 405, field: "method"},
		{name: "skill file bad query escape", method: "GET", target: "/predictions.md?pool=%zz", status: 400, field: "query"},
		{name: "skill file invalid UTF-8", method: "GET", target: "/predictions.md?pool=%FF", status: 400, field: "pool"},
		{name: "skill file query over 64 KB", method: "GET", target: "/predictions.md?pool=" + strings.Repeat("m", httpapi.MaxQueryBytes), status: 414, field: "query"},
		{name: "skill file POST", method: "POST", target: "/predictions.md", body: `{}`, status: 405, field: "method"},
		{name: "unknown tool", method: "GET", target: tools.PathPrefix + "/convert_odds2", status: 404, field: "path"},
		{name: "tool path traversal", method: "GET", target: tools.PathPrefix + "/convert_odds/../settings", status: 404, field: "path"},
		{name: "tool encoded traversal", method: "POST", target: tools.PathPrefix + "/%2e%2e/settings", body: `{}`, status: 404, field: "path"},
		{name: "double slash", method: "GET", target: "//api/v1/settings", status: 404, field: "path"},
		{name: "OPTIONS unknown path", method: "OPTIONS", target: "/nope", status: 404, field: "path"},
	}
	return rows
}

// beyondSchema says, by words of a row's name, why openapi.json allows a
// request the server refuses with 400: each is a rule that comes before
// any schema (the JSON and query grammars) or that no schema keyword
// states. The second list holds the calculation tools' own reading rules
// (DECISIONS.md, "Probability input" and convert_odds), which their
// descriptions state in words.
var beyondSchema = []struct{ word, why string }{
	{"invalid UTF-8", "JSON and queries are UTF-8: a decoder replaces bad bytes before any schema sees the value"},
	{"lone surrogate", "a lone surrogate escape decodes to U+FFFD before any schema sees the value"},
	{"duplicate", "a name given twice: the schema sees one of the values"},
	{"twice", "a parameter given twice: the schema sees one of the values"},
	{"trailing", "one JSON value and nothing after it is the JSON grammar's rule"},
	{"bad escape", "percent escapes are the query's grammar, read before any parameter"},
	{"broken escape", "percent escapes are the query's grammar, read before any parameter"},
	{"bad query escape", "percent escapes are the query's grammar, read before any parameter"},
	{"semicolon", "a semicolon in a query is the query's grammar, read before any parameter"},
	{"encoded NUL", "the validator does not see a percent-encoded control character in a path parameter"},
	{"parent_id unknown", "which replies exist is the board's data"},
	{"parent_id traversal", "which replies exist is the board's data"},
}

var beyondToolRules = []struct{ word, why string }{
	{"1e400", "a number beyond float64: JSON Schema bounds values, not their size"},
	{"underflow", "a number below float64's smallest: JSON Schema bounds values, not their precision"},
	{"negative", "the tool's reading of odds and probabilities"},
	{"certain probability", "the tool's reading of odds and probabilities"},
	{"percent above 100", "the tool's reading of odds and probabilities"},
	{"escaped NUL", "the tool's reading of odds and probabilities"},
	{"not a date", "format is an annotation in JSON Schema 2020-12: validators need not check a date"},
	{"month 13", "format is an annotation in JSON Schema 2020-12: validators need not check a date"},
	{"today number GET", "format is an annotation in JSON Schema 2020-12: validators need not check a date"},
	{"raw control character GET", "over GET a value's text is read as the JSON it spells, which a parameter's schema cannot tell from a string"},
	{"object GET", "over GET a value's text is read as the JSON it spells, which a parameter's schema cannot tell from a string"},
	{"array GET", "over GET a value's text is read as the JSON it spells, which a parameter's schema cannot tell from a string"},
	{"boolean GET", "over GET a value's text is read as the JSON it spells, which a parameter's schema cannot tell from a string"},
	{"null GET", "over GET a value's text is read as the JSON it spells, which a parameter's schema cannot tell from a string"},
	{"Infinity GET", "over GET a value's text is read as the JSON it spells, which a parameter's schema cannot tell from a string"},
	{"NaN GET", "over GET a value's text is read as the JSON it spells, which a parameter's schema cannot tell from a string"},
}

// withBeyond fills a row's beyond from [beyondSchema] (and, for the
// tools, [beyondToolRules]) unless the row says it itself.
func withBeyond(m malformed) malformed {
	if m.beyond != "" {
		return m
	}
	lists := [][]struct{ word, why string }{beyondSchema}
	if strings.HasPrefix(m.target, tools.PathPrefix+"/") {
		lists = append(lists, beyondToolRules)
	}
	for _, l := range lists {
		for _, b := range l {
			if strings.Contains(m.name, b.word) {
				m.beyond = b.why
				return m
			}
		}
	}
	return m
}

// TestMalformed sends every row to a server with the board and the MCP
// endpoint wired and checks each answer: the status of the row, a JSON
// Problem naming the field with a hint, never a 5xx. Afterwards the server
// is healthy and a valid request of each kind still works.
func TestMalformed(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: apitest.OpenStore(t), ModeratorToken: modSecret}), MCP: newMCP(t)})
	addr := strings.TrimPrefix(e.TS.URL, "http://")
	pid := apitest.CreatePred(t, e, "agent_id", agentA)
	rid := e.Post(t, "/api/predictions/"+pid+"/threads", agentA, map[string]any{"agent_id": agentA, "body": "first"}, apitest.MustPass, 201)["reply_id"].(string)

	rows := append(toolRows(t), boardRows()...)
	if len(rows) < 150 {
		t.Fatalf("%d rows, want at least 150", len(rows))
	}
	statuses := map[int]int{}
	fiveXX := 0
	seen := map[string]bool{}
	for _, m := range rows {
		if seen[m.name] {
			t.Errorf("row name %q is used twice", m.name)
		}
		seen[m.name] = true
		m.target = strings.NewReplacer("{pid}", pid, "{rid}", rid).Replace(m.target)
		m = withBeyond(m)
		t.Run(m.name, func(t *testing.T) {
			h := m.header
			if h == nil {
				h = defaultHeader(m)
			}
			var body []byte
			if m.method != http.MethodGet {
				body = []byte(m.body)
			}
			got := sendRaw(t, addr, m.method, m.target, h, body, m.length)
			statuses[got.status]++
			if got.status >= 500 {
				fiveXX++
			}
			checkProblem(t, e, m, got)
		})
	}
	t.Logf("malformed requests: %d rows sent, statuses %v, 5xx: %d", len(rows), fmtStatuses(statuses), fiveXX)

	// Still healthy, and valid requests still work.
	if m := e.Get(t, "/healthz", 200); m["status"] != "ok" {
		t.Errorf("/healthz after the table: %v", m)
	}
	for _, tl := range tools.All() {
		resp, b := e.Do(t, http.MethodPost, tools.PathPrefix+"/"+tl.Name, tl.Example, nil, apitest.MustPass)
		if resp.StatusCode != 200 {
			t.Errorf("%s after the table: %d %s", tl.Name, resp.StatusCode, apitest.Trim(b))
		}
	}
	apitest.CreatePred(t, e, "agent_id", "agent-after")
	if m := e.Get(t, "/api/predictions/"+pid, 200); m["prediction"] == nil {
		t.Errorf("GET prediction after the table: %v", m)
	}
}

// checkProblem asserts the answer of one row.
func checkProblem(t *testing.T, e *apitest.Env, m malformed, got rawResponse) {
	t.Helper()
	if got.status != m.status {
		t.Fatalf("%s %s: status %d, want %d: %s", m.method, trimTarget(m.target), got.status, m.status, apitest.Trim(got.body))
	}
	if ct := got.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want JSON: %s", ct, apitest.Trim(got.body))
	}
	var p httpapi.Problem
	dec := json.NewDecoder(strings.NewReader(string(got.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("body is not a Problem: %v\n%s", err, apitest.Trim(got.body))
	}
	if !strings.HasPrefix(p.Error, m.field+": ") {
		t.Errorf("error %q does not name the field %q", p.Error, m.field)
	}
	if p.Hint == "" {
		t.Errorf("error %q has no hint", p.Error)
	}
	if p.Disclaimer != tools.Disclaimer || p.Terms != e.TS.URL+"/terms" || !strings.HasPrefix(p.Docs, e.TS.URL+"/llms") {
		t.Errorf("Problem lacks its disclaimer, terms or docs: %+v", p)
	}
	if got.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
	validateRow(t, e, m, got)
}

// validateRow checks the row against openapi.json in both directions
// (apitest.Env.Validate): the answer is one the document declares, and a
// 400 goes to a request the document refuses too, unless the row says
// why no schema can. Rows whose target or header net/http cannot hold
// (raw control characters, invalid escapes) are sent as they are but not
// validated.
func validateRow(t *testing.T, e *apitest.Env, m malformed, got rawResponse) {
	t.Helper()
	if m.method == http.MethodGet && strings.Contains(m.name, "deep nesting") {
		// kin-openapi takes seconds to decode 10,000 levels of JSON in a
		// query parameter (a minute under -race); the depth limit is the
		// server's reading rule, not a schema's.
		return
	}
	var body io.Reader
	if m.method != http.MethodGet {
		body = strings.NewReader(m.body)
	}
	req, err := http.NewRequest(m.method, e.TS.URL+m.target, body)
	if err != nil {
		return
	}
	h := m.header
	if h == nil {
		h = defaultHeader(m)
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	rv := apitest.AnyValid
	if m.beyond != "" {
		rv = apitest.Beyond
	}
	resp := &http.Response{StatusCode: got.status, Header: got.header}
	e.Validate(t, req, resp, got.body, rv)
}

func fmtStatuses(m map[int]int) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d×%d", m[k], k))
	}
	return strings.Join(parts, " ")
}
