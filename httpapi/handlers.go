package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/predictions-md/predictions/httpapi/middleware"

	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/skillsettings"
)

// toolGET runs t with the input taken from the query string.
func (s *Server) toolGET(t *tools.Tool) httpio.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := httpio.ParseQuery(r)
		if err != nil {
			return err
		}
		raw, err := t.FromQuery(q)
		if err != nil {
			return err
		}
		return s.run(w, r, t, raw)
	}
}

// toolPOST runs t with the JSON body as input.
func (s *Server) toolPOST(t *tools.Tool) httpio.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw, err := httpio.ReadObject(w, r)
		if err != nil {
			return err
		}
		return s.run(w, r, t, raw)
	}
}

func (s *Server) run(w http.ResponseWriter, r *http.Request, t *tools.Tool, raw []byte) error {
	res, err := t.Call(tools.WithBaseURL(r.Context(), s.baseURL(r)), raw)
	if err != nil {
		return err
	}
	return s.writeResult(w, r, res)
}

func (s *Server) writeResult(w http.ResponseWriter, r *http.Request, res *tools.Result) error {
	buf := envelopes.Get().(*[]byte)
	body, err := res.AppendEnvelope((*buf)[:0], s.terms(r))
	if err != nil {
		envelopes.Put(buf)
		return err
	}
	httpio.WriteBody(w, http.StatusOK, httpio.JSONType, body)
	// The writer has copied body (to the connection's buffer, or to the
	// socket) by now; keep the buffer unless an outsized answer grew it.
	if cap(body) <= maxPooledEnvelope {
		*buf = body
		envelopes.Put(buf)
	}
	return nil
}

// envelopes holds buffers for the answers of the tools, which are written
// once per request and then dropped.
var envelopes = sync.Pool{New: func() any {
	b := make([]byte, 0, 4<<10)
	return &b
}}

// maxPooledEnvelope is the largest buffer envelopes keeps: the answers of
// check_forecast_md can reach megabytes, and would be kept for little use.
const maxPooledEnvelope = 64 << 10

// settings serves the settings catalog. It takes no parameters, but a
// malformed or overlong query gets the same 400 or 414 as elsewhere.
func (s *Server) settings(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpio.ParseQuery(r); err != nil {
		return err
	}
	return s.writeResult(w, r, tools.SettingsCatalog())
}

// skillFile serves the skill file with the query's settings written in.
// Clamped or ignored settings are listed in X-Settings-Notes, separated by
// "; ", with control characters replaced by spaces.
func (s *Server) skillFile(w http.ResponseWriter, r *http.Request) error {
	q, err := httpio.ParseQuery(r)
	if err != nil {
		return err
	}
	opt := skillsettings.Options{BaseURL: s.baseURL(r), Board: s.opt.Board != nil}
	if s.opt.Board != nil {
		opt.BoardKeys = s.opt.Board.KeyAuth()
	}
	md, notes := tools.SkillFile(q, opt)
	if len(notes) > 0 {
		w.Header().Set("X-Settings-Notes", httpio.HeaderSafe(strings.Join(notes, "; ")))
	}
	httpio.WriteBody(w, http.StatusOK, "text/markdown; charset=utf-8", md)
	return nil
}

// healthz answers 200 while the server runs and, with a board, while its
// database accepts writes (or answers a ping, for a board that cannot
// check writes); 503 (status "unavailable") with Retry-After when not.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	status, code, db := "ok", http.StatusOK, ""
	if s.opt.Board != nil {
		db = "ok"
		if err := s.opt.Board.Health(r.Context()); err != nil {
			s.log.ErrorContext(r.Context(), "database check failed", "request_id", middleware.RequestID(r.Context()), "error", err.Error())
			status, code, db = "unavailable", http.StatusServiceUnavailable, "unavailable"
			w.Header().Set("Retry-After", strconv.Itoa(unavailableRetry))
		}
	}
	return httpio.WriteJSON(w, code, apidoc.Health{Status: status, Database: db, Version: tools.Version, Time: s.now().UTC().Format(time.RFC3339), Disclaimer: tools.Disclaimer, Terms: s.terms(r)})
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) error {
	return &httpio.Error{Field: "path", Err: httpio.ErrNotFound,
		Problem: fmt.Sprintf("%s does not exist", r.URL.Path),
		Hint:    fmt.Sprintf("the tools are under %s/<tool> (%s); see %s/llms.txt", tools.PathPrefix, strings.Join(tools.Names(), ", "), s.baseURL(r))}
}

func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) error {
	allow := s.chain.Allowed(r)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	return &httpio.Error{Field: "method", Err: httpio.ErrMethodNotAllowed,
		Problem: fmt.Sprintf("%s is not allowed on %s", r.Method, r.URL.Path),
		Hint:    "use " + strings.Join(allow, ", ")}
}
