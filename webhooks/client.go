package webhooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/predictions-md/predictions/webhooks/signature"
)

// Defaults of [NewClient] and [Post].
const (
	// DefaultTimeout bounds a delivery, from dialing to the end of the
	// answer: a receiver that is slow is a failed attempt, retried later.
	DefaultTimeout = 10 * time.Second
	// MaxAnswer is how much of a receiver's answer [Post] reads: enough
	// for an error message, never a receiver's whole page.
	MaxAnswer = 4 << 10
	// MaxAnswerHeader bounds the bytes of an answer's status line and
	// headers: more fails the attempt at once (net/http's own bound, 10
	// MiB, let 20 receivers take the process's heap 180 MB higher).
	MaxAnswerHeader = 16 << 10
	// BodyGrace is how long [Post] reads an answer's body after its
	// status: the status alone decides the outcome (a 2xx is a delivery
	// as soon as it arrives), and the body, at most MaxAnswer bytes of
	// it, is read only to reuse the connection and to quote an error.
	BodyGrace = time.Second
)

// Sentinel errors of the client: its refusals wrap them, and so does
// the *[signature.Error] of [CheckURL].
var (
	// ErrAddress: the URL's host resolves to an address a webhook may not
	// reach (loopback, private, link-local, unspecified, multicast,
	// shared CGNAT), unless the operator allowed it.
	ErrAddress = errors.New("webhook: address not allowed")
	// ErrScheme: the URL is not https (nor http to a loopback address
	// when that is allowed).
	ErrScheme = errors.New("webhook: scheme not allowed")
	// ErrURL: the URL's port or host is one no connection can use as
	// written: a port outside 1–65535, an IPv4 address in another form
	// than dotted decimal, or a host that is no name Go's resolver looks
	// up.
	ErrURL = errors.New("webhook: URL not reachable as written")
)

// ClientOptions configure [NewClient]. The zero value reaches public
// https addresses only.
type ClientOptions struct {
	// AllowPrivate lets deliveries reach the addresses refused by
	// default: loopback, private (RFC 1918, RFC 4193), link-local,
	// unspecified, multicast and shared (RFC 6598, CGNAT) addresses, for
	// an operator whose receivers live on its own network.
	AllowPrivate bool
	// AllowHTTPLoopback lets http:// URLs through when they reach a
	// loopback address, for a receiver on the same machine during
	// development; any other http:// URL is refused.
	AllowHTTPLoopback bool
	// Timeout bounds each delivery; 0 means [DefaultTimeout].
	Timeout time.Duration
	// RootCAs are the authorities trusted for https; nil means the
	// system's.
	RootCAs *x509.CertPool
}

// blocked are the networks a webhook may not reach by default, beyond
// what netip.Addr's predicates name: "this network" (RFC 791), shared
// address space (RFC 6598, CGNAT), the limited broadcast address, and
// the IPv6 prefixes that embed an IPv4 address (NAT64, RFC 6052; 6to4,
// RFC 3056), whose IPv4 part could be private.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("255.255.255.255/32"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("2002::/16"),
}

// Allowed reports whether a webhook may reach addr by default: a public
// unicast address. IPv4 addresses mapped into IPv6 are judged as IPv4.
func Allowed(addr netip.Addr) bool {
	a := addr.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// guard is a net.Dialer Control that checks the address about to be
// dialled, after DNS resolution, so that a name resolving to a refused
// address (at registration or later, DNS rebinding) is refused too.
func guard(allow func(netip.Addr) bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s %s is not an IP address and port", ErrAddress, network, address)
		}
		if !allow(ap.Addr()) {
			return fmt.Errorf("%w: %s", ErrAddress, ap.Addr())
		}
		return nil
	}
}

// NewClient returns an http.Client for deliveries that refuses, at each
// connection, the addresses a webhook may not reach (see [Allowed],
// [ClientOptions.AllowPrivate]), answers https only (see
// [ClientOptions.AllowHTTPLoopback]), follows no redirect (the Standard
// Webhooks specification counts a 3xx as a failure; the receiver updates
// its URL instead), uses no proxy from the environment, and gives up
// after the timeout. A refused URL fails with an error wrapping
// [ErrAddress] or [ErrScheme].
func NewClient(opt ClientOptions) *http.Client {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	transport := func(allow func(netip.Addr) bool) *http.Transport {
		d := &net.Dialer{Timeout: timeout, Control: guard(allow)}
		return &http.Transport{
			Proxy:                  nil, // a proxy would be dialled instead of the receiver, past the guard
			DialContext:            d.DialContext,
			TLSClientConfig:        &tls.Config{RootCAs: opt.RootCAs, MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:    timeout,
			ResponseHeaderTimeout:  timeout,
			MaxResponseHeaderBytes: MaxAnswerHeader,
			MaxIdleConns:           100,
			MaxIdleConnsPerHost:    16,
			IdleConnTimeout:        90 * time.Second,
		}
	}
	secure := Allowed
	if opt.AllowPrivate {
		secure = func(a netip.Addr) bool { return a.IsValid() }
	}
	rt := &schemes{https: transport(secure)}
	if opt.AllowHTTPLoopback {
		rt.http = transport(func(a netip.Addr) bool { return a.Unmap().IsLoopback() })
	}
	return &http.Client{
		Transport: rt,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// schemes sends https through one transport and, when allowed, http
// through another that reaches loopback addresses only.
type schemes struct{ https, http *http.Transport }

func (s *schemes) RoundTrip(r *http.Request) (*http.Response, error) {
	switch {
	case r.URL.Scheme == "https":
		return s.https.RoundTrip(r)
	case r.URL.Scheme == "http" && s.http != nil:
		return s.http.RoundTrip(r)
	}
	if r.Body != nil {
		r.Body.Close()
	}
	return nil, fmt.Errorf("%w: %q; webhook URLs are https", ErrScheme, r.URL.Scheme)
}

// Answer is a receiver's answer to a delivery.
type Answer struct {
	Status int
	Body   []byte // at most MaxAnswer bytes of it
}

// OK reports a 2xx status, the only success the specification counts.
func (a Answer) OK() bool { return a.Status >= 200 && a.Status < 300 }

// Post delivers body (JSON) to target with the headers of h (the
// signature's, [signature.SetHeaders]) through c, and returns the status
// and what came of the answer's body within [BodyGrace], at most
// [MaxAnswer] bytes; the rest is not read, and a body that fails or is
// slow changes nothing: the status is the outcome. The error is the
// transport's before the status (refused address or scheme, timeout,
// connection, headers over [MaxAnswerHeader] with [NewClient]'s client);
// a non-2xx answer is not an error ([Answer.OK]).
func Post(ctx context.Context, c *http.Client, target string, h http.Header, body []byte) (Answer, error) {
	u, err := url.Parse(target)
	if err != nil {
		return Answer{}, fmt.Errorf("webhook: URL %q: %w", target, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return Answer{}, err
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return Answer{}, err
	}
	defer resp.Body.Close()
	grace := time.AfterFunc(BodyGrace, cancel) // ends the read below
	defer grace.Stop()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer))
	return Answer{Status: resp.StatusCode, Body: b}, nil
}

// CheckURL checks an endpoint's URL at registration, as the field named
// field, with the rules of a client made with opt, so that what is
// registered is what a delivery can reach: https (or http to a loopback
// address with [ClientOptions.AllowHTTPLoopback]); no user name or
// password (a credential in a URL ends up in logs; the signature
// authenticates deliveries); no fragment; a port from 1 to 65535; a host
// that is an IP address, IPv4 in dotted decimal (127.1, 2130706433,
// 0x7f.1 and 010.0.0.1 are refused, naming the address a resolver may
// read in them) or a host name in ASCII as Go's resolver takes it; and
// neither a literal address [Allowed] refuses nor localhost unless
// [ClientOptions.AllowPrivate]. A name is not resolved here: what it
// resolves to is checked at each connection ([NewClient]), so a name
// that later resolves to a refused address is refused then.
//
// Errors: an *[signature.Error] on field wrapping [ErrScheme],
// [ErrAddress] or [ErrURL].
func CheckURL(field, raw string, opt ClientOptions) error {
	const hint = "send the https URL of your receiver, such as https://agent.example.org/hooks/predictions"
	bad := func(sentinel error, problem, hint string) error {
		return &signature.Error{Field: field, Problem: problem, Hint: hint, Err: sentinel}
	}
	const portHint = "send the port your receiver listens on, such as https://agent.example.org:8443/hooks, or leave it out for 443"
	u, err := url.Parse(raw)
	if err != nil && strings.Contains(err.Error(), "invalid port") {
		return bad(ErrURL, "has a port that is not a number from 1 to 65535", portHint)
	}
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return bad(ErrScheme, fmt.Sprintf("%.80q is not an absolute URL with a host", raw), hint)
	}
	if u.User != nil {
		return bad(ErrScheme, "holds a user name or password", "leave credentials out of the URL: each delivery is signed with the endpoint's secret, which the receiver verifies")
	}
	if u.Fragment != "" || strings.HasSuffix(raw, "#") {
		return bad(ErrScheme, "has a fragment (#...), which is never sent", hint)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return bad(ErrURL, fmt.Sprintf("has the port %.20s; a port is 1 to 65535", p), portHint)
		}
	}
	host := u.Hostname()
	addr, literal := netip.ParseAddr(host)
	if literal != nil {
		if err := checkHostName(host); err != nil {
			return bad(ErrURL, err.Error(), "write an IPv4 address in dotted decimal, four numbers from 0 to 255 such as 93.184.216.34; "+
				"an IPv6 address in brackets; or a host name of ASCII letters, digits and hyphens, an international name in its xn-- form")
		}
	}
	loopback := literal == nil && addr.Unmap().IsLoopback() || strings.EqualFold(strings.TrimSuffix(host, "."), "localhost")
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && opt.AllowHTTPLoopback && loopback:
	case u.Scheme == "http" && opt.AllowHTTPLoopback:
		return bad(ErrScheme, "is http to an address that is not loopback", "use https; this server takes http only for a receiver on its own machine (127.0.0.1, ::1, localhost)")
	case u.Scheme == "http":
		return bad(ErrScheme, "is http; webhook URLs are https",
			"use https; http reaches only a receiver on the server's own machine (127.0.0.1, ::1, localhost), and only when its operator starts it with --webhooks-allow-http")
	default:
		return bad(ErrScheme, fmt.Sprintf("has the scheme %.20q; webhook URLs are https", u.Scheme), hint)
	}
	const private = "use a public address; this server delivers to private networks only when its operator allows it (--webhooks-allow-private)"
	if u.Scheme == "http" || opt.AllowPrivate {
		return nil
	}
	if literal == nil && !Allowed(addr) {
		return bad(ErrAddress, fmt.Sprintf("names %s, a loopback, private, link-local or otherwise non-public address", addr), private)
	}
	if isLocalhost(host) {
		return bad(ErrAddress, fmt.Sprintf("names %s, which resolves to a loopback address", host), private)
	}
	return nil
}

// checkHostName says what is wrong with host, a URL's host that is not
// an IP address, as a connection would take it. A host whose last label
// is a number is an IPv4 address as the URL standard (WHATWG, "IPv4
// parser") and inet_aton read it, which some resolvers dial and Go's
// refuses: 127.1, 2130706433 and 0x7f.1 are 127.0.0.1. Other hosts must
// be a name Go's resolver looks up (net's isDomainName): labels of ASCII
// letters, digits, hyphens and underscores, 1 to 63 bytes, no hyphen at
// a label's ends, at most 253 bytes in all, not all digits.
func checkHostName(host string) error {
	name := strings.TrimSuffix(host, ".")
	labels := strings.Split(name, ".")
	if last := labels[len(labels)-1]; isNumber(last) {
		if a, ok := inetAton(name); ok {
			return fmt.Errorf("names the IPv4 address %s written as %.40q; only dotted decimal is taken", a, host)
		}
		return fmt.Errorf("%.80q ends in a number but is no IPv4 address", host)
	}
	if !utf8ASCII(host) {
		return fmt.Errorf("%.80q is not ASCII", host)
	}
	if len(name) == 0 || len(name) > 253 {
		return fmt.Errorf("%.80q is not a host name of 1 to 253 bytes", host)
	}
	for _, l := range labels {
		switch {
		case l == "":
			return fmt.Errorf("%.80q has an empty label (two dots, or a dot first)", host)
		case len(l) > 63:
			return fmt.Errorf("%.80q has a label over 63 bytes", host)
		case l[0] == '-' || l[len(l)-1] == '-':
			return fmt.Errorf("%.80q has a label that starts or ends with a hyphen", host)
		case strings.ContainsFunc(l, func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_')
		}):
			return fmt.Errorf("%.80q holds a character other than letters, digits, hyphens and underscores", host)
		}
	}
	return nil
}

func utf8ASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isNumber reports a label the URL standard reads as a number: decimal
// digits, or 0x followed by hexadecimal digits (or nothing).
func isNumber(l string) bool {
	if h, ok := strings.CutPrefix(strings.ToLower(l), "0x"); ok {
		return !strings.ContainsFunc(h, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') })
	}
	return l != "" && !strings.ContainsFunc(l, func(r rune) bool { return r < '0' || r > '9' })
}

// inetAton reads s as inet_aton(3) does: one to four parts, each
// decimal, octal (a leading 0) or hexadecimal (0x), the last filling the
// bits the others leave.
func inetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
			if digits == "" {
				digits = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil || p == "" {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var a uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		a |= v << (24 - 8*i)
	}
	last, room := vals[len(vals)-1], uint(32-8*(len(vals)-1))
	if last >= 1<<room {
		return netip.Addr{}, false
	}
	a |= last
	return netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}), true
}

// isLocalhost reports localhost and the names under it, which resolve
// to loopback (RFC 6761, section 6.3).
func isLocalhost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}
