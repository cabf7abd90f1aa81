package web

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/scoring"
)

// agentIDRe is board's rule for agent ids; an id that breaks it cannot
// exist, so its page is a 404 without a query.
var agentIDRe = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

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
}

type feedPage struct {
	Domains  []link
	Sorts    []link
	Items    []predView
	Total    int
	From, To int
	Prev     string
	Next     string
	Scope    string
	Notes    []string
	Error    *pageError
	NoBoard  bool
	PageSize int
}

// feedQuery is the feed's query string, read as GET /api/predictions reads it.
type feedQuery struct {
	domain string
	sort   board.Sort
	limit  int
	offset int
}

// url writes the feed address for q, leaving out default values.
func (q feedQuery) url() string {
	v := url.Values{}
	if q.domain != "" {
		v.Set("domain", q.domain)
	}
	if q.sort != "" && q.sort != board.SortRecent {
		v.Set("sort", string(q.sort))
	}
	if q.limit != 0 && q.limit != board.DefaultLimit {
		v.Set("limit", strconv.Itoa(q.limit))
	}
	if q.offset > 0 {
		v.Set("offset", strconv.Itoa(q.offset))
	}
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

// parseFeedQuery reads domain, sort, limit and offset. Bad numbers get a
// message naming the parameter; domain and sort are checked by the board.
func parseFeedQuery(v url.Values) (feedQuery, *pageError) {
	q := feedQuery{domain: strings.TrimSpace(v.Get("domain")), sort: board.Sort(strings.ToLower(strings.TrimSpace(v.Get("sort"))))}
	for _, p := range []struct {
		name string
		dst  *int
		min  int
	}{{"limit", &q.limit, 1}, {"offset", &q.offset, 0}} {
		raw := strings.TrimSpace(v.Get(p.name))
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < p.min {
			return q, badQuery(p.name, fmt.Sprintf("is %q; it must be a whole number of at least %d", raw, p.min),
				fmt.Sprintf("such as %s=%d", p.name, max(p.min, 20*p.min)))
		}
		*p.dst = n
	}
	return q, nil
}

func badQuery(field, problem, hint string) *pageError {
	return &pageError{Status: http.StatusBadRequest, Title: "Bad address", Field: field,
		Message: field + " " + problem + ".", Hint: hint}
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
		f, err = s.opt.Board.Feed(r.Context(), board.FeedQuery{Domain: q.domain, Sort: q.sort, Limit: q.limit, Offset: q.offset})
		var ve *board.ValidationError
		switch {
		case errors.As(err, &ve):
			perr = badQuery(ve.Field, ve.Problem, ve.Hint)
		case err != nil:
			return err
		default:
			q.domain, q.sort, q.limit = f.Domain, f.Sort, f.Limit
		}
	}
	// Filter links keep the other parameters and start again at offset 0.
	all := q
	all.domain, all.offset = "", 0
	if perr != nil {
		switch perr.Field {
		case "domain":
			q.domain, all.domain = "", ""
		case "sort":
			q.sort, all.sort = "", ""
		}
	}
	page.Domains = append(page.Domains, link{Label: "All", URL: all.url(), Active: q.domain == ""})
	for _, d := range board.Domains() {
		l := all
		l.domain = d
		page.Domains = append(page.Domains, link{Label: d, URL: l.url(), Active: q.domain == d})
	}
	for _, so := range []board.Sort{board.SortRecent, board.SortConfidence, board.SortPopular} {
		l := q
		l.sort, l.offset = so, 0
		active := q.sort == so || (q.sort == "" && so == board.SortRecent)
		page.Sorts = append(page.Sorts, link{Label: string(so), URL: l.url(), Active: active})
	}
	if perr != nil {
		page.Error = perr
		return s.render(w, r, perr.Status, "feed", "Board", "board", page)
	}
	now := s.now()
	for _, p := range f.Predictions {
		page.Items = append(page.Items, predView{Prediction: p, Ago: ago(now, p.CreatedAt)})
	}
	page.Total, page.Notes, page.PageSize = f.Total, f.Notes, f.Limit
	page.Scope = "all domains"
	if f.Domain != "" {
		page.Scope = f.Domain
	}
	if len(f.Predictions) > 0 {
		page.From, page.To = f.Offset+1, f.Offset+len(f.Predictions)
	}
	if f.Offset > 0 {
		prev := q
		prev.offset = max(f.Offset-f.Limit, 0)
		page.Prev = prev.url()
	}
	if f.HasMore {
		next := q
		next.offset = f.Offset + len(f.Predictions)
		page.Next = next.url()
	}
	return s.render(w, r, http.StatusOK, "feed", "Board", "board", page)
}

type predictionPage struct {
	P         predView
	Reactions []board.Reaction
	Thread    []*board.ReplyNode
	Replies   int
	// The forecasts: the history chart, each agent's standing forecast
	// and, once resolved yes or no, the score table.
	Chart        template.HTML // generated by historySVG, numbers and escaped text only
	Standing     []board.Forecast
	History      int // forecasts in the history
	HistoryShown int // of which the chart draws the first
	Scores       []board.Score
}

// historyLimit is how many forecasts the history chart draws.
const historyLimit = 1000

func (s *server) prediction(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if s.opt.Board == nil {
		return noBoard()
	}
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
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
	page := predictionPage{P: predView{Prediction: p, Ago: ago(s.now(), p.CreatedAt)}, Reactions: reactions,
		Thread: board.Tree(replies), Replies: len(replies)}
	hist, err := s.opt.Board.Forecasts(ctx, id, board.Page{Limit: historyLimit})
	if err != nil {
		return notFoundAs(err, "prediction", id)
	}
	end := s.now()
	if p.ResolvedAt != nil {
		end = *p.ResolvedAt
	}
	page.History, page.HistoryShown = hist.Total, len(hist.Forecasts)
	page.Chart = historySVG(hist.Forecasts, p.CreatedAt, end, "Forecast history of "+stripBidi(p.Title))
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
	NoBoard bool
}

// agentSorts are the leaderboard's orders, as GET /api/agents?sort= takes them.
var agentSorts = []struct {
	sort  board.AgentSort
	label string
}{
	{board.AgentSortRecent, "recently seen"},
	{board.AgentSortPeer, "peer score"},
	{board.AgentSortBrier, "Brier score"},
	{board.AgentSortTrust, "trust"},
}

func (s *server) agents(w http.ResponseWriter, r *http.Request) error {
	if s.opt.Board == nil {
		return s.render(w, r, http.StatusOK, "agents", "Agents", "agents", agentsPage{NoBoard: true})
	}
	sort := board.AgentSort(strings.ToLower(strings.TrimSpace(r.URL.Query().Get("sort"))))
	if sort == "" {
		sort = board.AgentSortRecent
	}
	page := agentsPage{}
	known := false
	for _, so := range agentSorts {
		u := "/agents"
		if so.sort != board.AgentSortRecent {
			u += "?sort=" + url.QueryEscape(string(so.sort))
		}
		page.Sorts = append(page.Sorts, link{Label: so.label, URL: u, Active: so.sort == sort})
		known = known || so.sort == sort
	}
	if !known {
		return badQuery("sort", fmt.Sprintf("is %q, which is not a leaderboard order", sort),
			"use one of recent, peer_score, brier or trust, such as sort=peer_score")
	}
	as, err := s.opt.Board.AgentsBy(r.Context(), sort)
	if err != nil {
		return err
	}
	page.Agents = as
	return s.render(w, r, http.StatusOK, "agents", "Agents", "agents", page)
}

type agentPage struct {
	Agent     board.Agent
	Seen      string
	Plot      template.HTML // generated by calibrationSVG, numbers only
	Bins      []scoring.Bin
	Scores    *scoring.Summary
	Resolved  []board.Prediction
	Shown     int
	Truncated bool
	// Forecasts is a page of the agent's forecasts, open and resolved.
	Forecasts     board.AgentForecastPage
	ForecastsFrom int
	Prev, Next    string
}

// agentForecastsShown is how many forecasts the agent page lists at once.
const agentForecastsShown = 20

// agentResolvedShown is how many resolved predictions the agent page lists.
const agentResolvedShown = 20

func (s *server) agent(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if s.opt.Board == nil {
		return noBoard()
	}
	if !agentIDRe.MatchString(id) {
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
		var ve *board.ValidationError
		if errors.As(err, &ve) {
			return badQuery(ve.Field, ve.Problem, ve.Hint)
		}
		return err
	}
	page.ForecastsFrom = offset + 1
	pageURL := func(off int) string {
		if off <= 0 {
			return "/agents/" + url.PathEscape(id) + "#forecasts"
		}
		return "/agents/" + url.PathEscape(id) + "?offset=" + strconv.Itoa(off) + "#forecasts"
	}
	if offset > 0 {
		page.Prev = pageURL(max(offset-agentForecastsShown, 0))
	}
	if page.Forecasts.HasMore {
		page.Next = pageURL(offset + len(page.Forecasts.Forecasts))
	}
	resolved, err := s.opt.Board.Resolved(ctx, id, calibrationLimit)
	if err != nil {
		return err
	}
	page.Truncated = a.Resolved > len(resolved)
	if len(resolved) > 0 {
		fs := make([]scoring.Forecast, len(resolved))
		for i, p := range resolved {
			fs[i] = scoring.Forecast{P: p.Confidence, Outcome: p.Outcome == board.OutcomeYes}
		}
		res, err := scoring.Score(fs, scoring.Options{Bins: scoring.DefaultBins})
		if err != nil {
			return err
		}
		page.Scores = &res.Overall
		page.Bins = res.Overall.Calibration
		page.Plot = calibrationSVG(res.Overall.Calibration, "Calibration of "+a.ID)
	}
	page.Resolved = resolved[:min(len(resolved), agentResolvedShown)]
	page.Shown = len(resolved)
	return s.render(w, r, http.StatusOK, "agent", a.Name, "agents", page)
}
