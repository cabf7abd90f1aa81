package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/internal/tools"
)

// TestToolRoutesAsRouter: the server, which serves the tools' routes
// without the router (toolRoutes), answers every method on their paths,
// and paths near them, as the router does: status, headers (but the
// request ID) and body, the Problem's docs link included.
func TestToolRoutesAsRouter(t *testing.T) {
	s := New(Options{Logger: slog.New(slog.DiscardHandler), RateLimit: middleware.RateLimit{Off: true}})
	viaRouter := s.chain.Wrap(s.router)
	var paths []string
	for _, tl := range tools.All() {
		p := tools.PathPrefix + "/" + tl.Name
		paths = append(paths, p, p+"/", p+"?value=2", p+"?value=abc", strings.ToUpper(p), strings.Replace(p, "_", "%5F", 1))
	}
	paths = append(paths, tools.PathPrefix+"/settings", tools.PathPrefix+"/settings?tool=convert_odds", tools.PathPrefix+"//settings",
		tools.PathPrefix+"/nope", "/healthz")
	bodies := []string{"", `{"value":"+150"}`, `{"value":"abc"}`, `not json`}
	served := 0
	for _, path := range paths {
		for _, method := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "BREW"} {
			for _, body := range bodies {
				if body != "" && method != "POST" {
					continue
				}
				answer := func(h http.Handler) (int, http.Header, string) {
					req := httptest.NewRequest(method, path, strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					hdr := rec.Header().Clone()
					hdr.Del("X-Request-Id")
					return rec.Code, hdr, rec.Body.String()
				}
				wantCode, wantHeader, wantBody := answer(viaRouter)
				code, header, got := answer(s)
				if code != wantCode || got != wantBody {
					t.Errorf("%s %s %q: %d %s, router %d %s", method, path, body, code, got, wantCode, wantBody)
				}
				if diff := cmp.Diff(wantHeader, header); diff != "" {
					t.Errorf("%s %s %q: headers (-router +server):\n%s", method, path, body, diff)
				}
				if s.tools.byPath[strings.SplitN(path, "?", 2)[0]] != nil {
					served++
				}
			}
		}
	}
	if served == 0 {
		t.Error("no request on a path of the table")
	}
	// A tool's Problem links its section.
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", tools.PathPrefix+"/convert_odds?value=abc", nil))
	if !strings.Contains(rec.Body.String(), `llms-full.txt#convert_odds"`) {
		t.Errorf("GET convert_odds?value=abc: %d %s, want a link to #convert_odds", rec.Code, rec.Body)
	}
}
