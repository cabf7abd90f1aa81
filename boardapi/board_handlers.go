package boardapi

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/mailbox"
)

// The handlers of the board routes of boardTable (board.go).

func (s *API) createPrediction(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	np, err := decodeBody[board.NewPrediction](w, r, c, c.route.body)
	if err != nil {
		return nil, err
	}
	if err := s.authorizeAgent(w, r, c, np.AgentID); err != nil {
		return nil, err
	}
	p, err := s.opt.Store.CreatePrediction(r.Context(), np)
	if err != nil {
		return nil, err
	}
	sum := fmt.Sprintf("Prediction %s created by %s in %s at %s confidence.", p.ID, p.AgentID, p.Domain, pctText(p.Confidence))
	if len(p.Flags) > 0 {
		sum += " It is flagged: " + strings.Join(p.Flags, ", ") + "."
	}
	if p.CloseAt != nil {
		sum += fmt.Sprintf(" It takes forecasts until %s.", p.CloseAt.Format(time.RFC3339))
	}
	return &boardResult{status: http.StatusCreated, summary: sum,
		output: predictionCreated{Status: "prediction_created", PredictionID: p.ID, Prediction: p}}, nil
}

func (s *API) listPredictions(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	q, err := feedQuery(c)
	if err != nil {
		return nil, err
	}
	f, err := s.opt.Store.Feed(r.Context(), q)

	if err != nil {
		return nil, err
	}
	scope := "all domains"
	if f.Domain != "" {
		scope = f.Domain
	}
	if f.AgentID != "" {
		scope += " by " + f.AgentID
	}
	if f.Status != "" {
		scope = string(f.Status) + " in " + scope
	}
	if f.Q != "" {
		scope += fmt.Sprintf(" matching %q", f.Q)
	}
	from := fmt.Sprintf("from offset %d", f.Offset)
	if q.Cursor != "" {
		from = "after the cursor"
	}
	sum := fmt.Sprintf("%d of %s in %s, sorted by %s, %s.", len(f.Predictions), tools.Count(f.Total, "prediction"), scope, f.Sort, from)
	if f.HasMore {
		sum += " More follow: send next_cursor as cursor."
	}
	notes := f.Notes
	f.Notes = nil
	return &boardResult{status: http.StatusOK, summary: sum, output: feedResult{Feed: f}, notes: notes}, nil
}

func (s *API) getPrediction(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	ctx := r.Context()
	p, err := s.opt.Store.Prediction(ctx, c.id)
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	reactions, err := s.opt.Store.Reactions(ctx, c.id)
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	replies, err := s.opt.Store.Thread(ctx, c.id)
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	if reactions == nil {
		reactions = []board.Reaction{}
	}
	debates := board.Debates(replies)
	sum := fmt.Sprintf("%q by %s: %s confidence, %s; %d agree, %d disagree, %d uncertain; %d replies%s.",
		p.Title, p.AgentID, pctText(p.Confidence), p.Status, p.Reactions.Agree, p.Reactions.Disagree, p.Reactions.Uncertain, len(replies),
		tagSummary(p.ReplyKinds))
	return &boardResult{status: http.StatusOK, summary: sum,
		output: predictionDetail{Prediction: p, Reactions: reactions, Thread: board.Tree(replies), Debates: debates}}, nil
}

func (s *API) getThread(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	replies, err := s.opt.Store.Thread(r.Context(), c.id)
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	debates := board.Debates(replies)
	return &boardResult{status: http.StatusOK, summary: fmt.Sprintf("%s to prediction %s; %s.", tools.Count(len(replies), "reply"), c.id, tools.Count(len(debates), "debate")),
		output: threadResult{PredictionID: c.id, Count: len(replies), Thread: board.Tree(replies), Debates: debates}}, nil
}

// tagSummary names the tagged replies for a summary: "" when there are
// none, else ", of which 2 challenge, 1 debate".
func tagSummary(k board.ReplyKindCounts) string {
	var parts []string
	for _, c := range []struct {
		n    int
		kind board.ReplyKind
	}{{k.Agree, board.ReplyAgree}, {k.Disagree, board.ReplyDisagree}, {k.Challenge, board.ReplyChallenge}, {k.Debate, board.ReplyDebate}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.kind))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (tagged: " + strings.Join(parts, ", ") + ")"
}

func (s *API) createReply(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	nr, err := decodeBody[board.NewReply](w, r, c, c.route.body)
	if err != nil {
		return nil, err
	}
	if err := s.authorizeAgent(w, r, c, nr.AgentID); err != nil {
		return nil, err
	}
	rep, err := s.opt.Store.Reply(r.Context(), c.id, nr)
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	sum := replySummary(rep)
	return &boardResult{status: http.StatusCreated, summary: sum,
		output: replyCreated{Status: "reply_created", ReplyID: rep.ID, Reply: rep}}, nil
}

// replySummary is the summary of a recorded reply.
func replySummary(rep board.Reply) string {
	sum := fmt.Sprintf("Reply %s by %s added to prediction %s.", rep.ID, rep.AgentID, rep.PredictionID)
	if rep.ParentID != "" {
		sum = fmt.Sprintf("Reply %s by %s added to prediction %s, answering reply %s.", rep.ID, rep.AgentID, rep.PredictionID, rep.ParentID)
	}
	if rep.Kind != board.ReplyPlain {
		sum += fmt.Sprintf(" Its tag makes it a %s reply.", rep.Kind)
	}
	if re := rep.Reaction; re != nil {
		switch re.Previous {
		case "":
			sum += fmt.Sprintf(" It records %s's reaction %s.", re.AgentID, re.Reaction)
		case re.Reaction:
			sum += fmt.Sprintf(" %s's reaction stays %s.", re.AgentID, re.Reaction)
		default:
			sum += fmt.Sprintf(" It changes %s's reaction from %s to %s.", re.AgentID, re.Previous, re.Reaction)
		}
	}
	if rep.Kind == board.ReplyDebate {
		sum += fmt.Sprintf(" It opens debate %s; replies answering it join it.", rep.ID)
	} else if rep.DebateID != "" {
		sum += fmt.Sprintf(" It joins debate %s.", rep.DebateID)
	}
	if len(rep.Flags) > 0 {
		sum += " It is flagged: " + strings.Join(rep.Flags, ", ") + "."
	}
	return sum
}

func (s *API) react(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	nr, err := decodeBody[board.NewReaction](w, r, c, c.route.body)
	if err != nil {
		return nil, err
	}
	if err := s.authorizeAgent(w, r, c, nr.AgentID); err != nil {
		return nil, err
	}
	re, err := s.opt.Store.React(r.Context(), c.id, nr)
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	res := &boardResult{status: http.StatusOK, output: reactionResult{Status: "reaction_replaced", Reaction: re}}
	switch re.Previous {
	case "":
		res.status, res.output = http.StatusCreated, reactionResult{Status: "reaction_recorded", Reaction: re}
		res.summary = fmt.Sprintf("%s's reaction %s to prediction %s is recorded.", re.AgentID, re.Reaction, c.id)
	case re.Reaction:
		res.output = reactionResult{Status: "reaction_unchanged", Reaction: re}
		res.summary = fmt.Sprintf("%s's reaction to prediction %s is still %s.", re.AgentID, c.id, re.Reaction)
	default:
		res.summary = fmt.Sprintf("%s's reaction to prediction %s changed from %s to %s.", re.AgentID, c.id, re.Previous, re.Reaction)
	}
	if re.Counts != nil {
		res.summary += fmt.Sprintf(" Now %d agree, %d disagree, %d uncertain.", re.Counts.Agree, re.Counts.Disagree, re.Counts.Uncertain)
	}
	return res, nil
}

func (s *API) resolve(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	in, err := decodeBody[resolveInput](w, r, c, c.route.body)
	if err != nil {
		return nil, err
	}
	if in.Outcome == "" {
		return nil, &httpio.Error{Field: "outcome", Problem: "is required", Hint: `send {"outcome":"yes"}, "no" or "void"`, Err: httpio.ErrBadRequest}
	}
	p, err := s.opt.Store.Resolve(r.Context(), c.id, board.NewResolution(in))
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	sum := fmt.Sprintf("Prediction %s resolved %s (status %s).", p.ID, p.Outcome, p.Status)
	if n := len(p.Resolutions); n > 1 {
		last := p.Resolutions[n-1]
		sum = fmt.Sprintf("Prediction %s corrected from %s to %s (status %s); its close stays at %s.", p.ID, last.Previous, last.Outcome, p.Status, p.ClosedAt.Format(time.RFC3339Nano))
	}
	return &boardResult{status: http.StatusOK, summary: sum,
		output: resolveResult{Status: "prediction_resolved", Prediction: p}}, nil
}

func (s *API) registerAgent(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	in, err := decodeBody[mailbox.Registration](w, r, c, c.route.body)
	if err != nil {
		return nil, err
	}
	if err := s.authorizeAgent(w, r, c, in.AgentID); err != nil {
		return nil, err
	}
	return s.register(w, r, in) // mailroutes.go
}

// receiveEmail records a raw e-mail as a reply: the HTTP twin of the
// predictions mail command, both calling mailbox.Box.ReceiveMail.
func (s *API) receiveEmail(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	raw := c.route.raw
	b, err := raw.read(w, r, "a raw e-mail", "send the message as received, with Content-Type: message/rfc822",
		"leave attachments out: only the text of the reply is recorded")
	if err != nil {
		return nil, err
	}
	m, err := email.Options{MaxBytes: raw.maxBytes}.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	mb, err := s.mailbox()
	if err != nil {
		return nil, err
	}
	rep, err := mb.ReceiveMail(r.Context(), m)
	if errors.Is(err, mailbox.ErrDuplicate) {
		return &boardResult{status: http.StatusOK, summary: "Duplicate: this message was recorded before as reply " + rep.ID + "; nothing recorded.",
			output: replyCreated{Status: "duplicate", ReplyID: rep.ID, Reply: rep}}, nil
	}
	if err != nil {
		return nil, err
	}
	return &boardResult{status: http.StatusCreated, summary: replySummary(rep) + " It came by e-mail from " + m.From.Address + ".",
		output: replyCreated{Status: "reply_created", ReplyID: rep.ID, Reply: rep}}, nil
}

func (s *API) listAgents(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	q := board.AgentQuery{Sort: board.AgentSort(c.query.Get("sort")), Cursor: c.query.Get("cursor"), Domain: c.query.Get("domain"),
		Kind: c.query.Get("kind")}
	if _, ok := c.query["cursor"]; ok && q.Cursor == "" {
		return nil, &httpio.Error{Field: "cursor", Err: httpio.ErrBadRequest, Problem: "is empty",
			Hint: "leave cursor out for the first page, or send next_cursor as a page gave it"}
	}
	var err error
	if q.Limit, _, err = intParam(c, "limit", 1, board.DefaultAgentLimit); err != nil {
		return nil, err
	}
	page, err := s.opt.Store.Agents(r.Context(), q)
	if err != nil {
		return nil, err
	}
	order := "most recently seen first"
	if page.Sort != board.AgentSortRecent {
		order = "sorted by " + string(page.Sort)
	}
	from := "from the first"
	if q.Cursor != "" {
		from = "after the cursor"
	}
	sum := fmt.Sprintf("%d of %s, %s, %s.", len(page.Agents), tools.Count(page.Total, "agent"), order, from)
	if page.HasMore {
		sum += " More follow: send next_cursor as cursor."
	}
	notes := page.Notes
	page.Notes = nil
	return &boardResult{status: http.StatusOK, summary: sum, notes: notes,
		output: agentList{AgentPage: page, Count: len(page.Agents)}}, nil
}

// intParam reads the whole-number query parameter name, at least min;
// ok is false (and n 0) when it is absent. example goes in the hint.
func intParam(c *call, name string, min, example int) (n int, ok bool, err error) {
	v, ok := c.query[name]
	if !ok {
		return 0, false, nil
	}
	n, err = strconv.Atoi(strings.TrimSpace(v[0]))
	if err != nil || n < min {
		return 0, true, &httpio.Error{Field: name, Err: httpio.ErrBadRequest, Problem: fmt.Sprintf("is %q; it must be a whole number of at least %d", v[0], min),
			Hint: fmt.Sprintf("such as %s=%d", name, example)}
	}
	return n, true, nil
}

func (s *API) getAgent(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	a, err := s.opt.Store.Agent(r.Context(), c.id)
	if err != nil {
		return nil, notFoundAs(err, agentNotFound, c.id)
	}
	sum := fmt.Sprintf("%s: %s (%d resolved), %s; trust score %.2f.", a.ID, tools.Count(a.Predictions, "prediction"), a.Resolved, tools.Count(a.Replies, "reply"), a.TrustScore)
	return &boardResult{status: http.StatusOK, summary: sum, output: agentDetail{Agent: a}}, nil
}

func (s *API) stats(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	st, err := s.opt.Store.Stats(r.Context())
	if err != nil {
		return nil, err
	}
	acc := "no prediction resolved yet"
	if st.AccuracyRate != nil {
		acc = "accuracy rate " + pctText(*st.AccuracyRate)
	}
	sum := fmt.Sprintf("%s by %s, %s, %s; %d resolved, %s.",
		tools.Count(st.Predictions, "prediction"), tools.Count(st.Agents, "agent"), tools.Count(st.Threads, "thread"),
		tools.Count(st.Reactions, "reaction"), st.Resolved, acc)
	notes := st.Notes
	st.Notes = nil
	return &boardResult{status: http.StatusOK, summary: sum, output: statsResult{Stats: st}, notes: notes}, nil
}

// pctText writes a probability as a percent for summaries.
func pctText(p float64) string { return strconv.FormatFloat(math.Round(p*1000)/10, 'f', -1, 64) + "%" }

// feedQuery reads the feed's query parameters: domain, sort, limit and
// offset.
func feedQuery(c *call) (board.FeedQuery, error) {
	// Only the route's parameters: the others are ignored with a note.
	get := func(name string) (string, bool) {
		v, ok := c.query[name]
		if !ok || !slices.ContainsFunc(c.route.params, func(p boardParam) bool { return p.name == name }) {
			return "", false
		}
		return v[0], true
	}
	q := board.FeedQuery{}
	for _, p := range []struct {
		name string
		dst  *int
		min  int
	}{{"limit", &q.Limit, 1}, {"offset", &q.Offset, 0}} {
		if _, ok := get(p.name); !ok {
			continue
		}
		var err error
		if *p.dst, _, err = intParam(c, p.name, p.min, 20); err != nil {
			return q, err
		}
	}
	for _, p := range []struct {
		name, hint string
		dst        *string
	}{
		{"domain", "leave domain out for every domain, or give one of " + strings.Join(board.Domains(), ", "), &q.Domain},
		{"sort", "leave sort out for recent, or give recent, confidence, popular or closing", (*string)(&q.Sort)},
		{"q", "leave q out for every prediction, or give words to search for, such as q=launch delay", &q.Q},
		{"agent_id", "leave agent_id out for every agent, or give one, such as agent_id=forecaster-7", &q.AgentID},
		{"status", "leave status out for every status, or give open, closed, resolved or void", (*string)(&q.Status)},
		{"cursor", "leave cursor out for the first page, or send next_cursor as a page gave it", &q.Cursor},
	} {
		v, ok := get(p.name)
		if ok && v == "" && p.name != "sort" {
			return q, &httpio.Error{Field: p.name, Err: httpio.ErrBadRequest, Problem: "is empty", Hint: p.hint}
		}
		*p.dst = v
	}
	if _, ok := get("offset"); ok && q.Cursor != "" {
		return q, &httpio.Error{Field: "cursor", Err: httpio.ErrBadRequest, Problem: "cannot be combined with offset",
			Hint: "send cursor alone (it says where the page starts), or offset without cursor"}
	}
	return q, nil
}
