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
		return fmt.Sprintf("mean %.1f", s.MeanPeer)
	}
	return fmt.Sprintf("mean %.1f [%.1f, %.1f]", s.MeanPeer, s.Low, s.High)
}

// skillText is a skill estimate to one decimal, "—" with no scored
// question.
func skillText(s scoring.Skill) string {
	if s.Questions == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", s.Estimate)
}

// intervalText says what a skill rests on: its mean peer score with the
// 95% interval and the number of scored questions.
func intervalText(s scoring.Skill) string {
	switch {
	case s.Questions == 0:
		return "no scored question"
	case !s.HasInterval():
		return fmt.Sprintf("mean peer %.1f on 1 question", s.MeanPeer)
	}
	return fmt.Sprintf("mean peer %.1f, 95%% %.1f to %.1f, %d questions", s.MeanPeer, s.Low, s.High, s.Questions)
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
	return strconv.FormatFloat(*x, 'f', 1, 64)
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
