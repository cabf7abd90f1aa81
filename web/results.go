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

// field is a named cell of an object.
type field struct {
	Key string
	Val *cell
}

// cell is a JSON value as a page shows it: text, multi-line text, a nested
// object, a table (an array of objects) or a list.
type cell struct {
	Text   string
	Pre    bool
	Object []field
	Table  *table
	List   []*cell
	IsList bool
}

type table struct {
	Columns []string
	Rows    [][]*cell
}

// cellOf builds the cell of a decoded JSON value.
func cellOf(v any) *cell {
	switch x := v.(type) {
	case nil:
		return &cell{Text: "—"}
	case bool:
		if x {
			return &cell{Text: "yes"}
		}
		return &cell{Text: "no"}
	case json.Number:
		return &cell{Text: numberText(x)}
	case string:
		return &cell{Text: x, Pre: strings.Contains(x, "\n")}
	case object:
		c := &cell{Object: []field{}}
		for _, m := range x {
			c.Object = append(c.Object, field{Key: m.Key, Val: cellOf(m.Value)})
		}
		return c
	case []any:
		if len(x) == 0 {
			return &cell{Text: "none"}
		}
		if t := tableOf(x); t != nil {
			return &cell{Table: t}
		}
		c := &cell{IsList: true}
		for _, e := range x {
			c.List = append(c.List, cellOf(e))
		}
		return c
	}
	return &cell{Text: fmt.Sprint(v)}
}

// tableOf lays out an array of objects as a table whose columns are the
// union of their keys, in order of first appearance; nil when an element
// is not an object.
func tableOf(arr []any) *table {
	t := &table{}
	index := map[string]int{}
	for _, e := range arr {
		obj, ok := e.(object)
		if !ok {
			return nil
		}
		for _, m := range obj {
			if _, seen := index[m.Key]; !seen {
				index[m.Key] = len(t.Columns)
				t.Columns = append(t.Columns, m.Key)
			}
		}
	}
	for _, e := range arr {
		row := make([]*cell, len(t.Columns))
		for i := range row {
			row[i] = &cell{Text: ""}
		}
		for _, m := range e.(object) {
			row[index[m.Key]] = cellOf(m.Value)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
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
