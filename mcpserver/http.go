package mcpserver

import (
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/predictions-md/predictions/internal/baseurl"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxServers bounds the servers [Handler] keeps, one per base URL, when the
// base URL comes from requests: the Host header is the client's to choose.
const maxServers = 16

// Handler returns the MCP endpoint as an http.Handler, to mount at /mcp. It
// serves the streamable HTTP transport statelessly (no Mcp-Session-Id; every
// POST stands alone) and answers with application/json, never with an event
// stream; GET and DELETE get 405. Before the SDK sees a request it:
//
//   - refuses, with 403, a request that arrives on a loopback address with a
//     Host that is not a loopback name, the host of BaseURL or one of
//     AllowedHosts (DNS-rebinding protection; see
//     [Options.DisableDNSRebindingProtection]);
//   - refuses, with 413, a body whose Content-Length exceeds [MaxBodyBytes];
//   - reads a missing Content-Type as application/json;
//   - adds text/event-stream to an Accept header that is missing or allows
//     JSON only, because the SDK demands both and the answer is JSON anyway;
//   - answers a plain single tools/call itself, calling the same tool
//     handler and encoding the answer as the SDK does, byte for byte,
//     without the session the SDK builds for every stateless POST (a
//     quarter of the CPU, a tenth of the memory; see docs/BENCHMARKS.md).
//     Everything else (initialize, lists, prompts, resources, batches,
//     notifications, _meta, the 2026-07-28 protocol) is the SDK's.
//
// It adds no CORS headers and no authentication: the HTTP adapter adds CORS.
// It returns [ErrBaseURL] (wrapped) for a bad opt.BaseURL.
func Handler(opt Options) (http.Handler, error) {
	h := &handler{opt: opt, sites: make(map[string]*site), byRequest: make(map[string]*site)}
	if opt.BaseURL != "" {
		base, err := cleanBase(opt.BaseURL)
		if err != nil {
			return nil, err
		}
		h.fixed = newSite(opt, base)
		h.allowed = append(h.allowed, hostOf(base))
	}
	for _, host := range opt.AllowedHosts {
		h.allowed = append(h.allowed, strings.ToLower(host))
	}
	h.sdk = mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if s := h.site(r); s != nil {
			return s.server
		}
		return nil // the SDK answers 400
	}, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true,
		Logger:                     opt.Logger,
		DisableLocalhostProtection: true, // checked by handler.hostOK, which also allows the base URL's host
		MaxRequestBodyBytes:        MaxBodyBytes,
	})
	return h, nil
}

type handler struct {
	opt     Options
	sdk     http.Handler
	fixed   *site    // the site for Options.BaseURL, if set
	allowed []string // Host values accepted on loopback connections, lower case

	mu    sync.Mutex
	sites map[string]*site // by base URL, when it comes from requests
	// byRequest holds the same sites by the base URL as baseurl.Of
	// writes it, before cleanBase: a request from a known host finds its
	// site without parsing a URL.
	byRequest map[string]*site
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.opt.DisableDNSRebindingProtection && !h.hostOK(r) {
		http.Error(w, "Forbidden: Host "+r.Host+" is not allowed on a loopback connection; "+
			"set the base URL (--base-url) to the public address, or add the host to the allowed hosts", http.StatusForbidden)
		return
	}
	if r.Method == http.MethodPost {
		if r.ContentLength > MaxBodyBytes {
			// Refuse at once rather than wait for a body that will be refused.
			http.Error(w, "Request Entity Too Large: the body may have at most 1 MB", http.StatusRequestEntityTooLarge)
			return
		}
		if r.Header.Get("Content-Type") == "" {
			r.Header.Set("Content-Type", "application/json")
		}
		if acceptsJSONOnly(r.Header.Values("Accept")) {
			r.Header.Set("Accept", "application/json, text/event-stream")
		}
	}
	h.sdk.ServeHTTP(w, r)
}

// hostOK reports whether r may proceed under DNS-rebinding protection: it
// arrived on a non-loopback address, or its Host is a loopback name or an
// allowed host.
func (h *handler) hostOK(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !isLoopback(local.String()) {
		return true
	}
	return isLoopback(r.Host) || slices.Contains(h.allowed, strings.ToLower(r.Host)) ||
		slices.Contains(h.allowed, strings.ToLower(hostname(r.Host)))
}

// site returns the site for the request's base URL, or nil when the base
// URL taken from the request is not a valid one.
func (h *handler) site(r *http.Request) *site {
	if h.fixed != nil {
		return h.fixed
	}
	raw := baseurl.Of(r, "", h.opt.TrustProxy)
	h.mu.Lock()
	s, ok := h.byRequest[raw]
	h.mu.Unlock()
	if ok {
		return s
	}
	base, err := cleanBase(raw)
	if err != nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok = h.sites[base]
	if !ok {
		s = newSite(h.opt, base)
		if len(h.sites) < maxServers {
			h.sites[base] = s
		}
	}
	if len(h.byRequest) < maxServers && h.sites[base] == s {
		h.byRequest[raw] = s
	}
	return s
}

// acceptsJSONOnly reports whether an Accept header is missing, or allows
// JSON but not an event stream.
func acceptsJSONOnly(values []string) bool {
	jsonOK, streamOK := accepts(values)
	return len(values) == 0 || (jsonOK && !streamOK)
}

// accepts reports whether Accept header values allow JSON and an event
// stream, read as the SDK reads them.
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			media, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(media)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// hostname drops the port from a host[:port] value and the brackets from
// an IPv6 literal.
func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// hostOf returns the lower-case host[:port] of a clean base URL.
func hostOf(base string) string {
	rest := base[strings.Index(base, "://")+3:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return strings.ToLower(rest)
}

// isLoopback reports whether a host[:port] is localhost or a loopback IP,
// as the SDK's own check does.
func isLoopback(hostport string) bool {
	host := hostname(hostport)
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
