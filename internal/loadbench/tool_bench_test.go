package loadbench

import (
	"context"
	"testing"

	"github.com/predictions-md/predictions/internal/tools"
)

// toolBodies are the inputs of BenchmarkTool: the load benchmark's
// scenario bodies where it has one, else the tool's own example.
func toolBodies() map[string][]byte {
	return map[string][]byte{
		"convert_odds":      convertBody,
		"combine_forecasts": combineBody(),
		"score_forecasts":   scoreBody(),
		"check_forecast_md": checkBody(),
	}
}

// BenchmarkTool measures each tool as the adapters call it, without HTTP:
// [tools.Tool.Call] (decode, validate, run) and the answer written by
// [tools.Result.AppendEnvelope] into a reused buffer. Its allocations per
// call are the tools' budget (docs/BENCHMARKS.md records them); the
// load benchmark's bodies are used where it has one (combine_forecasts
// with 10 forecasts, score_forecasts with 200), else the tool's example.
//
//	go test ./internal/loadbench -run '^$' -bench Tool -benchmem
func BenchmarkTool(b *testing.B) {
	bodies := toolBodies()
	for _, t := range tools.All() {
		body, ok := bodies[t.Name]
		if !ok {
			body = t.Example
		}
		b.Run(t.Name, func(b *testing.B) {
			ctx := tools.WithBaseURL(context.Background(), "https://predictions.example")
			buf := make([]byte, 0, 64<<10)
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				res, err := t.Call(ctx, body)
				if err != nil {
					b.Fatal(err)
				}
				if buf, err = res.AppendEnvelope(buf[:0], "https://predictions.example/terms"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
