package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/odds"
	"github.com/predictions-md/predictions/skillsettings"
)

// A Limit constrains one input field. Limits are written into the tool's
// input schema, which is published, and the validator checks every call
// against the limits that schema carries, so a limit is stated once and
// both published and enforced.
type Limit struct {
	// Field is the field's path: "value", "outcomes" or "outcomes[].odds"
	// for a field of each item of an array.
	Field string
	// MinLength and MaxLength bound a string, in characters; 0 means no bound.
	MinLength, MaxLength int
	// MinItems and MaxItems bound an array; 0 means no bound.
	MinItems, MaxItems int
	// Minimum and Maximum bound a number; nil means no bound.
	Minimum, Maximum *float64
	// Enum lists the allowed values of a string.
	Enum []string
	// Default documents the value used when the field is absent.
	Default any
}

func num(f float64) *float64 { return &f }

// probSchema describes [Prob]: a number (read by the rule of
// DECISIONS.md) or a string such as "75%".
func probSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "a probability: a string ending in % is a percent (\"62%\"); a bare number strictly between 0 and 1 is a fraction (0.62), one above 1 a percent (62); " +
			"0 and 1 take the scale of the other numbers of the same array (fractions when none says), and a lone 1 is refused as ambiguous",
		AnyOf: []*jsonschema.Schema{
			{Type: "number", Minimum: num(0), Maximum: num(100)},
			{Type: "string", MinLength: ptrInt(1), MaxLength: ptrInt(20)},
		},
	}
}

func ptrInt(n int) *int { return &n }

var forOptions = &jsonschema.ForOptions{
	TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		typeOf[Prob]():                   probSchema(),
		typeOf[Outcome]():                outcomeSchema(),
		typeOf[OddsText]():               oddsTextSchema(),
		typeOf[forecastfile.Date]():      dateSchema(),
		typeOf[time.Time]():              timeSchema(),
		typeOf[odds.Method]():            methodSchema(),
		typeOf[skillsettings.Settings](): settingsValuesSchema(),
	},
}

// settingsValuesSchema describes skillsettings.Settings as its MarshalJSON
// writes it: the preset, then every setting of the catalog by name, null
// when unset.
func settingsValuesSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"preset": {Types: []string{"null", "string"}, Description: "the preset applied first; null for none"},
	}, PropertyOrder: []string{"preset"}}
	for _, st := range skillsettings.Catalog() {
		typ := "number"
		switch st.Kind {
		case skillsettings.Choice:
			typ = "string"
		case skillsettings.Integer:
			typ = "integer"
		}
		s.Properties[st.Name] = &jsonschema.Schema{Types: []string{"null", typ}, Description: st.Meaning}
		s.PropertyOrder = append(s.PropertyOrder, st.Name)
		s.Required = append(s.Required, st.Name)
	}
	return s
}

// schemaFor infers the input schema of In and applies the limits. Fields
// without omitempty are required. Unknown fields are allowed (they are
// ignored with a note), so additionalProperties is left open.
func schemaFor[In any](limits []Limit) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](forOptions)
	if err != nil {
		return nil, err
	}
	openObjects(s)
	nonNullRequired(s)
	for _, l := range limits {
		fs, err := fieldSchema(s, l.Field)
		if err != nil {
			return nil, err
		}
		if l.MinLength > 0 {
			fs.MinLength = ptrInt(l.MinLength)
		}
		if l.MaxLength > 0 {
			fs.MaxLength = ptrInt(l.MaxLength)
		}
		if l.MinItems > 0 {
			fs.MinItems = ptrInt(l.MinItems)
		}
		if l.MaxItems > 0 {
			fs.MaxItems = ptrInt(l.MaxItems)
		}
		if l.Minimum != nil {
			fs.Minimum = l.Minimum
		}
		if l.Maximum != nil {
			fs.Maximum = l.Maximum
		}
		for _, e := range l.Enum {
			fs.Enum = append(fs.Enum, e)
		}
		if l.Default != nil {
			b, err := json.Marshal(l.Default)
			if err != nil {
				return nil, err
			}
			fs.Default = b
		}
	}
	return s, nil
}

// outputSchemaFor describes the Result object of a tool whose output is Out.
func outputSchemaFor[Out any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[Out](forOptions)
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("output type is %q, want an object", s.Type)
	}
	openObjects(s)
	for _, reserved := range []string{"tool", "summary", "notes", "disclaimer", "terms"} {
		if _, ok := s.Properties[reserved]; ok {
			return nil, fmt.Errorf("output field %q clashes with the Result envelope", reserved)
		}
	}
	str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	add := func(name string, fs *jsonschema.Schema, front bool) {
		s.Properties[name] = fs
		if front {
			s.PropertyOrder = append([]string{name}, s.PropertyOrder...)
		} else {
			s.PropertyOrder = append(s.PropertyOrder, name)
		}
		s.Required = append(s.Required, name)
	}
	add("summary", str("one sentence a person can read"), true)
	add("tool", str("the tool's name"), true)
	add("notes", &jsonschema.Schema{Type: "array", Items: str(""),
		Description: "anything clamped, ignored, clipped or guessed"}, false)
	add("disclaimer", str("information only; not advice"), false)
	add("terms", str("address of the terms of service"), false)
	return s, nil
}

// openObjects allows additional properties everywhere: unknown input fields
// are noted rather than refused, and output objects may grow.
func openObjects(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		openObjects(p)
	}
	openObjects(s.Items)
	for _, a := range s.AnyOf {
		openObjects(a)
	}
}

// fieldSchema finds the schema of a field path such as "outcomes[].odds".
func fieldSchema(s *jsonschema.Schema, path string) (*jsonschema.Schema, error) {
	cur := s
	for _, part := range strings.Split(path, ".") {
		name, items := strings.CutSuffix(part, "[]")
		next, ok := cur.Properties[name]
		if !ok {
			return nil, fmt.Errorf("limit on unknown field %q", path)
		}
		cur = next
		if items {
			if cur.Items == nil {
				return nil, fmt.Errorf("limit on %q: not an array", path)
			}
			cur = cur.Items
		}
	}
	return cur, nil
}

// nonNullRequired makes required properties non-nullable: jsonschema.For
// types slices and pointers as ["null", T], but a required field must carry
// a value.
func nonNullRequired(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for _, name := range s.Required {
		p := s.Properties[name]
		if p == nil || len(p.Types) == 0 {
			continue
		}
		types := slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
		if len(types) == 1 {
			p.Type, p.Types = types[0], nil
		} else {
			p.Types = types
		}
	}
	for _, p := range s.Properties {
		nonNullRequired(p)
	}
	nonNullRequired(s.Items)
}
