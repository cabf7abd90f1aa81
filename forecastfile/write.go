package forecastfile

import (
	"bytes"
	"io"
	"strings"
)

// Format writes f as canonical Markdown: front matter, preamble, then each
// question as heading, free text, key: value bullets in file order, the
// Forecasts section (readable lines as "- date [time] · who · percent% ·
// note", unreadable ones as written), other sections, and Notes last.
// Sections without content are left out; one blank line separates blocks;
// the text ends with a single newline.
//
// For a File returned by [Parse], parsing the output gives the same File
// apart from line numbers and [File.Diagnostics] (round trip).
func Format(f *File) []byte {
	var b bytes.Buffer
	if f.FrontMatter {
		b.WriteString("---\n")
		for _, m := range f.Meta {
			if m.Key == "" {
				b.WriteString(m.Value)
			} else {
				writeKey(&b, m.Key, m.Value)
			}
			b.WriteByte('\n')
		}
		b.WriteString("---\n")
	}
	block := func(s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	if f.Preamble != "" {
		if !f.FrontMatter && (f.Preamble == "---" || strings.HasPrefix(f.Preamble, "---\n")) {
			// Not front matter: a blank first line keeps it from reading as one.
			b.WriteByte('\n')
		}
		block(f.Preamble)
	}
	for i := range f.Questions {
		q := &f.Questions[i]
		if q.Title == "" {
			block("#")
		} else {
			block("# " + q.Title)
		}
		// A text whose code fence is never closed swallowed the rest of the
		// file when it was parsed, so it is written last.
		var last []string
		part := func(blocks ...string) {
			for _, s := range blocks {
				if openFence(s) {
					last = blocks
					return
				}
			}
			for _, s := range blocks {
				if s != "" {
					block(s)
				}
			}
		}
		part(q.Text)
		if len(q.Fields) > 0 {
			var fb bytes.Buffer
			for j, fd := range q.Fields {
				if j > 0 {
					fb.WriteByte('\n')
				}
				fb.WriteString("- ")
				writeKey(&fb, fd.Key, fd.Value)
			}
			block(fb.String())
		}
		if len(q.Forecasts) > 0 || q.ForecastsText != "" {
			var fb strings.Builder
			for j, fc := range q.Forecasts {
				if j > 0 {
					fb.WriteByte('\n')
				}
				fb.WriteString("- ")
				fb.WriteString(FormatForecast(fc))
			}
			part("## Forecasts", fb.String(), q.ForecastsText)
		}
		for _, s := range q.Sections {
			part("## "+s.Title, s.Text)
		}
		if q.Notes != "" {
			part("## Notes", q.Notes)
		}
		for _, s := range last {
			if s != "" {
				block(s)
			}
		}
	}
	return b.Bytes()
}

// openFence reports whether text opens a fenced code block it does not
// close.
func openFence(text string) bool {
	if !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
		return false
	}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		m := fenceMarker(line)
		switch {
		case fence == "" && m != "":
			fence = m
		case fence != "" && m == fence:
			fence = ""
		}
	}
	return fence != ""
}

func writeKey(b *bytes.Buffer, key, value string) {
	b.WriteString(key)
	b.WriteByte(':')
	if value != "" {
		b.WriteByte(' ')
		b.WriteString(value)
	}
}

// FormatForecast writes one forecast line without its bullet:
// "2026-03-01 14:05 · agent:alice · 62% · note". The time has the
// precision it needs ([Clock]): 14:05, 14:05:09 or 14:05:09.123456. A
// forecast that could not be read ([Forecast.Raw] set) is written as it
// was.
func FormatForecast(fc Forecast) string {
	if fc.Raw != "" {
		return fc.Raw
	}
	var b strings.Builder
	b.WriteString(fc.Date.String())
	if fc.Time != "" {
		b.WriteByte(' ')
		if c, ok := readClock(fc.Time); ok {
			b.WriteString(c.String()) // as precise as it is, no more
		} else {
			b.WriteString(fc.Time)
		}
	}
	b.WriteString(" · ")
	b.WriteString(fc.Who)
	b.WriteString(" · ")
	b.WriteString(formatPercent(fc.P))
	b.WriteByte('%')
	if fc.Note != "" {
		b.WriteString(" · ")
		b.WriteString(fc.Note)
	}
	return b.String()
}

// WriteTo writes f as canonical Markdown (see [Format]) to w.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(Format(f))
	return int64(n), err
}
