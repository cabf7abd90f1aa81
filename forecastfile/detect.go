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
	var found kind
	book.scan(text, kindCertainty|kindInstruction, func(m match) bool {
		found |= m.kind
		return found != kindCertainty|kindInstruction
	})
	var flags []string
	if found&kindCertainty != 0 {
		flags = append(flags, FlagCertainty)
	}
	if found&kindInstruction != 0 {
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
	return phrases(text, book.find(text, kindInstruction))
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
	return phrases(text, book.find(text, kindCertainty))
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

// kind says which list a phrase comes from.
type kind uint8

const (
	kindCertainty   kind = 1 << iota // rule 5
	kindInstruction                  // rule 8
)

// match is one phrase found in a text: its byte range and list.
type match struct {
	start, end int
	kind       kind
}

// token is one word or punctuation mark of a text.
type token struct {
	s          string
	start, end int
	// lineStart is set when the token is the first of the text, of a line
	// or of a sentence (after . ! ? : ;).
	lineStart bool
}

// window is how many tokens a pattern may span, with the words after it
// that notAfter looks at.
const window = 20

// lexer reads the tokens after a possible first word lazily, lower-cased,
// so that a failed candidate costs one or two tokens.
type lexer struct {
	text   string
	toks   [window]token
	next   [window]int  // where reading continues after toks[i]
	nextLS [window]bool // and whether a sentence starts there
	n      int
}

func (lx *lexer) reset(first token, next int, ls bool) {
	lx.toks[0], lx.next[0], lx.nextLS[0], lx.n = first, next, ls, 1
}

func (lx *lexer) at(i int) (token, bool) {
	for lx.n <= i {
		if lx.n == window {
			return token{}, false
		}
		t, nx, nls, ok := nextToken(lx.text, lx.next[lx.n-1], lx.nextLS[lx.n-1])
		if !ok {
			return token{}, false
		}
		t.s = lowerWord(t.s)
		lx.toks[lx.n], lx.next[lx.n], lx.nextLS[lx.n] = t, nx, nls
		lx.n++
	}
	return lx.toks[i], true
}

// nextToken returns the next word (letters, digits, inner apostrophes) or
// punctuation mark (% : . , ! ? ; |) at or after text[i:], not lower-cased.
// ls says whether a line or sentence starts at i; next and nextLS are where
// to continue. ok is false at the end of text.
func nextToken(text string, i int, ls bool) (t token, next int, nextLS bool, ok bool) {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case isASCIIWord(c):
				j := wordEnd(text, i+1)
				return token{s: text[i:j], start: i, end: j, lineStart: ls}, j, false, true
			case c == '\n':
				ls = true
			case c == '%' || c == ':' || c == '.' || c == ',' || c == '!' || c == '?' || c == ';' || c == '|':
				return token{s: text[i : i+1], start: i, end: i + 1, lineStart: ls}, i + 1, c != '%' && c != ',' && c != '|', true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			j := wordEnd(text, i+n)
			return token{s: text[i:j], start: i, end: j, lineStart: ls}, j, false, true
		}
		i += n
	}
	return token{}, i, ls, false
}

// wordEnd returns the end of the word that continues at text[j:].
func wordEnd(text string, j int) int {
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
	return j
}

// hashWord is FNV-1a of the lower-cased word, reading ’ as '. Words with
// other non-ASCII characters hash to 0: no pattern word has any.
func hashWord(w string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			if strings.HasPrefix(w[i:], "’") {
				c = '\''
				i += len("’") - 1
			} else {
				return 0
			}
		} else if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
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
	kind      kind
	steps     []step
	start     bool            // only at the start of the text, a line or a sentence
	notBefore map[string]bool // the word before must not be one of these
	notAfter  [][]string      // the words after must not begin with one of these
}

// filterBits is the size of the bit set that rejects most words before the
// map lookup.
const filterBits = 4096

// detector finds the phrases of a list of patterns, and fixed markers.
type detector struct {
	filter  [filterBits / 64]uint64
	byFirst map[uint64][]*pattern // by hashWord of the first word
	markers []string              // rule-8 markers matched anywhere, without regard to case
}

// patternSpec is a pattern as written: words separated by spaces; a|b
// accepts either; a suffix ? makes a step optional, *N repeats it up to N
// times; _ is any word; PIPE is the token |. notBefore is |-separated;
// notAfter is a list of word sequences.
type patternSpec struct {
	seq       string
	start     bool
	notBefore string
	notAfter  []string
}

func (d *detector) add(k kind, specs []patternSpec) {
	for _, sp := range specs {
		p := &pattern{kind: k, start: sp.start}
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
			h := hashWord(w)
			d.byFirst[h] = append(d.byFirst[h], p)
			d.filter[h%filterBits/64] |= 1 << (h % 64)
		}
	}
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

// find returns every match of the given kinds in text, in order.
func (d *detector) find(text string, kinds kind) []match {
	var out []match
	d.scan(text, kinds, func(m match) bool { out = append(out, m); return true })
	return out
}

// scan calls yield for each match of the given kinds, in order, until it
// returns false. Matches do not overlap. It hashes each word once and
// lower-cases and reads ahead only where a pattern may start, so it costs
// little more than one pass over the bytes.
func (d *detector) scan(text string, kinds kind, yield func(match) bool) {
	var ms []match
	lx := lexer{text: text}
	prev := "" // the token before the current one, not lower-cased
	pos, ls := 0, true
	for {
		t, next, nextLS, ok := nextToken(text, pos, ls)
		if !ok {
			break
		}
		h := hashWord(t.s)
		if d.filter[h%filterBits/64]&(1<<(h%64)) == 0 {
			prev, pos, ls = t.s, next, nextLS
			continue
		}
		cands := d.byFirst[h]
		if cands == nil {
			prev, pos, ls = t.s, next, nextLS
			continue
		}
		t.s = lowerWord(t.s)
		lx.reset(t, next, nextLS)
		end, k := -1, kind(0)
		for _, p := range cands {
			if p.kind&kinds == 0 || !p.steps[0].words[t.s] || (p.start && !t.lineStart) {
				continue
			}
			if p.notBefore != nil && prev != "" && p.notBefore[lowerWord(prev)] {
				continue
			}
			if e := p.match(&lx, 0, 0); e > 0 && !p.excludedAfter(&lx, e) {
				end, k = e, p.kind
				break
			}
		}
		if end < 0 {
			prev, pos, ls = t.s, next, nextLS
			continue
		}
		last := lx.toks[end-1]
		ms = append(ms, match{t.start, last.end, k})
		prev, pos, ls = last.s, lx.next[end-1], lx.nextLS[end-1]
	}
	if kinds&kindInstruction != 0 {
		ms = d.markersIn(text, ms)
	}
	for _, m := range ms {
		if !yield(m) {
			return
		}
	}
}

// match returns the token index just past a match of steps[si:] starting at
// token ti, or -1. Steps are short, so the backtracking is bounded by a
// constant per start position.
func (p *pattern) match(lx *lexer, ti, si int) int {
	if si == len(p.steps) {
		return ti
	}
	st := p.steps[si]
	n := 0
	for n < st.min {
		t, ok := lx.at(ti + n)
		if !ok || (st.words != nil && !st.words[t.s]) {
			return -1
		}
		n++
	}
	for {
		if end := p.match(lx, ti+n, si+1); end >= 0 {
			return end
		}
		if n >= st.max {
			return -1
		}
		t, ok := lx.at(ti + n)
		if !ok || (st.words != nil && !st.words[t.s]) {
			return -1
		}
		n++
	}
}

func (p *pattern) excludedAfter(lx *lexer, end int) bool {
next:
	for _, seq := range p.notAfter {
		for k, w := range seq {
			if t, ok := lx.at(end + k); !ok || t.s != w {
				continue next
			}
		}
		return true
	}
	return false
}

// markersIn adds the fixed markers found in text to ms, keeping ms sorted.
func (d *detector) markersIn(text string, ms []match) []match {
	if len(d.markers) == 0 || !strings.ContainsAny(text, "<[") {
		return ms
	}
	added := false
	for i := 0; i < len(text); i++ {
		if c := text[i]; c != '<' && c != '[' {
			continue
		}
		for _, mk := range d.markers {
			if len(text)-i >= len(mk) && strings.EqualFold(text[i:i+len(mk)], mk) {
				ms = append(ms, match{i, i + len(mk), kindInstruction})
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

// book holds both curated lists.
var book = func() *detector {
	d := &detector{byFirst: map[uint64][]*pattern{}, markers: chatMarkers}
	d.add(kindCertainty, certaintySpecs)
	d.add(kindInstruction, instructionSpecs)
	return d
}()

// certaintySpecs is the curated list for rule 5.
var certaintySpecs = []patternSpec{
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
}

// instructionSpecs is the curated list for rule 8.
var instructionSpecs = []patternSpec{
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
}

// chatMarkers are chat-template tokens (rule 8), matched anywhere.
var chatMarkers = []string{
	"<|im_start|>", "<|im_end|>", "<|system|>", "<|user|>", "<|assistant|>",
	"<|endoftext|>", "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>",
	"[inst]", "[/inst]", "<<sys>>", "<</sys>>", "<start_of_turn>", "<end_of_turn>",
	"<system>", "</system>",
}
