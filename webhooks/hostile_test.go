package webhooks_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predictions-md/predictions/webhooks"
)

// rawServer is an http receiver on loopback whose answer answer writes
// on the bare connection, byte by byte as it likes, after reading the
// request. Its handlers end when the test ends.
func rawServer(t testing.TB, answer func(stop <-chan struct{}, w *bufio.Writer)) *httptest.Server {
	stop := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		answer(stop, buf.Writer)
		buf.Flush()
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(stop) }) // before Close, which waits for the handlers
	return ts
}

// hugeHeaders is an answer 200 with about size bytes of header lines,
// written from one buffer shared by every receiver, so that the
// receivers themselves cost no memory per answer.
func hugeHeaders(size int) func(<-chan struct{}, *bufio.Writer) {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n")
	line := "X-Pad-%06d: " + strings.Repeat("a", 1000) + "\r\n"
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, line, i)
	}
	b.WriteString("\r\n")
	all := b.Bytes()
	return func(_ <-chan struct{}, w *bufio.Writer) {
		for p := all; len(p) > 0; {
			n := min(len(p), 64<<10)
			if _, err := w.Write(p[:n]); err != nil {
				return // the client hung up
			}
			p = p[n:]
		}
	}
}

// trickle writes head, then one byte of body every gap until stop or the
// client hangs up.
func trickle(head string, gap time.Duration) func(<-chan struct{}, *bufio.Writer) {
	return func(stop <-chan struct{}, w *bufio.Writer) {
		w.WriteString(head)
		for {
			if err := w.Flush(); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(gap):
			}
			w.WriteByte('x')
		}
	}
}

// TestHostileReceiver: whatever a receiver answers, an attempt costs
// bounded bytes and time. Headers over MaxAnswerHeader fail the attempt
// at once; headers that never end fail it at the timeout; a 2xx whose
// body never ends is a delivery as soon as its status arrives, its body
// read for at most BodyGrace; a 500 with an endless body fails after
// BodyGrace with the start of the body.
func TestHostileReceiver(t *testing.T) {
	ctx := context.Background()
	const timeout = 2 * time.Second
	c := webhooks.NewClient(webhooks.ClientOptions{AllowHTTPLoopback: true, Timeout: timeout})
	for _, tt := range []struct {
		name   string
		answer func(<-chan struct{}, *bufio.Writer)
		ok     bool          // a delivery
		within time.Duration // the attempt's longest time
		err    string        // in the error, when not a delivery
	}{
		{"10 MB of headers", hugeHeaders(10 << 20), false, time.Second, "exceeded"},
		{"headers just under the bound", hugeHeaders(webhooks.MaxAnswerHeader - 2<<10), true, time.Second, ""},
		{"headers a byte at a time", trickle("HTTP/1.1 200 OK\r\nX-Slow: ", 50*time.Millisecond), false, timeout + time.Second, "no answer"},
		{"no status line ever", trickle("", time.Hour), false, timeout + time.Second, "no answer"},
		{"200, then a body a byte a second", trickle("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n", time.Second), true, webhooks.BodyGrace + time.Second, ""},
		{"200 chunked, a body that never ends", trickle("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000\r\n", 10*time.Millisecond), true, webhooks.BodyGrace + time.Second, ""},
		{"500, then a body a byte a second", trickle("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 1000000\r\n\r\n", time.Second), false, webhooks.BodyGrace + time.Second, "answered 500"},
		{"500 with 1 MB of body", func(_ <-chan struct{}, w *bufio.Writer) {
			w.WriteString("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 1000000\r\n\r\n")
			w.Write(bytes.Repeat([]byte("e"), 1000000))
		}, false, time.Second, "answered 500 eee"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := rawServer(t, tt.answer)
			start := time.Now()
			a, err := webhooks.Post(ctx, c, ts.URL+"/hook", nil, []byte(`{}`))
			took := time.Since(start)
			if took > tt.within {
				t.Errorf("the attempt took %s, want at most %s", took, tt.within)
			}
			if len(a.Body) > webhooks.MaxAnswer {
				t.Errorf("read %d bytes of the body, want at most %d", len(a.Body), webhooks.MaxAnswer)
			}
			delivered := err == nil && a.OK()
			if delivered != tt.ok {
				t.Fatalf("Post = status %d, %v; delivered %t, want %t", a.Status, err, delivered, tt.ok)
			}
			if !tt.ok {
				why := webhooks.Failure(a, err)
				if !strings.Contains(why, tt.err) {
					t.Errorf("failure %q, want it to say %q", why, tt.err)
				}
			}
			t.Logf("status %d, %v, %d bytes of body, in %s", a.Status, err, len(a.Body), took.Round(time.Millisecond))
		})
	}
}

// TestHostileMemory: 20 receivers answering 200 with 10 MB of headers
// each, all at once, cost the sender's process no more than 10 MB of
// heap over 20 receivers answering 204. The peak of the heap in use
// (runtime.MemStats.HeapInuse, sampled every millisecond) and the
// process's peak resident size (VmHWM) are logged.
func TestHostileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("200 MB of answers")
	}
	const receivers = 20
	hostile := hugeHeaders(10 << 20)
	polite := func(_ <-chan struct{}, w *bufio.Writer) {
		w.WriteString("HTTP/1.1 204 No Content\r\n\r\n")
	}
	c := webhooks.NewClient(webhooks.ClientOptions{AllowHTTPLoopback: true, Timeout: 20 * time.Second})
	round := func(answer func(<-chan struct{}, *bufio.Writer)) (peak uint64, hwm int) {
		urls := make([]string, receivers)
		for i := range urls {
			urls[i] = rawServer(t, answer).URL + "/hook"
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		var top atomic.Uint64
		stop := make(chan struct{})
		var sampler sync.WaitGroup
		sampler.Go(func() {
			for {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > base && ms.HeapInuse-base > top.Load() {
					top.Store(ms.HeapInuse - base)
				}
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
			}
		})
		var wg sync.WaitGroup
		for _, u := range urls {
			wg.Go(func() { webhooks.Post(context.Background(), c, u, nil, []byte(`{"type":"prediction.created"}`)) })
		}
		wg.Wait()
		close(stop)
		sampler.Wait()
		return top.Load(), vmHWM(t)
	}
	politePeak, politeHWM := round(polite)
	hostilePeak, hostileHWM := round(hostile)
	t.Logf("heap in use over the start, at its peak: %.1f MB against %d polite receivers, %.1f MB against %d with 10 MB of headers each",
		float64(politePeak)/1e6, receivers, float64(hostilePeak)/1e6, receivers)
	if politeHWM > 0 {
		t.Logf("process peak RSS (VmHWM): %.1f MB after the polite round, %.1f MB after the hostile one (the test's 10 MB answer buffer included)",
			float64(politeHWM)/1e3, float64(hostileHWM)/1e3)
	}
	if hostilePeak > politePeak+10<<20 {
		t.Errorf("hostile receivers took the heap %.1f MB higher than polite ones, want at most 10 MB", float64(hostilePeak-politePeak)/1e6)
	}
}

// vmHWM is the process's peak resident size in kB, 0 where /proc is not.
func vmHWM(t testing.TB) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}
