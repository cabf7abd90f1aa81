package forecastfile

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Known question keys, in the order [Format] does not change (fields are
// written in file order).
var knownKeys = map[string]bool{
	"id": true, "resolves": true, "resolve_by": true, "status": true,
	"base_rate": true, "outcome": true, "tags": true,
	KeyOpensAt: true, KeyCloseAt: true, KeyClosedAt: true,
}

const knownKeyList = "id, resolves, resolve_by, status, base_rate, outcome, tags, opens_at, close_at, closed_at"

// Parse reads a forecast file. It accepts what people write (extra spaces,
// "-", "*" or "+" bullets, CRLF or CR line ends, a byte-order mark, keys in
// any case, "resolve by" for resolve_by, a hyphen where the middle dot
// belongs, "62" for "62%"), records each such deviation as a rule-0 warning
// in [File.Diagnostics], and stores values in canonical form so that
// [Format] writes them canonically.
//
// Parse fails only when the text as a whole cannot be read: it returns a
// [*ParseError] wrapping [ErrInvalidUTF8] or [ErrBinary]. Everything else,
// including lines it cannot read, is kept in the File and reported by
// [Check]. Parse runs in time linear in len(text); it sets no size limit.
func Parse(text []byte) (*File, error) {
	if i := bytes.IndexByte(text, 0); i >= 0 {
		return nil, &ParseError{Line: 1 + bytes.Count(text[:i], []byte{'\n'}), Err: ErrBinary}
	}
	if !utf8.Valid(text) {
		i := 0
		for i < len(text) {
			r, n := utf8.DecodeRune(text[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return nil, &ParseError{Line: 1 + bytes.Count(text[:i], []byte{'\n'}), Err: ErrInvalidUTF8}
	}
	s := string(text)
	if strings.Contains(s, "\ufeff") {
		// Byte-order marks (invisible) are dropped wherever they are, so
		// that one at the start of a written file cannot change its meaning.
		s = strings.ReplaceAll(s, "\ufeff", "")
	}
	// Questions start with "# ": counting them first saves regrowing.
	p := &parser{f: &File{Questions: make([]Question, 0, strings.Count(s, "\n# ")+1)}, keys: map[string]bool{}}
	p.run(splitLines(s))
	return p.f, nil
}

// splitLines splits s at \n, \r\n and lone \r, and trims trailing blanks.
func splitLines(s string) []string {
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	if strings.IndexByte(s, '\r') < 0 {
		for len(s) > 0 {
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				lines = append(lines, strings.TrimRight(s, " \t"))
				break
			}
			lines = append(lines, strings.TrimRight(s[:i], " \t"))
			s = s[i+1:]
		}
		return lines
	}
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			lines = append(lines, strings.TrimRight(s, " \t"))
			break
		}
		lines = append(lines, strings.TrimRight(s[:i], " \t"))
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	return lines
}

type context int

const (
	inPreamble context = iota
	inBody
	inForecasts
	inNotes
	inSection
)

// textBuf collects the lines of one free-text block.
type textBuf struct {
	lines []string
	first int
}

func (b *textBuf) add(line string, n int) {
	if line == "" && len(b.lines) == 0 {
		return
	}
	if len(b.lines) == 0 {
		b.first = n
	}
	b.lines = append(b.lines, line)
}

// take returns the text (without trailing blank lines) and its first line,
// and empties the buffer.
func (b *textBuf) take() (string, int) {
	n := len(b.lines)
	for n > 0 && b.lines[n-1] == "" {
		n--
	}
	s := strings.Join(b.lines[:n], "\n")
	first := b.first
	b.lines, b.first = b.lines[:0], 0
	if s == "" {
		first = 0
	}
	return s, first
}

type parser struct {
	f         *File
	q         *Question
	ctx       context
	fence     string // the fence marker while inside a fenced code block
	buf       textBuf
	sec       *Section
	seenFc    bool // the question already had a Forecasts section
	seenNotes bool
	diagStart int             // first diagnostic of the current question
	keys      map[string]bool // keys seen in the front matter or current question
	// Texts of repeated Forecasts and Notes sections, joined on close.
	fcText, notes     []string
	fcLine, notesLine int
}

func (p *parser) warn(line int, format string, args ...any) {
	p.f.Diagnostics = append(p.f.Diagnostics, Diagnostic{Rule: 0, Severity: Warning, Line: line, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) run(lines []string) {
	start := 0
	if len(lines) > 0 && lines[0] == "---" {
		end := -1
		for i := 1; i < len(lines); i++ {
			if lines[i] == "---" {
				end = i
				break
			}
		}
		if end < 0 {
			p.f.Diagnostics = append(p.f.Diagnostics, Diagnostic{Rule: 0, Severity: Finding, Line: 1,
				Message: "front matter opened by --- on line 1 is never closed: add a line --- after its last key (the lines are read as text)"})
		} else {
			p.frontMatter(lines[1:end])
			clear(p.keys)
			start = end + 1
		}
	}
	for i := start; i < len(lines); i++ {
		p.line(lines[i], i+1)
	}
	p.closeQuestion()
}

func (p *parser) frontMatter(lines []string) {
	f := p.f
	f.FrontMatter = true
	for i, line := range lines {
		n := i + 2
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, value, ok := splitKey(line, true)
		if !ok {
			if !strings.HasPrefix(strings.TrimSpace(line), "#") {
				p.warn(n, "front-matter line %q is not key: value; it is kept but not read", line)
			}
			f.Meta = append(f.Meta, Field{Line: n, Value: line})
			continue
		}
		first := !p.keys[key]
		p.keys[key] = true
		switch key {
		case "predictions":
			if v, ok := readVersion(unquote(value)); ok {
				value = strconv.Itoa(v)
				if first {
					f.Version = v
				}
			}
		case "updated":
			if d, err := ParseDate(unquote(value)); err == nil {
				value = d.String()
				if first {
					f.Updated = d
				}
			}
		}
		f.Meta = append(f.Meta, Field{Line: n, Key: key, Value: value})
	}
}

func readVersion(s string) (int, bool) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > 1000 || strings.HasPrefix(s, "+") || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	return v, true
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// fenceMarker returns the marker of a fenced code block line, or "".
func fenceMarker(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	if strings.HasPrefix(t, "```") {
		return "```"
	}
	if strings.HasPrefix(t, "~~~") {
		return "~~~"
	}
	return ""
}

// heading reads an ATX heading: up to three spaces, 1 to 6 #, then a space
// or the end of the line. A closing run of # is removed.
func heading(line string) (level int, title string, ok bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return 0, "", false
	}
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
		return 0, "", false
	}
	title = strings.TrimSpace(t[level:])
	for {
		i := len(title)
		for i > 0 && title[i-1] == '#' {
			i--
		}
		if i == len(title) || (i > 0 && title[i-1] != ' ' && title[i-1] != '\t') {
			break
		}
		title = strings.TrimSpace(title[:i])
	}
	return level, title, true
}

// bullet reads a list item at the top level (indent of at most one space)
// and returns its text.
func bullet(line string) (string, bool) {
	i := 0
	if i < len(line) && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '-' && line[i] != '*' && line[i] != '+') {
		return "", false
	}
	if i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
		return "", false
	}
	return strings.TrimSpace(line[i+1:]), true
}

// splitKey reads "key: value". Keys are letters, digits, _ and -, starting
// with a letter; a key with spaces counts only when it names a known key
// ("resolve by"). frontMatter allows any single-word key.
func splitKey(s string, frontMatter bool) (key, value string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i <= 0 || (i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t') {
		return "", "", false
	}
	raw := strings.TrimSpace(s[:i])
	if raw == "" || len(raw) > 40 {
		return "", "", false
	}
	if canonicalKey(raw) {
		return raw, strings.TrimSpace(s[i+1:]), true
	}
	var b strings.Builder
	spaced := false
	for j := 0; j < len(raw); j++ {
		c := raw[j]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9' && j > 0, c == '_' && j > 0:
			b.WriteByte(c)
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case (c == '-' || c == ' ') && j > 0:
			if c == ' ' {
				spaced = true
			}
			b.WriteByte('_')
		default:
			return "", "", false
		}
	}
	key = b.String()
	if spaced && (frontMatter || !knownKeys[key]) {
		return "", "", false
	}
	return key, strings.TrimSpace(s[i+1:]), true
}

// canonicalKey reports whether k is already a lower-case key.
func canonicalKey(k string) bool {
	for j := 0; j < len(k); j++ {
		c := k[j]
		if !('a' <= c && c <= 'z' || j > 0 && ('0' <= c && c <= '9' || c == '_')) {
			return false
		}
	}
	return true
}

func (p *parser) line(line string, n int) {
	if p.fence != "" {
		p.buf.add(line, n)
		if fenceMarker(line) == p.fence {
			p.fence = ""
		}
		return
	}
	if m := fenceMarker(line); m != "" {
		if p.ctx == inForecasts {
			p.warn(n, "code block in the Forecasts section is kept as text; forecasts are bullet lines date · who · probability")
		}
		p.fence = m
		p.buf.add(line, n)
		return
	}
	if level, title, ok := heading(line); ok && level <= 2 {
		if level == 1 {
			p.closeQuestion()
			p.q = &Question{Line: n, Title: title}
			p.ctx = inBody
			p.diagStart = len(p.f.Diagnostics)
			return
		}
		if p.q != nil {
			p.section(title, n)
			return
		}
		if k := sectionKind(title); k != inSection {
			p.warn(n, "section %q comes before the first question (# heading) and is read as text", title)
		}
	}
	switch p.ctx {
	case inBody:
		if b, ok := bullet(line); ok {
			if key, value, ok := splitKey(b, false); ok {
				p.field(key, value, n)
				return
			}
			if looksLikeForecast(b) {
				p.warn(n, "this line looks like a forecast but is not under a ## Forecasts heading, so it is not read: add the heading above it")
			}
		}
		p.buf.add(line, n)
	case inForecasts:
		if line == "" {
			p.buf.add(line, n)
			return
		}
		if b, ok := bullet(line); ok && b != "" {
			p.forecast(b, n)
			return
		}
		p.warn(n, "line in the Forecasts section is not a forecast bullet and is kept as text; write forecasts as - date · who · probability · note")
		p.buf.add(line, n)
	default:
		p.buf.add(line, n)
	}
}

func sectionKind(title string) context {
	t := strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(title), ":")))
	switch t {
	case "forecasts", "forecast":
		return inForecasts
	case "notes", "note":
		return inNotes
	}
	return inSection
}

// flush moves the text buffer into the field of the current context.
func (p *parser) flush() {
	text, first := p.buf.take()
	if text == "" {
		return
	}
	switch p.ctx {
	case inPreamble:
		p.f.Preamble, p.f.PreambleLine = text, first
	case inBody:
		p.q.Text, p.q.TextLine = text, first
	case inForecasts:
		if len(p.fcText) == 0 {
			p.fcLine = first
		}
		p.fcText = append(p.fcText, text)
	case inNotes:
		if len(p.notes) == 0 {
			p.notesLine = first
		}
		p.notes = append(p.notes, text)
	case inSection:
		p.sec.Text, p.sec.TextLine = text, first
	}
}

func (p *parser) section(title string, n int) {
	p.flush()
	p.sec = nil
	switch k := sectionKind(title); k {
	case inForecasts:
		if p.seenFc {
			p.warn(n, "second Forecasts section in this question: its lines are added to the first")
		}
		p.seenFc = true
		p.ctx = k
	case inNotes:
		if p.seenNotes {
			p.warn(n, "second Notes section in this question: its text is added to the first")
		}
		p.seenNotes = true
		p.ctx = k
	default:
		p.q.Sections = append(p.q.Sections, Section{Line: n, Title: title})
		p.sec = &p.q.Sections[len(p.q.Sections)-1]
		p.ctx = inSection
	}
}

func (p *parser) closeQuestion() {
	if p.q == nil {
		p.flush()
		return
	}
	p.flush()
	if len(p.fcText) > 0 {
		p.q.ForecastsText, p.q.ForecastsTextLine = strings.Join(p.fcText, "\n\n"), p.fcLine
	}
	if len(p.notes) > 0 {
		p.q.Notes, p.q.NotesLine = strings.Join(p.notes, "\n\n"), p.notesLine
	}
	p.fcText, p.notes = p.fcText[:0], p.notes[:0]
	clear(p.keys)
	for i := p.diagStart; i < len(p.f.Diagnostics); i++ {
		p.f.Diagnostics[i].QuestionID = p.q.ID
	}
	p.f.Questions = append(p.f.Questions, *p.q)
	p.q, p.sec, p.seenFc, p.seenNotes = nil, nil, false, false
	p.ctx = inPreamble
}

// field records a key: value bullet, in canonical form when the value is
// readable, and fills the typed field from the first bullet of each key.
func (p *parser) field(key, value string, n int) {
	q := p.q
	first := !p.keys[key]
	p.keys[key] = true
	switch key {
	case "id":
		if first {
			q.ID = value
		}
	case "resolves":
		if first {
			q.Resolves = value
		}
	case "resolve_by":
		if d, err := ParseDate(value); err == nil && first {
			q.ResolveBy = d
		}
	case "status":
		if s, ok := readStatus(value); ok {
			value = string(s)
			if first {
				q.Status = s
			}
		}
	case "outcome":
		if o, ok := readOutcome(value); ok {
			value = string(o)
			if first && o != "void" {
				q.Outcome = o
			}
		}
	case "base_rate":
		if v, pct, problem := readPercent(value); problem == "" {
			if !pct {
				p.warn(n, "base_rate %q has no %% sign; it is read as %s%%", value, formatPercent(v))
			}
			value = formatPercent(v) + "%"
			if first {
				q.BaseRate = &v
			}
		}
	case "tags":
		tags := readTags(value)
		value = strings.Join(tags, ", ")
		if first {
			q.Tags = tags
		}
	case KeyOpensAt, KeyCloseAt, KeyClosedAt:
		if t, canonical, ok := readTime(value); ok {
			value = canonical
			if first {
				*q.timeField(key) = t
			}
		}
	}
	if q.Fields == nil {
		q.Fields = make([]Field, 0, len(knownKeys))
	}
	q.Fields = append(q.Fields, Field{Line: n, Key: key, Value: value})
}

func readStatus(s string) (Status, bool) {
	switch st := Status(strings.ToLower(s)); st {
	case StatusOpen, StatusResolved, StatusVoid:
		return st, true
	}
	return "", false
}

// readOutcome reads yes, no (also 1, 0, true, false) and void, in any case.
func readOutcome(s string) (Outcome, bool) {
	switch strings.ToLower(s) {
	case "yes", "1", "true":
		return OutcomeYes, true
	case "no", "0", "false":
		return OutcomeNo, true
	case "void":
		return "void", true
	}
	return "", false
}

// readTags splits a comma-separated list; a leading # is dropped.
func readTags(s string) []string {
	var tags []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t), "#"))
		if t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

// readPercent reads a probability written as a percent: "62%", "62 %",
// "62.5%"; "62" (no sign) is read as a percent too and reported with
// pct=false. A number without % strictly between 0 and 1 is ambiguous
// (0.62 could be 62% or 0.62%) and is a problem. It returns the fraction.
func readPercent(s string) (p float64, pct bool, problem string) {
	t := strings.TrimSpace(s)
	if strings.HasSuffix(t, "%") {
		pct = true
		t = strings.TrimSpace(t[:len(t)-1])
	}
	dots, digitsSeen := 0, false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '.':
			dots++
		case '0' <= c && c <= '9':
			digitsSeen = true
		default:
			return 0, pct, fmt.Sprintf("probability %q is not a percent: write a number from 0 to 100 followed by %%, e.g. 62%%", s)
		}
	}
	if !digitsSeen || dots > 1 || len(t) > 24 {
		return 0, pct, fmt.Sprintf("probability %q is not a percent: write a number from 0 to 100 followed by %%, e.g. 62%%", s)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v > 100 {
		return 0, pct, fmt.Sprintf("probability %q is outside 0%% to 100%%", s)
	}
	if !pct && v > 0 && v < 1 {
		return 0, pct, fmt.Sprintf("probability %q is ambiguous: write %s%% if you mean the fraction %s, or %s%% if you mean %s percent",
			s, formatPercent(v), t, t, t)
	}
	return percentFraction(t), pct, ""
}

// percentFraction is the float64 nearest the exact fraction t/100, for
// percent text t already checked to be a number: strconv rounds "t e-2"
// once, where ParseFloat(t)/100 rounds twice (99.9 would become
// 0.9990000000000001).
func percentFraction(t string) float64 {
	v, _ := strconv.ParseFloat(t+"e-2", 64)
	return v
}

// formatPercent writes the fraction p as a percent number without the sign,
// with the fewest decimals that read back as exactly p.
func formatPercent(p float64) string {
	for prec := 0; prec <= 17; prec++ {
		s := strconv.FormatFloat(p*100, 'f', prec, 64)
		if v, err := strconv.ParseFloat(s+"e-2", 64); err == nil && v == p {
			return s
		}
	}
	return strconv.FormatFloat(p*100, 'f', -1, 64)
}

func looksLikeForecast(s string) bool {
	if len(s) < 10 {
		return false
	}
	_, err := ParseDate(s[:10])
	return err == nil
}

// forecast reads a bullet of the Forecasts section.
func (p *parser) forecast(b string, n int) {
	fc, problem, sep, pct := readForecast(b)
	fc.Line = n
	if sep != "" {
		p.warn(n, "forecast parts are separated by %q: write \" · \" (a middle dot with a space on each side)", sep)
	}
	if problem == "" && !pct {
		p.warn(n, "probability has no %% sign; it is read as %s%%: write %s%%", formatPercent(fc.P), formatPercent(fc.P))
	}
	if problem != "" {
		fc.Raw = b
	}
	p.q.Forecasts = append(p.q.Forecasts, fc)
}
