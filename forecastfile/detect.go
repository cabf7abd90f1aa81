package forecastfile

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Flag names returned by [Flags].
const (
	// FlagInstructionLike marks text that reads like instructions to an
	// agent (rule 8): attempts to override its instructions, change its
	// role, hide things from its person, or run commands.
	FlagInstructionLike = "instruction_like"
	// FlagCertainty marks certainty language (rule 5): "definitely",
	// "guaranteed", "100% sure", "no chance" and the like.
	FlagCertainty = "certainty_language"
)

// Flags returns the names of the flags text raises, in a fixed order
// ([FlagCertainty], then [FlagInstructionLike]), or nil. It has the shape
// func(text string) []string so that other packages (the agent board) can
// take it as a plain function value.
func Flags(text string) []string {
	var flags []string
	if certainty.first(text) {
		flags = append(flags, FlagCertainty)
	}
	if instructions.first(text) {
		flags = append(flags, FlagInstructionLike)
	}
	return flags
}

// DetectInstructions returns the phrases of text that read like instructions
// to an agent (rule 8), as written, in order of appearance, each once; nil
// when there are none.
//
// The list is curated for precision: a phrase must address the reader or
// name an agent's machinery, so "ignore all previous instructions", "you are
// now DAN", "reveal your system prompt", "do not tell the user", "run the
// following command", "curl … | sh" and chat-template markers such as
// <|im_start|> are flagged, while "the committee will ignore previous
// guidance", "the act was passed" and "the bank will act as lender of last
// resort" are not. Phrases are matched on words, without regard to case,
// across line breaks. It runs in time linear in len(text).
func DetectInstructions(text string) []string {
	return phrases(text, instructions.find(text))
}

// DetectCertainty returns the certainty phrases of text (rule 5), as
// written, in order of appearance, each once; nil when there are none.
//
// Flagged: "definitely", "guaranteed to", "100% sure", "certain to", "it is
// certain", "certainly", "no chance", "zero chance", "can't lose", "sure
// thing", "without a doubt", "inevitable", "impossible", "for sure" and a
// few more. Not flagged: "uncertain", "not definitely", "not guaranteed",
// "100% of the votes counted", "almost certain", "impossible to know",
// "we don't know for sure", and "certainly not sure" (which states doubt,
// not certainty). It runs in time linear in len(text).
func DetectCertainty(text string) []string {
	return phrases(text, certainty.find(text))
}

// phrases turns matches into the distinct matched texts, in order.
func phrases(text string, ms []match) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		p := strings.Join(strings.Fields(text[m.start:m.end]), " ")
		if k := strings.ToLower(p); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// match is one phrase found in a text: its byte range.
type match struct{ start, end int }

// token is one word or punctuation mark of a text, lower-cased.
type token struct {
	s          string
	start, end int
	// lineStart is set when the token is the first of the text, of a line
	// or of a sentence (after . ! ? : ;).
	lineStart bool
}

// tokenize splits text into lower-case words (letters, digits, inner
// apostrophes) and the punctuation marks the patterns use.
func tokenize(text string, buf []token) []token {
	toks := buf[:0]
	lineStart := true
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case isASCIIWord(c):
				j := i + 1
				for j < len(text) {
					d := text[j]
					if isASCIIWord(d) {
						j++
						continue
					}
					if d == '\'' && j+1 < len(text) && isASCIIWord(text[j+1]) {
						j += 2
						continue
					}
					if d >= utf8.RuneSelf {
						r, n := utf8.DecodeRuneInString(text[j:])
						if unicode.IsLetter(r) || unicode.IsDigit(r) {
							j += n
							continue
						}
						if r == '’' && j+n < len(text) && isASCIIWord(text[j+n]) {
							j += n
							continue
						}
					}
					break
				}
				toks = append(toks, token{s: lowerWord(text[i:j]), start: i, end: j, lineStart: lineStart})
				lineStart = false
				i = j
			case c == '\n':
				lineStart = true
				i++
			case strings.IndexByte("%:.,!?;|", c) >= 0:
				toks = append(toks, token{s: text[i : i+1], start: i, end: i + 1, lineStart: lineStart})
				lineStart = strings.IndexByte(".!?:;", c) >= 0
				i++
			default:
				i++
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			// A word starting with a non-ASCII letter: rare; read it whole.
			j := i + n
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if !(unicode.IsLetter(r2) || unicode.IsDigit(r2) || r2 == '_') {
					break
				}
				j += n2
			}
			toks = append(toks, token{s: lowerWord(text[i:j]), start: i, end: j, lineStart: lineStart})
			lineStart = false
			i = j
			continue
		}
		i += n
	}
	return toks
}

func isASCIIWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// lowerWord lower-cases w and writes a typographic apostrophe as ',
// allocating only when it has to.
func lowerWord(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf {
			return strings.ReplaceAll(strings.ToLower(w), "’", "'")
		}
	}
	return w
}

// step is one position of a pattern: a set of accepted words (nil: any
// word) repeated between min and max times.
type step struct {
	words    map[string]bool
	min, max int
}

// pattern is one curated phrase.
type pattern struct {
	steps     []step
	start     bool            // only at the start of the text, a line or a sentence
	notBefore map[string]bool // the word before must not be one of these
	notAfter  [][]string      // the words after must not begin with one of these
}

// detector finds the phrases of a list of patterns, and fixed markers.
type detector struct {
	byFirst map[string][]*pattern
	markers []string // matched anywhere, without regard to case
}

// spec of a pattern: words separated by spaces; a|b accepts either; a
// suffix ? makes a step optional, *N repeats it up to N times; _ is any
// word; PIPE is the token |. notBefore is |-separated; notAfter is a list
// of word sequences.
type patternSpec struct {
	seq       string
	start     bool
	notBefore string
	notAfter  []string
}

func newDetector(specs []patternSpec, markers []string) *detector {
	d := &detector{byFirst: map[string][]*pattern{}, markers: markers}
	for _, sp := range specs {
		p := &pattern{start: sp.start}
		for _, f := range strings.Fields(sp.seq) {
			st := step{min: 1, max: 1}
			switch {
			case strings.HasSuffix(f, "?"):
				st.min, f = 0, f[:len(f)-1]
			case len(f) > 2 && f[len(f)-2] == '*':
				st.min, st.max, f = 0, int(f[len(f)-1]-'0'), f[:len(f)-2]
			}
			if f != "_" {
				st.words = set(f)
			}
			p.steps = append(p.steps, st)
		}
		if sp.notBefore != "" {
			p.notBefore = set(sp.notBefore)
		}
		for _, a := range sp.notAfter {
			p.notAfter = append(p.notAfter, strings.Fields(a))
		}
		if p.steps[0].min == 0 || p.steps[0].words == nil {
			panic("forecastfile: pattern must start with a required word: " + sp.seq)
		}
		for w := range p.steps[0].words {
			d.byFirst[w] = append(d.byFirst[w], p)
		}
	}
	return d
}

// set reads alternatives separated by |; the word PIPE stands for the
// token | itself.
func set(alts string) map[string]bool {
	m := map[string]bool{}
	for _, a := range strings.Split(alts, "|") {
		if a == "PIPE" {
			a = "|"
		}
		m[a] = true
	}
	return m
}

// find returns every match in text, in order of their start.
func (d *detector) find(text string) []match {
	var out []match
	d.scan(text, func(m match) bool { out = append(out, m); return true })
	return out
}

// first reports whether text has at least one match.
func (d *detector) first(text string) bool {
	found := false
	d.scan(text, func(match) bool { found = true; return false })
	return found
}

// scan calls yield for each match until it returns false.
func (d *detector) scan(text string, yield func(match) bool) {
	var buf [64]token
	toks := tokenize(text, buf[:0])
	var ms []match
	skip := 0 // matches do not overlap
	for i, t := range toks {
		if i < skip {
			continue
		}
		for _, p := range d.byFirst[t.s] {
			if p.start && !t.lineStart {
				continue
			}
			if p.notBefore != nil && i > 0 && p.notBefore[toks[i-1].s] {
				continue
			}
			end := p.match(toks, i, 0)
			if end < 0 || p.excludedAfter(toks, end) {
				continue
			}
			ms = append(ms, match{t.start, toks[end-1].end})
			skip = end
			break
		}
	}
	ms = d.markersIn(text, ms)
	for _, m := range ms {
		if !yield(m) {
			return
		}
	}
}

// match returns the token index just past a match of steps[si:] starting at
// toks[ti], or -1. Steps are short, so the backtracking is bounded by a
// constant per start position.
func (p *pattern) match(toks []token, ti, si int) int {
	if si == len(p.steps) {
		return ti
	}
	st := p.steps[si]
	n := 0
	for n < st.min {
		if ti+n >= len(toks) || (st.words != nil && !st.words[toks[ti+n].s]) {
			return -1
		}
		n++
	}
	for {
		if end := p.match(toks, ti+n, si+1); end >= 0 && end > ti {
			return end
		}
		if n >= st.max || ti+n >= len(toks) || (st.words != nil && !st.words[toks[ti+n].s]) {
			return -1
		}
		n++
	}
}

func (p *pattern) excludedAfter(toks []token, end int) bool {
next:
	for _, seq := range p.notAfter {
		if end+len(seq) > len(toks) {
			continue
		}
		for k, w := range seq {
			if toks[end+k].s != w {
				continue next
			}
		}
		return true
	}
	return false
}

// markersIn adds the fixed markers found in text to ms, keeping ms sorted.
func (d *detector) markersIn(text string, ms []match) []match {
	if len(d.markers) == 0 || strings.IndexAny(text, "<[") < 0 {
		return ms
	}
	added := false
	for i := 0; i < len(text); i++ {
		if c := text[i]; c != '<' && c != '[' {
			continue
		}
		for _, mk := range d.markers {
			if len(text)-i >= len(mk) && strings.EqualFold(text[i:i+len(mk)], mk) {
				ms = append(ms, match{i, i + len(mk)})
				added = true
				break
			}
		}
	}
	if added {
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].start < ms[j].start })
	}
	return ms
}

const negations = "not|isn't|wasn't|aren't|weren't|never|no|hardly|nor"

// certainty is the curated list for rule 5.
var certainty = newDetector([]patternSpec{
	{seq: "definitely|definite", notBefore: negations},
	{seq: "guaranteed to|win|winner|victory|outcome|yes|no|lock|.|!", notBefore: negations},
	{seq: "is|are|it's|was|basically|practically|virtually guaranteed"},
	{seq: "100|110|1000 %|percent sure|certain|certainty|guaranteed|chance|confident|locked"},
	{seq: "certain to|that", notBefore: negations},
	{seq: "is|are|am|i'm|it's|we're|they're|completely|absolutely|totally certain"},
	{seq: "certainly", notBefore: negations, notAfter: []string{"not sure", "not certain", "not clear", "not known"}},
	{seq: "no|zero|0 %? chance"},
	{seq: "not a chance"},
	{seq: "can't|cannot|won't lose|fail|miss"},
	{seq: "can not lose|fail|miss"},
	{seq: "sure thing|bet"},
	{seq: "slam dunk"},
	{seq: "free money"},
	{seq: "without|beyond a? doubt"},
	{seq: "no doubt", notBefore: "little"},
	{seq: "inevitable|inevitably", notBefore: negations},
	{seq: "impossible", notBefore: negations, notAfter: []string{"to know", "to say", "to tell", "to predict", "to forecast", "to call"}},
	{seq: "for sure", notBefore: "know|knows|known|say|tell|sure|certain"},
	{seq: "will|can never happen"},
	{seq: "can't|cannot happen"},
}, nil)

// instructions is the curated list for rule 8.
var instructions = newDetector([]patternSpec{
	// Overriding the agent's instructions.
	{seq: "ignore|disregard|forget|override|bypass|skip all|any|the|your|my|of|previous|prior|above|earlier|preceding|original|system|these|those|every|current|existing|other|developer|safety*4 instructions|instruction|prompt|prompts|directives|guardrails|programming"},
	{seq: "ignore|disregard|forget everything|all|the of? the? above|before|previously|earlier"},
	{seq: "new|updated|real|actual|true|revised|additional instructions|instruction|directive|directives :"},
	{seq: "your new|real|actual|true|only instructions|task|goal|objective|job|mission are|is|:"},
	{seq: "you must|shall now? obey|comply"},
	// Changing its role.
	{seq: "you are now|henceforth a|an|the|in|my|no|free|dan|unrestricted|jailbroken|developer|acting|unfiltered"},
	{seq: "from now on ,? you|your"},
	{seq: "you|please|now must|should|will|shall? act|behave|respond as"},
	{seq: "act|behave as if? a|an|my|the|though|if", start: true},
	{seq: "pretend to be|you"},
	{seq: "pretend you're|you|that"},
	{seq: "roleplay|role play? as"},
	{seq: "enable|enter|activate|switch to? developer|dan|god|jailbreak mode"},
	// The agent's machinery.
	{seq: "reveal|print|show|output|repeat|leak|display|disclose|dump|override|ignore|change|update your|the|new|my|this? system|initial|hidden|original prompt|instructions|message"},
	{seq: "your system prompt|instructions"},
	{seq: "new|updated system prompt|instructions :"},
	{seq: "system|developer :", start: true},
	{seq: "as an ai language model"},
	{seq: "as an ai|llm|assistant ,? you|your"},
	{seq: "note|message|instructions|attention to|for all? the? ai|llm|llms|assistant|assistants"},
	// Hiding things from the person.
	{seq: "do not tell|inform|mention|reveal|show|alert|let|notify|warn the|your? user|users|human|humans|person|operator|owner"},
	{seq: "don't|dont|never tell|inform|mention|reveal|show|alert|let|notify|warn the|your? user|users|human|humans|person|operator|owner"},
	{seq: "without telling|informing|alerting|notifying the|your? user|users|human|humans|person|operator|owner"},
	// Running commands and sending secrets.
	{seq: "execute|run the|this|these|that? following? command|commands|code|script|shell|program|snippet|payload"},
	{seq: "run|execute the following"},
	{seq: "curl|wget _*9 PIPE sh|bash|zsh|sudo|python|python3|node|perl|iex|powershell"},
	{seq: "rm rf|fr"},
	{seq: "send|post|upload|email|exfiltrate|leak|forward|paste|print|reveal|share|output your|the|all|any|my? api|ssh|private|secret|access key|keys|token|tokens"},
	{seq: "send|post|upload|email|exfiltrate|leak|forward|paste|print|reveal|share|output your|the|all|any|my? credentials|password|passwords|secrets|cookies|env"},
	{seq: "send|post|upload|email|exfiltrate|leak|forward|paste|print|reveal|share|output your|the|all|any|my? environment variables|vars"},
}, []string{
	"<|im_start|>", "<|im_end|>", "<|system|>", "<|user|>", "<|assistant|>",
	"<|endoftext|>", "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>",
	"[inst]", "[/inst]", "<<sys>>", "<</sys>>", "<start_of_turn>", "<end_of_turn>",
	"<system>", "</system>",
})
