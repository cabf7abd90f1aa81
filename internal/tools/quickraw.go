package tools

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/predictions-md/predictions/internal/jsonscan"
)

// validRaw reports whether raw, a whole request body, is certainly a JSON
// object that satisfies the schema and has no field the schema does not
// name, read straight from the bytes without decoding them. It answers
// "certain" only for strict JSON in valid UTF-8 whose keys and enum
// values need no unescaping; for those, the decoded values are the bytes
// themselves, so the checks of [quickSchema.valid] apply to the text as
// they would to the decoded value. Other strings may hold escapes: their
// length is counted as the decoder decodes them. false means "not
// certain": Call then decodes the input and decides as before.
//
// A key given twice is checked each time it appears; the decoders keep
// the last, which is then checked too.
func (q *quickSchema) validRaw(raw []byte) bool {
	s := rawScan{b: raw}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '{' || !q.rawValue(&s, 0) {
		return false
	}
	s.space()
	return s.i == len(s.b)
}

// maxRawDepth bounds the nesting validRaw follows; deeper input goes to
// the decoder, which has limits of its own.
const maxRawDepth = 64

type rawScan struct {
	b []byte
	i int
}

func (s *rawScan) space() { s.i = jsonscan.Space(s.b, s.i) }

// rawValue checks the value at s.i against q and moves past it. q may be
// nil: any valid JSON value.
func (q *quickSchema) rawValue(s *rawScan, depth int) bool {
	if depth > maxRawDepth || s.i >= len(s.b) {
		return false
	}
	if q == nil {
		q = anySchema
	}
	start := s.i
	if !q.rawOwn(s, depth) {
		return false
	}
	if len(q.anyOf) == 0 {
		return true
	}
	end := s.i
	for _, a := range q.anyOf {
		s.i = start
		if a.rawValue(s, depth) && s.i == end {
			return true
		}
	}
	return false
}

// anySchema is the quick schema of any value: no type, no bounds.
var anySchema = &quickSchema{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}

// rawOwn checks the value at s.i against q's own keywords (all but anyOf).
func (q *quickSchema) rawOwn(s *rawScan, depth int) bool {
	switch c := s.b[s.i]; {
	case c == '{':
		return q.allows(quickObject) && q.rawObject(s, depth)
	case c == '[':
		return q.allows(quickArray) && q.rawArray(s, depth)
	case c == '"':
		if !q.allows(quickString) {
			return false
		}
		start := s.i
		text, ok := plainRawString(s)
		n := 0 // characters, once decoded
		switch {
		case ok:
			if q.minLen >= 0 || q.maxLen >= 0 {
				n = utf8.RuneCount(text)
			}
		case q.enum == nil:
			// With escapes: counted as the decoder would decode them.
			s.i = start
			if n, ok = escapedRawString(s); !ok {
				return false
			}
		default:
			return false
		}
		if q.minLen >= 0 && n < q.minLen || q.maxLen >= 0 && n > q.maxLen {
			return false
		}
		return q.enum == nil || q.inEnum(string(text))
	case c == '-' || '0' <= c && c <= '9':
		start := s.i
		if !rawNumber(s) {
			return false
		}
		text := s.b[start:s.i]
		isInt := !bytes.ContainsAny(text, ".eE")
		if !q.allows(quickNumber) && !(isInt && q.allows(quickInteger)) {
			return false
		}
		if (q.minimum != nil || q.maximum != nil) && !q.inBounds(string(text)) {
			return false
		}
		return q.enum == nil || q.inEnum(json.Number(text))
	case c == 't' || c == 'f':
		v := c == 't'
		word := "false"
		if v {
			word = "true"
		}
		if !s.literal(word) || !q.allows(quickBoolean) {
			return false
		}
		return q.enum == nil || q.inEnum(v)
	case c == 'n':
		return s.literal("null") && q.allows(quickNull) && q.enum == nil
	}
	return false
}

func (q *quickSchema) rawObject(s *rawScan, depth int) bool {
	if len(q.required) > 64 {
		return false
	}
	var seen uint64 // bit i: q.required[i] was given
	s.i++           // {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return q.allRequired(seen)
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		key, ok := plainRawString(s)
		if !ok {
			return false
		}
		var p *quickSchema
		if q.props != nil {
			if p = q.props[string(key)]; p == nil {
				return false // an unknown field: Call words a note for it
			}
		}
		for i, r := range q.required {
			if r == string(key) {
				seen |= 1 << i
			}
		}
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		if !p.rawValue(s, depth+1) {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			return q.allRequired(seen)
		default:
			return false
		}
	}
}

func (q *quickSchema) allRequired(seen uint64) bool {
	return seen == 1<<len(q.required)-1
}

func (q *quickSchema) rawArray(s *rawScan, depth int) bool {
	n := 0
	s.i++ // [
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
	} else {
		for {
			if !q.items.rawValue(s, depth+1) {
				return false
			}
			n++
			s.space()
			if s.i >= len(s.b) {
				return false
			}
			if s.b[s.i] == ']' {
				s.i++
				break
			}
			if s.b[s.i] != ',' {
				return false
			}
			s.i++
			s.space()
		}
	}
	return !(q.minItems >= 0 && n < q.minItems || q.maxItems >= 0 && n > q.maxItems)
}

// plainRawString moves past the JSON string at s.i and returns its
// contents, when they need no unescaping: valid UTF-8 with no backslash
// and no control character.
func plainRawString(s *rawScan) ([]byte, bool) {
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			text := s.b[start:j]
			if !utf8.Valid(text) {
				return nil, false
			}
			s.i = j + 1
			return text, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// escapedRawString moves past the JSON string at s.i, which may hold
// escapes, and returns the number of characters encoding/json decodes it
// to. It must be valid UTF-8 (the decoder would replace invalid bytes).
// A \u escape is one character, but a surrogate pair is one for both,
// as the decoder combines them; a lone surrogate is decoded as U+FFFD,
// one character.
func escapedRawString(s *rawScan) (int, bool) {
	n := 0
	j := s.i + 1
	for j < len(s.b) {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return n, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			if j+1 >= len(s.b) {
				return 0, false
			}
			switch s.b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				r, ok := hex4(s.b[j+2:])
				if !ok {
					return 0, false
				}
				j += 6
				if utf16.IsSurrogate(r) && len(s.b)-j >= 6 && s.b[j] == '\\' && s.b[j+1] == 'u' {
					if r2, ok := hex4(s.b[j+2:]); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
						j += 6
					}
				}
			default:
				return 0, false
			}
			n++
		case c < utf8.RuneSelf:
			j++
			n++
		default:
			r, size := utf8.DecodeRune(s.b[j:])
			if r == utf8.RuneError && size == 1 {
				return 0, false
			}
			j += size
			n++
		}
	}
	return 0, false
}

// hex4 reads the four hexadecimal digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// rawNumber moves past the JSON number at s.i (RFC 8259, section 6).
func rawNumber(s *rawScan) bool {
	end, ok := jsonscan.Number(s.b, s.i)
	s.i = end
	return ok
}

func (s *rawScan) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}
