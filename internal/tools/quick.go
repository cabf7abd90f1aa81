package tools

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// quickSchema is a fast, allocation-free check of an input against the
// subset of JSON Schema the tools' input schemas use: type, enum, minimum,
// maximum, minLength, maxLength, minItems, maxItems, properties, required,
// items and anyOf (annotations such as description, default and format
// are ignored, as the full validator ignores them). It answers only
// "certainly valid"; anything else (invalid, or a case it cannot decide
// exactly, such as a number equal to a bound once rounded) is left to the
// full validator, which also words the error. So it never changes what is
// accepted or how a refusal reads; it spares the full validator's cost
// (big.Rat per number, errors built for each failed anyOf branch) on the
// common, valid input. A schema using any other keyword compiles to nil:
// every call then goes to the full validator.
type quickSchema struct {
	types              uint8 // bit set of the quick* types; 0 means any
	enum               []any
	minimum, maximum   *float64
	minLen, maxLen     int // -1: no bound
	minItems, maxItems int // -1: no bound
	props              map[string]*quickSchema
	required           []string
	items              *quickSchema
	anyOf              []*quickSchema
}

const (
	quickObject uint8 = 1 << iota
	quickArray
	quickString
	quickNumber
	quickInteger
	quickBoolean
	quickNull
)

var quickTypes = map[string]uint8{
	"object": quickObject, "array": quickArray, "string": quickString, "number": quickNumber,
	"integer": quickInteger, "boolean": quickBoolean, "null": quickNull,
}

// compileQuick returns the quick check of s, or nil when s uses a keyword
// the quick check does not know.
func compileQuick(s *jsonschema.Schema) *quickSchema {
	if s == nil {
		return nil
	}
	// Every field of the schema the quick check reads or may ignore; any
	// other field set means the full validator must decide.
	known := jsonschema.Schema{
		Title: s.Title, Description: s.Description, Default: s.Default, Deprecated: s.Deprecated,
		ReadOnly: s.ReadOnly, WriteOnly: s.WriteOnly, Examples: s.Examples, Comment: s.Comment, Format: s.Format,
		Type: s.Type, Types: s.Types, Enum: s.Enum, Minimum: s.Minimum, Maximum: s.Maximum,
		MinLength: s.MinLength, MaxLength: s.MaxLength, MinItems: s.MinItems, MaxItems: s.MaxItems,
		Properties: s.Properties, Required: s.Required, Items: s.Items, AnyOf: s.AnyOf,
		PropertyOrder: s.PropertyOrder,
	}
	if !reflect.DeepEqual(known, *s) {
		return nil
	}
	q := &quickSchema{enum: s.Enum, minimum: s.Minimum, maximum: s.Maximum, required: s.Required,
		minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	for _, t := range types {
		bit, ok := quickTypes[t]
		if !ok {
			return nil
		}
		q.types |= bit
	}
	for _, e := range s.Enum {
		switch e.(type) {
		case string, bool, int, int64, float64:
		default:
			return nil
		}
	}
	set := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	set(&q.minLen, s.MinLength)
	set(&q.maxLen, s.MaxLength)
	set(&q.minItems, s.MinItems)
	set(&q.maxItems, s.MaxItems)
	if len(s.Properties) > 0 {
		q.props = make(map[string]*quickSchema, len(s.Properties))
		for k, p := range s.Properties {
			if q.props[k] = compileQuick(p); q.props[k] == nil {
				return nil
			}
		}
	}
	if s.Items != nil {
		if q.items = compileQuick(s.Items); q.items == nil {
			return nil
		}
	}
	for _, a := range s.AnyOf {
		qa := compileQuick(a)
		if qa == nil {
			return nil
		}
		q.anyOf = append(q.anyOf, qa)
	}
	return q
}

// valid reports whether v, as validator.UnmarshalJSON decodes JSON
// (map[string]any, []any, string, json.Number, bool, nil), certainly
// satisfies the schema. false means "not certain".
func (q *quickSchema) valid(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if !q.allows(quickObject) {
			return false
		}
		for _, r := range q.required {
			if _, ok := x[r]; !ok {
				return false
			}
		}
		for k, e := range x {
			if p := q.props[k]; p != nil && !p.valid(e) {
				return false
			}
		}
	case []any:
		if !q.allows(quickArray) || q.minItems >= 0 && len(x) < q.minItems || q.maxItems >= 0 && len(x) > q.maxItems {
			return false
		}
		if q.items != nil {
			for _, e := range x {
				if !q.items.valid(e) {
					return false
				}
			}
		}
	case string:
		if !q.allows(quickString) {
			return false
		}
		if q.minLen >= 0 || q.maxLen >= 0 {
			n := utf8.RuneCountInString(x)
			if q.minLen >= 0 && n < q.minLen || q.maxLen >= 0 && n > q.maxLen {
				return false
			}
		}
	case json.Number:
		isInt := !strings.ContainsAny(string(x), ".eE")
		if !q.allows(quickNumber) && !(isInt && q.allows(quickInteger)) {
			return false
		}
		if (q.minimum != nil || q.maximum != nil) && !q.inBounds(string(x)) {
			return false
		}
	case bool:
		if !q.allows(quickBoolean) {
			return false
		}
	case nil:
		if !q.allows(quickNull) {
			return false
		}
	default:
		return false
	}
	if q.enum != nil && !q.inEnum(v) {
		return false
	}
	if len(q.anyOf) > 0 {
		for _, a := range q.anyOf {
			if a.valid(v) {
				return true
			}
		}
		return false
	}
	return true
}

func (q *quickSchema) allows(bit uint8) bool { return q.types == 0 || q.types&bit != 0 }

// inBounds reports whether the number text n is certainly within the
// bounds. Rounding to float64 is monotonic, so a value strictly inside
// the rounded bounds is inside the exact ones; a value that rounds onto a
// bound counts only when its text is the bound's own.
func (q *quickSchema) inBounds(n string) bool {
	f, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return false
	}
	ok := func(bound float64, inside bool) bool {
		return inside || f == bound && n == strconv.FormatFloat(bound, 'f', -1, 64)
	}
	if q.minimum != nil && !ok(*q.minimum, f > *q.minimum) {
		return false
	}
	if q.maximum != nil && !ok(*q.maximum, f < *q.maximum) {
		return false
	}
	return true
}

// inEnum reports whether v is certainly one of the enum values: strings
// and booleans compare equal, numbers when their text is the value's.
func (q *quickSchema) inEnum(v any) bool {
	for _, e := range q.enum {
		switch x := v.(type) {
		case string:
			if s, ok := e.(string); ok && s == x {
				return true
			}
		case bool:
			if b, ok := e.(bool); ok && b == x {
				return true
			}
		case json.Number:
			switch n := e.(type) {
			case int:
				if string(x) == strconv.Itoa(n) {
					return true
				}
			case int64:
				if string(x) == strconv.FormatInt(n, 10) {
					return true
				}
			case float64:
				if string(x) == strconv.FormatFloat(n, 'f', -1, 64) {
					return true
				}
			}
		}
	}
	return false
}
