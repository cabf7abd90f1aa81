package board

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSearchWords: the words of any text are its runs of word characters,
// in order, and every q the feed accepts runs as an FTS5 query without a
// syntax error (SQLite); q the feed refuses is a *ValidationError naming q.
func FuzzSearchWords(f *testing.F) {
	for _, q := range []string{"fuzz|target", `"open-weight" (model* -`, "don't", "a@b.example", "3.5", "东京 Zürich",
		"NEAR(a b)", "a AND OR NOT b", "^x", "col:fuzz", "'", "\x00", "é\u0301"} {
		f.Add(q)
	}
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, q string) {
		words := searchWords(q)
		var runs strings.Builder
		for _, r := range q {
			if isWordRune(r) {
				runs.WriteRune(r)
			}
		}
		for _, w := range words {
			if w == "" || strings.ContainsFunc(w, func(r rune) bool { return !isWordRune(r) }) {
				t.Fatalf("searchWords(%q) = %q: a word with a separator in it", q, words)
			}
		}
		if got := strings.Join(words, ""); utf8.ValidString(q) && got != runs.String() {
			t.Fatalf("searchWords(%q) = %q, want the runs of %q", q, words, runs.String())
		}
		_, err := s.Feed(ctx, FeedQuery{Q: q})
		if err == nil {
			return
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != "q" || ve.Hint == "" {
			t.Fatalf("Feed(q=%q) = %v, want a result or a ValidationError naming q", q, err)
		}
	})
}
