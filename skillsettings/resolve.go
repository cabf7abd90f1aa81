package skillsettings

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Errors a [Note] converts to with [Note.Err], and that [ParseFormat]
// returns, always inside a *[ValueError].
var (
	// ErrInvalid: the value is not one the setting allows (a choice not
	// among the options, a number that does not parse, unset for a setting
	// that always has a value, a preset that does not exist).
	ErrInvalid = errors.New("skillsettings: value not allowed")
	// ErrUnknown: the name is not a setting of the catalog.
	ErrUnknown = errors.New("skillsettings: unknown setting")
)

// ValueError is the detail of an invalid value or an unknown setting name.
type ValueError struct {
	// Setting is the name as given.
	Setting string
	// Value is the value as given.
	Value string
	// Allowed lists the values a choice (or preset) accepts; nil otherwise.
	Allowed []string
	// Range is the interval of a numeric setting; nil otherwise.
	Range *Range
	// Err is [ErrInvalid] or [ErrUnknown].
	Err error
}

// Error names the setting and the value, and says what is allowed.
func (e *ValueError) Error() string {
	if errors.Is(e.Err, ErrUnknown) {
		return fmt.Sprintf("skillsettings: %s is not a setting; %s", quote(e.Setting), e.Hint())
	}
	what := quote(e.Value) + " is not allowed"
	if e.Range != nil {
		what = quote(e.Value) + " is not a number"
	}
	if e.Value == Unset {
		what = "it cannot be unset, it always has a value"
	}
	return fmt.Sprintf("skillsettings: %s: %s; %s", show(e.Setting), what, e.Hint())
}

// Unwrap returns [ErrInvalid] or [ErrUnknown].
func (e *ValueError) Unwrap() error { return e.Err }

// Hint says how to fix the value, with an example, for an adapter's
// Problem hint.
func (e *ValueError) Hint() string {
	switch {
	case errors.Is(e.Err, ErrUnknown):
		if s := suggest(e.Setting); s != "" {
			return fmt.Sprintf("did you mean %s? The settings are: %s", s, strings.Join(names(), ", "))
		}
		return "the settings are: " + strings.Join(names(), ", ")
	case e.Range != nil:
		return fmt.Sprintf("use a number from %s to %s, for example %s=%s", num(e.Range.Min), num(e.Range.Max), e.Setting, num(e.Range.Min))
	case len(e.Allowed) > 0:
		return fmt.Sprintf("use one of %s, for example %s=%s", strings.Join(e.Allowed, ", "), e.Setting, e.Allowed[0])
	}
	return "see the settings catalog"
}

// NoteKind tells the notes of [Resolve] apart, so that an adapter can decide
// which are errors (build_settings answers [NoteInvalid] with 400) and which
// are only reported.
type NoteKind string

// The kinds of note.
const (
	// NoteClamped: a number outside its range was moved to the nearest end.
	NoteClamped NoteKind = "clamped"
	// NoteRounded: an integer setting got a fraction; it was rounded.
	NoteRounded NoteKind = "rounded"
	// NoteInvalid: the value is not allowed; it was ignored.
	NoteInvalid NoteKind = "invalid"
	// NoteUnknown: the name is not a setting; it was ignored.
	NoteUnknown NoteKind = "unknown"
	// NoteRepeated: the setting was given more than once; the last value was used.
	NoteRepeated NoteKind = "repeated"
)

// Note reports one value that [Resolve] changed or ignored.
type Note struct {
	Kind NoteKind `json:"kind"`
	// Setting is the name as given ("preset" for the preset).
	Setting string `json:"setting"`
	// Value is the value as given (for a clamped or rounded number,
	// without surrounding spaces).
	Value string `json:"value"`
	// Used is the value in force after the note: the clamped or rounded
	// number, the last of repeated values, or for an ignored value the one
	// kept from the preset or default ("unset" when there is none). Empty
	// for unknown names.
	Used string `json:"used,omitempty"`
	// Allowed lists the values of a choice (or the presets) for an invalid
	// value.
	Allowed []string `json:"allowed,omitempty"`
	// Range is the interval of a numeric setting for an invalid or clamped
	// value.
	Range *Range `json:"range,omitempty"`
}

// String returns the note as one sentence, for the notes array of a result
// and the X-Settings-Notes header: names and values that are not plain
// printable ASCII are quoted with escapes, and long ones are shortened, so
// the sentence is one line of ASCII.
func (n Note) String() string {
	name := show(n.Setting)
	switch n.Kind {
	case NoteClamped:
		side, end := "below the minimum", n.Range.Min
		if v, err := strconv.ParseFloat(n.Used, 64); err == nil && v == n.Range.Max {
			side, end = "above the maximum", n.Range.Max
		}
		return fmt.Sprintf("%s: %s is %s %s; used %s", name, show(n.Value), side, num(end), n.Used)
	case NoteRounded:
		return fmt.Sprintf("%s: %s is not a whole number; rounded to %s", name, show(n.Value), n.Used)
	case NoteRepeated:
		return fmt.Sprintf("%s: given more than once; used the last value, %s", name, show(n.Used))
	case NoteUnknown:
		if n.Setting == "format" {
			return "format: applies only to build_settings; ignored"
		}
		if s := suggest(n.Setting); s != "" {
			return fmt.Sprintf("%s: not a setting (did you mean %s?); ignored", name, s)
		}
		return fmt.Sprintf("%s: not a setting; ignored", name)
	case NoteInvalid:
		var what string
		switch {
		case n.Value == Unset:
			what = "cannot be unset"
		case n.Range != nil:
			what = fmt.Sprintf("%s is not a number from %s to %s", quote(n.Value), num(n.Range.Min), num(n.Range.Max))
		default:
			what = fmt.Sprintf("%s is not one of %s", quote(n.Value), strings.Join(n.Allowed, ", "))
		}
		kept := "kept " + n.Used
		if n.Setting == "preset" {
			kept = "no preset applied"
		}
		return fmt.Sprintf("%s: %s; ignored, %s", name, what, kept)
	}
	return fmt.Sprintf("%s: %s (%s)", name, show(n.Value), n.Kind)
}

// maxShown is how many bytes of a name or value a note repeats.
const maxShown = 40

// show returns s as it is when it is a short run of printable ASCII without
// spaces or quotes, and quoted otherwise.
func show(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f || s[i] == '"' || s[i] == '\\' {
			return quote(s)
		}
	}
	if len(s) > maxShown {
		return quote(s)
	}
	return s
}

// quote quotes s in ASCII with Go escapes, shortened to maxShown bytes.
func quote(s string) string {
	if len(s) > maxShown {
		cut := maxShown
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.QuoteToASCII(s[:cut]) + "..."
	}
	return strconv.QuoteToASCII(s)
}

// Err returns the note as an error for an adapter that rejects it: a
// *[ValueError] wrapping [ErrInvalid] for [NoteInvalid], wrapping
// [ErrUnknown] for [NoteUnknown], and nil for the other kinds, which are
// never errors.
func (n Note) Err() error {
	switch n.Kind {
	case NoteInvalid:
		return &ValueError{Setting: n.Setting, Value: n.Value, Allowed: n.Allowed, Range: n.Range, Err: ErrInvalid}
	case NoteUnknown:
		return &ValueError{Setting: n.Setting, Value: n.Value, Err: ErrUnknown}
	}
	return nil
}

// Strings returns each note's [Note.String], in order (nil for no notes).
func Strings(notes []Note) []string {
	if len(notes) == 0 {
		return nil
	}
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = n.String()
	}
	return out
}

// Settings is a resolved set of settings: an optional preset and a valid
// value, or none, for every setting of the catalog. Make one with
// [Resolve], [ResolveQuery] or [ResolveJSON]. The zero value is the
// catalog's defaults without a preset. A Settings is immutable.
type Settings struct {
	preset string
	// vals is indexed like the catalog; "" means unset. nil means the
	// defaults.
	vals []string
}

// Preset returns the name of the preset applied, or "".
func (s Settings) Preset() string { return s.preset }

// Get returns the canonical value of the named setting and true, or "" and
// false when the setting is unset or not in the catalog.
func (s Settings) Get(name string) (string, bool) {
	i, ok := index[name]
	if !ok {
		return "", false
	}
	v := s.at(i)
	return v, v != ""
}

// Values returns the settings that have a value, by name.
func (s Settings) Values() map[string]string {
	out := make(map[string]string)
	for i, st := range settings {
		if v := s.at(i); v != "" {
			out[st.Name] = v
		}
	}
	return out
}

func (s Settings) at(i int) string {
	if s.vals == nil {
		return settings[i].Default
	}
	return s.vals[i]
}

// base returns the values the preset (or, without one, the defaults) gives,
// indexed like the catalog.
func base(preset string) []string {
	out := make([]string, len(settings))
	p, ok := presetByName(preset)
	for i, st := range settings {
		out[i] = st.Default
		if ok {
			out[i] = p.Values[st.Name]
			if out[i] == Unset {
				out[i] = ""
			}
		}
	}
	return out
}

// Query returns the shortest query string that reproduces s: the preset
// first, then, in the catalog's order, only the settings whose value differs
// from what the preset (or, without a preset, the defaults) gives; a
// setting the preset sets and s leaves unset is written as name=unset.
// Equal settings always give the same query; resolving it gives s again
// without notes. The defaults give "".
func (s Settings) Query() string {
	var b strings.Builder
	add := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(queryEscape(v))
	}
	if s.preset != "" {
		add("preset", s.preset)
	}
	for i, def := range base(s.preset) {
		if v := s.at(i); v != def {
			if v == "" {
				v = Unset
			}
			add(settings[i].Name, v)
		}
	}
	return b.String()
}

// queryEscape escapes what a canonical value could contain; values are
// option names and plain numbers, so this rarely changes anything.
func queryEscape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// MarshalJSON writes the settings as one JSON object in the catalog's order:
// "preset" (a name or null), then every setting: choices as strings, numbers
// as JSON numbers, unset settings as null.
func (s Settings) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`{"preset":`)
	if s.preset == "" {
		b.WriteString("null")
	} else {
		b.WriteString(strconv.Quote(s.preset))
	}
	for i, st := range settings {
		b.WriteString(`,"` + st.Name + `":`)
		v := s.at(i)
		switch {
		case v == "":
			b.WriteString("null")
		case st.Kind == Choice:
			b.WriteString(strconv.Quote(v))
		default:
			b.WriteString(v) // canonical numbers are valid JSON numbers
		}
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// Resolve resolves settings given as strings, one value per name, as they
// arrive from a form or a Go caller. See [ResolveQuery] for the rules.
func Resolve(values map[string]string) (Settings, []Note) {
	q := make(map[string][]string, len(values))
	for k, v := range values {
		q[k] = []string{v}
	}
	return ResolveQuery(q)
}

// ResolveJSON resolves settings decoded from a JSON object (with
// encoding/json into map[string]any). Strings are read as by [Resolve];
// numbers (float64 or json.Number) as their decimal text; true and false as
// yes and no; null as unset for an optional setting and as not given
// otherwise. An array or object is an invalid value.
func ResolveJSON(values map[string]any) (Settings, []Note) {
	q := make(map[string][]string, len(values))
	for k, v := range values {
		var s string
		switch x := v.(type) {
		case nil:
			if st, ok := Lookup(k); ok && !st.Optional || k == "preset" {
				continue
			}
			s = Unset
		case string:
			s = x
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		case json.Number:
			s = x.String()
		case bool:
			s = "no"
			if x {
				s = "yes"
			}
		case int, int64, int32, uint, uint64, uint32, float32:
			s = fmt.Sprint(x)
		default:
			b, err := json.Marshal(x)
			if err != nil {
				b = []byte(fmt.Sprint(x))
			}
			s = string(b)
		}
		q[k] = []string{s}
	}
	return ResolveQuery(q)
}

// ResolveQuery resolves settings from query parameters (a url.Values can be
// passed as it is). The rules, from specification section 2.4:
//
//   - The preset, when given, is applied first; every explicit setting then
//     overrides it. Without a preset the catalog's defaults apply.
//   - [Unset] clears an optional setting (one a preset may have set).
//   - Numbers out of range are clamped into the range ([NoteClamped]); an
//     integer setting given a fraction is rounded half away from zero
//     ([NoteRounded]); floor_pct may carry a trailing %.
//   - A choice not among the options, a number that does not parse, unset
//     for a setting that always has a value and an unknown preset are
//     ignored ([NoteInvalid], with the allowed values): the preset's or
//     default value stays.
//   - An unknown name is ignored ([NoteUnknown]); so is format, which
//     belongs to build_settings only.
//   - A name given more than once takes its last value ([NoteRepeated]).
//   - Empty values are treated as not given, as a form sends them; choices
//     and preset names are matched without regard to case or surrounding
//     spaces; the preset "none" means no preset.
//
// Notes come in a stable order: the preset, the settings in the catalog's
// order, then unknown names sorted.
func ResolveQuery(q map[string][]string) (Settings, []Note) {
	var notes []Note
	given := make(map[string]string, len(q))
	var unknown []string
	for k, vs := range q {
		vs = nonEmpty(vs)
		if len(vs) == 0 {
			continue
		}
		given[k] = vs[len(vs)-1]
		if _, ok := index[k]; !ok && k != "preset" {
			unknown = append(unknown, k)
		}
	}
	repeated := func(k string) {
		if vs := nonEmpty(q[k]); len(vs) > 1 {
			notes = append(notes, Note{Kind: NoteRepeated, Setting: k, Value: strings.Join(vs, ","), Used: given[k]})
		}
	}

	s := Settings{}
	if v, ok := given["preset"]; ok {
		repeated("preset")
		p := strings.ToLower(strings.TrimSpace(v))
		if _, ok := presetByName(p); ok {
			s.preset = p
		} else if p != "none" {
			notes = append(notes, Note{Kind: NoteInvalid, Setting: "preset", Value: v, Allowed: PresetNames()})
		}
	}
	s.vals = base(s.preset)

	for i, st := range settings {
		v, ok := given[st.Name]
		if !ok {
			continue
		}
		repeated(st.Name)
		val, ns := parse(st, v, s.vals[i])
		notes = append(notes, ns...)
		s.vals[i] = val
	}

	sort.Strings(unknown)
	for _, k := range unknown {
		repeated(k)
		notes = append(notes, Note{Kind: NoteUnknown, Setting: k, Value: given[k]})
	}
	return s, notes
}

func nonEmpty(vs []string) []string {
	return slices.DeleteFunc(slices.Clone(vs), func(v string) bool { return strings.TrimSpace(v) == "" })
}

// parse reads raw for st. It returns the canonical value ("" for unset) and
// notes; on an invalid value it returns cur, the value in force.
func parse(st Setting, raw, cur string) (string, []Note) {
	v := strings.TrimSpace(raw)
	kept := cur
	if kept == "" {
		kept = Unset
	}
	invalid := func() (string, []Note) {
		n := Note{Kind: NoteInvalid, Setting: st.Name, Value: raw, Used: kept}
		if st.Range != nil {
			r := *st.Range
			n.Range = &r
		} else {
			n.Allowed = st.Allowed()
		}
		return cur, []Note{n}
	}
	if strings.EqualFold(v, Unset) {
		if !st.Optional {
			return invalid()
		}
		return "", nil
	}
	if st.Kind == Choice {
		lv := strings.ToLower(v)
		for _, o := range st.Options {
			if o.Value == lv {
				return lv, nil
			}
		}
		return invalid()
	}

	if st.Unit == "percent" {
		v = strings.TrimSpace(strings.TrimSuffix(v, "%"))
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f) {
		return invalid()
	}
	given := strings.TrimSpace(raw)
	var notes []Note
	r := *st.Range
	switch {
	case f < r.Min:
		f = r.Min
		notes = append(notes, Note{Kind: NoteClamped, Setting: st.Name, Value: given, Used: num(f), Range: &r})
	case f > r.Max:
		f = r.Max
		notes = append(notes, Note{Kind: NoteClamped, Setting: st.Name, Value: given, Used: num(f), Range: &r})
	}
	if st.Kind == Integer && f != math.Round(f) {
		f = math.Round(f)
		notes = append(notes, Note{Kind: NoteRounded, Setting: st.Name, Value: given, Used: num(f)})
	}
	return num(f), notes
}

// num formats a number canonically: the shortest decimal text, no exponent,
// no negative zero.
func num(f float64) string {
	if f == 0 {
		f = 0 // turns -0 into 0
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func names() []string {
	out := make([]string, len(settings))
	for i, s := range settings {
		out[i] = s.Name
	}
	return out
}

// suggest returns the catalog name that name spells differently (case,
// hyphens for underscores), or "".
func suggest(name string) string {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
	if n == name {
		return ""
	}
	if _, ok := index[n]; ok || n == "preset" {
		return n
	}
	return ""
}
