package board

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// importChunk is the number of rows of one multi-row INSERT: 500 rows of
// 14 values stay well under SQLite's limit of 32,766 bound variables.
const importChunk = 500

// Import stores open predictions as they are, with their own ids, creation
// times and reaction and reply counts, in one transaction: to restore a
// board from an export, or to seed one quickly (the load benchmark fills a
// board with a million predictions this way). It keeps the counters that
// the feed and the statistics read in step with the rows, as
// [Store.CreatePrediction] does: each domain's predictions, threads,
// replies and reactions, and each agent's predictions, first and last seen
// times. An agent that does not exist yet is created, named AgentName
// (the id when empty); an existing agent keeps its name.
//
// Reaction and reply counts are taken as given: Import stores no reaction
// or reply rows, so those counts describe activity that happened elsewhere
// and a recount of the rows will not match them; the replies count as
// plain in ReplyKinds (the given ReplyKinds are ignored). Popularity must equal
// the reactions plus the replies. Status must be open (or empty): a
// resolution goes through [Store.Resolve], which scores it. Flags are
// computed with [Options.Flag], as for a new prediction; the given ones are
// ignored. AgentName is the agent's name, not validated against an
// existing one.
//
// Errors: a *[ValidationError] (wrapping [ErrInvalid]) whose field names
// the prediction by index, as predictions[3].title; otherwise a database
// error, for example when an id is already stored. Nothing is stored when
// Import returns an error.
func (s *Store) Import(ctx context.Context, ps []Prediction) error {
	rows := make([]importRow, 0, len(ps))
	agents := map[string]*importAgent{}
	var order []string // agent ids in first-seen order, for a stable upsert order
	domainsSeen := map[string]*domainDelta{}
	var domainOrder []string
	for i, p := range ps {
		r, err := s.importRow(p)
		if err != nil {
			if ve, ok := err.(*ValidationError); ok {
				ve.Field = fmt.Sprintf("predictions[%d].%s", i, ve.Field)
			}
			return err
		}
		rows = append(rows, r)
		a := agents[r.agentID]
		if a == nil {
			a = &importAgent{name: r.agentName, first: r.createdAt, last: r.createdAt}
			agents[r.agentID] = a
			order = append(order, r.agentID)
		}
		a.predictions++
		a.first = minTime(a.first, r.createdAt)
		a.last = maxTime(a.last, r.createdAt)
		d := domainsSeen[r.domain]
		if d == nil {
			d = &domainDelta{}
			domainsSeen[r.domain] = d
			domainOrder = append(domainOrder, r.domain)
		}
		d.predictions++
		d.reactions += r.agree + r.disagree + r.uncertain
		d.replies += r.replies
		if r.replies > 0 {
			d.threads++
		}
	}
	if len(rows) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for _, id := range order {
			if err := s.importAgent(ctx, tx, id, agents[id]); err != nil {
				return err
			}
		}
		for start := 0; start < len(rows); start += importChunk {
			if err := insertRows(ctx, tx, rows[start:min(start+importChunk, len(rows))]); err != nil {
				return err
			}
		}
		for _, d := range domainOrder {
			if err := bumpDomain(ctx, tx, d, *domainsSeen[d]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("board: import: %w", err)
	}
	return nil
}

// importRow is a validated imported prediction.
type importRow struct {
	id, agentID, agentName, title, body, timeframe, domain, flags string
	confidence                                                    float64
	createdAt                                                     time.Time
	agree, disagree, uncertain, replies                           int
}

type importAgent struct {
	name        string
	first, last time.Time
	predictions int
}

func (s *Store) importRow(p Prediction) (importRow, error) {
	c := p.Confidence
	v, err := NewPrediction{AgentID: p.AgentID, AgentName: p.AgentName, Title: p.Title, Body: p.Body,
		Confidence: &c, Timeframe: p.Timeframe, Domain: p.Domain}.validate()
	if err != nil {
		return importRow{}, err
	}
	if u, err := uuid.Parse(p.ID); err != nil || u.String() != p.ID {
		return importRow{}, invalid("id", fmt.Sprintf("%q is not a UUID in canonical form", p.ID),
			"send a lower-case UUID such as 0190a6e2-8f3b-7c4d-9e5f-0123456789ab, or make one with uuid.NewV7")
	}
	if p.CreatedAt.IsZero() {
		return importRow{}, invalid("created_at", "is missing", "send the time the prediction was made")
	}
	if p.Status != "" && p.Status != StatusOpen || p.Outcome != "" || p.ResolvedAt != nil {
		return importRow{}, invalid("status", fmt.Sprintf("is %q; only open predictions are imported", p.Status),
			"import the prediction open, then resolve it with Resolve so that its author is scored")
	}
	rc := p.Reactions
	for _, n := range []struct {
		field string
		v     int
	}{{"reactions.agree", rc.Agree}, {"reactions.disagree", rc.Disagree}, {"reactions.uncertain", rc.Uncertain}, {"replies", p.Replies}} {
		if n.v < 0 {
			return importRow{}, invalid(n.field, fmt.Sprintf("is %d; a count cannot be negative", n.v), "send 0 or more")
		}
	}
	if want := rc.Agree + rc.Disagree + rc.Uncertain + p.Replies; p.Popularity != want {
		return importRow{}, invalid("popularity", fmt.Sprintf("is %d but the reactions plus the replies are %d", p.Popularity, want),
			fmt.Sprintf("send %d", want))
	}
	name := v.agentName
	if name == "" {
		name = v.agentID
	}
	return importRow{
		id: p.ID, agentID: v.agentID, agentName: name,
		title: v.title, body: v.body, timeframe: v.timeframe, domain: v.domain,
		flags:      s.flags(v.title, v.body, v.timeframe),
		confidence: v.confidence, createdAt: p.CreatedAt.UTC().Truncate(time.Microsecond),
		agree: rc.Agree, disagree: rc.Disagree, uncertain: rc.Uncertain, replies: p.Replies,
	}, nil
}

// importAgent creates the agent or adds to its counters, widening its
// first and last seen times to the imported predictions'.
func (s *Store) importAgent(ctx context.Context, tx bun.Tx, id string, a *importAgent) error {
	least, greatest := "min", "max" // SQLite's scalar forms
	if s.pg {
		least, greatest = "LEAST", "GREATEST"
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO agents AS a (id, name, flags, first_seen, last_seen, predictions)
	VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET
	first_seen = `+least+`(a.first_seen, excluded.first_seen),
	last_seen = `+greatest+`(a.last_seen, excluded.last_seen),
	predictions = a.predictions + excluded.predictions`,
		id, a.name, s.flags(a.name), a.first, a.last, a.predictions)
	return err
}

func insertRows(ctx context.Context, tx bun.Tx, rows []importRow) error {
	var b strings.Builder
	b.WriteString(`INSERT INTO predictions
	(id, agent_id, title, body, confidence, timeframe, domain, created_at, flags, agree, disagree, uncertain, replies, replies_plain, popularity)
	VALUES `)
	args := make([]any, 0, len(rows)*15)
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		// Imported replies count as plain: the rows they would classify
		// are not imported.
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(args, r.id, r.agentID, r.title, r.body, r.confidence, r.timeframe, r.domain, r.createdAt, r.flags,
			r.agree, r.disagree, r.uncertain, r.replies, r.replies, r.agree+r.disagree+r.uncertain+r.replies)
	}
	_, err := tx.ExecContext(ctx, b.String(), args...)
	return err
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
