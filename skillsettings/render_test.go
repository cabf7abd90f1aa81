package skillsettings

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testTools stands in for the server's tool registry.
var testTools = []Tool{
	{"convert_odds", "Convert a probability or odds between notations; odds and risk ratios against a second value."},
	{"implied_probabilities", "Turn the odds of mutually exclusive outcomes into probabilities and the margin over 100%."},
	{"combine_forecasts", "Pool several forecasts (geometric mean of odds, mean, median), with spread and a disagreement flag."},
	{"bayes_update", "Update a prior through pieces of evidence, step by step."},
	{"score_forecasts", "Brier and log scores, base rate, skill and a calibration table for resolved forecasts."},
	{"check_forecast_md", "Check a forecast file: findings, warnings, latest and combined forecasts, scores."},
	{"build_settings", "Write settings into the skill file: the sections, JSON, a link and an install command."},
}

const testBase = "https://predictions.example"

// mixedInput exercises every kind of note and the less common values.
var mixedInput = map[string]string{
	"preset":            "recommended",
	"act_on_forecasts":  "ask",
	"share":             "allowed",
	"pool":              "median",
	"independent_first": "no",
	"min_forecasters":   "2.5",   // rounded
	"extremize":         "1.5",   //
	"base_rate_first":   "no",    //
	"min_sources":       "0",     //
	"stale_minutes":     "20000", // clamped high
	"timestamps":        "no",
	"update_on":         "weekly",
	"p_format":          "decimal",
	"floor_pct":         "0.05", // clamped low
	"decimals":          "1",
	"show_odds":         "odds_for",
	"score_rule":        "log",
	"bins":              "7", // invalid
	"review_days":       "1",
	"colour":            "blue", // unknown
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got), run go test -update if the change is intended:\n%s", path, diff)
	}
}

func TestSkillGolden(t *testing.T) {
	cases := []struct {
		file string
		in   map[string]string
	}{
		{"defaults.golden", nil},
		{"mixed.golden", mixedInput},
		// The two pools that read times, and skills: what each asks and
		// the combine_forecasts example with at (and skill).
		{"pool_recency.golden", map[string]string{"pool": "recency"}},
		{"pool_skill.golden", map[string]string{"pool": "skill"}},
	}
	for _, p := range PresetNames() {
		cases = append(cases, struct {
			file string
			in   map[string]string
		}{p + ".golden", map[string]string{"preset": p}})
	}
	cases = append(cases, struct {
		file string
		in   map[string]string
	}{"board.golden", map[string]string{"preset": "team"}}, struct {
		file string
		in   map[string]string
	}{"board_keys.golden", map[string]string{"preset": "team"}})
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			s, notes := Resolve(tc.in)
			// board.golden: the same file on a server that runs the board;
			// board_keys.golden: on one whose board takes agents' keys.
			opt := Options{BaseURL: testBase + "/", Tools: testTools,
				Board: strings.HasPrefix(tc.file, "board"), BoardKeys: tc.file == "board_keys.golden"}
			golden(t, strings.Replace(tc.file, ".golden", ".md.golden", 1), s.Skill(opt))
			if tc.file == "mixed.golden" {
				golden(t, "mixed.notes.golden", strings.Join(Strings(notes), "\n")+"\n")
			} else if len(notes) != 0 {
				t.Errorf("notes: %v", Strings(notes))
			}
		})
	}
}

func TestSkillStructure(t *testing.T) {
	for _, p := range append(PresetNames(), "") {
		s, _ := Resolve(map[string]string{"preset": p})
		md := s.Skill(Options{BaseURL: testBase, Tools: testTools})
		t.Run("preset="+p, func(t *testing.T) {
			// Agent Skills front matter: name equal to the folder, a one-line
			// description of at most 1024 characters that YAML reads as a
			// plain scalar.
			fm, body, ok := strings.Cut(strings.TrimPrefix(md, "---\n"), "\n---\n")
			if !strings.HasPrefix(md, "---\n") || !ok {
				t.Fatalf("no front matter:\n%s", md[:200])
			}
			lines := strings.Split(fm, "\n")
			if len(lines) != 2 || lines[0] != "name: predictions" || !strings.HasPrefix(lines[1], "description: ") {
				t.Fatalf("front matter = %q", fm)
			}
			desc := strings.TrimPrefix(lines[1], "description: ")
			if len(desc) > 1024 || strings.Contains(desc, ": ") || strings.Contains(desc, " #") || strings.ContainsAny(desc[:1], `"'&*!|>%@[{`) {
				t.Errorf("description is not a safe plain YAML scalar of at most 1024 characters: %q", desc)
			}
			if filepath.Base(InstallDir) != SkillName {
				t.Errorf("InstallDir %q does not end in the skill name %q", InstallDir, SkillName)
			}
			for _, want := range []string{
				"## Standing rules", "## Tools", "## The forecast file", "## Settings",
				"information only", "says yes", "not betting, trading, investment, financial, legal or tax advice",
				testBase + "/api/v1/<tool>", testBase + "/mcp", testBase + "/openapi.json",
				s.Link(testBase), s.Install(testBase),
				"predictions: 1", "## Forecasts", "2026-11-20 14:05 · agent:scout · 62% · ",
			} {
				if !strings.Contains(body, want) {
					t.Errorf("skill file lacks %q", want)
				}
			}
			for _, tool := range testTools {
				if !strings.Contains(body, "| `"+tool.Name+"` | "+tool.Summary+" |") {
					t.Errorf("tool %s not listed", tool.Name)
				}
			}
			if strings.Contains(md, "{base_url}") || strings.Contains(md, DefaultBaseURL) {
				t.Error("skill file does not use the base URL given")
			}
			if !strings.HasSuffix(md, s.Markdown()+"\n---\n\n"+Disclaimer+"\n") {
				t.Error("skill file does not end with the settings sections and the disclaimer")
			}
		})
	}
}

// TestSkillBoardAuth: the board section follows the server's auth mode.
// In key mode it names the key route and sends only a key as the bearer
// token, never an agent id; in id mode it sends the agent id and names no
// key route. Both teach reading a thread, answering a debate with
// parent_id and the question's close.
func TestSkillBoardAuth(t *testing.T) {
	s, _ := Resolve(map[string]string{"preset": "team"})
	bearer := regexp.MustCompile(`Authorization: Bearer ([^'"` + "`" + `]+)`)
	keyRoute := testBase + "/api/agents/<your agent id>/key"
	tests := []struct {
		keys    bool
		bearers []string // every distinct bearer token the file shows
		want    []string
		notWant []string
	}{
		{false, []string{"<your agent id>", "scout", "owl"},
			[]string{"-H 'Authorization: Bearer scout'", "-H 'Authorization: Bearer owl'"},
			[]string{"/key", "PREDICTIONS_KEY", "shown once"}},
		{true, []string{"$PREDICTIONS_KEY", "<current key>"},
			[]string{"curl -s -X POST '" + keyRoute + "'", "shown once", "stores only its hash", `-H "Authorization: Bearer $PREDICTIONS_KEY"`,
				"an agent id alone as the bearer token is refused (403)"},
			[]string{"Bearer scout", "Bearer owl", "Bearer <your agent id>"}},
	}
	for _, tt := range tests {
		md := s.Skill(Options{BaseURL: testBase, Tools: testTools, Board: true, BoardKeys: tt.keys})
		var got []string
		for _, m := range bearer.FindAllStringSubmatch(md, -1) {
			if !slices.Contains(got, m[1]) {
				got = append(got, m[1])
			}
		}
		if diff := cmp.Diff(tt.bearers, got); diff != "" {
			t.Errorf("keys=%v: bearer tokens shown (-want +got):\n%s", tt.keys, diff)
		}
		common := []string{
			"GET " + testBase + "/api/predictions/<id>/threads", `\"parent_id\":\"<reply id>\"`, "[DEBATE]",
			"`close_at`", "`opens_at`", "409 naming `close_at`", "closed (past `close_at`", "never moves the close",
			"closing: soonest `close_at` first", "`status=open` (or closed, resolved, void)",
		}
		for _, w := range append(common, tt.want...) {
			if !strings.Contains(md, strings.ReplaceAll(w, `\"`, `"`)) {
				t.Errorf("keys=%v: skill file lacks %q", tt.keys, w)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(md, w) {
				t.Errorf("keys=%v: skill file has %q", tt.keys, w)
			}
		}
	}
	// Key mode changes only the board section.
	id := s.Skill(Options{BaseURL: testBase, Tools: testTools, Board: true})
	keys := s.Skill(Options{BaseURL: testBase, Tools: testTools, Board: true, BoardKeys: true})
	section := func(md string) (before, after string) {
		i, j := strings.Index(md, "## The board\n"), strings.Index(md, "## The forecast file\n")
		return md[:i], md[j:]
	}
	b1, a1 := section(id)
	b2, a2 := section(keys)
	if b1 != b2 || a1 != a2 {
		t.Error("key mode changes the skill file outside the board section")
	}
	if off := s.Skill(Options{BaseURL: testBase, Tools: testTools, BoardKeys: true}); off != s.Skill(Options{BaseURL: testBase, Tools: testTools}) {
		t.Error("BoardKeys without Board changes the skill file")
	}
}

func TestSkillWithoutTools(t *testing.T) {
	md := Settings{}.Skill(Options{})
	if strings.Contains(md, "| tool |") {
		t.Error("a tool table without tools")
	}
	for _, want := range []string{DefaultBaseURL + "/openapi.json", DefaultBaseURL + "/mcp", "offers its tools"} {
		if !strings.Contains(md, want) {
			t.Errorf("skill file without tools lacks %q", want)
		}
	}
}

// The example in the skill file follows section 2.6.
func TestForecastExample(t *testing.T) {
	line := regexp.MustCompile(`^- \d{4}-\d{2}-\d{2}( \d{2}:\d{2})? · (agent:[a-z]+|person) · \d+% · .+$`)
	bullet := regexp.MustCompile(`^- (id|resolves|resolve_by|status|base_rate): .+$`)
	sec := ""
	var forecasts, bullets int
	for _, l := range strings.Split(forecastExample, "\n") {
		switch {
		case strings.HasPrefix(l, "## "):
			sec = l
		case strings.HasPrefix(l, "# "):
			sec = "question"
		case strings.HasPrefix(l, "- ") && sec == "## Forecasts":
			forecasts++
			if !line.MatchString(l) {
				t.Errorf("forecast line %q does not follow section 2.6", l)
			}
		case strings.HasPrefix(l, "- ") && sec == "question":
			bullets++
			if !bullet.MatchString(l) {
				t.Errorf("question bullet %q does not follow section 2.6", l)
			}
		}
	}
	if forecasts != 2 || bullets != 5 {
		t.Errorf("example has %d forecasts and %d bullets, want 2 and 5", forecasts, bullets)
	}
	if !strings.HasPrefix(forecastExample, "---\npredictions: 1\nupdated: 2026-11-20\n---\n") {
		t.Error("example front matter")
	}
}

func TestMarkdownEverySetting(t *testing.T) {
	// Every option of every choice and both ends of every range give their
	// own plain-words line; unset settings are named once at the end.
	for _, st := range Catalog() {
		vals := st.Allowed()
		if vals == nil {
			vals = []string{num(st.Range.Min), num(st.Range.Max)}
		}
		for _, v := range vals {
			for _, pf := range []string{"percent", "decimal"} {
				in := map[string]string{"p_format": pf, st.Name: v}
				if st.Name == "p_format" {
					in = map[string]string{st.Name: v}
				}
				s, notes := Resolve(in)
				if len(notes) != 0 {
					t.Fatalf("%s=%s: notes %v", st.Name, v, Strings(notes))
				}
				md := s.Markdown()
				if v == Unset {
					if !strings.Contains(md, "`"+st.Name+"`") || strings.Contains(md, "**"+st.Name+":") {
						t.Errorf("%s=unset: not named in the Not set line only", st.Name)
					}
					continue
				}
				text := s.behaviour(st.Name, v)
				if len(text) < 30 || !strings.HasSuffix(text, ".") {
					t.Errorf("%s=%s: behaviour %q is not a sentence", st.Name, v, text)
				}
				if !strings.Contains(md, "- **"+st.Name+": "+v+".** "+text+"\n") {
					t.Errorf("%s=%s: line missing from Markdown()", st.Name, v)
				}
			}
		}
	}
}

func TestMarkdownNumbersInText(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]string
		want string
	}{
		{map[string]string{"floor_pct": "2"}, "below 2% or above 98%"},
		{map[string]string{"floor_pct": "0.1"}, "below 0.1% or above 99.9%"},
		{map[string]string{"floor_pct": "0.1", "p_format": "decimal"}, "below 0.001 or above 0.999"},
		{map[string]string{"decimals": "1"}, "such as 62.5%"},
		{map[string]string{"decimals": "0", "p_format": "decimal"}, "2 decimal places, such as 0.62"},
		{map[string]string{"stale_minutes": "360"}, "360 minutes (6 hours)"},
		{map[string]string{"stale_minutes": "10080"}, "10080 minutes (7 days)"},
		{map[string]string{"stale_minutes": "1"}, "older than 1 minute is stale"},
		{map[string]string{"min_sources": "1"}, "at least 1 independent source "},
		{map[string]string{"review_days": "7"}, "Every 7 days"},
		{map[string]string{"extremize": "1"}, "Do not extremize"},
		{map[string]string{"pool": "mean", "extremize": "1.4", "disagree_pts": "25"}, `"method":"mean","extremize":1.4,"disagree_pts":25}`},
		{map[string]string{"preset": "team", "pool": "mean", "bins": "10", "share": "unset"}, "the preset `team` (several agents and people forecasting the same questions), with `share`, `pool` and `bins` changed"},
		{nil, "the defaults, without a preset."},
	} {
		s, _ := Resolve(tc.in)
		if md := s.Skill(Options{}); !strings.Contains(md, tc.want) {
			t.Errorf("Resolve(%v).Skill() lacks %q", tc.in, tc.want)
		}
	}
}

func TestLinkAndInstall(t *testing.T) {
	s, _ := Resolve(map[string]string{"preset": "team", "floor_pct": "50", "pool": "mean"})
	for _, tc := range []struct {
		base, link, install string
	}{
		{"", "http://127.0.0.1:8080/predictions.md?preset=team&pool=mean&floor_pct=10",
			"mkdir -p .claude/skills/predictions && curl -fsSL 'http://127.0.0.1:8080/predictions.md?preset=team&pool=mean&floor_pct=10' -o .claude/skills/predictions/SKILL.md"},
		{"https://p.example/base/", "https://p.example/base/predictions.md?preset=team&pool=mean&floor_pct=10",
			"mkdir -p .claude/skills/predictions && curl -fsSL 'https://p.example/base/predictions.md?preset=team&pool=mean&floor_pct=10' -o .claude/skills/predictions/SKILL.md"},
		{"https://o'neil.example", "https://o'neil.example/predictions.md?preset=team&pool=mean&floor_pct=10",
			`mkdir -p .claude/skills/predictions && curl -fsSL 'https://o'\''neil.example/predictions.md?preset=team&pool=mean&floor_pct=10' -o .claude/skills/predictions/SKILL.md`},
	} {
		if got := s.Link(tc.base); got != tc.link {
			t.Errorf("Link(%q) = %q, want %q", tc.base, got, tc.link)
		}
		if got := s.Install(tc.base); got != tc.install {
			t.Errorf("Install(%q) = %q, want %q", tc.base, got, tc.install)
		}
	}
	if got := (Settings{}).Link(""); got != "http://127.0.0.1:8080/predictions.md" {
		t.Errorf("defaults Link = %q, want no query", got)
	}
}

func TestQueryEscape(t *testing.T) {
	if got := queryEscape("a b&c=d%é"); got != "a%20b%26c%3Dd%25%C3%A9" {
		t.Errorf("queryEscape = %q", got)
	}
}
