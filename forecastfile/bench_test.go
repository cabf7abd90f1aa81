package forecastfile

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// benchFile returns a realistic forecast file of at most 60,000 characters
// (the HTTP tool's limit): the questions of testdata/clean.md repeated with
// distinct ids, including notes, free text and resolved questions.
func benchFile(tb testing.TB) []byte {
	tb.Helper()
	src, err := os.ReadFile("testdata/clean.md")
	if err != nil {
		tb.Fatal(err)
	}
	body := string(src[bytes.Index(src, []byte("\n# "))+1:]) + "\n"
	var b strings.Builder
	b.WriteString("---\npredictions: 1\nupdated: 2026-03-01\n---\n")
	for i := 0; ; i++ {
		chunk := strings.ReplaceAll(body, "- id: ", fmt.Sprintf("- id: r%d-", i))
		if b.Len()+len(chunk) > 60000 {
			break
		}
		b.WriteString(chunk)
	}
	return []byte(b.String())
}

// BenchmarkBaselineScanLines reads the same text line by line with
// bufio.Scanner, the least any line-based checker must do.
func BenchmarkBaselineScanLines(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(data))
		n := 0
		for sc.Scan() {
			n += len(sc.Bytes())
		}
		if n == 0 {
			b.Fatal("no lines")
		}
	}
}

func BenchmarkParse(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck is one check of a 60,000-character file: Parse and Check.
func BenchmarkCheck(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if ds := Check(f, pinned); len(ds) != 0 {
			b.Fatalf("clean file has diagnostics: %v", ds[0])
		}
	}
}

// BenchmarkReport is what check_forecast_md does: Parse and Report (Check,
// latest forecasts, pooling, scores).
func BenchmarkReport(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Report(pinned); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormat(b *testing.B) {
	data := benchFile(b)
	f, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		Format(f)
	}
}

// BenchmarkFlags runs both detectors over the whole text.
func BenchmarkFlags(b *testing.B) {
	text := string(benchFile(b))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Flags(text)
	}
}

func TestBenchFileSize(t *testing.T) {
	data := benchFile(t)
	if n := len([]rune(string(data))); n < 55000 || n > 60000 {
		t.Errorf("bench file has %d characters, want close to 60,000", n)
	}
}
