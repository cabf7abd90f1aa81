package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/scoring"
	"github.com/predictions-md/predictions/skillsettings"
)

// formSpec says how a tool's form maps onto its JSON input. Scalar fields
// are named like the input's fields and typed by [tools.Tool.FromQuery],
// as a GET of the API types them; array fields are a textarea with one
// item per line.
type formSpec struct {
	// post sends the form by POST: for input too long for an address.
	post  bool
	lists []listSpec
}

// listSpec is an array field written one item per line, the values
// separated by commas (or tabs, as a spreadsheet pastes them).
type listSpec struct {
	Field string
	// Shapes maps the number of values on a line to the item fields they
	// fill, in order.
	Shapes map[int][]string
	// Help says how to write a line.
	Help string
}

// forms are the form specs of the seven tools, by name.
var forms = map[string]formSpec{
	"convert_odds": {},
	"implied_probabilities": {lists: []listSpec{{Field: "outcomes",
		Shapes: map[int][]string{1: {"odds"}, 2: {"label", "odds"}},
		Help:   "One outcome per line: label, odds (the label may be left out). Odds in any notation: 2.10, 11/10, +110."}}},
	"combine_forecasts": {lists: []listSpec{{Field: "forecasts",
		Shapes: map[int][]string{1: {"p"}, 2: {"who", "p"}, 3: {"who", "p", "weight"}, 4: {"who", "p", "weight", "at"}, 5: {"who", "p", "weight", "at", "skill"}},
		Help: "One forecast per line: who, p, weight, at, skill (all but p may be left out or left empty, as in: scout, 62%, , 2026-11-20T09:00:00Z). " +
			"p as 0.62 or 62%; the bare numbers of one list are read on one scale (all fractions or all percents). " +
			"at is when the forecast was made (RFC 3339) and skill the forecaster's peer-score points per question, for the recency and skill methods."}}},
	"bayes_update": {lists: []listSpec{{Field: "evidence",
		Shapes: map[int][]string{1: {"lr"}, 2: {"label", "lr"}, 3: {"label", "p_if_yes", "p_if_no"}},
		Help:   "One piece of evidence per line: label, lr (likelihood ratio), or label, p_if_yes, p_if_no. With two values the first is the label."}}},
	"score_forecasts": {lists: []listSpec{{Field: "forecasts",
		Shapes: map[int][]string{2: {"p", "outcome"}, 3: {"who", "p", "outcome"}},
		Help:   "One resolved forecast per line: who, p, outcome (who may be left out). outcome is yes or no."}}},
	"check_forecast_md": {post: true},
	"build_settings":    {},
}

// toolForm is a tool's form as a page shows it.
type toolForm struct {
	Tool     *tools.Tool
	Method   string
	Values   url.Values
	Enums    map[string][]string
	Lists    map[string]listSpec
	Settings []settingControl // build_settings only
	ErrField string           // the top-level field of the error, if any
	Problem  *toolProblem     // the error, shown next to ErrField's control
}

// Invalid reports whether the error names field.
func (f toolForm) Invalid(field string) bool { return f.ErrField == field }

// textarea is the argument of the "textarea" template: a list field of a form.
type textarea struct {
	Form  toolForm
	Field string
	Rows  int
}

func textareaOf(f toolForm, field string, rows int) textarea {
	return textarea{Form: f, Field: field, Rows: rows}
}

// toolResult is a successful call as a page shows it.
type toolResult struct {
	Summary string
	// Key is what a person came for, shown above the full answer:
	// build_settings' settings in force. Install and Link are
	// build_settings' install command and skill-file address.
	Key           []section
	Install, Link string
	// Answer is the result as a person reads it: percents and odds.
	Answer   *answer
	Notes    []string
	Sections []section
	Plot     template.HTML // calibration plot (score_forecasts, check_forecast_md)
	Scale    template.HTML // combine_forecasts
}

// toolProblem is an *tools.InputError as a page shows it.
type toolProblem struct {
	Field, Where, Problem, Hint string
}

type toolPage struct {
	Form    toolForm
	Result  *toolResult
	Problem *toolProblem
}

type toolIndexPage struct {
	Forms []toolForm
}

func (s *server) toolIndex(w http.ResponseWriter, r *http.Request) error {
	var page toolIndexPage
	for _, t := range tools.All() {
		page.Forms = append(page.Forms, newToolForm(t, exampleValues(t)))
	}
	return s.render(w, r, http.StatusOK, "tools", "Calculation tools", "tools", page)
}

func (s *server) tool(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	t := tools.Lookup(name)
	if t == nil {
		return &pageError{Status: http.StatusNotFound, Title: "Not found",
			Message: fmt.Sprintf("There is no tool named %q.", name), Hint: "The tools are " + strings.Join(tools.Names(), ", ") + "."}
	}
	values := r.URL.Query()
	submitted := len(values) > 0
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, MaxFormBytes)
		if err := r.ParseForm(); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return &pageError{Status: http.StatusRequestEntityTooLarge, Title: "Too large",
					Message: fmt.Sprintf("The form is larger than %d KB.", MaxFormBytes>>10), Hint: "Send a shorter text."}
			}
			return &pageError{Status: http.StatusBadRequest, Title: "Bad form", Message: "The form could not be read: " + err.Error()}
		}
		values, submitted = r.PostForm, true
	}
	if !submitted {
		values = exampleValues(t)
	}
	page := toolPage{Form: newToolForm(t, values)}
	status := http.StatusOK
	if submitted {
		res, err := s.call(r, t, values)
		var ie *tools.InputError
		switch {
		case errors.As(err, &ie):
			page.Problem = problemOf(ie, res.lines)
			page.Form.ErrField, page.Form.Problem = topField(ie.Field), page.Problem
			status = http.StatusBadRequest
		case err != nil:
			return err
		default:
			page.Result = res.view
		}
	}
	return s.render(w, r, status, "tool", t.Title, "tools", page)
}

// callResult is what call returns besides the error.
type callResult struct {
	view  *toolResult
	lines map[string][]int // per list field, the form line of each item
}

// call builds the tool's JSON input from the form and runs the tool with
// the same code as the API.
func (s *server) call(r *http.Request, t *tools.Tool, values url.Values) (callResult, error) {
	raw, lines, err := formInput(t, values)
	res := callResult{lines: lines}
	if err != nil {
		return res, err
	}
	ctx := tools.WithBaseURL(r.Context(), s.baseURL(r))
	out, err := t.Call(ctx, raw)
	if err != nil {
		return res, err
	}
	res.view, err = resultView(out)
	return res, err
}

// formInput turns form values into the tool's JSON input. Empty values
// count as not given, as in the settings builder.
func formInput(t *tools.Tool, values url.Values) ([]byte, map[string][]int, error) {
	spec := forms[t.Name]
	scalars := url.Values{}
	for k, vs := range values {
		if slices.ContainsFunc(spec.lists, func(l listSpec) bool { return l.Field == k }) {
			continue
		}
		for _, v := range vs {
			if strings.TrimSpace(v) != "" {
				scalars.Add(k, v)
			}
		}
	}
	raw, err := t.FromQuery(scalars)
	if err != nil {
		return nil, nil, err
	}
	obj := map[string]any{}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		return nil, nil, err
	}
	lines := map[string][]int{}
	for _, l := range spec.lists {
		text := values.Get(l.Field)
		if strings.TrimSpace(text) == "" {
			continue
		}
		var itemSchema *jsonschema.Schema
		if ps := t.InputSchema.Properties[l.Field]; ps != nil {
			itemSchema = ps.Items
		}
		items := []any{}
		for n, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			sep := ","
			if strings.Contains(line, "\t") {
				sep = "\t"
			}
			parts := strings.Split(line, sep)
			names, ok := l.Shapes[len(parts)]
			if !ok {
				return nil, lines, &tools.InputError{Field: l.Field,
					Problem: fmt.Sprintf("line %d has %d values separated by commas; %s", n+1, len(parts), shapeText(l.Shapes)),
					Hint:    l.Help, Err: tools.ErrInput}
			}
			item := map[string]any{}
			for i, name := range names {
				v := strings.TrimSpace(parts[i])
				if v == "" {
					continue
				}
				item[name] = typed(itemSchema, name, v)
			}
			items = append(items, item)
			lines[l.Field] = append(lines[l.Field], n+1)
		}
		obj[l.Field] = items
	}
	raw, err = json.Marshal(obj)
	return raw, lines, err
}

// shapeText lists the numbers of values a line may have.
func shapeText(shapes map[int][]string) string {
	var ns []string
	for n := range shapes {
		ns = append(ns, strconv.Itoa(n))
	}
	sort.Strings(ns)
	if len(ns) == 1 {
		return "a line needs " + ns[0]
	}
	return "a line needs " + strings.Join(ns[:len(ns)-1], ", ") + " or " + ns[len(ns)-1]
}

// typed reads a list value as a JSON number when the item field takes
// numbers and the text is one; otherwise it stays a string, and the
// schema check names a wrong type.
func typed(items *jsonschema.Schema, name, v string) any {
	if items == nil || items.Properties[name] == nil {
		return v
	}
	if !slices.ContainsFunc(schemaTypes(items.Properties[name]), func(t string) bool { return t == "number" || t == "integer" }) {
		return v
	}
	var n json.Number
	d := json.NewDecoder(strings.NewReader(v))
	d.UseNumber()
	if err := d.Decode(&n); err != nil || d.More() {
		return v
	}
	return n
}

func schemaTypes(ps *jsonschema.Schema) []string {
	if ps.Type != "" {
		return []string{ps.Type}
	}
	ts := slices.Clone(ps.Types)
	for _, a := range ps.AnyOf {
		ts = append(ts, schemaTypes(a)...)
	}
	return ts
}

// exampleValues fills a tool's form from its example input, so that each
// form can be tried at once.
func exampleValues(t *tools.Tool) url.Values {
	spec := forms[t.Name]
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(t.Example))
	d.UseNumber()
	_ = d.Decode(&obj) // the examples are checked against the schemas by package tools
	v := url.Values{}
	for k, x := range obj {
		i := slices.IndexFunc(spec.lists, func(l listSpec) bool { return l.Field == k })
		arr, isArr := x.([]any)
		if i < 0 || !isArr {
			v.Set(k, scalarText(x))
			continue
		}
		var lines []string
		for _, it := range arr {
			item, _ := it.(map[string]any)
			lines = append(lines, itemLine(spec.lists[i].Shapes, item))
		}
		v.Set(k, strings.Join(lines, "\n"))
	}
	return v
}

// itemLine writes an item as a form line, in the smallest shape that holds
// all its fields.
func itemLine(shapes map[int][]string, item map[string]any) string {
	ns := make([]int, 0, len(shapes))
	for n := range shapes {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	for _, n := range ns {
		names := shapes[n]
		covered := 0
		for _, name := range names {
			if _, ok := item[name]; ok {
				covered++
			}
		}
		if covered == len(item) || n == ns[len(ns)-1] {
			parts := make([]string, len(names))
			for j, name := range names {
				if x, ok := item[name]; ok {
					parts[j] = scalarText(x)
				}
			}
			return strings.Join(parts, ", ")
		}
	}
	return ""
}

func scalarText(x any) string {
	switch v := x.(type) {
	case string:
		return v
	case nil:
		return ""
	}
	return fmt.Sprint(x)
}

// newToolForm describes a tool's form with the values to show in it.
func newToolForm(t *tools.Tool, values url.Values) toolForm {
	spec := forms[t.Name]
	f := toolForm{Tool: t, Method: "get", Values: values, Enums: map[string][]string{}, Lists: map[string]listSpec{}}
	if spec.post {
		f.Method = "post"
	}
	for _, l := range spec.lists {
		f.Lists[l.Field] = l
	}
	for name, ps := range t.InputSchema.Properties {
		for _, e := range ps.Enum {
			if s, ok := e.(string); ok {
				f.Enums[name] = append(f.Enums[name], s)
			}
		}
	}
	if t.Name == "build_settings" {
		for _, st := range skillsettings.Catalog() {
			f.Settings = append(f.Settings, settingControl{Setting: st, Value: values.Get(st.Name)})
		}
	}
	return f
}

// fieldPathRe splits "forecasts[2].p" into the list, the index and the rest.
var fieldPathRe = regexp.MustCompile(`^([a-z_]+)\[(\d+)\](?:\.(.+))?$`)

// problemOf says where in the form an input error is: a list field's
// index becomes the line of the textarea.
func problemOf(ie *tools.InputError, lines map[string][]int) *toolProblem {
	p := &toolProblem{Field: ie.Field, Where: ie.Field, Problem: ie.Problem, Hint: ie.Hint}
	if m := fieldPathRe.FindStringSubmatch(ie.Field); m != nil {
		i, _ := strconv.Atoi(m[2])
		line := i + 1
		if ls := lines[m[1]]; i < len(ls) {
			line = ls[i]
		}
		p.Where = fmt.Sprintf("%s, line %d", m[1], line)
		if m[3] != "" {
			p.Where += ", " + m[3]
		}
	}
	return p
}

// topField is the form field an input error belongs to.
func topField(path string) string {
	if i := strings.IndexAny(path, "[."); i >= 0 {
		return path[:i]
	}
	return path
}

// resultView turns a result into tables, notes and plots.
func resultView(res *tools.Result) (*toolResult, error) {
	body, err := res.Envelope("")
	if err != nil {
		return nil, err
	}
	v, err := decodeOrdered(body)
	if err != nil {
		return nil, err
	}
	obj, _ := v.(object)
	var own object // the tool's fields, without the envelope's
	for _, m := range obj {
		switch m.Key {
		case "tool", "summary", "notes", "disclaimer", "terms":
			continue
		}
		own = append(own, m)
	}
	view := &toolResult{Summary: res.Summary, Notes: res.Notes, Sections: sectionsOf("", own)}
	if view.Answer, err = answerOf(res.Tool, body); err != nil {
		return nil, err
	}
	switch res.Tool {
	case "build_settings":
		for _, m := range own {
			switch m.Key {
			case "settings":
				view.Key = sectionsOf("settings", m.Value)
			case "install":
				view.Install, _ = m.Value.(string)
			case "link":
				view.Link, _ = m.Value.(string)
			}
		}
	case "score_forecasts":
		var out struct {
			Overall struct {
				Calibration []scoring.Bin `json:"calibration"`
			} `json:"overall"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		view.Plot = calibrationSVG(out.Overall.Calibration, "Calibration of the scored forecasts")
	case "check_forecast_md":
		var out struct {
			Scores *struct {
				Overall struct {
					Calibration []scoring.Bin `json:"calibration"`
				} `json:"overall"`
			} `json:"scores"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		if out.Scores != nil {
			view.Plot = calibrationSVG(out.Scores.Overall.Calibration, "Calibration of the resolved questions' forecasts")
		}
	case "combine_forecasts":
		var out struct {
			P         float64 `json:"p"`
			Method    string  `json:"method"`
			Forecasts []struct {
				Who    string  `json:"who"`
				P      float64 `json:"p"`
				Weight float64 `json:"weight"`
			} `json:"forecasts"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		fs := make([]scaleForecast, len(out.Forecasts))
		for i, f := range out.Forecasts {
			fs[i] = scaleForecast{Who: f.Who, P: f.P, Weight: f.Weight}
		}
		view.Scale = combineSVG(fs, out.P, fmt.Sprintf("pooled %s (%s)", pct(out.P), out.Method))
	}
	return view, nil
}
