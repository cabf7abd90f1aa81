package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
)

// llmsLink is a line of an llms.txt section: a Markdown link, then
// optionally ": " and a note (llmstxt.org).
var llmsLink = regexp.MustCompile(`^- \[[^\]]+\]\((https?://[^)\s]+)\)(: .+)?$`)

// checkLLMsShape returns what breaks the llmstxt.org layout in text: an H1
// first, then a block-quote summary, then paragraphs without headings,
// then H2 sections holding only lists of links.
func checkLLMsShape(text string) []string {
	var bad []string
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "# ") || lines[1] != "" || !strings.HasPrefix(lines[2], "> ") {
		return []string{"does not start with an H1, a blank line and a block-quote summary"}
	}
	inSection := false
	for i, l := range lines[3:] {
		n := i + 4
		switch {
		case strings.HasPrefix(l, "## "):
			inSection = true
		case strings.HasPrefix(l, "#"):
			bad = append(bad, fmt.Sprintf("line %d: a heading other than H2: %s", n, l))
		case l == "":
		case inSection && !llmsLink.MatchString(l):
			bad = append(bad, fmt.Sprintf("line %d: not a link list item in a section: %s", n, l))
		}
	}
	if !inSection {
		bad = append(bad, "no H2 section of links")
	}
	return bad
}

// TestLLMsTxtShape checks llms.txt against the llmstxt.org layout, with
// and without a board, and that every section it links exists in
// llms-full.txt.
func TestLLMsTxtShape(t *testing.T) {
	for _, tt := range []struct {
		name string
		opt  httpapi.Options
	}{
		{"tools", httpapi.Options{Logger: apitest.Discard}},
		{"board", httpapi.Options{Logger: apitest.Discard, Board: boardapi.New(boardapi.Options{Store: apitest.OpenStore(t)})}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(httpapi.New(tt.opt))
			defer ts.Close()
			short, full := fetch(t, ts.URL+"/llms.txt"), fetch(t, ts.URL+"/llms-full.txt")
			for _, b := range checkLLMsShape(short) {
				t.Error(b)
			}
			headings := map[string]bool{}
			for _, l := range strings.Split(full, "\n") {
				if h, ok := strings.CutPrefix(l, "## "); ok {
					headings[h] = true
				}
			}
			n := 0
			for _, l := range strings.Split(short, "\n") {
				m := llmsLink.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				if _, anchor, ok := strings.Cut(m[1], "/llms-full.txt#"); ok {
					n++
					if !headings[anchor] {
						t.Errorf("llms.txt links llms-full.txt#%s, which has no such section", anchor)
					}
				}
			}
			if n == 0 {
				t.Errorf("llms.txt links no section of llms-full.txt")
			}
			if tt.name == "board" && !strings.Contains(short, "## Board") {
				t.Errorf("llms.txt of a server with a board has no Board section")
			}
		})
	}
	t.Run("bad shapes are found", func(t *testing.T) {
		for _, text := range []string{
			"no title\n",
			"# t\n\n> s\n\n## S\n\nprose in a section\n",
			"# t\n\n> s\n\n### deep\n",
			"# t\n\n> s\n\nonly prose\n",
		} {
			if len(checkLLMsShape(text)) == 0 {
				t.Errorf("checkLLMsShape(%q) found nothing", text)
			}
		}
	})
}

func fetch(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return string(b)
}
