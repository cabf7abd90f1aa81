package mcpserver

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/predictions-md/predictions/internal/baseurl"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxServers bounds the servers [Handler] keeps, one per base URL, when the
// base URL comes from requests: the Host header is the client's to choose.
const maxServers = 16

// Handler returns the MCP endpoint as an http.Handler, to mount at /mcp. It
// serves the streamable HTTP transport statelessly (no Mcp-Session-Id; every
// POST stands alone) and answers with application/json, never with an event
// stream; GET and DELETE get 405. Every request goes through the SDK, but
// before the SDK sees it the handler:
//
//   - refuses, with 403, a request that arrives on a loopback address with a
//     Host that is not a loopback name, the host of BaseURL or one of
//     AllowedHosts (DNS-rebinding protection; see
//     [Options.DisableDNSRebindingProtection]);
//   - refuses, with 403, a request whose Origin header is not the
//     service's own origin, a loopback origin or one of AllowedOrigins (the
//     transport specification's Origin rule; a request without Origin, as
//     clients that are not browsers send, proceeds);
//   - refuses, with 413, a body whose Content-Length exceeds [MaxBodyBytes];
//   - refuses, with 400 and a JSON-RPC error, an MCP-Protocol-Version it
//     does not serve, naming the versions initialize negotiates and the
//     one served through server/discover;
//   - reads a missing Content-Type as application/json;
//   - adds text/event-stream to an Accept header that is missing or allows
//     JSON only, because the SDK demands both and the answer is JSON anyway.
//
// Both 403s carry a JSON-RPC error response with no id (code -32000) and a
// hint. After the SDK, the handler turns its plain-text 400 for a method it
// does not serve into the JSON-RPC error -32601 (Method not found): the
// response to the request, with HTTP 200, or with no id and HTTP 400 for
// a notification. The server answers a resources/read of an unknown
// resource with -32002 under protocol versions before 2026-07-28 and
// -32602 from then on, as each version of the specification says.
//
// It adds no CORS headers and no authentication: the HTTP adapter adds CORS.
// It returns [ErrBaseURL] (wrapped) for a bad opt.BaseURL and [ErrOrigin]
// (wrapped) for a bad entry of opt.AllowedOrigins.
func Handler(opt Options) (http.Handler, error) {
	h := &handler{opt: opt, sites: make(map[string]*site), byRequest: make(map[string]*site)}
	if opt.BaseURL != "" {
		base, err := cleanBase(opt.BaseURL)
		if err != nil {
			return nil, err
		}
		h.fixed = newSite(opt, base)
		h.allowed = append(h.allowed, hostOf(base))
		u, _ := url.Parse(base) // checked by cleanBase
		h.selfOrigin = originOf(u)
	}
	for _, host := range opt.AllowedHosts {
		h.allowed = append(h.allowed, strings.ToLower(host))
	}
	for _, o := range opt.AllowedOrigins {
		o, err := ParseOrigin(strings.TrimSpace(o))
		if err != nil {
			return nil, err
		}
		h.anyOrigin = h.anyOrigin || o == "*"
		h.origins = append(h.origins, o)
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
	// selfOrigin is the origin of Options.BaseURL, "" when the base URL
	// comes from requests; origins are Options.AllowedOrigins as
	// ParseOrigin writes them, anyOrigin whether one is "*".
	selfOrigin string
	origins    []string
	anyOrigin  bool

	mu    sync.Mutex
	sites map[string]*site // by base URL, when it comes from requests
	// byRequest holds the same sites by the base URL as baseurl.Of
	// writes it, before cleanBase: a request from a known host finds its
	// site without parsing a URL.
	byRequest map[string]*site
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.opt.DisableDNSRebindingProtection && !h.hostOK(r) {
		writeRPCError(w, http.StatusForbidden, jsonrpc.ID{}, codeRefused, "Forbidden: Host "+r.Host+" is not allowed on a loopback connection",
			map[string]string{"hint": "set the base URL (--base-url) to the public address, or add the host to the allowed hosts"})
		return
	}
	if origin, ok := h.originOK(r); !ok {
		writeRPCError(w, http.StatusForbidden, jsonrpc.ID{}, codeRefused, "Forbidden: Origin "+origin+" is not allowed",
			map[string]string{"hint": originHint})
		return
	}
	if r.Method != http.MethodPost {
		h.sdk.ServeHTTP(w, r)
		return
	}
	if unsupportedProtocol(w, r) {
		return
	}
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
	body := recordBody(r)
	hw := &heldWriter{ResponseWriter: w}
	h.sdk.ServeHTTP(hw, r)
	hw.release(body.Bytes())
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
