package loadbench

import (
	"context"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// figures are the measurements of one run of one scenario.
type figures struct {
	requests uint64
	rps      float64 // successful requests (or rows) per second
	p50, p99 time.Duration
	errors   uint64
	errText  []string // distinct error texts, at most a few
}

// newClient returns the HTTP client of one scenario: keep-alive, at most
// conns connections, no redirects, no compression. Warm-up and measurement
// share it, so the measurement starts on open connections.
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
// worker sends its next request when the previous one has answered) for d,
// and returns the figures. A response outside 2xx counts as an error.
func attack(ctx context.Context, c *http.Client, tr vegeta.Targeter, conns int, d time.Duration) figures {
	atk := vegeta.NewAttacker(
		vegeta.Client(c),
		vegeta.Workers(uint64(conns)),
		vegeta.MaxWorkers(uint64(conns)),
		vegeta.MaxBody(0), // read and discard the body; sizes are checked before
	)
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	var m vegeta.Metrics
	var errs uint64
	texts := map[string]bool{}
	for res := range atk.Attack(tr, vegeta.ConstantPacer{}, d, "") {
		if res.Error == "" && (res.Code < 200 || res.Code > 299) {
			res.Error = "status " + strconv.Itoa(int(res.Code))
		}
		if res.Error != "" {
			errs++
			if len(texts) < 5 {
				texts[res.Error] = true
			}
		}
		m.Add(res)
	}
	m.Close()
	f := figures{requests: m.Requests, errors: errs,
		p50: m.Latencies.Quantile(0.50), p99: m.Latencies.Quantile(0.99)}
	if elapsed := (m.Duration + m.Wait).Seconds(); elapsed > 0 {
		f.rps = float64(m.Requests-errs) / elapsed
	}
	for t := range texts {
		f.errText = append(f.errText, t)
	}
	sort.Strings(f.errText)
	return f
}

// latencyFigures summarises a set of latencies measured outside vegeta.
func latencyFigures(lat []time.Duration, errs uint64, elapsed time.Duration) figures {
	slices.Sort(lat)
	f := figures{requests: uint64(len(lat)) + errs, errors: errs}
	if n := len(lat); n > 0 {
		f.p50 = lat[n*50/100]
		f.p99 = lat[min(n-1, n*99/100)]
		f.rps = float64(n) / elapsed.Seconds()
	}
	return f
}
