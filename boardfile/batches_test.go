package boardfile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// TestBatches: questions go to the board in runs of whole questions of at
// most max lines together, in file order; a longer question is a run of
// its own.
func TestBatches(t *testing.T) {
	tests := []struct {
		name  string
		lines []int // each question's forecast lines
		max   int
		want  [][]int
	}{
		{"none", nil, 10, [][]int{{}}},
		{"one under", []int{3}, 10, [][]int{{3}}},
		{"fill to the limit", []int{4, 6, 1}, 10, [][]int{{4, 6}, {1}}},
		{"each over half", []int{6, 6, 6}, 10, [][]int{{6}, {6}, {6}}},
		{"a longer question alone", []int{2, 15, 2, 2}, 10, [][]int{{2}, {15}, {2, 2}}},
		{"a longer question first", []int{15, 1}, 10, [][]int{{15}, {1}}},
		{"exactly the limit", []int{10, 10}, 10, [][]int{{10}, {10}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qs := make([]planned, len(tt.lines))
			for i, n := range tt.lines {
				qs[i].load.Forecasts = make([]board.LoadForecast, n)
			}
			got := [][]int{}
			for _, b := range batches(qs, tt.max) {
				run := []int{}
				for _, q := range b {
					run = append(run, len(q.load.Forecasts))
				}
				got = append(got, run)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("batches(%v, %d) mismatch (-want +got):\n%s", tt.lines, tt.max, diff)
			}
		})
	}
}
