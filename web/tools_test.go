package web_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/tools"
)

// checkFile is a forecast file with one resolved question, so the checker
// also scores it.
const checkFile = `---
predictions: 1
updated: 2026-11-20
---

# Will the launch happen by 2026-12-31?

- id: launch-2026
- resolves: yes if the vendor's status page reports the launch
- resolve_by: 2026-12-31
- status: resolved
- outcome: yes

## Forecasts

- 2026-11-20 · agent:scout · 62% · base rate from past launches
- 2026-11-21 · person · 70% · read the status page
`

// summaryRe finds the result's summary sentence.
var summaryRe = regexp.MustCompile(`<p class="summary" id="summary">([^<]*)</p>`)

// TestToolForms submits each tool's form and checks that the page shows
// the summary the tool gives for the same input as JSON: the form maps to
// the same call as the API.
func TestToolForms(t *testing.T) {
	srv := newServer(t, nil)
	cases := []struct {
		tool string
		form url.Values
		json string // the same input as the API takes it
		want []string
	}{
		{"convert_odds", url.Values{"value": {"+150"}, "from": {"auto"}, "compare_to": {"40%"}},
			`{"value":"+150","from":"auto","compare_to":"40%"}`, []string{"<code>formats</code>", "odds_ratio"}},
		{"implied_probabilities", url.Values{"outcomes": {"home, 2.10\r\ndraw, 3.40\r\n\r\naway\t3.60\r\n"}, "from": {"auto"}, "method": {"shin"}},
			`{"outcomes":[{"label":"home","odds":"2.10"},{"label":"draw","odds":"3.40"},{"label":"away","odds":"3.60"}],"from":"auto","method":"shin"}`,
			[]string{"<th scope=\"col\">normalised</th>", "overround_pct"}},
		{"combine_forecasts", url.Values{"forecasts": {"agent:scout, 0.62\nagent:skeptic, 35%\nperson, 0.55, 2\n0.5"}, "method": {"median"}, "extremize": {""}, "disagree_pts": {"10"}},
			`{"forecasts":[{"who":"agent:scout","p":0.62},{"who":"agent:skeptic","p":"35%"},{"who":"person","p":0.55,"weight":2},{"p":0.5}],"method":"median","disagree_pts":10}`,
			[]string{`<svg class="plot scale"`, ">agent:scout</text>", "% (median)</text>"}},
		{"combine_forecasts", url.Values{"forecasts": {"agent:scout, 62%, , 2026-11-20T09:00:00Z, 4.5\nagent:owl\t55%\t\t2026-11-20T14:30:00Z\nperson, 70%, 1, 2026-11-21T08:00:00Z"}, "method": {"skill"}},
			`{"forecasts":[{"who":"agent:scout","p":"62%","at":"2026-11-20T09:00:00Z","skill":4.5},{"who":"agent:owl","p":"55%","at":"2026-11-20T14:30:00Z"},{"who":"person","p":"70%","weight":1,"at":"2026-11-21T08:00:00Z"}],"method":"skill"}`,
			[]string{`<svg class="plot scale"`, ">agent:owl</text>", "% (skill)</text>"}},
		{"bayes_update", url.Values{"prior": {"30%"}, "evidence": {"poll lead, 2\nendorsement, 0.6, 0.3\n1.5"}},
			`{"prior":"30%","evidence":[{"label":"poll lead","lr":2},{"label":"endorsement","p_if_yes":0.6,"p_if_no":0.3},{"lr":1.5}]}`,
			[]string{"<code>steps</code>", "posterior"}},
		{"score_forecasts", url.Values{"forecasts": {"agent:scout, 0.8, yes\nagent:scout, 0.3, no\n60%, no"}, "bins": {"5"}},
			`{"forecasts":[{"who":"agent:scout","p":0.8,"outcome":"yes"},{"who":"agent:scout","p":0.3,"outcome":"no"},{"p":"60%","outcome":"no"}],"bins":5}`,
			[]string{`<svg class="plot calibration"`, "<code>forecasters</code>"}},
		{"build_settings", url.Values{"preset": {"team"}, "format": {"section"}, "pool": {"median"}, "floor_pct": {"2"}, "share": {""}},
			`{"preset":"team","pool":"median","floor_pct":2,"format":"section"}`,
			[]string{"https://predictions.example/predictions.md?preset=team&amp;pool=median&amp;floor_pct=2", "mkdir -p .claude/skills/predictions"}},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			res, err := tools.Lookup(c.tool).Call(tools.WithBaseURL(context.Background(), "https://predictions.example"), []byte(c.json))
			if err != nil {
				t.Fatalf("Call(%s): %v", c.json, err)
			}
			path := "/tools/" + c.tool + "?" + c.form.Encode()
			status, h, body := get(t, srv, path)
			checkPage(t, path, h, body)
			if status != http.StatusOK {
				t.Fatalf("GET %s: status %d, want 200\n%s", path, status, body)
			}
			m := summaryRe.FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("GET %s: no summary in\n%s", path, body)
			}
			if diff := cmp.Diff(res.Summary, html.UnescapeString(m[1])); diff != "" {
				t.Errorf("GET %s: summary differs from the API's (-want +got):\n%s", path, diff)
			}
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s: body lacks %q", path, w)
				}
			}
		})
	}

	t.Run("check_forecast_md by POST", func(t *testing.T) {
		resp, err := srv.Client().PostForm(srv.URL+"/tools/check_forecast_md", url.Values{"text": {checkFile}, "today": {"2026-11-22"}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body := string(b)
		checkPage(t, "POST /tools/check_forecast_md", resp.Header, body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, want 200\n%s", resp.StatusCode, body)
		}
		for _, w := range []string{`<svg class="plot calibration"`, "<code>items</code>", "launch-2026", `method="post"`} {
			if !strings.Contains(body, w) {
				t.Errorf("body lacks %q", w)
			}
		}
	})

	t.Run("form too large", func(t *testing.T) {
		resp, err := srv.Client().PostForm(srv.URL+"/tools/check_forecast_md", url.Values{"text": {strings.Repeat("<", 100_000)}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("status %d, want 413", resp.StatusCode)
		}
	})

	t.Run("unprefilled form shows the example", func(t *testing.T) {
		status, _, body := get(t, srv, "/tools/combine_forecasts")
		if status != http.StatusOK || !strings.Contains(body, "agent:scout, 0.62\nagent:skeptic, 35%\nperson, 0.55</textarea>") {
			t.Errorf("GET /tools/combine_forecasts: status %d; the form is not filled with the example:\n%s", status, body)
		}
		if strings.Contains(body, `id="result"`) {
			t.Errorf("GET /tools/combine_forecasts: a result before any input")
		}
	})
}

// problemRe reads the error shown on a tool page: the field, the problem
// and the hint, and whether it sits with a control (field-error) or above
// the form (problem).
var problemRe = regexp.MustCompile(`(?s)<div class="(field-error|problem)" (?:id="problem" role="alert"|role="alert" id="problem" tabindex="-1" autofocus)>\s*<p><strong>([^<]*)</strong> ([^<]*)</p>\s*(?:<p class="hint">How to fix it: ([^<]*)</p>)?`)

// fieldRe finds a control's box on a tool form: its label, the control
// and, when it is at fault, its error.
var fieldRe = regexp.MustCompile(`(?s)<div class="field[^"]*"><label>.*?</label>\s*(?:<p class="help"[^>]*>[^<]*</p>\s*)?(?:<div class="field-error".*?</div>)?</div>`)

// TestToolErrors checks that bad input gets a 400 with the field, the
// problem and a hint shown with the control at fault, which is marked
// invalid, described by the error and focused; an error about a field
// without a control is shown above the form and focused.
func TestToolErrors(t *testing.T) {
	srv := newServer(t, nil)
	type problem struct{ Where, Problem string }
	cases := []struct {
		name    string
		tool    string
		form    url.Values
		want    problem
		control string // the control at fault; "" when the field has none
	}{
		{"bad odds", "convert_odds", url.Values{"value": {"abc"}}, problem{"value", "is not a number"}, `<input name="value"`},
		{"missing value", "convert_odds", url.Values{"value": {""}, "from": {"auto"}}, problem{"value", "is required"}, `<input name="value"`},
		{"too many values on a line", "combine_forecasts", url.Values{"forecasts": {"a, 0.5\n\nb, 0.5, 1, 2026-11-20T09:00:00Z, 9, 9"}},
			problem{"forecasts", "line 3 has 6 values separated by commas; a line needs 1, 2, 3, 4 or 5"}, `<textarea name="forecasts"`},
		{"bad time on a line", "combine_forecasts", url.Values{"forecasts": {"a, 0.5\nb, 0.5, , noon"}, "method": {"recency"}},
			problem{"forecasts, line 2, at", `is "noon", which is not an RFC 3339 time`}, `<textarea name="forecasts"`},
		{"bad probability on a line", "combine_forecasts", url.Values{"forecasts": {"a, 0.5\n\n\nb, 150"}},
			problem{"forecasts, line 4, p", "is 150; it must be at most 100"}, `<textarea name="forecasts"`},
		{"bins not a number", "score_forecasts", url.Values{"forecasts": {"0.5, yes"}, "bins": {"abc"}},
			problem{"bins", "must be an integer, not a string"}, `<input name="bins"`},
		{"bad outcome", "score_forecasts", url.Values{"forecasts": {"0.5, yes\n0.4, maybe"}},
			problem{"forecasts, line 2, outcome", ""}, `<textarea name="forecasts"`},
		{"bad setting", "build_settings", url.Values{"pool": {"bogus"}}, problem{"pool", `is "bogus", which is not one of the allowed values`}, `<select name="pool"`},
		{"script in input", "convert_odds", url.Values{"value": {xss}}, problem{"value", ""}, `<input name="value"`},
		{"field without a control", "score_forecasts", url.Values{"forecasts": {"0.5, yes"}, "edges": {"abc"}},
			problem{"edges", `is "abc", which is not one of the allowed values`}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := "/tools/" + c.tool + "?" + c.form.Encode()
			status, h, body := get(t, srv, path)
			checkPage(t, path, h, body)
			if status != http.StatusBadRequest {
				t.Errorf("GET %s: status %d, want 400", path, status)
			}
			if n := strings.Count(body, `id="problem"`); n != 1 {
				t.Fatalf("GET %s: %d elements with id=\"problem\", want 1:\n%s", path, n, body)
			}
			m := problemRe.FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("GET %s: no problem shown in\n%s", path, body)
			}
			got := problem{html.UnescapeString(m[2]), html.UnescapeString(m[3])}
			if c.want.Problem == "" {
				got.Problem = ""
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("GET %s: problem mismatch (-want +got):\n%s", path, diff)
			}
			if m[4] == "" {
				t.Errorf("GET %s: no hint", path)
			}
			if strings.Contains(body, xss) {
				t.Errorf("GET %s: the input is not escaped", path)
			}
			if c.control == "" {
				if m[1] != "problem" || strings.Contains(body, `aria-invalid="true"`) {
					t.Errorf("GET %s: an error without a control is not above the form alone (%s)", path, m[1])
				}
				return
			}
			// The error is inside the box of its control, which is marked,
			// described by it and focused.
			var box string
			for _, f := range fieldRe.FindAllString(body, -1) {
				if strings.Contains(f, c.control) {
					box = f
				}
			}
			if box == "" {
				t.Fatalf("GET %s: no box holds %s", path, c.control)
			}
			if !strings.Contains(box, `<div class="field-error" id="problem" role="alert">`) {
				t.Errorf("GET %s: the error is not next to %s:\n%s", path, c.control, box)
			}
			tag := regexp.MustCompile(regexp.QuoteMeta(c.control) + `[^>]*>`).FindString(box)
			for _, attr := range []string{`aria-invalid="true"`, `autofocus`} {
				if !strings.Contains(tag, attr) {
					t.Errorf("GET %s: %s lacks %s", path, tag, attr)
				}
			}
			if !regexp.MustCompile(`aria-describedby="problem\b`).MatchString(tag) {
				t.Errorf("GET %s: %s is not described by the error", path, tag)
			}
		})
	}
}
