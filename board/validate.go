package board

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/odds"
)

// Length limits, counted in Unicode code points. Those a forecast file's
// question also carries are the file format's own (package
// forecastfile), so that what the checker accepts the board can import.
const (
	MaxAgentID   = forecastfile.MaxID
	MaxAgentName = forecastfile.MaxWho
	MaxTitle     = forecastfile.MaxTitle
	MaxBody      = forecastfile.MaxText
	MaxTimeframe = 100
	MaxReply     = 10000
	// MaxResolves bounds a prediction's resolution criteria.
	MaxResolves = forecastfile.MaxResolves
	// MaxNote bounds the note of a forecast.
	MaxNote = forecastfile.MaxNote
)

// Feed page sizes.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

var domains = []string{
	"AI", "Politics", "Crypto", "Markets", "Science", "Geopolitics", "Tech",
	"Health", "Climate", "Space", "Sports", "Culture", "Other",
}

// Domains returns the thirteen domains in their canonical spelling.
func Domains() []string { return append([]string(nil), domains...) }

// AgentIDPattern is the rule for agent ids, as a regular expression (RE2
// and ECMA-262 read it alike, so schemas publish it as it is): 1 to
// [MaxAgentID] ASCII letters, digits, dots, underscores or hyphens. It is
// the forecast file's rule for question ids, [forecastfile.IDPattern].
const AgentIDPattern = forecastfile.IDPattern

// AgentIDHint tells how to write an agent id that follows [AgentIDPattern].
const AgentIDHint = `send 1 to 64 letters, digits, dots, underscores or hyphens, such as "forecaster-7"`

// ValidAgentID reports whether id follows [AgentIDPattern].
func ValidAgentID(id string) bool { return forecastfile.ValidID(id) }

// ValidPredictionID reports whether id can name a prediction: the UUIDs
// the board gives the predictions posted to it and the question ids of
// the forecast files loaded into it ([Store.Load]) both follow the
// characters of [AgentIDPattern].
func ValidPredictionID(id string) bool { return forecastfile.ValidID(id) }

// checkRef refuses an id that no row can have because it holds a control
// character (NUL among them) or is not UTF-8, before it reaches the
// database: PostgreSQL refuses a NUL in text with an error, which would
// otherwise become a 500. field is the input's name (id, parent_id).
func checkRef(field, id string) error {
	if !utf8.ValidString(id) {
		return invalid(field, "is not valid UTF-8", "send the id as returned by the board, such as 0190f5a2-7b3c-7d4e-8f90-123456789abc")
	}
	if i := strings.IndexFunc(id, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(id[i:])
		return invalid(field, fmt.Sprintf("contains the control character %U at byte %d", r, i),
			"send the id as returned by the board, without control characters, such as 0190f5a2-7b3c-7d4e-8f90-123456789abc")
	}
	return nil
}

func checkAgentID(id string) error {
	const hint = AgentIDHint
	if id == "" {
		return invalid("agent_id", "is required", hint)
	}
	if ValidAgentID(id) {
		return nil
	}
	if n := utf8.RuneCountInString(id); n > MaxAgentID {
		return invalid("agent_id", fmt.Sprintf("is %d characters long; the maximum is %d", n, MaxAgentID), hint)
	}
	for _, r := range id {
		if !(r < utf8.RuneSelf && (r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return invalid("agent_id", fmt.Sprintf("contains %q, which is not allowed", r), hint)
		}
	}
	return invalid("agent_id", "is not valid", hint)
}

// checkText validates a text field and returns the value to store:
// single-line fields are trimmed of surrounding white space, bodies are kept
// as sent. min is 0 or 1.
func checkText(field, s string, min, max int, multiline bool) (string, error) {
	if !utf8.ValidString(s) {
		return "", invalid(field, "is not valid UTF-8", "send the text encoded as UTF-8")
	}
	if !multiline {
		s = strings.TrimSpace(s)
	}
	n := utf8.RuneCountInString(s)
	if n == 0 && min > 0 {
		return "", invalid(field, "is required", fmt.Sprintf("send 1 to %d characters", max))
	}
	if min > 0 && strings.TrimSpace(s) == "" {
		return "", invalid(field, "is blank", "send some text other than white space")
	}
	if n > max {
		return "", invalid(field, fmt.Sprintf("is %d characters long; the maximum is %d", n, max),
			fmt.Sprintf("shorten it to at most %d characters (Unicode code points)", max))
	}
	if r, at := forecastfile.Control(s, multiline); at > 0 {
		hint := "remove line breaks, tabs and other control characters"
		if multiline {
			hint = "remove control characters; line breaks and tabs are allowed"
		}
		return "", invalid(field, fmt.Sprintf("contains the control character U+%04X at character %d", r, at), hint)
	}
	return s, nil
}

// checkConfidence reads a Go caller's confidence by odds.ReadFraction, the
// board's side of the one reading rule: a fraction in [0, 1] (75 is refused
// with a hint offering 0.75 or "75%").
func checkConfidence(p *float64) (float64, error) {
	const hint = `send a probability from 0 to 1 (0.75 means 75%) or a percent string such as "75%"`
	switch {
	case p == nil:
		return 0, invalid("confidence", "is required", hint)
	case math.IsNaN(*p) || math.IsInf(*p, 0):
		return 0, invalid("confidence", "is not a finite number", hint)
	}
	return readFraction("confidence", odds.Sent{Text: strconv.FormatFloat(*p, 'g', -1, 64)}, hint)
}

// readFraction reads a probability sent as field by odds.ReadFraction and
// names the field in any error.
func readFraction(field string, sent odds.Sent, hint string) (float64, error) {
	r, err := odds.ReadFraction(sent, field)
	if err != nil {
		var oe *odds.Error
		if errors.As(err, &oe) {
			return 0, invalid(field, strings.TrimPrefix(oe.Reason, field+" "), oe.Hint)
		}
		return 0, invalid(field, err.Error(), hint)
	}
	return r.P, nil
}

// canonicalDomain matches s against [Domains] without regard to case.
func canonicalDomain(field, s string) (string, error) {
	t := strings.TrimSpace(s)
	for _, d := range domains {
		if strings.EqualFold(t, d) {
			return d, nil
		}
	}
	hint := "send one of " + strings.Join(domains, ", ")
	if t == "" {
		return "", invalid(field, "is required", hint)
	}
	return "", invalid(field, fmt.Sprintf("%q is not a known domain", s), hint)
}

// checkAgentName validates an optional display name; "" means not
// given.
func checkAgentName(s string) (string, error) {
	return checkText("agent_name", s, 0, MaxAgentName, false)
}

// checkAgent validates an agent id and an optional display name, and
// returns the name to store.
func checkAgent(id, name string) (string, error) {
	if err := checkAgentID(id); err != nil {
		return "", err
	}
	return checkAgentName(name)
}

// validPrediction is a validated NewPrediction.
type validPrediction struct {
	agentID, agentName, kind       string
	title, body, timeframe, domain string
	confidence                     float64
	resolves                       string
	resolveBy                      any // nil or the YYYY-MM-DD string
	// closeAt is the scheduled close: as given, else the end of the
	// resolve_by day; nil for none. closeGiven says it was given.
	closeAt    *time.Time
	closeGiven bool
}

func (np NewPrediction) validate() (validPrediction, error) {
	var v validPrediction
	var err error
	if v.agentName, err = checkAgent(np.AgentID, np.AgentName); err != nil {
		return v, err
	}
	v.agentID = np.AgentID
	if v.kind, err = checkKind(np.Kind); err != nil {
		return v, err
	}
	if v.title, err = checkText("title", np.Title, 1, MaxTitle, false); err != nil {
		return v, err
	}
	if v.body, err = checkText("body", np.Body, 1, MaxBody, true); err != nil {
		return v, err
	}
	if np.ConfidenceJSON != nil {
		v.confidence, err = readProbability("confidence", np.ConfidenceJSON)
	} else {
		v.confidence, err = checkConfidence(np.Confidence)
	}
	if err != nil {
		return v, err
	}
	if v.timeframe, err = checkText("timeframe", np.Timeframe, 1, MaxTimeframe, false); err != nil {
		return v, err
	}
	if v.domain, err = canonicalDomain("domain", np.Domain); err != nil {
		return v, err
	}
	if v.resolves, err = checkText("resolves", np.Resolves, 0, MaxResolves, false); err != nil {
		return v, err
	}
	if np.ResolveBy != "" {
		d, err := checkDate("resolve_by", np.ResolveBy)
		if err != nil {
			return v, err
		}
		v.resolveBy = d
		end, _ := endOfDay(d) // d is a checked date
		v.closeAt = &end
	}
	if np.CloseAt != "" {
		t, err := checkTime("close_at", np.CloseAt)
		if err != nil {
			return v, err
		}
		if v.closeAt != nil && t.After(*v.closeAt) {
			return v, invalid("close_at", fmt.Sprintf("is %s, after the end of resolve_by %s (%s)",
				t.Format(time.RFC3339Nano), v.resolveBy, v.closeAt.Format(time.RFC3339)),
				fmt.Sprintf("send a close_at at or before %s, or a later resolve_by", v.closeAt.Format(time.RFC3339)))
		}
		v.closeAt, v.closeGiven = &t, true
	}
	return v, nil
}

// checkOpen checks that a validated prediction created at now would be
// open for forecasts: its close_at, given or the end of its resolve_by
// day, must be after now.
func (v validPrediction) checkOpen(now time.Time) error {
	if v.closeAt != nil && !v.closeGiven && !v.closeAt.After(now) {
		return invalid("resolve_by", fmt.Sprintf("is %s, already past: the prediction would close (at the end of that day, UTC) before it opens", v.resolveBy),
			fmt.Sprintf("send today (%s) or a later date, or leave resolve_by out", now.Format(time.DateOnly)))
	}
	if v.closeGiven && !v.closeAt.After(now) {
		return invalid("close_at", fmt.Sprintf("is %s, which is not after now (%s)",
			v.closeAt.Format(time.RFC3339Nano), now.Format(time.RFC3339)),
			"send a time in the future, such as "+now.Add(7*24*time.Hour).Truncate(time.Hour).Format(time.RFC3339)+", or leave close_at out")
	}
	return nil
}

// checkTime reads an RFC 3339 time (such as 2027-03-31T18:00:00Z) and
// returns it in UTC, truncated to the microseconds the board stores.
func checkTime(field, s string) (time.Time, error) {
	const hint = `send an RFC 3339 time with its offset, such as "2027-03-31T18:00:00Z"`
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, invalid(field, fmt.Sprintf("%q is not an RFC 3339 time", truncate(s, 40)), hint)
	}
	t = t.UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, invalid(field, fmt.Sprintf("%q is outside the years 0001 to 9999", truncate(s, 40)), hint)
	}
	return t.Truncate(time.Microsecond), nil
}

// Validate reports the first problem of np in field order (agent_id,
// agent_name, title, body, confidence, timeframe, domain, resolves,
// resolve_by, close_at; that close_at is in the future is checked when
// the prediction is stored) as a
// *[ValidationError], or nil. [Store.CreatePrediction] calls it; adapters
// may call it to reject a request before opening a transaction.
func (np NewPrediction) Validate() error {
	_, err := np.validate()
	return err
}

func parseReaction(k ReactionKind) (ReactionKind, error) {
	if r, ok := oneOf(k, ReactionAgree, ReactionDisagree, ReactionUncertain); ok {
		return r, nil
	}
	return "", unknown("reaction", string(k), "a known reaction", "send agree, disagree or uncertain")
}

func parseOutcome(o Outcome) (Outcome, error) {
	if r, ok := oneOf(o, OutcomeYes, OutcomeNo, OutcomeVoid); ok {
		return r, nil
	}
	return "", unknown("outcome", string(o), "a known outcome", "send yes, no or void")
}

// parseSort reads a sort; "" is [SortRecent].
func parseSort(s Sort) (Sort, error) {
	if r, ok := oneOf(s, "", SortRecent, SortConfidence, SortPopular, SortClosing); ok {
		return cmp.Or(r, SortRecent), nil
	}
	return "", invalid("sort", fmt.Sprintf("%q is not a known sort", string(s)), "send recent, confidence, popular or closing")
}

// oneOf reads s as one of names, without regard to case or to white
// space around it.
func oneOf[T ~string](s T, names ...T) (T, bool) {
	t := T(strings.ToLower(strings.TrimSpace(string(s))))
	return t, slices.Contains(names, t)
}

// unknown refuses s, given as field, which is none of the field's names:
// it is required when empty, else it is not what.
func unknown(field, s, what, hint string) error {
	if s == "" {
		return invalid(field, "is required", hint)
	}
	return invalid(field, fmt.Sprintf("%q is not %s", s, what), hint)
}

// checkDate reads a calendar date YYYY-MM-DD.
func checkDate(field, s string) (string, error) {
	t, err := time.Parse(time.DateOnly, strings.TrimSpace(s))
	if err != nil {
		return "", invalid(field, fmt.Sprintf("%q is not a date YYYY-MM-DD", s), `send a date such as "2027-03-31"`)
	}
	return t.Format(time.DateOnly), nil
}

// readProbability reads a forecast's probability, as JSON, by the board's
// side of the one reading rule (see [checkConfidence]): a bare number is a
// fraction in [0, 1], a string ending in % a percent.
func readProbability(field string, raw json.RawMessage) (float64, error) {
	const hint = `send a fraction from 0 to 1 such as 0.7, or a percent string such as "70%"`
	t := bytes.Trim(raw, " \t\r\n") // JSON white space only
	if len(t) == 0 || string(t) == "null" {
		return 0, invalid(field, "is required", hint)
	}
	sent := odds.Sent{Text: string(t)}
	switch {
	case t[0] == '"':
		if err := json.Unmarshal(t, &sent.Text); err != nil {
			return 0, invalid(field, "is not a valid JSON string", hint)
		}
		if !strings.HasSuffix(strings.TrimSpace(sent.Text), "%") {
			return 0, invalid(field, fmt.Sprintf("is the string %q without a %% sign", truncate(sent.Text, 40)), hint)
		}
		sent.Quoted = true
	case !json.Valid(t):
		return 0, invalid(field, fmt.Sprintf("is %s, not a number", truncate(string(t), 40)), hint)
	}
	return readFraction(field, sent, hint)
}

// truncate shortens s to at most n bytes for an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
