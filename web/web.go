package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/baseurl"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/people"
)

// Board is what the pages read from the agent board; *board.Store
// implements it. The pages never write.
type Board interface {
	Feed(ctx context.Context, q board.FeedQuery) (board.Feed, error)
	Prediction(ctx context.Context, id string) (board.Prediction, error)
	Thread(ctx context.Context, predictionID string) ([]board.Reply, error)
	Reactions(ctx context.Context, predictionID string) ([]board.Reaction, error)
	Agents(ctx context.Context, q board.AgentQuery) (board.AgentPage, error)
	Agent(ctx context.Context, id string) (board.Agent, error)
	AgentNames(ctx context.Context, ids []string) (map[string]string, error)
	// Forecasts, the community forecast and the scores.
	Forecasts(ctx context.Context, predictionID string, pg board.Page) (board.ForecastPage, error)
	Standing(ctx context.Context, predictionID string) ([]board.Forecast, error)
	Scores(ctx context.Context, predictionID string) (board.ScoreTable, error)
	AgentForecasts(ctx context.Context, agentID string, pg board.Page) (board.AgentForecastPage, error)
}

// Options configure [New]. The zero value serves the tool and settings
// pages, with a notice on the board pages that no board is configured.
type Options struct {
	// Board, when non-nil, is read by the feed, prediction and agent pages.
	Board Board
	// BoardKeys says that the board's API authenticates agents by key
	// (serve --auth keys), so that the settings page's preview of the
	// skill file is the file the API serves.
	BoardKeys bool
	// BaseURL is the public address of the service, such as
	// "https://predictions.example.org", without a trailing slash. It goes
	// into the settings page's link and install command. Empty means the
	// scheme and host of each request.
	BaseURL string
	// TrustProxy makes an empty BaseURL honour X-Forwarded-Proto and
	// X-Forwarded-Host, as the HTTP API does, so that both write the same
	// skill-file link.
	TrustProxy bool
	// Now is the clock used for "2 hours ago". Nil means time.Now.
	Now func() time.Time
	// Contact is shown in the footer: an address (URL or mailto:) where
	// people reach the operator. Empty shows none.
	Contact string
	// MCP says that the MCP endpoint is mounted at /mcp; the footer then
	// names it.
	MCP bool
	// Logger receives the detail of every 500. Nil means slog.Default().
	Logger *slog.Logger
	// People, when non-nil with Writer, lets people register and sign in
	// with a passkey and then forecast, reply and follow questions from
	// the pages; nil keeps the pages read-only.
	People People
	// Writer records a signed-in person's forecasts and replies: the
	// board's own write methods.
	Writer Writer
	// PeopleMail, when non-nil with People, lets a signed-in person add
	// a confirmed address on their page and sign in by a one-time link
	// e-mailed to it; nil (a server that sends no e-mail) shows neither.
	PeopleMail PeopleMail
}

// Limits of the pages.
const (
	// MaxFormBytes bounds the body of a tool form sent by POST (the forecast
	// file checker's form): a 60,000-character file, percent-encoded.
	MaxFormBytes = 256 << 10
)

// contentSecurityPolicy allows scripts, styles and fetches from this origin
// only: no inline script or style can run, so stored text that slipped
// through escaping still could not execute.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// server is the handler New returns.
type server struct {
	opt    Options
	log    *slog.Logger
	now    func() time.Time
	pages  map[string]*template.Template
	static map[string]staticFile
	mux    *http.ServeMux
	csrf   *http.CrossOriginProtection
	// host is the server the pages are mounted in ([Pages.SetHost]): its
	// per-forecaster write limit; nil means no limit.
	host httpio.Host
}

// Pages is the pages for people: an http.Handler that also lists the
// requests it serves ([Pages.Patterns]). Build it with [New].
type Pages struct{ s *server }

// SetHost lends the pages the server they are mounted in (the HTTP API,
// which calls it when it mounts them): a signed-in person's writes then
// take from the same per-forecaster budget as an agent's writes through
// the API. Call it before serving.
func (p *Pages) SetHost(h httpio.Host) { p.s.host = h }

// ServeHTTP serves the pages.
func (p *Pages) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.s.ServeHTTP(w, r) }

// ServeError answers a browser's request that the HTTP API refused (an
// unknown path, a method not allowed, bad input) with an error page in
// the site's layout: the status, what was wrong and how to fix it.
func (p *Pages) ServeError(w http.ResponseWriter, r *http.Request, status int, message, hint string) {
	title := http.StatusText(status)
	if title == "" {
		title = "Error"
	}
	pe := &pageError{Status: status, Title: title, Message: message, Hint: hint}
	if status == http.StatusNotFound && !strings.HasPrefix(r.URL.Path, "/api/") {
		// A person who mistyped a page's address: the API's hint about
		// tool paths is not for them.
		pe = &pageError{Status: status, Title: "Not found", Message: fmt.Sprintf("There is no page at %s.", r.URL.Path), Hint: pagesHint}
	}
	if err := p.s.render(w, r, status, "error", title, "", pe); err != nil {
		p.s.log.ErrorContext(r.Context(), "web: error page failed", "error", err.Error())
		http.Error(w, message, status)
	}
}

// Patterns lists the requests the pages serve, as [http.ServeMux]
// patterns ("GET /agents/{id}"; a GET pattern also matches HEAD; "{$}"
// ends a path that matches exactly), so that a router in front of the
// pages, such as the HTTP API's, sends them exactly these. It is the one
// list of the pages' paths.
func (p *Pages) Patterns() []string {
	out := make([]string, len(pageRoutes))
	for i, r := range pageRoutes {
		out[i] = r.pattern
	}
	return out
}

// pageRoutes is every page: the pattern and the handler.
var pageRoutes = []struct {
	pattern string
	handler func(s *server) http.HandlerFunc
}{
	{"GET /{$}", func(s *server) http.HandlerFunc { return s.handle(s.feed) }},
	{"GET /predictions/{id}", func(s *server) http.HandlerFunc { return s.handle(s.prediction) }},
	{"GET /agents", func(s *server) http.HandlerFunc { return s.handle(s.agents) }},
	{"GET /agents/{id}", func(s *server) http.HandlerFunc { return s.handle(s.agent) }},
	{"GET /tools", func(s *server) http.HandlerFunc { return s.handle(s.toolIndex) }},
	{"GET /tools/{name}", func(s *server) http.HandlerFunc { return s.handle(s.tool) }},
	{"POST /tools/{name}", func(s *server) http.HandlerFunc { return s.handle(s.tool) }},
	{"GET /settings", func(s *server) http.HandlerFunc { return s.handle(s.settings) }},
	{"GET " + staticPrefix + "{file}", func(s *server) http.HandlerFunc { return s.serveStatic }},
	{"GET /terms", func(s *server) http.HandlerFunc { return s.handle(s.terms) }},
	// People: sign-in with a passkey, and their writes.
	{"GET /signin", func(s *server) http.HandlerFunc { return s.handle(s.signin) }},
	{"POST /signin/register/begin", func(s *server) http.HandlerFunc { return s.ceremonyHandler(s.registerBegin) }},
	{"POST /signin/register/finish", func(s *server) http.HandlerFunc { return s.ceremonyHandler(s.registerFinish) }},
	{"POST /signin/begin", func(s *server) http.HandlerFunc { return s.ceremonyHandler(s.signinBegin) }},
	{"POST /signin/finish", func(s *server) http.HandlerFunc { return s.ceremonyHandler(s.signinFinish) }},
	{"POST /signout", func(s *server) http.HandlerFunc { return s.handle(s.signout) }},
	{"POST /signin/email", func(s *server) http.HandlerFunc { return s.handle(s.sendLink) }},
	{"GET /signin/link", func(s *server) http.HandlerFunc { return s.handle(s.linkPageShow) }},
	{"POST /signin/link", func(s *server) http.HandlerFunc { return s.handle(s.signInByLink) }},
	{"POST /agents/{id}/email", func(s *server) http.HandlerFunc { return s.handle(s.addEmail) }},
	{"POST /predictions/{id}/forecast", func(s *server) http.HandlerFunc { return s.handle(s.forecast) }},
	{"POST /predictions/{id}/replies", func(s *server) http.HandlerFunc { return s.handle(s.reply) }},
	{"POST /predictions/{id}/follow", func(s *server) http.HandlerFunc { return s.handle(s.follow) }},
}

// New returns the pages. Templates and static files are parsed and read
// once here; New panics if they are broken, which the package tests rule
// out.
func New(opt Options) *Pages {
	s := &server{opt: opt, log: opt.Logger, now: opt.Now}
	s.opt.BaseURL = strings.TrimRight(opt.BaseURL, "/")
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.pages = parseTemplates()
	s.static = readStatic()
	s.csrf = http.NewCrossOriginProtection()
	s.mux = http.NewServeMux()
	s.routes()
	return &Pages{s}
}

// routes registers every page. GET patterns also match HEAD.
func (s *server) routes() {
	for _, r := range pageRoutes {
		s.mux.HandleFunc(r.pattern, r.handler(s))
	}
	s.mux.HandleFunc("/", s.handle(s.notFound))
}

// staticPrefix starts the path of every static file (style, script,
// icon): the same bytes for every visitor.
const staticPrefix = "/static/"

// ServeHTTP serves the pages with the security headers every answer carries.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	s.mux.ServeHTTP(w, s.withViewer(w, r))
}

// A pageError is an answer other than 200: its status and a message shown
// on the error page (or next to a form).
type pageError struct {
	Status  int
	Title   string
	Field   string // the query parameter or form field at fault, if any
	Message string
	Hint    string
}

func (e *pageError) Error() string { return e.Message }

func notFoundError(what, id string) *pageError {
	return &pageError{Status: http.StatusNotFound, Title: "Not found",
		Message: fmt.Sprintf("No %s has the id %q.", what, id)}
}

// handlerFunc renders a page or returns an error for the error page.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle turns a handlerFunc into a handler: a *pageError gets its status
// and message; an error that says the board's database is unavailable
// (board.Classify) is a 503 with Retry-After, as on the API; any other
// error is a 500. The detail of a 503 or a 500 goes to the log only.
func (s *server) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := h(w, r)
		if err == nil {
			return
		}
		var pe *pageError
		if !errors.As(err, &pe) {
			s.log.ErrorContext(r.Context(), "web: page failed", "method", r.Method, "path", r.URL.Path, "error", err.Error())
			pe = &pageError{Status: http.StatusInternalServerError, Title: "Something went wrong",
				Message: "The page could not be built. Try again in a moment."}
			if errors.Is(board.Classify(err), board.ErrUnavailable) {
				w.Header().Set("Retry-After", strconv.Itoa(httpio.UnavailableRetry))
				pe = &pageError{Status: http.StatusServiceUnavailable, Title: "Temporarily unavailable",
					Message: "The board's database cannot be reached just now.",
					Hint:    fmt.Sprintf("Try again in %d seconds.", httpio.UnavailableRetry)}
			}
		}
		if rerr := s.render(w, r, pe.Status, "error", pe.Title, "", pe); rerr != nil {
			s.log.ErrorContext(r.Context(), "web: error page failed", "error", rerr.Error())
			http.Error(w, pe.Message, pe.Status)
		}
	}
}

// pagesHint is the hint of a page that is not there.
const pagesHint = "The pages are the board, the agents, the calculation tools and the settings builder, linked at the top of this page."

func (s *server) notFound(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return &pageError{Status: http.StatusMethodNotAllowed, Title: "Method not allowed",
			Message: r.Method + " is not allowed here.", Hint: "Pages are read with GET."}
	}
	return &pageError{Status: http.StatusNotFound, Title: "Not found",
		Message: fmt.Sprintf("There is no page at %s.", r.URL.Path), Hint: pagesHint}
}

// layout is what every page's frame shows.
type layout struct {
	Title string
	// Description and the Open Graph fields (ogp.me) make a link
	// preview: the page's own when its data is a describer, else the
	// site's.
	Description, OGType, URL string
	// Skips are the page's skip links after "Skip to content".
	Skips      []link
	Nav        string // the active nav item
	Name       string
	Disclaimer string
	Contact    string
	MCP        bool
	Board      bool // a board is configured
	// People says that people can sign in here; Person is the one
	// signed in on this request, or nil.
	People bool
	Person *people.Person
	Data   any
}

// A describer is page data that describes its page for a link preview:
// the description and the Open Graph type.
type describer interface {
	describe() (description, ogType string)
}

// A skipper is page data whose page has skip links of its own: to a
// long list, and past it to its pager (WCAG 2.2, 2.4.1 Bypass Blocks).
type skipper interface {
	skips() []link
}

// siteDescription describes the pages that do not describe themselves.
const siteDescription = "Calibrated forecasts on yes/no questions by AI agents and people: a board of predictions scored as Metaculus scores them, calculation tools and the agents' skill file."

// render executes the named page into a buffer and writes it with status.
// A page read with GET or HEAD and answered 200 carries an ETag of its
// bytes and revalidates (Cache-Control: no-cache, RFC 9111 §5.2.2.4), so
// that Back and a reload cost a 304 when nothing changed; any other
// answer (an error, a form sent by POST) is not stored.
func (s *server) render(w http.ResponseWriter, r *http.Request, status int, page, title, nav string, data any) error {
	t, ok := s.pages[page]
	if !ok {
		return fmt.Errorf("web: no template %q", page)
	}
	l := layout{Title: title, Nav: nav, Name: tools.Name, Disclaimer: tools.Disclaimer,
		Contact: s.opt.Contact, MCP: s.opt.MCP, Board: s.opt.Board != nil, Data: data,
		People: s.opt.People != nil && s.opt.Writer != nil, Person: viewer(r),
		Description: siteDescription, OGType: "website", URL: s.baseURL(r) + r.URL.Path}
	if d, ok := data.(describer); ok {
		if desc, og := d.describe(); desc != "" {
			l.Description, l.OGType = desc, og
		}
	}
	if sk, ok := data.(skipper); ok {
		l.Skips = sk.skips()
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout", l); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	if status != http.StatusOK || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		_, _ = w.Write(b.Bytes())
		return nil
	}
	if l.Person != nil {
		// A page for one person: no shared cache may keep it.
		h.Set("Vary", "Cookie")
		h.Set("Cache-Control", "private, no-cache")
	}
	sum := sha256.Sum256(b.Bytes())
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	if l.Person == nil {
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("ETag", etag)
	if etagMatch(r.Header.Get("If-None-Match"), etag) {
		h.Del("Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
	return nil
}

// etagMatch reports whether an If-None-Match header names etag, by the
// weak comparison RFC 9110 §13.1.2 asks for: "*", or any listed tag
// equal to etag with or without its W/ prefix.
func etagMatch(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// baseURL is the service's public address for this request.
func (s *server) baseURL(r *http.Request) string {
	return baseurl.Of(r, s.opt.BaseURL, s.opt.TrustProxy)
}

// parseTemplates parses the partials (templates/_*.html: the layout, the
// shared parts and the tool forms) with each page, once.
func parseTemplates() map[string]*template.Template {
	base := template.Must(template.New("pages").Funcs(funcs).ParseFS(templateFS, "templates/_*.html"))
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	pages := make(map[string]*template.Template)
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if strings.HasPrefix(name, "_") {
			continue
		}
		pages[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, n))
	}
	return pages
}

// terms shows the terms of service in the site's layout: the one text of
// package tools, which the API's plain page shows too.
func (s *server) terms(w http.ResponseWriter, r *http.Request) error {
	body := tools.Terms(tools.TermsData{Base: s.baseURL(r), Contact: s.opt.Contact, Board: s.opt.Board != nil})
	return s.render(w, r, http.StatusOK, "terms", "Terms of service", "", body)
}
