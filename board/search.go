package board

import (
	"strings"
	"unicode"

	"github.com/predictions-md/predictions/internal/database"
)

// MaxQuery bounds the feed's full-text search q, in characters (Unicode
// code points).
const MaxQuery = 200

// The feed's search has one meaning on both databases: a word is a run of
// letters and digits (Unicode L*, N* and Co, the token characters of
// SQLite's unicode61 tokenizer), anything else between words separates
// them, and a prediction matches when its title or body holds every word
// of q, in any order and any case. SQLite's FTS5 index (unicode61) splits
// stored text that way itself. PostgreSQL's parser would keep
// "fuzz.target", "a@b.com", "3.5" or "x.com/path" as one token, so its
// index reads the text with ASCII punctuation turned into spaces first
// (searchDocument); non-ASCII punctuation its parser already treats as a
// separator under a UTF-8 locale. Both dialects are then given the words
// of q as [searchWords] finds them.

// asciiPunctuation is every printable ASCII character that is neither a
// letter, a digit nor a space: what searchDocument turns into spaces on
// PostgreSQL.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// searchDocument is the PostgreSQL expression of the text the search
// index holds for a prediction: its title and body, ASCII punctuation
// turned into spaces (translate, so it stays IMMUTABLE as a generated
// column needs). A test compares it with searchWords on both databases.
func searchDocument() string {
	return `translate(title || ' ' || body, '` + strings.ReplaceAll(asciiPunctuation, "'", "''") + `', '` +
		strings.Repeat(" ", len(asciiPunctuation)) + `')`
}

// isWordRune reports whether r belongs to a word: a letter, a digit or
// another number, or a private-use character (unicode61's categories
// L*, N* and Co).
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// searchWords returns the words of a search text: its runs of word
// characters, in order, duplicates kept.
func searchWords(q string) []string {
	return strings.FieldsFunc(q, func(r rune) bool { return !isWordRune(r) })
}

// checkSearch checks the feed's search text: at most [MaxQuery]
// characters without control characters, with at least one word. It
// returns it trimmed; "" means no search.
func checkSearch(q string) (string, error) {
	if q == "" {
		return "", nil
	}
	t, err := checkText("q", q, 0, MaxQuery, false)
	if err != nil {
		return "", err
	}
	if len(searchWords(t)) == 0 {
		return "", invalid("q", "has no word to search for", `send words of the title or body, such as q=launch delay`)
	}
	return t, nil
}

// ftsQuery writes the words of q as an FTS5 query
// ([database.FTS5Terms]): all of them required, in any column.
func ftsQuery(q string) string { return database.FTS5Terms(searchWords(q)) }

// tsQueryText writes the words of q for PostgreSQL's
// plainto_tsquery('simple', ...): separated by spaces, so that its parser
// finds exactly these words and requires each of them.
func tsQueryText(q string) string {
	return strings.Join(searchWords(q), " ")
}
