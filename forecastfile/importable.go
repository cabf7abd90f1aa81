package forecastfile

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IDPattern is the rule for a question's id, as a regular expression (RE2
// and ECMA-262 read it alike): 1 to [MaxID] ASCII letters, digits, dots,
// underscores or hyphens. The agent board names predictions, and agents,
// by the same rule.
const IDPattern = `^[A-Za-z0-9._-]{1,64}$`

// MaxID is the longest id [IDPattern] allows.
const MaxID = 64

var idRe = regexp.MustCompile(IDPattern)

// ValidID reports whether id follows [IDPattern].
func ValidID(id string) bool { return idRe.MatchString(id) }

// The limits of the agent board's fields that [Check] applies with
// [Options.BoardImport], in Unicode code points.
const (
	MaxTitle    = 200   // the heading: the prediction's title
	MaxText     = 10000 // the free text after the heading: its body
	MaxResolves = 500   // resolves: its resolution criteria
	MaxNote     = 10000 // a forecast's note
	MaxWho      = 80    // a forecaster that is not an agent id: the agent's display name
)

// idExample turns an id that breaks [IDPattern] into one that follows it,
// for a hint: each run of other characters becomes a hyphen.
func idExample(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r < utf8.RuneSelf && (r == '.' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		case !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > MaxID {
		s = strings.TrimRight(s[:MaxID], "-")
	}
	if s == "" {
		return "question-1"
	}
	return s
}

// boardImport adds the findings of [Options.BoardImport] for q.
func (c *checker) boardImport(q *Question) {
	id := q.ID
	bad := func(line int, format string, args ...any) {
		c.add(0, Finding, id, line, "the agent board cannot import this: "+format, args...)
	}
	if len(q.Forecasts) == 0 {
		bad(q.Line, "the question has no forecasts, and a prediction needs its author's probability: add a ## Forecasts section with a line such as - 2026-03-01 · agent:alice · 62%%")
	}
	// text checks a text's length, less the backslashes that escape
	// Markdown (the board stores the text without them), and its
	// characters.
	text := func(line int, what, s string, escapes, limit int, multiline bool) {
		if n := utf8.RuneCountInString(s) - escapes; n > limit {
			bad(line, "%s is %d characters long; the board keeps at most %d: shorten it", what, n, limit)
		}
		if r, at := Control(s, multiline); at > 0 {
			bad(line, "%s contains the control character %U at character %d: remove it", what, r, at)
		}
	}
	if t := strings.TrimSpace(q.Title); t != "" {
		escapes := 0
		if titleEscaped(t) {
			escapes = 1
		}
		text(q.Line, "the title (the heading)", t, escapes, MaxTitle, false)
	}
	if q.Text != "" {
		if strings.TrimSpace(q.Text) == "" {
			bad(q.TextLine, "the question's free text is blank: write the question's context, or remove the blank text")
		}
		text(q.TextLine, "the question's free text (the prediction's body)", q.Text, lineEscapes(q.Text), MaxText, true)
	}
	if r := strings.TrimSpace(q.Resolves); r != "" {
		text(lineOr(q.field("resolves"), q.Line), "resolves", r, 0, MaxResolves, false)
	}
	for _, fc := range q.Forecasts {
		if !fc.OK() {
			continue // a rule-2 finding already
		}
		c.importWho(id, fc)
		text(fc.Line, "the forecast's note", fc.Note, 0, MaxNote, true)
	}
}

// The kinds of forecaster a who names with its prefix ([SplitWho]).
const (
	KindAgent  = "agent"
	KindPerson = "person"
)

// SplitWho reads a forecast's who as the agent board takes it:
// agent:<id> is the agent <id> and person:<id> the person <id> (the
// prefix in any case, spaces around the id dropped), returned as kind
// and rest; any other who (such as the plain word person) has kind "" and
// is returned trimmed.
func SplitWho(who string) (kind, rest string) {
	w := strings.TrimSpace(who)
	for _, k := range []string{KindAgent, KindPerson} {
		if len(w) > len(k) && w[len(k)] == ':' && strings.EqualFold(w[:len(k)], k) {
			return k, strings.TrimSpace(w[len(k)+1:])
		}
	}
	return "", w
}

// importWho adds a finding when the board cannot make a forecaster of a
// forecast's who: agent:<id> or person:<id> ([SplitWho]), or a name that
// becomes an agent id (its runs of other characters turned into hyphens)
// and the agent's name.
func (c *checker) importWho(id string, fc Forecast) {
	_, w := SplitWho(fc.Who)
	if ValidID(w) {
		return
	}
	bad := func(format string, args ...any) {
		c.add(0, Finding, id, fc.Line, "the agent board cannot import this: "+format, args...)
	}
	switch n := utf8.RuneCountInString(w); {
	case !strings.ContainsFunc(w, func(r rune) bool {
		return r < utf8.RuneSelf && (r == '.' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	}):
		bad("forecaster %q has no letter or digit to make an agent id of: write agent:<id> with 1 to %d letters, digits, dots, underscores or hyphens, e.g. agent:alice", fc.Who, MaxID)
	case n > MaxWho:
		bad("forecaster %q is %d characters long; the board keeps at most %d as the agent's name: shorten it, or write agent:<id>, e.g. agent:alice", fc.Who, n, MaxWho)
	default:
		if r, at := Control(w, false); at > 0 {
			bad("forecaster %q contains the control character %U at character %d: remove it", fc.Who, r, at)
		}
	}
}

// Control returns the first control character of s and its 1-based
// position in characters (0 when there is none); tab, and the line ends,
// are allowed when tabs is true. It is the rule of the board's texts too,
// so that what this checker accepts the board can import.
func Control(s string, tabs bool) (rune, int) {
	i := 0
	for _, r := range s {
		i++
		if unicode.IsControl(r) && !(tabs && (r == '\t' || r == '\n' || r == '\r')) {
			return r, i
		}
	}
	return 0, 0
}

// titleEscaped reports whether a heading's last word is backslashes and
// then #: the heading escapes the # so that it is not read as the closing
// sequence, and the title has one backslash fewer.
func titleEscaped(t string) bool {
	h := strings.TrimRight(t, "#")
	b := strings.TrimRight(h, `\`)
	return len(h) < len(t) && len(b) < len(h) && (b == "" || strings.HasSuffix(b, " ") || strings.HasSuffix(b, "\t"))
}

// lineEscapes counts the lines of text that start (after at most three
// spaces) with a backslash before one of #-*+`~>\: Markdown shows them
// without it, and so does the board's body.
func lineEscapes(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) <= 3 && len(t) >= 2 && t[0] == '\\' && strings.IndexByte("#-*+`~>\\", t[1]) >= 0 {
			n++
		}
	}
	return n
}
