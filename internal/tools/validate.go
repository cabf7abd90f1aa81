package tools

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
)

// The validator checks a decoded input against the limits its schema
// carries (required fields, lengths, item counts, ranges, allowed values,
// patterns), the schema that [schemaFor] built from the tool's []Limit.
// It is built once per tool ([validatorFor]) and walks the typed value in
// the order the schema lists its properties, items by index, a field
// before the fields inside it, and reports the first problem, worded by
// the functions of errors.go. Types were checked by the decoder.

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
	if o.text == "" {
		return "", 0
	}
	return o.text, o.kind
}

var textValueType = reflect.TypeFor[textValue]()

// textOf reads a textValue of type T at p.
func textOf[T any, PT interface {
	*T
	textValue
}](p unsafe.Pointer) (string, jsontext.Kind) {
	return PT(p).jsonText()
}

// textValues are the textValue types, each with its reader.
var textValues = map[reflect.Type]func(unsafe.Pointer) (string, jsontext.Kind){
	typeOf[Prob]():     textOf[Prob],
	typeOf[OddsText](): textOf[OddsText],
	typeOf[Outcome]():  textOf[Outcome],
}

// A check validates one value of the Go type it was built for, at p;
// required says whether the schema of the object holding it requires it.
//
// The checks of a tool's input are built once, when the tool is defined,
// from its schema and its Go type ([validatorFor]): each knows where its
// fields lie in memory, which limits apply and how they are worded, so a
// call reads the values and compares them, with no reflection beyond a
// slice's length and no regular expression per value. Pointer arithmetic
// stays within the value, at the offsets and sizes reflect gave for its
// type.
type check func(v *validation, p unsafe.Pointer, required bool) *InputError

// validatorFor builds the check of values of type t described by s; nil
// means nothing to check.
func validatorFor(t reflect.Type, s *jsonschema.Schema) check {
	if s == nil {
		return nil
	}
	if t.Implements(textValueType) {
		read, ok := textValues[t]
		if !ok {
			panic(fmt.Sprintf("tools: %v is a textValue without a reader in textValues", t))
		}
		scalar := scalarCheck(s)
		isString := t.Kind() == reflect.String
		emptyMatters := refusesEmpty(s)
		return func(v *validation, p unsafe.Pointer, required bool) *InputError {
			text, kind := read(p)
			if kind == 0 {
				// Nothing sent, or (for odds, kept as a string) an empty string.
				switch {
				case isString && (required || emptyMatters) && hasMember(v.raw, v.field()):
					kind = '"'
				case required:
					return requiredError(v.field(), v.example)
				default:
					return nil
				}
			}
			return scalar(v, text, kind)
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem := validatorFor(t.Elem(), s)
		return func(v *validation, p unsafe.Pointer, required bool) *InputError {
			q := *(*unsafe.Pointer)(p)
			switch {
			case q == nil && required:
				return requiredError(v.field(), v.example)
			case q == nil || elem == nil:
				return nil
			}
			return elem(v, q, false)
		}
	case reflect.Struct:
		return structCheck(t, s)
	case reflect.Slice:
		elem := validatorFor(t.Elem(), s.Items)
		size := t.Elem().Size()
		return func(v *validation, p unsafe.Pointer, required bool) *InputError {
			// reflect reads the slice's length and backing array, so the
			// check depends on no layout of a slice header.
			items := reflect.NewAt(t, p).Elem()
			if items.IsNil() && required {
				return requiredError(v.field(), v.example)
			}
			n := items.Len()
			if err := itemCount(s, n); err != nil {
				err.Field = v.field()
				return err
			}
			if elem == nil {
				return nil
			}
			data := items.UnsafePointer()
			for i := range n {
				v.path = append(v.path, step{index: i})
				if err := elem(v, unsafe.Add(data, uintptr(i)*size), false); err != nil {
					return err
				}
				v.path = v.path[:len(v.path)-1]
			}
			return nil
		}
	case reflect.String:
		scalar := scalarCheck(s)
		emptyMatters := refusesEmpty(s)
		return func(v *validation, p unsafe.Pointer, required bool) *InputError {
			text := *(*string)(p)
			// An empty string is also what an absent field decodes to: look
			// in the input only when "" would break a limit.
			if text == "" && (required || emptyMatters) && !hasMember(v.raw, v.field()) {
				if required {
					return requiredError(v.field(), v.example)
				}
				return nil
			}
			return scalar(v, text, '"')
		}
	case reflect.Float64:
		return boundsCheck(s, func(p unsafe.Pointer) float64 { return *(*float64)(p) }, fmtNum)
	case reflect.Float32:
		return boundsCheck(s, func(p unsafe.Pointer) float64 { return float64(*(*float32)(p)) }, fmtNum)
	case reflect.Int:
		return boundsCheck(s, func(p unsafe.Pointer) int64 { return int64(*(*int)(p)) }, intText)
	case reflect.Int64:
		return boundsCheck(s, func(p unsafe.Pointer) int64 { return *(*int64)(p) }, intText)
	case reflect.Int32:
		return boundsCheck(s, func(p unsafe.Pointer) int64 { return int64(*(*int32)(p)) }, intText)
	case reflect.Map:
		if t != reflect.TypeFor[map[string]any]() {
			panic(fmt.Sprintf("tools: the validator reads maps of type map[string]any, not %v", t))
		}
		return objectCheck(s)
	}
	return nil
}

// structCheck checks the fields of a struct of type t in the order the
// schema s lists its properties (a field before the fields inside it).
func structCheck(t reflect.Type, s *jsonschema.Schema) check {
	type field struct {
		name     string
		offset   uintptr
		required bool
		check    check
	}
	var fields []field
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
		if c := validatorFor(f.Type, ps); c != nil {
			fields = append(fields, field{name: name, offset: f.Offset, required: slices.Contains(s.Required, name), check: c})
		}
	}
	rank := func(name string) int {
		if i := slices.Index(s.PropertyOrder, name); i >= 0 {
			return i
		}
		return len(s.PropertyOrder)
	}
	slices.SortStableFunc(fields, func(a, b field) int { return cmp.Compare(rank(a.name), rank(b.name)) })
	return func(v *validation, p unsafe.Pointer, _ bool) *InputError {
		for _, f := range fields {
			v.path = append(v.path, step{name: f.name})
			if err := f.check(v, unsafe.Add(p, f.offset), f.required); err != nil {
				return err
			}
			v.path = v.path[:len(v.path)-1]
		}
		return nil
	}
}

// boundsCheck checks a number held as a Go number against the bounds of
// s; text writes it, for an error only.
func boundsCheck[N float64 | int64](s *jsonschema.Schema, read func(unsafe.Pointer) N, text func(N) string) check {
	if s.Minimum == nil && s.Maximum == nil {
		return nil
	}
	return func(v *validation, p unsafe.Pointer, _ bool) *InputError {
		n := read(p)
		if f := float64(n); outside(s, f) {
			return v.number(s, text(n), f)
		}
		return nil
	}
}

func intText(n int64) string { return strconv.FormatInt(n, 10) }

// outside reports whether f breaks the bounds of s.
func outside(s *jsonschema.Schema, f float64) bool {
	return s.Minimum != nil && f < *s.Minimum || s.Maximum != nil && f > *s.Maximum
}

// validation is one run of the validator over the input raw.
type validation struct {
	raw, example []byte
	// path is where the walk is, as names and (name "") indices; the
	// field's name is built from it only when a problem is found.
	path []step
	buf  [8]step // path's first steps: deep enough for every input
}

type step struct {
	name  string
	index int
}

// validate runs c over the input at p, decoded from raw.
func validate(c check, p unsafe.Pointer, raw, example []byte) *InputError {
	if c == nil {
		return nil
	}
	v := &validation{raw: raw, example: example}
	v.path = v.buf[:0]
	return c(v, p, false)
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

// objectCheck checks a value decoded into a map (the input of
// build_settings, whose fields come from the settings catalog), property
// by property in the schema's order.
func objectCheck(s *jsonschema.Schema) check {
	type property struct {
		name     string
		required bool
		check    func(v *validation, x any) *InputError
	}
	var props []property
	for _, name := range s.PropertyOrder {
		props = append(props, property{name: name, required: slices.Contains(s.Required, name), check: dynamicCheck(s.Properties[name])})
	}
	return func(v *validation, p unsafe.Pointer, _ bool) *InputError {
		m := *(*map[string]any)(p)
		for _, pr := range props {
			x, ok := m[pr.name]
			if !ok {
				if pr.required {
					return requiredError(joinField(v.field(), pr.name), v.example)
				}
				continue
			}
			v.path = append(v.path, step{name: pr.name})
			if err := pr.check(v, x); err != nil {
				return err
			}
			v.path = v.path[:len(v.path)-1]
		}
		return nil
	}
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

// scalarCheck builds the check of a string, number or boolean given as
// its text and its JSON kind, against s and the branch of s that takes
// the kind.
func scalarCheck(s *jsonschema.Schema) func(v *validation, text string, kind jsontext.Kind) *InputError {
	str, num := stringCheck(s), numberCheck(s)
	return func(v *validation, text string, kind jsontext.Kind) *InputError {
		switch kind {
		case '"':
			return str(v, text)
		case '0':
			return num(v, text)
		}
		if branch(s, kind) == nil {
			return typeError(v.field(), s, kind, v.example, nil)
		}
		return nil
	}
}

// stringCheck builds the check of a JSON string against s: its lengths
// (those of s, then those of the branch), its allowed values, its pattern.
func stringCheck(s *jsonschema.Schema) func(v *validation, text string) *InputError {
	b := branch(s, '"')
	if b == nil {
		return func(v *validation, _ string) *InputError { return typeError(v.field(), s, '"', v.example, nil) }
	}
	var lengths []*jsonschema.Schema
	for _, ls := range []*jsonschema.Schema{s, b} {
		if ls.MinLength != nil || ls.MaxLength != nil {
			lengths = append(lengths, ls)
		}
	}
	var enum []string // nil: any value
	for _, e := range b.Enum {
		if e, ok := e.(string); ok {
			enum = append(enum, e)
		}
	}
	if len(b.Enum) > 0 && enum == nil {
		enum = []string{} // no string is allowed
	}
	var match func(string) bool
	if b.Pattern != "" {
		match = compilePattern(b.Pattern)
	}
	description := cmp.Or(b.Description, s.Description)
	return func(v *validation, text string) *InputError {
		for _, ls := range lengths {
			n := utf8.RuneCountInString(text)
			if ls.MinLength != nil && n < *ls.MinLength {
				return minLengthError(v.field(), n, *ls.MinLength, v.example)
			}
			if ls.MaxLength != nil && n > *ls.MaxLength {
				return maxLengthError(v.field(), n, *ls.MaxLength)
			}
		}
		if enum != nil && !slices.Contains(enum, text) {
			return enumError(v.field(), strconv.Quote(text), b)
		}
		if match != nil && !match(text) {
			return patternError(v.field(), strconv.Quote(text), description)
		}
		return nil
	}
}

// numberCheck builds the check of a JSON number, given as its literal,
// against s: the branch's type (integer), allowed values and bounds.
func numberCheck(s *jsonschema.Schema) func(v *validation, text string) *InputError {
	b := branch(s, '0')
	if b == nil {
		return func(v *validation, _ string) *InputError { return typeError(v.field(), s, '0', v.example, nil) }
	}
	integer := b.Type == "integer"
	var enum []string // the allowed values as fmtNum writes them
	for _, e := range b.Enum {
		enum = append(enum, fmt.Sprint(e))
	}
	if !integer && len(enum) == 0 && b.Minimum == nil && b.Maximum == nil {
		// Any number will do (a probability's number, which its reader
		// checks): nothing to parse.
		return func(*validation, string) *InputError { return nil }
	}
	return func(v *validation, text string) *InputError {
		f, _ := strconv.ParseFloat(text, 64) // ±Inf when out of range: beyond any bound
		if integer && f != math.Trunc(f) {
			return typeError(v.field(), s, '0', v.example, nil)
		}
		if len(enum) > 0 {
			var buf [32]byte
			if !slices.Contains(enum, string(strconv.AppendFloat(buf[:0], f+0, 'g', -1, 64))) { // fmtNum
				return enumError(v.field(), text, b)
			}
		}
		return v.number(b, text, f)
	}
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

// dynamicCheck builds the check of a value decoded into an interface
// (a property of build_settings' input) described by s.
func dynamicCheck(s *jsonschema.Schema) func(v *validation, x any) *InputError {
	if s == nil {
		return func(*validation, any) *InputError { return nil }
	}
	scalar := scalarCheck(s)
	return func(v *validation, x any) *InputError {
		switch x := x.(type) {
		case string:
			return scalar(v, x, '"')
		case float64:
			return scalar(v, fmtNum(x), '0')
		case bool:
			return scalar(v, strconv.FormatBool(x), 't')
		case nil:
			return scalar(v, "null", 'n')
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
}
