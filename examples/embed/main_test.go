package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

// The example listens on a free port; the test reads the address from its
// first line, fetches pages through the prefix and checks that every link
// the API publishes stays under /forecast/.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"-addr", "127.0.0.1:0"}, pw)
		pw.Close()
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the first line: %v", err)
	}
	go io.Copy(io.Discard, pr)
	addr, _, _ := strings.Cut(strings.TrimPrefix(line, "listening on "), ";")
	base := "http://" + addr

	var got strings.Builder
	got.WriteString(line)
	get := func(path string) (int, http.Header, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, resp.Header, string(b)
	}

	// Your own page, next to the API.
	code, _, body := get("/")
	fmt.Fprintf(&got, "\nGET / %d\n%s", code, body)

	// A tool through the prefix, and an error whose docs link keeps it.
	code, _, body = get("/forecast/api/v1/convert_odds?value=%2B150")
	var res struct {
		Summary string `json:"summary"`
		Terms   string `json:"terms"`
	}
	decode(t, body, &res)
	fmt.Fprintf(&got, "\nGET /forecast/api/v1/convert_odds?value=%%2B150 %d\n%s\nterms: %s\n", code, res.Summary, res.Terms)
	code, _, body = get("/forecast/api/v1/convert_odds?value=x")
	var problem struct{ Error, Docs string }
	decode(t, body, &problem)
	fmt.Fprintf(&got, "\nGET /forecast/api/v1/convert_odds?value=x %d\nerror: %s\ndocs: %s\n", code, problem.Error, problem.Docs)

	// openapi.json: the server address carries the prefix.
	code, _, body = get("/forecast/openapi.json")
	var doc struct {
		Servers []struct{ URL string } `json:"servers"`
	}
	decode(t, body, &doc)
	fmt.Fprintf(&got, "\nGET /forecast/openapi.json %d\nservers: %v\n", code, doc.Servers)

	// Every absolute link of llms.txt, the manifest, the landing page and
	// the skill file points under the prefix.
	for _, path := range []string{"/forecast/llms.txt", "/forecast/.well-known/predictions.json", "/forecast/", "/forecast/predictions.md"} {
		code, _, body = get(path)
		links := 0
		for _, u := range urlRe(base).FindAllString(body, -1) {
			links++
			if !strings.HasPrefix(u, base+"/forecast/") && u != base+"/forecast" {
				t.Errorf("%s links to %s, outside the prefix", path, u)
			}
		}
		if links == 0 {
			t.Errorf("%s has no link to %s", path, base)
		}
		fmt.Fprintf(&got, "\nGET %s %d: every link to the server is under /forecast/\n", path, code)
	}

	// /forecast without the slash is redirected to /forecast/ by ServeMux.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(base + "/forecast")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	fmt.Fprintf(&got, "\nGET /forecast %d Location: %s\n", resp.StatusCode, resp.Header.Get("Location"))

	cancel()
	if err := <-done; err != nil {
		t.Errorf("run returned %v after the context was cancelled, want nil", err)
	}
	exampletest.Golden(t, "run.txt", exampletest.Normalize(got.String(), base, addr))
}

func decode(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("decoding %q: %v", body, err)
	}
}

// urlRe matches the absolute links to the server at base.
func urlRe(base string) *regexp.Regexp {
	return regexp.MustCompile(regexp.QuoteMeta(base) + `[^\s"'<>)\x60]*`)
}
