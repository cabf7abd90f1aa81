package board

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun"
)

// feedFilter is a checked [FeedQuery]'s sort and filters.
type feedFilter struct {
	sort   Sort
	domain string // canonical; "" for all
	agent  string
	status Status
	q      string // trimmed; "" for no search
	// cut is the clock as the filters compare it with close_at (stored
	// text): a prediction is closed when its close_at is before cut. It
	// is set when the filters read the clock (status open or closed,
	// sort closing); see [Store.cut].
	cut string
}

// clocked reports whether the feed f depends on the clock: which
// predictions are open or closed.
func (f feedFilter) clocked() bool {
	return f.status == StatusOpen || f.status == StatusClosed || f.sort == SortClosing
}

// feedOrder maps each sort to its ORDER BY; each has an index
// (predictions_<sort> and predictions_domain_<sort>, predictions_closing).
var feedOrder = map[Sort]string{
	SortRecent:     "p.created_at DESC, p.id DESC",
	SortConfidence: "p.confidence DESC, p.created_at DESC, p.id DESC",
	SortPopular:    "p.popularity DESC, p.created_at DESC, p.id DESC",
	SortClosing:    "p.close_at, p.created_at DESC, p.id DESC",
}

// The conditions of the clocked filters, each with the one argument cut:
// an open prediction is closed when its close_at is before cut.
const (
	openFilter    = `p.status = 'open' AND (p.close_at IS NULL OR p.close_at >= ?)`
	closedFilter  = `p.status = 'open' AND p.close_at < ?`
	closingFilter = `p.status = 'open' AND p.close_at >= ?` // SortClosing: still open, with a close_at
)

// checkFeed checks a FeedQuery: its filters, the limit applied (with a
// note when clamped) and the cursor, nil for none.
func checkFeed(q FeedQuery) (f feedFilter, limit int, after *cursor, notes []string, err error) {
	if f.sort, err = parseSort(q.Sort); err != nil {
		return
	}
	if q.Domain != "" {
		if f.domain, err = canonicalDomain("domain", q.Domain); err != nil {
			return
		}
	}
	if q.AgentID != "" {
		if err = checkAgentID(q.AgentID); err != nil {
			return
		}
		f.agent = q.AgentID
	}
	if f.status, err = parseStatus(q.Status); err != nil {
		return
	}
	if f.q, err = checkSearch(q.Q); err != nil {
		return
	}
	if limit, notes, err = pageLimit(q.Limit, DefaultLimit, MaxLimit); err != nil {
		return
	}
	if q.Offset < 0 {
		err = invalid("offset", fmt.Sprintf("is %d; it cannot be negative", q.Offset), "send 0 for the first page")
		return
	}
	if q.Cursor != "" {
		if q.Offset > 0 {
			err = invalid("cursor", "cannot be combined with offset",
				"send cursor alone (it says where the page starts), or offset without cursor")
			return
		}
		var c cursor
		if c, err = parseCursor(q.Cursor, f); err != nil {
			return
		}
		after = &c
	}
	return
}

// parseStatus reads the feed's status filter: "" for every status, else
// open, closed, resolved or void in any case.
func parseStatus(s Status) (Status, error) {
	if r, ok := oneOf(s, StatusOpen, StatusClosed, StatusResolved, StatusVoid); ok || s == "" {
		return r, nil
	}
	return "", invalid("status", fmt.Sprintf("%q is not a status", string(s)), "send open, closed, resolved or void, or leave status out for all")
}

// where returns the WHERE clause (with its leading " WHERE ", or "") of
// the feed f, after the cursor when after is not nil, and its arguments.
func (s *Store) where(f feedFilter, after *cursor) (string, []any) {
	var conds []string
	var args []any
	if f.sort == SortClosing {
		conds, args = append(conds, closingFilter), append(args, f.cut)
	}
	if f.domain != "" {
		conds, args = append(conds, `p.domain = ?`), append(args, f.domain)
	}
	if f.agent != "" {
		conds, args = append(conds, `p.agent_id = ?`), append(args, f.agent)
	}
	switch f.status {
	case "":
	case StatusOpen:
		conds, args = append(conds, openFilter), append(args, f.cut)
	case StatusClosed:
		conds, args = append(conds, closedFilter), append(args, f.cut)
	default:
		conds, args = append(conds, `p.status = ?`), append(args, string(f.status))
	}
	if f.q != "" {
		if s.pg {
			conds, args = append(conds, `p.search @@ plainto_tsquery('simple', ?)`), append(args, tsQueryText(f.q))
		} else {
			conds, args = append(conds, `p.rowid IN (SELECT rowid FROM predictions_fts WHERE predictions_fts MATCH ?)`), append(args, ftsQuery(f.q))
		}
	}
	if after != nil {
		switch f.sort {
		case SortClosing:
			conds = append(conds, `(p.close_at > ? OR (p.close_at = ? AND (p.created_at, p.id) < (?, ?)))`)
			args = append(args, after.closeAt(), after.closeAt(), after.at(), after.ID)
		case SortConfidence:
			conds, args = append(conds, `(p.confidence, p.created_at, p.id) < (?, ?, ?)`), append(args, *after.Conf, after.at(), after.ID)
		case SortPopular:
			conds, args = append(conds, `(p.popularity, p.created_at, p.id) < (?, ?, ?)`), append(args, *after.Pop, after.at(), after.ID)
		default:
			conds, args = append(conds, `(p.created_at, p.id) < (?, ?)`), append(args, after.at(), after.ID)
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// pageSQL returns the page query of the feed f (after the cursor when not
// nil). LIMIT and OFFSET are written into the text, not bound: SQLite
// reads a bound LIMIT's value while planning and so expires the statement
// whenever it is bound again, preparing it anew on every page.
//
// Each row starts with the feed's total (totalSQL as a scalar subquery,
// which the databases run once per statement), so a page takes one
// statement, not two.
func (s *Store) pageSQL(f feedFilter, after *cursor, limit, offset int) (string, []any) {
	total, args := s.totalSQL(f)
	w, wargs := s.where(f, after)
	cols := predictionCols
	if !s.pg {
		cols = sqliteTextTimes.Replace(cols)
	}
	args = append(args, wargs...)
	order := ` ORDER BY ` + feedOrder[f.sort] + fmt.Sprintf(` LIMIT %d`, limit)
	if offset == 0 {
		return `SELECT (` + total + `) AS total, ` + cols + ` FROM predictions AS p` + w + order, args
	}
	// The skipped rows are skipped in a subquery, so the columns (the
	// agent's name is a lookup) are computed for the page's rows only:
	// PostgreSQL would otherwise compute them for every skipped row.
	return `SELECT (` + total + `) AS total, ` + cols + ` FROM (SELECT p.* FROM predictions AS p` + w + order +
		fmt.Sprintf(` OFFSET %d`, offset) + `) AS p ORDER BY ` + feedOrder[f.sort], args
}

// sqliteTextTimes selects the feed's times on SQLite as text, which the
// driver hands over as it is (bun.NullTime reads it with one parse): a
// column declared TIMESTAMP the driver parses itself, trying one layout
// after another.
var sqliteTextTimes = strings.NewReplacer(
	"p.created_at,", "p.created_at || '' AS created_at,",
	"p.resolved_at,", "p.resolved_at || '' AS resolved_at,",
	"p.community_updated_at,", "p.community_updated_at || '' AS community_updated_at,",
	"p.close_at, p.closed_at", "p.close_at || '' AS close_at, p.closed_at || '' AS closed_at")

// totalSQL returns the query that counts the feed f. Without an agent or
// a search, and but for [SortClosing] and status closed, it sums counters
// kept with each write (the shards of domain_counts), so no row is
// counted; the counters' open predictions include the closed ones, which
// status open counts on the close_at index and takes away. Otherwise it
// counts the matching rows on their index.
func (s *Store) totalSQL(f feedFilter) (string, []any) {
	if f.agent != "" || f.q != "" || f.sort == SortClosing || f.status == StatusClosed {
		w, args := s.where(f, nil)
		return `SELECT COUNT(*) FROM predictions AS p` + w, args
	}
	col := `predictions`
	switch f.status {
	case StatusOpen:
		col = `predictions - resolved - void`
	case StatusResolved:
		col = `resolved`
	case StatusVoid:
		col = `void`
	}
	q := `SELECT COALESCE(SUM(` + col + `), 0) FROM domain_counts`
	var args []any
	if f.domain != "" {
		q, args = q+` WHERE domain = ?`, []any{f.domain}
	}
	if f.status == StatusOpen {
		closed := f
		closed.status = StatusClosed
		cq, cargs := s.totalSQL(closed)
		return `SELECT (` + q + `) - (` + cq + `)`, append(args, cargs...)
	}
	return q, args
}

// Feed returns a page of predictions.
//
// Sort defaults to recent, Limit to 20; a Limit above 100 is clamped to 100
// with a note. Domain, Status and Sort are matched without regard to case;
// AgentID keeps to the agent's posts, Q to those whose title or body holds
// every word of it (full-text search: SQLite FTS5, PostgreSQL text
// search). A page with more after it carries NextCursor, which as Cursor
// gives the page after it at any depth at the cost of the first (keyset
// pagination on the sort key and id); Offset skips predictions instead,
// at a cost that grows with it. Total comes from counters kept with each
// write when the feed is filtered by domain and status only; with AgentID,
// Q, status closed or [SortClosing] (predictions still open that have a
// close_at, soonest close first) the matching rows are counted. Status
// open and closed, and SortClosing, follow the clock exactly: an open
// prediction is closed from its close_at on.
//
// Errors: a *[ValidationError] for an unknown domain, sort or status, an
// invalid agent_id, a q too long or without words, a negative limit or
// offset, a cursor that is not one of the board's or belongs to another
// sort or filters, and a cursor with an offset.
func (s *Store) Feed(ctx context.Context, q FeedQuery) (Feed, error) {
	ff, limit, after, notes, err := checkFeed(q)
	if err != nil {
		return Feed{}, err
	}
	f := Feed{Sort: ff.sort, Domain: ff.domain, AgentID: ff.agent, Status: ff.status, Q: ff.q,
		Offset: q.Offset, Limit: limit, Notes: notes, Predictions: []Prediction{}}
	rows, total, err := s.page(ctx, ff, after, limit+1, q.Offset)
	if err != nil {
		return Feed{}, err
	}
	f.Total = total
	if len(rows) > limit {
		rows = rows[:limit]
		f.HasMore = true
		f.NextCursor = cursorAfter(&rows[limit-1], ff)
	}
	v := s.view()
	f.Predictions = make([]Prediction, len(rows))
	for i := range rows {
		f.Predictions[i] = rows[i].prediction(v)
	}
	return f, nil
}

// page reads up to n rows of the feed f (after the cursor when not nil,
// else from offset) and the feed's total. On SQLite a page without an
// offset or a search (a first page, or the page after a cursor) comes
// from the page cache while the board's feed_version is the one it was
// read after.
func (s *Store) page(ctx context.Context, f feedFilter, after *cursor, n, offset int) ([]predictionRow, int, error) {
	cache := s.cachePages && offset == 0 && f.q == ""
	var key string
	var version int64
	if cache {
		// The version is read before the page: a page read after it is
		// at least as new as the version says.
		if err := s.queryRow(ctx, `SELECT v FROM feed_version`).Scan(&version); err != nil {
			return nil, 0, fmt.Errorf("board: feed version: %w", err)
		}
	}
	if f.clocked() {
		var err error
		if f.cut, err = s.cut(ctx, cache); err != nil {
			return nil, 0, fmt.Errorf("board: feed: %w", err)
		}
	}
	q, args := s.pageSQL(f, after, n, offset)
	if cache {
		key = database.QueryKey(q, args)
		if p, ok := s.pages.Get(key, version); ok {
			return p.rows, p.total, nil
		}
	}
	var total int
	rows, err := s.scanPredictions(ctx, offset == 0, n, &total, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("board: feed: %w", err)
	}
	if len(rows) == 0 { // no row to carry the total
		tq, targs := s.totalSQL(f)
		if err := s.queryRow(ctx, tq, targs...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("board: feed total: %w", err)
		}
	}
	if key != "" {
		s.pages.Put(key, version, cachedPage{rows: rows, total: total}, pageSize(rows))
	}
	return rows, total, nil
}

// farFuture is a cut after every close_at: with no close_at after now,
// every close_at is at or before now.
const farFuture = "9999-12-31 23:59:59.999999+00:00"

// cut returns the clock as the feed's filters compare it with close_at
// (a prediction is closed when its close_at is before the cut): the
// stored text of now plus a microsecond (times are stored to the
// microsecond, so close_at < now+1µs is close_at ≤ now). With edge, it is
// instead the first close_at after now: the same predictions are closed
// before it, and it stays the same until the clock passes it, so a page
// kept with it as its argument is right until then (and feed_version
// changes with any write, a new close_at included).
func (s *Store) cut(ctx context.Context, edge bool) (string, error) {
	now := s.clock()
	if !edge {
		return storedTime(now.Add(time.Microsecond)), nil
	}
	var next sql.NullString
	if err := s.queryRow(ctx, `SELECT MIN(close_at) FROM predictions WHERE status = 'open' AND close_at > ?`, storedTime(now)).Scan(&next); err != nil {
		return "", err
	}
	if !next.Valid {
		return farFuture, nil
	}
	return next.String, nil
}

// maxPages and maxPageBytes bound the page cache. The first pages of
// every sort and status of every domain fit, with room for agents' pages
// and pages after a cursor; a page of 20 typical predictions takes about
// 10 KB, but one of 100 predictions each at the longest body can take
// 4 MB, so the bytes are bounded too, and a page above an eighth of them
// is not kept.
const (
	maxPages     = 512
	maxPageBytes = 16 << 20
)

// rowBytes is about the bytes of a predictionRow's fields, without the
// texts they point to (about 450 on 64-bit platforms).
const rowBytes = 512

// pageSize is about the bytes rows hold: their fields and their texts.
func pageSize(rows []predictionRow) int {
	n := len(rows) * rowBytes
	for i := range rows {
		r := &rows[i]
		n += len(r.ID) + len(r.AgentID) + len(r.AgentName) + len(r.Title) + len(r.Body) + len(r.Timeframe) +
			len(r.Domain) + len(r.Status) + len(r.Outcome.String) + len(r.Flags) + len(r.CommunityNotes) +
			len(r.Resolves) + len(r.ResolveBy.String)
	}
	return n
}

// cachedPage is a page the page cache keeps ([Store.page]): its rows,
// never changed once kept (a Feed builds its Predictions from them anew),
// and the feed's total.
type cachedPage struct {
	rows  []predictionRow
	total int
}

// queryRow runs a one-row read: on SQLite through the statement cache.
func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if s.pg {
		return s.read.QueryRowContext(ctx, q, args...)
	}
	return s.stmts.QueryRow(ctx, s.read.DB, q, args...)
}

// scanPredictions runs a page query (pageSQL: the total, then
// predictionCols), reads up to n rows and the total. On SQLite a query
// that recurs (cache) runs as a statement prepared once; on PostgreSQL
// bun writes the arguments into the query.
func (s *Store) scanPredictions(ctx context.Context, cache bool, n int, total *int, q string, args ...any) ([]predictionRow, error) {
	var rs *sql.Rows
	var err error
	switch {
	case s.pg:
		rs, err = s.read.QueryContext(ctx, q, args...)
	case cache:
		rs, err = s.stmts.Query(ctx, s.read.DB, q, args...)
	default:
		rs, err = s.read.DB.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := make([]predictionRow, 0, n)
	var r predictionRow
	var created bun.NullTime
	dest := append([]any{database.Int(total)}, r.dest(&created)...) // one for every row
	for rs.Next() {
		r = predictionRow{}
		if err := rs.Scan(dest...); err != nil {
			return nil, err
		}
		r.CreatedAt = created.Time
		out = append(out, r)
	}
	return out, rs.Err()
}
