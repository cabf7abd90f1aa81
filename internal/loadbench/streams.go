package loadbench

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// StreamStats counts what the streams of [HoldStreams] saw.
type StreamStats struct {
	Open       atomic.Int64 // streams open now
	Events     atomic.Int64 // events received, all streams together
	Reconnects atomic.Int64 // streams that ended and connected again with Last-Event-ID
	Failed     atomic.Int64 // connection attempts that failed or were refused
}

func (s *StreamStats) String() string {
	return fmt.Sprintf("open %d, events %d, reconnects %d, failed %d", s.Open.Load(), s.Events.Load(), s.Reconnects.Load(), s.Failed.Load())
}

// HoldStreams opens n event streams (GET base/api/events?query), one
// every ramp, and keeps them open until ctx ends, each reconnecting with
// Last-Event-ID when it ends (a stream dropped for falling behind does).
// It returns when every stream has stopped.
func HoldStreams(ctx context.Context, base, query string, n int, ramp time.Duration, st *StreamStats) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}}
	var wg sync.WaitGroup
	for i := 0; i < n && ctx.Err() == nil; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := ""
			for ctx.Err() == nil {
				last = holdStream(ctx, client, base+"/api/events"+query, last, st)
				if ctx.Err() == nil {
					st.Reconnects.Add(1)
					time.Sleep(time.Second)
				}
			}
		}()
		if ramp > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(ramp):
			}
		}
	}
	wg.Wait()
}

// holdStream reads one stream until it ends and returns the last id.
func holdStream(ctx context.Context, client *http.Client, url, last string, st *StreamStats) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		st.Failed.Add(1)
		return last
	}
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	resp, err := client.Do(req)
	if err != nil {
		st.Failed.Add(1)
		return last
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		st.Failed.Add(1)
		_, _ = io.Copy(io.Discard, resp.Body)
		return "" // a 410: follow from now
	}
	st.Open.Add(1)
	defer st.Open.Add(-1)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			last = id
			st.Events.Add(1)
		}
	}
	return last
}

// StreamsMain is `predictions-bench streams`: it holds event streams open
// against a running server and prints their counts every few seconds,
// for measuring the server's writes (the write scenario) with and without
// them.
func StreamsMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("streams", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "http://127.0.0.1:8080", "the `address` of a running predictions serve")
	n := fs.Int("n", 1000, "how many streams to hold open (the process needs a file limit above it: ulimit -n)")
	query := fs.String("query", "", "the streams' query, such as ?type=forecast.created (empty: every event)")
	ramp := fs.Duration("ramp", time.Millisecond, "the pause between two new streams")
	every := fs.Duration("report", 5*time.Second, "how often to print the counts")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	var st StreamStats
	done := make(chan struct{})
	go func() {
		defer close(done)
		HoldStreams(ctx, strings.TrimRight(*base, "/"), *query, *n, *ramp, &st)
	}()
	t := time.NewTicker(*every)
	defer t.Stop()
	for {
		select {
		case <-done:
			fmt.Fprintln(stdout, st.String())
			return 0
		case <-t.C:
			fmt.Fprintln(stdout, st.String())
		}
	}
}
