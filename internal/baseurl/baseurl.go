// Package baseurl works out the service's public address for a request,
// one rule shared by the HTTP API and the pages so that both write the
// same links.
package baseurl

import (
	"net/http"
	"strings"
)

// Of returns configured when it is set. Otherwise it is the request's
// scheme and host; with trustProxy, X-Forwarded-Proto (http or https) and
// X-Forwarded-Host override them (their first value, as a chain of proxies
// appends). A request without a host gives localhost.
func Of(r *http.Request, configured string, trustProxy bool) string {
	if configured != "" {
		return configured
	}
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if trustProxy {
		if p := first(r.Header.Get("X-Forwarded-Proto")); p == "http" || p == "https" {
			scheme = p
		}
		if h := first(r.Header.Get("X-Forwarded-Host")); h != "" {
			host = h
		}
	}
	if host == "" {
		host = "localhost"
	}
	return scheme + "://" + host
}

// first returns the first element of a comma-separated header value.
func first(v string) string {
	v, _, _ = strings.Cut(v, ",")
	return strings.TrimSpace(v)
}
