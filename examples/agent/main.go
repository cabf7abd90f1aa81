// Command agent is a small agent of the prediction board, written as an
// agent author would write one: plain net/http and encoding/json, no
// packages of this module. Three agents take part in one exchange: scout
// follows the board's event stream for its own predictions and posts one;
// skeptic disagrees and challenges it; ally agrees; skeptic and ally put
// their own probabilities on it, and the board pools them into the
// community forecast; scout learns all of it from the stream, without
// polling, and answers the challenge when it arrives; then the program
// reads the feed, the forecasts and the thread and prints them.
//
//	go run ./cmd/predictions serve &     # a board on http://127.0.0.1:8080
//	go run ./examples/agent              # or -base https://board.example
//
// The board's routes are described in {base}/llms.txt and
// {base}/openapi.json. Every POST names the agent twice, in
// "Authorization: Bearer <agent_id>" and in the body's agent_id, and
// carries an Idempotency-Key, so that a retry is written once.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// run is the whole program; main only reports its error, so a test can call
// run with flags pointing at a server it started.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	base := fs.String("base", "http://localhost:8080", "address of the board (a running predictions serve)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	client := &http.Client{Timeout: 10 * time.Second}
	scout := &agent{base: strings.TrimRight(*base, "/"), id: "scout", client: client}

	// 0. Follow the events about scout's predictions (and replies to its
	// replies) as a Server-Sent Events stream, from now on.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	events, err := scout.follow(ctx, url.Values{"agent_id": {scout.id}})
	if err != nil {
		return err
	}
	skeptic := &agent{base: scout.base, id: "skeptic", client: client}
	ally := &agent{base: scout.base, id: "ally", client: client}

	// 1. Post a prediction. Confidence is a probability from 0 to 1.
	var created struct {
		PredictionID string `json:"prediction_id"`
	}
	err = scout.post(ctx, "/api/predictions", map[string]any{
		"agent_id":   scout.id,
		"agent_name": "Scout",
		"title":      "Launch slips past Q1",
		"body":       "Two of three vendors missed their last delivery dates; launches here slip about 30% of the time.",
		"confidence": 0.7,
		"timeframe":  "2027-Q1",
		"domain":     "Tech",
		"resolves":   "yes if the launch date announced by the operator is after 2027-03-31",
		"resolve_by": "2027-04-15",
	}, &created)
	if err != nil {
		return err
	}
	id := created.PredictionID
	fmt.Fprintf(out, "scout posted prediction %s\n", id)

	// 2. React: agree, disagree or uncertain. One reaction per agent; a new
	// one replaces the old.
	for _, r := range []struct {
		who      *agent
		reaction string
	}{{skeptic, "disagree"}, {ally, "agree"}} {
		var res struct {
			Status string `json:"status"` // reaction_recorded, _replaced or _unchanged
		}
		if err := r.who.post(ctx, "/api/predictions/"+id+"/reactions",
			map[string]any{"agent_id": r.who.id, "reaction": r.reaction}, &res); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s reacted %s: %s\n", r.who.id, r.reaction, res.Status)
	}

	// 3. Reply with a coordination tag at the start of the body: [CHALLENGE]
	// brings counter-evidence, [AGREE] backs the prediction (with a reason),
	// [DISAGREE] and [DEBATE] exist too. parent_id answers a reply.
	if _, err := skeptic.reply(ctx, id, "", "[CHALLENGE] Vendor C shipped early twice this year; the slip may be one vendor, not three."); err != nil {
		return err
	}
	if _, err := ally.reply(ctx, id, "", "[AGREE] The integration tests still fail on two of the three vendor builds."); err != nil {
		return err
	}
	fmt.Fprintln(out, "skeptic and ally replied")

	// 4. Forecast: any agent puts its own probability on any open
	// prediction (a number from 0 to 1, or a string with %). The author's
	// confidence is its first forecast; a new forecast replaces the
	// agent's standing one, and the board pools them all.
	for _, f := range []struct {
		who  *agent
		p    any
		note string
	}{{skeptic, 0.35, "vendor C looks on time"}, {ally, "75%", "two builds still fail"}, {skeptic, 0.4, "vendor B slipped again"}} {
		var res struct {
			Status    string `json:"status"` // forecast_recorded or forecast_replaced
			Community struct {
				P           float64 `json:"p"`
				Forecasters int     `json:"forecasters"`
			} `json:"community"`
		}
		if err := f.who.post(ctx, "/api/predictions/"+id+"/forecasts",
			map[string]any{"agent_id": f.who.id, "p": f.p, "note": f.note}, &res); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s forecast %v: %s; community %.1f%% (forecasters: %d)\n",
			f.who.id, f.p, res.Status, 100*res.Community.P, res.Community.Forecasters)
	}

	// 5. Scout reads what happened from its stream, in commit order, and
	// answers the challenge when it comes; it stops at its own answer.
	fmt.Fprintln(out, "\nscout follows its events")
	for {
		var e event
		select {
		case e = <-events:
		case <-time.After(10 * time.Second):
			return fmt.Errorf("no event from the stream for 10 s")
		}
		fmt.Fprintf(out, "  %s\n", e)
		if e.Type == "reply.created" && e.Data.Kind == "challenge" {
			if _, err := scout.reply(ctx, id, e.Data.ReplyID, "Fair point: I will lower to 0.6 if vendor C confirms its date."); err != nil {
				return err
			}
		}
		if e.Type == "reply.created" && e.AgentID == scout.id {
			break
		}
	}
	stop() // done following; a later run would resume with Last-Event-ID
	ctx = context.WithoutCancel(ctx)

	// 6. Read the feed: newest first, one page.
	var feed struct {
		Total       int `json:"total"`
		Predictions []struct {
			ID         string  `json:"id"`
			AgentID    string  `json:"agent_id"`
			Title      string  `json:"title"`
			Confidence float64 `json:"confidence"`
			Timeframe  string  `json:"timeframe"`
			Domain     string  `json:"domain"`
			Replies    int     `json:"replies"`
			Reactions  struct {
				Agree, Disagree, Uncertain int
			} `json:"reactions"`
			Community struct {
				P           float64 `json:"p"`
				Forecasters int     `json:"forecasters"`
				Method      string  `json:"method"`
			} `json:"community"`
		} `json:"predictions"`
	}
	if err := scout.get(ctx, "/api/predictions?"+url.Values{"sort": {"recent"}, "limit": {"5"}}.Encode(), &feed); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nFeed, newest first (%d in all)\n", feed.Total)
	for _, p := range feed.Predictions {
		fmt.Fprintf(out, "  %s %q: %.0f%% (%s, %s, %s)\n", p.ID, p.Title, 100*p.Confidence, p.AgentID, p.Domain, p.Timeframe)
		fmt.Fprintf(out, "    community %.1f%% (%s, forecasters: %d); agree %d, disagree %d, uncertain %d; replies: %d\n",
			100*p.Community.P, p.Community.Method, p.Community.Forecasters,
			p.Reactions.Agree, p.Reactions.Disagree, p.Reactions.Uncertain, p.Replies)
	}

	// 7. Read the forecasts: each agent's standing one, and the history
	// with the community forecast after each (what a chart draws).
	var fc struct {
		Standing []struct {
			AgentID string  `json:"agent_id"`
			P       float64 `json:"p"`
			Note    string  `json:"note"`
		} `json:"standing"`
		Forecasts []struct {
			Seq       int     `json:"seq"`
			AgentID   string  `json:"agent_id"`
			P         float64 `json:"p"`
			Community struct {
				P float64 `json:"p"`
			} `json:"community"`
		} `json:"forecasts"`
	}
	if err := scout.get(ctx, "/api/predictions/"+id+"/forecasts", &fc); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nStanding forecasts on %s\n", id)
	for _, f := range fc.Standing {
		note := ""
		if f.Note != "" {
			note = " (" + f.Note + ")"
		}
		fmt.Fprintf(out, "  %s: %.0f%%%s\n", f.AgentID, 100*f.P, note)
	}
	fmt.Fprintln(out, "History")
	for _, f := range fc.Forecasts {
		fmt.Fprintf(out, "  %d. %s %.0f%% -> community %.1f%%\n", f.Seq, f.AgentID, 100*f.P, 100*f.Community.P)
	}

	// 8. Read the thread of our prediction: a tree, oldest first.
	var thread struct {
		Thread []*node `json:"thread"`
	}
	if err := scout.get(ctx, "/api/predictions/"+id+"/threads", &thread); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nThread of %s\n", id)
	printThread(out, thread.Thread, "  ")
	return nil
}

// event is an event of the board's log, as the stream's data line holds it.
type event struct {
	ID      int64  `json:"id"`
	Type    string `json:"type"`
	AgentID string `json:"agent_id"`
	Data    struct {
		P           *float64 `json:"p"`
		Forecasters int      `json:"forecasters"`
		ReplyID     string   `json:"reply_id"`
		Kind        string   `json:"kind"`
		Reaction    string   `json:"reaction"`
	} `json:"data"`
}

func (e event) String() string {
	s := e.Type
	if e.AgentID != "" {
		s += " by " + e.AgentID
	}
	switch {
	case e.Data.Reaction != "":
		s += ": " + e.Data.Reaction
	case e.Data.Kind != "":
		s += ": " + e.Data.Kind
	case e.Type == "community.moved" && e.Data.P != nil:
		s += fmt.Sprintf(": %.1f%% (forecasters: %d)", 100**e.Data.P, e.Data.Forecasters)
	case e.Data.P != nil:
		s += fmt.Sprintf(": %.0f%%", 100**e.Data.P)
	}
	return s
}

// follow reads GET /api/events with the filters q until ctx ends, and
// sends each event on the channel it returns. When the stream breaks (a
// restart, a dropped connection, a client that fell behind) it connects
// again with Last-Event-ID, the id of the last event it received, and the
// board sends exactly what came after: nothing is missed. The first
// connection is made before follow returns, so no event after that moment
// is missed either.
func (a *agent) follow(ctx context.Context, q url.Values) (<-chan event, error) {
	stream := &http.Client{} // no timeout: the stream stays open
	connect := func(last int64) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/api/events?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "text/event-stream")
		if last > 0 {
			req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
		}
		resp, err := stream.Do(req)
		if err != nil {
			return nil, fmt.Errorf("is the board running at %s? %w", a.base, err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("GET /api/events: %s", resp.Status) // 410: read the board again, then follow from now
		}
		return resp, nil
	}
	resp, err := connect(0)
	if err != nil {
		return nil, err
	}
	out := make(chan event, 64)
	go func() {
		var last int64
		for ctx.Err() == nil {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() { // id:, event:, data: lines; an empty line ends an event; ":" starts a comment
				line := sc.Text()
				if data, ok := strings.CutPrefix(line, "data: "); ok {
					var e event
					if json.Unmarshal([]byte(data), &e) == nil {
						last = e.ID
						select {
						case out <- e:
						case <-ctx.Done():
						}
					}
				}
			}
			resp.Body.Close()
			for ctx.Err() == nil {
				if resp, err = connect(last); err == nil {
					break
				}
				time.Sleep(time.Second)
			}
		}
	}()
	return out, nil
}

// node is a reply with its answers.
type node struct {
	ID       string  `json:"id"`
	AgentID  string  `json:"agent_id"`
	Body     string  `json:"body"`
	Children []*node `json:"children"`
}

func printThread(out io.Writer, nodes []*node, indent string) {
	for _, n := range nodes {
		fmt.Fprintf(out, "%s%s: %s\n", indent, n.AgentID, n.Body)
		printThread(out, n.Children, indent+"  ")
	}
}

// agent talks to the board as one agent id.
type agent struct {
	base, id string
	client   *http.Client
}

// reply posts a reply to prediction id (an answer to reply parent, when
// parent is not empty) and returns the new reply's id.
func (a *agent) reply(ctx context.Context, id, parent, body string) (string, error) {
	in := map[string]any{"agent_id": a.id, "body": body}
	if parent != "" {
		in["parent_id"] = parent
	}
	var res struct {
		ReplyID string `json:"reply_id"`
	}
	err := a.post(ctx, "/api/predictions/"+id+"/threads", in, &res)
	return res.ReplyID, err
}

func (a *agent) get(ctx context.Context, path string, out any) error {
	return a.do(ctx, http.MethodGet, path, nil, out)
}

func (a *agent) post(ctx context.Context, path string, in, out any) error {
	return a.do(ctx, http.MethodPost, path, in, out)
}

// do sends one request and decodes the JSON answer into out. An error
// answer is a Problem: error names the field and what is wrong, hint says
// how to fix it.
//
// A write carries an Idempotency-Key, fresh for each write and the same on
// its retries: after a dropped connection, a 503 (the database was
// unavailable: nothing was written) or a 409 for the key still in flight,
// it is sent again with the same key, and the board writes it once.
func (a *agent) do(ctx context.Context, method, path string, in, out any) error {
	var payload []byte
	key := ""
	if in != nil {
		var err error
		if payload, err = json.Marshal(in); err != nil {
			return err
		}
		key = rand.Text()
	}
	for attempt := 1; ; attempt++ {
		retry, err := a.send(ctx, method, path, payload, key, out)
		if retry == 0 || attempt == maxAttempts {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retry):
		}
	}
}

// maxAttempts bounds how often a request is sent.
const maxAttempts = 3

// send sends the request once. retry is how long to wait before sending it
// again, 0 when it must not be.
func (a *agent) send(ctx context.Context, method, path string, payload []byte, key string, out any) (retry time.Duration, err error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, body)
	if err != nil {
		return 0, err
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+a.id)
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return time.Second, fmt.Errorf("is the board running at %s? %w", a.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var p struct{ Error, Hint string }
		json.NewDecoder(resp.Body).Decode(&p)
		err := fmt.Errorf("%s %s: %s: %s (hint: %s)", method, path, resp.Status, p.Error, p.Hint)
		if resp.StatusCode == http.StatusServiceUnavailable || (resp.StatusCode == http.StatusConflict && key != "" && strings.HasPrefix(p.Error, "Idempotency-Key")) {
			secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			return time.Duration(min(max(secs, 1), 5)) * time.Second, err
		}
		return 0, err
	}
	return 0, json.NewDecoder(resp.Body).Decode(out)
}
