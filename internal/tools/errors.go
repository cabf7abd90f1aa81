package tools

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/odds"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
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

// inputErrorFrom turns a schema validation failure into an InputError about
// its first, most specific cause.
func inputErrorFrom(t *Tool, err error) *InputError {
	var ve *validator.ValidationError
	if !errors.As(err, &ve) {
		return &InputError{Field: "body", Problem: err.Error(), Hint: "compare the input with the example " + string(t.Example), Err: err}
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		if _, ok := leaf.ErrorKind.(*kind.AnyOf); ok {
			// A value of the right type for one branch that breaks one of
			// its limits (a number above the maximum) is reported by that
			// limit; otherwise "has the wrong type", not each branch.
			if c := typedCause(leaf); c != nil {
				leaf = c
				continue
			}
			break
		}
		leaf = firstCause(t.InputSchema, leaf.Causes)
	}
	field := fieldPath(leaf.InstanceLocation)
	fs := schemaAt(t.InputSchema, leaf.InstanceLocation)
	e := &InputError{Field: field, Err: err}
	if field == "" {
		e.Field = "body"
	}
	switch k := leaf.ErrorKind.(type) {
	case *kind.Required:
		e.Field = joinField(field, k.Missing[0])
		e.Problem = "is required"
		e.Hint = "add " + strconv.Quote(k.Missing[0]) + exampleFor(t, e.Field)
	case *kind.Type:
		e.Problem = fmt.Sprintf("must be %s, not %s", article(strings.Join(withoutNull(k.Want), " or ")), article(k.Got))
		e.Hint = describe(fs) + exampleFor(t, field)
	case *kind.AnyOf:
		e.Problem = "has the wrong type"
		if want, got := anyOfTypes(leaf); len(want) > 0 {
			e.Problem = fmt.Sprintf("must be %s, not %s", article(strings.Join(withoutNull(want), " or ")), article(got))
		}
		e.Hint = describe(fs) + exampleFor(t, field)
	case *kind.MinLength:
		e.Problem = fmt.Sprintf("is %d characters long; it must be at least %d", k.Got, k.Want)
		e.Hint = fmt.Sprintf("send at least %d character(s)", k.Want) + exampleFor(t, field)
	case *kind.MaxLength:
		e.Problem = fmt.Sprintf("is %d characters long; the limit is %d", k.Got, k.Want)
		e.Hint = fmt.Sprintf("shorten it to %d characters or fewer", k.Want)
	case *kind.MinItems:
		e.Problem = fmt.Sprintf("has %d item(s); it needs at least %d", k.Got, k.Want)
		e.Hint = itemsHint(fs)
	case *kind.MaxItems:
		e.Problem = fmt.Sprintf("has %d items; the limit is %d", k.Got, k.Want)
		e.Hint = itemsHint(fs)
	case *kind.Minimum:
		e.Problem = fmt.Sprintf("is %s; it must be at least %s", ratString(k.Got), ratString(k.Want))
		e.Hint = rangeHint(fs)
	case *kind.Maximum:
		e.Problem = fmt.Sprintf("is %s; it must be at most %s", ratString(k.Got), ratString(k.Want))
		e.Hint = rangeHint(fs)
	case *kind.Enum:
		e.Problem = fmt.Sprintf("is %s, which is not one of the allowed values", jsonString(k.Got))
		e.Hint = "use one of: " + enumList(k.Want)
	default:
		e.Problem = strings.TrimPrefix(leaf.Error(), "jsonschema validation failed with ")
		e.Hint = describe(fs) + exampleFor(t, field)
	}
	return e
}

// typedCause returns the branch of a failed anyOf whose type matched the
// value, or nil when every branch failed on the type.
func typedCause(ve *validator.ValidationError) *validator.ValidationError {
	for _, c := range ve.Causes {
		if _, ok := c.ErrorKind.(*kind.Type); ok {
			continue
		}
		if len(c.Causes) == 1 {
			if _, ok := c.Causes[0].ErrorKind.(*kind.Type); ok {
				continue
			}
		}
		return c
	}
	return nil
}

// firstCause returns the cause to report among several: the one at the
// earliest field, in the order the input schema lists its properties and
// by index within arrays, so that an input with several problems always
// gets the same answer (the validator gathers sibling causes from a map).
func firstCause(s *jsonschema.Schema, causes []*validator.ValidationError) *validator.ValidationError {
	return slices.MinFunc(causes, func(a, b *validator.ValidationError) int {
		return cmp.Or(compareLocations(s, a.InstanceLocation, b.InstanceLocation),
			slices.Compare(a.ErrorKind.KeywordPath(), b.ErrorKind.KeywordPath()),
			strings.Compare(a.SchemaURL, b.SchemaURL))
	})
}

// compareLocations orders two instance locations: at the first step where
// they part, array indices by number and property names by their place in
// the schema's property order (names it does not list after, by name); a
// location before the locations inside it.
func compareLocations(s *jsonschema.Schema, a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			continue
		}
		ia, errA := strconv.Atoi(a[i])
		ib, errB := strconv.Atoi(b[i])
		if errA == nil && errB == nil {
			return cmp.Compare(ia, ib)
		}
		var order []string
		if ps := schemaAt(s, a[:i]); ps != nil {
			order = ps.PropertyOrder
		}
		rank := func(k string) int {
			if j := slices.Index(order, k); j >= 0 {
				return j
			}
			return len(order)
		}
		return cmp.Or(cmp.Compare(rank(a[i]), rank(b[i])), strings.Compare(a[i], b[i]))
	}
	return cmp.Compare(len(a), len(b))
}

// anyOfTypes lists the types the branches of a failed anyOf wanted and the
// type of the value, when every branch failed on the type.
func anyOfTypes(ve *validator.ValidationError) (want []string, got string) {
	for _, c := range ve.Causes {
		for c != nil {
			if k, ok := c.ErrorKind.(*kind.Type); ok {
				want, got = append(want, k.Want...), k.Got
				break
			}
			if len(c.Causes) != 1 {
				return nil, ""
			}
			c = c.Causes[0]
		}
	}
	return want, got
}

// withoutNull drops "null" from the types an optional field accepts: the
// message names what to send, and null only means "not given".
func withoutNull(types []string) []string {
	out := slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	if len(out) == 0 {
		return types
	}
	return out
}

// decodeError turns a failure to decode validated JSON raw into the input
// type (a number out of float64 range, say) into an InputError.
func decodeError(err error, raw []byte) *InputError {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			// Decoding into a map leaves Field empty: find the key by offset.
			field = keyAt(raw, te.Offset)
		}
		problem := fmt.Sprintf("cannot be read as %s (%s)", te.Type, te.Value)
		if n, ok := strings.CutPrefix(te.Value, "number "); ok {
			problem = fmt.Sprintf("is %s, which is out of range", n)
		}
		return &InputError{Field: field, Problem: problem, Hint: "send an ordinary number such as 0.62 or 62", Err: err}
	}
	return &InputError{Field: "body", Problem: err.Error(), Hint: "send one JSON object", Err: err}
}

// keyAt returns the top-level key of the JSON object raw whose value holds
// byte offset off (encoding/json reports an offset just past the value),
// or "body".
func keyAt(raw []byte, off int64) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "body"
	}
	key := "body"
	for dec.More() {
		t, err := dec.Token()
		if err != nil || dec.InputOffset() >= off {
			break
		}
		key, _ = t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
	}
	return key
}

// fieldPath formats an instance location as forecasts[2].p; the root is "".
func fieldPath(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// schemaAt finds the schema describing the value at an instance location.
func schemaAt(s *jsonschema.Schema, loc []string) *jsonschema.Schema {
	for _, p := range loc {
		if s == nil {
			return nil
		}
		if _, err := strconv.Atoi(p); err == nil && s.Items != nil {
			s = s.Items
			continue
		}
		s = s.Properties[p]
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

// exampleFor returns ", for example <value>" when the tool's example input
// has a value at the top-level field of path.
func exampleFor(t *Tool, path string) string {
	top, _, _ := strings.Cut(path, ".")
	top, _, _ = strings.Cut(top, "[")
	var m map[string]json.RawMessage
	if json.Unmarshal(t.Example, &m) != nil {
		return ""
	}
	if v, ok := m[top]; ok {
		return ", for example " + strconv.Quote(top) + ": " + string(v)
	}
	return ""
}

func article(s string) string {
	switch s {
	case "":
		return "a value"
	case "null":
		return "null"
	case "array", "integer", "object":
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

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func ratString(r *big.Rat) string {
	s := r.FloatString(6)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if len(s) > 24 { // 1e400 as 1e+400, not four hundred digits
		s = new(big.Float).SetRat(r).Text('g', 10)
	}
	return s
}
