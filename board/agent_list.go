package board

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Agent list page sizes.
const (
	DefaultAgentLimit = 50
	MaxAgentLimit     = 200
)

// AgentQuery selects a page of the agent list. The zero value asks for
// the 50 most recently seen agents.
type AgentQuery struct {
	Sort  AgentSort `json:"sort,omitempty"`  // "" means [AgentSortRecent]
	Limit int       `json:"limit,omitempty"` // 0 means 50; above 200 is clamped to 200
	// Cursor continues the list after the page whose NextCursor it is,
	// with the same sort; "" starts at the first page.
	Cursor string `json:"cursor,omitempty"`
}

// AgentPage is a page of the agent list.
type AgentPage struct {
	Agents  []Agent   `json:"agents"`   // never nil
	Total   int       `json:"total"`    // every agent on the board
	Limit   int       `json:"limit"`    // the limit applied
	Sort    AgentSort `json:"sort"`     // the sort applied
	HasMore bool      `json:"has_more"` // more agents after this page
	// NextCursor gives the next page as AgentQuery.Cursor; "" on the last
	// page.
	NextCursor string   `json:"next_cursor,omitempty"`
	Notes      []string `json:"notes"` // e.g. a clamped limit; never nil
}

// agentKeys are the score sorts' keys, computed by the database from the
// agent's columns as [agentRow.agent] computes the scores it shows, and
// whether a higher key comes first. An agent not yet scored has no peer
// or Brier key (null, sorted last) and trust 0.5. [AgentSortRecent] has no
// key: last_seen is the order.
var agentKeys = map[AgentSort]struct {
	expr   string
	higher bool
}{
	AgentSortPeer:  {`CASE WHEN a.scored > 0 THEN a.peer_sum / a.scored END`, true},
	AgentSortBrier: {`CASE WHEN a.scored > 0 THEN a.fbrier_sum / a.scored END`, false},
	AgentSortTrust: {trustSQL(), true},
}

// trustSQL is [Trust] of the agent's forecast Brier score (clamped to
// [0, 1]) and scored count as an SQL expression, its operations in the
// same order; 0.5 while the agent has none scored.
func trustSQL() string {
	clamp := func(x string) string {
		return `CASE WHEN ` + x + ` < 0 THEN 0.0 WHEN ` + x + ` > 1 THEN 1.0 ELSE ` + x + ` END`
	}
	fb := clamp(`a.fbrier_sum / a.scored`)
	t := `0.5 + 0.5 * (1 - (` + fb + `) / 0.25) * a.scored / (a.scored + ` + strconv.Itoa(TrustShrinkage) + `)`
	return `CASE WHEN a.scored > 0 THEN ` + clamp(`(`+t+`)`) + ` ELSE 0.5 END`
}

// agentCursorSalt starts the checksum input of an agent list cursor (see
// sealCursor): a feed cursor does not check as one.
const agentCursorSalt = "predictions agents cursor v1\x00"

// agentCursorHint tells a caller what to do with an agent list cursor the
// board refuses.
const agentCursorHint = "send next_cursor exactly as an agent list page gave it, with the same sort; leave cursor out to start from the first page"

// agentCursor is the position after the last agent of a page: its sort,
// its sort key (nil for recent and for an agent without a score), when it
// was last seen and its id. On the wire it is sealed as a feed cursor is
// (sealCursor), with its own salt.
type agentCursor struct {
	Sort AgentSort `json:"s"`
	Key  *float64  `json:"k,omitempty"`
	Seen string    `json:"t"` // last_seen, RFC 3339 UTC
	ID   string    `json:"i"`
}

func (c agentCursor) encode() string {
	payload, _ := json.Marshal(c) // strings and finite numbers always marshal
	return sealCursor(agentCursorSalt, payload)
}

// seen is the cursor's last_seen as the databases store and compare it.
func (c agentCursor) seen() string {
	t, _ := time.Parse(time.RFC3339Nano, c.Seen) // checked by parseAgentCursor
	return storedTime(t)
}

// parseAgentCursor reads a cursor of the agent list and checks it
// against the sort asked for. Every refusal is a *[ValidationError]
// naming cursor.
func parseAgentCursor(s string, sort AgentSort) (agentCursor, error) {
	var c agentCursor
	if err := openCursor(s, agentCursorSalt, agentCursorHint, &c); err != nil {
		return agentCursor{}, err
	}
	bad := func(problem string) (agentCursor, error) {
		return agentCursor{}, invalid("cursor", problem, agentCursorHint)
	}
	if ps, err := parseAgentSort(c.Sort); err != nil || ps != c.Sort {
		return bad("names an unknown sort")
	}
	if t, err := time.Parse(time.RFC3339Nano, c.Seen); err != nil || t.Year() < 1 || t.Year() > 9999 {
		return bad("holds an unreadable time")
	}
	if !ValidAgentID(c.ID) {
		return bad("holds an unreadable id")
	}
	if c.Key != nil && (c.Sort == AgentSortRecent || math.IsNaN(*c.Key) || math.IsInf(*c.Key, 0)) ||
		c.Key == nil && c.Sort == AgentSortTrust {
		return bad(fmt.Sprintf("does not hold the sort key of sort=%s", c.Sort))
	}
	if c.Sort != sort {
		return agentCursor{}, invalid("cursor", fmt.Sprintf("belongs to sort=%s, not sort=%s", c.Sort, sort),
			fmt.Sprintf("send sort=%s with this cursor, or leave cursor out to start sort=%s from the first page", c.Sort, sort))
	}
	return c, nil
}

func parseAgentSort(s AgentSort) (AgentSort, error) {
	switch AgentSort(strings.ToLower(strings.TrimSpace(string(s)))) {
	case "", AgentSortRecent:
		return AgentSortRecent, nil
	case AgentSortPeer:
		return AgentSortPeer, nil
	case AgentSortBrier:
		return AgentSortBrier, nil
	case AgentSortTrust:
		return AgentSortTrust, nil
	}
	return "", invalid("sort", fmt.Sprintf("%q is not a known agent sort", string(s)), "send recent, peer_score, brier or trust")
}

// checkAgentQuery checks an AgentQuery: its sort, the limit applied (with
// a note when clamped) and the cursor, nil for none.
func checkAgentQuery(q AgentQuery) (sort AgentSort, limit int, after *agentCursor, notes []string, err error) {
	if sort, err = parseAgentSort(q.Sort); err != nil {
		return
	}
	switch limit = q.Limit; {
	case q.Limit < 0:
		err = invalid("limit", fmt.Sprintf("is %d; it cannot be negative", q.Limit),
			fmt.Sprintf("send 1 to %d, or leave it out for %d", MaxAgentLimit, DefaultAgentLimit))
		return
	case q.Limit == 0:
		limit = DefaultAgentLimit
	case q.Limit > MaxAgentLimit:
		limit = MaxAgentLimit
		notes = append(notes, fmt.Sprintf("limit %d is above the maximum; clamped to %d", q.Limit, MaxAgentLimit))
	}
	if q.Cursor != "" {
		var c agentCursor
		if c, err = parseAgentCursor(q.Cursor, sort); err != nil {
			return
		}
		after = &c
	}
	return
}

// agentPageSQL returns the query of a page of n agents in the order sort,
// after the cursor when not nil. Each row starts with the number of
// agents (a scalar subquery, run once per statement) and, for a score
// sort, ends with the row's key. The order is the sort's key (nulls
// last), then last seen (newest first), then id; the cursor's condition
// is the rows after its position in that order.
func agentPageSQL(sort AgentSort, after *agentCursor, n int) (string, []any) {
	cols := `(SELECT COUNT(*) FROM agents) AS total, ` + agentCols
	order := `a.last_seen DESC, a.id`
	k, scored := agentKeys[sort]
	if scored {
		cols += `, ` + k.expr + ` AS sort_key`
		dir := ` DESC`
		if !k.higher {
			dir = ` ASC`
		}
		order = `sort_key` + dir + ` NULLS LAST, ` + order
	}
	q := `SELECT ` + cols + ` FROM agents AS a`
	var args []any
	if after != nil {
		// After (last_seen, id) in last_seen DESC, id ASC order.
		tie := `(a.last_seen < ? OR (a.last_seen = ? AND a.id > ?))`
		targs := []any{after.seen(), after.seen(), after.ID}
		switch {
		case !scored:
			q += ` WHERE ` + tie
			args = targs
		case after.Key == nil: // in the unscored tail
			q += ` WHERE ` + k.expr + ` IS NULL AND ` + tie
			args = targs
		default:
			beyond := ` < `
			if !k.higher {
				beyond = ` > `
			}
			key := `CAST(? AS DOUBLE PRECISION)`
			q += ` WHERE (` + k.expr + ` IS NULL OR ` + k.expr + beyond + key + ` OR (` + k.expr + ` = ` + key + ` AND ` + tie + `))`
			args = append([]any{*after.Key, *after.Key}, targs...)
		}
	}
	return q + ` ORDER BY ` + order + fmt.Sprintf(` LIMIT %d`, n), args
}

// Agents returns a page of the agents with their statistics, in the order
// of q.Sort (most recently seen first by default; see [AgentSort]), ties
// broken by last seen, then id.
//
// Limit defaults to 50; above 200 it is clamped to 200 with a note. A page
// with more after it carries NextCursor, which as Cursor gives the page
// after it (keyset pagination on the sort key, last seen and id): a walk
// by cursor sees each agent once while agents are added between pages,
// though an agent whose sort key changes between pages (a new post moves
// it up the recent order) may be seen again or not at all. Total counts
// every agent.
//
// Errors: a *[ValidationError] for an unknown sort, a negative limit and
// a cursor that is not one of the agent list's or belongs to another
// sort.
func (s *Store) Agents(ctx context.Context, q AgentQuery) (AgentPage, error) {
	sort, limit, after, notes, err := checkAgentQuery(q)
	if err != nil {
		return AgentPage{}, err
	}
	page := AgentPage{Agents: []Agent{}, Limit: limit, Sort: sort, Notes: notes}
	if page.Notes == nil {
		page.Notes = []string{}
	}
	var rows []agentRow
	sq, args := agentPageSQL(sort, after, limit+1)
	if err := s.read.NewRaw(sq, args...).Scan(ctx, &rows); err != nil {
		return AgentPage{}, fmt.Errorf("board: agents: %w", err)
	}
	if len(rows) == 0 {
		if err := s.read.NewRaw(`SELECT COUNT(*) FROM agents`).Scan(ctx, &page.Total); err != nil {
			return AgentPage{}, fmt.Errorf("board: agents: %w", err)
		}
		return page, nil
	}
	page.Total = rows[0].Total
	if len(rows) > limit {
		rows = rows[:limit]
		page.HasMore = true
		last := rows[limit-1]
		page.NextCursor = agentCursor{Sort: sort, Key: last.SortKey, Seen: last.LastSeen.UTC().Format(time.RFC3339Nano), ID: last.ID}.encode()
	}
	page.Agents = make([]Agent, len(rows))
	for i, r := range rows {
		page.Agents[i] = r.agent()
	}
	return page, nil
}
