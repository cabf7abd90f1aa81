package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/smtptest"
	"github.com/predictions-md/predictions/redislimit/redistest"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Scale-out figures: how many writers, after how many acknowledged writes
// one replica is killed (the first moment after that when its sink holds
// a message of it), and how many to wait for in all.
const (
	scaleWriters   = 32
	scaleKillAt    = 300
	scaleAcks      = 900
	scaleSeeds     = 8
	scaleBurst     = 10 // --rate-agent 1/hour:10
	scalePerAgent  = 5  // writes per writer agent, below the burst
	scaleReplicas  = 3
	scaleTimeLimit = 25 * time.Second

	// E-mail: each replica polls its outbox every scaleMailInterval and
	// claims for scaleMailLease; the killed replica's sink holds each
	// message scaleSlowSink from the start of the load, and the replica
	// is killed while it waits for one: it dies holding claimed messages,
	// one of them accepted by the sink with its answer never read. The survivors must have sent everything within
	// scaleMailDrain of the kill.
	scaleMailInterval = 250 * time.Millisecond
	scaleMailLease    = 3 * time.Second
	scaleSlowSink     = 2 * time.Second
	scaleMailDrain    = 30 * time.Second
)

// TestScaleOut starts three serve replicas on one fresh PostgreSQL
// database, sharing their rate limits through Redis, and writes from 32
// goroutines across them (predictions, replies and forecasts, round
// robin over the replicas); once 300 writes are acknowledged and one
// replica is in the middle of sending an e-mail, it is killed with
// SIGKILL and the writers go on with the other two. Then:
// every write acknowledged with 2xx is in the database, every counter
// equals a recount, and an agent's budget spent on one replica is refused
// on another. Each replica sends e-mail through an SMTP sink of its own
// (scaleout_mail_test.go): agents registered, confirmed and subscribed
// before the load must each get every notification of the acknowledged
// writes at least once, the killed replica's claimed messages included,
// and nothing the rules do not allow; duplicates are counted.
func TestScaleOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three replicas under load; skipped with -short")
	}
	redisURL := redistest.URL(t)
	db := pgDatabase(t) // skips without PREDICTIONS_TEST_POSTGRES
	bin := buildBinary(t)
	args := []string{"--rate-limit", "on", "--redis-url", redisURL, "--redis-prefix", redistest.Prefix(t),
		"--rate-agent", fmt.Sprintf("1/hour:%d", scaleBurst), "--rate-address", "1000000/s:1000000",
		"--base-url", boardBase, "--mail-from", boardFrom,
		"--mail-interval", scaleMailInterval.String(), "--mail-lease", scaleMailLease.String()}
	reps := make([]*proc, scaleReplicas)
	sinks := make([]*smtptest.Server, scaleReplicas)
	var wg sync.WaitGroup
	for i := range reps {
		sinks[i] = smtptest.Start(t, smtptest.Options{})
		smtpArgs := append(slices.Clone(args), "--smtp-url", "smtp://"+sinks[i].Addr)
		wg.Go(func() { reps[i] = startServer(t, bin, db, smtpArgs...) }) // they migrate one at a time
	}
	wg.Wait()
	mails := newScaleMail(sinks)
	mails.register(t, reps)
	client := &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: scaleWriters, DisableCompression: true}}

	// The seeds are the e-mail agents' predictions, so that replies to
	// them notify their authors (and the followers of mails.follow).
	var seeds []string
	acks := map[string][]string{} // kind → acknowledged ids
	for i := range scaleSeeds {
		conf := 0.5
		p, err := postPrediction(client, reps[i%scaleReplicas].url("/api/predictions"), board.NewPrediction{
			AgentID: scaleMailAgents[i%len(scaleMailAgents)].id, Title: "Seed", Body: "For replies and forecasts",
			Confidence: &conf, Timeframe: "2027", Domain: board.Domains()[i%13]})
		if err != nil {
			t.Fatal(err)
		}
		mails.ackPrediction(p.ID, p.AgentID, p.Domain)
		seeds = append(seeds, p.ID)
	}
	mails.follow(t, client, reps, seeds, acks)
	sinks[scaleReplicas-1].SetDelay(scaleSlowSink)

	const victim = scaleReplicas - 1
	var (
		mu       sync.Mutex
		total    int
		killedAt time.Time
		killAcks int // acknowledged writes when the replica was killed
		killed   atomic.Bool
		atKill   int // writes in flight to the victim when it was killed, then failed
		failures []string
		killOnce sync.Once
		done     = make(chan struct{})
		doneOnce sync.Once
	)
	start := time.Now()
	kill := func() {
		killedAt = time.Now()
		killed.Store(true)
		if err := reps[victim].cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, no flush
			t.Error(err)
		}
	}
	for g := range scaleWriters {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				r := (g + i) % scaleReplicas
				if r == victim && killed.Load() {
					r = (r + 1) % scaleReplicas
				}
				base := reps[r].url("/api/predictions")
				agent := fmt.Sprintf("w%02d-%d", g, i/scalePerAgent)
				seed := seeds[(g+i)%len(seeds)]
				kind := [...]string{"prediction", "reply", "forecast"}[i%3]
				var id string
				var err error
				switch kind {
				case "prediction":
					conf := float64((g*37+i*11)%101) / 100
					var p board.Prediction
					p, err = postPrediction(client, base, board.NewPrediction{AgentID: agent, Title: fmt.Sprintf("Prediction %d of writer %d", i, g),
						Body: "Written across replicas", Confidence: &conf, Timeframe: "2027", Domain: board.Domains()[(g+i)%13]})
					id = p.ID
					if err == nil {
						mails.ackPrediction(p.ID, agent, p.Domain)
					}
				case "reply":
					id, err = postReply(client, base+"/"+seed+"/threads", agent, fmt.Sprintf("Reply %d of writer %d", i, g))
					if err == nil {
						mails.ackReply(id, seed, agent)
					}
				case "forecast":
					id, err = postForecast(client, base+"/"+seed+"/forecasts", agent, float64((g+i)%99+1)/100)
				}
				mu.Lock()
				switch {
				case err != nil && r == victim && killed.Load():
					atKill++ // in flight at the kill: never acknowledged
				case err != nil:
					failures = append(failures, fmt.Sprintf("writer %d, %s on replica %d: %v", g, kind, r, err))
				default:
					acks[kind] = append(acks[kind], id)
					total++
				}
				n := total
				mu.Unlock()
				if n >= scaleKillAt && sinks[victim].Held() > 0 { // it dies in an SMTP exchange, holding claimed mail
					killOnce.Do(func() {
						killAcks = n
						kill()
					})
				}
				if (n >= scaleAcks && killed.Load()) || time.Since(start) > scaleTimeLimit {
					doneOnce.Do(func() { close(done) })
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, f := range failures {
		t.Error(f)
	}
	if !killed.Load() {
		t.Fatalf("%d writes acknowledged in %s; the replica was never killed (it must have %d acknowledged and be sending a message)", total, scaleTimeLimit, scaleKillAt)
	}
	reps[victim].wait(t, 30*time.Second)

	// 0 lost: every acknowledged id is stored.
	ctx := context.Background()
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(db)))
	defer sqldb.Close()
	tables := map[string]string{"prediction": "predictions", "reply": "replies", "forecast": "forecasts"}
	lost := map[string]int{}
	stored := map[string]int{}
	for kind, table := range tables {
		ids := map[string]bool{}
		rows, err := sqldb.QueryContext(ctx, "SELECT id FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids[id] = true
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		stored[kind] = len(ids)
		for _, id := range acks[kind] {
			if !ids[id] {
				lost[kind]++
			}
		}
	}
	if diff := cmp.Diff(map[string]int{}, lost); diff != "" {
		t.Errorf("acknowledged writes not stored (-want +got):\n%s", diff)
	}

	// Counters equal a recount.
	s, err := board.Open(ctx, db, board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bad, err := s.CounterMismatches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("after the run: %s", b)
	}

	// One budget: spent on the first replica, refused on the second.
	budget := map[string]int{}
	post := `{"agent_id":"budget","title":"T","body":"B","confidence":0.4,"timeframe":"Q3 2026","domain":"space"}`
	for range scaleBurst {
		code, m := httpDo(t, "POST", reps[0].url("/api/predictions"), "Bearer budget", post)
		budget[fmt.Sprintf("replica 0: %d", code)]++
		if p, ok := m["prediction"].(map[string]any); ok && code == http.StatusCreated {
			mails.ackPrediction(p["id"].(string), "budget", p["domain"].(string))
		}
	}
	code, _ := httpDo(t, "POST", reps[1].url("/api/predictions"), "Bearer budget", post)
	budget[fmt.Sprintf("replica 1: %d", code)]++
	code, _ = httpDo(t, "POST", reps[1].url("/api/predictions/"+seeds[0]+"/forecasts"), "Bearer budget", `{"agent_id":"budget","p":0.3}`)
	budget[fmt.Sprintf("replica 1: %d", code)]++
	want := map[string]int{"replica 0: 201": scaleBurst, "replica 1: 429": 2}
	if diff := cmp.Diff(want, budget); diff != "" {
		t.Errorf("one agent's %d writes on replica 0, then a post and a forecast on replica 1 (-want +got):\n%s", scaleBurst, diff)
	}

	// E-mail: once the message the slow sink held at the kill has landed
	// and the survivors have drained the outbox, every notification of an
	// acknowledged write arrived, and nothing else but the confirmations.
	time.Sleep(time.Until(killedAt.Add(scaleSlowSink + 200*time.Millisecond)))
	mrep := mails.check(t, sqldb, killedAt, scaleMailDrain)
	if mrep.takenOver == 0 {
		t.Errorf("no outbox message was claimed twice: replica %d died holding no lease, or none was taken over", victim)
	}
	t.Logf("e-mail: %d (recipient, message) pairs expected from the acknowledged writes, %d never delivered; "+
		"%d messages received (%d distinct, %d of them for writes stored but not acknowledged; by replica %v), %d duplicates %q; "+
		"%d messages claimed again after a lease ended; outbox drained %s after the kill",
		mrep.expected, mrep.missing, mrep.delivered, mrep.distinct, mrep.unacknowledged, mrep.bySink, mrep.duplicates, mrep.dupSamples,
		mrep.takenOver, mrep.drained.Round(100*time.Millisecond))

	t.Logf("scale-out: %d replicas, %d writers, %s: acknowledged %d (predictions %d, replies %d, forecasts %d); "+
		"replica %d killed after %d acknowledged, %d writes in flight to it failed unacknowledged; "+
		"stored predictions %d (with %d seeds), replies %d, forecasts %d; lost %d; counter mismatches %d",
		scaleReplicas, scaleWriters, elapsed.Round(100*time.Millisecond), total,
		len(acks["prediction"]), len(acks["reply"]), len(acks["forecast"]),
		victim, killAcks, atKill, stored["prediction"], scaleSeeds, stored["reply"], stored["forecast"],
		lost["prediction"]+lost["reply"]+lost["forecast"], len(bad))
}

// postReply replies to the prediction of url (its /threads) as agent and
// returns the reply's id.
func postReply(client *http.Client, url, agent, text string) (string, error) {
	body, _ := json.Marshal(map[string]any{"agent_id": agent, "body": text}) // strings always marshal
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+agent)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		ID string `json:"reply_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", fmt.Errorf("status %d, body not read: %w", resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusCreated || out.ID == "" {
		return "", fmt.Errorf("status %d, reply_id %q", resp.StatusCode, out.ID)
	}
	return out.ID, nil
}
