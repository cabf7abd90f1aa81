package email

import (
	"regexp"
	"strings"
)

// StripQuoted returns the new text of a reply: text without the quoted
// message, attribution lines and signature, with blank lines around it
// trimmed and runs of blank lines reduced to one. Kept lines are not
// changed otherwise, so a coordination tag at the start of the first line
// ("[AGREE] ...") survives. It is what [Message.Reply] holds.
//
// The rules, applied line by line (CRLF is read as LF):
//
//   - A quoted line (starting with ">", after optional spaces) is removed
//     wherever it is, so an interleaved reply keeps its answers.
//   - An attribution line is removed when quoted lines follow it (blank
//     lines between allowed): "On <date>, <name> wrote:" as Gmail,
//     Thunderbird and Apple Mail write it, possibly wrapped over two lines,
//     and the same in French, German, Spanish, Italian, Portuguese and
//     Dutch. It must contain a digit (the date), so that a sentence such as
//     "On reflection, I agree with what Ada wrote:" is not taken for one.
//     An attribution that no quoted line follows cuts the text there.
//   - The text is cut at the first of: a signature delimiter ("-- " or
//     "--" alone on a line), a mobile signature ("Sent from my iPhone",
//     "Sent from Mail for Windows", "Get Outlook for iOS"), Outlook's
//     "-----Original Message-----", a line of underscores followed by
//     a "From:" line, "Begin forwarded message:", and a block of quoted
//     header lines ("From:" followed within four lines by two of "Sent:",
//     "Date:", "To:", "Subject:") as Outlook writes above the original.
func StripQuoted(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	var kept []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if isQuoted(line) {
			continue
		}
		if n := attribution(lines, i); n > 0 {
			if quoteFollows(lines, i+n) {
				i += n - 1
				continue
			}
			break
		}
		if cutsHere(lines, i) {
			break
		}
		kept = append(kept, line)
	}
	// Trim blank lines around the text and squeeze runs of them.
	var out []string
	blank := false
	for _, l := range kept {
		if strings.TrimSpace(l) == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func isQuoted(line string) bool {
	return strings.HasPrefix(strings.TrimLeft(line, " \t"), ">")
}

// quoteFollows reports whether the first non-blank line from i on is quoted.
func quoteFollows(lines []string, i int) bool {
	for ; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" {
			continue
		}
		return isQuoted(lines[i])
	}
	return false
}

// attributionStart matches the opening of an attribution line in the
// languages of the common mail clients.
var attributionStart = regexp.MustCompile(`(?i)^\s*(on|le|am|el|il|em|op)\s`)

// attributionEnd matches its end.
var attributionEnd = regexp.MustCompile(`(?i)((wrote|a écrit|escribió|ha scritto|escreveu|schreef)\s*:|\sschrieb\s.*:)\s*$`)

var digit = regexp.MustCompile(`[0-9]`)

// attribution reports how many lines (1 or 2) starting at i form an
// attribution line, or 0.
func attribution(lines []string, i int) int {
	line := lines[i]
	if len(line) > 300 || !attributionStart.MatchString(line) {
		return 0
	}
	if strings.HasSuffix(strings.TrimSpace(line), ":") && attributionEnd.MatchString(line) {
		if digit.MatchString(line) {
			return 1
		}
		return 0
	}
	if i+1 < len(lines) {
		next := lines[i+1]
		if len(next) <= 300 && strings.HasSuffix(strings.TrimSpace(next), ":") && !isQuoted(next) && attributionEnd.MatchString(next) && digit.MatchString(line+next) {
			return 2
		}
	}
	return 0
}

var (
	signature      = regexp.MustCompile(`^--\s?$`)
	mobile         = regexp.MustCompile(`(?i)^\s*(sent from my \S.*|sent from (mail|outlook) for \S.*|get outlook for \S.*|sent from yahoo mail.*|envoyé de mon \S.*|von meinem \S.* gesendet)\s*$`)
	originalMsg    = regexp.MustCompile(`(?i)^\s*-{3,}\s*(original message|ursprüngliche nachricht|message d'origine|mensaje original)\s*-{3,}\s*$`)
	underscores    = regexp.MustCompile(`^\s*_{10,}\s*$`)
	forwarded      = regexp.MustCompile(`(?i)^\s*(begin forwarded message:|-{3,}\s*forwarded message\s*-{3,})\s*$`)
	headerFrom     = regexp.MustCompile(`(?i)^\s*\*?(from|von|de)\s*:\*?\s+\S`)
	headerFollower = regexp.MustCompile(`(?i)^\s*\*?(sent|date|to|subject|gesendet|an|betreff|envoyé|à|objet|enviado|para|asunto)\s*:`)
)

// cutsHere reports whether the text ends before line i.
func cutsHere(lines []string, i int) bool {
	line := lines[i]
	switch {
	case signature.MatchString(line), mobile.MatchString(line), originalMsg.MatchString(line), forwarded.MatchString(line):
		return true
	case underscores.MatchString(line):
		for j := i + 1; j < len(lines) && j <= i+2; j++ {
			if headerLike(lines[j]) && headerFrom.MatchString(lines[j]) {
				return true
			}
		}
	case headerLike(line) && headerFrom.MatchString(line):
		n := 0
		for j := i + 1; j < len(lines) && j <= i+4; j++ {
			if headerLike(lines[j]) && headerFollower.MatchString(lines[j]) {
				n++
			}
		}
		return n >= 2
	}
	return false
}

// headerLike is a quick test before the header regular expressions: a
// colon near the start of the line.
func headerLike(line string) bool {
	i := strings.IndexByte(line, ':')
	return i > 0 && i < 20
}
