package jsonscan_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/jsonscan"
)

func TestNumber(t *testing.T) {
	type result struct {
		End int
		OK  bool
	}
	tests := []struct {
		in   string
		at   int
		want result
	}{
		{"0", 0, result{1, true}},
		{"-0", 0, result{2, true}},
		{"123", 0, result{3, true}},
		{"-1.5e+3", 0, result{7, true}},
		{"2E-7", 0, result{4, true}},
		{"0.25,", 0, result{4, true}},   // stops before the comma
		{"05", 0, result{1, true}},      // 0, then a byte the caller must refuse
		{"1.2.3", 0, result{3, true}},   // 1.2, then a point
		{`{"p":7}`, 5, result{6, true}}, // from an index
		{"", 0, result{0, false}},
		{"-", 0, result{1, false}},
		{"+1", 0, result{0, false}},
		{".5", 0, result{0, false}},
		{"1.", 0, result{2, false}},
		{"1e", 0, result{2, false}},
		{"1e+", 0, result{3, false}},
		{"x", 0, result{0, false}},
	}
	for _, tt := range tests {
		end, ok := jsonscan.Number(tt.in, tt.at)
		if diff := cmp.Diff(tt.want, result{end, ok}); diff != "" {
			t.Errorf("Number(%q, %d) mismatch (-want +got):\n%s", tt.in, tt.at, diff)
		}
		endB, okB := jsonscan.Number([]byte(tt.in), tt.at)
		if endB != end || okB != ok {
			t.Errorf("Number([]byte(%q), %d) = %d, %v; the string form gives %d, %v", tt.in, tt.at, endB, okB, end, ok)
		}
	}
}

func TestSpace(t *testing.T) {
	tests := []struct {
		in       string
		at, want int
	}{
		{"", 0, 0},
		{"x", 0, 0},
		{" \t\r\nx", 0, 4},
		{"a  ", 1, 3},
		{"\v x", 0, 0}, // vertical tab is not JSON white space
	}
	for _, tt := range tests {
		if got := jsonscan.Space(tt.in, tt.at); got != tt.want {
			t.Errorf("Space(%q, %d) = %d, want %d", tt.in, tt.at, got, tt.want)
		}
	}
}

// FuzzNumber checks Number against encoding/json: a string is one whole
// JSON number exactly when Number reads all of it.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-1.5e+3", "05", "1.", "+1", "1e400", "-", ".5", "0x10", "1_000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		end, ok := jsonscan.Number(s, 0)
		whole := ok && end == len(s)
		var n json.Number
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var v any
		isNumber := json.Valid([]byte(s)) && d.Decode(&v) == nil
		if isNumber {
			n, isNumber = v.(json.Number)
			isNumber = isNumber && string(n) == s
		}
		if whole != isNumber {
			t.Errorf("Number(%q) reads %d bytes (ok %v); encoding/json says it is one number: %v", s, end, ok, isNumber)
		}
	})
}

func ExampleNumber() {
	body := `{"p": -0.25e1, "q": 1}`
	start := strings.Index(body, "-")
	end, ok := jsonscan.Number(body, start)
	fmt.Println(body[start:end], ok)
	// Output: -0.25e1 true
}

func ExampleSpace() {
	body := "  \n{}"
	fmt.Println(jsonscan.Space(body, 0))
	// Output: 3
}
