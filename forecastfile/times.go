package forecastfile

import (
	"fmt"
	"strings"
	"time"
)

// The question keys that say when the question took forecasts, as the
// agent board's JSON names them.
const (
	KeyOpensAt  = "opens_at"  // when forecasting opened
	KeyCloseAt  = "close_at"  // the scheduled close
	KeyClosedAt = "closed_at" // the actual close: close_at, or earlier when resolved early
)

// clock is a time of day read from HH:MM, HH:MM:SS or HH:MM:SS.ffffff.
type clock struct {
	h, m, s, ns int
}

// readClock reads a time of day: HH:MM, HH:MM:SS or HH:MM:SS followed by
// a point and one to six digits (microseconds), optionally followed by Z
// (UTC, as RFC 3339 writes it). The file's times are UTC; any other
// offset is refused.
func readClock(s string) (clock, bool) {
	if n := len(s); n > 0 && (s[n-1] == 'Z' || s[n-1] == 'z') {
		s = s[:n-1]
	}
	if len(s) < 5 || s[2] != ':' {
		return clock{}, false
	}
	var c clock
	var ok1, ok2 bool
	c.h, ok1 = digits(s[:2])
	c.m, ok2 = digits(s[3:5])
	if !ok1 || !ok2 || c.h > 23 || c.m > 59 {
		return clock{}, false
	}
	rest := s[5:]
	if rest == "" {
		return c, true
	}
	if len(rest) < 3 || rest[0] != ':' {
		return clock{}, false
	}
	sec, ok := digits(rest[1:3])
	if !ok || sec > 59 {
		return clock{}, false
	}
	c.s, rest = sec, rest[3:]
	if rest == "" {
		return c, true
	}
	frac := rest[1:]
	if rest[0] != '.' || len(frac) == 0 || len(frac) > 6 {
		return clock{}, false
	}
	f, ok := digits(frac)
	if !ok {
		return clock{}, false
	}
	for range 9 - len(frac) {
		f *= 10
	}
	c.ns = f
	return c, true
}

// String writes the clock with the precision it needs: HH:MM when the
// seconds are 0, HH:MM:SS when there is no fraction, else the fraction
// without trailing zeros.
func (c clock) String() string {
	s := fmt.Sprintf("%02d:%02d", c.h, c.m)
	if c.s == 0 && c.ns == 0 {
		return s
	}
	s += fmt.Sprintf(":%02d", c.s)
	if c.ns == 0 {
		return s
	}
	return s + strings.TrimRight(fmt.Sprintf(".%09d", c.ns), "0")
}

// Clock returns the time of day of t in UTC as a forecast line writes it
// ([Forecast.Time]): HH:MM, HH:MM:SS when the seconds are not 0, or
// HH:MM:SS.ffffff without trailing zeros when there is a fraction. The
// fraction is cut to microseconds, the file's finest precision.
func Clock(t time.Time) string {
	t = t.UTC()
	return clock{t.Hour(), t.Minute(), t.Second(), t.Nanosecond() / 1000 * 1000}.String()
}

// FormatTime writes t in UTC as the file writes a time: the date, a space
// and [Clock] (2026-06-30 17:05, 2026-06-30 17:05:09.25).
func FormatTime(t time.Time) string {
	return DateOf(t.UTC()).String() + " " + Clock(t)
}

// ParseTime reads a time as the keys opens_at, close_at and closed_at
// give it, in UTC: YYYY-MM-DD HH:MM[:SS[.ffffff]], the date alone (the
// start of that day), or RFC 3339 with Z (2026-06-30T17:05:09Z). It
// returns the time in UTC, or an error wrapping [ErrTime].
func ParseTime(s string) (time.Time, error) {
	t, _, ok := readTime(s)
	if !ok {
		return time.Time{}, fmt.Errorf("%q: %w", s, ErrTime)
	}
	return t, nil
}

// readTime reads a time (see [ParseTime]) and returns it with its
// canonical text: the date alone when only a date is written, else the
// date, a space and the clock.
func readTime(s string) (time.Time, string, bool) {
	if len(s) < 10 {
		return time.Time{}, "", false
	}
	d, err := ParseDate(s[:10])
	if err != nil {
		return time.Time{}, "", false
	}
	if len(s) == 10 {
		return d.at(clock{}), d.String(), true
	}
	if sep := s[10]; sep != ' ' && sep != 'T' && sep != 't' {
		return time.Time{}, "", false
	}
	c, ok := readClock(strings.TrimSpace(s[11:]))
	if !ok {
		return time.Time{}, "", false
	}
	return d.at(c), d.String() + " " + c.String(), true
}

// at returns the moment of the date d at clock c, in UTC.
func (d Date) at(c clock) time.Time {
	return time.Date(d.Year, d.Month, d.Day, c.h, c.m, c.s, c.ns, time.UTC)
}

// At returns when the forecast was made, in UTC: its date at its time,
// or at 00:00 when it has none. It is the zero time when the forecast has
// no date.
func (fc Forecast) At() time.Time {
	if fc.Date.IsZero() {
		return time.Time{}
	}
	c, _ := readClock(fc.Time)
	return fc.Date.at(c)
}

// endOfDay returns the moment the day d ends: the next day at 00:00 UTC.
func endOfDay(d Date) time.Time {
	return d.at(clock{}).AddDate(0, 0, 1)
}

// timeProblem says why a time key's value is not read, with the fix.
func timeProblem(key, value string) string {
	// A time with an offset other than Z: say what it is in UTC.
	if n := len(value); n > 16 && (value[n-6] == '+' || value[n-6] == '-') && value[n-3] == ':' {
		h, ok1 := digits(value[n-5 : n-3])
		m, ok2 := digits(value[n-2:])
		if t, _, ok := readTime(value[:n-6]); ok && ok1 && ok2 && len(value[:n-6]) > 10 {
			off := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute
			if value[n-6] == '+' {
				off = -off
			}
			return fmt.Sprintf("%s %q is not in UTC: the file's times are UTC; write %s: %s", key, value, key, FormatTime(t.Add(off)))
		}
	}
	return fmt.Sprintf("%s %q is not a time: write YYYY-MM-DD HH:MM in UTC, with optional :SS and up to six decimals of a second, e.g. %s: 2026-06-30 17:05 or %s: 2026-06-30 17:05:09.25", key, value, key, key)
}

// life is a question's life as the time-averaged scores take it.
type life struct {
	open, close, actual time.Time // zero when nothing gives them
	// assumed says, for each key not given, what was assumed, in key
	// order, e.g. "close_at 2026-02-16 00:00 (the end of resolve_by
	// 2026-02-15, UTC)".
	assumed []string
	keys    []string // the keys assumed
	byKey   bool     // close_at or closed_at gave the actual close
}

// lifeOf returns q's life: opens_at, close_at and closed_at as given, and
// for those not given: the open is earliest (the earliest forecast, zero
// for none); the scheduled close is the end of the resolve_by day (the
// next day at 00:00 UTC), or closed_at when that is later; the actual
// close is the scheduled close. A closed_at after close_at counts as
// close_at.
func (q *Question) lifeOf(earliest time.Time) life {
	l := life{open: q.OpensAt, close: q.CloseAt, actual: q.ClosedAt}
	assume := func(key string, t time.Time, why string) {
		if !t.IsZero() {
			l.keys = append(l.keys, key)
			l.assumed = append(l.assumed, fmt.Sprintf("%s %s (%s)", key, FormatTime(t), why))
		}
	}
	if l.open.IsZero() {
		l.open = earliest
		assume(KeyOpensAt, l.open, "the earliest forecast")
	}
	if l.close.IsZero() && !q.ResolveBy.IsZero() {
		l.close = endOfDay(q.ResolveBy)
		why := fmt.Sprintf("the end of resolve_by %s, UTC", q.ResolveBy)
		if l.actual.After(l.close) {
			l.close, why = l.actual, "closed_at, which is after the end of resolve_by "+q.ResolveBy.String()
		}
		assume(KeyCloseAt, l.close, why)
	}
	l.byKey = !q.CloseAt.IsZero() || !q.ClosedAt.IsZero()
	switch {
	case l.actual.IsZero():
		l.actual = l.close
		assume(KeyClosedAt, l.actual, "the scheduled close")
	case !l.close.IsZero() && l.actual.After(l.close):
		l.actual = l.close
	}
	return l
}

// Life returns when q took forecasts, as [File.Report] takes it for the
// time-averaged scores: the open, the scheduled close and the actual
// close, each as its key gives it or else as assumed (see lifeOf), and a
// note for each time assumed. A time is zero where nothing gives it: the
// open of a question without forecasts, the closes of one without
// resolve_by, close_at and closed_at. The agent board imports a question
// with this life, so its scores are the report's.
func (q *Question) Life() (open, close, actual time.Time, assumed []string) {
	var earliest time.Time
	for _, fc := range q.Forecasts {
		if at := fc.At(); usable(fc) && (earliest.IsZero() || at.Before(earliest)) {
			earliest = at
		}
	}
	l := q.lifeOf(earliest)
	return l.open, l.close, l.actual, l.assumed
}

// timeField returns the field of q that holds the time key key.
func (q *Question) timeField(key string) *time.Time {
	switch key {
	case KeyOpensAt:
		return &q.OpensAt
	case KeyCloseAt:
		return &q.CloseAt
	}
	return &q.ClosedAt
}
