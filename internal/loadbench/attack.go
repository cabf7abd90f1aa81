package loadbench

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// tally accumulates the outcome of one side of a comparison over rounds.
type tally struct {
	lat     []time.Duration // of successful requests
	errors  uint64
	elapsed time.Duration // summed over rounds
	texts   map[string]bool
}

func (t *tally) fail(text string) {
	t.errors++
	if t.texts == nil {
		t.texts = map[string]bool{}
	}
	if len(t.texts) < 5 {
		t.texts[text] = true
	}
}

// figures are the measurements of one scenario.
type figures struct {
	requests uint64
	rps      float64 // successful requests (or rows) per second
	p50, p99 time.Duration
	errors   uint64
	errText  []string // distinct error texts, at most a few
}

func (t *tally) figures() figures {
	lat := slices.Clone(t.lat)
	slices.Sort(lat)
	f := figures{requests: uint64(len(lat)) + t.errors, errors: t.errors}
	if n := len(lat); n > 0 {
		f.p50 = lat[(n-1)*50/100]
		f.p99 = lat[(n-1)*99/100]
	}
	if t.elapsed > 0 {
		f.rps = float64(len(lat)) / t.elapsed.Seconds()
	}
	for text := range t.texts {
		f.errText = append(f.errText, text)
	}
	slices.Sort(f.errText)
	return f
}

// newClient returns the HTTP client of one scenario: keep-alive, at most
// conns connections, no redirects, no compression. Warm-up and rounds
// share it, so measurements run on open connections.
func newClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// attack drives tr closed-loop with conns workers (vegeta at rate 0: each
// worker sends its next request when its previous one has answered) for
// d, adding the outcome to t when t is not nil. A response outside 2xx
// counts as an error.
func attack(ctx context.Context, c *http.Client, tr vegeta.Targeter, conns int, d time.Duration, t *tally) {
	atk := vegeta.NewAttacker(
		vegeta.Client(c),
		vegeta.Workers(uint64(conns)),
		vegeta.MaxWorkers(uint64(conns)),
		vegeta.MaxBody(0), // read and discard the body; its content is checked before
	)
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	began := time.Now()
	for res := range atk.Attack(tr, vegeta.ConstantPacer{}, d, "") {
		if t == nil {
			continue
		}
		switch {
		case res.Error != "":
			t.fail(res.Error)
		case res.Code < 200 || res.Code > 299:
			t.fail("status " + strconv.Itoa(int(res.Code)))
		default:
			t.lat = append(t.lat, res.Latency)
		}
	}
	if t != nil {
		t.elapsed += time.Since(began)
	}
}
