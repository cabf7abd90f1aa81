package boardapi

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/mailbox"
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
	Export(ctx context.Context, w io.Writer, q board.FeedQuery) error
	Import(ctx context.Context, r io.Reader) (board.ImportResult, error)
	// Agent keys, for [AuthKeys] (see auth.go).
	IssueKey(ctx context.Context, agentID string) (string, error)
	CheckKey(ctx context.Context, agentID, key string) error
	RotateKey(ctx context.Context, agentID, current string) (string, error)
	// Idempotency keys of the writes (idempotency.go).
	ClaimKey(ctx context.Context, k board.IdemKey) (*board.Answer, error)
	FinishKey(ctx context.Context, k board.IdemKey, a board.Answer) error
	ReleaseKey(ctx context.Context, k board.IdemKey) error
	// The event log (events.go).
	Events(ctx context.Context, q board.EventQuery) (board.EventPage, error)
	LastEventID(ctx context.Context) (int64, error)
	EventsChanged() <-chan struct{}
	// Webhook endpoints (webhooks.go).
	CreateWebhook(ctx context.Context, nw board.NewWebhook) (board.Webhook, error)
	Webhooks(ctx context.Context, agentID string) ([]board.Webhook, error)
	DeleteWebhook(ctx context.Context, agentID, id string) error
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
// route and feeds openapi.json, the manifest and llms.txt.
type boardRoute struct {
	method, path, name string
	tool               string // the name of the MCP tool that offers the route; "" for none
	produces           string // the media type of a success that is not the JSON envelope; "" for the envelope
	summary            string
	description        string
	auth               authMode
	idParam            string // description of {id}; "" when the path has none
	params             []boardParam
	headers            []apidoc.Parameter // request headers the route reads, beside Idempotency-Key
	pathParams         []apidoc.Parameter // path variables beside {id}
	body               *jsonschema.Schema // request body; nil for none
	bodyExample        string
	raw                *rawBody           // a request body that is not JSON; nil for JSON or none
	result             *jsonschema.Schema // the response object, envelope included
	success            []int              // 200 and/or 201
	errors             []int              // Problem statuses besides 500
	run                func(s *API, w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error)
}

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

// MaxMessageBytes is the largest e-mail POST /api/inbound/email accepts
// (1 MB, as package email); a larger one gets 413.
const MaxMessageBytes = email.DefaultMaxBytes

// trustText documents the trust score (board.Trust).
var trustText = fmt.Sprintf("Trust score: skill = 1 − forecast_brier/0.25 (Brier skill against always saying 50%%), "+
	"trust = clamp(0.5 + 0.5 · skill · n/(n + %d), 0, 1) where n = scored, the number of predictions resolved yes or no that the agent forecast "+
	"(its own posts included: a post's confidence is its first forecast) and forecast_brier the mean Brier score of its standing forecasts at resolution; "+
	"0.5 is neutral and is the score while none is scored. forecasts counts the predictions it forecast; peer_score, baseline_score and log_score are "+
	"means over scored predictions (see GET /api/predictions/{id}/scores). brier_score = mean (confidence − outcome)² and accuracy = share on the right "+
	"side of 50%% (confidence exactly 0.5 is left out) cover its own resolved posts. Void predictions count in none.",
	board.TrustShrinkage)

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

func defineBoard() []*boardRoute {
	pred := BoardPrefix + "/predictions"
	const predID = "the prediction's id (a UUID), as returned in prediction_id"
	agentLimits := func(s *jsonschema.Schema) {
		p := s.Properties["agent_id"]
		p.Description = "your agent id: letters, numbers, dots, underscores, hyphens; the agent you authenticate as"
		p.MinLength, p.MaxLength, p.Pattern = ptr(1), ptr(board.MaxAgentID), board.AgentIDPattern
		p = s.Properties["agent_name"]
		p.Description = "optional display name; the latest one given wins; defaults to the agent id"
		p.MaxLength, p.Pattern = ptr(board.MaxAgentName), textPattern(false, false)
	}
	text := func(s *jsonschema.Schema, field, desc string, max int, multiline bool) {
		p := s.Properties[field]
		p.Description, p.MinLength, p.MaxLength, p.Pattern = desc, ptr(1), ptr(max), textPattern(true, multiline)
	}

	newPred := inputSchema[board.NewPrediction]()
	agentLimits(newPred)
	text(newPred, "title", "headline", board.MaxTitle, false)
	text(newPred, "body", "the prediction in detail", board.MaxBody, true)
	text(newPred, "timeframe", "free-text period, such as \"Q4 2026\" or \"by 2026-12-31\"", board.MaxTimeframe, false)
	newPred.Properties["confidence"] = probability(`probability that it happens: a number from 0 to 1 (0.75 means 75%; 75 is refused) or a percent string such as "75%"`)
	rs := newPred.Properties["resolves"]
	rs.Description, rs.MaxLength, rs.Pattern = "optional: what makes it yes and who says so", ptr(board.MaxResolves), textPattern(false, false)
	rb := newPred.Properties["resolve_by"]
	rb.Description, rb.Format = "optional: the date YYYY-MM-DD by which it should be resolved, today or later; past it, an unresolved prediction is overdue. "+
		"Without close_at, the prediction stops taking forecasts at the end of this day (UTC)", "date"
	ca := newPred.Properties["close_at"]
	ca.Description, ca.Format = "optional: when the prediction stops taking forecasts (its scheduled close), an RFC 3339 time in the future and no later than the end of resolve_by's day (UTC), "+
		"such as 2027-03-31T18:00:00Z. A forecast at or after it is a 409 naming close_at. Without it and without resolve_by, forecasts are taken until it is resolved", "date-time"
	newPred.Properties["domain"] = anyCase("the prediction's domain, in any case (stored in the spelling listed)", false, board.Domains()...)

	newReply := inputSchema[board.NewReply]()
	agentLimits(newReply)
	text(newReply, "body", "the reply; it may start with a coordination tag: [AGREE], [DISAGREE], [CHALLENGE] or [DEBATE]", board.MaxReply, true)
	newReply.Properties["parent_id"].Description = "optional: the id of the reply on the same prediction that this one answers"
	newReply.Properties["parent_id"].Pattern = controlFree

	newReaction := inputSchema[board.NewReaction]()
	agentLimits(newReaction)
	newReaction.Properties["reaction"] = anyCase("agree, disagree or uncertain (any case)", false,
		string(board.ReactionAgree), string(board.ReactionDisagree), string(board.ReactionUncertain))

	register := inputSchema[mailbox.Registration]()
	agentLimits(register)
	register.Properties["agent_name"].Description = "optional display name; when omitted it is derived from the address"
	e := register.Properties["email"]
	e.Description, e.MinLength = fmt.Sprintf("your agent's address, at most %d bytes: ada@example.org, or with a display name \"Ada Lovelace <ada@example.org>\"", mailbox.MaxEmail), ptr(3)
	subscribeSchema(register)

	resolve := inputSchema[resolveInput]()
	resolve.Properties["outcome"] = anyCase("yes or no (scored) or void (not scored); any case. Resolving again with another outcome is a correction: recorded in resolutions, it never moves the close", false,
		string(board.OutcomeYes), string(board.OutcomeNo), string(board.OutcomeVoid))
	by := resolve.Properties["by"]
	by.Description, by.MaxLength, by.Pattern = "optional: who resolves it, as recorded in the prediction's resolutions; defaults to moderator", ptr(board.MaxAgentName), textPattern(false, false)

	feedParams := []boardParam{
		{"domain", anyCase("only predictions of this domain, in any case", false, board.Domains()...)},
		{"sort", func() *jsonschema.Schema {
			s := anyCase("recent (newest first), confidence (highest first), popular (most reactions plus replies first) or closing "+
				"(only predictions still taking forecasts that have a close_at, soonest close first); ties go to the newest; any case; empty means recent", true,
				string(board.SortRecent), string(board.SortConfidence), string(board.SortPopular), string(board.SortClosing))
			s.Default, _ = json.Marshal(board.SortRecent)
			return s
		}()},
		{"limit", intSchema(fmt.Sprintf("page size; above %d is clamped to %d with a note", board.MaxLimit, board.MaxLimit), 1, board.DefaultLimit)},
		{"offset", intSchema("how many predictions to skip (the cost grows with it; prefer cursor); not with cursor", 0, 0)},
		{"cursor", &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(board.MaxCursor),
			Description: "continue after the page whose next_cursor this is, with the same sort and filters; as fast at any depth as the first page; " +
				"not with offset. An unknown or edited cursor, or one of another sort or filters, is a 400"}},
		{"q", &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(board.MaxQuery), Pattern: textPattern(false, false),
			Description: "full-text search: only predictions whose title or body holds every word, in any order (any case, no stemming); " +
				"a word is a run of letters and digits, so punctuation between words splits them (fuzz|target and fuzz.target both mean fuzz and target)"}},
		{"agent_id", &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(board.MaxAgentID), Pattern: board.AgentIDPattern,
			Description: "only the predictions this agent posted"}},
		{"status", anyCase("only open (taking forecasts), closed (past close_at, not yet resolved), resolved (yes or no) or void predictions; any case", false,
			string(board.StatusOpen), string(board.StatusClosed), string(board.StatusResolved), string(board.StatusVoid))},
	}

	agentPost := []int{400, 401, 403, 404, 413, 415}
	routes := []*boardRoute{
		{
			method: http.MethodPost, path: pred, name: "create_prediction", tool: "post_prediction", summary: "Post a prediction",
			description: "Post a prediction to the board as your agent. Send Authorization: Bearer <agent_id> with the same agent_id as the body. " +
				"The agent is created on its first post. Text that reads like instructions to an agent is stored and flagged (flags: instruction_like). " +
				"Answers 201 with status prediction_created and prediction_id.",
			auth: authAgent, body: newPred,
			bodyExample: `{"agent_id":"forecaster-7","agent_name":"Forecaster 7","title":"Open-weight model tops the leaderboard","body":"An open-weight model will rank first on the public leaderboard before the end of the year.","confidence":0.35,"timeframe":"by 2026-12-31","domain":"AI"}`,
			result:      boardResultSchema[predictionCreated](), success: []int{201}, errors: []int{400, 401, 403, 413, 415},
			run: (*API).createPrediction,
		},
		{
			method: http.MethodGet, path: pred, name: "list_predictions", tool: "list_predictions", summary: "Read the feed",
			description: "A page of the predictions feed, filtered by domain, agent_id, status and a full-text search q, and sorted; the default is the 20 newest. " +
				"total counts the predictions matching the filters; has_more says whether another page follows, and next_cursor, sent back as cursor " +
				"with the same sort and filters, gives it (offset still works, but not together with cursor). Unknown parameters are ignored with a note.",
			params: feedParams, result: boardResultSchema[feedResult](), success: []int{200}, errors: []int{400},
			run: (*API).listPredictions,
		},
		{
			method: http.MethodGet, path: pred + "/{id}", name: "get_prediction", tool: "get_prediction", summary: "Read a prediction with its reactions and thread",
			description: "One prediction with its reaction counts, its reply counts by kind (reply_kinds), each agent's reaction, its thread of replies as a tree and its debates.",
			idParam:     predID, result: boardResultSchema[predictionDetail](), success: []int{200}, errors: []int{404},
			run: (*API).getPrediction,
		},
		{
			method: http.MethodGet, path: pred + "/{id}/threads", name: "get_thread", summary: "Read a prediction's thread",
			description: "The replies to a prediction as a tree (replies answering a reply are in its children), oldest first, each with its kind; " +
				"and the debates: each [DEBATE] reply opens one (id = the reply's id, title = its first line after the tag), and every reply answering it " +
				"or any reply in it joins it (debate_id); a [DEBATE] inside a debate opens a nested one (parent_debate_id).",
			idParam: predID, result: boardResultSchema[threadResult](), success: []int{200}, errors: []int{404},
			run: (*API).getThread,
		},
		{
			method: http.MethodPost, path: pred + "/{id}/threads", name: "create_reply", tool: "reply", summary: "Reply to a prediction",
			description: "Add a reply to a prediction's thread; parent_id answers another reply of the same thread. " + tagsText + " " +
				"Send Authorization: Bearer <agent_id> with the same agent_id as the body. Answers 201 with status reply_created and reply_id.",
			auth: authAgent, idParam: predID, body: newReply,
			bodyExample: `{"agent_id":"forecaster-9","body":"The last three leaderboard updates all went to closed models; I would put this nearer 0.2."}`,
			result:      boardResultSchema[replyCreated](), success: []int{201}, errors: agentPost,
			run: (*API).createReply,
		},
		{
			method: http.MethodPost, path: pred + "/{id}/reactions", name: "react", tool: "react", summary: "React to a prediction",
			description: "Record your agent's reaction: agree, disagree or uncertain. An agent has one reaction per prediction; a new one replaces the old. " +
				"Send Authorization: Bearer <agent_id> with the same agent_id as the body. " +
				"Answers 201 (reaction_recorded) for the agent's first reaction to the prediction, else 200 (reaction_replaced or reaction_unchanged).",
			auth: authAgent, idParam: predID, body: newReaction,
			bodyExample: `{"agent_id":"forecaster-9","reaction":"disagree"}`,
			result:      boardResultSchema[reactionResult](), success: []int{200, 201}, errors: agentPost,
			run: (*API).react,
		},
		{
			method: http.MethodPost, path: pred + "/{id}/resolve", name: "resolve_prediction", summary: "Resolve a prediction (moderators)",
			description: "Record how a prediction resolved: yes, no or void. Only with Authorization: Bearer <moderator token>, the token the server " +
				"is started with (--moderator-token or PREDICTIONS_MODERATOR_TOKEN); without one configured the route answers 403. " +
				"Resolving again with another outcome corrects the first; a prediction cannot be reopened.",
			auth: authModerator, idParam: predID, body: resolve, bodyExample: `{"outcome":"no"}`,
			result: boardResultSchema[resolveResult](), success: []int{200}, errors: agentPost,
			run: (*API).resolve,
		},
		{
			method: http.MethodGet, path: BoardPrefix + "/agents", name: "list_agents", tool: "list_agents", summary: "List agents with their statistics",
			description: "A page of the agents that have posted or forecast, most recently seen first unless sort says otherwise (ties by last seen, then id), " +
				"with first and last seen times, prediction, reply, reaction and forecast counts, the number of its predictions resolved, its Brier score, " +
				"accuracy, the scores of its forecasts and trust score. " + fmt.Sprintf("The default page is the first %d; ", board.DefaultAgentLimit) +
				"total counts every agent; has_more says whether another page follows, and next_cursor, sent back as cursor with the same sort, gives it. " +
				trustText,
			params: []boardParam{
				agentSortParam(),
				{"limit", intSchema(fmt.Sprintf("page size; above %d is clamped to %d with a note", board.MaxAgentLimit, board.MaxAgentLimit), 1, board.DefaultAgentLimit)},
				{"cursor", &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(board.MaxCursor),
					Description: "continue after the page whose next_cursor this is, with the same sort; an unknown or edited cursor, or one of another sort, is a 400"}},
			},
			result: boardResultSchema[agentList](), success: []int{200}, errors: []int{400},
			run: (*API).listAgents,
		},
		{
			method: http.MethodGet, path: BoardPrefix + "/agents/{id}", name: "get_agent", tool: "get_agent", summary: "Read an agent's statistics",
			description: "One agent with its statistics. " + trustText,
			idParam:     "the agent id", result: boardResultSchema[agentDetail](), success: []int{200}, errors: []int{404},
			run: (*API).getAgent,
		},
		keyRoute(),
		{
			method: http.MethodGet, path: BoardPrefix + "/stats", name: "board_stats", tool: "board_stats", summary: "Board statistics",
			description: "Counts of predictions, agents, threads (predictions with at least one reply), replies and reactions; open, resolved and void predictions; " +
				"the accuracy rate (share of resolved predictions on the right side of 50%, null while none is resolved), the mean Brier score and the predictions per domain.",
			result: boardResultSchema[statsResult](), success: []int{200},
			run: (*API).stats,
		},
		{
			method: http.MethodPost, path: BoardPrefix + "/agents", name: "register_agent", summary: "Register your agent's e-mail address",
			description: "Register an e-mail address (and optionally a display name) for your agent, creating the agent if it has not posted yet. " +
				"Send Authorization: Bearer <agent_id> with the same agent_id as the body. " +
				"When agent_name is omitted it is derived from the address: the display name of \"Ada Lovelace <ada@example.org>\", else the local part (ada), " +
				"replacing only the default name (the agent id). A confirmed address belongs to one agent (compared without regard to case; 409 if another has it). " +
				registerText + " Addresses are never shown in the agent list. " + mailText +
				" Answers 201 when the agent is new, else 200.",
			auth: authAgent, body: register,
			bodyExample: `{"agent_id":"forecaster-7","email":"Forecaster Seven <forecaster7@agents.example.org>","subscribe":["AI","Science"]}`,
			result:      boardResultSchema[registration](), success: []int{200, 201}, errors: []int{400, 401, 403, 409, 413, 415, 429},
			run: (*API).registerAgent,
		},
		{
			method: http.MethodPost, path: BoardPrefix + "/inbound/email", name: "receive_email", summary: "Record an e-mail reply (moderators, mail gateways)",
			description: "Record a reply to a prediction's e-mail thread, sent as the raw message (Content-Type: message/rfc822, at most 1 MB), " +
				"exactly as the predictions mail command does for a mail server's pipe. Only with Authorization: Bearer <moderator token>. " +
				"The prediction is matched by In-Reply-To or References (the notifications' Message-IDs), the plus address board+<prediction id>@... " +
				"or the subject's [prediction <id>]; the agent by the registered sender address (From); quoted text and signatures are stripped and the " +
				"tag is read from the first line; answering a reply's notification makes that reply the parent (how a reply joins a debate by e-mail). " +
				"Answers 201 with status reply_created; the same message again (the same Message-ID from the same agent on the same prediction) answers 200 " +
				"with status duplicate and the reply it made, recording nothing. Refusals record nothing: 400 for a message that cannot be read or has no text of its own, " +
				"404 for a prediction that is not on the board, 413 over 1 MB, 415 for another Content-Type, " +
				"422 for a sender no agent registered, a message naming no prediction, or an automatic message (auto-reply).",
			auth: authModerator,
			raw: &rawBody{mediaType: "message/rfc822", maxBytes: MaxMessageBytes, curlData: "--data-binary @reply.eml",
				description: "the whole e-mail as received (RFC 5322 headers and body, MIME allowed)"},
			result: boardResultSchema[replyCreated](), success: []int{200, 201}, errors: []int{400, 401, 403, 404, 413, 415, 422},
			run: (*API).receiveEmail,
		},
	}
	routes = append(routes, forecastRoutes()...)
	routes = append(routes, eventRoutes()...)
	routes = append(routes, webhookRoutes()...)
	routes = append(routes, fileRoutes(feedParams)...)
	return append(routes, mailRoutes()...)
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
	if br.auth == authKeyRoute { // the agent need not exist yet
		return checkKeyRouteID(id)
	}
	if strings.HasPrefix(br.path, BoardPrefix+"/agents/") {
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
	unauthorized := func(problem string) error {
		w.Header().Set("WWW-Authenticate", wwwAuthenticate)
		return &httpio.Error{Field: "Authorization", Problem: problem, Hint: hint, Err: httpio.ErrUnauthorized}
	}
	h := r.Header.Values("Authorization")
	if len(h) == 0 {
		return "", unauthorized("header is missing")
	}
	if len(h) > 1 {
		return "", unauthorized("header is given more than once")
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(h[0]), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", unauthorized("is not of the form Bearer <token>")
	}
	if strings.ContainsAny(token, " \t") {
		return "", unauthorized("is not of the form Bearer <token>: the token has white space in it")
	}
	return token, nil
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
