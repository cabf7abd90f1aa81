package apidoc

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// ShellQuoted escapes s for use inside single quotes in a shell command.
func ShellQuoted(s string) string { return strings.ReplaceAll(s, "'", `'\''`) }

// FirstSentence is s up to its first ". ", else s.
func FirstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// TypeText names a field's type for people: its type, or the types of
// its anyOf alternatives ("number or string"), null left out.
func TypeText(s *jsonschema.Schema, structured bool) string {
	var ts []string
	add := func(t string) {
		if t != "" && t != "null" && !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		add(s.Type)
		for _, t := range s.Types {
			add(t)
		}
		for _, a := range s.AnyOf {
			walk(a)
		}
	}
	walk(s)
	t := strings.Join(ts, " or ")
	switch {
	case structured:
		return t + ", as JSON"
	case t == "":
		return "any JSON value"
	}
	return t
}

// LimitText states the limits of a field schema.
func LimitText(fs interface{}) string {
	b, err := json.Marshal(fs)
	if err != nil {
		return ""
	}
	var m struct {
		MinLength *int            `json:"minLength"`
		MaxLength *int            `json:"maxLength"`
		MinItems  *int            `json:"minItems"`
		MaxItems  *int            `json:"maxItems"`
		Minimum   *float64        `json:"minimum"`
		Maximum   *float64        `json:"maximum"`
		Enum      []any           `json:"enum"`
		Default   json.RawMessage `json:"default"`
	}
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	if len(m.Enum) == 0 { // the spellings of a word read in any case (an anyOf of an enum and a pattern)
		var alts struct {
			AnyOf []struct {
				Enum []any `json:"enum"`
			} `json:"anyOf"`
		}
		if json.Unmarshal(b, &alts) == nil && len(alts.AnyOf) > 0 {
			m.Enum = alts.AnyOf[0].Enum
		}
	}
	var parts []string
	if m.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("at most %d characters", *m.MaxLength))
	}
	if m.MinItems != nil && m.MaxItems != nil {
		parts = append(parts, fmt.Sprintf("%d to %d items", *m.MinItems, *m.MaxItems))
	}
	switch {
	case m.Minimum != nil && m.Maximum != nil:
		parts = append(parts, fmt.Sprintf("from %g to %g", *m.Minimum, *m.Maximum))
	case m.Minimum != nil:
		parts = append(parts, fmt.Sprintf("at least %g", *m.Minimum))
	}
	if len(m.Enum) > 0 {
		vs := make([]string, len(m.Enum))
		for i, v := range m.Enum {
			vs[i] = fmt.Sprint(v)
		}
		parts = append(parts, "one of "+strings.Join(vs, ", "))
	}
	if len(m.Default) > 0 {
		parts = append(parts, "default "+string(m.Default))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// PropertyNames lists a schema's properties in their published order.
func PropertyNames(s *jsonschema.Schema) []string {
	if len(s.PropertyOrder) == len(s.Properties) {
		return s.PropertyOrder
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
