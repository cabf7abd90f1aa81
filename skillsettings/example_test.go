package skillsettings_test

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/predictions-md/predictions/skillsettings"
)

func ExampleLookup() {
	s, ok := skillsettings.Lookup("floor_pct")
	fmt.Println(ok, s.Kind, s.Unit, s.Range.Min, s.Range.Max, s.Default)
	fmt.Println(s.Meaning)

	p, _ := skillsettings.LookupPreset("strict")
	fmt.Println(p.Values["act_on_forecasts"], p.Values["min_forecasters"], p.Values["min_sources"], p.Values["review_days"])
	// Output:
	// true number percent 0.1 10 1
	// never go below this percent, or above 100% minus it
	// ask 3 3 7
}

func ExampleResolve() {
	s, notes := skillsettings.Resolve(map[string]string{
		"preset":    "team",
		"pool":      "mean",  // overrides the preset's geo_odds
		"floor_pct": "25",    // out of range: clamped to 10
		"share":     "unset", // clears the preset's value
		"bins":      "7",     // not a choice: ignored, the preset's 5 stays
	})
	for _, n := range notes {
		fmt.Printf("%s: %s\n", n.Kind, n)
	}
	pool, _ := s.Get("pool")
	floor, _ := s.Get("floor_pct")
	_, shared := s.Get("share")
	bins, _ := s.Get("bins")
	fmt.Println(s.Preset(), pool, floor, shared, bins)
	// Output:
	// clamped: floor_pct: 25 is above the maximum 10; used 10
	// invalid: bins: "7" is not one of 5, 10, unset; ignored, kept 5
	// team mean 10 false 5
}

// An adapter for build_settings rejects invalid values and reports the rest.
func ExampleNote_Err() {
	_, notes := skillsettings.ResolveQuery(url.Values{"pool": {"average"}, "decimals": {"9"}})
	for _, n := range notes {
		if err := n.Err(); err != nil && n.Kind == skillsettings.NoteInvalid {
			fmt.Println("400:", err)
			continue
		}
		fmt.Println("note:", n)
	}
	// Output:
	// 400: skillsettings: pool: "average" is not allowed; use one of geo_odds, mean, median, recency, skill, for example pool=geo_odds
	// note: decimals: 9 is above the maximum 3; used 3
}

func ExampleSettings_Link() {
	s, _ := skillsettings.Resolve(map[string]string{"preset": "recommended", "pool": "median", "decimals": "0"})
	// decimals=0 is what the preset gives already, so the link leaves it out.
	fmt.Println(s.Link("https://predictions.example"))
	fmt.Println(s.Install("https://predictions.example"))
	// Output:
	// https://predictions.example/predictions.md?preset=recommended&pool=median
	// mkdir -p .claude/skills/predictions && curl -fsSL 'https://predictions.example/predictions.md?preset=recommended&pool=median' -o .claude/skills/predictions/SKILL.md
}

func ExampleSettings_MarshalJSON() {
	s, _ := skillsettings.Resolve(map[string]string{"preset": "core"})
	b, _ := s.MarshalJSON()
	fmt.Println(string(b))
	// Output:
	// {"preset":"core","act_on_forecasts":"never","share":"never","pool":"geo_odds","independent_first":null,"min_forecasters":null,"disagree_pts":null,"extremize":null,"base_rate_first":null,"min_sources":null,"stale_minutes":null,"timestamps":null,"update_on":null,"p_format":"percent","floor_pct":1,"decimals":null,"show_odds":null,"score_rule":null,"bins":null,"review_days":null}
}

func ExampleSettings_Skill() {
	s, _ := skillsettings.Resolve(map[string]string{"preset": "strict"})
	md := s.Skill(skillsettings.Options{
		BaseURL: "https://predictions.example",
		Tools:   []skillsettings.Tool{{Name: "combine_forecasts", Summary: "Pool several forecasts."}},
	})
	lines := strings.Split(md, "\n")
	fmt.Println(strings.Join(lines[:3], "\n"))
	fmt.Println(strings.Contains(md, "- **act_on_forecasts: ask.** Before a forecast is used"))
	// Output:
	// ---
	// name: predictions
	// description: Keep honest, calibrated forecasts on yes/no questions in a Markdown forecast file, and do the arithmetic with the predictions service (convert odds, combine forecasts, Bayes updates, Brier and log scores, file checks). Use when someone asks how likely something is, wants a forecast made, updated, combined or scored, mentions odds or a base rate, or keeps a forecasts.md file. Forecasts are information only, never advice.
	// true
}
