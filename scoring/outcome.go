package scoring

import "strings"

// ParseOutcome reads the outcome of a resolved yes/no question: "yes" or
// "1" is true, "no" or "0" is false. ASCII case and surrounding white space
// are ignored. Any other text, "void" included, gives an [*OutcomeError]
// wrapping [ErrOutcome].
func ParseOutcome(s string) (bool, error) {
	switch t := strings.TrimSpace(s); {
	case t == "1" || asciiFold(t, "yes"):
		return true, nil
	case t == "0" || asciiFold(t, "no"):
		return false, nil
	}
	return false, &OutcomeError{Value: s}
}

// asciiFold reports whether s equals the lower-case ASCII word w, ignoring
// ASCII case only (strings.EqualFold would also take "ſ" for "s").
func asciiFold(s, w string) bool {
	if len(s) != len(w) {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}
