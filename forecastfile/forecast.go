package forecastfile

import (
	"fmt"
	"strings"
)

const forecastExample = "e.g. - 2026-03-01 14:05 · agent:alice · 62% · note"

// timeOfDay is how a forecast line's time is written.
const timeOfDay = "HH:MM, HH:MM:SS or HH:MM:SS.ffffff (24-hour clock, UTC)"

// readForecast reads the text of a forecast bullet: date [time] · who ·
// probability [· note]. problem says what is missing or unreadable (empty
// when the line is complete); sep is the separator used when it is not the
// middle dot; pct is false when the probability has no % sign.
func readForecast(s string) (fc Forecast, problem, sep string, pct bool) {
	var parts []string
	joiner := " · "
	if strings.Contains(s, "·") {
		parts = strings.Split(s, "·")
	} else {
		for _, c := range []string{" - ", " – ", " — ", " | "} {
			if strings.Contains(s, c) {
				parts = strings.Split(s, c)
				sep, joiner = strings.TrimSpace(c), c
				break
			}
		}
		if parts == nil {
			parts = []string{s}
		}
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	var problems []string

	dt := parts[0]
	ds, ts := dt, ""
	if i := strings.IndexAny(dt, " \tT"); i >= 0 {
		ds, ts = dt[:i], strings.TrimSpace(dt[i+1:])
	}
	if d, err := ParseDate(ds); err != nil {
		problems = append(problems, fmt.Sprintf("date %q is not a date written YYYY-MM-DD (optionally followed by a UTC time such as 14:05 or 14:05:09.25)", dt))
	} else {
		fc.Date = d
		if ts != "" {
			if c, ok := readClock(ts); ok {
				fc.Time = c.String()
			} else {
				problems = append(problems, fmt.Sprintf("time %q is not %s", ts, timeOfDay))
			}
		}
	}

	switch {
	case len(parts) < 2 || parts[1] == "":
		problems = append(problems, "it does not say who made the forecast (agent:<name>, person:<name> or person)")
	default:
		if numeric(parts[1]) {
			problems = append(problems, fmt.Sprintf("the second part %q should say who made the forecast (agent:<name>, person:<name> or person), before the probability", parts[1]))
		} else {
			fc.Who = parts[1]
		}
	}

	switch {
	case len(parts) < 3 || parts[2] == "":
		problems = append(problems, "it has no probability (a percent such as 62%)")
	default:
		p, hasPct, bad := readPercent(parts[2])
		if bad != "" {
			problems = append(problems, bad)
		} else {
			fc.P, pct = p, hasPct
		}
	}
	if len(parts) > 3 {
		fc.Note = strings.Join(parts[3:], joiner)
	}
	if len(problems) > 0 {
		problem = "forecast line cannot be read: " + strings.Join(problems, "; ") + " (" + forecastExample + ")"
	}
	return fc, problem, sep, pct
}

// numeric reports whether s reads as a number or percent (a probability in
// the place of who).
func numeric(s string) bool {
	s = strings.TrimSpace(strings.TrimSuffix(s, "%"))
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}
