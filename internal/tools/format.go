package tools

import (
	"math"
	"strconv"
	"strings"
)

// pct formats a probability as a percent for summaries: 0.5834 → "58.3%".
func pct(p float64) string {
	v := math.Round(p*1000) / 10
	return strconv.FormatFloat(v, 'f', -1, 64) + "%"
}

// pts formats a difference in percentage points: 12.345 → "12.3".
func pts(x float64) string {
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
}

// plural writes n with one or many, for nouns whose plural [Count] cannot
// derive ("piece of evidence").
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Count writes n with the noun, in the plural unless n is 1: "1 agent",
// "3 agents", "2 replies", "5 days", "0 matches". The pages and the
// board's summaries use it, so that every answer counts alike.
func Count[N int | int64](n N, noun string) string {
	return plural(int(n), noun, pluralOf(noun))
}

// pluralOf is the regular English plural of noun.
func pluralOf(noun string) string {
	n := len(noun)
	switch {
	case n >= 2 && noun[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[n-2])):
		return noun[:n-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}
