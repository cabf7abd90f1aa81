package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/smtptest"
	"github.com/predictions-md/predictions/people/peopletest"
)

// page sends a form (or nothing) to serve's pages with the session
// cookie, if any, and returns the answer with its body read.
func page(t *testing.T, method, u, cookie string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "__Host-predictions_session", Value: cookie})
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// sessionOf is the session cookie an answer sets.
func sessionOf(t *testing.T, res *http.Response) string {
	t.Helper()
	for _, c := range res.Cookies() {
		if c.Name == "__Host-predictions_session" && c.Value != "" {
			return c.Value
		}
	}
	t.Fatalf("%s: no session cookie set (%d)", res.Request.URL.Path, res.StatusCode)
	return ""
}

// TestPersonEmailEndToEnd: in serve with --smtp-url, a person registers
// with a passkey, adds an address on their page and confirms it through
// the API's confirmation link (the same double opt-in as an agent's),
// signs in by a link that arrives over SMTP, and gets the new replies
// of the question they follow.
func TestPersonEmailEndToEnd(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	base := startMailServe(t, filepath.Join(t.TempDir(), "p.db"), srv)

	res, out := page(t, "POST", base+"/signin/register/begin", "", url.Values{"person_id": {"ada"}, "name": {"Ada"}})
	var c struct {
		Options json.RawMessage `json:"options"`
		Token   string          `json:"token"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || res.StatusCode != 200 {
		t.Fatalf("register begin: %d %s", res.StatusCode, out)
	}
	_, answer, err := peopletest.Create(boardBase, c.Options)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", base+"/signin/register/finish?token="+url.QueryEscape(c.Token), bytes.NewReader(answer))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	session := sessionOf(t, res)

	if res, out := page(t, "POST", base+"/agents/ada/email", session, url.Values{"email": {"Ada <ada@people.example>"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add an address: %d %s", res.StatusCode, out)
	}
	confirmByMail(t, base, srv, 1)
	if _, out := page(t, "GET", base+"/agents/ada", session, nil); !strings.Contains(out, "<code>ada@people.example</code>") {
		t.Errorf("ada's page does not show her confirmed address")
	}

	// Signed out, she asks for a link; it comes over SMTP.
	if res, _ := page(t, "POST", base+"/signin/email", "", url.Values{"email": {"ada@people.example"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ask a link: %d", res.StatusCode)
	}
	msgs := srv.Wait(2, 30*time.Second)
	if len(msgs) != 2 || msgs[1].To[0] != "ada@people.example" || msgs[1].Header("Subject") != "Your sign-in link for ada" {
		t.Fatalf("messages %d; want the sign-in link to ada@people.example second", len(msgs))
	}
	pm, err := email.Parse(bytes.NewReader(msgs[1].Data))
	if err != nil {
		t.Fatal(err)
	}
	l := regexp.MustCompile(regexp.QuoteMeta(boardBase) + `/signin/link\?token=([A-Za-z0-9_-]+)`).FindStringSubmatch(pm.Text)
	if l == nil {
		t.Fatalf("no link in:\n%s", pm.Text)
	}
	res, _ = page(t, "POST", base+"/signin/link", "", url.Values{"token": {l[1]}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/agents/ada" {
		t.Fatalf("sign in by link: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	session = sessionOf(t, res)

	// She follows an agent's question; another agent's reply reaches her.
	created := call(t, "POST", base+"/api/predictions", "bob", map[string]any{"agent_id": "bob", "title": "Snow in Oslo in May",
		"body": "Late cold spell.", "confidence": 0.3, "timeframe": "by 2027-06-01", "domain": "Climate"}, 201)
	pid := created["prediction_id"].(string)
	if res, _ := page(t, "POST", base+"/predictions/"+pid+"/follow", session, url.Values{"on": {"1"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("follow: %d", res.StatusCode)
	}
	call(t, "POST", base+"/api/predictions/"+pid+"/threads", "cy", map[string]any{"agent_id": "cy", "body": "Seen it in 2021."}, 201)
	msgs = srv.Wait(3, 30*time.Second)
	if len(msgs) != 3 || msgs[2].To[0] != "ada@people.example" || !strings.Contains(msgs[2].Header("Subject"), "Snow in Oslo in May") {
		t.Fatalf("messages %d; want the reply's notification to ada third", len(msgs))
	}
}
