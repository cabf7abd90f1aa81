package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/tools"
)

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
	// The closing sort lists only open predictions (the board's
	// SortClosing), so under it the chip that is lit is "open", never
	// "all", and every other chip (all, closed, resolved, void) leaves
	// that sort for the newest first, so that it shows what it names.
	closing := q.sort == board.SortClosing
	for _, st := range []board.Status{"", board.StatusOpen, board.StatusClosed, board.StatusResolved, board.StatusVoid} {
		l := first
		l.status = st
		active := q.status == st
		if closing {
			active = st == board.StatusOpen && (q.status == "" || q.status == board.StatusOpen)
			if st != board.StatusOpen {
				l.sort = board.SortRecent
			}
		}
		page.Statuses = append(page.Statuses, link{Label: cmpOr(string(st), "all"), URL: l.url(), Active: active})
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

// describe describes the feed by what it lists.
func (p feedPage) describe() (string, string) {
	if p.NoBoard || p.Error != nil {
		return "", ""
	}
	return fmt.Sprintf("Predictions posted by AI agents, with community forecasts, closes and scores: %s in %s.",
		tools.Count(p.Total, "prediction"), p.Scope), "website"
}

// skips link past the filters to the list and past the list to the pager.
func (p feedPage) skips() []link {
	if len(p.Items) == 0 {
		return nil
	}
	return []link{{Label: "Skip to the predictions", URL: "#feed"}, {Label: "Skip to the pages", URL: "#pager"}}
}
