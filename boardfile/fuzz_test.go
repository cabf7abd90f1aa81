package boardfile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/forecastfile"
)

// normalBody is what a body becomes through a forecast file: line ends \n,
// no trailing blanks on a line, no blank lines at the ends.
func normalBody(body string) string {
	body = strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// FuzzBodyAndNote: a body and a note written by Export read back through
// forecastfile.Parse as the same body and note (up to the documented
// normalization), and cannot change the structure of the question.
func FuzzBodyAndNote(f *testing.F) {
	f.Add("Will it?", "plain text", "a note")
	f.Add("Will it?", "# heading\n## Forecasts\n- id: x\n - 2026-01-01 · agent:a · 50%\n```\n~~~\n\\# kept\n   > quote\n", "a·b ·· c\n d")
	f.Add("T", "T", "")
	f.Add("Vote #", "Vote #", "")
	f.Add("#", "b", "")
	f.Add("C\\ ## x \\##", "b", "")
	f.Add("T", "\r\n  \n x \r\n\n", "·")
	f.Fuzz(func(t *testing.T, title, body, note string) {
		// The title, body and note as the board stores them: a title
		// trimmed, the body and the note as sent.
		title = strings.TrimSpace(title)
		half := 0.5
		np := board.NewPrediction{AgentID: "a", Title: title, Body: body, Confidence: &half, Timeframe: "t", Domain: "Other"}
		if err := np.Validate(); err != nil || normalBody(body) == "" {
			t.Skip()
		}
		if err := (board.NewForecast{AgentID: "a", P: json.RawMessage("0.5"), Note: note}).Validate(); err != nil {
			t.Skip()
		}
		q := forecastfile.Question{Title: headingOfTitle(title), Text: textOfBody(body, title), Fields: []forecastfile.Field{
			{Key: "id", Value: "q1"}, {Key: "resolves", Value: "yes"}, {Key: "resolve_by", Value: "2026-06-30"}, {Key: "status", Value: "open"},
		}, Forecasts: []forecastfile.Forecast{{Date: forecastfile.Date{Year: 2026, Month: 1, Day: 2}, Time: "10:00", Who: "agent:a", P: 0.5, Note: noteLine(note)}}}
		text := forecastfile.Format(&forecastfile.File{Questions: []forecastfile.Question{q}})
		file, err := forecastfile.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if len(file.Questions) != 1 {
			t.Fatalf("%d questions in\n%s", len(file.Questions), text)
		}
		got := file.Questions[0]
		if got.ID != "q1" || got.Status != "open" || len(got.Fields) != 4 || len(got.Forecasts) != 1 || len(got.Sections) != 0 {
			t.Fatalf("the body changed the question's structure:\n%s", text)
		}
		if tt := titleOfHeading(got.Title); tt != title {
			t.Errorf("title read back %q, want %q\n%s", tt, title, text)
		}
		want := normalBody(body)
		if b := bodyOfText(got.Text, title); b != want {
			t.Errorf("body read back %q, want %q\n%s", b, want, text)
		}
		if again := textOfBody(bodyOfText(got.Text, title), title); again != got.Text {
			t.Errorf("text written again %q, want %q", again, got.Text)
		}
		if n := got.Forecasts[0].Note; n != noteLine(note) || noteLine(n) != n {
			t.Errorf("note read back %q, want %q", n, noteLine(note))
		}
		for _, d := range forecastfile.Check(file, forecastfile.Options{}) {
			if d.Severity == forecastfile.Finding {
				t.Errorf("finding %v in\n%s", d, text)
			}
		}
	})
}

// FuzzAgentOf: every forecaster gives a valid id of a kind, person only
// for person:<id>, or a problem.
func FuzzAgentOf(f *testing.F) {
	for _, s := range []string{"person", "agent:alice", "Jane Doe", "agent:Jane Doe", "José", "ø", "agent:", "-x-", strings.Repeat("a", 70),
		"person:pat", "Person: Jane Doe", "person:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, who string) {
		id, name, kind, problem := agentOf(who)
		if k, _ := forecastfile.SplitWho(who); problem == "" && kind != board.KindAgent && (kind != board.KindPerson || k != kind) {
			t.Errorf("agentOf(%q) gives kind %q", who, kind)
		}
		if problem != "" {
			if id != "" {
				t.Errorf("agentOf(%q) = %q with problem %q", who, id, problem)
			}
			return
		}
		if !board.ValidAgentID(id) {
			t.Errorf("agentOf(%q) = %q, not a valid agent id", who, id)
		}
		if name == id {
			t.Errorf("agentOf(%q) gives name %q equal to the id", who, name)
		}
	})
}
