package tools

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
)

// The validator checks a decoded input against the limits its schema
// carries (required fields, lengths, item counts, ranges, allowed values),
// the schema that [schemaFor] built from the tool's []Limit. It walks the
// typed value in the order the schema lists its properties, items by
// index, a field before the fields inside it, and reports the first
// problem. Types were checked by the decoder.

// A textValue is an input type that keeps the JSON value as text and
// takes more than one kind of JSON value (a probability, odds, an outcome).
type textValue interface {
	// jsonText returns the value's text and its JSON kind: '"' for a
	// string, '0' a number, 't' a boolean, 0 when no value was sent.
	jsonText() (string, jsontext.Kind)
}

func (p Prob) jsonText() (string, jsontext.Kind) {
	switch {
	case p.isString:
		return p.text, '"'
	case p.text == "":
		return "", 0
	}
	return p.text, '0'
}

func (o OddsText) jsonText() (string, jsontext.Kind) {
	if o == "" {
		return "", 0
	}
	return string(o), '"' // numbers are read as their text; limits on length apply to both
}

func (o Outcome) jsonText() (string, jsontext.Kind) {
	switch {
	case o.text == "":
		return "", 0
	case o.text == "true" || o.text == "false":
		return o.text, 't'
	case strings.Trim(o.text, "0123456789-.eE+") == "":
		return o.text, '0'
	}
	return o.text, '"'
}

var textValueType = reflect.TypeFor[textValue]()

// vnode is the validator of one value: its schema and, for objects and
// arrays, the validators of what they hold.
type vnode struct {
	s      *jsonschema.Schema
	text   bool     // the type is a textValue
	fields []vfield // struct: in the schema's property order
	elem   *vnode   // slice or pointer
}

type vfield struct {
	name     string
	index    int
	required bool
	n        *vnode
}

// validatorFor builds the validator of values of type t described by s.
func validatorFor(t reflect.Type, s *jsonschema.Schema) *vnode {
	n := &vnode{s: s, text: t.Implements(textValueType)}
	if s == nil || n.text {
		return n
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		es := s
		if t.Kind() == reflect.Slice {
			es = s.Items
		}
		n.elem = validatorFor(t.Elem(), es)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			ps := s.Properties[name]
			if !f.IsExported() || name == "-" || ps == nil {
				continue
			}
			n.fields = append(n.fields, vfield{name: name, index: i, required: slices.Contains(s.Required, name), n: validatorFor(f.Type, ps)})
		}
		rank := func(name string) int {
			if i := slices.Index(s.PropertyOrder, name); i >= 0 {
				return i
			}
			return len(s.PropertyOrder)
		}
		slices.SortStableFunc(n.fields, func(a, b vfield) int { return cmp.Compare(rank(a.name), rank(b.name)) })
	}
	return n
}

// validation is one run of the validator over the input raw.
type validation struct {
	raw, example []byte
	// path is where the walk is, as names and (name "") indices; the
	// field's name is built from it only when a problem is found.
	path []step
}

type step struct {
	name  string
	index int
}

// field is the path of the value being checked: forecasts[2].p.
func (v *validation) field() string {
	var b strings.Builder
	for _, st := range v.path {
		if st.name == "" {
			fmt.Fprintf(&b, "[%d]", st.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(st.name)
	}
	return b.String()
}

func (v *validation) check(n *vnode, rv reflect.Value, required bool) *InputError {
	s := n.s
	if s == nil {
		return nil
	}
	if n.text {
		// Through the pointer: an interface holding it needs no copy.
		text, kind := rv.Addr().Interface().(textValue).jsonText()
		if kind == 0 {
			// Nothing sent, or (for odds, kept as a string) an empty string.
			sent := rv.Kind() == reflect.String && (required || refusesEmpty(s)) && hasMember(v.raw, v.field())
			switch {
			case sent:
				kind = '"'
			case required:
				return requiredError(v.field(), v.example)
			default:
				return nil
			}
		}
		return v.scalar(s, text, kind)
	}
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			if required {
				return requiredError(v.field(), v.example)
			}
			return nil
		}
		return v.check(n.elem, rv.Elem(), false)
	case reflect.Struct:
		for _, f := range n.fields {
			v.path = append(v.path, step{name: f.name})
			if err := v.check(f.n, rv.Field(f.index), f.required); err != nil {
				return err
			}
			v.path = v.path[:len(v.path)-1]
		}
	case reflect.Slice:
		if rv.IsNil() && required {
			return requiredError(v.field(), v.example)
		}
		if err := itemCount(s, rv.Len()); err != nil {
			err.Field = v.field()
			return err
		}
		for i := range rv.Len() {
			v.path = append(v.path, step{index: i})
			if err := v.check(n.elem, rv.Index(i), false); err != nil {
				return err
			}
			v.path = v.path[:len(v.path)-1]
		}
	case reflect.String:
		// An empty string is also what an absent field decodes to: look
		// in the input only when "" would break a limit.
		if rv.Len() == 0 && (required || refusesEmpty(s)) && !hasMember(v.raw, v.field()) {
			if required {
				return requiredError(v.field(), v.example)
			}
			return nil
		}
		return v.scalar(s, rv.String(), '"')
	case reflect.Float64, reflect.Float32:
		return v.number(s, fmtNum(rv.Float()), rv.Float())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return v.number(s, strconv.FormatInt(rv.Int(), 10), float64(rv.Int()))
	case reflect.Map:
		for _, name := range s.PropertyOrder {
			e := rv.MapIndex(reflect.ValueOf(name))
			if !e.IsValid() {
				if slices.Contains(s.Required, name) {
					return requiredError(joinField(v.field(), name), v.example)
				}
				continue
			}
			v.path = append(v.path, step{name: name})
			if err := v.dynamic(s.Properties[name], e.Interface()); err != nil {
				return err
			}
			v.path = v.path[:len(v.path)-1]
		}
	}
	return nil
}

// refusesEmpty reports whether s refuses the empty string.
func refusesEmpty(s *jsonschema.Schema) bool {
	return s.MinLength != nil && *s.MinLength > 0 || len(s.Enum) > 0 && !slices.Contains(s.Enum, any(""))
}

// branch returns the schema among s and its anyOf branches that takes a
// JSON value of the kind, or nil.
func branch(s *jsonschema.Schema, kind jsontext.Kind) *jsonschema.Schema {
	name := kindName(kind)
	match := func(t string) bool { return t == name || t == "integer" && kind == '0' }
	var takes func(b *jsonschema.Schema) bool
	takes = func(b *jsonschema.Schema) bool { // as schemaTypes, without allocating
		if b.Type != "" {
			return match(b.Type)
		}
		return slices.ContainsFunc(b.Types, match) || slices.ContainsFunc(b.AnyOf, takes)
	}
	if len(s.AnyOf) == 0 {
		if s.Type == "" && len(s.Types) == 0 || takes(s) {
			return s
		}
		return nil
	}
	for _, b := range s.AnyOf {
		if takes(b) {
			return b
		}
	}
	return nil
}

// scalar checks a string, number or boolean given as its text.
func (v *validation) scalar(s *jsonschema.Schema, text string, kind jsontext.Kind) *InputError {
	b := branch(s, kind)
	if b == nil {
		return typeError(v.field(), s, kind, v.example, nil)
	}
	switch kind {
	case '"':
		for _, ls := range []*jsonschema.Schema{s, b} {
			if ls.MinLength != nil || ls.MaxLength != nil {
				n := utf8.RuneCountInString(text)
				if ls.MinLength != nil && n < *ls.MinLength {
					return minLengthError(v.field(), n, *ls.MinLength, v.example)
				}
				if ls.MaxLength != nil && n > *ls.MaxLength {
					return maxLengthError(v.field(), n, *ls.MaxLength)
				}
			}
		}
		if len(b.Enum) > 0 && !slices.ContainsFunc(b.Enum, func(e any) bool { return e == any(text) }) {
			return enumError(v.field(), strconv.Quote(text), b)
		}
		if b.Pattern != "" && !patternOf(b.Pattern).MatchString(text) {
			return patternError(v.field(), strconv.Quote(text), cmp.Or(b.Description, s.Description))
		}
	case '0':
		f, _ := strconv.ParseFloat(text, 64) // ±Inf when out of range: beyond any bound
		if b.Type == "integer" && f != math.Trunc(f) {
			return typeError(v.field(), s, '0', v.example, nil)
		}
		if len(b.Enum) > 0 && !slices.ContainsFunc(b.Enum, func(e any) bool { return fmt.Sprint(e) == fmtNum(f) }) {
			return enumError(v.field(), text, b)
		}
		return v.number(b, text, f)
	}
	return nil
}

func (v *validation) number(s *jsonschema.Schema, text string, f float64) *InputError {
	if s.Minimum != nil && f < *s.Minimum {
		return minimumError(v.field(), text, *s.Minimum, s)
	}
	if s.Maximum != nil && f > *s.Maximum {
		return maximumError(v.field(), text, *s.Maximum, s)
	}
	return nil
}

// itemCount checks the length of an array; the caller names the field.
func itemCount(s *jsonschema.Schema, n int) *InputError {
	const field = ""
	if s.MinItems != nil && n < *s.MinItems {
		return minItemsError(field, n, *s.MinItems, s)
	}
	if s.MaxItems != nil && n > *s.MaxItems {
		return maxItemsError(field, n, *s.MaxItems, s)
	}
	return nil
}

// dynamic checks a value decoded into an interface (the inputs of
// build_settings, whose fields come from the settings catalog).
func (v *validation) dynamic(s *jsonschema.Schema, x any) *InputError {
	if s == nil {
		return nil
	}
	switch x := x.(type) {
	case string:
		return v.scalar(s, x, '"')
	case float64:
		return v.scalar(s, fmtNum(x), '0')
	case bool:
		return v.scalar(s, strconv.FormatBool(x), 't')
	case nil:
		return v.scalar(s, "null", 'n')
	case []any:
		if b := branch(s, '['); b == nil {
			return typeError(v.field(), s, '[', v.example, nil)
		}
	case map[string]any:
		if b := branch(s, '{'); b == nil {
			return typeError(v.field(), s, '{', v.example, nil)
		}
	}
	return nil
}

// patterns holds the compiled patterns of the declared schemas. The
// patterns are written in the common subset of RE2 and ECMA-262, so that
// the published schema and this validator agree.
var patterns sync.Map // string → *regexp.Regexp

func patternOf(expr string) *regexp.Regexp {
	if re, ok := patterns.Load(expr); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(expr) // declared by the tools: a bad one is a programming error
	patterns.Store(expr, re)
	return re
}
