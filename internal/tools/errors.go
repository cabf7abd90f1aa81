package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/odds"
)

// ErrInput is wrapped by every [*InputError]: test with errors.Is(err, ErrInput).
var ErrInput = errors.New("tools: bad input")

// InputError reports bad input to a tool: which field, what is wrong with
// it and how to fix it. Adapters show it as a 400 Problem (HTTP) or a tool
// error (MCP).
type InputError struct {
	// Field is the path of the field: "value", "forecasts[2].p", or "body"
	// for the input as a whole.
	Field string
	// Problem says what is wrong, without the field name: "is required".
	Problem string
	// Hint says how to fix it, with an example value where one helps.
	Hint string
	// Err is the underlying error, often a domain package's typed error; may be nil.
	Err error
}

// Error returns "field: problem".
func (e *InputError) Error() string { return e.Field + ": " + e.Problem }

// Explain returns the field, the problem and the hint (see [Explained]).
func (e *InputError) Explain() (field, problem, hint string) { return e.Field, e.Problem, e.Hint }

// Unwrap returns ErrInput and the underlying error, if any.
func (e *InputError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInput}
	}
	return []error{ErrInput, e.Err}
}

// fieldError wraps a domain error as bad input of a field. The odds
// package's errors carry their own reason and hint, which win.
func fieldError(field string, err error, hint string) *InputError {
	e := &InputError{Field: field, Problem: err.Error(), Hint: hint, Err: err}
	var oe *odds.Error
	if errors.As(err, &oe) {
		if oe.Reason != "" {
			e.Problem = oe.Reason
		}
		if oe.Hint != "" {
			e.Hint = oe.Hint
		}
	}
	return e
}

// The wording of every limit of the input schemas, in one place: the
// decoder (types) and the validator (the limits) report through these.

func requiredError(field string, example []byte) *InputError {
	name := field[strings.LastIndexAny(field, ".]")+1:]
	return &InputError{Field: field, Problem: "is required", Hint: "add " + strconv.Quote(name) + exampleFor(example, field)}
}

func typeError(field string, fs *jsonschema.Schema, got jsontext.Kind, example []byte, err error) *InputError {
	want := strings.Join(schemaTypesOf(fs), " or ")
	hint := "send " + article(want)
	if fs != nil && fs.Description != "" {
		hint += " (" + fs.Description + ")"
	}
	return &InputError{Field: field, Problem: fmt.Sprintf("must be %s, not %s", article(want), article(kindName(got))),
		Hint: hint + exampleFor(example, field), Err: err}
}

func minLengthError(field string, got, want int, example []byte) *InputError {
	return &InputError{Field: field, Problem: fmt.Sprintf("is %d characters long; it must be at least %d", got, want),
		Hint: fmt.Sprintf("send at least %d character(s)", want) + exampleFor(example, field)}
}

func maxLengthError(field string, got, want int) *InputError {
	return &InputError{Field: field, Problem: fmt.Sprintf("is %d characters long; the limit is %d", got, want),
		Hint: fmt.Sprintf("shorten it to %d characters or fewer", want)}
}

func minItemsError(field string, got, want int, fs *jsonschema.Schema) *InputError {
	return &InputError{Field: field, Problem: fmt.Sprintf("has %d item(s); it needs at least %d", got, want), Hint: itemsHint(fs)}
}

func maxItemsError(field string, got, want int, fs *jsonschema.Schema) *InputError {
	return &InputError{Field: field, Problem: fmt.Sprintf("has %d items; the limit is %d", got, want), Hint: itemsHint(fs)}
}

func minimumError(field, got string, want float64, fs *jsonschema.Schema) *InputError {
	return &InputError{Field: field, Problem: fmt.Sprintf("is %s; it must be at least %s", got, fmtNum(want)), Hint: rangeHint(fs)}
}

func maximumError(field, got string, want float64, fs *jsonschema.Schema) *InputError {
	return &InputError{Field: field, Problem: fmt.Sprintf("is %s; it must be at most %s", got, fmtNum(want)), Hint: rangeHint(fs)}
}

func patternError(field, got, description string) *InputError {
	hint := "send a value of the documented form"
	if description != "" {
		hint = "send " + description
	}
	return &InputError{Field: field, Problem: fmt.Sprintf("is %s, which is not of the accepted form", got), Hint: hint}
}

// timeHint says how to write a time, as every input that is one reads it.
const timeHint = `send an RFC 3339 time with its offset, such as "2026-11-20T17:05:00Z" (UTC) or "2026-11-20T18:05:00+01:00"`

func timeError(field, got string, err error) *InputError {
	return &InputError{Field: field, Problem: fmt.Sprintf("is %s, which is not an RFC 3339 time", got), Hint: timeHint, Err: err}
}

func enumError(field, got string, fs *jsonschema.Schema) *InputError {
	return &InputError{Field: field, Problem: fmt.Sprintf("is %s, which is not one of the allowed values", got),
		Hint: "use one of: " + enumList(fs.Enum)}
}

// schemaAtField finds the schema of a field path such as forecasts[2].p.
func schemaAtField(s *jsonschema.Schema, field string) *jsonschema.Schema {
	for part := range strings.SplitSeq(field, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if s == nil {
			return nil
		}
		s = s.Properties[name]
		for ; rest != "" && s != nil; rest = rest[strings.Index(rest, "]")+1:] {
			s = s.Items
			rest = strings.TrimPrefix(rest, "[")
			if !strings.Contains(rest, "]") {
				break
			}
		}
	}
	return s
}

func describe(s *jsonschema.Schema) string {
	if s == nil || s.Description == "" {
		return "see the tool's input schema"
	}
	return "expected " + s.Description
}

func itemsHint(s *jsonschema.Schema) string {
	if s == nil || s.MinItems == nil || s.MaxItems == nil {
		return "see the tool's input schema"
	}
	return fmt.Sprintf("send from %d to %d items", *s.MinItems, *s.MaxItems)
}

func rangeHint(s *jsonschema.Schema) string {
	if s == nil || s.Minimum == nil || s.Maximum == nil {
		return describe(s)
	}
	return fmt.Sprintf("use a number from %s to %s", fmtNum(*s.Minimum), fmtNum(*s.Maximum))
}

// exampleFor returns ", for example <value>" when the example input has a
// value at the top-level field of path.
func exampleFor(example []byte, path string) string {
	if len(example) == 0 {
		return ""
	}
	top, _, _ := strings.Cut(path, ".")
	top, _, _ = strings.Cut(top, "[")
	var m map[string]json.RawMessage
	if json.Unmarshal(example, &m) != nil {
		return ""
	}
	if v, ok := m[top]; ok {
		return ", for example " + strconv.Quote(top) + ": " + string(v)
	}
	return ""
}

func article(s string) string {
	switch s {
	case "", "value":
		return "a value"
	case "null":
		return "null"
	case "array", "integer", "object":
		return "an " + s
	}
	if strings.HasPrefix(s, "integer") || strings.HasPrefix(s, "array") || strings.HasPrefix(s, "object") {
		return "an " + s
	}
	return "a " + s
}

func enumList(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

func fmtNum(f float64) string { return strconv.FormatFloat(f+0, 'g', -1, 64) } // +0: -0 reads as 0
