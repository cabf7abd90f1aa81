package board_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/board"
)

// FuzzReadProbability: whatever the JSON, the reader returns a probability
// in [0, 1] or a *ValidationError on field p with a hint; never a panic,
// never NaN. A bare number it accepts is the number itself; a percent
// string it accepts is that percent divided by 100.
func FuzzReadProbability(f *testing.F) {
	for _, s := range []string{`0`, `1`, `0.7`, `"70%"`, `"0%"`, `" 100 % "`, `1.5`, `150`, `-0`, `1e-320`, `"1e2%"`,
		`"NaN%"`, `"Inf%"`, `null`, `true`, `{}`, `[]`, `"0.7"`, `""`, `"%"`, `1e400`, `"é%"`, `"+ 0%"`, `"- 0%"`, `"−0%"`, `"+5%"`, `"- 5%"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := board.ReadProbability(raw)
		if err != nil {
			var ve *board.ValidationError
			if !errors.As(err, &ve) || ve.Field != "p" || ve.Hint == "" || !errors.Is(err, board.ErrInvalid) {
				t.Fatalf("%q: error %v is not a ValidationError on p with a hint", raw, err)
			}
			return
		}
		if math.IsNaN(p) || p < 0 || p > 1 {
			t.Fatalf("%q read as %v, outside [0, 1]", raw, p)
		}
		var num float64
		if json.Unmarshal(raw, &num) == nil {
			if num != p {
				t.Fatalf("bare number %q read as %v", raw, p)
			}
			return
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%q accepted but is neither a JSON number nor a string", raw)
		}
		pct, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
		// A sign may lead, with spaces after it (the odds package reads
		// "+ 5%" as 5%); a minus is accepted only on zero.
		text, negative := strings.TrimSpace(pct), false
		for _, sign := range []string{"+", "-", "−"} {
			if rest, cut := strings.CutPrefix(text, sign); cut {
				text, negative = strings.TrimSpace(rest), sign != "+"
				break
			}
		}
		// A percent is divided by 100 exactly and rounded once.
		v, vok := new(big.Rat).SetString(text)
		if vok && negative && v.Sign() != 0 {
			t.Fatalf("negative percent string %q read as %v", s, p)
		}
		var want float64
		if vok {
			want, _ = v.Quo(v, big.NewRat(100, 1)).Float64()
		}
		if !ok || !vok || want != p {
			t.Fatalf("percent string %q read as %v", s, p)
		}
	})
}
