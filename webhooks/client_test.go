package webhooks_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predictions-md/predictions/webhooks"
	"github.com/predictions-md/predictions/webhooks/signature"
)

func TestAllowed(t *testing.T) {
	for _, tt := range []struct {
		addr string
		want bool
	}{
		{"8.8.8.8", true}, {"1.1.1.1", true}, {"2606:4700::1111", true}, {"100.128.0.1", true}, {"172.32.0.1", true},
		{"127.0.0.1", false}, {"127.8.9.10", false}, {"::1", false},
		{"10.0.0.1", false}, {"172.16.0.1", false}, {"192.168.1.1", false}, {"fc00::1", false}, {"fd12::1", false},
		{"169.254.169.254", false}, {"fe80::1", false},
		{"0.0.0.0", false}, {"0.1.2.3", false}, {"::", false},
		{"224.0.0.1", false}, {"239.1.1.1", false}, {"ff02::1", false}, {"255.255.255.255", false},
		{"100.64.0.1", false}, {"100.127.255.254", false},
		{"::ffff:127.0.0.1", false}, {"::ffff:10.0.0.1", false}, {"::ffff:8.8.8.8", true},
		{"64:ff9b::a00:1", false}, {"2002:a00:1::", false},
	} {
		if got := webhooks.Allowed(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("Allowed(%s) = %t, want %t", tt.addr, got, tt.want)
		}
	}
	if webhooks.Allowed(netip.Addr{}) {
		t.Error("Allowed(the zero Addr) = true")
	}
}

// countingServer is an httptest server counting the requests it got.
type countingServer struct {
	*httptest.Server
	hits atomic.Int32
}

func newCountingServer(t *testing.T, tls bool, h http.HandlerFunc) *countingServer {
	t.Helper()
	r := &countingServer{}
	wrapped := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.hits.Add(1)
		h(w, req)
	})
	if tls {
		r.Server = httptest.NewTLSServer(wrapped)
	} else {
		r.Server = httptest.NewServer(wrapped)
	}
	t.Cleanup(r.Close)
	return r
}

func answerNoContent(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }

// TestClientGuard: by default the client refuses the loopback address of
// an httptest server, by IP or by name, and http; the operator's flags
// open them.
func TestClientGuard(t *testing.T) {
	ctx := context.Background()
	secure := newCountingServer(t, true, answerNoContent)
	plain := newCountingServer(t, false, answerNoContent)
	roots := secure.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	localhost := strings.Replace(secure.URL, "127.0.0.1", "localhost", 1)
	for _, tt := range []struct {
		name string
		opt  webhooks.ClientOptions
		url  string
		want error // nil: delivered
	}{
		{"https to loopback", webhooks.ClientOptions{RootCAs: roots}, secure.URL, webhooks.ErrAddress},
		{"https to a name of loopback", webhooks.ClientOptions{RootCAs: roots}, localhost, webhooks.ErrAddress},
		{"http", webhooks.ClientOptions{RootCAs: roots}, plain.URL, webhooks.ErrScheme},
		{"http with private allowed", webhooks.ClientOptions{AllowPrivate: true}, plain.URL, webhooks.ErrScheme},
		{"http to a private address with http loopback allowed", webhooks.ClientOptions{AllowHTTPLoopback: true}, "http://10.255.255.1:9/hook", webhooks.ErrAddress},
		{"ftp", webhooks.ClientOptions{AllowPrivate: true, AllowHTTPLoopback: true}, "ftp://127.0.0.1/hook", webhooks.ErrScheme},
		{"https to loopback, private allowed", webhooks.ClientOptions{RootCAs: roots, AllowPrivate: true}, secure.URL, nil},
		{"http to loopback, http loopback allowed", webhooks.ClientOptions{AllowHTTPLoopback: true}, plain.URL, nil},
	} {
		before := secure.hits.Load() + plain.hits.Load()
		a, err := webhooks.Post(ctx, webhooks.NewClient(tt.opt), tt.url, nil, []byte(`{}`))
		after := secure.hits.Load() + plain.hits.Load()
		switch {
		case tt.want == nil && (err != nil || a.Status != http.StatusNoContent || after != before+1):
			t.Errorf("%s: Post = %+v, %v (%d requests); want 204 from the receiver", tt.name, a, err, after-before)
		case tt.want != nil && (!errors.Is(err, tt.want) || after != before):
			t.Errorf("%s: Post = %+v, %v (%d requests); want %v before any request", tt.name, a, err, after-before, tt.want)
		}
	}
}

// TestClientAnswer: the answer is read up to MaxAnswer, redirects are not
// followed, a slow receiver times out, and a signed delivery verifies on
// the receiver's side.
func TestClientAnswer(t *testing.T) {
	ctx := context.Background()
	sec, err := signature.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var verified atomic.Bool
	target := newCountingServer(t, true, answerNoContent)
	rcv := newCountingServer(t, true, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Write(bytes.Repeat([]byte("x"), 3*webhooks.MaxAnswer))
		case "/redirect":
			http.Redirect(w, r, target.URL, http.StatusFound)
		case "/slow":
			select {
			case <-release:
			case <-time.After(5 * time.Second):
			}
		case "/signed":
			body := new(bytes.Buffer)
			body.ReadFrom(r.Body)
			if err := signature.Verify(sec, r.Header, body.Bytes(), time.Now()); err != nil {
				http.Error(w, err.Error(), http.StatusUnauthorized)
				return
			}
			verified.Store(true)
			w.WriteHeader(http.StatusNoContent)
		}
	})
	t.Cleanup(func() { close(release) }) // before the receiver closes, which waits for its handlers
	roots := rcv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	c := webhooks.NewClient(webhooks.ClientOptions{RootCAs: roots, AllowPrivate: true, Timeout: 300 * time.Millisecond})

	if a, err := webhooks.Post(ctx, c, rcv.URL+"/big", nil, nil); err != nil || !a.OK() || len(a.Body) != webhooks.MaxAnswer {
		t.Errorf("big answer = status %d, %d bytes, %v; want 200 and %d bytes", a.Status, len(a.Body), err, webhooks.MaxAnswer)
	}
	if a, err := webhooks.Post(ctx, c, rcv.URL+"/redirect", nil, nil); err != nil || a.Status != http.StatusFound || a.OK() || target.hits.Load() != 0 {
		t.Errorf("redirect = status %d, %v, target hit %d times; want 302 not followed", a.Status, err, target.hits.Load())
	}
	start := time.Now()
	if _, err := webhooks.Post(ctx, c, rcv.URL+"/slow", nil, nil); err == nil || time.Since(start) > 3*time.Second {
		t.Errorf("slow receiver = %v after %v; want a timeout after 300ms", err, time.Since(start))
	}
	body := []byte(`{"type":"prediction.created"}`)
	h := http.Header{}
	if err := signature.SetHeaders(h, "evt_1", time.Now(), body, sec); err != nil {
		t.Fatal(err)
	}
	if a, err := webhooks.Post(ctx, c, rcv.URL+"/signed", h, body); err != nil || a.Status != http.StatusNoContent || !verified.Load() {
		t.Errorf("signed delivery = status %d %q, %v; want 204, verified by the receiver", a.Status, a.Body, err)
	}
}

// TestCheckURL: what registration takes is what a connection can use,
// and each refusal is an *Error on the field with its sentinel and a
// hint that says how to fix it.
func TestCheckURL(t *testing.T) {
	loop := webhooks.ClientOptions{AllowHTTPLoopback: true}
	private := webhooks.ClientOptions{AllowPrivate: true}
	none := webhooks.ClientOptions{}
	for _, tc := range []struct {
		url  string
		opt  webhooks.ClientOptions
		want error  // nil: accepted
		says string // in the problem or the hint
	}{
		{"https://hooks.example.org/a?x=1", none, nil, ""},
		{"https://93.184.216.34/a", none, nil, ""},
		{"https://hooks.example.org:8443/a", none, nil, ""},
		{"https://hooks.example.org:1/a", none, nil, ""},
		{"https://hooks.example.org:65535/a", none, nil, ""},
		{"https://hooks.example.org:/a", none, nil, ""}, // an empty port is the scheme's
		{"https://hooks.example.org./a", none, nil, ""},
		{"https://my_hooks.example.org/a", none, nil, ""},
		{"https://xn--bcher-kva.example/a", none, nil, ""},
		{"https://[2606:4700::1111]:8443/a", none, nil, ""},
		{"http://hooks.example.org/a", none, webhooks.ErrScheme, "--webhooks-allow-http"},
		{"http://hooks.example.org/a", loop, webhooks.ErrScheme, "own machine"},
		{"http://127.0.0.1:8080/a", none, webhooks.ErrScheme, "--webhooks-allow-http"},
		{"http://127.0.0.1:8080/a", loop, nil, ""},
		{"http://[::1]:8080/a", loop, nil, ""},
		{"http://localhost:8080/a", loop, nil, ""},
		{"http://127.1:8080/a", loop, webhooks.ErrURL, "127.0.0.1"},
		{"https://user:pw@hooks.example.org/a", none, webhooks.ErrScheme, "credentials"},
		{"https://hooks.example.org/a#frag", none, webhooks.ErrScheme, "fragment"},
		{"hooks.example.org/a", none, webhooks.ErrScheme, "https://"},
		{"https:///a", none, webhooks.ErrScheme, "https://"},
		{"ftp://hooks.example.org/a", none, webhooks.ErrScheme, "https"},
		// Ports.
		{"https://example.org:99999/", none, webhooks.ErrURL, "1 to 65535"},
		{"https://example.org:65536/", none, webhooks.ErrURL, "1 to 65535"},
		{"https://example.org:0/", none, webhooks.ErrURL, "1 to 65535"},
		{"https://example.org:99999999999999999999/", none, webhooks.ErrURL, "1 to 65535"},
		{"https://example.org:https/", none, webhooks.ErrURL, "1 to 65535"},
		{"https://example.org:-1/", none, webhooks.ErrURL, "1 to 65535"},
		{"https://example.org:0/", private, webhooks.ErrURL, "1 to 65535"},
		// Literal addresses.
		{"https://127.0.0.1/a", none, webhooks.ErrAddress, "--webhooks-allow-private"},
		{"https://10.1.2.3/a", none, webhooks.ErrAddress, "--webhooks-allow-private"},
		{"https://10.1.2.3/a", private, nil, ""},
		{"https://169.254.169.254/a", none, webhooks.ErrAddress, "169.254.169.254"},
		{"https://[::ffff:192.168.0.1]/a", none, webhooks.ErrAddress, "192.168.0.1"},
		{"https://100.64.0.1/a", none, webhooks.ErrAddress, "100.64.0.1"},
		{"https://[fe80::1%25eth0]/a", none, webhooks.ErrAddress, "fe80::1"},
		{"https://%31%32%37.0.0.1/a", none, webhooks.ErrScheme, "absolute URL"},
		// IPv4 in the other forms a resolver may read: refused whatever they name.
		{"https://127.1/a", none, webhooks.ErrURL, "127.0.0.1"},
		{"https://127.0.1/a", none, webhooks.ErrURL, "127.0.0.1"},
		{"https://2130706433/a", none, webhooks.ErrURL, "127.0.0.1"},
		{"https://0x7f.1/a", none, webhooks.ErrURL, "127.0.0.1"},
		{"https://0x7f000001/a", none, webhooks.ErrURL, "127.0.0.1"},
		{"https://0177.0.0.1/a", none, webhooks.ErrURL, "127.0.0.1"},
		{"https://010.0.0.1/a", none, webhooks.ErrURL, "8.0.0.1"},
		{"https://127.0.0.1./a", none, webhooks.ErrURL, "127.0.0.1"},
		{"https://0/a", none, webhooks.ErrURL, "0.0.0.0"},
		{"https://134744072/a", none, webhooks.ErrURL, "8.8.8.8"},
		{"https://134744072/a", private, webhooks.ErrURL, "8.8.8.8"},
		{"https://1.2.3.4.5/a", none, webhooks.ErrURL, "dotted decimal"},
		{"https://256.1.1.1/a", none, webhooks.ErrURL, "dotted decimal"},
		{"https://08.1/a", none, webhooks.ErrURL, "dotted decimal"},
		{"https://hooks.0x10/a", none, webhooks.ErrURL, "dotted decimal"},
		// Names no resolver looks up, and localhost.
		{"https://-hooks.example.org/a", none, webhooks.ErrURL, "hyphen"},
		{"https://hooks-.example.org/a", none, webhooks.ErrURL, "hyphen"},
		{"https://hooks..example.org/a", none, webhooks.ErrURL, "empty label"},
		{"https://" + strings.Repeat("a", 64) + ".example.org/a", none, webhooks.ErrURL, "63"},
		{"https://" + strings.Repeat("abcdefghi.", 26) + "org/a", none, webhooks.ErrURL, "253"},
		{"https://hooks!.example.org/a", none, webhooks.ErrURL, "letters, digits"},
		{"https://bücher.example/a", none, webhooks.ErrURL, "xn--"},
		{"https://localhost/a", none, webhooks.ErrAddress, "loopback"},
		{"https://LocalHost./a", none, webhooks.ErrAddress, "loopback"},
		{"https://hooks.localhost/a", none, webhooks.ErrAddress, "loopback"},
		{"https://localhost/a", private, nil, ""},
	} {
		err := webhooks.CheckURL("url", tc.url, tc.opt)
		var we *signature.Error
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("webhooks.CheckURL(%q, %+v) = %v, want nil", tc.url, tc.opt, err)
		case tc.want != nil && (!errors.Is(err, tc.want) || !errors.As(err, &we) || we.Field != "url"):
			t.Errorf("webhooks.CheckURL(%q, %+v) = %v, want an *Error on url wrapping %v", tc.url, tc.opt, err, tc.want)
		case tc.want != nil && !strings.Contains(we.Problem+" "+we.Hint, tc.says):
			t.Errorf("webhooks.CheckURL(%q) = %q (hint %q), want it to say %q", tc.url, we.Problem, we.Hint, tc.says)
		}
	}
	// An http URL refused because the operator has not allowed http says
	// which flag would.
	for _, u := range []string{"http://127.0.0.1:8080/a", "http://hooks.example.org/a"} {
		var we *signature.Error
		if err := webhooks.CheckURL("url", u, webhooks.ClientOptions{}); !errors.As(err, &we) || !strings.Contains(we.Hint, "--webhooks-allow-http") {
			t.Errorf("webhooks.CheckURL(%q) = %v, want a hint naming --webhooks-allow-http", u, err)
		}
	}
}
