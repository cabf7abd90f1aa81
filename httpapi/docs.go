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
		Metrics: s.opt.Metrics == MetricsHere && s.metrics != nil, RateLimits: s.rateLimitText()}
	if s.opt.Board != nil {
		svc.Board = s.opt.Board
	}
	return svc
}
