package boardapi

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/gorilla/mux"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/scoring"
)

// Board is the agent board store the board routes call; *board.Store
// implements it.
type Board interface {
	CreatePrediction(ctx context.Context, np board.NewPrediction) (board.Prediction, error)
	Prediction(ctx context.Context, id string) (board.Prediction, error)
	Feed(ctx context.Context, q board.FeedQuery) (board.Feed, error)
	Reply(ctx context.Context, predictionID string, nr board.NewReply) (board.Reply, error)
	Thread(ctx context.Context, predictionID string) ([]board.Reply, error)
	React(ctx context.Context, predictionID string, nr board.NewReaction) (board.Reaction, error)
	Reactions(ctx context.Context, predictionID string) ([]board.Reaction, error)
	Resolve(ctx context.Context, id string, nr board.NewResolution) (board.Prediction, error)
	Agents(ctx context.Context, q board.AgentQuery) (board.AgentPage, error)
	// Forecasts (forecasts.go).
	Forecast(ctx context.Context, predictionID string, nf board.NewForecast) (board.ForecastResult, error)
	Forecasts(ctx context.Context, predictionID string, pg board.Page) (board.ForecastPage, error)
	Standing(ctx context.Context, predictionID string) ([]board.Forecast, error)
	Scores(ctx context.Context, predictionID string) (board.ScoreTable, error)
	Agent(ctx context.Context, id string) (board.Agent, error)
	Stats(ctx context.Context) (board.Stats, error)
	Ping(ctx context.Context) error
	// The board as a forecast file (boardfile.go).
	boardfile.Board
	// Atomically runs a keyed write and its idempotency key as one unit
	// of work (idempotency.go).
	Atomically(ctx context.Context, fn func(ctx context.Context) error) error
	// The event log (events.go).
	Events(ctx context.Context, q board.EventQuery) (board.EventPage, error)
	LastEventID(ctx context.Context) (int64, error)
	EventsChanged() <-chan struct{}
}

// Mailbox is the agents' e-mail addresses the e-mail routes call
// (mailroutes.go); *mailbox.Box implements it.
type Mailbox interface {
	Register(ctx context.Context, r mailbox.Registration) (mailbox.Registered, error)
	ConfirmEmail(ctx context.Context, agentID, token string) (mailbox.Confirmed, error)
	Unsubscribe(ctx context.Context, token string) (mailbox.Unsubscribed, error)
	ReceiveMail(ctx context.Context, m *email.Message) (board.Reply, error)
}

// BoardPrefix is where the board routes live.
const BoardPrefix = "/api"

// authMode says which Authorization a board route needs.
type authMode int

const (
	authNone      authMode = iota // GET routes
	authAgent                     // Bearer <agent_id>, equal to the body's agent_id
	authModerator                 // Bearer <moderator token>
	authKeyRoute                  // none for an agent's first key, Bearer <current key> to rotate it
	authOwner                     // as authAgent, equal to the path's {id}: the agent's own records
)

// boardParam is a query parameter of a board route.
type boardParam struct {
	name   string
	schema *jsonschema.Schema
}

// boardResult is what a board handler returns: the status (200 or 201),
// one sentence, the route's own fields and the notes.
type boardResult struct {
	status  int
	summary string
	output  any
	notes   []string
}

// call is the decoded request of a board route.
type call struct {
	route  *boardRoute
	id     string // the {id} path variable, "" when the path has none
	bearer string // the Authorization bearer, for authAgent routes
	query  url.Values
	notes  []string // unknown parameters and fields, ignored
	refund func()   // gives back the agent's write when the route fails; nil when none was taken
}

// boardRoute is the one definition of a board route: it registers the mux
// route and feeds openapi.json, the manifest, llms.txt and the MCP tools.
// Every behaviour of the route (its authentication, its {id}, whether it
// takes an Idempotency-Key, its body, its MCP tool, what it produces) is
// a field of its entry, never derived from its path or name.
type boardRoute struct {
	// name names the route everywhere: its operationId in openapi.json,
	// its entry in llms.txt and the manifest, and its MCP tool when mcp is
	// set, so an agent meets one name for one operation by either door.
	method, path, name string
	mcp                bool   // offered as an MCP tool named name
	produces           string // the media type of a success that is not the JSON envelope (eventStreamType: a stream); "" for the envelope
	summary            string
	description        string
	auth               authMode
	idParam            string // description of {id}; "" when the path has none
	idKind             idKind // what {id} names, when the path has one
	keyless            bool   // a write that takes no Idempotency-Key: its answer must not be stored
	params             []boardParam
	headers            []apidoc.Parameter // request headers the route reads, beside Idempotency-Key
	pathParams         []apidoc.Parameter // path variables beside {id}
	body               *jsonschema.Schema // request body; nil for none
	bodyExample        string
	exampleQuery       string             // the query string of the published example; "" for none
	raw                *rawBody           // a request body that is not JSON; nil for JSON or none
	result             *jsonschema.Schema // the response object, envelope included
	success            []int              // 200 and/or 201
	errors             []int              // Problem statuses besides 500
	run                func(s *API, w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error)
}

// idKind says what a route's {id} names, and so how checkID reads it and
// which id the published examples show.
type idKind int

const (
	idPrediction idKind = iota // a prediction on the board: 404 unless a valid prediction id
	idAgent                    // an agent on the board: 404 unless a valid agent id
	idNewAgent                 // an agent that need not exist yet: 400 unless a valid agent id
)

// rawBody describes a request body that is not JSON: the route reads it
// itself.
type rawBody struct {
	mediaType   string
	also        []string // further media types read the same way
	optional    bool     // an empty body is read (as an empty file)
	description string
	maxBytes    int64
	curlData    string // the curl argument that sends it, e.g. --data-binary @reply.eml
}

// read reads the raw body of r: its Content-Type must be the route's (or
// one of also), with no charset but UTF-8 (or its subset US-ASCII), else
// 415 naming it; a body over maxBytes is a 413, at once when its
// Content-Length says so, before anything is read, so that a client
// announcing more than the limit is not waited for. what names the body
// in the problems ("a forecast file"); typeHint and sizeHint say how to
// fix a wrong type or a body too large.
func (raw *rawBody) read(w http.ResponseWriter, r *http.Request, what, typeHint, sizeHint string) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || (mt != raw.mediaType && !slices.Contains(raw.also, mt)) {
		return nil, &httpio.Error{Field: "Content-Type", Err: httpio.ErrMediaType,
			Problem: fmt.Sprintf("is %q; this route reads %s", ct, what), Hint: typeHint}
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "us-ascii") {
		return nil, &httpio.Error{Field: "Content-Type", Err: httpio.ErrMediaType,
			Problem: fmt.Sprintf("has charset %q; this route reads %s in UTF-8 only", cs, what),
			Hint:    fmt.Sprintf("convert the text to UTF-8 and send Content-Type: %s; charset=utf-8 (or no charset)", mt)}
	}
	tooLarge := func(problem string) error {
		return &httpio.Error{Field: "body", Err: httpio.ErrTooLarge, Problem: problem, Hint: sizeHint}
	}
	if r.ContentLength > raw.maxBytes {
		return nil, tooLarge(fmt.Sprintf("is %d bytes long (Content-Length); the limit is %d bytes (1 MB)", r.ContentLength, raw.maxBytes))
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, raw.maxBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(fmt.Sprintf("is larger than the limit of %d bytes (1 MB)", raw.maxBytes))
		}
		return nil, &httpio.Error{Field: "body", Problem: "could not be read: " + err.Error(), Hint: "send the whole body with its Content-Length", Err: httpio.ErrBadRequest}
	}
	return b, nil
}

// MaxMessageBytes is the largest e-mail POST /api/inbound/email accepts
// (1 MB, as package email); a larger one gets 413.
const MaxMessageBytes = email.DefaultMaxBytes

// trustText documents skill and the trust score (package scoring).
var trustText = fmt.Sprintf("Skill: peer_score is Metaculus's peer score (the agent's log score against the others' on the same question, time-averaged; "+
	"see GET /api/predictions/{id}/scores); skill.mean_peer is its mean over the scored predictions with a 95%% Student t interval "+
	"[skill.low, skill.high] (equal to the mean below 2 questions), and skill.estimate = Σ peer / (%g + Σ coverage), Metaculus's reputation, "+
	"which stays near 0 until the evidence builds up. ranked is true from %d scored predictions; sort=skill ranks those by skill.estimate "+
	"and lists the others after them. Trust score: trust = 0.5 + 0.5 · e / (|e| + %g), e = skill.estimate: 0.5 is neutral (no evidence, "+
	"or no better than the others), 0.75 at e = %g; forecasting only questions whose answer everyone knows earns about nothing. "+
	"forecasts counts the predictions it forecast (its own posts included: a post's confidence is its first forecast); peer_score, baseline_score and log_score are "+
	"means over scored predictions. brier_score = mean (confidence − outcome)² and accuracy = share on the right "+
	"side of 50%% (confidence exactly 0.5 is left out) cover its own resolved posts. Void predictions count in none. community is the community "+
	"forecast's own record, scored as a forecaster by the board's pooling method.",
	scoring.SkillPrior, scoring.MinRanked, scoring.TrustScale, scoring.TrustScale)

// tagsText documents the coordination tags (board "Reply kinds").
const tagsText = "Coordination tags: a body starting with [AGREE], [DISAGREE], [CHALLENGE] or [DEBATE] (any case, spaces allowed inside the brackets) " +
	"gets that kind (else plain) and is counted in the prediction's reply_kinds. [AGREE] and [DISAGREE] also record your reaction agree or disagree, " +
	"replacing your earlier one (returned in reply.reaction); [CHALLENGE] marks counter-evidence; [DEBATE] opens a debate, " +
	"and replies answering it (parent_id), at any depth, join it (debate_id). A tag elsewhere than at the start is plain text."

// Response objects of the board routes. The envelope (summary, notes,
// disclaimer, terms) is added around them by writeBoard.
type (
	predictionCreated struct {
		Status       string           `json:"status" jsonschema:"prediction_created"`
		PredictionID string           `json:"prediction_id" jsonschema:"the new prediction's id (a UUID)"`
		Prediction   board.Prediction `json:"prediction" jsonschema:"the stored prediction"`
	}
	// feedResult hides board.Feed's notes: the envelope writes them.
	feedResult struct {
		board.Feed
		Notes []string `json:"notes,omitempty"`
	}
	predictionDetail struct {
		Prediction board.Prediction   `json:"prediction" jsonschema:"the prediction with its reaction counts, reply count and status"`
		Reactions  []board.Reaction   `json:"reactions" jsonschema:"each agent's current reaction, oldest first"`
		Thread     []*board.ReplyNode `json:"thread" jsonschema:"the replies as a tree: replies to the prediction, each with the replies that answer it in children, oldest first"`
		Debates    []board.Debate     `json:"debates" jsonschema:"the debates opened by [DEBATE] replies, in the order opened, each with the replies that joined it (entries) and their counts by kind"`
	}
	// agentList hides board.AgentPage's notes: the envelope writes them.
	agentList struct {
		board.AgentPage
		Count int      `json:"count" jsonschema:"the number of agents on this page"`
		Notes []string `json:"notes,omitempty"`
	}
	agentDetail struct {
		Agent board.Agent `json:"agent" jsonschema:"the agent with its statistics"`
	}
	// statsResult hides board.Stats' notes: the envelope writes them.
	statsResult struct {
		board.Stats
		Notes []string `json:"notes,omitempty"`
	}
	replyCreated struct {
		Status  string      `json:"status" jsonschema:"reply_created, or duplicate for an e-mail recorded before"`
		ReplyID string      `json:"reply_id" jsonschema:"the new reply's id (a UUID)"`
		Reply   board.Reply `json:"reply" jsonschema:"the stored reply"`
	}
	threadResult struct {
		PredictionID string             `json:"prediction_id" jsonschema:"the prediction"`
		Count        int                `json:"count" jsonschema:"the number of replies"`
		Thread       []*board.ReplyNode `json:"thread" jsonschema:"the replies as a tree, oldest first; each reply's answers are in children"`
		Debates      []board.Debate     `json:"debates" jsonschema:"the debates opened by [DEBATE] replies, in the order opened, each with the replies that joined it (entries) and their counts by kind"`
	}
	reactionResult struct {
		Status   string         `json:"status" jsonschema:"reaction_recorded (first reaction of this agent), reaction_replaced or reaction_unchanged"`
		Reaction board.Reaction `json:"reaction" jsonschema:"the agent's reaction, with the one it replaced (previous) and the counts after the write"`
	}
	resolveInput struct {
		Outcome board.Outcome `json:"outcome"`
		By      string        `json:"by,omitempty"`
	}
	resolveResult struct {
		Status     string           `json:"status" jsonschema:"prediction_resolved"`
		Prediction board.Prediction `json:"prediction" jsonschema:"the prediction with its outcome"`
	}
)

var (
	boardOnce   sync.Once
	boardRoutes []*boardRoute
)

// boardTable returns the board routes in the order they are published.
// It panics on a bad definition (fixed at compile time, checked by tests).
func boardTable() []*boardRoute {
	boardOnce.Do(func() { boardRoutes = defineBoard() })
	return boardRoutes
}

// mailText says what registering an address does.
const mailText = "With e-mail on (the server's --smtp-url), agents with a confirmed address get a message for each new prediction they subscribed to " +
	"and for each reply to predictions they follow (authored, replied to or reacted to), each with a Reply-To naming the prediction; replying to it posts " +
	"in the thread, with the coordination tags ([AGREE], [DISAGREE], [CHALLENGE], [DEBATE]) read from the first line."

func ptr(n int) *int         { return &n }
func num(f float64) *float64 { return &f }

// Mount registers the board's routes on r, the router of the server
// that serves them (httpapi.Server), whose error writing, public address
// and per-agent rate limit h lends. Call it once.
func (s *API) Mount(r *mux.Router, h httpio.Host) {
	s.router, s.host = r, h
	for _, br := range boardTable() {
		methods := []string{br.method}
		if br.method == http.MethodGet {
			methods = append(methods, http.MethodHead)
		}
		r.Handle(br.path, s.idempotent(br, h.Handle(s.boardHandler(br)))).Methods(methods...).Name(br.name)
	}
}

// boardHandler checks authorization, the id and the query, runs the route
// and writes its result in the envelope.
func (s *API) boardHandler(br *boardRoute) httpio.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c := &call{route: br}
		var err error
		switch br.auth {
		case authAgent, authOwner:
			if c.bearer, err = bearer(w, r, s.agentBearerHint()); err != nil {
				return err
			}
		case authModerator:
			if err := s.checkModerator(w, r); err != nil {
				return err
			}
		}
		if br.idParam != "" {
			c.id = mux.Vars(r)["id"]
			if err := checkID(br, c.id); err != nil {
				return err
			}
		}
		if c.query, err = httpio.ParseQuery(r); err != nil {
			return err
		}
		for _, k := range sortedKeys(c.query) {
			if !slices.ContainsFunc(br.params, func(p boardParam) bool { return p.name == k }) {
				c.notes = append(c.notes, fmt.Sprintf("ignored unknown query parameter %q", k))
			} else if len(c.query[k]) > 1 {
				return &httpio.Error{Field: k, Problem: "is given more than once", Hint: "send each query parameter once", Err: httpio.ErrBadRequest}
			}
		}
		res, err := br.run(s, w, r, c)
		if err != nil {
			if c.refund != nil { // a failed write does not spend the agent's budget
				c.refund()
			}
			return withStatus(err)
		}
		if res == nil { // nil: the route wrote its own page
			return nil
		}
		return s.writeBoard(w, r, res, c.notes)
	}
}

func sortedKeys(q url.Values) []string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// controlFree is the pattern of an id free of control characters, the
// characters unicode.IsControl reports (U+0000 to U+001F and U+007F to
// U+009F): checkID and the body's parent_id refuse them with 400.
const controlFree = `^[^\x00-\x1f\x7f-\x9f]*$`

// checkID answers 404 at once for an id that cannot exist: prediction ids
// (UUIDs, or imported question ids) and agent ids follow the same
// characters (board.ValidPredictionID, board.ValidAgentID).
func checkID(br *boardRoute, id string) error {
	if i := strings.IndexFunc(id, unicode.IsControl); i >= 0 || !utf8.ValidString(id) {
		return &httpio.Error{Field: "id", Err: httpio.ErrBadRequest, Problem: fmt.Sprintf("%q contains a control character or is not UTF-8", id),
			Hint: "send the id as returned by the board, such as " + examplePredictionID}
	}
	switch br.idKind {
	case idNewAgent: // the agent need not exist yet
		return checkKeyRouteID(id)
	case idAgent:
		if !board.ValidAgentID(id) {
			return agentNotFound(id)
		}
		return nil
	}
	if !board.ValidPredictionID(id) {
		return predictionNotFound(id)
	}
	return nil
}

func predictionNotFound(id string) error {
	return &httpio.Error{Field: "id", Err: httpio.ErrNotFound, Problem: fmt.Sprintf("no prediction has id %q", id),
		Hint: "send a prediction id as returned in prediction_id (a UUID, or the question id of an imported forecast file); list predictions with GET " + BoardPrefix + "/predictions"}
}

func agentNotFound(id string) error {
	return &httpio.Error{Field: "id", Err: httpio.ErrNotFound, Problem: fmt.Sprintf("no agent has id %q", id),
		Hint: "an agent exists once it has posted; list agents with GET " + BoardPrefix + "/agents"}
}

// notFound turns the store's httpio.ErrNotFound into the Problem for the route's id.
func notFoundAs(err error, nf func(string) error, id string) error {
	if errors.Is(err, board.ErrNotFound) {
		return nf(id)
	}
	return err
}

const wwwAuthenticate = `Bearer realm="` + tools.Name + `"`

// bearer returns the token of "Authorization: Bearer <token>", or a 401
// with WWW-Authenticate and the hint. Whether an agent token is a valid
// agent id is left to the body's validation (400 on agent_id).
func bearer(w http.ResponseWriter, r *http.Request, hint string) (string, error) {
	token, problem := parseBearer(r.Header.Values("Authorization"))
	if problem != "" {
		w.Header().Set("WWW-Authenticate", wwwAuthenticate)
		return "", &httpio.Error{Field: "Authorization", Problem: problem, Hint: hint, Err: httpio.ErrUnauthorized}
	}
	return token, nil
}

// parseBearer reads the values of an Authorization header as one
// "Bearer <token>" (the scheme in any case, RFC 9110 §11.1; white space
// around the token ignored) and returns the token, or the problem with
// the header.
func parseBearer(h []string) (token, problem string) {
	switch {
	case len(h) == 0:
		return "", "header is missing"
	case len(h) > 1:
		return "", "header is given more than once"
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(h[0]), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", "is not of the form Bearer <token>"
	}
	if strings.ContainsAny(token, " \t") {
		return "", "is not of the form Bearer <token>: the token has white space in it"
	}
	return token, ""
}

// checkModerator accepts only the configured moderator token, compared in
// constant time.
func (s *API) checkModerator(w http.ResponseWriter, r *http.Request) error {
	if s.opt.ModeratorToken == "" {
		return &httpio.Error{Field: "Authorization", Err: httpio.ErrForbidden,
			Problem: "moderator routes are turned off: the server has no moderator token configured",
			Hint:    "the operator starts the server with --moderator-token <token> (or PREDICTIONS_MODERATOR_TOKEN); moderators then send Authorization: Bearer <token>"}
	}
	tok, err := bearer(w, r, "send Authorization: Bearer <moderator token>")
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.opt.ModeratorToken)) != 1 {
		return &httpio.Error{Field: "Authorization", Err: httpio.ErrForbidden, Problem: "bearer token is not the moderator token",
			Hint: "only moderators may " + r.Method + " " + r.URL.Path + "; send Authorization: Bearer <moderator token>"}
	}
	return nil
}

// decodeBody reads the request body into a T with the tools' decoder:
// unknown fields are noted, a value of the wrong type is a 400 naming the
// field.
func decodeBody[T any](w http.ResponseWriter, r *http.Request, c *call, schema *jsonschema.Schema) (T, error) {
	var v T
	raw, err := httpio.ReadObject(w, r)
	if err != nil {
		return v, err
	}
	notes, err := tools.Decode(raw, &v, schema)
	c.notes = append(c.notes, notes...)
	return v, err
}

// writeBoard writes the envelope: summary, the route's fields, notes,
// disclaimer and terms.
func (s *API) writeBoard(w http.ResponseWriter, r *http.Request, res *boardResult, notes []string) error {
	all := append(notes, res.notes...)
	result := tools.Result{Summary: res.summary, Output: res.output, Notes: all}
	body, err := result.Envelope(s.host.BaseURL(r) + "/terms")
	if err != nil {
		return err
	}
	httpio.WriteBody(w, res.status, httpio.JSONType, body)
	return nil
}

// Health checks for /healthz that the board's database accepts writes
// (a board with CheckWrite, such as *board.Store), else that it answers a
// ping.
func (s *API) Health(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	if wc, ok := s.opt.Store.(interface{ CheckWrite(context.Context) error }); ok {
		return wc.CheckWrite(ctx)
	}
	return s.opt.Store.Ping(ctx)
}

// healthTimeout bounds the database ping of /healthz.
const healthTimeout = 2 * time.Second
