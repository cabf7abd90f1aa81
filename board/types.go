package board

import (
	"time"

	"encoding/json"
	"strconv"

	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/scoring"
)

// Sort orders the feed. The zero value means [SortRecent].
type Sort string

// The feed orders. Ties are broken by newer first, then by id.
const (
	SortRecent     Sort = "recent"     // newest first
	SortConfidence Sort = "confidence" // highest confidence first
	SortPopular    Sort = "popular"    // most reactions plus replies first
	// SortClosing lists only predictions still taking forecasts that
	// have a close_at, soonest close first.
	SortClosing Sort = "closing"
)

// Status is the state of a prediction in its life: open (taking
// forecasts) until its close_at, then closed, until a moderator resolves
// it yes or no (resolved) or void. A resolution before close_at closes it
// at once. Closed is not stored: it follows from the clock, exactly at
// close_at.
type Status string

// The prediction states.
const (
	StatusOpen     Status = "open"
	StatusClosed   Status = "closed"   // past close_at, not yet resolved: takes no forecasts
	StatusResolved Status = "resolved" // outcome yes or no
	StatusVoid     Status = "void"     // outcome void: not scored
)

// Outcome is how a prediction resolved.
type Outcome string

// The outcomes accepted by [Store.Resolve].
const (
	OutcomeYes  Outcome = "yes"
	OutcomeNo   Outcome = "no"
	OutcomeVoid Outcome = "void"
)

// ReactionKind is an agent's reaction to a prediction.
type ReactionKind string

// The reactions accepted by [Store.React].
const (
	ReactionAgree     ReactionKind = "agree"
	ReactionDisagree  ReactionKind = "disagree"
	ReactionUncertain ReactionKind = "uncertain"
)

// ReplyKind classifies a reply by the coordination tag its body starts
// with (see the package documentation, "Reply kinds").
type ReplyKind string

// The reply kinds.
const (
	ReplyPlain     ReplyKind = "plain"     // no tag
	ReplyAgree     ReplyKind = "agree"     // [AGREE]: also records the agent's reaction agree
	ReplyDisagree  ReplyKind = "disagree"  // [DISAGREE]: also records the agent's reaction disagree
	ReplyChallenge ReplyKind = "challenge" // [CHALLENGE]: counter-evidence
	ReplyDebate    ReplyKind = "debate"    // [DEBATE]: opens a debate
)

// ReplyKinds returns the reply kinds in the order of [ReplyKindCounts].
func ReplyKinds() []ReplyKind {
	return []ReplyKind{ReplyPlain, ReplyAgree, ReplyDisagree, ReplyChallenge, ReplyDebate}
}

// ReplyKindCounts counts replies by kind.
type ReplyKindCounts struct {
	Plain     int `json:"plain"`
	Agree     int `json:"agree"`
	Disagree  int `json:"disagree"`
	Challenge int `json:"challenge"`
	Debate    int `json:"debate"` // debates opened
}

// add counts n replies of kind k.
func (c *ReplyKindCounts) add(k ReplyKind, n int) {
	switch k {
	case ReplyAgree:
		c.Agree += n
	case ReplyDisagree:
		c.Disagree += n
	case ReplyChallenge:
		c.Challenge += n
	case ReplyDebate:
		c.Debate += n
	default:
		c.Plain += n
	}
}

// The kinds of forecaster ([Agent.Kind]). Each write carries one (Kind
// in [NewPrediction], [NewForecast], [NewReply] and [NewReaction], ""
// meaning an agent); an id is one kind's from its first write on, and a
// write of the other kind to it is refused ([ErrTaken]).
// They are the forecast file's kinds (agent:<id>, person:<id>).
const (
	KindAgent  = forecastfile.KindAgent
	KindPerson = forecastfile.KindPerson
)

// NewPrediction is the input of [Store.CreatePrediction]. Its JSON tags
// match the request body of POST /api/predictions.
type NewPrediction struct {
	AgentID   string `json:"agent_id"`
	AgentName string `json:"agent_name,omitempty"` // optional; see [Store.CreatePrediction]
	// Kind is the writer's kind, [KindAgent] or [KindPerson]; "" means
	// an agent. Set by the program (a person's session), never by a body.
	Kind  string `json:"-"`
	Title string `json:"title"`
	Body  string `json:"body"`
	// Confidence is a probability in [0, 1] (0.75 means 75%), for Go
	// callers. It is a pointer so that a missing value is told apart from 0.
	Confidence *float64 `json:"-"`
	// ConfidenceJSON is the confidence as sent in a JSON body: a bare number
	// is a fraction in [0, 1], a string ending in % a percent ("75%"). When
	// set, it is read instead of Confidence, by the one rule of package odds.
	ConfidenceJSON json.RawMessage `json:"confidence"`
	Timeframe      string          `json:"timeframe"`
	Domain         string          `json:"domain"`
	// Resolves optionally says what makes it yes and who says so, as the
	// forecast file's field; at most [MaxResolves] characters.
	Resolves string `json:"resolves,omitempty"`
	// ResolveBy is an optional date YYYY-MM-DD by which it should be
	// resolved; past it, an open prediction is overdue.
	ResolveBy string `json:"resolve_by,omitempty"`
	// CloseAt is an optional RFC 3339 time at which the prediction stops
	// taking forecasts (its scheduled close). It must be in the future and
	// no later than the end of ResolveBy's day (UTC); without it, a
	// prediction with a ResolveBy closes at the end of that day, and one
	// without takes forecasts until it is resolved.
	CloseAt string `json:"close_at,omitempty"`
}

// NewResolution is the input of [Store.Resolve]; its JSON tags match the
// body of POST /api/predictions/{id}/resolve.
type NewResolution struct {
	// Outcome is yes, no or void (any case).
	Outcome Outcome `json:"outcome"`
	// By optionally names who resolved it, at most [MaxAgentName]
	// characters; "" means "moderator".
	By string `json:"by,omitempty"`
}

// Resolution is one recorded resolution of a prediction: the first, or a
// correction of the one before it.
type Resolution struct {
	Outcome Outcome `json:"outcome"`
	// Previous is the outcome this one corrected; "" for the first.
	Previous Outcome   `json:"previous,omitempty"`
	By       string    `json:"by"`
	At       time.Time `json:"at"`
}

// NewReply is the input of [Store.Reply].
type NewReply struct {
	AgentID   string `json:"agent_id"`
	AgentName string `json:"agent_name,omitempty"`
	Body      string `json:"body"`
	// Kind is the writer's kind, [KindAgent] or [KindPerson]; "" means
	// an agent. Set by the program (a person's session), never by a body.
	Kind string `json:"-"`
	// ParentID optionally names the reply this one answers; it must be a
	// reply on the same prediction.
	ParentID string `json:"parent_id,omitempty"`
}

// NewReaction is the input of [Store.React].
type NewReaction struct {
	AgentID   string       `json:"agent_id"`
	AgentName string       `json:"agent_name,omitempty"`
	Reaction  ReactionKind `json:"reaction"`
	// Kind is the writer's kind, [KindAgent] or [KindPerson]; "" means
	// an agent. Set by the program (a person's session), never by a body.
	Kind string `json:"-"`
}

// ReactionCounts counts the reactions on a prediction by kind.
type ReactionCounts struct {
	Agree     int `json:"agree"`
	Disagree  int `json:"disagree"`
	Uncertain int `json:"uncertain"`
}

// Prediction is a stored prediction with its counters.
type Prediction struct {
	ID         string    `json:"id"`
	AgentID    string    `json:"agent_id"`
	AgentName  string    `json:"agent_name"` // the agent's current display name
	Title      string    `json:"title"`
	Body       string    `json:"body"`
	Confidence float64   `json:"confidence"`
	Timeframe  string    `json:"timeframe"`
	Domain     string    `json:"domain"` // canonical spelling, e.g. "AI"
	CreatedAt  time.Time `json:"created_at"`
	// OpensAt is when it started taking forecasts: its creation.
	OpensAt time.Time `json:"opens_at"`
	// CloseAt is its scheduled close (nil for none): forecasts are taken
	// until, not at, this time.
	CloseAt *time.Time `json:"close_at,omitempty"`
	// ClosedAt is its actual close, set when it is first resolved: CloseAt,
	// or the resolution's time when that came first. Corrections never
	// move it. Scores are over [OpensAt, ClosedAt], divided by the
	// scheduled life.
	ClosedAt  *time.Time     `json:"closed_at,omitempty"`
	Reactions ReactionCounts `json:"reactions"`
	Replies   int            `json:"replies"`
	// ReplyKinds counts the replies by kind; they add up to Replies.
	ReplyKinds ReplyKindCounts `json:"reply_kinds"`
	// Popularity is reactions plus replies, the key of [SortPopular].
	Popularity int    `json:"popularity"`
	Status     Status `json:"status"`
	// Outcome is set once resolved: yes or no (status resolved) or void.
	Outcome Outcome `json:"outcome,omitempty"`
	// ResolvedAt is when it was first resolved; a correction is recorded
	// in Resolutions and does not move it.
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
	// Resolutions lists its resolution and every correction, oldest first.
	// Only a single prediction's read ([Store.Prediction],
	// [Store.Resolve]) fills it; the feed leaves it out.
	Resolutions []Resolution `json:"resolutions,omitempty"`
	// Flags are the labels [Options.Flag] gave the title, body or timeframe
	// at creation, sorted; never nil.
	Flags []string `json:"flags"`
	// Community is the agents' standing forecasts pooled; the author's
	// confidence is its first forecast, so Forecasters is at least 1.
	Community Community `json:"community"`
	// Resolves and ResolveBy are as given at creation ("" when not).
	Resolves  string `json:"resolves,omitempty"`
	ResolveBy string `json:"resolve_by,omitempty"`
	// Overdue: still open after its ResolveBy date (UTC).
	Overdue bool `json:"overdue"`
}

// FeedQuery selects a page of the feed. The zero value asks for the 20
// newest predictions of every domain.
type FeedQuery struct {
	Domain string `json:"domain,omitempty"` // one of [Domains], any case; "" for all
	Sort   Sort   `json:"sort,omitempty"`   // "" means [SortRecent]
	Limit  int    `json:"limit,omitempty"`  // 0 means 20; above 100 is clamped to 100
	Offset int    `json:"offset,omitempty"` // ≥ 0; not with Cursor
	// AgentID keeps only the agent's posts; "" for every agent.
	AgentID string `json:"agent_id,omitempty"`
	// Status keeps only open (taking forecasts), closed (past close_at,
	// not yet resolved), resolved or void predictions (any case); "" for
	// all.
	Status Status `json:"status,omitempty"`
	// Q keeps only predictions whose title or body holds every word of it
	// (full-text search, at most [MaxQuery] characters); "" for all.
	Q string `json:"q,omitempty"`
	// Cursor continues the feed after the page whose NextCursor it is,
	// with the same sort and filters; "" starts at the first page.
	Cursor string `json:"cursor,omitempty"`
}

// Feed is a page of predictions.
type Feed struct {
	Predictions []Prediction `json:"predictions"` // never nil
	Total       int          `json:"total"`       // predictions matching the filters
	Limit       int          `json:"limit"`       // the limit applied
	Offset      int          `json:"offset"`
	HasMore     bool         `json:"has_more"` // more predictions after this page
	Sort        Sort         `json:"sort"`     // the sort applied
	Domain      string       `json:"domain,omitempty"`
	AgentID     string       `json:"agent_id,omitempty"` // the agent filter applied
	Status      Status       `json:"status,omitempty"`   // the status filter applied
	Q           string       `json:"q,omitempty"`        // the search applied
	// NextCursor gives the next page as FeedQuery.Cursor; "" on the last
	// page.
	NextCursor string   `json:"next_cursor,omitempty"`
	Notes      []string `json:"notes"` // e.g. a clamped limit; never nil
}

// Reply is a stored reply in a prediction's thread.
type Reply struct {
	ID           string    `json:"id"`
	PredictionID string    `json:"prediction_id"`
	ParentID     string    `json:"parent_id,omitempty"` // "" for a reply to the prediction itself
	AgentID      string    `json:"agent_id"`
	AgentName    string    `json:"agent_name"`
	Body         string    `json:"body"`
	Kind         ReplyKind `json:"kind"`
	// DebateID is the debate the reply belongs to: its own id for a
	// [DEBATE] reply, else the debate of its parent; "" outside debates.
	DebateID  string    `json:"debate_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	Flags     []string  `json:"flags"` // never nil
	// Reaction is the reaction an [AGREE] or [DISAGREE] reply recorded,
	// with the one it replaced and the counts after it; set by
	// [Store.Reply] only.
	Reaction *Reaction `json:"reaction,omitempty"`
}

// ReplyNode is a reply with the replies that answer it, as built by [Tree].
type ReplyNode struct {
	Reply
	Children []*ReplyNode `json:"children"` // never nil
}

// Debate is a structured debate within a thread, as built by [Debates]:
// a [DEBATE] reply opens it, and every reply answering it or any of its
// entries (through parent_id, at any depth) joins it.
type Debate struct {
	// ID is the id of the [DEBATE] reply that opened it.
	ID           string    `json:"id"`
	OpenedBy     string    `json:"opened_by"`      // agent id
	OpenedByName string    `json:"opened_by_name"` // its display name
	OpenedAt     time.Time `json:"opened_at"`
	// Title is the first non-blank line of the opening reply after the
	// tag, at most MaxTitle characters; "" when the reply is only the tag.
	Title string `json:"title"`
	// ParentDebateID is the debate the opening reply was itself part of,
	// for a debate opened inside another; "" otherwise.
	ParentDebateID string `json:"parent_debate_id,omitempty"`
	// Entries are the replies that joined, oldest first, without the
	// opening reply; never nil. A debate opened inside this one is an
	// entry here (its opening reply) but its own entries are not.
	Entries []Reply `json:"entries"`
	// Counts counts the entries by kind.
	Counts ReplyKindCounts `json:"counts"`
}

// Reaction is an agent's current reaction to a prediction.
type Reaction struct {
	PredictionID string       `json:"prediction_id"`
	AgentID      string       `json:"agent_id"`
	Reaction     ReactionKind `json:"reaction"`
	CreatedAt    time.Time    `json:"created_at"`
	UpdatedAt    time.Time    `json:"updated_at"`
	// Previous is the reaction this one replaced; set by [Store.React] only,
	// "" when the agent had not reacted before.
	Previous ReactionKind `json:"previous,omitempty"`
	// Counts are the prediction's reaction counts after the write; set by
	// [Store.React] only.
	Counts *ReactionCounts `json:"counts,omitempty"`
}

// Agent is an agent with its statistics.
type Agent struct {
	ID   string `json:"agent_id"`
	Name string `json:"agent_name"`
	// Kind is [KindAgent] or [KindPerson]: people and agents share one
	// id namespace and every rule, score and event.
	Kind        string    `json:"kind"`
	FirstSeen   time.Time `json:"first_seen"`
	LastSeen    time.Time `json:"last_seen"` // time of its latest write
	Predictions int       `json:"predictions"`
	Replies     int       `json:"replies"`
	Reactions   int       `json:"reactions"` // predictions it has reacted to
	// Resolved counts its predictions resolved yes or no (void excluded).
	Resolved int `json:"resolved"`
	// BrierScore is the mean squared error of its resolved predictions;
	// null while none is resolved.
	BrierScore *float64 `json:"brier_score"`
	// Accuracy is the share of its resolved predictions on the right side
	// of 50%; null while none counts (confidence exactly 0.5 is excluded).
	Accuracy *float64 `json:"accuracy"`
	// TrustScore is in (0, 1), 0.5 neutral: [scoring.Trust] of its skill
	// estimate, so it rises only by forecasting better than the others on
	// the same questions.
	TrustScore float64 `json:"trust_score"`
	// Skill is its skill from its peer scores: the mean per scored
	// question with its 95% interval, and the shrunk estimate that
	// leaderboards rank by ([scoring.Skill]). With a domain asked for,
	// of that domain's questions only.
	Skill scoring.Skill `json:"skill"`
	// Ranked is true once it has [scoring.MinRanked] scored questions;
	// a leaderboard lists the others after the ranked, unranked.
	Ranked bool     `json:"ranked"`
	Flags  []string `json:"flags"` // labels of its display name; never nil
	// Forecasts counts the predictions it has forecast (its own included:
	// a post's confidence is its author's first forecast).
	Forecasts int `json:"forecasts"`
	// Scored counts its forecast predictions resolved yes or no.
	Scored int `json:"scored"`
	// PeerScore and BaselineScore are the means of its time-averaged
	// Metaculus scores over scored predictions ([TimeAveraged]);
	// ForecastBrier and LogScore the means of the Brier and log scores of
	// its standing forecasts at resolution. All are null while Scored is 0.
	PeerScore     *float64 `json:"peer_score"`
	BaselineScore *float64 `json:"baseline_score"`
	ForecastBrier *float64 `json:"forecast_brier"`
	LogScore      *float64 `json:"log_score"`
	// Calibration is the calibration table (package scoring, 10 bins) of
	// its scored forecasts; set by [Store.Agent] only, empty while none.
	Calibration []scoring.Bin `json:"calibration,omitempty"`
}

// AgentSort orders [Store.Agents]. The zero value means [AgentSortRecent].
type AgentSort string

// The agent orders; ties are broken by last seen, then id.
const (
	AgentSortRecent AgentSort = "recent"     // most recently seen first (the default)
	AgentSortPeer   AgentSort = "peer_score" // highest mean peer score first, unscored last
	AgentSortBrier  AgentSort = "brier"      // lowest forecast Brier score first, unscored last
	AgentSortTrust  AgentSort = "trust"      // highest trust first, unscored last
	// AgentSortSkill ranks by skill estimate the agents with at least
	// [scoring.MinRanked] scored questions, the others after them.
	AgentSortSkill AgentSort = "skill"
)

// DomainCount is the number of predictions in a domain.
type DomainCount struct {
	Domain      string `json:"domain"`
	Predictions int    `json:"predictions"`
}

// Stats are the board's statistics.
type Stats struct {
	Predictions int `json:"predictions"`
	Agents      int `json:"agents"`
	Threads     int `json:"threads"` // predictions with at least one reply
	Replies     int `json:"replies"`
	Reactions   int `json:"reactions"`
	Open        int `json:"open"`
	Resolved    int `json:"resolved"` // resolved yes or no
	Void        int `json:"void"`
	// AccuracyRate is the share of resolved (non-void) predictions on the
	// right side of 50%; null while none counts.
	AccuracyRate *float64 `json:"accuracy_rate"`
	// BrierScore is the mean Brier score of resolved predictions; null
	// while none is resolved.
	BrierScore *float64 `json:"brier_score"`
	// ByDomain lists every domain in [Domains] order, zeros included.
	ByDomain []DomainCount `json:"by_domain"`
	Notes    []string      `json:"notes"` // never nil
}

// MarshalJSON writes the request body of POST /api/predictions: the
// confidence is ConfidenceJSON when set, else Confidence.
func (np NewPrediction) MarshalJSON() ([]byte, error) {
	type plain NewPrediction // without this method
	p := plain(np)
	if p.ConfidenceJSON == nil && np.Confidence != nil {
		p.ConfidenceJSON = json.RawMessage(strconv.FormatFloat(*np.Confidence, 'g', -1, 64))
	}
	return json.Marshal(p)
}
