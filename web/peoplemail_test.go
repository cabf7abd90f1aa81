package web_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/outbox"
	"github.com/predictions-md/predictions/people"
	"github.com/predictions-md/predictions/web"
)

var _ web.PeopleMail = (*people.Store)(nil)

// mailSite is a people's site that sends e-mail: the board's e-mail
// recorder queues into an outbox, which the test reads.
type mailSite struct {
	*peopleSite
	box *outbox.Outbox
	mb  *mailbox.Box
}

func newMailSite(t testing.TB) *mailSite {
	t.Helper()
	ctx := context.Background()
	f := seed(t)
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	base := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	box, err := outbox.Open(ctx, f.store.WriteDB(), outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	from := mail.Address{Name: "Board", Address: "board@example.org"}
	m, err := notify.NewMail(box, from, base)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := mailbox.Open(ctx, f.store, mailbox.Options{From: from, BaseURL: base, Recorder: m})
	if err != nil {
		t.Fatal(err)
	}
	f.store.SetRecorder(m)
	ppl, err := people.Open(ctx, f.store, people.Options{Mail: mb, Mailer: m})
	if err != nil {
		t.Fatal(err)
	}
	m.SetFollows(ppl)
	h = web.New(web.Options{Board: f.store, People: ppl, Writer: f.store, PeopleMail: ppl, BaseURL: base, Now: f.clock.Now})
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &mailSite{peopleSite: &peopleSite{fixture: f, ppl: ppl, srv: srv, base: base, client: client}, box: box, mb: mb}
}

// sent is a message the outbox holds, read back.
type sent struct {
	To, Topic, Subject, Text string
}

// mails takes the e-mail queued since the last call.
func (ms *mailSite) mails(t testing.TB) []sent {
	t.Helper()
	ctx := context.Background()
	msgs, err := ms.box.Claim(ctx, outbox.Email, 100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var out []sent
	for _, m := range msgs {
		p, err := email.Parse(bytes.NewReader(m.Payload))
		if err != nil {
			t.Fatalf("queued message %s: %v", m.ID, err)
		}
		out = append(out, sent{To: m.Recipient, Topic: m.Topic, Subject: p.Subject, Text: p.Text})
		if err := ms.box.MarkSent(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

var tokenRE = regexp.MustCompile(`\?token=([A-Za-z0-9_-]+)`)

// onlyLink is the token of the link in the one message queued, to addr.
func (ms *mailSite) onlyLink(t testing.TB, addr, path string) string {
	t.Helper()
	got := ms.mails(t)
	if len(got) != 1 || got[0].To != addr {
		t.Fatalf("queued %+v; want one message to %s", got, addr)
	}
	if !strings.Contains(got[0].Text, ms.base+path+"?token=") {
		t.Fatalf("the message to %s has no link to %s:\n%s", addr, path, got[0].Text)
	}
	return tokenRE.FindStringSubmatch(got[0].Text)[1]
}

// addConfirmed adds addr on the signed-in person's page and confirms it
// with the token of its confirmation message, as its link's page does.
func (ms *mailSite) addConfirmed(t testing.TB, id, addr string) {
	t.Helper()
	body, h := form("email", addr)
	res, out := ms.do(t, "POST", "/agents/"+id+"/email", body, h)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/agents/"+id+"?email=sent#email" {
		t.Fatalf("add e-mail: %d to %q %s", res.StatusCode, res.Header.Get("Location"), out)
	}
	tok := ms.onlyLink(t, addr, "/api/agents/"+id+"/email/confirm")
	if _, err := ms.mb.ConfirmEmail(context.Background(), id, tok); err != nil {
		t.Fatalf("confirming %s for %s: %v", addr, id, err)
	}
}

// askLink asks for a sign-in link to addr and returns the answer.
func (ms *mailSite) askLink(t testing.TB, addr string) (*http.Response, string) {
	t.Helper()
	body, h := form("email", addr)
	return ms.do(t, "POST", "/signin/email", body, h)
}

func (ms *mailSite) signOut(t testing.TB) {
	t.Helper()
	body, h := form()
	if res, _ := ms.do(t, "POST", "/signout", body, h); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out: %d", res.StatusCode)
	}
}

// TestPersonEmailSignIn: a person adds and confirms an address on their
// page, and signs in by a one-time link sent to it; the link works once,
// within its time, and asking reveals nothing about the address.
func TestPersonEmailSignIn(t *testing.T) {
	ms := newMailSite(t)
	ms.register(t, "ada", "Ada")
	_, page := ms.do(t, "GET", "/agents/ada", nil, nil)
	if !strings.Contains(page, `id="email"`) || !strings.Contains(page, `action="/agents/ada/email"`) {
		t.Fatalf("ada's page has no form to add an address")
	}
	// The confirmation message links to the API's confirmation page;
	// confirming there makes the address the person's.
	ms.addConfirmed(t, "ada", "ada@example.org")
	_, page = ms.do(t, "GET", "/agents/ada", nil, nil)
	if !strings.Contains(page, "Your confirmed address is <code>ada@example.org</code>") {
		t.Errorf("ada's page does not show the confirmed address")
	}
	if a, _ := ms.store.Agent(context.Background(), "ada"); a.Name != "Ada" || a.Kind != board.KindPerson {
		t.Errorf("after adding an address ada is %+v; want the person named Ada", a)
	}
	// The refusals of the form: another's page, a bad address, a
	// cross-site post.
	for _, c := range []struct {
		name, path, addr, site string
		status                 int
		want                   string
	}{
		{"another's page", "/agents/oracle-1/email", "x@example.org", "", 403, "your own page"},
		{"not an address", "/agents/ada/email", "ada at example", "", 400, "email "},
		{"cross-site", "/agents/ada/email", "x@example.org", "cross-site", 403, "another site"},
	} {
		body, h := form("email", c.addr)
		if c.site != "" {
			h.Set("Sec-Fetch-Site", c.site)
		}
		if res, out := ms.do(t, "POST", c.path, body, h); res.StatusCode != c.status || !strings.Contains(out, c.want) {
			t.Errorf("%s: %d, want %d with %q", c.name, res.StatusCode, c.status, c.want)
		}
	}
	if got := ms.mails(t); len(got) != 0 {
		t.Errorf("refused forms queued %+v", got)
	}

	// An agent with a confirmed address, for the refusal below.
	if _, err := ms.mb.Register(context.Background(), mailbox.Registration{AgentID: "skeptic", Email: "skeptic@example.org"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ms.mb.ConfirmEmail(context.Background(), "skeptic", ms.onlyLink(t, "skeptic@example.org", "/api/agents/skeptic/email/confirm")); err != nil {
		t.Fatal(err)
	}

	ms.signOut(t)
	_, page = ms.do(t, "GET", "/signin", nil, nil)
	if !strings.Contains(page, `id="email-link"`) || !strings.Contains(page, `action="/signin/email"`) {
		t.Fatalf("the sign-in page offers no link by e-mail")
	}
	// The same answer for a person's address (any case), an unknown one
	// and an agent's; only the person's gets a message.
	for _, addr := range []string{"ADA@example.org", "nobody@example.org", "skeptic@example.org"} {
		res, _ := ms.askLink(t, addr)
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/signin?link=sent#email-link" {
			t.Errorf("ask a link for %s: %d to %q; want 303 to /signin?link=sent#email-link", addr, res.StatusCode, res.Header.Get("Location"))
		}
	}
	token := ms.onlyLink(t, "ada@example.org", "/signin/link")
	if res, _ := ms.askLink(t, "not an address"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("ask a link for a non-address: %d, want 400", res.StatusCode)
	}
	body, h := form("email", "ada@example.org")
	h.Set("Sec-Fetch-Site", "cross-site")
	if res, _ := ms.do(t, "POST", "/signin/email", body, h); res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site ask: %d, want 403", res.StatusCode)
	}

	// The link's GET is a page with a button; it signs nobody in.
	res, page := ms.do(t, "GET", "/signin/link?token="+token, nil, nil)
	if res.StatusCode != 200 || !strings.Contains(page, `name="token" value="`+token+`"`) || res.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("link page: %d, Referrer-Policy %q; want 200 with the token in the form, no referrer", res.StatusCode, res.Header.Get("Referrer-Policy"))
	}
	if len(ms.client.Jar.Cookies(mustURL(ms.base))) != 0 {
		t.Fatalf("the link's GET signed in")
	}
	body, h = form("token", token)
	h.Set("Sec-Fetch-Site", "cross-site")
	if res, _ := ms.do(t, "POST", "/signin/link", body, h); res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site sign-in by link: %d, want 403", res.StatusCode)
	}
	body, h = form("token", token)
	res, _ = ms.do(t, "POST", "/signin/link", body, h)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/agents/ada" ||
		!strings.Contains(res.Header.Get("Set-Cookie"), "predictions_session=") || !strings.Contains(res.Header.Get("Set-Cookie"), "HttpOnly") {
		t.Fatalf("sign in by link: %d to %q, Set-Cookie %q", res.StatusCode, res.Header.Get("Location"), res.Header.Get("Set-Cookie"))
	}
	if _, page = ms.do(t, "GET", "/agents/ada", nil, nil); !strings.Contains(page, `id="following"`) {
		t.Errorf("after the link, ada's page is not her own")
	}
	ms.signOut(t)

	// Used once; expired after 15 minutes; a token never sent.
	body, h = form("token", token)
	if res, out := ms.do(t, "POST", "/signin/link", body, h); res.StatusCode != 400 || !strings.Contains(out, "used already") {
		t.Errorf("the link again: %d, want 400 saying it was used", res.StatusCode)
	}
	ms.askLink(t, "ada@example.org")
	late := ms.onlyLink(t, "ada@example.org", "/signin/link")
	ms.clock.Advance(people.LinkTTL + time.Second)
	body, h = form("token", late)
	if res, out := ms.do(t, "POST", "/signin/link", body, h); res.StatusCode != 400 || !strings.Contains(out, "expired") {
		t.Errorf("a link after %v: %d, want 400 saying it expired", people.LinkTTL, res.StatusCode)
	}
	body, h = form("token", "never-sent")
	if res, out := ms.do(t, "POST", "/signin/link", body, h); res.StatusCode != 400 || !strings.Contains(out, "not a sign-in link") {
		t.Errorf("a made-up token: %d, want 400", res.StatusCode)
	}
	if len(ms.client.Jar.Cookies(mustURL(ms.base))) != 0 {
		t.Errorf("a refused link signed in")
	}

	// The cap per address and hour, alike for a known and an unknown
	// address: ada's has 2 links this hour, nobody's 1.
	for _, c := range []struct {
		addr  string
		asked int
	}{{"ada@example.org", 2}, {"nobody@example.org", 1}} {
		for i := c.asked; i < people.MaxLinksPerAddress; i++ {
			if res, _ := ms.askLink(t, c.addr); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("link %d for %s: %d, want 303", i+1, c.addr, res.StatusCode)
			}
		}
		res, out := ms.askLink(t, c.addr)
		if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(out, "the limit is 5") {
			t.Errorf("link %d for %s: %d, Retry-After %q; want 429 naming the limit", people.MaxLinksPerAddress+1, c.addr, res.StatusCode, res.Header.Get("Retry-After"))
		}
	}
	ms.mails(t)
	ms.clock.Advance(people.LinkWindow)
	if res, _ := ms.askLink(t, "ada@example.org"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a link an hour later: %d, want 303", res.StatusCode)
	}
	ms.onlyLink(t, "ada@example.org", "/signin/link")
}

// TestFollowByEmail: a person with a confirmed address who follows a
// question gets its new replies by e-mail, but not their own.
func TestFollowByEmail(t *testing.T) {
	ms := newMailSite(t)
	ctx := context.Background()
	ms.register(t, "ada", "Ada")
	ms.addConfirmed(t, "ada", "ada@example.org")
	q := "/predictions/" + ms.thread
	body, h := form("on", "1")
	if res, _ := ms.do(t, "POST", q+"/follow", body, h); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("follow: %d", res.StatusCode)
	}
	if _, err := ms.store.Reply(ctx, ms.thread, board.NewReply{AgentID: "newcomer", Body: "A new reply to follow."}); err != nil {
		t.Fatal(err)
	}
	var mine []sent
	for _, m := range ms.mails(t) {
		if m.To == "ada@example.org" {
			mine = append(mine, m)
		}
	}
	if len(mine) != 1 || mine[0].Topic != ms.thread || !strings.Contains(mine[0].Text, "A new reply to follow.") {
		t.Fatalf("ada got %+v; want the new reply of the question she follows", mine)
	}
	// Unfollowed, she gets no more.
	body, h = form("on", "0")
	if res, _ := ms.do(t, "POST", q+"/follow", body, h); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("unfollow: %d", res.StatusCode)
	}
	if _, err := ms.store.Reply(ctx, ms.thread, board.NewReply{AgentID: "newcomer", Body: "After the unfollow."}); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms.mails(t) {
		if m.To == "ada@example.org" {
			t.Errorf("ada got a reply after she stopped following: %+v", m)
		}
	}
	// Following again, her own reply is not sent to her (and from then
	// on she follows the thread by taking part, as an agent does).
	body, h = form("on", "1")
	ms.do(t, "POST", q+"/follow", body, h)
	body, h = form("body", "My own reply.")
	if res, _ := ms.do(t, "POST", q+"/replies", body, h); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reply: %d", res.StatusCode)
	}
	for _, m := range ms.mails(t) {
		if m.To == "ada@example.org" {
			t.Errorf("ada was sent her own reply: %+v", m)
		}
	}
	// Following and taking part, she gets each reply once.
	if _, err := ms.store.Reply(ctx, ms.thread, board.NewReply{AgentID: "newcomer", Body: "Once only."}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range ms.mails(t) {
		if m.To == "ada@example.org" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("ada got %d messages of one reply, want 1", n)
	}
	// The resolution, and its correction, reach her too.
	for _, o := range []board.Outcome{board.OutcomeNo, board.OutcomeYes} {
		if _, err := ms.store.Resolve(ctx, ms.thread, board.NewResolution{Outcome: o, By: "Mod"}); err != nil {
			t.Fatal(err)
		}
		var got []sent
		for _, m := range ms.mails(t) {
			if m.To == "ada@example.org" {
				got = append(got, m)
			}
		}
		if len(got) != 1 || !strings.Contains(got[0].Text, "Mod resolved the prediction") || !strings.Contains(got[0].Text, "Outcome: "+string(o)+".") {
			t.Errorf("resolved %s: ada got %+v; want one message with the outcome", o, got)
		}
	}
}

// TestNoMail: a server that sends no e-mail offers neither the link nor
// the address form, and refuses their posts.
func TestNoMail(t *testing.T) {
	ps := newPeopleSite(t)
	ps.register(t, "bo", "")
	if _, page := ps.do(t, "GET", "/agents/bo", nil, nil); strings.Contains(page, `id="email"`) {
		t.Errorf("bo's page offers an address without e-mail")
	}
	if _, page := ps.do(t, "GET", "/signin", nil, nil); strings.Contains(page, `action="/signin/email"`) {
		t.Errorf("the sign-in page offers a link without e-mail")
	}
	for _, path := range []string{"/signin/email", "/signin/link", "/agents/bo/email"} {
		body, h := form("email", "bo@example.org")
		if res, _ := ps.do(t, "POST", path, body, h); res.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s without e-mail: %d, want 404", path, res.StatusCode)
		}
	}
}

// TestLinkTwoTabs: the same link posted twice at once signs in once.
func TestLinkTwoTabs(t *testing.T) {
	ms := newMailSite(t)
	ms.register(t, "ada", "Ada")
	ms.addConfirmed(t, "ada", "ada@example.org")
	ms.signOut(t)
	ms.askLink(t, "ada@example.org")
	token := ms.onlyLink(t, "ada@example.org", "/signin/link")
	codes := make(chan int, 2)
	for range 2 {
		go func() {
			req, _ := http.NewRequest("POST", ms.srv.URL+"/signin/link", strings.NewReader("token="+token))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			res, err := ms.client.Do(req)
			if err != nil {
				codes <- 0
				return
			}
			res.Body.Close()
			codes <- res.StatusCode
		}()
	}
	got := map[int]int{}
	for range 2 {
		got[<-codes]++
	}
	if got[http.StatusSeeOther] != 1 || got[http.StatusBadRequest] != 1 {
		t.Errorf("two posts of one link: %v; want one 303 and one 400", got)
	}
}

// TestFollowCloseByEmail: a followed question's close reaches the
// person by e-mail, once.
func TestFollowCloseByEmail(t *testing.T) {
	ms := newMailSite(t)
	ctx := context.Background()
	ms.register(t, "cal", "Cal")
	ms.addConfirmed(t, "cal", "cal@example.org")
	p, err := ms.store.CreatePrediction(ctx, board.NewPrediction{AgentID: "scout", Title: "Will the ferry run on Sunday?",
		Body: "The operator's timetable.", Confidence: ptr(0.7), Timeframe: "this week", Domain: "Other",
		CloseAt: ms.clock.Now().Add(time.Hour).Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	body, h := form("on", "1")
	if res, _ := ms.do(t, "POST", "/predictions/"+p.ID+"/follow", body, h); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("follow: %d", res.StatusCode)
	}
	ms.mails(t) // what came before
	ms.clock.Advance(2 * time.Hour)
	for range 2 { // announced once, however often the loop runs
		if _, err := ms.store.AnnounceCloses(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var got []sent
	for _, m := range ms.mails(t) {
		if m.To == "cal@example.org" {
			got = append(got, m)
		}
	}
	if len(got) != 1 || got[0].Topic != p.ID || !strings.Contains(got[0].Text, "closed: it takes no more forecasts") {
		t.Errorf("cal got %+v; want one message of the close", got)
	}
}
