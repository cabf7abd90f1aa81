package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// kv is a member of a JSON object, in the order it was written.
type kv struct {
	Key   string
	Value any
}

// object is a JSON object that keeps its members' order, so that a
// result's table lists fields as the tool writes them.
type object []kv

// decodeOrdered decodes one JSON value: objects as object, arrays as
// []any, numbers as json.Number.
func decodeOrdered(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return decodeValue(d)
}

func decodeValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := object{}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				obj = append(obj, kv{Key: fmt.Sprint(k), Value: v})
			}
			_, err := d.Token()
			return obj, err
		case '[':
			arr := []any{}
			for d.More() {
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := d.Token()
			return arr, err
		}
		return nil, fmt.Errorf("web: unexpected %v", t)
	}
	return tok, nil
}

// field is a named value of an object.
type field struct {
	Key string
	Val *cell
}

// cell is a value shown in one place: text, multi-line text or a list of
// texts.
type cell struct {
	Text string
	Pre  bool
	List []string
}

// section is one block of a result: the scalar fields of an object, or an
// array of objects as a table of their scalar fields. Nested objects and
// arrays get sections of their own, titled by their path, so that no table
// sits inside another.
type section struct {
	Title string
	Rows  []field
	Table *table
}

type table struct {
	Columns []string
	Rows    [][]*cell
}

// sectionsOf lays out a decoded JSON value under path.
func sectionsOf(path string, v any) []section {
	switch x := v.(type) {
	case object:
		sec := section{Title: path}
		var nested []section
		for _, m := range x {
			if c, ok := scalarCell(m.Value); ok {
				sec.Rows = append(sec.Rows, field{Key: m.Key, Val: c})
				continue
			}
			nested = append(nested, sectionsOf(join(path, m.Key), m.Value)...)
		}
		if len(sec.Rows) == 0 {
			return nested
		}
		return append([]section{sec}, nested...)
	case []any:
		t := &table{}
		index := map[string]int{}
		var nested []section
		for i, e := range x {
			obj, _ := e.(object)
			for _, m := range obj {
				if _, ok := scalarCell(m.Value); !ok {
					continue
				}
				if _, seen := index[m.Key]; !seen {
					index[m.Key] = len(t.Columns)
					t.Columns = append(t.Columns, m.Key)
				}
			}
			for _, m := range obj {
				if _, ok := scalarCell(m.Value); !ok {
					nested = append(nested, sectionsOf(fmt.Sprintf("%s[%s].%s", path, elementName(obj, i), m.Key), m.Value)...)
				}
			}
		}
		for _, e := range x {
			row := make([]*cell, len(t.Columns))
			for i := range row {
				row[i] = &cell{}
			}
			obj, _ := e.(object)
			for _, m := range obj {
				if c, ok := scalarCell(m.Value); ok {
					row[index[m.Key]] = c
				}
			}
			t.Rows = append(t.Rows, row)
		}
		if len(t.Columns) == 0 {
			return nested
		}
		return append([]section{{Title: path, Table: t}}, nested...)
	}
	c, _ := scalarCell(v)
	return []section{{Title: path, Rows: []field{{Key: path, Val: c}}}}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// elementName names an array element in a section title: its who, id,
// label or name when it has one, else its position from 1.
func elementName(obj object, i int) string {
	for _, k := range []string{"who", "id", "label", "name"} {
		for _, m := range obj {
			if s, ok := m.Value.(string); ok && m.Key == k && s != "" {
				return s
			}
		}
	}
	return strconv.Itoa(i + 1)
}

// scalarCell returns the cell of a value that fits in one place: a
// scalar, an empty array or object, or an array of scalars.
func scalarCell(v any) (*cell, bool) {
	switch x := v.(type) {
	case nil:
		return &cell{Text: "—"}, true
	case bool:
		if x {
			return &cell{Text: "yes"}, true
		}
		return &cell{Text: "no"}, true
	case json.Number:
		return &cell{Text: numberText(x)}, true
	case string:
		return &cell{Text: x, Pre: strings.Contains(x, "\n")}, true
	case object:
		if len(x) == 0 {
			return &cell{Text: "none"}, true
		}
	case []any:
		if len(x) == 0 {
			return &cell{Text: "none"}, true
		}
		c := &cell{}
		for _, e := range x {
			ec, ok := scalarCell(e)
			if !ok || ec.List != nil {
				return nil, false
			}
			c.List = append(c.List, ec.Text)
		}
		return c, true
	}
	return nil, false
}

// numberText writes a number readably: integers as they are, others with
// four significant digits (one decimal from 1000 up).
func numberText(n json.Number) string {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		return s
	}
	f, err := n.Float64()
	if err != nil {
		return s
	}
	switch a := math.Abs(f); {
	case a == 0:
		return "0"
	case a >= 1000:
		return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
	case a < 0.0001:
		return strconv.FormatFloat(f, 'g', 3, 64)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}
