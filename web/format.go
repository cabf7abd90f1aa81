package web

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/scoring"
)

// funcs are the template functions. None of them returns template.HTML for
// text that came from a request or the board.
var funcs = template.FuncMap{
	"pct":       pct,
	"pctNum":    pctNum,
	"pctp":      pctPtr,
	"num":       num,
	"nump":      numPtr,
	"score1p":   score1Ptr,
	"score1":    score1,
	"closeText": closeText,
	"help":      scoreHelp,
	"scoreName": scoreName,
	"scoreCols": func() []string { return scoreColumns },
	"apiText":   apiText,
	"date":      date,
	"flagLabel": flagLabel,
	"kindClass": kindClass,
	"plural":    tools.Count[int],
	"args":      textareaOf,
	"sentence":  sentence,
	"static":    staticURL,
	"bidi":      stripBidi,
	"human":     humanName,
	"replyText": replyText,
	"method":    methodName,
	"middle":    middleRule,
	"skill":     skillText,
	"interval":  intervalText,
	"meanCI":    meanInterval,
}

// meanInterval is a skill's mean peer score with its 95% interval, in
// few characters: "mean 15.0 [4.1, 25.9]"; "" with no scored question.
func meanInterval(s scoring.Skill) string {
	switch {
	case s.Questions == 0:
		return ""
	case !s.HasInterval():
		return "mean " + score1(s.MeanPeer)
	}
	return fmt.Sprintf("mean %s [%s, %s]", score1(s.MeanPeer), score1(s.Low), score1(s.High))
}

// skillText is a skill estimate to one decimal, "—" with no scored
// question.
func skillText(s scoring.Skill) string {
	if s.Questions == 0 {
		return "—"
	}
	return score1(s.Estimate)
}

// intervalText says what a skill rests on: its mean peer score with the
// 95% interval and the number of scored questions.
func intervalText(s scoring.Skill) string {
	switch {
	case s.Questions == 0:
		return "no scored question"
	case !s.HasInterval():
		return "mean peer " + score1(s.MeanPeer) + " on 1 question"
	}
	return fmt.Sprintf("mean peer %s, 95%% %s to %s, %d questions", score1(s.MeanPeer), score1(s.Low), score1(s.High), s.Questions)
}

// middleRule says in words when agents disagree on a prediction: the
// board's flag, [pool.MiddleDisagree], by its own constants.
func middleRule() string {
	return fmt.Sprintf("the middle half of their forecasts spans more than %.0f points", pool.MiddleDisagreePts)
}

// replyText is a reply's text without the coordination tag its badge
// shows.
func replyText(body string) string {
	_, rest := board.SplitTag(body)
	return rest
}

// methodNames say in words how each pooling method of package pool
// pools.
var methodNames = map[string]string{
	"geo_odds": "geometric mean of odds",
	"mean":     "mean of probabilities",
	"median":   "median",
	"recency":  "recency-weighted median (Metaculus's community prediction)",
	"skill":    "log-odds weighted by recency and skill, extremized",
}

// methodName names a pooling method for people; an unknown one as it is.
func methodName(m string) string { return cmpOr(methodNames[m], m) }

// sentence capitalizes the first letter of s.
func sentence(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// pct writes a probability as a percent with at most one decimal: 0.7 →
// "70%", 0.355 → "35.5%".
func pct(p float64) string {
	return strconv.FormatFloat(math.Round(p*1000)/10, 'f', -1, 64) + "%"
}

// pctNum is p in percent as a form field holds it: up to two decimals,
// without trailing zeros or a % sign ("62", "62.5").
func pctNum(p float64) string {
	return strconv.FormatFloat(math.Round(p*10000)/100, 'f', -1, 64)
}

func pctPtr(p *float64) string {
	if p == nil {
		return "—"
	}
	return pct(*p)
}

// num writes a score with three decimals.
func num(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

func numPtr(x *float64) string {
	if x == nil {
		return "—"
	}
	return num(*x)
}

// score1Ptr writes a peer or baseline score with one decimal; nil (no
// scored forecast yet) is a dash.
func score1Ptr(x *float64) string {
	if x == nil {
		return "—"
	}
	return score1(*x)
}

// score1 writes a score with one decimal. A score that rounds to zero is
// "0.0", never "-0.0": the sign of a rounded-away value says nothing.
func score1(x float64) string {
	s := strconv.FormatFloat(x, 'f', 1, 64)
	if s == "-0.0" {
		return "0.0"
	}
	return s
}

// scoreHelps say what each score means, in a line a person reads next
// to the number; the rules are the board's (docs: Metaculus's scores).
var scoreHelps = map[string]string{
	"trust":    "How far to trust its forecasts: 50% is neutral, and it rises with proven skill.",
	"skill":    "Its peer score per question, held near 0 until enough questions back it.",
	"peer":     "How much better than the other forecasters on the same questions: 0 is average, above 0 better.",
	"baseline": "How much better than a coin flip (50%): 0 is no better, above 0 better.",
	"brier":    "Squared distance from what happened: 0 is perfect, 0.25 is always saying 50%.",
	"log":      "Log of the chance given to what happened: 0 is perfect, lower is worse.",
	"coverage": "The share of the question's scheduled life for which it had a forecast.",
}

// scoreColumns are the score columns of a question's score table, in order.
var scoreColumns = []string{"peer", "baseline", "brier", "log", "coverage"}

// scoreName is a score's short name as a column header.
func scoreName(name string) string { return sentence(name) }

// scoreHelp is the line that explains the score name; "" for none.
func scoreHelp(name string) string { return scoreHelps[name] }

// closeText writes a close time as people give it: a close at midnight
// UTC is the end of the day before ("end of 2027-06-30 UTC"), as a
// resolve_by date closes at the end of its day; any other time is to the
// minute.
func closeText(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return "end of " + t.AddDate(0, 0, -1).Format(time.DateOnly) + " UTC"
	}
	return date(t)
}

// date writes a time in UTC to the minute.
func date(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// ago writes how long before now t was, roughly.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return tools.Count(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return tools.Count(int(d/time.Hour), "hour") + " ago"
	default:
		return tools.Count(int(d/(24*time.Hour)), "day") + " ago"
	}
}

// flagLabel is the words shown for a stored flag.
func flagLabel(flag string) string {
	switch flag {
	case "instruction_like":
		return "flagged: instructions"
	case "certainty_language":
		return "flagged: certainty language"
	}
	return "flagged: " + strings.ReplaceAll(flag, "_", " ")
}

// kindClass turns any reply kind into a CSS class suffix of letters,
// digits and hyphens, so that a new kind gets a label without code here.
func kindClass(kind string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(kind) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// apiText writes a tool's description (a constant of package tools, in
// Markdown's inline code style) as HTML: each `name` in a code element,
// so the page shows no literal backticks.
func apiText(s string) template.HTML {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
			continue
		}
		b.WriteString(template.HTMLEscapeString(part))
	}
	return template.HTML(b.String()) //nolint:gosec // escaped text and code elements only
}
