package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/people"
	"github.com/predictions-md/predictions/people/peopletest"
	"github.com/predictions-md/predictions/web"
)

// The people's store satisfies the pages' interface, and the board the
// writer's.
var (
	_ web.People = (*people.Store)(nil)
	_ web.Writer = (*board.Store)(nil)
)

// peopleSite is the pages over a seeded board with people, served at
// http://localhost:<port> (a passkey's relying party must be a host
// name), and a client with a cookie jar.
type peopleSite struct {
	*fixture
	ppl    *people.Store
	srv    *httptest.Server
	base   string
	client *http.Client
}

func newPeopleSite(t testing.TB) *peopleSite {
	t.Helper()
	f := seed(t)
	ppl, err := people.Open(context.Background(), f.store, people.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	base := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	h = web.New(web.Options{Board: f.store, People: ppl, Writer: f.store, BaseURL: base, Now: f.clock.Now})
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &peopleSite{fixture: f, ppl: ppl, srv: srv, base: base, client: client}
}

// do sends a request to the test server (by its 127.0.0.1 address, with
// the jar's cookies for localhost) and returns the status and body.
func (ps *peopleSite) do(t testing.TB, method, path string, body io.Reader, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, ps.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	u, _ := url.Parse(ps.base)
	for _, c := range ps.client.Jar.Cookies(u) {
		req.AddCookie(c)
	}
	res, err := ps.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if cs := res.Cookies(); len(cs) > 0 {
		ps.client.Jar.SetCookies(u, cs)
	}
	return res, string(b)
}

func form(vals ...string) (io.Reader, http.Header) {
	v := url.Values{}
	for i := 0; i+1 < len(vals); i += 2 {
		v.Set(vals[i], vals[i+1])
	}
	return strings.NewReader(v.Encode()), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
}

// register registers id through the pages with a software passkey.
func (ps *peopleSite) register(t testing.TB, id, name string) *peopletest.Passkey {
	t.Helper()
	body, h := form("person_id", id, "name", name)
	res, out := ps.do(t, "POST", "/signin/register/begin", body, h)
	if res.StatusCode != 200 {
		t.Fatalf("register begin: %d %s", res.StatusCode, out)
	}
	var c struct {
		Options json.RawMessage `json:"options"`
		Token   string          `json:"token"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	pk, answer, err := peopletest.Create(ps.base, c.Options)
	if err != nil {
		t.Fatal(err)
	}
	res, out = ps.do(t, "POST", "/signin/register/finish?token="+url.QueryEscape(c.Token), strings.NewReader(string(answer)),
		http.Header{"Content-Type": {"application/json"}})
	if res.StatusCode != 200 || !strings.Contains(out, `"next":"/agents/`+id+`"`) {
		t.Fatalf("register finish: %d %s", res.StatusCode, out)
	}
	return pk
}

func TestPersonForecastsRepliesFollows(t *testing.T) {
	ps := newPeopleSite(t)
	ctx := context.Background()
	q := "/predictions/" + ps.thread

	// Signed out: the page invites to sign in and shows no form; a form
	// sent anyway is a 401.
	_, page := ps.do(t, "GET", q, nil, nil)
	if !strings.Contains(page, `href="/signin?next=`+q+`"`) || strings.Contains(page, `action="`+q+`/forecast"`) {
		t.Errorf("signed-out page: want a sign-in link and no forecast form")
	}
	body, h := form("p", "62")
	if res, _ := ps.do(t, "POST", q+"/forecast", body, h); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("forecast signed out: %d, want 401", res.StatusCode)
	}

	ps.register(t, "ada", "Ada")
	_, page = ps.do(t, "GET", q, nil, nil)
	for _, want := range []string{`action="` + q + `/forecast"`, `id="forecast-slider"`, `action="` + q + `/replies"`, `action="` + q + `/follow"`, `class="you" href="/agents/ada"`} {
		if !strings.Contains(page, want) {
			t.Errorf("signed-in page lacks %s", want)
		}
	}

	// Forecast: the board's own write; the page then shows it.
	body, h = form("p", "62.5%", "note", "from the report")
	res, _ := ps.do(t, "POST", q+"/forecast", body, h)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != q+"#your-forecast" {
		t.Fatalf("forecast: %d to %q, want 303 to %s#your-forecast", res.StatusCode, res.Header.Get("Location"), q)
	}
	st, err := ps.store.Standing(ctx, ps.thread)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range st {
		if f.AgentID == "ada" {
			found = f.P == 0.625 && f.Note == "from the report"
		}
	}
	if !found {
		t.Errorf("standing forecasts %+v lack ada's 62.5%%", st)
	}
	_, page = ps.do(t, "GET", q, nil, nil)
	if !strings.Contains(page, "You said <strong>62.5%</strong>") || !strings.Contains(page, `value="62.5"`) {
		t.Errorf("the page does not show ada's forecast")
	}

	// Bad input: a clear refusal naming the field.
	for _, c := range []struct {
		p      string
		status int
		want   string
	}{
		{"150", 400, "p "},
		{"-1", 400, "p "},
		{"lots", 400, `p &#34;lots&#34; is not a number`},
		{"", 400, "p is empty"},
	} {
		body, h = form("p", c.p)
		res, out := ps.do(t, "POST", q+"/forecast", body, h)
		if res.StatusCode != c.status || !strings.Contains(out, c.want) {
			t.Errorf("forecast %q: %d, want %d with %q in the page", c.p, res.StatusCode, c.status, c.want)
		}
	}
	// A cross-site form post is refused before anything is read.
	body, h = form("p", "10")
	h.Set("Sec-Fetch-Site", "cross-site")
	if res, _ := ps.do(t, "POST", q+"/forecast", body, h); res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site forecast: %d, want 403", res.StatusCode)
	}
	// A closed question takes no forecast: 409.
	body, h = form("p", "10")
	if res, out := ps.do(t, "POST", "/predictions/"+ps.resolve+"/forecast", body, h); res.StatusCode != http.StatusConflict || !strings.Contains(out, "status") {
		t.Errorf("forecast on a resolved question: %d, want 409 naming status", res.StatusCode)
	}

	// Reply with a tag, answering a reply; markup stays text.
	thread, err := ps.store.Thread(ctx, ps.thread)
	if err != nil || len(thread) == 0 {
		t.Fatal(thread, err)
	}
	body, h = form("tag", "challenge", "parent_id", thread[0].ID, "body", "<b>Not</b> so fast")
	res, _ = ps.do(t, "POST", q+"/replies", body, h)
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), q+"#reply-") {
		t.Fatalf("reply: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	thread, _ = ps.store.Thread(ctx, ps.thread)
	last := thread[len(thread)-1]
	if last.AgentID != "ada" || last.Kind != board.ReplyChallenge || last.ParentID != thread[0].ID {
		t.Errorf("reply stored as %+v; want ada's challenge answering %s", last, thread[0].ID)
	}
	_, page = ps.do(t, "GET", q, nil, nil)
	if strings.Contains(page, "<b>Not</b>") || !strings.Contains(page, "&lt;b&gt;Not&lt;/b&gt;") {
		t.Errorf("the reply's markup is not escaped")
	}
	body, h = form("tag", "shout", "body", "x")
	if res, out := ps.do(t, "POST", q+"/replies", body, h); res.StatusCode != 400 || !strings.Contains(out, "tag") {
		t.Errorf("reply with an unknown tag: %d, want 400 naming tag", res.StatusCode)
	}

	// Follow: the person's own page lists it.
	body, h = form("on", "1")
	if res, _ := ps.do(t, "POST", q+"/follow", body, h); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("follow: %d", res.StatusCode)
	}
	_, page = ps.do(t, "GET", "/agents/ada", nil, nil)
	if !strings.Contains(page, `id="following"`) || !strings.Contains(page, "Fusion start-up reaches Q &gt; 1") {
		t.Errorf("ada's page does not list the followed question")
	}

	// Sign out: the cookie goes, the session ends, the old cookie signs
	// nobody in.
	old := ps.client.Jar.Cookies(mustURL(ps.base))
	body, h = form()
	if res, _ := ps.do(t, "POST", "/signout", body, h); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out: %d", res.StatusCode)
	}
	if len(old) != 1 {
		t.Fatalf("cookies before sign-out: %v", old)
	}
	if _, err := ps.ppl.Session(ctx, old[0].Value); err == nil {
		t.Errorf("the session outlived sign-out")
	}
	ps.client.Jar.SetCookies(mustURL(ps.base), old)
	_, page = ps.do(t, "GET", q, nil, nil)
	if strings.Contains(page, `action="`+q+`/forecast"`) {
		t.Errorf("an ended session still shows the forecast form")
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// TestSessionCookie: HttpOnly, SameSite=Lax, and a cookie no session of
// this board has reads as signed out, not as an error.
func TestSessionCookie(t *testing.T) {
	ps := newPeopleSite(t)
	ps.register(t, "bo", "")
	cs := ps.client.Jar.Cookies(mustURL(ps.base))
	if len(cs) != 1 {
		t.Fatalf("cookies %v", cs)
	}
	// The jar drops the attributes; ask again to see them.
	body, h := form("person_id", "bo2")
	res, out := ps.do(t, "POST", "/signin/register/begin", body, h)
	if res.StatusCode != 200 {
		t.Fatal(out)
	}
	var c struct {
		Options json.RawMessage `json:"options"`
		Token   string          `json:"token"`
	}
	_ = json.Unmarshal([]byte(out), &c)
	_, answer, _ := peopletest.Create(ps.base, c.Options)
	res, _ = ps.do(t, "POST", "/signin/register/finish?token="+url.QueryEscape(c.Token), strings.NewReader(string(answer)), nil)
	set := res.Header.Get("Set-Cookie")
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "Path=/", "predictions_session="} {
		if !strings.Contains(set, want) {
			t.Errorf("Set-Cookie %q lacks %s", set, want)
		}
	}
	if strings.Contains(set, "Secure") {
		t.Errorf("Set-Cookie %q is Secure on plain http", set)
	}
	ps.client.Jar.SetCookies(mustURL(ps.base), []*http.Cookie{{Name: "predictions_session", Value: "from-another-server"}})
	res, page := ps.do(t, "GET", "/predictions/"+ps.thread, nil, nil)
	if res.StatusCode != 200 || !strings.Contains(page, `href="/signin`) {
		t.Errorf("a foreign cookie: %d, want the signed-out page", res.StatusCode)
	}
	if !strings.Contains(res.Header.Get("Set-Cookie"), "Max-Age=0") {
		t.Errorf("a foreign cookie is not dropped: Set-Cookie %q", res.Header.Get("Set-Cookie"))
	}
	// A static file is the same for everyone: its request looks up no
	// session, so it neither drops the cookie nor reads the database.
	ps.client.Jar.SetCookies(mustURL(ps.base), []*http.Cookie{{Name: "predictions_session", Value: "from-another-server"}})
	res, _ = ps.do(t, "GET", "/static/style.css", nil, nil)
	if res.StatusCode != 200 || res.Header.Get("Set-Cookie") != "" {
		t.Errorf("GET /static/style.css with a foreign cookie: %d, Set-Cookie %q; want 200 and none", res.StatusCode, res.Header.Get("Set-Cookie"))
	}
}

// TestRegisterRefusals: an id an agent holds, and a name with markup or
// a direction override, are refused with the field named.
func TestRegisterRefusals(t *testing.T) {
	ps := newPeopleSite(t)
	for _, c := range []struct {
		id, name string
		status   int
		field    string
	}{
		{"oracle-1", "", 409, "person_id"},
		{"new one", "", 400, "person_id"},
		{"ok", "<img src=x>", 400, "name"},
		{"ok", "abc\u202Efed", 400, "name"},
	} {
		body, h := form("person_id", c.id, "name", c.name)
		res, out := ps.do(t, "POST", "/signin/register/begin", body, h)
		if res.StatusCode != c.status || !strings.Contains(out, `"field":"`+c.field+`"`) {
			t.Errorf("register %q %q: %d %s; want %d naming %s", c.id, c.name, res.StatusCode, out, c.status, c.field)
		}
	}
	body, h := form("person_id", "cross")
	h.Set("Sec-Fetch-Site", "cross-site")
	if res, _ := ps.do(t, "POST", "/signin/register/begin", body, h); res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site registration: %d, want 403", res.StatusCode)
	}
}

// TestTwoTabs: two forms posted at once by the same person both land,
// in commit order; the later stands.
func TestTwoTabs(t *testing.T) {
	ps := newPeopleSite(t)
	ps.register(t, "two", "")
	q := "/predictions/" + ps.thread
	cookie := ps.client.Jar.Cookies(mustURL(ps.base))[0]
	codes := make(chan int, 2)
	for _, p := range []string{"20", "80"} {
		go func() {
			req, _ := http.NewRequest("POST", ps.srv.URL+q+"/forecast", strings.NewReader(url.Values{"p": {p}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(cookie)
			res, err := ps.client.Do(req)
			if err != nil {
				codes <- 0
				return
			}
			res.Body.Close()
			codes <- res.StatusCode
		}()
	}
	for range 2 {
		if c := <-codes; c != http.StatusSeeOther {
			t.Errorf("a tab's forecast: %d, want 303", c)
		}
	}
	hist, err := ps.store.Forecasts(context.Background(), ps.thread, board.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var mine []float64
	for _, f := range hist.Forecasts {
		if f.AgentID == "two" {
			mine = append(mine, f.P)
		}
	}
	st, _ := ps.store.Standing(context.Background(), ps.thread)
	var standing float64
	for _, f := range st {
		if f.AgentID == "two" {
			standing = f.P
		}
	}
	if len(mine) != 2 || standing != mine[1] {
		t.Errorf("history %v, standing %v: want both forecasts and the later standing", mine, standing)
	}
}

// TestPersonWriteLimit: a person's forms take from the same
// per-forecaster budget as an agent's API writes, when the pages are
// mounted in the HTTP API.
func TestPersonWriteLimit(t *testing.T) {
	ps := newPeopleSite(t)
	app := httpapi.New(httpapi.Options{Logger: discard, Board: boardapi.New(boardapi.Options{Store: ps.store}),
		RateLimit: middleware.RateLimit{Agent: middleware.Rate{Events: 2, Per: time.Hour, Burst: 2}},
		Pages:     web.New(web.Options{Board: ps.store, People: ps.ppl, Writer: ps.store, BaseURL: ps.base, Now: ps.clock.Now})})
	ps.srv.Config.Handler = app
	ps.register(t, "lim", "")
	q := "/predictions/" + ps.thread
	var codes []int
	for _, p := range []string{"10", "20", "30"} {
		body, h := form("p", p)
		res, out := ps.do(t, "POST", q+"/forecast", body, h)
		codes = append(codes, res.StatusCode)
		if res.StatusCode == http.StatusTooManyRequests && (res.Header.Get("Retry-After") == "" || !strings.Contains(out, "over its limit")) {
			t.Errorf("429 without Retry-After or a reason: %q", out)
		}
	}
	if diff := cmp.Diff([]int{303, 303, 429}, codes); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

// TestCeremonyAnswerTooLarge: an answer over people.MaxCredentialBytes is
// a 413 that says the limit, for registration and sign-in alike; one at
// the limit is read (and refused as the wrong answer, a 400).
func TestCeremonyAnswerTooLarge(t *testing.T) {
	ps := newPeopleSite(t)
	for _, path := range []string{"/signin/register/finish?token=x", "/signin/finish?token=x"} {
		for _, c := range []struct {
			size   int
			status int
		}{{people.MaxCredentialBytes + 1, http.StatusRequestEntityTooLarge}, {people.MaxCredentialBytes, http.StatusBadRequest}} {
			res, out := ps.do(t, "POST", path, strings.NewReader(strings.Repeat("a", c.size)), nil)
			if res.StatusCode != c.status {
				t.Errorf("POST %s with %d bytes: %d %s, want %d", path, c.size, res.StatusCode, out, c.status)
			}
			if c.status == http.StatusRequestEntityTooLarge && !strings.Contains(out, strconv.Itoa(people.MaxCredentialBytes)) {
				t.Errorf("POST %s with %d bytes: %s does not name the limit", path, c.size, out)
			}
		}
	}
}
