package odds

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// decimal is an unsigned decimal number as written ("012.50e-3"): the
// number is exactly its digits, so the questions the readers ask of it (is
// it 0, 1, above 100, below 1e-300?) are answered from the digits without
// arithmetic, its text on another scale is the same digits with the point
// moved, and its nearest float64 is strconv.ParseFloat's, which rounds
// correctly (to nearest, ties to even, as math/big.Rat.Float64 does).
//
// Its value is m × 10^low, m the significant digits (from the first
// nonzero digit to the last) read as a whole number; the zero value is 0.
type decimal struct {
	text        string // the number as written: mantissa and exponent
	mant        string // the mantissa: digits with at most one point
	first, last int    // indexes in mant of the first and last nonzero digits
	n           int    // the number of significant digits; 0 for zero
	lead        int    // the power of ten of the first significant digit
}

// low is the power of ten of the last significant digit.
func (d decimal) low() int { return d.lead - d.n + 1 }

// isZero reports whether the number is 0.
func (d decimal) isZero() bool { return d.n == 0 }

// cmpPow10 compares the number with 10^k: -1, 0 or +1.
func (d decimal) cmpPow10(k int) int {
	switch {
	case d.n == 0 || d.lead < k:
		return -1
	case d.lead > k || d.n > 1 || d.mant[d.first] != '1':
		return 1
	}
	return 0
}

// appendDigits appends the significant digits, with a point after the
// first at of them when 0 < at < n.
func (d decimal) appendDigits(b []byte, at int) []byte {
	k := 0
	for i := d.first; i <= d.last && d.n > 0; i++ {
		if c := d.mant[i]; c != '.' {
			if k == at && k > 0 {
				b = append(b, '.')
			}
			b = append(b, c)
			k++
		}
	}
	return b
}

// uint64 returns m, the significant digits as a whole number, when it
// fits (at most 19 digits).
func (d decimal) uint64() (uint64, bool) {
	if d.n > 19 {
		return 0, false
	}
	var m uint64
	for i := d.first; i <= d.last && d.n > 0; i++ {
		if c := d.mant[i]; c != '.' {
			m = m*10 + uint64(c-'0')
		}
	}
	return m, true
}

// float returns the float64 nearest the number times 10^shift.
func (d decimal) float(shift int) float64 {
	if d.n == 0 {
		return 0
	}
	if shift == 0 {
		f, _ := strconv.ParseFloat(d.text, 64) // the text is in ParseFloat's grammar
		return f
	}
	var buf [MaxLen + 8]byte
	b := strconv.AppendInt(append(d.appendDigits(buf[:0], 0), 'e'), int64(d.low()+shift), 10)
	f, _ := strconv.ParseFloat(string(b), 64)
	return f
}

// appendText appends the number times 10^shift as an exact decimal, as
// big.Rat.FloatString writes it with the fewest places that hold it (the
// number's last significant digit is the last place), or false when that
// takes more than maxPlaces places.
func (d decimal) appendText(b []byte, shift, maxPlaces int) ([]byte, bool) {
	if d.n == 0 {
		return append(b, '0'), true
	}
	lead, low := d.lead+shift, d.low()+shift
	if -low > maxPlaces {
		return b, false
	}
	switch {
	case low >= 0: // a whole number
		b = d.appendDigits(b, 0)
		for range low {
			b = append(b, '0')
		}
	case lead >= 0: // digits on both sides of the point
		b = d.appendDigits(b, lead+1)
	default: // 0.000ddd
		b = append(b, "0."...)
		for range -lead - 1 {
			b = append(b, '0')
		}
		b = d.appendDigits(b, 0)
	}
	return b, true
}

// textAt writes the number times 10^shift as a terminating decimal, or
// as the shortest float64 text when it has more than MaxLen places.
func (d decimal) textAt(shift int) string {
	var buf [2*MaxLen + 8]byte
	if b, ok := d.appendText(buf[:0], shift, MaxLen); ok {
		return string(b)
	}
	return floatText(d.float(shift))
}

// rat returns the number as a new big.Rat.
func (d decimal) rat() *big.Rat {
	if d.n == 0 {
		return new(big.Rat)
	}
	if m, ok := d.uint64(); ok && d.low() <= 0 && d.low() >= -18 {
		r := new(big.Rat).SetFrac(new(big.Int).SetUint64(m), big.NewInt(pow10[-d.low()]))
		return r
	}
	m, _ := new(big.Int).SetString(string(d.appendDigits(nil, 0)), 10)
	r := new(big.Rat).SetInt(m)
	if low := d.low(); low != 0 {
		pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(low))), nil)
		if low > 0 {
			r.Mul(r, new(big.Rat).SetInt(pow))
		} else {
			r.Quo(r, new(big.Rat).SetInt(pow))
		}
	}
	return r
}

// rat64 returns the number as an int64 fraction in lowest terms, when it
// fits.
func (d decimal) rat64() (rat64, bool) {
	if d.n == 0 {
		return rat64{0, 1}, true
	}
	m, ok := d.uint64()
	low := d.low()
	if !ok || m > math.MaxInt64 || low > 18 || low < -18 {
		return rat64{}, false
	}
	if low >= 0 {
		n, ok := mul(int64(m), pow10[low])
		return rat64{n, 1}, ok
	}
	return reduce(int64(m), pow10[-low]), true
}

// parseNumber reads an unsigned decimal number: digits with an optional
// point and an optional exponent (e or E, a sign, digits; ±maxExponent).
func parseNumber(s string) (decimal, *failure) {
	bad := func() *failure {
		if strings.Contains(s, ",") {
			return &failure{err: ErrSyntax, reason: "has a comma",
				hint: "write decimals with a point and no thousands separator, such as 1.91 or 1000"}
		}
		if s == "" {
			return &failure{err: ErrSyntax, reason: "has no number"}
		}
		return &failure{err: ErrSyntax, reason: "is not a number"}
	}
	d := decimal{first: -1}
	point, digits := -1, 0
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '1' && c <= '9' {
			if d.first < 0 {
				d.first = i
			}
			d.last = i
			digits++
		} else if c == '0' {
			digits++
		} else if c == '.' && point < 0 {
			point = i
		} else {
			break
		}
	}
	if digits == 0 {
		return decimal{}, bad()
	}
	exp, j, ok := readExponent(s, i)
	if !ok {
		return decimal{}, bad()
	}
	if exp > maxExponent || exp < -maxExponent {
		if j != len(s) {
			return decimal{}, bad()
		}
		return decimal{}, &failure{err: ErrRange, reason: "has an exponent beyond ±" + strconv.Itoa(maxExponent),
			hint: "write the number with a smaller exponent, such as 1e-6"}
	}
	if j != len(s) {
		return decimal{}, bad()
	}
	d.text, d.mant = s, s[:i]
	if d.first < 0 { // zero
		return decimal{text: d.text, mant: d.mant}, nil
	}
	if point < 0 {
		point = i
	}
	place := func(at int) int { // the power of ten of the digit at mant[at]
		if at < point {
			return point - at - 1
		}
		return point - at
	}
	d.lead = place(d.first) + exp
	d.n = place(d.first) - place(d.last) + 1
	return d, nil
}

// cutSign removes a leading +, - or Unicode minus sign and the spaces after it.
func cutSign(s string) (rest string, sign int) {
	switch {
	case strings.HasPrefix(s, "+"):
		return strings.TrimSpace(s[1:]), 1
	case strings.HasPrefix(s, "-"):
		return strings.TrimSpace(s[1:]), -1
	case strings.HasPrefix(s, "−"):
		return strings.TrimSpace(s[len("−"):]), -1
	}
	return s, 0
}

// unsigned reads a number that may carry a "+" but must not be negative.
func unsigned(s string) (decimal, *failure) {
	rest, sign := cutSign(s)
	d, f := parseNumber(rest)
	if f != nil {
		return decimal{}, f
	}
	if sign < 0 && !d.isZero() {
		return decimal{}, &failure{err: ErrRange, reason: "is negative"}
	}
	return d, nil
}

// pow10[i] is 10^i.
var pow10 = func() (t [19]int64) {
	t[0] = 1
	for i := 1; i < len(t); i++ {
		t[i] = 10 * t[i-1]
	}
	return t
}()

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
