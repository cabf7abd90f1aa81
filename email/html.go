package email

import (
	"html"
	"strings"
)

// htmlToText turns an HTML body into plain text, crudely but safely: it
// never executes or fetches anything, it only drops markup. Tags are
// removed; the contents of head, script, style, title and template are
// dropped; block elements and <br> end lines; runs of spaces collapse as a
// browser would; entities are decoded; the lines inside <blockquote> are
// prefixed with "> " so that [StripQuoted] removes them like quoted plain
// text. A link to an http, https or mailto URL is written as its text
// followed by the URL in angle brackets, unless the text is the URL.
func htmlToText(s string) string {
	c := htmlConv{}
	i := 0
	for i < len(s) {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			c.text(s[i:])
			break
		}
		c.text(s[i : i+lt])
		i += lt
		switch {
		case strings.HasPrefix(s[i:], "<!--"):
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				i = len(s)
			} else {
				i += 4 + end + 3
			}
			continue
		case strings.HasPrefix(s[i:], "<!") || strings.HasPrefix(s[i:], "<?"):
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				i = len(s)
			} else {
				i += end + 1
			}
			continue
		}
		name, closing, end, ok := readTag(s, i)
		if ok && name == "a" && !closing {
			c.href = attr(s[i:end], "href")
			c.linkText.Reset()
		}
		if !ok {
			// A "<" that starts no tag ("a < b") is text.
			c.text("<")
			i++
			continue
		}
		i = end
		if !closing && skipContent[name] {
			// Drop everything up to the closing tag.
			if j := indexFold(s[i:], "</"+name); j >= 0 {
				i += j
				if k := strings.IndexByte(s[i:], '>'); k >= 0 {
					i += k + 1
				} else {
					i = len(s)
				}
			} else {
				i = len(s)
			}
			continue
		}
		c.tag(name, closing)
	}
	return c.finish()
}

// readTag reads the tag starting at s[i] == '<'. It returns the lowercase
// name, whether it is a closing tag and the index after '>'; quoted
// attribute values may contain '>'.
func readTag(s string, i int) (name string, closing bool, end int, ok bool) {
	j := i + 1
	if j < len(s) && s[j] == '/' {
		closing = true
		j++
	}
	start := j
	for j < len(s) && (isAlpha(s[j]) || (j > start && (s[j] >= '0' && s[j] <= '9' || s[j] == '-' || s[j] == ':'))) {
		j++
	}
	if j == start {
		return "", false, 0, false
	}
	name = strings.ToLower(s[start:j])
	var quote byte
	for ; j < len(s); j++ {
		switch b := s[j]; {
		case quote != 0:
			if b == quote {
				quote = 0
			}
		case b == '"' || b == '\'':
			quote = b
		case b == '>':
			return name, closing, j + 1, true
		}
	}
	return name, closing, len(s), true // unterminated tag: drop the rest
}

func isAlpha(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// indexFold is strings.Index of a lowercase sub that starts with "</",
// ignoring the case of s. It scans s once, without copying it.
func indexFold(s, sub string) int {
	for i := 0; ; {
		j := strings.Index(s[i:], "</")
		if j < 0 {
			return -1
		}
		i += j
		if len(s)-i >= len(sub) && strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
		i += 2
	}
}

var skipContent = map[string]bool{"head": true, "script": true, "style": true, "title": true, "template": true}

var blockTags = map[string]bool{
	"p": true, "div": true, "br": true, "hr": true, "li": true, "ul": true, "ol": true,
	"tr": true, "table": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true,
	"h6": true, "pre": true, "blockquote": true, "dl": true, "dt": true, "dd": true,
	"section": true, "article": true, "header": true, "footer": true, "body": true, "html": true,
	"address": true, "center": true,
}

// htmlConv accumulates lines with the blockquote depth at which each began.
type htmlConv struct {
	lines []string
	cur   strings.Builder
	depth int // blockquote nesting now
	start int // depth when cur began
	pre   int // <pre> nesting
	space bool
	// The open link: its href and the text written since it opened.
	href     string
	linkText strings.Builder
}

func (c *htmlConv) text(t string) {
	if t == "" {
		return
	}
	t = html.UnescapeString(t)
	if c.pre > 0 {
		for k, part := range strings.Split(t, "\n") {
			if k > 0 {
				c.newline()
			}
			c.write(part)
		}
		return
	}
	for _, r := range t {
		switch r {
		case ' ', '\t', '\n', '\r', '\f', '\u00a0':
			if r == '\u00a0' && c.cur.Len() > 0 {
				// A non-breaking space is a space, not collapsed away.
				c.write(" ")
				continue
			}
			c.space = true
		default:
			if c.space && c.cur.Len() > 0 {
				c.write(" ")
			}
			c.space = false
			c.write(string(r))
		}
	}
}

func (c *htmlConv) write(s string) {
	if c.cur.Len() == 0 {
		c.start = c.depth
	}
	c.cur.WriteString(s)
	if c.href != "" {
		c.linkText.WriteString(s)
	}
}

func (c *htmlConv) newline() {
	line := strings.TrimRight(c.cur.String(), " ")
	if c.start > 0 && line != "" {
		line = strings.Repeat(">", c.start) + " " + line
	}
	c.lines = append(c.lines, line)
	c.cur.Reset()
	c.start = c.depth
	c.space = false
}

func (c *htmlConv) tag(name string, closing bool) {
	if blockTags[name] {
		// A block boundary ends the current line (once).
		if c.cur.Len() > 0 || name == "br" {
			c.newline()
		}
	}
	switch name {
	case "blockquote":
		if closing {
			if c.depth > 0 {
				c.depth--
			}
		} else {
			c.depth++
		}
	case "pre":
		if closing {
			if c.pre > 0 {
				c.pre--
			}
		} else {
			c.pre++
		}
	case "p", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol":
		if closing {
			c.lines = append(c.lines, "") // paragraph spacing
		}
	case "td", "th":
		if closing {
			c.write(" ")
		}
	case "a":
		if closing && c.href != "" {
			href, text := c.href, strings.TrimSpace(c.linkText.String())
			c.href = ""
			c.linkText.Reset()
			if text != href && strings.TrimPrefix(href, "mailto:") != text {
				c.write(" <" + href + ">")
			}
		}
	}
	if c.cur.Len() == 0 {
		c.start = c.depth
	}
}

// finish ends the last line, trims each line and keeps at most one blank
// line in a row.
func (c *htmlConv) finish() string {
	if c.cur.Len() > 0 {
		c.newline()
	}
	var out []string
	blank := true
	for _, l := range c.lines {
		l = strings.TrimSpace(l)
		if l == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, l)
		blank = false
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// attr returns the value of the attribute name in the tag text t
// ("<a href=...>"), entity-decoded, if it is an http, https or mailto URL
// without spaces; otherwise "".
func attr(t, name string) string {
	lower := strings.ToLower(t)
	for from := 0; ; {
		k := strings.Index(lower[from:], name)
		if k < 0 {
			return ""
		}
		k += from
		from = k + len(name)
		if k == 0 || !strings.ContainsRune(" \t\n\r\f", rune(lower[k-1])) {
			continue
		}
		rest := strings.TrimLeft(t[from:], " \t\n\r\f")
		if !strings.HasPrefix(rest, "=") {
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t\n\r\f")
		var v string
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			end := strings.IndexByte(rest[1:], rest[0])
			if end < 0 {
				return ""
			}
			v = rest[1 : 1+end]
		} else {
			end := strings.IndexAny(rest, " \t\n\r\f>")
			if end < 0 {
				end = len(rest)
			}
			v = rest[:end]
		}
		v = strings.TrimSpace(html.UnescapeString(v))
		l := strings.ToLower(v)
		if strings.ContainsAny(v, " \t\n\r<>") || !(strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "mailto:")) {
			return ""
		}
		return v
	}
}
