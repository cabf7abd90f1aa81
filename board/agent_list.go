package board

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/scoring"
	"github.com/uptrace/bun"
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
	// Domain, one of [Domains] in any case, lists only the agents scored
	// on that domain's predictions, with their scores, skill and trust of
	// those predictions alone; "" for every agent and every prediction.
	Domain string `json:"domain,omitempty"`
	// Kind, [KindAgent] or [KindPerson], lists only the forecasters of
	// that kind; "" lists every forecaster.
	Kind string `json:"kind,omitempty"`
}

// AgentPage is a page of the agent list.
type AgentPage struct {
	Agents []Agent   `json:"agents"` // never nil
	Total  int       `json:"total"`  // every agent on the board (of the kind and domain asked for)
	Limit  int       `json:"limit"`  // the limit applied
	Sort   AgentSort `json:"sort"`   // the sort applied
	Domain string    `json:"domain,omitempty"`
	Kind   string    `json:"kind,omitempty"` // the kind asked for
	// Community is the community forecast's record as a forecaster, by
	// the board's pooling method (of the domain's predictions with a
	// domain); nil until a prediction it pooled is scored.
	Community *CommunityRecord `json:"community"`
	HasMore   bool             `json:"has_more"` // more agents after this page
	// NextCursor gives the next page as AgentQuery.Cursor; "" on the last
	// page.
	NextCursor string   `json:"next_cursor,omitempty"`
	Notes      []string `json:"notes"` // e.g. a clamped limit; never nil
}

// agentKey is a score sort's key, computed by the database from the
// agent's columns as [agentRow.agent] computes the scores it shows: its
// SQL and whether a higher key comes first. An agent never scored has no
// key (null) and comes last in every score sort, trust included, where
// its neutral 0.5 would otherwise rank it above every scored agent less
// trusted than a coin. [AgentSortRecent] has none: last_seen is the
// order.
type agentKey struct {
	expr   string
	higher bool
}

// agentKeyOf returns sort's key on PostgreSQL (pg) or SQLite; ok is
// false for [AgentSortRecent].
func agentKeyOf(sort AgentSort, pg bool) (k agentKey, ok bool) {
	switch sort {
	case AgentSortPeer:
		return agentKey{`CASE WHEN a.scored > 0 THEN a.peer_sum / a.scored END`, true}, true
	case AgentSortBrier:
		return agentKey{`CASE WHEN a.scored > 0 THEN a.fbrier_sum / a.scored END`, false}, true
	case AgentSortTrust: // scoring.Trust rises with the estimate
		return agentKey{`CASE WHEN a.scored > 0 THEN ` + skillSQL("a.") + ` END`, true}, true
	case AgentSortSkill:
		return agentKey{skillKey("a."), true}, true
	}
	return agentKey{}, false
}

// skillSQL is [scoring.Skill.Estimate] of the agent's sums, their columns
// prefixed by p.
func skillSQL(p string) string {
	return p + `peer_sum / (` + strconv.FormatFloat(scoring.SkillPrior, 'f', -1, 64) + ` + ` + p + `coverage_sum)`
}

// skillKey is the skill sort's key of the agent's sums, their columns
// prefixed by p: the estimate of a ranked agent, null for the others. The
// indexes agents_skill and agent_domain_sums_skill (schema_sums.go) hold
// it with p = "", so that a leaderboard page by skill reads its rows in
// order instead of sorting every agent; the databases use them only while
// the query's expression is the index's, so a change to the prior or to
// [scoring.MinRanked] needs a migration that makes them anew.
func skillKey(p string) string {
	return `CASE WHEN ` + p + `scored >= ` + strconv.Itoa(scoring.MinRanked) + ` THEN ` + skillSQL(p) + ` END`
}

// agentCursorSalt starts the checksum input of an agent list cursor (see
// sealCursor): a feed cursor does not check as one.
const agentCursorSalt = "predictions agents cursor v1\x00"

// agentCursorHint tells a caller what to do with an agent list cursor the
// board refuses.
const agentCursorHint = "send next_cursor exactly as an agent list page gave it, with the same sort; leave cursor out to start from the first page"

// agentCursor is the position after the last agent of a page: its sort,
// its sort key (nil for recent and for an agent never scored), when it
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
	if _, scored := agentKeyOf(c.Sort, false); c.Key != nil && (!scored || math.IsNaN(*c.Key) || math.IsInf(*c.Key, 0)) {
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
	case AgentSortSkill:
		return AgentSortSkill, nil
	}
	return "", invalid("sort", fmt.Sprintf("%q is not a known agent sort", string(s)), "send recent, skill, peer_score, brier or trust")
}

// parseAgentKind reads the agent list's kind filter: "" for every
// forecaster, else [KindAgent] or [KindPerson] in any case.
func parseAgentKind(kind string) (string, error) {
	switch k := strings.ToLower(strings.TrimSpace(kind)); k {
	case "", KindAgent, KindPerson:
		return k, nil
	}
	return "", invalid("kind", fmt.Sprintf("%q is not a kind of forecaster", truncate(kind, 40)),
		"send agent or person, or leave kind out to list every forecaster")
}

// checkAgentQuery checks an AgentQuery: its sort, the limit applied (with
// a note when clamped) and the cursor, nil for none.
func checkAgentQuery(q AgentQuery) (sort AgentSort, limit int, after *agentCursor, notes []string, err error) {
	if sort, err = parseAgentSort(q.Sort); err != nil {
		return
	}
	if limit, notes, err = pageLimit(q.Limit, DefaultAgentLimit, MaxAgentLimit); err != nil {
		return
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
// after the cursor when not nil, on PostgreSQL (pg) or SQLite. Each row
// starts with the number of agents (a scalar subquery, run once per
// statement) and, for a score sort, ends with the row's key. The order is
// the sort's key (nulls last), then last seen (newest first), then id;
// the cursor's condition is the rows after its position in that order.
func agentPageSQL(sort AgentSort, after *agentCursor, n int, pg bool, domain, kind string) (string, []any) {
	count, args := agentsCount(domain, kind)
	from, fargs := agentsFrom(domain, kind, sort == AgentSortSkill && !pg)
	cols := `(` + count + `) AS total, ` + agentCols
	args = append(args, fargs...)
	order := `a.last_seen DESC, a.id`
	k, scored := agentKeyOf(sort, pg)
	if scored {
		cols += `, ` + k.expr + ` AS sort_key`
		dir := ` DESC`
		if !k.higher {
			dir = ` ASC`
		}
		order = `sort_key` + dir + ` NULLS LAST, ` + order
	}
	q := `SELECT ` + cols + ` FROM ` + from
	if after != nil {
		// After (last_seen, id) in last_seen DESC, id ASC order.
		tie := `(a.last_seen < ? OR (a.last_seen = ? AND a.id > ?))`
		targs := []any{after.seen(), after.seen(), after.ID}
		switch {
		case !scored:
			q += ` WHERE ` + tie
			args = append(args, targs...)
		case after.Key == nil: // in the unscored tail
			q += ` WHERE ` + k.expr + ` IS NULL AND ` + tie
			args = append(args, targs...)
		default:
			beyond := ` < `
			if !k.higher {
				beyond = ` > `
			}
			key := `CAST(? AS DOUBLE PRECISION)`
			q += ` WHERE (` + k.expr + ` IS NULL OR ` + k.expr + beyond + key + ` OR (` + k.expr + ` = ` + key + ` AND ` + tie + `))`
			args = append(append(args, *after.Key, *after.Key), targs...)
		}
	}
	return q + ` ORDER BY ` + order + fmt.Sprintf(` LIMIT %d`, n), args
}

// agentsFrom is the agent list's source as "a": the agents' rows, or
// with a domain each agent scored on its predictions, with its score
// sums over those predictions only (agent_domain_sums, which has a row
// only while its agent has a score in the domain); with a kind, only
// that kind's rows. bySkill (SQLite's leaderboard by skill) names the
// index of skillKey that orders them: without it, SQLite's planner sorts
// every agent rather than read the index's first rows, whatever the
// LIMIT, and a page would cost what the board holds.
func agentsFrom(domain, kind string, bySkill bool) (string, []any) {
	indexed := func(table, alias, index string) string {
		if bySkill {
			return table + ` AS ` + alias + ` INDEXED BY ` + index
		}
		return table + ` AS ` + alias
	}
	if domain == "" {
		if kind == "" {
			return indexed(`agents`, `a`, `agents_skill`), nil
		}
		return `(SELECT * FROM ` + indexed(`agents`, `ag`, `agents_skill`) + ` WHERE kind = ?) AS a`, []any{kind}
	}
	var args []any
	where := ``
	if kind != "" {
		where, args = ` AND ag.kind = ?`, []any{kind}
	}
	return `(SELECT ag.id, ag.name, ag.kind, ag.flags, ag.first_seen, ag.last_seen, ag.predictions, ag.replies, ag.reactions,
	ag.resolved, ag.brier_sum, ag.correct, ag.decided, ag.forecasts,
	d.scored, d.peer_sum, d.baseline_sum, d.fbrier_sum, d.flog_sum, d.peer_sq_sum, d.coverage_sum
	FROM ` + indexed(`agent_domain_sums`, `d`, `agent_domain_sums_skill`) + ` JOIN agents AS ag ON ag.id = d.agent_id
	WHERE d.domain = ?` + where + `) AS a`, append([]any{domain}, args...)
}

// agentsCount is the query of the number of agents of the agent list
// of domain and kind, as agentsFrom lists them: without a kind, it reads
// no row of agents.
func agentsCount(domain, kind string) (string, []any) {
	if kind == "" {
		if domain == "" {
			return `SELECT COUNT(*) FROM agents`, nil
		}
		return `SELECT COUNT(*) FROM agent_domain_sums WHERE domain = ?`, []any{domain}
	}
	from, args := agentsFrom(domain, kind, false)
	return `SELECT COUNT(*) FROM ` + from, args
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
// every agent (of q.Kind and q.Domain when given).
//
// Errors: a *[ValidationError] for an unknown sort or kind, a negative
// limit and a cursor that is not one of the agent list's or belongs to another
// sort.
func (s *Store) Agents(ctx context.Context, q AgentQuery) (AgentPage, error) {
	sort, limit, after, notes, err := checkAgentQuery(q)
	if err != nil {
		return AgentPage{}, err
	}
	domain := ""
	if q.Domain != "" {
		if domain, err = canonicalDomain("domain", q.Domain); err != nil {
			return AgentPage{}, err
		}
	}
	kind, err := parseAgentKind(q.Kind)
	if err != nil {
		return AgentPage{}, err
	}
	page := AgentPage{Agents: []Agent{}, Limit: limit, Sort: sort, Domain: domain, Kind: kind, Notes: notes}
	if page.Notes == nil {
		page.Notes = []string{}
	}
	var rows []agentRow
	sq, args := agentPageSQL(sort, after, limit+1, s.pg, domain, kind)
	err = s.scanning(ctx, func(db bun.IDB) error {
		if err := communityRecord(ctx, db, s.method, domain, &page.Community); err != nil {
			return err
		}
		if err := db.NewRaw(sq, args...).Scan(ctx, &rows); err != nil || len(rows) > 0 {
			return err
		}
		count, cargs := agentsCount(domain, kind)
		return db.NewRaw(count, cargs...).Scan(ctx, &page.Total) // no row carries it
	})
	if err != nil {
		return AgentPage{}, fmt.Errorf("board: agents: %w", err)
	}
	if len(rows) == 0 {
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

// scanCacheKiB is the page cache of a SQLite read connection while it
// reads a page of agents. No index orders the agents (their sort keys
// change with every post, and indexing them would cost every write), so
// a page scans the table; at the connection's usual cache (SQLite's
// default, 2,000 KiB, twice that as modernc.org/sqlite allocates pages)
// the scans would leave every read connection's cache full, about 20 MB
// of the process between them (docs/BENCHMARKS.md, "Bounded agent
// lists").
const scanCacheKiB = 256

// scanning runs fn, which reads by scanning, on a read connection: on
// SQLite with the connection's page cache shrunk to [scanCacheKiB] for
// the while (which also frees the pages it held beyond that), its size
// restored after.
func (s *Store) scanning(ctx context.Context, fn func(db bun.IDB) error) error {
	if s.pg {
		return fn(s.read)
	}
	conn, err := s.read.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var size int
	if err := conn.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&size); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, scanCacheKiB)); err != nil {
		return err
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA cache_size = %d`, size))
	}()
	return fn(conn)
}
