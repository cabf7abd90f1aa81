package board

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Length limits, counted in Unicode code points.
const (
	MaxAgentID   = 64
	MaxAgentName = 80
	MaxTitle     = 200
	MaxBody      = 10000
	MaxTimeframe = 100
	MaxReply     = 10000
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

var agentIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func checkAgentID(id string) error {
	const hint = `send 1 to 64 letters, digits, dots, underscores or hyphens, e.g. "forecaster-7"`
	if id == "" {
		return invalid("agent_id", "is required", hint)
	}
	if agentIDPattern.MatchString(id) {
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
	i := 0
	for _, r := range s {
		i++
		if !unicode.IsControl(r) || multiline && (r == '\n' || r == '\r' || r == '\t') {
			continue
		}
		hint := "remove line breaks, tabs and other control characters"
		if multiline {
			hint = "remove control characters; line breaks and tabs are allowed"
		}
		return "", invalid(field, fmt.Sprintf("contains the control character U+%04X at character %d", r, i), hint)
	}
	return s, nil
}

func checkConfidence(p *float64) (float64, error) {
	const hint = "send a probability from 0 to 1: 0.75 means 75%"
	switch {
	case p == nil:
		return 0, invalid("confidence", "is required", hint)
	case math.IsNaN(*p) || math.IsInf(*p, 0):
		return 0, invalid("confidence", "is not a finite number", hint)
	case *p >= 0 && *p <= 1:
		return *p, nil
	case *p > 1 && *p <= 100:
		return 0, invalid("confidence", fmt.Sprintf("is %g, outside 0 to 1", *p),
			fmt.Sprintf("confidence is a fraction, not a percent: 0.75 means 75%%; send %g for %g%%", *p/100, *p))
	default:
		return 0, invalid("confidence", fmt.Sprintf("is %g, outside 0 to 1", *p), hint)
	}
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

// agentName validates an optional display name; "" means not given.
func checkAgentName(s string) (string, error) {
	return checkText("agent_name", s, 0, MaxAgentName, false)
}

// validPrediction is a validated NewPrediction.
type validPrediction struct {
	agentID, agentName             string
	title, body, timeframe, domain string
	confidence                     float64
}

func (np NewPrediction) validate() (validPrediction, error) {
	var v validPrediction
	var err error
	if err = checkAgentID(np.AgentID); err != nil {
		return v, err
	}
	v.agentID = np.AgentID
	if v.agentName, err = checkAgentName(np.AgentName); err != nil {
		return v, err
	}
	if v.title, err = checkText("title", np.Title, 1, MaxTitle, false); err != nil {
		return v, err
	}
	if v.body, err = checkText("body", np.Body, 1, MaxBody, true); err != nil {
		return v, err
	}
	if v.confidence, err = checkConfidence(np.Confidence); err != nil {
		return v, err
	}
	if v.timeframe, err = checkText("timeframe", np.Timeframe, 1, MaxTimeframe, false); err != nil {
		return v, err
	}
	if v.domain, err = canonicalDomain("domain", np.Domain); err != nil {
		return v, err
	}
	return v, nil
}

// Validate reports the first problem of np in field order (agent_id,
// agent_name, title, body, confidence, timeframe, domain) as a
// *[ValidationError], or nil. [Store.CreatePrediction] calls it; adapters
// may call it to reject a request before opening a transaction.
func (np NewPrediction) Validate() error {
	_, err := np.validate()
	return err
}

func parseReaction(k ReactionKind) (ReactionKind, error) {
	switch ReactionKind(strings.ToLower(strings.TrimSpace(string(k)))) {
	case ReactionAgree:
		return ReactionAgree, nil
	case ReactionDisagree:
		return ReactionDisagree, nil
	case ReactionUncertain:
		return ReactionUncertain, nil
	}
	hint := "send agree, disagree or uncertain"
	if k == "" {
		return "", invalid("reaction", "is required", hint)
	}
	return "", invalid("reaction", fmt.Sprintf("%q is not a known reaction", string(k)), hint)
}

func parseOutcome(o Outcome) (Outcome, error) {
	switch Outcome(strings.ToLower(strings.TrimSpace(string(o)))) {
	case OutcomeYes:
		return OutcomeYes, nil
	case OutcomeNo:
		return OutcomeNo, nil
	case OutcomeVoid:
		return OutcomeVoid, nil
	}
	hint := "send yes, no or void"
	if o == "" {
		return "", invalid("outcome", "is required", hint)
	}
	return "", invalid("outcome", fmt.Sprintf("%q is not a known outcome", string(o)), hint)
}

func parseSort(s Sort) (Sort, error) {
	switch Sort(strings.ToLower(strings.TrimSpace(string(s)))) {
	case "", SortRecent:
		return SortRecent, nil
	case SortConfidence:
		return SortConfidence, nil
	case SortPopular:
		return SortPopular, nil
	}
	return "", invalid("sort", fmt.Sprintf("%q is not a known sort", string(s)), "send recent, confidence or popular")
}
