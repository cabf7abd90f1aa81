// Package jsonscan reads two pieces of the JSON grammar (RFC 8259) from
// bytes or strings: white space and numbers. It is shared by the checks
// that read request bodies without decoding them (internal/tools and
// httpapi), so that they agree on the grammar.
package jsonscan

// Space returns the index of the first byte at or after i in s that is
// not JSON white space (space, tab, line feed, carriage return).
func Space[T string | []byte](s T, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// Number reads the JSON number that starts at s[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. It returns the index
// just after it, and false when no number starts at i. It stops at the
// first byte that cannot continue the number; whether that byte may
// follow a number is for the caller to decide.
func Number[T string | []byte](s T, i int) (int, bool) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(s, i)
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// digits returns the index of the first byte at or after i in s that is
// not an ASCII digit.
func digits[T string | []byte](s T, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}
