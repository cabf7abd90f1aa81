package skillsettings

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// defaults are the values without a preset, from the Default column of the
// specification's table.
var defaults = map[string]string{"act_on_forecasts": "never", "pool": "geo_odds", "p_format": "percent", "floor_pct": "1"}

func with(m map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

func presetValues(t *testing.T, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range mustPreset(t, name).Values {
		if v != Unset {
			out[k] = v
		}
	}
	return out
}

func TestZeroValueIsDefaults(t *testing.T) {
	var zero Settings
	if diff := cmp.Diff(defaults, zero.Values()); diff != "" {
		t.Errorf("Settings{}.Values() (-want +got):\n%s", diff)
	}
	s, notes := Resolve(nil)
	if len(notes) != 0 {
		t.Errorf("Resolve(nil) notes: %v", Strings(notes))
	}
	if diff := cmp.Diff(defaults, s.Values()); diff != "" {
		t.Errorf("Resolve(nil).Values() (-want +got):\n%s", diff)
	}
	if q := zero.Query(); q != "" {
		t.Errorf("Settings{}.Query() = %q, want empty", q)
	}
}

func TestResolveOrder(t *testing.T) {
	team := presetValues(t, "team")
	for _, tc := range []struct {
		name  string
		in    map[string]string
		want  map[string]string
		pre   string
		query string
	}{
		{"defaults", map[string]string{}, defaults, "", ""},
		{"explicit without preset", map[string]string{"pool": "median", "bins": "10"}, with(defaults, "pool", "median", "bins", "10"), "", "pool=median&bins=10"},
		{"preset alone", map[string]string{"preset": "team"}, team, "team", "preset=team"},
		{"explicit overrides preset", map[string]string{"preset": "team", "pool": "mean", "min_sources": "5"}, with(team, "pool", "mean", "min_sources", "5"), "team", "preset=team&pool=mean&min_sources=5"},
		{"explicit equal to preset is dropped from the link", map[string]string{"preset": "team", "pool": "geo_odds"}, team, "team", "preset=team"},
		{"unset clears a preset value", map[string]string{"preset": "team", "min_forecasters": "unset", "share": "unset"}, with(team, "min_forecasters", "", "share", ""), "team", "preset=team&share=unset&min_forecasters=unset"},
		{"unset of an already unset setting", map[string]string{"extremize": "unset"}, defaults, "", ""},
		{"case and spaces", map[string]string{"preset": " Strict ", "pool": "MEDIAN", "floor_pct": " 2.5% "}, with(presetValues(t, "strict"), "pool", "median", "floor_pct", "2.5"), "strict", "preset=strict&pool=median&floor_pct=2.5"},
		{"preset none", map[string]string{"preset": "none", "pool": "mean"}, with(defaults, "pool", "mean"), "", "pool=mean"},
		{"empty values are not given", map[string]string{"preset": "", "pool": "", "decimals": " "}, defaults, "", ""},
		{"canonical numbers", map[string]string{"extremize": "1.50", "stale_minutes": "60.0", "min_sources": "-0"}, with(defaults, "extremize", "1.5", "stale_minutes", "60", "min_sources", "0"), "", "extremize=1.5&min_sources=0&stale_minutes=60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, notes := Resolve(tc.in)
			if len(notes) != 0 {
				t.Errorf("notes: %v", Strings(notes))
			}
			if diff := cmp.Diff(tc.want, s.Values()); diff != "" {
				t.Errorf("Values() (-want +got):\n%s", diff)
			}
			if s.Preset() != tc.pre {
				t.Errorf("Preset() = %q, want %q", s.Preset(), tc.pre)
			}
			if got := s.Query(); got != tc.query {
				t.Errorf("Query() = %q, want %q", got, tc.query)
			}
		})
	}
}

// TestClamp covers both ends of every numeric setting of the clamping rule
// of section 2.4.
func TestClamp(t *testing.T) {
	for _, st := range Catalog() {
		if st.Kind == Choice {
			continue
		}
		lo, hi := st.Range.Min, st.Range.Max
		for _, tc := range []struct {
			in   string
			want float64
			kind NoteKind
			word string
		}{
			{num(lo - 1), lo, NoteClamped, "below the minimum"},
			{"-1e400", lo, NoteClamped, "below the minimum"},
			{num(hi + 1), hi, NoteClamped, "above the maximum"},
			{num(hi * 1000), hi, NoteClamped, "above the maximum"},
			{"1e400", hi, NoteClamped, "above the maximum"},
			{"+Inf", hi, NoteClamped, "above the maximum"},
			{num(lo), lo, "", ""},
			{num(hi), hi, "", ""},
		} {
			t.Run(st.Name+"="+tc.in, func(t *testing.T) {
				s, notes := Resolve(map[string]string{st.Name: tc.in})
				got, _ := s.Get(st.Name)
				if got != num(tc.want) {
					t.Errorf("value = %q, want %q", got, num(tc.want))
				}
				if tc.kind == "" {
					if len(notes) != 0 {
						t.Errorf("notes for a value in range: %v", Strings(notes))
					}
					return
				}
				want := []Note{{Kind: tc.kind, Setting: st.Name, Value: tc.in, Used: num(tc.want), Range: &Range{lo, hi}}}
				if diff := cmp.Diff(want, notes); diff != "" {
					t.Errorf("notes (-want +got):\n%s", diff)
				}
				if msg := notes[0].String(); !strings.Contains(msg, tc.word) || !strings.HasPrefix(msg, st.Name+": ") {
					t.Errorf("note %q does not name the setting and say %q", msg, tc.word)
				}
				if notes[0].Err() != nil {
					t.Errorf("a clamp note is an error: %v", notes[0].Err())
				}
			})
		}
	}
}

func TestRound(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string
		kinds    []NoteKind
	}{
		{"min_forecasters", "2.5", "3", []NoteKind{NoteRounded}}, // half away from zero
		{"min_forecasters", "2.49", "2", []NoteKind{NoteRounded}},
		{"decimals", "1.5", "2", []NoteKind{NoteRounded}},
		{"review_days", "0.4", "1", []NoteKind{NoteClamped}},    // clamped first, then whole
		{"disagree_pts", "60.7", "60", []NoteKind{NoteClamped}}, // idem
		{"stale_minutes", "90.0", "90", nil},
		{"extremize", "1.25", "1.25", nil}, // a number, not an integer
		{"floor_pct", "0.5", "0.5", nil},
	} {
		t.Run(tc.name+"="+tc.in, func(t *testing.T) {
			s, notes := Resolve(map[string]string{tc.name: tc.in})
			if got, _ := s.Get(tc.name); got != tc.want {
				t.Errorf("value = %q, want %q", got, tc.want)
			}
			var kinds []NoteKind
			for _, n := range notes {
				kinds = append(kinds, n.Kind)
			}
			if diff := cmp.Diff(tc.kinds, kinds); diff != "" {
				t.Errorf("note kinds (-want +got):\n%s", diff)
			}
		})
	}
	_, notes := Resolve(map[string]string{"min_forecasters": "2.5"})
	if got, want := notes[0].String(), "min_forecasters: 2.5 is not a whole number; rounded to 3"; got != want {
		t.Errorf("note = %q, want %q", got, want)
	}
}

func TestInvalid(t *testing.T) {
	team := presetValues(t, "team")
	for _, tc := range []struct {
		name    string
		in      map[string]string
		want    map[string]string
		note    Note
		message string
	}{
		{
			"choice not among options", map[string]string{"preset": "team", "pool": "avg"}, team,
			Note{Kind: NoteInvalid, Setting: "pool", Value: "avg", Used: "geo_odds", Allowed: []string{"geo_odds", "mean", "median", "recency", "skill"}},
			`pool: "avg" is not one of geo_odds, mean, median, recency, skill; ignored, kept geo_odds`,
		},
		{
			"optional choice keeps unset", map[string]string{"show_odds": "american"}, defaults,
			Note{Kind: NoteInvalid, Setting: "show_odds", Value: "american", Used: "unset", Allowed: []string{"no", "odds_for", "decimal", "unset"}},
			`show_odds: "american" is not one of no, odds_for, decimal, unset; ignored, kept unset`,
		},
		{
			"bins is a choice, not a number", map[string]string{"bins": "20"}, defaults,
			Note{Kind: NoteInvalid, Setting: "bins", Value: "20", Used: "unset", Allowed: []string{"5", "10", "unset"}},
			`bins: "20" is not one of 5, 10, unset; ignored, kept unset`,
		},
		{
			"number that does not parse", map[string]string{"floor_pct": "two"}, defaults,
			Note{Kind: NoteInvalid, Setting: "floor_pct", Value: "two", Used: "1", Range: &Range{0.1, 10}},
			`floor_pct: "two" is not a number from 0.1 to 10; ignored, kept 1`,
		},
		{
			"NaN", map[string]string{"extremize": "NaN"}, defaults,
			Note{Kind: NoteInvalid, Setting: "extremize", Value: "NaN", Used: "unset", Range: &Range{1, 2.5}},
			`extremize: "NaN" is not a number from 1 to 2.5; ignored, kept unset`,
		},
		{
			"percent sign only on floor_pct", map[string]string{"disagree_pts": "20%"}, defaults,
			Note{Kind: NoteInvalid, Setting: "disagree_pts", Value: "20%", Used: "unset", Range: &Range{5, 60}},
			`disagree_pts: "20%" is not a number from 5 to 60; ignored, kept unset`,
		},
		{
			"unset on a setting with a default", map[string]string{"pool": "unset"}, defaults,
			Note{Kind: NoteInvalid, Setting: "pool", Value: "unset", Used: "geo_odds", Allowed: []string{"geo_odds", "mean", "median", "recency", "skill"}},
			`pool: cannot be unset; ignored, kept geo_odds`,
		},
		{
			"unset on floor_pct", map[string]string{"floor_pct": "unset"}, defaults,
			Note{Kind: NoteInvalid, Setting: "floor_pct", Value: "unset", Used: "1", Range: &Range{0.1, 10}},
			`floor_pct: cannot be unset; ignored, kept 1`,
		},
		{
			"unknown preset", map[string]string{"preset": "lenient"}, defaults,
			Note{Kind: NoteInvalid, Setting: "preset", Value: "lenient", Allowed: []string{"core", "recommended", "team", "strict"}},
			`preset: "lenient" is not one of core, recommended, team, strict; ignored, no preset applied`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, notes := Resolve(tc.in)
			if diff := cmp.Diff(tc.want, s.Values()); diff != "" {
				t.Errorf("Values() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]Note{tc.note}, notes); diff != "" {
				t.Fatalf("notes (-want +got):\n%s", diff)
			}
			if got := notes[0].String(); got != tc.message {
				t.Errorf("String() = %q, want %q", got, tc.message)
			}
			err := notes[0].Err()
			var ve *ValueError
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &ve) {
				t.Fatalf("Err() = %v, want a *ValueError wrapping ErrInvalid", err)
			}
			if ve.Setting != tc.note.Setting || !strings.Contains(err.Error(), tc.note.Setting) {
				t.Errorf("error %q does not name the setting %s", err, tc.note.Setting)
			}
			hint := ve.Hint()
			for _, a := range tc.note.Allowed {
				if !strings.Contains(hint, a) {
					t.Errorf("Hint() = %q does not list %q", hint, a)
				}
			}
			if tc.note.Range != nil && !strings.Contains(hint, num(tc.note.Range.Max)) {
				t.Errorf("Hint() = %q does not give the range", hint)
			}
		})
	}
}

func TestUnknown(t *testing.T) {
	s, notes := Resolve(map[string]string{"zeta": "1", "floor-pct": "2", "format": "skill", "alpha": "x", "Pool": "mean", "pool": "median"})
	if diff := cmp.Diff(with(defaults, "pool", "median"), s.Values()); diff != "" {
		t.Errorf("Values() (-want +got):\n%s", diff)
	}
	want := []string{
		"Pool: not a setting (did you mean pool?); ignored",
		"alpha: not a setting; ignored",
		"floor-pct: not a setting (did you mean floor_pct?); ignored",
		"format: applies only to build_settings; ignored",
		"zeta: not a setting; ignored",
	}
	if diff := cmp.Diff(want, Strings(notes)); diff != "" {
		t.Errorf("notes (sorted by name) (-want +got):\n%s", diff)
	}
	for _, n := range notes {
		if n.Kind != NoteUnknown || !errors.Is(n.Err(), ErrUnknown) {
			t.Errorf("note %v: kind %q, Err %v; want unknown wrapping ErrUnknown", n, n.Kind, n.Err())
		}
	}
	var ve *ValueError
	errors.As(notes[2].Err(), &ve)
	if h := ve.Hint(); !strings.HasPrefix(h, "did you mean floor_pct?") {
		t.Errorf("Hint() = %q, want a suggestion", h)
	}
}

func TestNoteTextIsOneASCIILine(t *testing.T) {
	long := strings.Repeat("é", 30)
	_, notes := Resolve(map[string]string{"pool": "a\r\nX-Evil: 1", "floor_pct": " 50\n", "na\nme": long, "bins": long})
	want := []string{
		`pool: "a\r\nX-Evil: 1" is not one of geo_odds, mean, median, recency, skill; ignored, kept geo_odds`,
		"floor_pct: 50 is above the maximum 10; used 10",
		`bins: "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"... is not one of 5, 10, unset; ignored, kept unset`,
		`"na\nme": not a setting; ignored`,
	}
	if diff := cmp.Diff(want, Strings(notes)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

func TestResolveQueryRepeated(t *testing.T) {
	s, notes := ResolveQuery(map[string][]string{"pool": {"mean", "", "median"}, "preset": {"core"}, "x": {"1", "2"}})
	if got, _ := s.Get("pool"); got != "median" {
		t.Errorf("pool = %q, want the last value, median", got)
	}
	want := []Note{
		{Kind: NoteRepeated, Setting: "pool", Value: "mean,median", Used: "median"},
		{Kind: NoteRepeated, Setting: "x", Value: "1,2", Used: "2"},
		{Kind: NoteUnknown, Setting: "x", Value: "2"},
	}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if got := notes[0].String(); got != "pool: given more than once; used the last value, median" {
		t.Errorf("String() = %q", got)
	}
}

func TestNotesOrder(t *testing.T) {
	// Map iteration is random: the notes must still come in the catalog's order.
	in := map[string]string{"review_days": "0", "preset": "nope", "pool": "x", "floor_pct": "11", "zz": "1", "aa": "1", "min_sources": "11"}
	_, first := Resolve(in)
	want := []string{"preset", "pool", "min_sources", "floor_pct", "review_days", "aa", "zz"}
	var got []string
	for _, n := range first {
		got = append(got, n.Setting)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("note order (-want +got):\n%s", diff)
	}
	for i := 0; i < 20; i++ {
		if _, again := Resolve(in); !cmp.Equal(first, again) {
			t.Fatalf("notes differ between runs:\n%v\n%v", first, again)
		}
	}
}

func TestResolveJSON(t *testing.T) {
	var body map[string]any
	if err := json.Unmarshal([]byte(`{
		"preset": "team", "pool": "mean", "min_forecasters": 4, "extremize": 1.2,
		"independent_first": false, "timestamps": true, "share": null, "act_on_forecasts": null,
		"bins": 10, "floor_pct": "2%", "decimals": [1], "extra": {"a": 1}
	}`), &body); err != nil {
		t.Fatal(err)
	}
	s, notes := ResolveJSON(body)
	want := with(presetValues(t, "team"), "pool", "mean", "min_forecasters", "4", "extremize", "1.2",
		"independent_first", "no", "share", "", "bins", "10", "floor_pct", "2")
	if diff := cmp.Diff(want, s.Values()); diff != "" {
		t.Errorf("Values() (-want +got):\n%s", diff)
	}
	wantNotes := []string{
		`decimals: "[1]" is not a number from 0 to 3; ignored, kept 0`,
		"extra: not a setting; ignored",
	}
	if diff := cmp.Diff(wantNotes, Strings(notes)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}

	// json.Number, as a decoder with UseNumber gives.
	s, notes = ResolveJSON(map[string]any{"stale_minutes": json.Number("120"), "preset": nil})
	if got, _ := s.Get("stale_minutes"); got != "120" || len(notes) != 0 || s.Preset() != "" {
		t.Errorf("ResolveJSON(json.Number) = %q, %v, preset %q", got, Strings(notes), s.Preset())
	}
}

func TestQueryRoundTrip(t *testing.T) {
	inputs := []map[string]string{
		{},
		{"preset": "core"},
		{"preset": "strict", "min_forecasters": "unset", "floor_pct": "0.25", "show_odds": "decimal"},
		{"preset": "recommended", "stale_minutes": "99999", "decimals": "2.6", "pool": "avg"},
		{"share": "allowed", "extremize": "2", "bins": "5", "p_format": "decimal"},
	}
	for _, p := range PresetNames() {
		for _, st := range settings {
			// Every option (and a mid-range number) on top of every preset.
			vals := st.Allowed()
			if vals == nil {
				vals = []string{num(math.Round((st.Range.Min + st.Range.Max) / 2))}
			}
			for _, v := range vals {
				inputs = append(inputs, map[string]string{"preset": p, st.Name: v})
			}
		}
	}
	for _, in := range inputs {
		s, _ := Resolve(in)
		q := s.Query()
		t.Run(fmt.Sprint(in), func(t *testing.T) {
			again, notes := ResolveQuery(parseQuery(t, q))
			if len(notes) != 0 {
				t.Errorf("Resolve(Query()) gives notes for %q: %v", q, Strings(notes))
			}
			if again.Preset() != s.Preset() || !cmp.Equal(s.Values(), again.Values()) {
				t.Errorf("Query() %q does not reproduce the settings:\n%s", q, cmp.Diff(s.Values(), again.Values()))
			}
			if again.Query() != q {
				t.Errorf("Query() is not stable: %q then %q", q, again.Query())
			}
		})
	}
}

// parseQuery splits a query string without net/url, so that the test also
// checks that Query needs no unescaping for catalog values.
func parseQuery(t *testing.T, q string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	if q == "" {
		return out
	}
	for _, kv := range strings.Split(q, "&") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.ContainsAny(kv, "%+ ") {
			t.Fatalf("query part %q is not a plain name=value", kv)
		}
		out[k] = append(out[k], v)
	}
	return out
}

func TestMarshalJSON(t *testing.T) {
	s, _ := Resolve(map[string]string{"preset": "strict", "extremize": "1.3", "review_days": "unset"})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("MarshalJSON gave invalid JSON %s: %v", b, err)
	}
	if got["preset"] != "strict" || got["extremize"] != 1.3 || got["review_days"] != nil || got["min_sources"] != 3.0 || got["bins"] != "10" {
		t.Errorf("MarshalJSON = %s", b)
	}
	if len(got) != len(settings)+1 {
		t.Errorf("MarshalJSON has %d keys, want preset plus %d settings", len(got), len(settings))
	}
	// The catalog's order.
	prev := -1
	for _, st := range settings {
		i := strings.Index(string(b), `"`+st.Name+`":`)
		if i < prev {
			t.Errorf("%s out of the catalog's order in %s", st.Name, b)
		}
		prev = i
	}
	// The JSON form resolves to the same settings.
	again, notes := ResolveJSON(got)
	if len(notes) != 0 || !cmp.Equal(s.Values(), again.Values()) || again.Preset() != "strict" {
		t.Errorf("ResolveJSON(MarshalJSON) = %v, notes %v", again.Values(), Strings(notes))
	}
	zero, _ := json.Marshal(Settings{})
	if !strings.HasPrefix(string(zero), `{"preset":null,"act_on_forecasts":"never",`) {
		t.Errorf("zero Settings JSON = %s", zero)
	}
}
