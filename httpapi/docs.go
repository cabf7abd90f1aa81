package httpapi

import (
	"net/http"

	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/httpio"
)

// The published documents, built by package apidoc from the tools and
// the board's routes and kept per base URL.

// openAPI serves openapi.json.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) error {
	base := s.baseURL(r)
	body, err := s.openapiDocs.get(base, func() ([]byte, error) { return httpio.Document(apidoc.OpenAPI(r.Context(), base, s.service())) })
	if err != nil {
		return err
	}
	httpio.WriteBody(w, http.StatusOK, httpio.JSONType, body)
	return nil
}

func (s *Server) llmsTxt(w http.ResponseWriter, r *http.Request) error {
	base := s.baseURL(r)
	body, _ := s.llmsDocs.get(base, func() ([]byte, error) { return apidoc.LLMsTxt(base, s.service()), nil })
	httpio.WriteBody(w, http.StatusOK, "text/plain; charset=utf-8", body)
	return nil
}

func (s *Server) llmsFullTxt(w http.ResponseWriter, r *http.Request) error {
	base := s.baseURL(r)
	body, _ := s.llmsFullDocs.get(base, func() ([]byte, error) { return apidoc.LLMsFullTxt(base, s.service()), nil })
	httpio.WriteBody(w, http.StatusOK, "text/plain; charset=utf-8", body)
	return nil
}

func (s *Server) manifest(w http.ResponseWriter, r *http.Request) error {
	base := s.baseURL(r)
	body, err := s.manifestDocs.get(base, func() ([]byte, error) { return httpio.Document(apidoc.Manifest(base, s.service())) })
	if err != nil {
		return err
	}
	httpio.WriteBody(w, http.StatusOK, httpio.JSONType, body)
	return nil
}

// service is what the documents say of this server beyond the tools.
func (s *Server) service() *apidoc.Service {
	svc := &apidoc.Service{Contact: s.opt.Contact, MCP: s.opt.MCP != nil,
		Metrics: s.opt.Metrics == MetricsHere, RateLimits: s.chain.RateLimitText(s.opt.Board != nil)}
	if s.opt.Board != nil {
		svc.Board = s.opt.Board
	}
	return svc
}

// Metrics says where the Prometheus metrics are served.
type Metrics int

const (
	// MetricsHere, the zero value, serves /metrics on the API's handler.
	MetricsHere Metrics = iota
	// MetricsElsewhere collects the metrics but leaves serving them to the
	// caller, through [Server.MetricsHandler] (on another listener, for
	// example).
	MetricsElsewhere
	// MetricsOff collects nothing and serves no /metrics.
	MetricsOff
)

// MetricsPath is where [MetricsHere] serves the metrics.
const MetricsPath = apidoc.MetricsPath

// MetricsHandler serves the metrics in the Prometheus text format. It
// answers 404 with [MetricsOff].
func (s *Server) MetricsHandler() http.Handler {
	if h := s.chain.MetricsHandler(); h != nil {
		return h
	}
	return s.handle(s.notFound)
}
