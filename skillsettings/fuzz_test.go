package skillsettings

import (
	"errors"
	"strings"
	"testing"
)

// FuzzResolve checks, for any name and value on top of any preset: no
// panic; every value in force is valid; the link query reproduces the same
// settings without notes; notes of invalid or unknown input are typed errors,
// the others are not errors.
func FuzzResolve(f *testing.F) {
	f.Add("team", "floor_pct", "25")
	f.Add("", "min_forecasters", "2.5")
	f.Add("strict", "pool", "avg")
	f.Add("core", "review_days", "1e400")
	f.Add("none", "share", "unset")
	f.Add("x", "y", "NaN")
	f.Add("recommended", "decimals", "-0.4")
	f.Fuzz(func(t *testing.T, preset, name, value string) {
		s, notes := ResolveQuery(map[string][]string{"preset": {preset}, name: {value}})
		for i, st := range settings {
			v := s.at(i)
			if v == "" {
				if !st.Optional {
					t.Fatalf("%s unset", st.Name)
				}
				continue
			}
			if _, ns := parse(st, v, v); len(ns) != 0 {
				t.Fatalf("%s=%q in force is not canonical: %v", st.Name, v, Strings(ns))
			}
		}
		q := s.Query()
		again, qnotes := ResolveQuery(parseQuery(t, q))
		if len(qnotes) != 0 || again.Query() != q || again.Preset() != s.Preset() {
			t.Fatalf("query %q does not reproduce itself: %q, notes %v", q, again.Query(), Strings(qnotes))
		}
		for _, n := range notes {
			err := n.Err()
			switch n.Kind {
			case NoteInvalid:
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("invalid note without ErrInvalid: %v", n)
				}
			case NoteUnknown:
				if !errors.Is(err, ErrUnknown) {
					t.Fatalf("unknown note without ErrUnknown: %v", n)
				}
			default:
				if err != nil {
					t.Fatalf("%s note is an error: %v", n.Kind, err)
				}
			}
			msg := n.String()
			if !strings.HasPrefix(msg, show(n.Setting)+": ") {
				t.Fatalf("note text %q does not start with the setting", msg)
			}
			if err != nil {
				msg += err.Error()
			}
			for _, c := range []byte(msg) {
				if c < ' ' || c >= 0x7f {
					t.Fatalf("note or error text %q is not one line of printable ASCII", msg)
				}
			}
		}
	})
}
