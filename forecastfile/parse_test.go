package forecastfile

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		in      string
		want    Date
		wantErr bool
	}{
		{"2026-03-01", Date{2026, time.March, 1}, false},
		{"2024-02-29", Date{2024, time.February, 29}, false}, // leap year
		{"2026-02-29", Date{}, true},
		{"2026-13-01", Date{}, true},
		{"2026-3-1", Date{}, true},
		{"2026/03/01", Date{}, true},
		{"0000-01-01", Date{}, true},
		{"", Date{}, true},
		{"2026-03-01 ", Date{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDate(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseDate(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrDate) {
				t.Errorf("ParseDate(%q) error %v does not wrap ErrDate", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseDate(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		sentinel error
		line     int
	}{
		{"NUL byte", "# q\n- id: a\x00", ErrBinary, 2},
		{"invalid UTF-8", "# q\n\n- id: \xff", ErrInvalidUTF8, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.sentinel) {
				t.Fatalf("Parse error = %v, want a *ParseError wrapping %v", err, tt.sentinel)
			}
			if pe.Line != tt.line {
				t.Errorf("ParseError.Line = %d, want %d", pe.Line, tt.line)
			}
		})
	}
}

func ptr(v float64) *float64 { return &v }

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *File
		// wantDiags lists the rules of the layout diagnostics Parse records.
		wantDiags []int
	}{
		{
			name: "canonical",
			in: "---\npredictions: 1\nupdated: 2026-03-01\n---\n\nIntro.\n\n# Will it rain?\n\nSome context.\n\n" +
				"- id: rain\n- resolves: yes if the weather service reports rain\n- resolve_by: 2026-04-01\n- status: resolved\n" +
				"- base_rate: 30%\n- outcome: yes\n- tags: weather, local\n\n## Forecasts\n\n" +
				"- 2026-03-01 · agent:ann · 62% · radar\n- 2026-03-02 14:05 · person · 70%\n\n## Notes\n\nIt rained.\n",
			want: &File{
				FrontMatter: true, Version: 1, Updated: Date{2026, 3, 1},
				Meta:     []Field{{Line: 2, Key: "predictions", Value: "1"}, {Line: 3, Key: "updated", Value: "2026-03-01"}},
				Preamble: "Intro.", PreambleLine: 6,
				Questions: []Question{{
					Line: 8, Title: "Will it rain?", Text: "Some context.", TextLine: 10,
					Fields: []Field{
						{12, "id", "rain"}, {13, "resolves", "yes if the weather service reports rain"},
						{14, "resolve_by", "2026-04-01"}, {15, "status", "resolved"}, {16, "base_rate", "30%"},
						{17, "outcome", "yes"}, {18, "tags", "weather, local"},
					},
					ID: "rain", Resolves: "yes if the weather service reports rain", ResolveBy: Date{2026, 4, 1},
					Status: StatusResolved, BaseRate: ptr(0.30), Outcome: OutcomeYes, Tags: []string{"weather", "local"},
					Forecasts: []Forecast{
						{Line: 22, Date: Date{2026, 3, 1}, Who: "agent:ann", P: 0.62, Note: "radar"},
						{Line: 23, Date: Date{2026, 3, 2}, Time: "14:05", Who: "person", P: 0.70},
					},
					Notes: "It rained.", NotesLine: 27,
				}},
			},
		},
		{
			name: "forgiving: CRLF, * bullets, key case and spacing, hyphens, missing %",
			in: "# Q\r\n*  ID:  q1 \r\n* Resolve By: 2026-05-01\r\n* Status: OPEN\r\n* base_rate: 12\r\n* tags: #a,, #b\r\n" +
				"## forecast:\r\n- 2026-04-01T09:00 - agent:x - 40 - a - b\r\n",
			want: &File{Questions: []Question{{
				Line: 1, Title: "Q",
				Fields: []Field{{2, "id", "q1"}, {3, "resolve_by", "2026-05-01"}, {4, "status", "open"}, {5, "base_rate", "12%"}, {6, "tags", "a, b"}},
				ID:     "q1", ResolveBy: Date{2026, 5, 1}, Status: StatusOpen, BaseRate: ptr(0.12), Tags: []string{"a", "b"},
				Forecasts: []Forecast{{Line: 8, Date: Date{2026, 4, 1}, Time: "09:00", Who: "agent:x", P: 0.40, Note: "a - b"}},
			}}},
			wantDiags: []int{0, 0, 0}, // base_rate without %, separator, probability without %
		},
		{
			name: "unreadable forecast lines are kept raw",
			in:   "# Q\n- id: q\n## Forecasts\n- 2026-04-01 · agent:x\n- 62% · agent:y · 2026-01-01\n- 2026-04-02 · z · 0.4\n",
			want: &File{Questions: []Question{{
				Line: 1, Title: "Q", Fields: []Field{{2, "id", "q"}}, ID: "q",
				Forecasts: []Forecast{
					{Line: 4, Date: Date{2026, 4, 1}, Who: "agent:x", Raw: "2026-04-01 · agent:x"},
					{Line: 5, Raw: "62% · agent:y · 2026-01-01", Who: "agent:y"},
					{Line: 6, Date: Date{2026, 4, 2}, Who: "z", Raw: "2026-04-02 · z · 0.4"},
				},
			}}},
		},
		{
			name: "code fences, sections, repeated notes, sub-bullets",
			in: "# Q\n```\n# not a question\n- id: no\n```\n- id: q\n## Forecasts\n- 2026-01-01 · a · 5%\n  - source: x\n" +
				"## Reasoning\nBecause.\n## Notes\nOne.\n## Notes\nTwo.\n",
			want: &File{Questions: []Question{{
				Line: 1, Title: "Q", Text: "```\n# not a question\n- id: no\n```", TextLine: 2,
				Fields: []Field{{6, "id", "q"}}, ID: "q",
				Forecasts:     []Forecast{{Line: 8, Date: Date{2026, 1, 1}, Who: "a", P: 0.05}},
				ForecastsText: "  - source: x", ForecastsTextLine: 9,
				Sections: []Section{{Line: 10, Title: "Reasoning", Text: "Because.", TextLine: 11}},
				Notes:    "One.\n\nTwo.", NotesLine: 13,
			}}},
			wantDiags: []int{0, 0}, // sub-bullet kept as text, second Notes
		},
		{
			name: "unclosed front matter is text",
			in:   "---\nfoo: bar\n# Q\n- id: q\n",
			want: &File{
				Preamble: "---\nfoo: bar", PreambleLine: 1,
				Questions: []Question{{Line: 3, Title: "Q", Fields: []Field{{4, "id", "q"}}, ID: "q"}},
			},
			wantDiags: []int{0},
		},
		{
			name: "URL bullets and headings with closing hashes",
			in:   "# Is C# faster? ##\n- https://example.com/x\n- Note to self: later\n",
			want: &File{Questions: []Question{{
				Line: 1, Title: "Is C# faster?", Text: "- https://example.com/x\n- Note to self: later", TextLine: 2,
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(File{}, "Diagnostics"), cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
			var rules []int
			for _, d := range got.Diagnostics {
				rules = append(rules, d.Rule)
			}
			if diff := cmp.Diff(tt.wantDiags, rules, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse diagnostics rules mismatch (-want +got):\n%s\n%v", diff, got.Diagnostics)
			}
		})
	}
}

// TestFormatCanonical checks that Format writes the canonical form and that
// parsing it back gives the same File.
func TestFormatCanonical(t *testing.T) {
	in := "# Q\r\n* ID: q\r\n* Status: OPEN\r\n* base_rate: 12\r\n## Forecasts\r\n- 2026-04-01 - agent:x - 40.5 - a note\r\n"
	want := "# Q\n\n- id: q\n- status: open\n- base_rate: 12%\n\n## Forecasts\n\n- 2026-04-01 · agent:x · 40.5% · a note\n"
	f, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := string(Format(f))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Format mismatch (-want +got):\n%s", diff)
	}
	f2, err := Parse([]byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, f2, ignoreLines); diff != "" {
		t.Errorf("round trip mismatch (-first +second):\n%s", diff)
	}
	if len(f2.Diagnostics) != 0 {
		t.Errorf("canonical text has layout diagnostics: %v", f2.Diagnostics)
	}
}

func TestFormatPercent(t *testing.T) {
	for _, pct := range []string{"0", "1", "12", "33.3", "62", "99.9", "100", "0.5", "57.29", "0.001"} {
		p, _, problem := readPercent(pct + "%")
		if problem != "" {
			t.Fatalf("readPercent(%q): %s", pct, problem)
		}
		if got := formatPercent(p); got != pct {
			t.Errorf("formatPercent(readPercent(%q%%)) = %q, want %q", pct, got, pct)
		}
	}
}
