package mcpserver

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/predictions-md/predictions/internal/baseurl"
)

// ErrOrigin is returned by [ParseOrigin] and [Handler] for an allowed
// origin that is not a scheme and host.
var ErrOrigin = errors.New("mcpserver: an allowed origin is a scheme and host with no path, such as https://app.example.org or http://localhost:6274, or * for any")

// ParseOrigin returns an origin as [Handler] compares origins: scheme
// and host in lower case, the port only when it is not the scheme's
// default (80 for http, 443 for https). "*" stays "*", any origin. It
// returns [ErrOrigin] (wrapped, with s) for anything else, such as a path,
// a query, user info, a scheme other than http or https, or the opaque
// origin "null".
func ParseOrigin(s string) (string, error) {
	if s == "*" {
		return s, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || u.User != nil || u.Opaque != "" || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("%w (got %q)", ErrOrigin, s)
	}
	o := originOf(u)
	if o == "" {
		return "", fmt.Errorf("%w (got %q)", ErrOrigin, s)
	}
	return o, nil
}

// originOf is the origin of an absolute http or https URL, as ParseOrigin
// writes it; "" for another scheme.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Host)
	switch {
	case scheme == "http":
		host = strings.TrimSuffix(host, ":80")
	case scheme == "https":
		host = strings.TrimSuffix(host, ":443")
	default:
		return ""
	}
	return scheme + "://" + host
}

// originOK reports whether r may proceed under the Origin rule of the MCP
// streamable HTTP transport ("Servers MUST validate the Origin header on
// all incoming connections to prevent DNS rebinding attacks"; specification
// 2025-11-25, Transports, Security Warning). A request without Origin
// comes from a client that is not a browser page and proceeds. An Origin
// proceeds when it is a loopback origin (a local page, such as an
// inspector on http://localhost:6274), the service's own origin (that of
// Options.BaseURL when set, else the scheme and host the request was sent
// to, if boundHost) or one of Options.AllowedOrigins; anything else, an unreadable
// origin and "null" included, is refused. It returns the origin read.
func (h *handler) originOK(r *http.Request) (string, bool) {
	vals := r.Header.Values("Origin")
	switch {
	case len(vals) == 0:
		return "", true
	case len(vals) > 1:
		return strings.Join(vals, ", "), false
	}
	o, err := ParseOrigin(strings.TrimSpace(vals[0]))
	if err != nil || o == "*" {
		return vals[0], false
	}
	if h.anyOrigin || isLoopback(o[strings.Index(o, "://")+3:]) || slices.Contains(h.origins, o) {
		return o, true
	}
	self := h.selfOrigin
	if self == "" {
		u, err := url.Parse(baseurl.Of(r, "", h.opt.TrustProxy))
		if err != nil || !h.boundHost(u.Host) {
			return o, false
		}
		self = originOf(u)
	}
	return o, o == self
}

// boundHost reports whether the host (and port) a request was sent to may
// name the service's own origin when no base URL says it: an IP address,
// which a browser sends only for a page loaded from that address, or an
// allowed host (Options.AllowedHosts). A name is not enough: in a DNS
// rebinding the attacker's name resolves to this server, and the page
// served under it sends that name as both Host and Origin, on any
// listener. With a name, set the base URL, whose origin is then the
// service's own.
func (h *handler) boundHost(hostport string) bool {
	if _, err := netip.ParseAddr(hostname(hostport)); err == nil {
		return true
	}
	hp := strings.ToLower(hostport)
	return slices.Contains(h.allowed, hp) || slices.Contains(h.allowed, hostname(hp))
}

// originHint tells the operator how to allow a refused origin.
const originHint = "a browser page may call /mcp only from the service's own origin (that of --base-url, or of an IP address the request was sent to), " +
	"a loopback origin or an allowed one; the operator sets --base-url to the public address, and allows more with --allowed-origins (PREDICTIONS_ALLOWED_ORIGINS), such as https://app.example.org. " +
	"Clients that are not browsers send no Origin header and are not affected"
