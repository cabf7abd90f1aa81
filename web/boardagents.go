package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/predictions-md/predictions/board"
)

type agentsPage struct {
	Agents    []board.Agent
	Community *board.CommunityRecord
	Sorts     []link
	Kinds     []link // the kind filter: everyone, agents, people
	Kind      string // the kind shown: "" everyone, "agent" or "person"
	Headers   []header
	NoBoard   bool
	Total     int
	From      int // the position of the first agent shown, 0 when the page came by cursor
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
	{board.AgentSortSkill, "skill", "Skill", "descending"},
	{board.AgentSortRecent, "recently seen", "Last seen", "descending"},
	{board.AgentSortPeer, "peer score", "Peer score", "descending"},
	{board.AgentSortBrier, "Brier score", "Brier", "ascending"},
	{board.AgentSortTrust, "trust", "Trust", "descending"},
}

// agentColumns are the leaderboard's columns after the agent's name, in
// the order the template writes their cells.
var agentColumns = []struct{ label, class string }{
	{"Skill", "n"}, {"Trust", "n"}, {"Peer score", "n"}, {"Brier", "n"}, {"Scored", "n"}, {"Posts", "n"}, {"Last seen", ""},
}

// agentsQuery is the agent list's query string, read as GET /api/agents
// reads it.
type agentsQuery struct {
	sort   board.AgentSort
	kind   string // "" everyone, else board.KindAgent or board.KindPerson
	limit  int
	cursor string
}

// url writes the agent list's address for q, leaving out default values.
func (q agentsQuery) url() string {
	v := url.Values{}
	if q.sort != board.AgentSortRecent {
		v.Set("sort", string(q.sort))
	}
	if q.kind != "" {
		v.Set("kind", q.kind)
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
	q := agentsQuery{sort: board.AgentSort(strings.ToLower(strings.TrimSpace(v.Get("sort")))), cursor: strings.TrimSpace(v.Get("cursor")),
		kind: strings.ToLower(strings.TrimSpace(v.Get("kind")))}
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
		l := agentsQuery{sort: so.sort, kind: q.kind, limit: q.limit} // another order starts again at the first page
		page.Sorts = append(page.Sorts, link{Label: so.label, URL: l.url(), Active: so.sort == q.sort})
		known = known || so.sort == q.sort
	}
	for _, c := range agentColumns {
		h := header{Label: c.label, Class: c.class}
		for _, so := range agentSorts {
			if so.column == c.label {
				h.URL = agentsQuery{sort: so.sort, kind: q.kind, limit: q.limit}.url()
				if so.sort == q.sort {
					h.Sort = so.order
				}
			}
		}
		page.Headers = append(page.Headers, h)
	}
	if !known {
		return badQuery("sort", fmt.Sprintf("is %q, which is not a leaderboard order", q.sort),
			"use one of skill, recent, peer_score, brier or trust, such as sort=skill")
	}
	for _, k := range []struct{ kind, label string }{{"", "everyone"}, {board.KindAgent, "agents"}, {board.KindPerson, "people"}} {
		page.Kinds = append(page.Kinds, link{Label: k.label, URL: agentsQuery{sort: q.sort, kind: k.kind, limit: q.limit}.url(), Active: k.kind == q.kind})
	}
	list, err := s.opt.Board.Agents(r.Context(), board.AgentQuery{Sort: q.sort, Kind: q.kind, Limit: q.limit, Cursor: q.cursor})
	if err != nil {
		var ve *board.ValidationError
		if errors.As(err, &ve) && ve.Field == "cursor" {
			return badQuery("cursor", ve.Problem, "follow the list's Next link, or leave cursor out for its first page")
		}
		return boardError(err)
	}
	page.Agents, page.Total, page.Notes, page.Community, page.Kind = list.Agents, list.Total, list.Notes, list.Community, list.Kind
	q.limit = list.Limit
	if q.cursor != "" {
		page.First = agentsQuery{sort: q.sort, kind: q.kind, limit: q.limit}.url()
	} else if len(list.Agents) > 0 {
		page.From = 1
	}
	if list.NextCursor != "" {
		page.Next = agentsQuery{sort: q.sort, kind: q.kind, limit: q.limit, cursor: list.NextCursor}.url()
	}
	return s.render(w, r, http.StatusOK, "agents", "Agents", "agents", page)
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
