package email

import "testing"

func TestHTMLToText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"text", "hello", "hello"},
		{"paragraphs", "<p>one</p><p>two</p>", "one\n\ntwo"},
		{"br and div", "a<br>b<div>c</div>d", "a\nb\nc\nd"},
		{"spaces collapse", "<p>  a \n  b\t c </p>", "a b c"},
		{"inline tags join", "<b>bo</b>ld <i>it</i>", "bold it"},
		{"entities", "&lt;tag&gt; &amp; &quot;q&quot; &#39;s&#39; caf&eacute; &#x2603;", `<tag> & "q" 's' café ☃`},
		{"nbsp", "a&nbsp;&nbsp;b", "a  b"},
		{"head script style dropped", "<html><head><title>T</title><style>p{}</style></head><body><script>x()</script><p>body</p></body></html>", "body"},
		{"script any case", "<SCRIPT type=x>alert(1)</ScRiPt>after", "after"},
		{"unclosed script drops the rest", "before<script>x", "before"},
		{"comment", "a<!-- <p>hidden</p> -->b", "ab"},
		{"doctype", "<!DOCTYPE html>x", "x"},
		{"attribute with >", `<span title="a>b">text</span>`, "text"},
		{"lone less-than", "a < b and 3<4", "a < b and 3<4"},
		{"unterminated tag", "text <p class=", "text"},
		{"blockquote", "answer<blockquote>old<br>older</blockquote>", "answer\n> old\n> older"},
		{"nested blockquote", "<blockquote>a<blockquote>b</blockquote>c</blockquote>", "> a\n>> b\n> c"},
		{"gmail quote", `<div dir="ltr">[AGREE] yes</div><br><div class="gmail_quote"><div class="gmail_attr">On Mon, 3 Nov 2026 at 10:00, Ada &lt;a@x&gt; wrote:<br></div><blockquote class="gmail_quote">old</blockquote></div>`,
			"[AGREE] yes\n\nOn Mon, 3 Nov 2026 at 10:00, Ada <a@x> wrote:\n> old"},
		{"link", `see <a href="https://x.example/r?a=1&amp;b=2">the report</a>.`, "see the report <https://x.example/r?a=1&b=2>."},
		{"link text is url", `<a href="https://x.example/">https://x.example/</a>`, "https://x.example/"},
		{"mailto", `<a href="mailto:a@x.example">a@x.example</a>`, "a@x.example"},
		{"javascript link dropped", `<a href="javascript:alert(1)">click</a>`, "click"},
		{"unquoted href", `<a href=https://x.example>x</a>`, "x <https://x.example>"},
		{"pre keeps lines", "<pre>a\n  b</pre>", "a\nb"},
		{"list", "<ul><li>one</li><li>two</li></ul>", "one\ntwo"},
		{"table", "<table><tr><td>a</td><td>b</td></tr></table>", "a b"},
		{"blank lines squeezed", "<p></p><p></p><p>x</p><br><br><br>y", "x\n\ny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := htmlToText(tt.in); got != tt.want {
				t.Errorf("htmlToText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnflow(t *testing.T) {
	tests := []struct {
		name, in string
		delsp    bool
		want     string
	}{
		{"soft break", "one two \nthree\n", false, "one two three\n"},
		{"delsp", "one two \nthree", true, "one twothree"},
		{"hard break", "one\ntwo", false, "one\ntwo"},
		{"signature kept", "text\n-- \nsig", false, "text\n-- \nsig"},
		{"space stuffing", " >not a quote\n From here", false, ">not a quote\nFrom here"},
		{"quoted flowed", "> a \n> b\nc", false, "> a b\nc"},
		{"quote depth change ends paragraph", "> a \n>> b", false, "> a \n>> b"},
	}
	for _, tt := range tests {
		if got := unflow(tt.in, tt.delsp); got != tt.want {
			t.Errorf("%s: unflow(%q, %v) = %q, want %q", tt.name, tt.in, tt.delsp, got, tt.want)
		}
	}
}
