package httpio

import "net/http"

// Host is what the server that mounts a set of routes (httpapi.Server)
// lends them, so that they answer exactly as its own routes do.
type Host interface {
	// Handle wraps h so that its error is written as the service's
	// Problem (or, to a browser, as a page in the site's layout).
	Handle(h Handler) http.Handler
	// BaseURL is the service's public address for r, without a trailing
	// slash.
	BaseURL(r *http.Request) string
	// LimitAgent takes one write from the agent's budget; over it, the
	// error is a 429 Problem with Retry-After. refund gives the write back
	// (for a write that then fails); it is nil when nothing was taken.
	LimitAgent(w http.ResponseWriter, r *http.Request, agentID string) (refund func(), err error)
	// LimitRegistration takes one registration (of a webhook endpoint)
	// from the client address's budget; over it, the error is a 429
	// Problem with Retry-After. refund is as LimitAgent's.
	LimitRegistration(w http.ResponseWriter, r *http.Request) (refund func(), err error)
}
