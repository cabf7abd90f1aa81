package boardapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/outbox"
)

// sentMail is a message as parsed and as sent (Header: the raw bytes, for
// List-Unsubscribe).
type sentMail struct {
	*email.Message
	Header []byte
}

// mailMessages claims the queued messages to addr (as the sender would)
// and returns them parsed, marking them sent; others are left due.
func mailMessages(t *testing.T, s *board.Store, addr string) []sentMail {
	t.Helper()
	ctx := context.Background()
	box := openOutbox(t, s)
	msgs, err := box.Claim(ctx, outbox.Email, 1000, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	var out []sentMail
	for _, m := range msgs {
		if m.Recipient != addr {
			continue
		}
		pm, err := email.Parse(bytes.NewReader(m.Payload))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sentMail{pm, m.Payload})
		if err := box.MarkSent(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// openOutbox opens the outbox in the store's database.
func openOutbox(t *testing.T, s *board.Store) *outbox.Outbox {
	t.Helper()
	box, err := outbox.Open(context.Background(), s.WriteDB(), outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// withMail opens the store's mailbox and makes the e-mail recorder the
// store's and the mailbox's, queueing into the outbox in its database, as
// serve does.
func withMail(t *testing.T, s *board.Store) *mailbox.Box {
	t.Helper()
	from, base := mail.Address{Address: "board@predictions.example.org"}, "https://predictions.example.org"
	m, err := notify.NewMail(openOutbox(t, s), from, base)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := mailbox.Open(context.Background(), s, mailbox.Options{From: from, BaseURL: base, Recorder: m})
	if err != nil {
		t.Fatal(err)
	}
	s.SetRecorder(m)
	return mb
}

var confirmLink = regexp.MustCompile(`https://predictions\.example\.org(/api/agents/[^/\s]+/email/confirm\?token=[A-Za-z0-9_-]+)`)

// confirm opens the link of the confirmation message to addr, as a person
// would: GET shows a page and confirms nothing, its button POSTs.
func confirm(t *testing.T, e *apitest.Env, s *board.Store, addr string) {
	t.Helper()
	var link string
	for _, m := range mailMessages(t, s, addr) {
		if l := confirmLink.FindStringSubmatch(m.Text); l != nil {
			link = l[1]
		}
	}
	if link == "" {
		t.Fatalf("no confirmation message to %s", addr)
	}
	resp, page := e.Do(t, http.MethodGet, link, nil, nil, apitest.AnyValid)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		!bytes.Contains(page, []byte(`<form method="post"`)) || resp.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("GET %s: %d %s", link, resp.StatusCode, page)
	}
	resp, body := e.Do(t, http.MethodPost, link, nil, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, apitest.MustPass)
	if resp.StatusCode != 200 || apitest.DecodeMap(t, body)["status"] != "email_confirmed" {
		t.Fatalf("POST %s: %d %s", link, resp.StatusCode, body)
	}
}

// clockAt is a settable clock for the caps and the expiry.
type clockAt struct{ ns atomic.Int64 }

func (c *clockAt) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clockAt) Advance(d time.Duration) { c.ns.Add(int64(d)) }

func optInEnv(t *testing.T) (*apitest.Env, *board.Store, *clockAt) {
	t.Helper()
	clk := &clockAt{}
	clk.ns.Store(time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC).UnixNano())
	s, err := board.Open(context.Background(), boardtest.SQLite(t), board.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	mb := withMail(t, s)
	return apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, Mail: mb, ModeratorToken: apitest.ModToken})}), s, clk
}

// TestDoubleOptIn: a registered address gets one confirmation message and
// nothing else until confirmed; the GET of the link changes nothing; the
// token works once; new predictions go only to subscribers; replies to
// followers with confirmed addresses; every message carries RFC 8058
// headers whose one-click POST stops the mail.
func TestDoubleOptIn(t *testing.T) {
	e, s, clk := optInEnv(t)
	reg := func(agent, addr string, sub any, want int) map[string]any {
		t.Helper()
		body := map[string]any{"agent_id": agent, "email": addr}
		if sub != nil {
			body["subscribe"] = sub
		}
		return e.Post(t, "/api/agents", agent, body, apitest.MustPass, want)
	}
	m := reg("ada", "ada@example.org", "all", 201)
	if m["status"] != "confirmation_sent" {
		t.Fatalf("register: %v", m)
	}
	reg("bob", "bob@example.org", []string{"Science"}, 201)
	reg("cy", "cy@example.org", nil, 201) // default: no new predictions

	// Before confirming: a post queues nothing for them.
	apitest.CreatePred(t, e, "agent_id", "poster", "domain", "AI")
	msgs := mailMessages(t, s, "ada@example.org")
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Subject, "Confirm your address for agent ada") {
		t.Fatalf("ada got %d messages before confirming, want only the confirmation: %v", len(msgs), msgs)
	}
	link := confirmLink.FindStringSubmatch(msgs[0].Text)[1]
	hdr := string(msgs[0].Header)
	if !strings.Contains(hdr, "List-Unsubscribe: <https://predictions.example.org/api/email/unsubscribe?token=") ||
		!strings.Contains(hdr, "List-Unsubscribe-Post: List-Unsubscribe=One-Click") {
		t.Errorf("the confirmation lacks the RFC 8058 headers:\n%s", hdr)
	}
	// GET (a mail scanner) confirms nothing.
	for range 3 {
		e.Do(t, http.MethodGet, link, nil, nil, apitest.AnyValid)
	}
	apitest.CreatePred(t, e, "agent_id", "poster", "domain", "AI")
	if got := mailMessages(t, s, "ada@example.org"); len(got) != 0 {
		t.Errorf("after GETs of the link ada got %d messages, want 0", len(got))
	}
	// The token in a JSON body confirms; the second use is 410.
	tok := link[strings.Index(link, "token=")+len("token="):]
	path := "/api/agents/ada/email/confirm"
	if c := e.Post(t, path, "", map[string]any{"token": tok}, apitest.MustPass, 200); c["email"] != "ada@example.org" {
		t.Errorf("confirm: %v", c)
	}
	resp, body := e.Do(t, http.MethodPost, path, apitest.JSONBody(t, map[string]any{"token": tok}), http.Header{"Content-Type": {"application/json"}}, apitest.MustPass)
	if resp.StatusCode != 410 || !strings.HasPrefix(apitest.ProblemOf(t, body).Error, "token:") {
		t.Errorf("second use: %d %s, want 410 naming token", resp.StatusCode, body)
	}
	resp, body = e.Do(t, http.MethodPost, "/api/agents/bob/email/confirm", apitest.JSONBody(t, map[string]any{"token": tok}), http.Header{"Content-Type": {"application/json"}}, apitest.MustPass)
	if resp.StatusCode != 404 || !strings.HasPrefix(apitest.ProblemOf(t, body).Error, "token:") {
		t.Errorf("another agent's token: %d %s, want 404 naming token", resp.StatusCode, body)
	}
	confirm(t, e, s, "bob@example.org")
	confirm(t, e, s, "cy@example.org")

	// Subscriptions: ada (all) gets an AI prediction, bob (Science) not, cy (none) not.
	id := apitest.CreatePred(t, e, "agent_id", "poster", "domain", "AI")
	got := map[string]int{}
	for _, a := range []string{"ada@example.org", "bob@example.org", "cy@example.org"} {
		got[a] = len(mailMessages(t, s, a))
	}
	if got["ada@example.org"] != 1 || got["bob@example.org"] != 0 || got["cy@example.org"] != 0 {
		t.Errorf("notifications of an AI prediction: %v; want ada only", got)
	}
	apitest.CreatePred(t, e, "agent_id", "poster", "domain", "Science")
	if n := len(mailMessages(t, s, "bob@example.org")); n != 1 {
		t.Errorf("bob got %d notifications of a Science prediction, want 1", n)
	}
	// Replies go to followers with confirmed addresses: cy reacted, so cy follows.
	e.Post(t, "/api/predictions/"+id+"/reactions", "cy", map[string]any{"agent_id": "cy", "reaction": "agree"}, apitest.MustPass, 201)
	e.Post(t, "/api/predictions/"+id+"/threads", "ada", map[string]any{"agent_id": "ada", "body": "Noted."}, apitest.MustPass, 201)
	cyMsgs := mailMessages(t, s, "cy@example.org")
	if len(cyMsgs) != 1 {
		t.Fatalf("cy got %d reply notifications, want 1", len(cyMsgs))
	}

	// One-click unsubscribe (RFC 8058): the POST of the header's link.
	unsub := regexp.MustCompile(`List-Unsubscribe: <https://predictions\.example\.org(\S+)>`).FindStringSubmatch(string(cyMsgs[0].Header))
	if unsub == nil {
		t.Fatalf("the reply notification lacks List-Unsubscribe:\n%s", cyMsgs[0].Header)
	}
	resp, page := e.Do(t, http.MethodGet, unsub[1], nil, nil, apitest.AnyValid)
	if resp.StatusCode != 200 || !bytes.Contains(page, []byte("Unsubscribe</button>")) {
		t.Errorf("GET of the unsubscribe link: %d %s", resp.StatusCode, page)
	}
	e.Post(t, "/api/predictions/"+id+"/threads", "ada", map[string]any{"agent_id": "ada", "body": "Still noted."}, apitest.MustPass, 201)
	resp, body = e.Do(t, http.MethodPost, unsub[1], []byte("List-Unsubscribe=One-Click"),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, apitest.MustPass)
	if m := apitest.DecodeMap(t, body); resp.StatusCode != 200 || m["status"] != "unsubscribed" || m["email"] != "cy@example.org" {
		t.Errorf("one-click unsubscribe: %d %s", resp.StatusCode, body)
	}
	e.Post(t, "/api/predictions/"+id+"/threads", "ada", map[string]any{"agent_id": "ada", "body": "And again."}, apitest.MustPass, 201)
	if n := len(mailMessages(t, s, "cy@example.org")); n != 0 {
		t.Errorf("cy got %d messages after unsubscribing (queued before or after), want 0", n)
	}
	resp, body = e.Do(t, http.MethodPost, unsub[1], nil, nil, apitest.AnyValid)
	if m := apitest.DecodeMap(t, body); resp.StatusCode != 200 || m["status"] != "already_unsubscribed" {
		t.Errorf("unsubscribing again: %d %s", resp.StatusCode, body)
	}
	resp, body = e.Do(t, http.MethodPost, mailbox.UnsubscribePath+"?token=guess", nil, nil, apitest.AnyValid)
	if resp.StatusCode != 404 || !strings.HasPrefix(apitest.ProblemOf(t, body).Error, "token:") {
		t.Errorf("a guessed token: %d %s, want 404 naming token", resp.StatusCode, body)
	}
	// "I never asked for this": the unsubscribe link of a confirmation
	// message voids the registration, and the address gets no further
	// confirmation message, whoever registers it.
	reg("fay", "fay@example.org", nil, 201)
	fayMsg := mailMessages(t, s, "fay@example.org")[0]
	fayUnsub := regexp.MustCompile(`List-Unsubscribe: <https://predictions\.example\.org(\S+)>`).FindStringSubmatch(string(fayMsg.Header))[1]
	if resp, body := e.Do(t, http.MethodPost, fayUnsub, []byte("List-Unsubscribe=One-Click"),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, apitest.MustPass); resp.StatusCode != 200 {
		t.Errorf("unsubscribing from the confirmation: %d %s", resp.StatusCode, body)
	}
	resp, body = e.Do(t, http.MethodPost, confirmLink.FindStringSubmatch(fayMsg.Text)[1], nil, nil, apitest.AnyValid)
	if resp.StatusCode != 410 {
		t.Errorf("confirming after unsubscribing: %d %s, want 410", resp.StatusCode, body)
	}
	resp, body = e.Do(t, http.MethodPost, "/api/agents", apitest.JSONBody(t, map[string]any{"agent_id": "mallory", "email": "fay@example.org"}), apitest.BearerH("mallory"), apitest.MustPass)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || !strings.HasPrefix(apitest.ProblemOf(t, body).Error, "email:") {
		t.Errorf("registering an unsubscribed address: %d %s, want 429 naming email", resp.StatusCode, body)
	}
	if n := len(mailMessages(t, s, "fay@example.org")); n != 0 {
		t.Errorf("the unsubscribed address got %d more messages", n)
	}

	// Expiry: a registration not confirmed in time is 410.
	reg("dee", "dee@example.org", nil, 201)
	deeLink := confirmLink.FindStringSubmatch(mailMessages(t, s, "dee@example.org")[0].Text)[1]
	clk.Advance(mailbox.ConfirmationLifetime)
	resp, body = e.Do(t, http.MethodPost, deeLink, nil, nil, apitest.AnyValid)
	if resp.StatusCode != 410 || !strings.Contains(apitest.ProblemOf(t, body).Error, "expired") {
		t.Errorf("confirming after %s: %d %s, want 410 expired", mailbox.ConfirmationLifetime, resp.StatusCode, body)
	}
}

// TestRegistrationCaps: at most MaxConfirmationsPerAddress confirmation
// messages to one address and MaxRegistrationsPerAgent registrations by
// one agent per CapWindow; the next is 429 with Retry-After, and the
// window slides.
func TestRegistrationCaps(t *testing.T) {
	e, s, clk := optInEnv(t)
	post := func(agent, addr string) (int, string, string) {
		resp, body := e.Do(t, http.MethodPost, "/api/agents", apitest.JSONBody(t, map[string]any{"agent_id": agent, "email": addr}), apitest.BearerH(agent), apitest.MustPass)
		field := ""
		if resp.StatusCode >= 400 {
			field, _, _ = strings.Cut(apitest.ProblemOf(t, body).Error, ":")
		}
		return resp.StatusCode, field, resp.Header.Get("Retry-After")
	}
	// Per address: different agents register victim@.
	for i := range mailbox.MaxConfirmationsPerAddress {
		if st, f, _ := post("a"+string(rune('0'+i)), "victim@example.org"); st >= 400 {
			t.Fatalf("registration %d of the address: %d on %s", i+1, st, f)
		}
		clk.Advance(time.Minute)
	}
	if st, f, ra := post("a9", "victim@example.org"); st != 429 || f != "email" || ra == "" {
		t.Errorf("registration %d of the address: %d on %q, Retry-After %q; want 429 on email", mailbox.MaxConfirmationsPerAddress+1, st, f, ra)
	}
	if n := len(mailMessages(t, s, "victim@example.org")); n != mailbox.MaxConfirmationsPerAddress {
		t.Errorf("the address got %d messages, want %d", n, mailbox.MaxConfirmationsPerAddress)
	}
	// The window slides: a day after the first, one more is allowed.
	clk.Advance(mailbox.CapWindow - time.Duration(mailbox.MaxConfirmationsPerAddress)*time.Minute + time.Second)
	if st, f, _ := post("a9", "victim@example.org"); st >= 400 {
		t.Errorf("a day later: %d on %s, want success", st, f)
	}

	// Per agent: one agent registers many addresses.
	for i := range mailbox.MaxRegistrationsPerAgent {
		if st, f, _ := post("spammer", "t"+string(rune('0'+i))+"@example.org"); st >= 400 {
			t.Fatalf("registration %d by the agent: %d on %s", i+1, st, f)
		}
	}
	if st, f, ra := post("spammer", "t9@example.org"); st != 429 || f != "agent_id" || ra == "" {
		t.Errorf("registration %d by the agent: %d on %q, Retry-After %q; want 429 on agent_id", mailbox.MaxRegistrationsPerAgent+1, st, f, ra)
	}
	if n := len(mailMessages(t, s, "t9@example.org")); n != 0 {
		t.Errorf("the refused registration sent %d messages", n)
	}
}
