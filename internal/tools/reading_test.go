package tools

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// call runs a tool and decodes its envelope.
func callTool(t *testing.T, name, in string) (map[string]any, error) {
	t.Helper()
	res, err := Lookup(name).Call(context.Background(), []byte(in))
	if err != nil {
		return nil, err
	}
	b, err := res.Envelope("https://x.test/terms")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m, nil
}

// TestReadingRuleInTools runs requests whose numbers would change
// meaning silently if each were read alone.
func TestReadingRuleInTools(t *testing.T) {
	m, err := callTool(t, "score_forecasts", `{"forecasts":[{"p":0.1,"outcome":0},{"p":0.5,"outcome":1},{"p":1.0,"outcome":1}]}`)
	if err != nil {
		t.Fatal(err)
	}
	brier := m["overall"].(map[string]any)["brier"].(float64)
	if want := (0.01 + 0.25 + 0) / 3; math.Abs(brier-want) > 1e-15 {
		t.Errorf("score_forecasts [0.1, 0.5, 1.0]: Brier %v, want %v", brier, want)
	}
	m, err = callTool(t, "score_forecasts", `{"forecasts":[{"p":0,"outcome":0},{"p":1,"outcome":1},{"p":0.7,"outcome":1},{"p":0.2,"outcome":0}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if brier := m["overall"].(map[string]any)["brier"].(float64); math.Abs(brier-0.0325) > 1e-15 {
		t.Errorf("score_forecasts [0, 1, 0.7, 0.2]: Brier %v, want 0.0325", brier)
	}
	m, err = callTool(t, "combine_forecasts", `{"forecasts":[{"p":0.9},{"p":1}],"method":"mean"}`)
	if err != nil {
		t.Fatal(err)
	}
	if p := m["mean"].(float64); p != 0.95 {
		t.Errorf("combine_forecasts [0.9, 1] mean = %v, want 0.95", p)
	}
	m, err = callTool(t, "combine_forecasts", `{"forecasts":[{"p":62},{"p":1}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if notes, _ := m["notes"].([]any); len(notes) == 0 || !strings.Contains(notes[0].(string), "percents") {
		t.Errorf("combine_forecasts [62, 1]: notes %v, want one saying percents were read", m["notes"])
	}
	_, err = callTool(t, "combine_forecasts", `{"forecasts":[{"p":0.9},{"p":1.7}]}`)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "forecasts[1].p" || !strings.Contains(ie.Hint, "0.017") || !strings.Contains(ie.Hint, `"90%"`) {
		t.Errorf("combine_forecasts [0.9, 1.7]: error %v, want a 400 on forecasts[1].p showing both spellings", err)
	}
	_, err = callTool(t, "bayes_update", `{"prior":1,"evidence":[{"lr":2}]}`)
	if !errors.As(err, &ie) || ie.Field != "prior" || !strings.Contains(ie.Hint, `"1%"`) || !strings.Contains(ie.Hint, "0.999") {
		t.Errorf("bayes_update prior 1: error %v, want a 400 on prior offering \"1%%\", 0.01 and 0.999", err)
	}
	m, err = callTool(t, "bayes_update", `{"prior":0.999999999999,"evidence":[{"lr":1e-12}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if p := m["posterior"].(float64); math.Abs(p-0.49999999999975) > 1e-15 {
		t.Errorf("bayes_update prior 0.999999999999, lr 1e-12: posterior %v, want 0.49999999999975", p)
	}
	if _, err = callTool(t, "bayes_update", `{"prior":0.5,"evidence":[{"lr":5e-324}]}`); !errors.As(err, &ie) || ie.Field != "evidence[0].lr" {
		t.Errorf("bayes_update lr 5e-324: error %v, want a 400 on evidence[0].lr", err)
	}
}

func TestScoreEdges(t *testing.T) {
	// 0.5 sits on an inner edge of 2 bins: the bin above by default, the
	// bin below with edges "right" (scikit-learn's calibration_curve).
	for _, tt := range []struct{ edges, want string }{{"left", `[0,1]`}, {"right", `[1,0]`}} {
		m, err := callTool(t, "score_forecasts", `{"forecasts":[{"p":0.5,"outcome":" YES "}],"bins":2,"edges":"`+tt.edges+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		var counts []int
		for _, b := range m["overall"].(map[string]any)["calibration"].([]any) {
			counts = append(counts, int(b.(map[string]any)["count"].(float64)))
		}
		got, _ := json.Marshal(counts)
		if string(got) != tt.want {
			t.Errorf("edges %s: counts %s, want %s", tt.edges, got, tt.want)
		}
	}
}
