package skillsettings

import (
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specRow is one row of the table in specification 1, section 2.4, copied
// from the specification rather than from the code.
type specRow struct {
	name     string
	kind     Kind
	allowed  []string // choices, including unset where the spec lists it
	min, max float64
	def      string // "" for optional
}

var spec24 = []specRow{
	{"act_on_forecasts", Choice, []string{"never", "ask"}, 0, 0, "never"},
	{"share", Choice, []string{"never", "ask", "allowed", "unset"}, 0, 0, ""},
	{"pool", Choice, []string{"geo_odds", "mean", "median", "recency", "skill"}, 0, 0, "geo_odds"},
	{"independent_first", Choice, []string{"yes", "no", "unset"}, 0, 0, ""},
	{"min_forecasters", Integer, nil, 1, 50, ""},
	{"disagree_pts", Integer, nil, 5, 60, ""},
	{"extremize", Number, nil, 1, 2.5, ""},
	{"base_rate_first", Choice, []string{"yes", "no", "unset"}, 0, 0, ""},
	{"min_sources", Integer, nil, 0, 10, ""},
	{"stale_minutes", Integer, nil, 1, 10080, ""},
	{"timestamps", Choice, []string{"yes", "no", "unset"}, 0, 0, ""},
	{"update_on", Choice, []string{"evidence", "daily", "weekly", "unset"}, 0, 0, ""},
	{"p_format", Choice, []string{"percent", "decimal"}, 0, 0, "percent"},
	{"floor_pct", Number, nil, 0.1, 10, "1"},
	{"decimals", Integer, nil, 0, 3, ""},
	{"show_odds", Choice, []string{"no", "odds_for", "decimal", "unset"}, 0, 0, ""},
	{"score_rule", Choice, []string{"brier", "log", "both", "unset"}, 0, 0, ""},
	{"bins", Choice, []string{"5", "10", "unset"}, 0, 0, ""},
	{"review_days", Integer, nil, 1, 90, ""},
}

func TestCatalogMatchesSpec(t *testing.T) {
	cat := Catalog()
	if len(cat) != len(spec24) {
		t.Fatalf("Catalog() has %d settings, want %d", len(cat), len(spec24))
	}
	groupIDs := map[string]bool{}
	for _, g := range Groups() {
		groupIDs[g.ID] = true
	}
	for i, want := range spec24 {
		got := cat[i]
		t.Run(want.name, func(t *testing.T) {
			if got.Name != want.name {
				t.Fatalf("setting %d is %q, want %q (catalog order must follow the spec)", i, got.Name, want.name)
			}
			if got.Kind != want.kind {
				t.Errorf("Kind = %q, want %q", got.Kind, want.kind)
			}
			if diff := cmp.Diff(want.allowed, got.Allowed()); diff != "" {
				t.Errorf("Allowed() (-want +got):\n%s", diff)
			}
			if want.kind != Choice {
				if got.Range == nil || got.Range.Min != want.min || got.Range.Max != want.max {
					t.Errorf("Range = %+v, want [%v, %v]", got.Range, want.min, want.max)
				}
				if got.Unit == "" {
					t.Error("numeric setting without a unit")
				}
			} else if got.Range != nil {
				t.Errorf("choice with a Range %+v", got.Range)
			}
			if got.Default != want.def {
				t.Errorf("Default = %q, want %q", got.Default, want.def)
			}
			if got.Optional != (want.def == "") {
				t.Errorf("Optional = %v, want %v", got.Optional, want.def == "")
			}
			if !groupIDs[got.Group] {
				t.Errorf("Group %q is not among Groups()", got.Group)
			}
			if got.Meaning == "" {
				t.Error("no Meaning")
			}
			for _, o := range got.Options {
				if o.Meaning == "" {
					t.Errorf("option %q has no meaning", o.Value)
				}
			}
		})
	}
}

func TestLookup(t *testing.T) {
	s, ok := Lookup("floor_pct")
	if !ok || s.Name != "floor_pct" {
		t.Fatalf("Lookup(floor_pct) = %+v, %v", s, ok)
	}
	s.Range.Max = 99 // must not change the catalog
	if again, _ := Lookup("floor_pct"); again.Range.Max != 10 {
		t.Errorf("Lookup returned shared state: Range.Max = %v after a caller changed its copy", again.Range.Max)
	}
	for _, name := range []string{"preset", "format", "Floor_pct", "floor-pct", ""} {
		if _, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) found a setting", name)
		}
	}
}

func TestPresets(t *testing.T) {
	if diff := cmp.Diff([]string{"core", "recommended", "team", "strict"}, PresetNames()); diff != "" {
		t.Fatalf("PresetNames() (-want +got):\n%s", diff)
	}
	seen := map[string]string{}
	for _, p := range Presets() {
		t.Run(p.Name, func(t *testing.T) {
			if p.Summary == "" || p.Reasoning == "" {
				t.Error("preset without summary or reasoning")
			}
			if len(p.Values) != len(settings) {
				t.Errorf("preset gives %d values, want one for each of the %d settings", len(p.Values), len(settings))
			}
			// Every value the preset gives must be one Resolve accepts as it is.
			in := map[string]string{}
			for k, v := range p.Values {
				if _, ok := Lookup(k); !ok {
					t.Errorf("value for unknown setting %q", k)
				}
				in[k] = v
			}
			s, notes := Resolve(in)
			if len(notes) != 0 {
				t.Errorf("the preset's own values give notes: %v", Strings(notes))
			}
			// Applying the preset by name gives the same settings.
			byName, notes := Resolve(map[string]string{"preset": p.Name})
			if len(notes) != 0 {
				t.Errorf("Resolve(preset=%s) notes: %v", p.Name, Strings(notes))
			}
			if diff := cmp.Diff(s.Values(), byName.Values()); diff != "" {
				t.Errorf("preset by name differs from its values (-values +byname):\n%s", diff)
			}
			q := s.Query() // without preset: the diff against the defaults
			if prev, dup := seen[q]; dup {
				t.Errorf("preset %s gives the same settings as %s", p.Name, prev)
			}
			seen[q] = p.Name
		})
	}
}

// The policy the issue asks for: core is the safe minimum, strict demands the
// most of forecasts that may be acted on.
func TestPresetPolicy(t *testing.T) {
	get := func(preset, name string) string {
		p, _ := LookupPreset(preset)
		return p.Values[name]
	}
	if got := get("core", "act_on_forecasts"); got != "never" {
		t.Errorf("core act_on_forecasts = %q, want never", got)
	}
	set := 0
	for k, v := range mustPreset(t, "core").Values {
		if v != Unset {
			if s, _ := Lookup(k); s.Optional {
				set++
			}
		}
	}
	if set > 1 {
		t.Errorf("core sets %d optional settings; the safe minimum should set at most share", set)
	}
	// Demands grow (never shrink) from core to strict for the numeric
	// safeguards; unset counts as no demand.
	order := []string{"core", "recommended", "team", "strict"}
	for _, name := range []string{"min_forecasters", "min_sources", "floor_pct"} {
		prev := -1.0
		for _, p := range order {
			v := num0(get(p, name))
			if v < prev {
				t.Errorf("%s: %s demands %v, less than the preset before it (%v)", name, p, v, prev)
			}
			prev = v
		}
	}
	// Review gets more frequent, the disagreement flag tighter, staleness shorter.
	for _, name := range []string{"review_days", "disagree_pts", "stale_minutes"} {
		prev := 1e9
		for _, p := range order[1:] {
			v := num0(get(p, name))
			if v > prev {
				t.Errorf("%s: %s gives %v, looser than the preset before it (%v)", name, p, v, prev)
			}
			prev = v
		}
	}
	if get("strict", "act_on_forecasts") != "ask" || get("strict", "min_forecasters") == Unset || get("strict", "min_sources") == Unset {
		t.Error("strict must allow acting only with several forecasters and sources")
	}
}

func mustPreset(t *testing.T, name string) Preset {
	t.Helper()
	p, ok := LookupPreset(name)
	if !ok {
		t.Fatalf("LookupPreset(%q) not found", name)
	}
	return p
}

func num0(v string) float64 {
	if v == Unset {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		panic(err)
	}
	return f
}

func TestLookupPresetCopy(t *testing.T) {
	p := mustPreset(t, "team")
	p.Values["pool"] = "median"
	if mustPreset(t, "team").Values["pool"] != "geo_odds" {
		t.Error("LookupPreset returned shared state")
	}
	if _, ok := LookupPreset("none"); ok {
		t.Error(`LookupPreset("none") found a preset`)
	}
}

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Format
		err  bool
	}{
		{"", FormatSection, false},
		{"section", FormatSection, false},
		{"skill", FormatSkill, false},
		{"json", "", true},
		{"Skill", "", true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseFormat(tc.in)
			if got != tc.want || (err != nil) != tc.err {
				t.Fatalf("ParseFormat(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.err)
			}
			if err == nil {
				return
			}
			var ve *ValueError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseFormat(%q) error %v is not a *ValueError wrapping ErrInvalid", tc.in, err)
			}
			if diff := cmp.Diff([]string{"section", "skill"}, ve.Allowed); diff != "" {
				t.Errorf("Allowed (-want +got):\n%s", diff)
			}
		})
	}
}
