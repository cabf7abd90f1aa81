package tools

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// compilePattern compiles a schema's pattern for the validator, once per
// tool. The patterns are written in the common subset of RE2 and
// ECMA-262, so that the published schema and this validator agree.
//
// A pattern that spells a finite set of words between two optional runs
// of one character class, such as the outcome's
// ^\s*(yes|no|true|false|1|0)\s*$ (letters of either case), matches a
// text by trimming the class from both ends and looking the rest up in
// that set: the words and the class are taken from the pattern's own
// syntax tree, so they cannot disagree with it (FuzzPatternMatchesRegexp
// compares the two). Any other pattern runs its regular expression.
func compilePattern(expr string) func(string) bool {
	re := regexp.MustCompile(expr) // declared by the tools: a bad one is a programming error
	if match, ok := paddedWords(expr); ok {
		return match
	}
	return re.MatchString
}

// maxWords bounds the set a pattern may spell to be matched by lookup.
const maxWords = 1024

// paddedWords returns the lookup matcher of a pattern of the form
// ^C*(W)C*$, W a finite set of words none of which starts or ends with a
// character of the class C, or false for any other pattern.
func paddedWords(expr string) (func(string) bool, bool) {
	r, err := syntax.Parse(expr, syntax.Perl) // the flags regexp.Compile uses
	if err != nil {
		return nil, false
	}
	r = r.Simplify()
	if r.Op != syntax.OpConcat || len(r.Sub) != 5 || r.Sub[0].Op != syntax.OpBeginText || r.Sub[4].Op != syntax.OpEndText {
		return nil, false
	}
	pad, tail := r.Sub[1], r.Sub[3]
	if pad.Op != syntax.OpStar || pad.Sub[0].Op != syntax.OpCharClass || !tail.Equal(pad) {
		return nil, false
	}
	class := pad.Sub[0].Rune
	in := func(c rune) bool {
		for i := 0; i+1 < len(class); i += 2 {
			if c >= class[i] && c <= class[i+1] {
				return true
			}
		}
		return false
	}
	words, ok := spelled(r.Sub[2])
	if !ok {
		return nil, false
	}
	set := make(map[string]bool, len(words))
	for _, w := range words {
		first, _ := utf8.DecodeRuneInString(w)
		last, _ := utf8.DecodeLastRuneInString(w)
		if w != "" && (in(first) || in(last)) || strings.ContainsRune(w, utf8.RuneError) {
			return nil, false // trimming the class could cut into the word
		}
		set[w] = true
	}
	return func(s string) bool { return set[strings.TrimRightFunc(strings.TrimLeftFunc(s, in), in)] }, true
}

// spelled lists the words r matches, when they are finite and at most
// maxWords.
func spelled(r *syntax.Regexp) ([]string, bool) {
	product := func(words []string, next []string) ([]string, bool) {
		if len(words)*len(next) > maxWords {
			return nil, false
		}
		var out []string
		for _, w := range words {
			for _, n := range next {
				out = append(out, w+n)
			}
		}
		return out, true
	}
	switch r.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpLiteral:
		words := []string{""}
		for _, c := range r.Rune {
			options := []string{string(c)}
			if r.Flags&syntax.FoldCase != 0 { // as regexp matches a folded rune: its whole orbit
				for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
					options = append(options, string(f))
				}
			}
			var ok bool
			if words, ok = product(words, options); !ok {
				return nil, false
			}
		}
		return words, true
	case syntax.OpCharClass:
		var words []string
		for i := 0; i+1 < len(r.Rune); i += 2 {
			for c := r.Rune[i]; c <= r.Rune[i+1]; c++ {
				if len(words) == maxWords {
					return nil, false
				}
				words = append(words, string(c))
			}
		}
		return words, true
	case syntax.OpCapture:
		return spelled(r.Sub[0])
	case syntax.OpConcat:
		words := []string{""}
		for _, sub := range r.Sub {
			next, ok := spelled(sub)
			if !ok {
				return nil, false
			}
			if words, ok = product(words, next); !ok {
				return nil, false
			}
		}
		return words, true
	case syntax.OpAlternate:
		var words []string
		for _, sub := range r.Sub {
			next, ok := spelled(sub)
			if !ok || len(words)+len(next) > maxWords {
				return nil, false
			}
			words = append(words, next...)
		}
		return words, true
	}
	return nil, false
}
