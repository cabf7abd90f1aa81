package tools

import (
	"math"
	"strconv"
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

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
