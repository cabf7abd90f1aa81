package skillsettings

// Kind is the type of a setting's value.
type Kind string

// The kinds of setting.
const (
	// Choice: one of a fixed list of options.
	Choice Kind = "choice"
	// Integer: a whole number within a range. A fraction is rounded.
	Integer Kind = "integer"
	// Number: a number within a range.
	Number Kind = "number"
)

// Unset is the value that clears an optional setting (one without a
// default), for example one a preset has set.
const Unset = "unset"

// Range is the closed interval a numeric setting is clamped into.
type Range struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// Option is one allowed value of a [Choice] setting.
type Option struct {
	Value   string `json:"value"`
	Meaning string `json:"meaning"`
}

// Setting describes one setting of the catalog (specification section 2.4).
type Setting struct {
	// Name is the setting's name as sent in a query string or JSON body.
	Name string `json:"name"`
	// Group is the [Group] ID the setting belongs to.
	Group string `json:"group"`
	// Kind is the type of value.
	Kind Kind `json:"kind"`
	// Unit names what a numeric value counts ("points", "minutes"); empty
	// for choices.
	Unit string `json:"unit,omitempty"`
	// Range is the interval of a numeric setting; nil for choices.
	Range *Range `json:"range,omitempty"`
	// Options are the allowed values of a choice, in the catalog's order;
	// an optional choice lists [Unset] last.
	Options []Option `json:"options,omitempty"`
	// Default is the value used when neither a preset nor an explicit value
	// sets the setting; empty for an optional setting.
	Default string `json:"default,omitempty"`
	// Optional reports that the setting has no default and may be cleared
	// with [Unset].
	Optional bool `json:"optional"`
	// Meaning is a one-line description.
	Meaning string `json:"meaning"`
}

// Allowed returns the values a choice accepts (including [Unset] when the
// setting is optional), or nil for a numeric setting.
func (s Setting) Allowed() []string {
	if len(s.Options) == 0 {
		return nil
	}
	out := make([]string, len(s.Options))
	for i, o := range s.Options {
		out[i] = o.Value
	}
	return out
}

// Group is a heading under which settings are listed, in the catalog and in
// the skill file.
type Group struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Intro is one sentence saying what the group's settings govern.
	Intro string `json:"intro"`
}

// Preset is a named, coherent set of values for every setting.
type Preset struct {
	Name string `json:"name"`
	// Summary says in one line who the preset is for.
	Summary string `json:"summary"`
	// Reasoning explains why the preset gives the values it gives.
	Reasoning string `json:"reasoning"`
	// Values holds a value for every setting of the catalog; [Unset]
	// leaves an optional setting without a rule.
	Values map[string]string `json:"values"`
}

var groups = []Group{
	{"use", "Using and sharing forecasts", "What a forecast may be used for and where it may go."},
	{"combine", "Combining forecasts", "How forecasts by several agents and people on one question become one figure."},
	{"evidence", "Evidence and updates", "What a forecast rests on and when it is revised."},
	{"format", "Writing probabilities", "How probabilities are written for people."},
	{"scoring", "Scoring and review", "How resolved forecasts are scored and how often the scores are reviewed."},
}

func opts(pairs ...string) []Option {
	out := make([]Option, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Option{Value: pairs[i], Meaning: pairs[i+1]})
	}
	return out
}

const unsetMeaning = "no rule: clears the value a preset gives"

// settings is the catalog, in the order of specification section 2.4. That
// order is the order of the skill file, of the JSON form and of query
// strings.
var settings = []Setting{
	{
		Name: "act_on_forecasts", Group: "use", Kind: Choice, Default: "never",
		Options: opts("never", "forecasts are information only", "ask", "ask the person every time before using a forecast to decide anything"),
		Meaning: "using a forecast to decide something: never, or only after asking the person each time",
	},
	{
		Name: "share", Group: "use", Kind: Choice, Optional: true,
		Options: opts("never", "forecasts stay in the team's file", "ask", "ask the person before sharing outside the file", "allowed", "may be shared, labelled as forecasts", Unset, unsetMeaning),
		Meaning: "sharing forecasts outside the team's forecast file",
	},
	{
		Name: "pool", Group: "combine", Kind: Choice, Default: "geo_odds",
		Options: opts("geo_odds", "average of log-odds (geometric mean of odds)", "mean", "average probability", "median", "median probability",
			"recency", "Metaculus's community prediction: the median with newer forecasts weighing more",
			"skill", "average of log-odds weighing newer forecasts and better-scored forecasters more, pushed a little from 50%"),
		Meaning: "how several forecasts on one question are combined",
	},
	{
		Name: "independent_first", Group: "combine", Kind: Choice, Optional: true,
		Options: opts("yes", "forecast before reading the others' forecasts", "no", "the others' forecasts may be read first", Unset, unsetMeaning),
		Meaning: "each agent forecasts before reading the others'",
	},
	{
		Name: "min_forecasters", Group: "combine", Kind: Integer, Unit: "forecasters", Range: &Range{1, 50}, Optional: true,
		Meaning: "combine only with at least this many forecasts",
	},
	{
		Name: "disagree_pts", Group: "combine", Kind: Integer, Unit: "points", Range: &Range{5, 60}, Optional: true,
		Meaning: "flag when forecasts differ by more than this many percentage points",
	},
	{
		Name: "extremize", Group: "combine", Kind: Number, Unit: "factor", Range: &Range{1, 2.5}, Optional: true,
		Meaning: "push the combined forecast away from 50% by this factor on the log-odds",
	},
	{
		Name: "base_rate_first", Group: "evidence", Kind: Choice, Optional: true,
		Options: opts("yes", "start every forecast from a base rate", "no", "a base rate is not required", Unset, unsetMeaning),
		Meaning: "start every forecast from a base rate",
	},
	{
		Name: "min_sources", Group: "evidence", Kind: Integer, Unit: "sources", Range: &Range{0, 10}, Optional: true,
		Meaning: "independent sources behind each forecast",
	},
	{
		Name: "stale_minutes", Group: "evidence", Kind: Integer, Unit: "minutes", Range: &Range{1, 10080}, Optional: true,
		Meaning: "treat data as stale after this many minutes",
	},
	{
		Name: "timestamps", Group: "evidence", Kind: Choice, Optional: true,
		Options: opts("yes", "give the time of every data point", "no", "data points need no time", Unset, unsetMeaning),
		Meaning: "give the time of every data point",
	},
	{
		Name: "update_on", Group: "evidence", Kind: Choice, Optional: true,
		Options: opts("evidence", "when new evidence arrives", "daily", "once a day", "weekly", "once a week", Unset, unsetMeaning),
		Meaning: "when forecasts are updated",
	},
	{
		Name: "p_format", Group: "format", Kind: Choice, Default: "percent",
		Options: opts("percent", "62%", "decimal", "0.62"),
		Meaning: "write probabilities as percentages or decimals",
	},
	{
		Name: "floor_pct", Group: "format", Kind: Number, Unit: "percent", Range: &Range{0.1, 10}, Default: "1",
		Meaning: "never go below this percent, or above 100% minus it",
	},
	{
		Name: "decimals", Group: "format", Kind: Integer, Unit: "decimal places", Range: &Range{0, 3}, Optional: true,
		Meaning: "decimal places of a percentage (a decimal probability carries two more)",
	},
	{
		Name: "show_odds", Group: "format", Kind: Choice, Optional: true,
		Options: opts("no", "probabilities only", "odds_for", "also odds for, as a:b", "decimal", "also decimal odds", Unset, unsetMeaning),
		Meaning: "also show the odds",
	},
	{
		Name: "score_rule", Group: "scoring", Kind: Choice, Optional: true,
		Options: opts("brier", "Brier score", "log", "log score", "both", "both scores", Unset, unsetMeaning),
		Meaning: "score resolved forecasts with the Brier score, the log score or both",
	},
	{
		Name: "bins", Group: "scoring", Kind: Choice, Optional: true,
		Options: opts("5", "5 bins of 20 points", "10", "10 bins of 10 points", Unset, unsetMeaning),
		Meaning: "bins of the calibration table",
	},
	{
		Name: "review_days", Group: "scoring", Kind: Integer, Unit: "days", Range: &Range{1, 90}, Optional: true,
		Meaning: "review scores every this many days",
	},
}

// presets, from the least to the most demanding. Each gives a value to every
// setting; the reasoning is part of the catalog so that a person choosing a
// preset can read why.
var presets = []Preset{
	{
		Name:    "core",
		Summary: "The safe minimum: forecasts are information only and stay in the file; everything else is left to judgement.",
		Reasoning: "Core sets only what keeps an agent safe and its numbers honest: forecasts are never acted on and never leave the team's file, " +
			"forecasts are combined by the geometric mean of odds, and no probability goes below 1% or above 99%. " +
			"It prescribes no method (sources, updates, scoring), so it fits any agent on its first day.",
		Values: map[string]string{
			"act_on_forecasts": "never", "share": "never",
			"pool": "geo_odds", "independent_first": Unset, "min_forecasters": Unset, "disagree_pts": Unset, "extremize": Unset,
			"base_rate_first": Unset, "min_sources": Unset, "stale_minutes": Unset, "timestamps": Unset, "update_on": Unset,
			"p_format": "percent", "floor_pct": "1", "decimals": Unset, "show_odds": Unset,
			"score_rule": Unset, "bins": Unset, "review_days": Unset,
		},
	},
	{
		Name:    "recommended",
		Summary: "Good forecasting habits for one agent working with one person.",
		Reasoning: "Recommended adds the habits that most improve forecasts: start from a base rate (the outside view), forecast before reading others, " +
			"cite at least one source with the time of each data point, treat data older than a day as stale, and update when evidence arrives. " +
			"Sharing outside the file needs the person's yes. Probabilities are whole percentages (finer digits suggest precision forecasts rarely have), without odds. " +
			"The Brier score is the easiest score to explain; 5 calibration bins suit the few dozen questions one agent resolves; a monthly review fits that pace.",
		Values: map[string]string{
			"act_on_forecasts": "never", "share": "ask",
			"pool": "geo_odds", "independent_first": "yes", "min_forecasters": Unset, "disagree_pts": "20", "extremize": Unset,
			"base_rate_first": "yes", "min_sources": "1", "stale_minutes": "1440", "timestamps": "yes", "update_on": "evidence",
			"p_format": "percent", "floor_pct": "1", "decimals": "0", "show_odds": "no",
			"score_rule": "brier", "bins": "5", "review_days": "30",
		},
	},
	{
		Name:    "team",
		Summary: "Several agents and people forecasting the same questions.",
		Reasoning: "Team is recommended plus what pooling needs: each forecaster commits before reading the others (so the pool averages independent views), " +
			"a combined figure needs at least two forecasters, and a spread above 20 points is flagged for discussion. " +
			"Everyone updates daily, so the latest forecasts pooled together are of the same age, and each rests on two sources. " +
			"Extremizing stays off: agents built on similar models and reading the same sources share information, and extremizing such a pool makes it overconfident. " +
			"Both scores are kept (the log score punishes confident misses the Brier score forgives), reviewed every two weeks.",
		Values: map[string]string{
			"act_on_forecasts": "never", "share": "ask",
			"pool": "geo_odds", "independent_first": "yes", "min_forecasters": "2", "disagree_pts": "20", "extremize": Unset,
			"base_rate_first": "yes", "min_sources": "2", "stale_minutes": "1440", "timestamps": "yes", "update_on": "daily",
			"p_format": "percent", "floor_pct": "1", "decimals": "0", "show_odds": "no",
			"score_rule": "both", "bins": "5", "review_days": "14",
		},
	},
	{
		Name:    "strict",
		Summary: "For teams that act on forecasts, but only with many sources, several forecasters and frequent review.",
		Reasoning: "Strict is the only preset that lets a forecast inform a decision, and only after the person says yes each time; in return it asks the most of the forecasts behind it: " +
			"three forecasters, three independent sources each, data no older than six hours, a flag from 15 points of disagreement, and no probability within 2 points of certainty, " +
			"because a confident miss costs most when someone acts on it. Extremizing stays off for the same reason. " +
			"Both scores with 10 calibration bins (the team resolves enough questions to fill them) are reviewed weekly, so a drift in calibration is caught within days.",
		Values: map[string]string{
			"act_on_forecasts": "ask", "share": "ask",
			"pool": "geo_odds", "independent_first": "yes", "min_forecasters": "3", "disagree_pts": "15", "extremize": Unset,
			"base_rate_first": "yes", "min_sources": "3", "stale_minutes": "360", "timestamps": "yes", "update_on": "daily",
			"p_format": "percent", "floor_pct": "2", "decimals": "0", "show_odds": "no",
			"score_rule": "both", "bins": "10", "review_days": "7",
		},
	},
}

// index maps a setting's name to its position in settings.
var index = func() map[string]int {
	m := make(map[string]int, len(settings))
	for i, s := range settings {
		m[s.Name] = i
	}
	return m
}()

// Catalog returns every setting in the catalog's order (specification
// section 2.4, without preset and format). The result is a fresh copy.
func Catalog() []Setting {
	out := make([]Setting, len(settings))
	for i, s := range settings {
		out[i] = copySetting(s)
	}
	return out
}

func copySetting(s Setting) Setting {
	if s.Range != nil {
		r := *s.Range
		s.Range = &r
	}
	s.Options = append([]Option(nil), s.Options...)
	return s
}

// Lookup returns the setting with the given name (exact, as in the catalog).
func Lookup(name string) (Setting, bool) {
	i, ok := index[name]
	if !ok {
		return Setting{}, false
	}
	return copySetting(settings[i]), true
}

// Groups returns the groups in the order the skill file lists them.
func Groups() []Group {
	return append([]Group(nil), groups...)
}

// Presets returns the four presets, from the least to the most demanding:
// core, recommended, team, strict. The result is a fresh copy.
func Presets() []Preset {
	out := make([]Preset, len(presets))
	for i, p := range presets {
		out[i] = copyPreset(p)
	}
	return out
}

// PresetNames returns the names of the presets, in order.
func PresetNames() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.Name
	}
	return out
}

// LookupPreset returns the preset with the given name (exact, lower case).
// The result is a fresh copy.
func LookupPreset(name string) (Preset, bool) {
	p, ok := presetByName(name)
	if !ok {
		return Preset{}, false
	}
	return copyPreset(p), true
}

// presetByName returns the preset itself, not a copy: callers only read it.
func presetByName(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

func copyPreset(p Preset) Preset {
	v := make(map[string]string, len(p.Values))
	for k, x := range p.Values {
		v[k] = x
	}
	p.Values = v
	return p
}

// Format is the build_settings-only parameter choosing what is returned.
type Format string

// The formats of build_settings.
const (
	// FormatSection returns the settings sections only (the default).
	FormatSection Format = "section"
	// FormatSkill returns the whole skill file as well.
	FormatSkill Format = "skill"
)

// ParseFormat reads the build_settings format parameter. The empty string
// gives [FormatSection]. Anything else but "section" or "skill" returns a
// *[ValueError] wrapping [ErrInvalid] whose Allowed lists both.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", FormatSection:
		return FormatSection, nil
	case FormatSkill:
		return FormatSkill, nil
	}
	return "", &ValueError{Setting: "format", Value: s, Allowed: []string{string(FormatSection), string(FormatSkill)}, Err: ErrInvalid}
}
