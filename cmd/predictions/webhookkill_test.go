package main

import (
	"bufio"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/webhooks/signature"
)

// Figures of the kill during webhook delivery: events written, after how
// many received deliveries the delivering replica is killed, its lease
// and the others' poll interval, and how long the survivors may take.
const (
	hookKillEvents   = 1000
	hookKillWriters  = 16
	hookKillAt       = 200
	hookKillLease    = 2 * time.Second
	hookKillInterval = 200 * time.Millisecond
	hookKillDrain    = 30 * time.Second
)

// hookSink is a TLS receiver that verifies each delivery's signature and
// records its webhook-id, the event it carries and the order of first
// arrivals. At the delivery numbered holdAt it sends the request's remote
// address on hold and answers only when release is closed: the replica
// that sent it is killed meanwhile.
type hookSink struct {
	ts      *httptest.Server
	mu      sync.Mutex
	secret  signature.Secret
	count   map[string]int    // webhook-id → deliveries
	event   map[string]string // webhook-id → prediction_id of its body
	first   []string          // webhook-ids in order of first arrival
	total   int
	bad     []string
	holdAt  int
	hold    chan string
	release chan struct{}
}

func newHookSink(t *testing.T, holdAt int) *hookSink {
	s := &hookSink{count: map[string]int{}, event: map[string]string{}, holdAt: holdAt,
		hold: make(chan string, 1), release: make(chan struct{})}
	s.ts = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id := r.Header.Get(signature.HeaderID)
		var ev board.Event
		s.mu.Lock()
		err := signature.Verify(s.secret, r.Header, body, time.Now())
		if err == nil {
			err = json.Unmarshal(body, &ev)
		}
		if err != nil {
			s.bad = append(s.bad, fmt.Sprintf("%s: %v", id, err))
			s.mu.Unlock()
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if prev, ok := s.event[id]; ok && prev != ev.PredictionID {
			s.bad = append(s.bad, fmt.Sprintf("%s carried %s, then %s", id, prev, ev.PredictionID))
		}
		if s.count[id] == 0 {
			s.first = append(s.first, id)
		}
		s.event[id] = ev.PredictionID
		s.count[id]++
		s.total++
		held := s.total == s.holdAt
		s.mu.Unlock()
		if held {
			s.hold <- r.RemoteAddr
			<-s.release
		}
	}))
	t.Cleanup(s.ts.Close)
	return s
}

// TestWebhooksKill starts three serve replicas on one fresh PostgreSQL
// database with one agent's webhook endpoint on a TLS receiver (trusted
// through SSL_CERT_FILE), writes 1,000 predictions across the replicas
// and, at the 200th delivery received, kills with SIGKILL the replica
// that sent it while the receiver holds its answer. The others must
// deliver every event at least once (by webhook-id), each signed,
// first arrivals in event-id order; duplicates are counted.
func TestWebhooksKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three replicas under load; skipped with -short")
	}
	db := pgDatabase(t) // skips without PREDICTIONS_TEST_POSTGRES
	bin := buildBinary(t)
	sink := newHookSink(t, hookKillAt)
	ca := filepath.Join(t.TempDir(), "receiver.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: sink.ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"SSL_CERT_FILE=" + ca} // crypto/x509 reads the system's roots from it
	args := []string{"--webhooks-allow-private", "--webhooks-lease", hookKillLease.String(), "--webhooks-interval", hookKillInterval.String()}
	reps := make([]*proc, 3)
	var wg sync.WaitGroup
	for i := range reps {
		wg.Go(func() { reps[i] = startServerEnv(t, bin, db, env, args...) })
	}
	wg.Wait()

	code, m := httpDo(t, "POST", reps[0].url("/api/agents/ada/webhooks"), "Bearer ada",
		`{"url":"`+sink.ts.URL+`/hook","types":["prediction.created"]}`)
	if code != http.StatusCreated {
		t.Fatalf("register: %d %v", code, m)
	}
	secret, err := signature.ParseSecret(m["secret"].(string))
	if err != nil {
		t.Fatal(err)
	}
	endpoint := m["webhook"].(map[string]any)["id"].(string)
	sink.mu.Lock()
	sink.secret = secret
	sink.mu.Unlock()

	client := &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: hookKillWriters, DisableCompression: true}}
	start := time.Now()
	var (
		mu     sync.Mutex
		acked  []string
		victim = -1
		failed []string
	)
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range hookKillEvents {
			next <- i
		}
	}()
	for range hookKillWriters {
		wg.Go(func() {
			for i := range next {
				conf := float64(i%99+1) / 100
				for attempt := 0; ; attempt++ {
					mu.Lock()
					r := (i + attempt) % len(reps)
					if r == victim {
						r = (r + 1) % len(reps)
					}
					mu.Unlock()
					p, err := postPrediction(client, reps[r].url("/api/predictions"), board.NewPrediction{AgentID: fmt.Sprintf("w%d", i%50),
						Title: fmt.Sprintf("Event %d", i), Body: "Delivered by webhook", Confidence: &conf, Timeframe: "2027", Domain: board.Domains()[i%13]})
					mu.Lock()
					switch {
					case err == nil:
						acked = append(acked, p.ID)
					case r == victim && attempt == 0: // in flight at the kill: written again elsewhere
						mu.Unlock()
						continue
					default:
						failed = append(failed, fmt.Sprintf("event %d on replica %d: %v", i, r, err))
					}
					mu.Unlock()
					break
				}
			}
		})
	}

	// The kill: the replica whose delivery the receiver holds.
	var killedAt time.Time
	select {
	case addr := <-sink.hold:
		pid, err := socketOwner(addr, sink.ts.Listener.Addr().String(), reps)
		if err != nil {
			close(sink.release)
			t.Fatal(err)
		}
		mu.Lock()
		victim = pid
		mu.Unlock()
		killedAt = time.Now()
		if err := reps[pid].cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, no report of the delivery
			t.Error(err)
		}
		reps[pid].wait(t, 10*time.Second)
		close(sink.release) // the answer goes nowhere: the row stays claimed until its lease ends
	case <-time.After(60 * time.Second):
		close(sink.release)
		t.Fatalf("fewer than %d deliveries in 60 s (%d received)", hookKillAt, sink.received())
	}
	wg.Wait()
	for _, f := range failed {
		t.Error(f)
	}
	written := time.Since(start)

	deadline := time.Now().Add(hookKillDrain)
	for sink.missing(acked) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	drained := time.Since(killedAt)

	sink.mu.Lock()
	defer sink.mu.Unlock()
	for _, b := range sink.bad {
		t.Error("bad delivery: " + b)
	}
	sink.mu.Unlock()
	lost := sink.missing(acked)
	sink.mu.Lock()
	if lost > 0 {
		t.Errorf("%d of %d acknowledged events never delivered within %s of the kill", lost, len(acked), hookKillDrain)
	}
	var seq []int64
	for _, id := range sink.first {
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(id, "evt_"), "_"+endpoint), 10, 64)
		if err != nil {
			t.Fatalf("webhook-id %q is not evt_<event>_%s", id, endpoint)
		}
		seq = append(seq, n)
	}
	if !slices.IsSorted(seq) {
		t.Errorf("first arrivals out of event-id order: %v", seq)
	}
	// Posts in flight to the victim may have committed unacknowledged:
	// their events are in the log and must be delivered too.
	var stats struct{ Predictions int }
	if status := getJSON(t, client, reps[(victim+1)%len(reps)].url("/api/stats"), &stats); status != http.StatusOK {
		t.Fatalf("GET /api/stats: %d", status)
	}
	if len(sink.count) != stats.Predictions {
		t.Errorf("%d events delivered, %d predictions stored: every stored one's event must arrive", len(sink.count), stats.Predictions)
	}
	dups := sink.total - len(sink.count)
	t.Logf("webhooks kill: %d events acknowledged in %s across 3 replicas, replica %d killed at delivery %d; "+
		"%d stored (%d committed unacknowledged at the kill), %d delivered, %d of the acknowledged lost, %d deliveries in all, %d duplicates; "+
		"all delivered %s after the kill (lease %s, poll %s)",
		len(acked), written.Round(time.Millisecond), victim, hookKillAt, stats.Predictions, stats.Predictions-len(acked), len(sink.count), lost, sink.total, dups,
		drained.Round(time.Millisecond), hookKillLease, hookKillInterval)
}

func (s *hookSink) received() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// missing is how many of the predictions acked no delivery carried yet.
func (s *hookSink) missing(acked []string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := map[string]bool{}
	for _, p := range s.event {
		got[p] = true
	}
	n := 0
	for _, p := range acked {
		if !got[p] {
			n++
		}
	}
	return n
}

// socketOwner returns the index in reps of the process holding the TCP
// connection from local (host:port, as a server sees its client) to
// remote: the connection's inode in /proc/net/tcp, then the process whose
// file descriptors include it (Linux).
func socketOwner(local, remote string, reps []*proc) (int, error) {
	port := func(addr string) (string, error) {
		i := strings.LastIndex(addr, ":")
		n, err := strconv.Atoi(addr[i+1:])
		return fmt.Sprintf("%04X", n), err
	}
	lp, err := port(local)
	if err != nil {
		return 0, err
	}
	rp, err := port(remote)
	if err != nil {
		return 0, err
	}
	var inode string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) > 9 && strings.HasSuffix(fs[1], ":"+lp) && strings.HasSuffix(fs[2], ":"+rp) {
				inode = fs[9]
			}
		}
		f.Close()
	}
	if inode == "" {
		return 0, fmt.Errorf("no socket from %s to %s in /proc/net/tcp", local, remote)
	}
	want := "socket:[" + inode + "]"
	for i, p := range reps {
		dir := fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid)
		fds, _ := os.ReadDir(dir)
		for _, fd := range fds {
			if l, _ := os.Readlink(filepath.Join(dir, fd.Name())); l == want {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("no replica holds the socket from %s to %s (inode %s)", local, remote, inode)
}
