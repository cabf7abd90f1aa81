package board_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// searchTitles are the predictions TestSearchMeaning searches; each body
// is "Details follow." so that only the titles differ.
var searchTitles = []string{
	"fuzz target",
	"target of the fuzz run",
	"fuzz.target in the corpus",
	"fuzz/target path",
	"fuzz-target build",
	"fuzz_target symbol",
	"don't stop",
	"mail a@b.example today",
	"version 3.5 ships",
	"see x.example/path now",
	"fuzzy matching",
	"东京 and Zürich",
}

// TestSearchMeaning runs one table on SQLite and PostgreSQL: the same q
// finds the same predictions. A word is a run of letters and digits; any
// punctuation between words (in q or in the stored text) splits them; a
// prediction matches when its title or body holds every word of q, in
// any order.
func TestSearchMeaning(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		for _, title := range searchTitles {
			np := newPrediction("searcher")
			np.Title, np.Body = title, "Details follow."
			mustCreate(t, s, np)
		}
		// Every title made of the words fuzz and target, in any spelling.
		fuzzTarget := []string{"fuzz target", "target of the fuzz run", "fuzz.target in the corpus", "fuzz/target path",
			"fuzz-target build", "fuzz_target symbol"}
		tests := []struct {
			q    string
			want []string
		}{
			{"fuzz target", fuzzTarget},
			{"fuzz|target", fuzzTarget},
			{"fuzz&target", fuzzTarget},
			{"fuzz:target", fuzzTarget},
			{"fuzz'target", fuzzTarget},
			{"fuzz!target", fuzzTarget},
			{"fuzz_target", fuzzTarget},
			{"fuzz-target", fuzzTarget},
			{"fuzz.target", fuzzTarget},
			{"fuzz/target", fuzzTarget},
			{"target|fuzz", fuzzTarget},
			{`"fuzz" (target*)`, fuzzTarget},
			{"FUZZ  Target", fuzzTarget},
			{"fuzz", fuzzTarget},
			{"corpus", []string{"fuzz.target in the corpus"}},
			{"fuzz run", []string{"target of the fuzz run"}},
			{"fuzz*", fuzzTarget}, // no prefix search: * separates like any punctuation
			{"fuzzy", []string{"fuzzy matching"}},
			{"don't", []string{"don't stop"}},
			{"don", []string{"don't stop"}},
			{"example", []string{"mail a@b.example today", "see x.example/path now"}},
			{"a@b.example", []string{"mail a@b.example today"}},
			{"b example", []string{"mail a@b.example today"}},
			{"3.5", []string{"version 3.5 ships"}},
			{"5", []string{"version 3.5 ships"}},
			{"path", []string{"fuzz/target path", "see x.example/path now"}},
			{"x.example/path", []string{"see x.example/path now"}},
			{"东京", []string{"东京 and Zürich"}},
			{"zürich", []string{"东京 and Zürich"}},
			{"fuzz zeppelin", nil},
			{"targets", nil}, // no stemming
		}
		for _, tt := range tests {
			t.Run(tt.q, func(t *testing.T) {
				f, err := s.Feed(ctx, board.FeedQuery{Q: tt.q, Limit: board.MaxLimit})
				if err != nil {
					t.Fatalf("Feed(q=%q): %v", tt.q, err)
				}
				got := []string{}
				for _, p := range f.Predictions {
					got = append(got, p.Title)
				}
				want := slices.Clone(tt.want)
				if want == nil {
					want = []string{}
				}
				slices.Sort(got)
				slices.Sort(want)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Feed(q=%q) titles (-want +got):\n%s", tt.q, diff)
				}
				if f.Total != len(want) {
					t.Errorf("Feed(q=%q) total = %d, want %d", tt.q, f.Total, len(want))
				}
			})
		}
	})
}

// TestSearchUpgrade opens a board whose search index was made before the
// migration that splits words at punctuation (on PostgreSQL; SQLite's
// index is unchanged): the predictions already stored are found by their
// words afterwards.
func TestSearchUpgrade(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			ctx := context.Background()
			dsn := b.dsn(t)
			s, err := board.Open(ctx, dsn, board.Options{})
			if err != nil {
				t.Fatal(err)
			}
			np := newPrediction("searcher")
			np.Title = "fuzz.target in the corpus"
			mustCreate(t, s, np)
			if err := board.UndoSearchWords(ctx, s); err != nil {
				t.Fatalf("UndoSearchWords: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s = mustOpen(t, dsn, board.Options{})
			f, err := s.Feed(ctx, board.FeedQuery{Q: "target fuzz"})
			if err != nil || f.Total != 1 {
				t.Fatalf("after the upgrade, Feed(q=target fuzz) = %d predictions, %v; want 1", f.Total, err)
			}
		})
	}
}
