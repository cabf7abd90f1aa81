package boardapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/idempotency"
	"github.com/predictions-md/predictions/internal/testclock"
)

// TestIdempotencyCrashAfterCommit: a server that dies after a keyed
// write commits and before its answer leaves (a fault point where the
// process is gone: the handler is aborted, nothing is answered) has
// stored the key with the write. The same request retried on a new
// server over the same database, after idempotency.Lease, gets the
// write's answer replayed and writes nothing: one row, on each database.
func TestIdempotencyCrashAfterCommit(t *testing.T) {
	dbs := map[string]func(testing.TB) string{"sqlite": boardtest.SQLite}
	if admin := os.Getenv(pgEnv); admin != "" {
		dbs["postgres"] = func(tb testing.TB) string { return boardtest.Postgres(tb, admin) }
	}
	body := apitest.JSONBody(t, apitest.Pred("agent_id", "agent-b"))
	for name, dsn := range dbs {
		t.Run(name, func(t *testing.T) {
			db := dsn(t)
			clk := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
			serve := func(crash bool) (*apitest.Env, *board.Store) {
				s, err := board.Open(context.Background(), db, board.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				api := boardapi.New(boardapi.Options{Store: s, Idempotency: idempotency.New(s.WriteDB(), idempotency.Options{Now: clk.Now})})
				if crash {
					boardapi.SetAfterUnit(api, func() { panic(http.ErrAbortHandler) })
				}
				return apitest.NewEnv(t, httpapi.Options{Board: api}), s
			}
			dead, _ := serve(true)
			// A raw connection: net/http's client would itself resend a
			// request with an Idempotency-Key when the connection breaks.
			conn, err := net.Dial("tcp", dead.TS.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST /api/predictions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer agent-b\r\nIdempotency-Key: crash-1\r\n"+
				"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", dead.TS.Listener.Addr(), len(body), body)
			if first, _ := io.ReadAll(conn); len(first) > 0 {
				t.Fatalf("the first request was answered, the fault point should have cut it: %q", first)
			}

			clk.Advance(idempotency.Lease + time.Second)
			e, s := serve(false)
			// The replayed answer is the first server's, links and all: a
			// plain client, as apitest's checks links against this server.
			resp, err := e.TS.Client().Do(newPost(t, e.TS.URL+"/api/predictions", body, keyed("agent-b", "crash-1")))
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, resp)
			if resp.StatusCode != http.StatusCreated || resp.Header.Get(boardapi.ReplayedHeader) != "true" {
				t.Fatalf("retry: status %d, %s %q; want 201 replayed: %s", resp.StatusCode, boardapi.ReplayedHeader, resp.Header.Get(boardapi.ReplayedHeader), got)
			}
			feed, err := s.Feed(context.Background(), board.FeedQuery{})
			if err != nil {
				t.Fatal(err)
			}
			if len(feed.Predictions) != 1 {
				t.Fatalf("%d predictions stored, want 1", len(feed.Predictions))
			}
			var answer struct {
				PredictionID string `json:"prediction_id"`
			}
			if err := json.Unmarshal(got, &answer); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(feed.Predictions[0].ID, answer.PredictionID); diff != "" {
				t.Errorf("the replayed answer names another prediction (-stored +replayed):\n%s", diff)
			}
		})
	}
}

// TestIdempotencyAroundTheBoard: keyed writes of the packages around
// the board (an address registered with the mailbox, a webhook endpoint
// registered and deleted), which join the unit of work through
// database.RunInTx and database.Within, run once, and their retries
// replay the answer, instead of waiting for the connection the unit
// holds; the mailbox, made by New without its tables, is migrated before
// the unit.
func TestIdempotencyAroundTheBoard(t *testing.T) {
	e := apitest.NewBoardEnv(t, apitest.ModToken)
	reg := []byte(`{"agent_id":"ada","email":"ada@example.org"}`)
	for i, want := range []string{"", "true"} {
		resp, got := e.Do(t, http.MethodPost, "/api/agents", reg, keyed("ada", "address-1"), apitest.MustPass)
		if resp.StatusCode != http.StatusCreated || resp.Header.Get(boardapi.ReplayedHeader) != want {
			t.Fatalf("register address #%d: %d, replayed %q; want 201, %q: %s", i+1, resp.StatusCode, resp.Header.Get(boardapi.ReplayedHeader), want, got)
		}
	}
	const path = "/api/agents/ada/webhooks"
	body := []byte(`{"url":"https://hooks.example.org/a","types":["reply.created"]}`)
	var id string
	for i, want := range []string{"", "true"} {
		resp, got := e.Do(t, http.MethodPost, path, body, keyed("ada", "register-1"), apitest.MustPass)
		if resp.StatusCode != http.StatusCreated || resp.Header.Get(boardapi.ReplayedHeader) != want {
			t.Fatalf("register #%d: %d, replayed %q; want 201, %q: %s", i+1, resp.StatusCode, resp.Header.Get(boardapi.ReplayedHeader), want, got)
		}
		var created struct {
			Webhook struct {
				ID string `json:"id"`
			} `json:"webhook"`
		}
		if err := json.Unmarshal(got, &created); err != nil {
			t.Fatal(err)
		}
		if id != "" && created.Webhook.ID != id {
			t.Fatalf("the replay names endpoint %s, the first answer %s", created.Webhook.ID, id)
		}
		id = created.Webhook.ID
	}
	for i, want := range []string{"", "true"} {
		resp, got := e.Do(t, http.MethodDelete, path+"/"+id, nil, keyed("ada", "delete-1"), apitest.MustPass)
		if resp.StatusCode != http.StatusOK || resp.Header.Get(boardapi.ReplayedHeader) != want {
			t.Fatalf("delete #%d: %d, replayed %q; want 200, %q: %s", i+1, resp.StatusCode, resp.Header.Get(boardapi.ReplayedHeader), want, got)
		}
	}
}

// TestIdempotencyScopeIsTheCaller: a key belongs to the caller the route
// authenticates, not to its header's spelling: the same agent's request
// sent again with the scheme in another case or more white space is
// replayed, and writes once.
func TestIdempotencyScopeIsTheCaller(t *testing.T) {
	s := apitest.OpenStore(t)
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s})})
	body := apitest.JSONBody(t, apitest.Pred("agent_id", "agent-b"))
	var first []byte
	for i, auth := range []string{"Bearer agent-b", "bearer agent-b", "BEARER   agent-b ", "  Bearer\tagent-b"} {
		h := http.Header{"Content-Type": {"application/json"}, "Authorization": {auth}, boardapi.IdempotencyHeader: {"one-key"}}
		resp, got := e.Do(t, http.MethodPost, "/api/predictions", body, h, apitest.AnyValid)
		if i == 0 {
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("%q: %d %s, want 201", auth, resp.StatusCode, got)
			}
			first = got
			continue
		}
		if resp.StatusCode == http.StatusUnauthorized {
			continue // a spelling the routes refuse keeps no key and writes nothing
		}
		if resp.StatusCode != http.StatusCreated || resp.Header.Get(boardapi.ReplayedHeader) != "true" || string(got) != string(first) {
			t.Errorf("%q: %d, replayed %q: %s; want the first answer replayed", auth, resp.StatusCode, resp.Header.Get(boardapi.ReplayedHeader), got)
		}
	}
	if st, err := s.Stats(context.Background()); err != nil || st.Predictions != 1 {
		t.Fatalf("%d predictions (%v), want 1", st.Predictions, err)
	}
}

// TestIdempotencyOutcomeUnknown: a keyed write the database did not
// confirm is a 503 that says the write may be stored and that the retry
// with the same key is safe; the retry writes once.
func TestIdempotencyOutcomeUnknown(t *testing.T) {
	g := &gatedBoard{Store: apitest.OpenStore(t)}
	g.failures.Store(1)
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: g})})
	body := apitest.JSONBody(t, apitest.Pred())
	resp, got := e.Do(t, "POST", "/api/predictions", body, keyed("agent-a", "k-unknown"), apitest.AnyValid)
	p := apitest.ProblemOf(t, got)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.HasPrefix(p.Error, "database: did not confirm this write") || !strings.Contains(p.Hint, `same Idempotency-Key "k-unknown"`) {
		t.Fatalf("first: %d, Retry-After %q: %+v; want a 503 saying the outcome is unknown and to retry with the key", resp.StatusCode, resp.Header.Get("Retry-After"), p)
	}
	if resp, got = e.Do(t, "POST", "/api/predictions", body, keyed("agent-a", "k-unknown"), apitest.AnyValid); resp.StatusCode != http.StatusCreated {
		t.Fatalf("retry: %d %s, want 201", resp.StatusCode, got)
	}
	if st, _ := g.Stats(context.Background()); st.Predictions != 1 {
		t.Errorf("%d predictions, want 1", st.Predictions)
	}
}
