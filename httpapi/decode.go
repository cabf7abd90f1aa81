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
)

const jsonType = "application/json"

// readObject reads a POST body: Content-Type, if present, must be JSON
// (415); the body must fit in [MaxBodyBytes] (413) and hold exactly one
// JSON object without duplicate keys (400).
func readObject(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if err := checkMediaType(ct); err != nil {
			return nil, err
		}
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &Error{Field: "body", Err: ErrTooLarge,
				Problem: fmt.Sprintf("is larger than the limit of %d bytes (64 KB)", MaxBodyBytes),
				Hint:    "send at most 65536 bytes: shorten the text or split the input over several requests"}
		}
		return nil, &Error{Field: "body", Problem: "could not be read: " + err.Error(),
			Hint: "send the whole body with its Content-Length", Err: ErrBadRequest}
	}
	if err := checkJSON(b, ""); err != nil {
		return nil, err
	}
	return b, nil
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
							Hint: "send each key once in an object", Err: ErrBadRequest, dupKey: true}
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
	if !json.Valid(b) {
		return false
	}
	type frame struct {
		object, wantKey bool
		keys            int // index in keys where this object's keys start
	}
	var (
		stackBuf [16]frame
		keysBuf  [32][]byte
	)
	stack, keys := stackBuf[:0], keysBuf[:0]
	first := true
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r', ':':
			continue
		}
		if first && objectOnly && c != '{' {
			return false
		}
		first = false
		switch c {
		case '{':
			stack = append(stack, frame{object: true, wantKey: true, keys: len(keys)})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			top := stack[len(stack)-1]
			if top.object {
				keys = keys[:top.keys]
			}
			stack = stack[:len(stack)-1]
		case ',':
			if top := &stack[len(stack)-1]; top.object {
				top.wantKey = true
			}
		case '"':
			j := i + 1
			escaped := false
			for ; b[j] != '"'; j++ {
				if b[j] == '\\' {
					escaped = true
					j++
				}
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				if escaped {
					return false
				}
				k := b[i+1 : j]
				for _, seen := range keys[stack[n-1].keys:] {
					if bytes.Equal(seen, k) {
						return false
					}
				}
				keys = append(keys, k)
				stack[n-1].wantKey = false
			}
			i = j
		default: // a number, true, false or null: skip to its end
			for i+1 < len(b) && !strings.ContainsRune(",]} \t\n\r", rune(b[i+1])) {
				i++
			}
		}
	}
	return true
}

// path formats the location of key k in the innermost frame of stack.
func path(prefix string, stack []frame, k string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i, f := range stack {
		if i == len(stack)-1 {
			break
		}
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		} else {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.WriteString(k)
	return b.String()
}

// jsonErrText shortens encoding/json's messages.
func jsonErrText(err error) string {
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return "unexpected end of input"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
