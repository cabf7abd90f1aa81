package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/smtptest"
	"github.com/predictions-md/predictions/mailbox"
)

// The e-mail side of TestScaleOut: each replica sends through an SMTP
// sink of its own, so that the report can say which replica delivered
// what. Agents register addresses before the load, confirm them with the
// token of their confirmation message and subscribe; one registration is
// left unconfirmed and one confirmed address unsubscribes. What each
// address must get is derived from the writes the board acknowledged and
// its rules (subscribers of a new prediction, followers of a thread), and
// what it may get from what the database holds (writes committed but not
// acknowledged when the replica died).

// mailDomain is the host of boardBase: the right-hand side of the board's
// Message-IDs.
const mailDomain = "predictions.example.org"

// scaleMailAgent is an agent of the e-mail roster.
type scaleMailAgent struct {
	id        string
	subscribe any  // the subscribe field of its registration
	confirm   bool // confirms its address
	unsub     bool // then unsubscribes it with the List-Unsubscribe link
}

// scaleMailAgents: two subscribe to all, one to three domains, one to
// none (it gets only replies in threads it follows), one never confirms
// and one unsubscribes after confirming.
var scaleMailAgents = []scaleMailAgent{
	{id: "mail-all-a", subscribe: "all", confirm: true},
	{id: "mail-all-b", subscribe: "all", confirm: true},
	{id: "mail-dom", subscribe: []string{"AI", "Science", "climate"}, confirm: true},
	{id: "mail-none", confirm: true},
	{id: "mail-pending", subscribe: "all"},
	{id: "mail-unsub", subscribe: "all", confirm: true, unsub: true},
}

func mailAddress(agent string) string { return agent + "@agents.example" }

// delivery is one message to one address: the envelope recipient and
// the Message-ID without angle brackets.
type delivery struct{ to, id string }

// scaleMail holds the e-mail model of a run.
type scaleMail struct {
	sinks []*smtptest.Server

	mu        sync.Mutex
	subs      map[string]mailbox.Subscription // agents whose address is confirmed and subscribed, as the confirmations answered
	followers map[string][]string             // prediction → its author and the agents that replied to it, in the order acknowledged
	expected  map[delivery]bool               // what the acknowledged writes must have sent
}

func newScaleMail(sinks []*smtptest.Server) *scaleMail {
	return &scaleMail{sinks: sinks, subs: map[string]mailbox.Subscription{}, followers: map[string][]string{}, expected: map[delivery]bool{}}
}

// ackPrediction records a prediction the board acknowledged: its
// notification goes to every agent with a confirmed, still subscribed
// address, the author excepted, whose subscription is all or names the
// prediction's domain.
func (m *scaleMail) ackPrediction(id, author, domain string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for a, s := range m.subs {
		if a != author && (s.All || slices.Contains(s.Domains, domain)) {
			m.expected[delivery{mailAddress(a), email.ThreadID(id, mailDomain)}] = true
		}
	}
	m.followers[id] = append(m.followers[id], author)
}

// ackReply records a reply the board acknowledged: its notification goes
// to the prediction's followers at that moment (the writers of the load
// have no address, so their order among themselves does not matter) but
// the poster.
func (m *scaleMail) ackReply(id, prediction, poster string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, a := range m.followers[prediction] {
		if _, ok := m.subs[a]; ok && a != poster {
			m.expected[delivery{mailAddress(a), email.ReplyMessageID(prediction, id, mailDomain)}] = true
		}
	}
	if !slices.Contains(m.followers[prediction], poster) {
		m.followers[prediction] = append(m.followers[prediction], poster)
	}
}

// confirmTokenRE finds the token in a confirmation message's text.
var confirmTokenRE = regexp.MustCompile(`email/confirm \{"token": "([A-Za-z0-9_-]+)"\}`)

// register registers the roster's addresses through the replicas in
// turn, waits for the confirmation messages, confirms through another
// replica with each message's token, and unsubscribes through a third
// with the List-Unsubscribe link. The confirmations' answers give the
// subscriptions the model uses.
func (m *scaleMail) register(t *testing.T, reps []*proc) {
	t.Helper()
	for i, a := range scaleMailAgents {
		body := map[string]any{"agent_id": a.id, "email": mailAddress(a.id)}
		if a.subscribe != nil {
			body["subscribe"] = a.subscribe
		}
		reg := call(t, "POST", reps[i%len(reps)].url("/api/agents"), a.id, body, 201)
		if reg["status"] != string(mailbox.ConfirmationSent) {
			t.Fatalf("registering %s: %v", a.id, reg)
		}
	}
	confirmations := map[string]smtptest.Message{} // address → its confirmation
	deadline := time.Now().Add(20 * time.Second)
	for len(confirmations) < len(scaleMailAgents) && time.Now().Before(deadline) {
		for _, msg := range m.delivered() {
			if strings.HasPrefix(msg.id, "confirm.") {
				confirmations[msg.to] = msg.msg
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(confirmations) != len(scaleMailAgents) {
		t.Fatalf("%d confirmation messages within 20 s, want %d", len(confirmations), len(scaleMailAgents))
	}
	for i, a := range scaleMailAgents {
		if !a.confirm {
			continue
		}
		c := confirmations[mailAddress(a.id)]
		pm, err := email.Parse(bytes.NewReader(c.Data))
		if err != nil {
			t.Fatal(err)
		}
		tok := confirmTokenRE.FindStringSubmatch(pm.Text)
		if tok == nil {
			t.Fatalf("no token in the confirmation to %s:\n%s", a.id, pm.Text)
		}
		got := call(t, "POST", reps[(i+1)%len(reps)].url("/api/agents/"+a.id+"/email/confirm"), "", map[string]string{"token": tok[1]}, 200)
		raw, _ := json.Marshal(got["subscribe"]) // decoded JSON always marshals
		var sub mailbox.Subscription
		if err := json.Unmarshal(raw, &sub); err != nil {
			t.Fatalf("confirming %s: subscribe %s: %v", a.id, raw, err)
		}
		if !a.unsub {
			m.subs[a.id] = sub
			continue
		}
		link := strings.Trim(c.Header("List-Unsubscribe"), "<>")
		path, ok := strings.CutPrefix(link, boardBase)
		if !ok {
			t.Fatalf("List-Unsubscribe of the confirmation to %s = %q", a.id, link)
		}
		resp, err := http.Post(reps[(i+2)%len(reps)].url(path), "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("one-click unsubscribe of %s: %d", a.id, resp.StatusCode)
		}
	}
}

// follow has some confirmed agents reply to seeds before the load, one
// at a time, so that the threads have followers besides their authors.
// Each reply is an acknowledged write: it goes into acks.
func (m *scaleMail) follow(t *testing.T, client *http.Client, reps []*proc, seeds []string, acks map[string][]string) {
	t.Helper()
	for i, f := range []struct {
		agent string
		seed  int
	}{{"mail-dom", 0}, {"mail-none", 1}, {"mail-all-b", 4}, {"mail-all-a", 5}, {"mail-unsub", 3}} {
		id, err := postReply(client, reps[i%len(reps)].url("/api/predictions/"+seeds[f.seed]+"/threads"), f.agent, "Following this one")
		if err != nil {
			t.Fatal(err)
		}
		m.ackReply(id, seeds[f.seed], f.agent)
		acks["reply"] = append(acks["reply"], id)
	}
}

// sunk is a message a sink received, with its recipient and Message-ID.
type sunk struct {
	delivery
	sink int
	msg  smtptest.Message
}

// delivered is every message of every sink, in the order of the sinks.
func (m *scaleMail) delivered() []sunk {
	var out []sunk
	for i, s := range m.sinks {
		for _, msg := range s.Messages() {
			to := ""
			if len(msg.To) == 1 {
				to = strings.ToLower(msg.To[0])
			}
			out = append(out, sunk{delivery{to, strings.Trim(msg.Header("Message-Id"), "<>")}, i, msg})
		}
	}
	return out
}

// outboxStatus counts the outbox rows by status, and those claimed more
// than once (attempts > 1: a lease that ended and was taken over, since
// the sinks refuse nothing).
func outboxStatus(ctx context.Context, db *sql.DB) (map[string]int, int, error) {
	counts := map[string]int{}
	rows, err := db.QueryContext(ctx, `SELECT status, COUNT(*) FROM outbox GROUP BY status`)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, 0, err
		}
		counts[s] = n
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	var again int
	err = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE attempts > 1`).Scan(&again)
	return counts, again, err
}

// allowed is what the database's writes may have sent, acknowledged or
// not: the same rules as the model's, applied to every stored prediction
// and reply, with every agent that wrote in a thread as its follower.
func (m *scaleMail) allowed(ctx context.Context, db *sql.DB) (map[delivery]bool, error) {
	type row struct{ id, pred, agent, domain string }
	query := func(q string) ([]row, error) {
		rs, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rs.Close()
		var out []row
		for rs.Next() {
			var r row
			if err := rs.Scan(&r.id, &r.pred, &r.agent, &r.domain); err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, rs.Err()
	}
	preds, err := query(`SELECT id, id, agent_id, domain FROM predictions`)
	if err != nil {
		return nil, err
	}
	replies, err := query(`SELECT id, prediction_id, agent_id, '' FROM replies`)
	if err != nil {
		return nil, err
	}
	followers := map[string]map[string]bool{}
	for _, r := range append(slices.Clone(preds), replies...) {
		if followers[r.pred] == nil {
			followers[r.pred] = map[string]bool{}
		}
		followers[r.pred][r.agent] = true
	}
	out := map[delivery]bool{}
	for _, p := range preds {
		for a, s := range m.subs {
			if a != p.agent && (s.All || slices.Contains(s.Domains, p.domain)) {
				out[delivery{mailAddress(a), email.ThreadID(p.id, mailDomain)}] = true
			}
		}
	}
	for _, r := range replies {
		for a := range m.subs {
			if a != r.agent && followers[r.pred][a] {
				out[delivery{mailAddress(a), email.ReplyMessageID(r.pred, r.id, mailDomain)}] = true
			}
		}
	}
	return out, nil
}

// scaleMailReport is what the e-mail check found.
type scaleMailReport struct {
	expected, missing, delivered, distinct, duplicates, takenOver int
	unacknowledged                                                int // distinct notifications of writes stored but not acknowledged
	bySink                                                        []int
	drained                                                       time.Duration // from the kill until the outbox held no pending message
	dupSamples                                                    []string
}

// check waits until the outbox holds no pending message (the surviving
// replicas take over the killed one's claims once their lease ends), at
// most within, then compares what the sinks received with the model.
func (m *scaleMail) check(t *testing.T, db *sql.DB, killedAt time.Time, within time.Duration) scaleMailReport {
	t.Helper()
	ctx := context.Background()
	var rep scaleMailReport
	var counts map[string]int
	var err error
	deadline := time.Now().Add(within)
	for {
		counts, rep.takenOver, err = outboxStatus(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if counts["pending"] == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	rep.drained = time.Since(killedAt)
	allowed, err := m.allowed(ctx, db)
	if err != nil {
		t.Fatal(err)
	}

	got := map[delivery]int{}
	kinds := map[string]map[string]int{} // address → kind → distinct messages
	rep.bySink = make([]int, len(m.sinks))
	noUnsubscribe := 0
	for _, d := range m.delivered() {
		got[d.delivery]++
		rep.bySink[d.sink]++
		if d.msg.Header("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
			noUnsubscribe++
		}
		if got[d.delivery] > 1 {
			continue
		}
		kind := "confirmation"
		if p, r, ok := email.ParseMessageID(d.id, mailDomain); ok && r != "" {
			kind = "reply"
		} else if ok && p != "" {
			kind = "prediction"
		}
		if kinds[d.to] == nil {
			kinds[d.to] = map[string]int{}
		}
		kinds[d.to][kind]++
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rep.expected, rep.distinct = len(m.expected), len(got)
	problems := map[string][]string{}
	perAgent := map[string]int{}
	for d := range m.expected {
		perAgent[d.to]++
		if got[d] == 0 {
			rep.missing++
			problems["expected, never delivered"] = append(problems["expected, never delivered"], d.to+" "+d.id)
		}
	}
	for a := range m.subs {
		if perAgent[mailAddress(a)] == 0 { // the model, not the board, would be wrong
			t.Errorf("no message expected for %s, which confirmed its address: the load exercised nothing for it", a)
		}
	}
	if noUnsubscribe > 0 {
		t.Errorf("%d messages without List-Unsubscribe-Post: List-Unsubscribe=One-Click", noUnsubscribe)
	}
	for d, n := range got {
		rep.delivered += n
		if n > 1 {
			rep.duplicates += n - 1
			rep.dupSamples = append(rep.dupSamples, fmt.Sprintf("%s %s ×%d", d.to, d.id, n))
		}
		if !m.expected[d] && allowed[d] {
			rep.unacknowledged++
		}
		if !allowed[d] && !strings.HasPrefix(d.id, "confirm.") {
			problems["delivered, not allowed by the rules"] = append(problems["delivered, not allowed by the rules"], d.to+" "+d.id)
		}
	}
	for k, v := range counts {
		if k != "sent" && v > 0 {
			problems["outbox "+k] = append(problems["outbox "+k], fmt.Sprintf("%d rows %s after %s", v, k, rep.drained.Round(time.Millisecond)))
		}
	}
	for k, v := range problems {
		sort.Strings(v)
		t.Errorf("%s: %d, such as %q", k, len(v), v[:min(len(v), 5)])
	}
	sort.Strings(rep.dupSamples)

	// Every registered address got one confirmation; the unconfirmed and
	// the unsubscribed addresses got nothing else.
	for _, a := range scaleMailAgents {
		k := kinds[mailAddress(a.id)]
		if k["confirmation"] != 1 {
			t.Errorf("%s got %d confirmation messages, want 1", a.id, k["confirmation"])
		}
		if (!a.confirm || a.unsub) && len(k) != 1 {
			t.Errorf("%s (confirmed %t, unsubscribed %t) got %v, want its confirmation only", a.id, a.confirm, a.unsub, k)
		}
	}
	return rep
}
