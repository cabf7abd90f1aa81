package web_test

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/web"
)

var (
	previewRe = regexp.MustCompile(`(?s)<pre class="preview" id="preview" tabindex="0">(.*?)</pre>`)
	changeRe  = regexp.MustCompile(`<li><code>([a-z_]+)</code>: <del>([^<]*)</del> → <ins>([^<]*)</ins></li>`)
	linkRe    = regexp.MustCompile(`<a href="([^"]*)" id="skill-link">`)
	installRe = regexp.MustCompile(`<pre class="install" id="install">([^<]*)</pre>`)
)

// TestSettings checks the settings builder against the API it mirrors:
// the preview is GET /predictions.md with the link's query, the changes
// are the differences from the preset, and the install command appears
// only after the person says yes.
func TestSettings(t *testing.T) {
	api := httptest.NewServer(httpapi.New(httpapi.Options{Logger: discard,
		Pages: web.New(web.Options{Logger: discard})}))
	t.Cleanup(api.Close)
	fetch := func(t *testing.T, path string) (int, string) {
		t.Helper()
		resp, err := api.Client().Get(api.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	type change struct{ Name, From, To string }
	cases := []struct {
		name      string
		query     string
		link      string // the skill file link's query
		changes   []change
		notes     []string
		confirmed bool
	}{
		{"no query", "", "", nil, nil, false},
		{"preset only", "preset=team", "preset=team", nil, nil, false},
		{"adjusted", "preset=team&pool=median&floor_pct=2&bins=5", "preset=team&pool=median&floor_pct=2",
			[]change{{"pool", "geo_odds", "median"}, {"floor_pct", "1", "2"}}, nil, false},
		{"optional cleared by an empty control", "preset=team&share=unset&min_forecasters=", "preset=team&share=unset&min_forecasters=unset",
			[]change{{"share", "ask", "unset"}, {"min_forecasters", "2", "unset"}}, nil, false},
		{"no preset", "preset=none&pool=mean", "pool=mean", []change{{"pool", "geo_odds", "mean"}}, nil, false},
		{"clamped and invalid", "preset=core&floor_pct=99&pool=bogus", "preset=core&floor_pct=10",
			[]change{{"floor_pct", "1", "10"}}, []string{"floor_pct", "pool"}, false},
		{"confirmed", "preset=strict&review_days=3&confirm=yes", "preset=strict&review_days=3",
			[]change{{"review_days", "7", "3"}}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := "/settings?" + c.query
			status, body := fetch(t, path)
			if status != http.StatusOK {
				t.Fatalf("GET %s: status %d\n%s", path, status, body)
			}
			link := "/predictions.md"
			if c.link != "" {
				link += "?" + c.link
			}
			if m := linkRe.FindStringSubmatch(body); m == nil || html.UnescapeString(m[1]) != api.URL+link {
				t.Errorf("GET %s: skill link %q, want %q", path, m, api.URL+link)
			}
			_, skill := fetch(t, link)
			m := previewRe.FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("GET %s: no preview", path)
			}
			if diff := cmp.Diff(skill, html.UnescapeString(m[1])); diff != "" {
				t.Errorf("GET %s: preview differs from GET %s (-want +got):\n%s", path, link, diff)
			}
			var got []change
			for _, m := range changeRe.FindAllStringSubmatch(body, -1) {
				got = append(got, change{m[1], m[2], m[3]})
			}
			if diff := cmp.Diff(c.changes, got); diff != "" {
				t.Errorf("GET %s: changes (-want +got):\n%s", path, diff)
			}
			for _, n := range c.notes {
				if !regexp.MustCompile(`<ul class="notes" id="settings-notes">.*` + n).MatchString(body) {
					t.Errorf("GET %s: no note about %s", path, n)
				}
			}
			im := installRe.FindStringSubmatch(body)
			if c.confirmed {
				want := "mkdir -p .claude/skills/predictions &amp;&amp; curl -fsSL &#39;" + api.URL + html.EscapeString(link) + "&#39; -o .claude/skills/predictions/SKILL.md"
				if im == nil || im[1] != want {
					t.Errorf("GET %s: install command %q, want %q", path, im, want)
				}
				if strings.Contains(body, `id="confirm"`) {
					t.Errorf("GET %s: still asks to confirm", path)
				}
			} else {
				if im != nil {
					t.Errorf("GET %s: install command shown before the person said yes", path)
				}
				if !strings.Contains(body, `<button type="submit" form="settings-form" name="confirm" value="yes" id="confirm">`) {
					t.Errorf("GET %s: no confirm button", path)
				}
			}
		})
	}
}
