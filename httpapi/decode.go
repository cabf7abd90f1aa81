package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/predictions-md/predictions/internal/jsonscan"
)

const jsonType = "application/json"

// maxJSONDepth bounds how deeply objects and arrays may nest in a body or
// in a query parameter's JSON. No input needs more than three levels; the
// bound keeps the schema validator and the decoders from walking deep
// structures that mean nothing to the service.
const maxJSONDepth = 32

// readObject reads a POST body: Content-Type, if present, must be JSON
// (415); the body must fit in [MaxBodyBytes] (413, at once when the
// Content-Length says so) and hold exactly one JSON object in UTF-8,
// without duplicate keys and nested at most [maxJSONDepth] deep (400).
func readObject(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if err := checkMediaType(ct); err != nil {
			return nil, err
		}
	}
	tooLarge := &Error{Field: "body", Err: ErrTooLarge,
		Problem: fmt.Sprintf("is larger than the limit of %d bytes (64 KB)", MaxBodyBytes),
		Hint:    "send at most 65536 bytes: shorten the text or split the input over several requests"}
	if r.ContentLength > MaxBodyBytes {
		// Answer before reading: a client announcing more than the limit
		// is refused without waiting for (or reading) what it sends.
		tooLarge.Problem = fmt.Sprintf("is %d bytes long (Content-Length); the limit is %d bytes (64 KB)", r.ContentLength, MaxBodyBytes)
		return nil, tooLarge
	}
	b, err := readAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes), r.ContentLength)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge
		}
		return nil, &Error{Field: "body", Problem: "could not be read: " + err.Error(),
			Hint: "send the whole body with its Content-Length", Err: ErrBadRequest}
	}
	if err := checkJSON(b, ""); err != nil {
		return nil, err
	}
	return b, nil
}

// readAll is io.ReadAll with a buffer sized for the announced length
// (size, -1 when unknown), so that a large body is read without growing
// the buffer step by step. The length is only a hint: the reader bounds
// what is read.
func readAll(r io.Reader, size int64) ([]byte, error) {
	n := 512
	if size > 0 && size < MaxBodyBytes {
		n = int(size) + 1 // one more, so that io.EOF comes without a grow
	}
	b := make([]byte, 0, n)
	for {
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the next size
		}
	}
}

func checkMediaType(ct string) error {
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil && mt == jsonType {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return nil
		}
	}
	return &Error{Field: "Content-Type", Err: ErrMediaType,
		Problem: fmt.Sprintf("is %q; the tools read JSON only", ct),
		Hint:    "send the body as JSON with Content-Type: application/json (charset utf-8 if any), or use GET with query parameters"}
}

// frame is an object or array being read by checkJSON.
type frame struct {
	object  bool
	wantKey bool     // object: the next token is a key
	key     string   // object: the key of the value being read
	keys    []string // object: keys seen so far
	index   int      // array: index of the value being read
}

// checkJSON checks that b holds exactly one JSON object (after optional
// white space) with no key repeated in any object at any depth. prefix
// names the field b came from ("" for the body). The error names the key
// that is repeated, as forecasts[1].who.
func checkJSON(b []byte, prefix string) error { return scanJSON(b, prefix, true) }

// checkJSONAny is checkJSON for any JSON value, not only an object.
func checkJSONAny(b []byte, prefix string) error { return scanJSON(b, prefix, false) }

func scanJSON(b []byte, prefix string, objectOnly bool) error {
	if quickJSON(b, objectOnly) {
		return nil
	}
	return scanTokens(b, prefix, objectOnly)
}

// scanTokens is scanJSON token by token, naming the problem it finds.
func scanTokens(b []byte, prefix string, objectOnly bool) error {
	field := prefix
	if field == "" {
		field = "body"
	}
	// encoding/json replaces invalid UTF-8 and lone UTF-16 surrogate
	// escapes with U+FFFD without a word; find the first so that the
	// string holding it is refused.
	bad, what := badText(b)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var stack []frame
	for first := true; ; first = false {
		tok, err := dec.Token()
		if err != nil {
			if first && err == io.EOF {
				return &Error{Field: field, Problem: "is empty", Hint: "send one JSON object, such as {\"value\":\"+150\"}", Err: ErrBadRequest}
			}
			return &Error{Field: field, Problem: fmt.Sprintf("is not valid JSON: %v (at byte %d)", jsonErrText(err), dec.InputOffset()),
				Hint: "send one JSON object, such as {\"value\":\"+150\"}; check quotes, commas and brackets", Err: ErrBadRequest}
		}
		if bad >= 0 && dec.InputOffset() > int64(bad) {
			// The token just read holds the byte: a key or a string value.
			at := location(prefix, stack)
			if k, ok := tok.(string); ok && len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey {
				at = path(prefix, stack, k)
			}
			if at == "" {
				at = field
			}
			return &Error{Field: at, Problem: fmt.Sprintf("%s (at byte %d of the %s)", what, bad, field),
				Hint: "send text as UTF-8; a \\u escape of a UTF-16 surrogate must be followed by its other half, as in \\ud83d\\ude00", Err: ErrBadRequest, strict: true}
		}
		if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') && len(stack) >= maxJSONDepth {
			// Name the top-level field rather than a path of 32 indices.
			at := location(prefix, stack)
			if i := strings.IndexAny(at[len(prefix):], ".["); i > 0 || (i == 0 && prefix != "") {
				at = at[:len(prefix)+i]
			}
			if at == "" {
				at = field
			}
			return &Error{Field: at, Problem: fmt.Sprintf("nests objects and arrays more than %d deep", maxJSONDepth),
				Hint: "send the documented fields only; no input needs more than three levels of nesting", Err: ErrBadRequest, strict: true}
		}
		if first && objectOnly {
			if d, ok := tok.(json.Delim); !ok || d != '{' {
				return &Error{Field: field, Problem: "is not a JSON object",
					Hint: "send one JSON object with the tool's fields, such as {\"value\":\"+150\"}", Err: ErrBadRequest}
			}
			stack = append(stack, frame{object: true, wantKey: true})
			continue
		}
		if len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey {
			top := &stack[len(stack)-1]
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
			} else {
				k := tok.(string) // the decoder only yields a string or '}' here
				for _, seen := range top.keys {
					if seen == k {
						return &Error{Field: path(prefix, stack, k), Problem: "is given more than once",
							Hint: "send each key once in an object", Err: ErrBadRequest, strict: true}
					}
				}
				top.keys = append(top.keys, k)
				top.key, top.wantKey = k, false
				continue
			}
		} else if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true})
				continue
			case '[':
				stack = append(stack, frame{})
				continue
			case ']':
				stack = stack[:len(stack)-1]
			}
		}
		// A value has ended (a scalar, or a closed object or array).
		if len(stack) == 0 {
			break
		}
		if top := &stack[len(stack)-1]; top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &Error{Field: field, Problem: fmt.Sprintf("has data after the JSON object (at byte %d)", dec.InputOffset()),
			Hint: "send exactly one JSON object and nothing after it", Err: ErrBadRequest}
	}
	return nil
}

// quickJSON reports whether b is certainly one valid JSON value (an
// object when objectOnly) with no key repeated in any object, in one pass
// and without allocating in the common case. false means "not certain":
// the token-by-token scan of scanJSON then finds and words the problem. A
// key with an escape in it is left to that scan, which compares keys
// unescaped.
func quickJSON(b []byte, objectOnly bool) bool {
	// encoding/json accepts invalid UTF-8 and lone surrogate escapes,
	// which scanTokens refuses: leave any doubt to it.
	if !utf8.Valid(b) {
		return false
	}
	// The JSON grammar (RFC 8259), read without recursion so that the
	// stack and the keys stay on the goroutine's stack.
	type frame struct {
		object bool
		keys   int // index in keys where this object's keys start
	}
	var (
		stackBuf [maxJSONDepth]frame
		keysBuf  [32][]byte
	)
	stack, keys := stackBuf[:0], keysBuf[:0]
	q := quickScan{b: b}
	// key reads an object's key and its colon, refusing a repeated key.
	key := func() bool {
		if q.i >= len(b) || b[q.i] != '"' {
			return false
		}
		k, ok := q.str()
		if !ok || k == nil {
			return false // an escaped key: scanTokens compares it unescaped
		}
		for _, seen := range keys[stack[len(stack)-1].keys:] {
			if bytes.Equal(seen, k) {
				return false
			}
		}
		keys = append(keys, k)
		q.space()
		if q.i >= len(b) || b[q.i] != ':' {
			return false
		}
		q.i++
		q.space()
		return true
	}
	q.space()
	if objectOnly && (q.i >= len(b) || b[q.i] != '{') {
		return false
	}
	for {
		// A value starts at q.i.
		if q.i >= len(b) {
			return false
		}
		switch c := b[q.i]; {
		case c == '{' || c == '[':
			if len(stack) >= maxJSONDepth {
				return false
			}
			stack = append(stack, frame{object: c == '{', keys: len(keys)})
			q.i++
			q.space()
			if q.i < len(b) && (c == '{' && b[q.i] == '}' || c == '[' && b[q.i] == ']') {
				q.i++
				stack = stack[:len(stack)-1]
				break // an empty object or array: a whole value
			}
			if c == '{' && !key() {
				return false
			}
			continue // its first value
		case c == '"':
			if _, ok := q.str(); !ok {
				return false
			}
		case c == 't':
			if !q.word("true") {
				return false
			}
		case c == 'f':
			if !q.word("false") {
				return false
			}
		case c == 'n':
			if !q.word("null") {
				return false
			}
		case c == '-' || '0' <= c && c <= '9':
			if !q.number() {
				return false
			}
		default:
			return false
		}
		// A value has ended: close what it ends, up to the next value.
		for {
			q.space()
			if len(stack) == 0 {
				return q.i == len(b)
			}
			if q.i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if c := b[q.i]; top.object && c == '}' || !top.object && c == ']' {
				q.i++
				keys = keys[:top.keys]
				stack = stack[:len(stack)-1]
				continue
			}
			if b[q.i] != ',' {
				return false
			}
			q.i++
			q.space()
			if top.object && !key() {
				return false
			}
			break
		}
	}
}

// quickScan reads JSON strictly (RFC 8259) for quickJSON.
type quickScan struct {
	b []byte
	i int
}

func (q *quickScan) space() { q.i = jsonscan.Space(q.b, q.i) }

// str moves past the string at q.i and returns its contents, or nil with
// ok true when it holds an escape. A \u escape is left to scanTokens
// (it may be a lone surrogate), as is any malformed string.
func (q *quickScan) str() (plain []byte, ok bool) {
	escaped := false
	for j := q.i + 1; j < len(q.b); j++ {
		switch c := q.b[j]; {
		case c == '"':
			s := q.b[q.i+1 : j]
			q.i = j + 1
			if escaped {
				return nil, true
			}
			return s, true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if j+1 >= len(q.b) || !strings.ContainsRune(`"\/bfnrt`, rune(q.b[j+1])) {
				return nil, false
			}
			escaped = true
			j++
		}
	}
	return nil, false
}

func (q *quickScan) word(w string) bool {
	if !bytes.HasPrefix(q.b[q.i:], []byte(w)) {
		return false
	}
	q.i += len(w)
	return true
}

// number moves past the number at q.i.
func (q *quickScan) number() bool {
	end, ok := jsonscan.Number(q.b, q.i)
	q.i = end
	return ok
}

// path formats the location of key k in the innermost frame of stack.
func path(prefix string, stack []frame, k string) string {
	p := location(prefix, stack[:len(stack)-1])
	if p != "" {
		p += "."
	}
	return p + keyName(k)
}

// location formats the location of the value being read in the innermost
// frame of stack, as forecasts[1].who; "" for the top-level value.
func location(prefix string, stack []frame) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, f := range stack {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(keyName(f.key))
		} else {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	return b.String()
}

// keyName is k as it appears in a field path: the empty key is written ""
// so that the error still names a field.
func keyName(k string) string {
	if k == "" {
		return `""`
	}
	return k
}

// badText returns the offset of the first byte of b that is not valid
// UTF-8, or of the first \u escape of a UTF-16 surrogate that is not half
// of a pair, and what is wrong there; -1 when there is none. Outside
// strings a backslash is a syntax error, so escapes are read wherever a
// backslash appears.
func badText(b []byte) (int, string) {
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '\\':
			r, ok := hex4(b, i+2)
			if i+1 >= len(b) || b[i+1] != 'u' || !ok {
				i += 2 // another escape; a malformed one is the decoder's to report
				continue
			}
			if r >= 0xDC00 && r <= 0xDFFF {
				return i, fmt.Sprintf("has a lone UTF-16 surrogate \\u%04x", r)
			}
			if r >= 0xD800 && r <= 0xDBFF {
				lo, ok := hex4(b, i+8)
				if !ok || b[i+6] != '\\' || b[i+7] != 'u' || lo < 0xDC00 || lo > 0xDFFF {
					return i, fmt.Sprintf("has a lone UTF-16 surrogate \\u%04x", r)
				}
				i += 12
				continue
			}
			i += 6
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				return i, fmt.Sprintf("is not valid UTF-8 (byte 0x%02x)", c)
			}
			i += n
		}
	}
	return -1, ""
}

// hex4 reads four hex digits at b[i:], as in a \u escape.
func hex4(b []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 16)
	return rune(n), err == nil
}

// jsonErrText shortens encoding/json's messages.
func jsonErrText(err error) string {
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return "unexpected end of input"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
