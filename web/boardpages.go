package web

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/scoring"
)

// link is a filter, sort or page link.
type link struct {
	Label  string
	URL    string
	Active bool
}

// predView is a prediction as a page shows it.
type predView struct {
	board.Prediction
	Ago string
	// Key is the feed's sort, whose number the card marks: the number
	// the list is ordered by is the one shown highlighted beside it.
	Key board.Sort
}

// Void reports whether the question was voided: it has no forecast
// to headline.
func (p predView) Void() bool { return p.Status == board.StatusVoid }

type feedPage struct {
	// SortNote says which number the list is ordered by; Empty why a
	// list is empty.
	SortNote, Empty string
	Domains         []link
	Sorts           []link
	Statuses        []link
	Items           []predView
	Total           int
	From, To        int
	// Continued: the page came by cursor, so its position is not known.
	Continued bool
	Prev      string
	PrevLabel string
	Next      string
	Scope     string
	Notes     []string
	Error     *pageError
	NoBoard   bool
	PageSize  int
	// The search form keeps the other filters.
	Q, Domain, Sort, Status, AgentID string
	AllAgents                        string // the feed without the agent filter; "" when none
}

// feedQuery is the feed's query string, read as GET /api/predictions reads it.
type feedQuery struct {
	domain string
	sort   board.Sort
	limit  int
	offset int
	q      string
	agent  string
	status board.Status
	cursor string
}

// url writes the feed address for q, leaving out default values.
func (q feedQuery) url() string {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("domain", q.domain)
	if q.sort != board.SortRecent {
		set("sort", string(q.sort))
	}
	if q.limit != 0 && q.limit != board.DefaultLimit {
		v.Set("limit", strconv.Itoa(q.limit))
	}
	if q.offset > 0 {
		v.Set("offset", strconv.Itoa(q.offset))
	}
	set("q", q.q)
	set("agent_id", q.agent)
	set("status", string(q.status))
	set("cursor", q.cursor)
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

// parseFeedQuery reads the feed's parameters. Bad numbers get a message
// naming the parameter; the others are checked by the board. An empty
// parameter (as a form sends an empty field) is left out.
func parseFeedQuery(v url.Values) (feedQuery, *pageError) {
	get := func(k string) string { return strings.TrimSpace(v.Get(k)) }
	q := feedQuery{domain: get("domain"), sort: board.Sort(strings.ToLower(get("sort"))), q: get("q"), agent: get("agent_id"),
		status: board.Status(strings.ToLower(get("status"))), cursor: get("cursor")}
	var perr *pageError
	if q.limit, perr = wholeParam(v, "limit", 1, board.DefaultLimit); perr != nil {
		return q, perr
	}
	q.offset, perr = wholeParam(v, "offset", 0, board.DefaultLimit)
	return q, perr
}

// wholeParam reads the whole-number parameter name, at least min; 0 when
// it is absent or empty. example goes in the hint.
func wholeParam(v url.Values, name string, min, example int) (int, *pageError) {
	raw := strings.TrimSpace(v.Get(name))
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < min {
		return 0, badQuery(name, fmt.Sprintf("is %q; it must be a whole number of at least %d", raw, min),
			fmt.Sprintf("such as %s=%d", name, example))
	}
	return n, nil
}

func badQuery(field, problem, hint string) *pageError {
	return &pageError{Status: http.StatusBadRequest, Title: "Bad address", Field: field,
		Message: field + " " + problem + ".", Hint: hint}
}

// boardError turns a board's validation error into a 400 page; other
// errors stay as they are.
func boardError(err error) error {
	var ve *board.ValidationError
	if errors.As(err, &ve) {
		return badQuery(ve.Field, ve.Problem, ve.Hint)
	}
	return err
}

func (s *server) feed(w http.ResponseWriter, r *http.Request) error {
	page := feedPage{PageSize: board.DefaultLimit}
	if s.opt.Board == nil {
		page.NoBoard = true
		return s.render(w, r, http.StatusOK, "feed", "Board", "board", page)
	}
	q, perr := parseFeedQuery(r.URL.Query())
	var f board.Feed
	if perr == nil {
		var err error
		f, err = s.opt.Board.Feed(r.Context(), board.FeedQuery{Domain: q.domain, Sort: q.sort, Limit: q.limit, Offset: q.offset,
			Q: q.q, AgentID: q.agent, Status: q.status, Cursor: q.cursor})
		switch err := boardError(err); {
		case errors.As(err, &perr):
		case err != nil:
			return err
		default:
			q.domain, q.sort, q.limit, q.status = f.Domain, f.Sort, f.Limit, f.Status
		}
	}
	if perr != nil { // links leave the bad parameter out
		switch perr.Field {
		case "domain":
			q.domain = ""
		case "sort":
			q.sort = ""
		case "status":
			q.status = ""
		case "q":
			q.q = ""
		case "agent_id":
			q.agent = ""
		}
	}
	// Filter and sort links keep the other parameters and start again at
	// the first page.
	first := q
	first.offset, first.cursor = 0, ""
	for _, d := range append([]string{""}, board.Domains()...) {
		l := first
		l.domain = d
		page.Domains = append(page.Domains, link{Label: cmpOr(d, "All"), URL: l.url(), Active: q.domain == d})
	}
	for _, so := range []board.Sort{board.SortRecent, board.SortConfidence, board.SortPopular, board.SortClosing} {
		l := first
		l.sort = so
		active := q.sort == so || (q.sort == "" && so == board.SortRecent)
		page.Sorts = append(page.Sorts, link{Label: string(so), URL: l.url(), Active: active})
	}
	for _, st := range []board.Status{"", board.StatusOpen, board.StatusClosed, board.StatusResolved, board.StatusVoid} {
		l := first
		l.status = st
		page.Statuses = append(page.Statuses, link{Label: cmpOr(string(st), "all"), URL: l.url(), Active: q.status == st})
	}
	page.Q, page.Domain, page.Status, page.AgentID = q.q, q.domain, string(q.status), q.agent
	if q.sort != board.SortRecent {
		page.Sort = string(q.sort)
	}
	if q.agent != "" {
		l := first
		l.agent = ""
		page.AllAgents = l.url()
	}
	if perr != nil {
		page.Error = perr
		return s.render(w, r, perr.Status, "feed", "Board", "board", page)
	}
	now := s.now()
	for _, p := range f.Predictions {
		page.Items = append(page.Items, predView{Prediction: p, Ago: ago(now, p.CreatedAt), Key: f.Sort})
	}
	page.Total, page.Notes, page.PageSize = f.Total, f.Notes, f.Limit
	page.SortNote = sortNotes[f.Sort]
	if len(f.Predictions) == 0 {
		page.Empty = emptyReason(f)
	}
	page.Scope = feedScope(f)
	page.Continued = q.cursor != ""
	if len(f.Predictions) > 0 {
		page.From, page.To = f.Offset+1, f.Offset+len(f.Predictions)
	}
	switch {
	case q.cursor != "":
		page.Prev, page.PrevLabel = first.url(), "← First page"
	case f.Offset > 0:
		prev := q
		prev.offset = max(f.Offset-f.Limit, 0)
		page.Prev, page.PrevLabel = prev.url(), "← Previous"
	}
	if f.NextCursor != "" {
		next := first
		next.cursor = f.NextCursor
		page.Next = next.url()
	}
	return s.render(w, r, http.StatusOK, "feed", "Board", "board", page)
}

// sortNotes say, for each sort, which number orders the list: the one
// each card shows highlighted.
var sortNotes = map[board.Sort]string{
	board.SortRecent:     "Newest first, by the time each was posted.",
	board.SortConfidence: "By the author's confidence, highest first (the “author” figure on each card).",
	board.SortPopular:    "By reactions and replies together, most first.",
	board.SortClosing:    "Open predictions with a close, the soonest to close first; the others are left out.",
}

// emptyReason says why a feed page has no predictions.
func emptyReason(f board.Feed) string {
	switch {
	case f.Total > 0:
		return "This page is past the last prediction."
	case f.Sort == board.SortClosing && (f.Status == board.StatusResolved || f.Status == board.StatusVoid || f.Status == board.StatusClosed):
		return "The closing sort lists only open predictions, and " + string(f.Status) + " ones have closed: sort them another way."
	case f.Sort == board.SortClosing:
		return "No open prediction here has a close still ahead."
	case f.Q != "":
		return "No prediction here holds every word of the search: try fewer words."
	case f.Status != "" || f.Domain != "" || f.AgentID != "":
		return "No prediction matches these filters: remove one to see more."
	}
	return "No agent has posted a prediction yet."
}

// feedScope says which predictions a feed page is drawn from, for its
// summary line: "open predictions in AI by scout matching "launch"".
func feedScope(f board.Feed) string {
	scope := "all domains"
	if f.Domain != "" {
		scope = f.Domain
	}
	if f.Status != "" {
		scope = string(f.Status) + " predictions in " + scope
	}
	if f.AgentID != "" {
		scope += " by " + f.AgentID
	}
	if f.Q != "" {
		scope += fmt.Sprintf(" matching “%s”", f.Q)
	}
	return scope
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

type predictionPage struct {
	P         predView
	Reactions []namedReaction
	Thread    []*board.ReplyNode
	Replies   int
	// The forecasts: the history chart, each agent's standing forecast
	// and, once resolved yes or no, the score table.
	Chart        template.HTML // generated by historySVG, numbers and escaped text only
	Standing     []board.Forecast
	History      int          // forecasts in the history
	HistoryShown int          // of which the chart draws the first
	Rows         []historyRow // the chart's forecasts as a table
	Scores       []board.Score
}

// namedReaction is a reaction with its agent's display name.
type namedReaction struct {
	AgentID, AgentName string
	Reaction           board.ReactionKind
}

// historyRow is a forecast of the history table, with the marker the
// chart draws it with.
type historyRow struct {
	board.Forecast
	Mark  template.HTML // generated by markSVG, numbers and constants only
	Shape string
}

// historyLimit is how many forecasts the history chart draws.
const historyLimit = 1000

func (s *server) prediction(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if s.opt.Board == nil {
		return noBoard()
	}
	if !board.ValidPredictionID(id) {
		return notFoundError("prediction", id)
	}
	ctx := r.Context()
	p, err := s.opt.Board.Prediction(ctx, id)
	if err != nil {
		return notFoundAs(err, "prediction", id)
	}
	reactions, err := s.opt.Board.Reactions(ctx, id)
	if err != nil {
		return notFoundAs(err, "prediction", id)
	}
	replies, err := s.opt.Board.Thread(ctx, id)
	if err != nil {
		return notFoundAs(err, "prediction", id)
	}
	ids := make([]string, len(reactions))
	for i, rc := range reactions {
		ids[i] = rc.AgentID
	}
	names, err := s.opt.Board.AgentNames(ctx, ids)
	if err != nil {
		return err
	}
	named := make([]namedReaction, len(reactions))
	for i, rc := range reactions {
		named[i] = namedReaction{AgentID: rc.AgentID, AgentName: cmpOr(names[rc.AgentID], rc.AgentID), Reaction: rc.Reaction}
	}
	page := predictionPage{P: predView{Prediction: p, Ago: ago(s.now(), p.CreatedAt)}, Reactions: named,
		Thread: board.Tree(replies), Replies: len(replies)}
	hist, err := s.opt.Board.Forecasts(ctx, id, board.Page{Limit: historyLimit})
	if err != nil {
		return notFoundAs(err, "prediction", id)
	}
	end := s.now()
	if p.ResolvedAt != nil {
		end = *p.ResolvedAt
	}
	chart := historyChart{Start: p.CreatedAt, End: end, Close: p.CloseAt, Outcome: p.Outcome,
		Title: "Forecast history of " + stripBidi(p.Title)}
	if p.ClosedAt != nil {
		chart.Close = p.ClosedAt
	}
	page.History, page.HistoryShown = hist.Total, len(hist.Forecasts)
	page.Chart = historySVG(hist.Forecasts, chart)
	mk, _ := markers(hist.Forecasts)
	for _, f := range hist.Forecasts {
		page.Rows = append(page.Rows, historyRow{Forecast: f, Mark: markSVG(mk[f.AgentID]), Shape: mk[f.AgentID].Shape})
	}
	if page.Standing, err = s.opt.Board.Standing(ctx, id); err != nil {
		return notFoundAs(err, "prediction", id)
	}
	if p.Status == board.StatusResolved {
		st, err := s.opt.Board.Scores(ctx, id)
		if err != nil {
			return notFoundAs(err, "prediction", id)
		}
		page.Scores = st.Scores
	}
	return s.render(w, r, http.StatusOK, "prediction", p.Title, "board", page)
}

func noBoard() *pageError {
	return &pageError{Status: http.StatusNotFound, Title: "No board here",
		Message: "This server has no agent board configured, so it has no predictions or agents to show.",
		Hint:    "The calculation tools and the settings builder work without it."}
}

func notFoundAs(err error, what, id string) error {
	if errors.Is(err, board.ErrNotFound) {
		return notFoundError(what, id)
	}
	return err
}

type agentsPage struct {
	Agents  []board.Agent
	Sorts   []link
	Headers []header
	NoBoard bool
	Total   int
	From    int // the position of the first agent shown, 0 when the page came by cursor
	// First links to the first page when this one came by cursor; Next
	// to the page after it.
	First, Next string
	Notes       []string
}

// header is a column of the leaderboard. A column that is a sort's key
// links to that sort; the column of the sort in force carries aria-sort
// (WAI-ARIA 1.2, aria-sort: "ascending" or "descending").
type header struct {
	Label, Class string
	URL          string // the sort by this column; "" when it is no sort's key
	Sort         string // "ascending" or "descending" when the list is sorted by it
}

// agentSorts are the leaderboard's orders, as GET /api/agents?sort= takes
// them, each with the column it orders by and its direction.
var agentSorts = []struct {
	sort   board.AgentSort
	label  string
	column string
	order  string
}{
	{board.AgentSortRecent, "recently seen", "Last seen", "descending"},
	{board.AgentSortPeer, "peer score", "Peer score", "descending"},
	{board.AgentSortBrier, "Brier score", "Brier", "ascending"},
	{board.AgentSortTrust, "trust", "Trust", "descending"},
}

// agentColumns are the leaderboard's columns after the agent's name, in
// the order the template writes their cells.
var agentColumns = []struct{ label, class string }{
	{"Trust", "n"}, {"Peer score", "n"}, {"Brier", "n"}, {"Scored", "n"}, {"Posts", "n"}, {"Last seen", ""},
}

// agentsQuery is the agent list's query string, read as GET /api/agents
// reads it.
type agentsQuery struct {
	sort   board.AgentSort
	limit  int
	cursor string
}

// url writes the agent list's address for q, leaving out default values.
func (q agentsQuery) url() string {
	v := url.Values{}
	if q.sort != board.AgentSortRecent {
		v.Set("sort", string(q.sort))
	}
	if q.limit != 0 && q.limit != board.DefaultAgentLimit {
		v.Set("limit", strconv.Itoa(q.limit))
	}
	if q.cursor != "" {
		v.Set("cursor", q.cursor)
	}
	if len(v) == 0 {
		return "/agents"
	}
	return "/agents?" + v.Encode()
}

// agents serves the leaderboard a page at a time (sort, limit, cursor),
// as GET /api/agents pages it.
func (s *server) agents(w http.ResponseWriter, r *http.Request) error {
	if s.opt.Board == nil {
		return s.render(w, r, http.StatusOK, "agents", "Agents", "agents", agentsPage{NoBoard: true})
	}
	v := r.URL.Query()
	q := agentsQuery{sort: board.AgentSort(strings.ToLower(strings.TrimSpace(v.Get("sort")))), cursor: strings.TrimSpace(v.Get("cursor"))}
	if q.sort == "" {
		q.sort = board.AgentSortRecent
	}
	var perr *pageError
	if q.limit, perr = wholeParam(v, "limit", 1, board.DefaultAgentLimit); perr != nil {
		return perr
	}
	page := agentsPage{}
	known := false
	for _, so := range agentSorts {
		l := agentsQuery{sort: so.sort, limit: q.limit} // another order starts again at the first page
		page.Sorts = append(page.Sorts, link{Label: so.label, URL: l.url(), Active: so.sort == q.sort})
		known = known || so.sort == q.sort
	}
	for _, c := range agentColumns {
		h := header{Label: c.label, Class: c.class}
		for _, so := range agentSorts {
			if so.column == c.label {
				h.URL = agentsQuery{sort: so.sort, limit: q.limit}.url()
				if so.sort == q.sort {
					h.Sort = so.order
				}
			}
		}
		page.Headers = append(page.Headers, h)
	}
	if !known {
		return badQuery("sort", fmt.Sprintf("is %q, which is not a leaderboard order", q.sort),
			"use one of recent, peer_score, brier or trust, such as sort=peer_score")
	}
	list, err := s.opt.Board.Agents(r.Context(), board.AgentQuery{Sort: q.sort, Limit: q.limit, Cursor: q.cursor})
	if err != nil {
		var ve *board.ValidationError
		if errors.As(err, &ve) && ve.Field == "cursor" {
			return badQuery("cursor", ve.Problem, "follow the list's Next link, or leave cursor out for its first page")
		}
		return boardError(err)
	}
	page.Agents, page.Total, page.Notes = list.Agents, list.Total, list.Notes
	q.limit = list.Limit
	if q.cursor != "" {
		page.First = agentsQuery{sort: q.sort, limit: q.limit}.url()
	} else if len(list.Agents) > 0 {
		page.From = 1
	}
	if list.NextCursor != "" {
		page.Next = agentsQuery{sort: q.sort, limit: q.limit, cursor: list.NextCursor}.url()
	}
	return s.render(w, r, http.StatusOK, "agents", "Agents", "agents", page)
}

type agentPage struct {
	Agent board.Agent
	Seen  string
	Plot  template.HTML // generated by calibrationSVG, numbers only
	Bins  []scoring.Bin
	Shown int // scored forecasts in the calibration table
	// Forecasts is a page of the agent's forecasts, open and resolved.
	Forecasts     board.AgentForecastPage
	ForecastsFrom int
	Prev, Next    string
	// OpenList, ClosedList and ResolvedList page the agent's own
	// predictions by cursor (parameters open, closed and resolved).
	OpenList, ClosedList, ResolvedList predList
}

// predList is a page of an agent's predictions on its page.
type predList struct {
	ID, Title string // the section's id (its cursor parameter) and heading
	Items     []predView
	Total     int
	// Continued: the page came by cursor; First links to the first page.
	Continued bool
	First     string
	Next      string
}

// agentListLimit is how many of its predictions the agent page lists at
// once, open and resolved each.
const agentListLimit = 10

// agentList reads a page of the agent's predictions of one status, after
// the cursor in the page's parameter param ("" for the first page), and
// links its pages with the page's other parameters kept.
func (s *server) agentList(r *http.Request, id string, status board.Status, param, title string) (predList, error) {
	v := r.URL.Query()
	cur := strings.TrimSpace(v.Get(param))
	f, err := s.opt.Board.Feed(r.Context(), board.FeedQuery{AgentID: id, Status: status, Limit: agentListLimit, Cursor: cur})
	if err != nil {
		var ve *board.ValidationError
		if errors.As(err, &ve) && ve.Field == "cursor" {
			return predList{}, badQuery(param, ve.Problem, "follow the list's Next link, or leave "+param+" out for its first page")
		}
		return predList{}, boardError(err)
	}
	at := func(cursor string) string {
		q := url.Values{}
		for k, vs := range v {
			if k != param && len(vs) > 0 && vs[0] != "" {
				q.Set(k, vs[0])
			}
		}
		if cursor != "" {
			q.Set(param, cursor)
		}
		u := "/agents/" + url.PathEscape(id)
		if len(q) > 0 {
			u += "?" + q.Encode()
		}
		return u + "#" + param
	}
	l := predList{ID: param, Title: title, Total: f.Total, Continued: cur != ""}
	now := s.now()
	for _, p := range f.Predictions {
		l.Items = append(l.Items, predView{Prediction: p, Ago: ago(now, p.CreatedAt)})
	}
	if l.Continued {
		l.First = at("")
	}
	if f.NextCursor != "" {
		l.Next = at(f.NextCursor)
	}
	return l, nil
}

// binned counts the forecasts of a calibration table.
func binned(bins []scoring.Bin) int {
	n := 0
	for _, b := range bins {
		n += b.Count
	}
	return n
}

// agentForecastsShown is how many forecasts the agent page lists at once.
const agentForecastsShown = 20

func (s *server) agent(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if s.opt.Board == nil {
		return noBoard()
	}
	if !board.ValidAgentID(id) {
		return notFoundError("agent", id)
	}
	ctx := r.Context()
	a, err := s.opt.Board.Agent(ctx, id)
	if err != nil {
		return notFoundAs(err, "agent", id)
	}
	page := agentPage{Agent: a, Seen: ago(s.now(), a.LastSeen)}
	offset := 0
	if raw := strings.TrimSpace(r.URL.Query().Get("offset")); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 {
			return badQuery("offset", fmt.Sprintf("is %q; it must be a whole number of at least 0", raw), "such as offset=20")
		}
		offset = n
	}
	if page.Forecasts, err = s.opt.Board.AgentForecasts(ctx, id, board.Page{Limit: agentForecastsShown, Offset: offset}); err != nil {
		return boardError(err)
	}
	page.ForecastsFrom = offset + 1
	if page.OpenList, err = s.agentList(r, id, board.StatusOpen, "open", "Open predictions"); err != nil {
		return err
	}
	if page.ClosedList, err = s.agentList(r, id, board.StatusClosed, "closed", "Closed, awaiting resolution"); err != nil {
		return err
	}
	if page.ResolvedList, err = s.agentList(r, id, board.StatusResolved, "resolved", "Resolved predictions"); err != nil {
		return err
	}
	pageURL := func(off int) string {
		q := url.Values{}
		for _, k := range []string{"open", "closed", "resolved"} {
			if c := r.URL.Query().Get(k); c != "" {
				q.Set(k, c)
			}
		}
		if off > 0 {
			q.Set("offset", strconv.Itoa(off))
		}
		if len(q) == 0 {
			return "/agents/" + url.PathEscape(id) + "#forecasts"
		}
		return "/agents/" + url.PathEscape(id) + "?" + q.Encode() + "#forecasts"
	}
	if offset > 0 {
		page.Prev = pageURL(max(offset-agentForecastsShown, 0))
	}
	if page.Forecasts.HasMore {
		page.Next = pageURL(offset + len(page.Forecasts.Forecasts))
	}
	// Calibration reads every scored forecast of the agent (its own
	// posts' confidence is its first forecast on them), as its Brier
	// score and trust do.
	if n := binned(a.Calibration); n > 0 {
		page.Bins = a.Calibration
		page.Plot = calibrationSVG(a.Calibration, "Calibration of "+a.ID)
		page.Shown = n
	}
	return s.render(w, r, http.StatusOK, "agent", a.Name, "agents", page)
}

// describe describes the feed by what it lists.
func (p feedPage) describe() (string, string) {
	if p.NoBoard || p.Error != nil {
		return "", ""
	}
	return fmt.Sprintf("Predictions posted by AI agents, with community forecasts, closes and scores: %s in %s.",
		tools.Count(p.Total, "prediction"), p.Scope), "website"
}

// describe describes a prediction by its standing: the community
// forecast (none when void), its status and close, and its body's start.
func (p predictionPage) describe() (string, string) {
	q := p.P
	var b strings.Builder
	switch {
	case q.Void():
		b.WriteString("Void: not scored.")
	default:
		fmt.Fprintf(&b, "Community forecast %s from %s", pct(q.Community.P), tools.Count(q.Community.Forecasters, "agent"))
		switch {
		case q.Status == board.StatusResolved:
			fmt.Fprintf(&b, "; resolved %s.", q.Outcome)
		case q.CloseAt != nil && q.Status == board.StatusOpen:
			fmt.Fprintf(&b, "; closes %s.", date(*q.CloseAt))
		default:
			fmt.Fprintf(&b, "; %s.", q.Status)
		}
	}
	b.WriteString(" " + shorten(strings.Join(strings.Fields(stripBidi(q.Body)), " "), 160))
	return b.String(), "article"
}

// describe describes an agent by its scores.
func (p agentPage) describe() (string, string) {
	a := p.Agent
	return fmt.Sprintf("Agent %s: trust %s, peer score %s over %s; %s posted.", stripBidi(a.Name), pct(a.TrustScore),
		score1Ptr(a.PeerScore), tools.Count(a.Scored, "scored forecast"), tools.Count(a.Predictions, "prediction")), "profile"
}

// skips link past the filters to the list and past the list to the pager.
func (p feedPage) skips() []link {
	if len(p.Items) == 0 {
		return nil
	}
	return []link{{Label: "Skip to the predictions", URL: "#feed"}, {Label: "Skip to the pages", URL: "#pager"}}
}

// skips link to the leaderboard and to its pager.
func (p agentsPage) skips() []link {
	if len(p.Agents) == 0 {
		return nil
	}
	l := []link{{Label: "Skip to the leaderboard", URL: "#agents"}}
	if p.First != "" || p.Next != "" {
		l = append(l, link{Label: "Skip to the pages", URL: "#pager"})
	}
	return l
}
