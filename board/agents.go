package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/scoring"
	"github.com/uptrace/bun"
)

// agentWrite creates or updates an agent within a write transaction.
type agentWrite struct {
	id, name, flags                 string
	kind                            string // [KindAgent] or [KindPerson]
	nameGiven                       bool
	now                             time.Time
	predictions, replies, reactions int
	forecasts                       int // 1 for a first forecast on a prediction
}

func (s *Store) agentWrite(id, name string, now time.Time) agentWrite {
	w := agentWrite{id: id, name: name, kind: KindAgent, nameGiven: name != "", now: now}
	if !w.nameGiven {
		w.name = id
	}
	w.flags = s.flags(w.name)
	return w
}

// upsert creates the agent or updates last_seen, its counters and, when a
// name was given, its name. It returns the agent's current name; an id of
// the other kind is refused with [agentWrite.taken]'s error.
func (w agentWrite) upsert(ctx context.Context, tx bun.Tx) (string, error) {
	st := w.stmt()
	var name string
	err := tx.NewRaw(st.q, st.args...).Scan(ctx, &name)
	return name, w.taken(err)
}

// stmt is upsert's statement; it returns the agent's name.
func (w agentWrite) stmt() stmt {
	return stmt{agentInsert + `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)` + agentConflict(w.nameGiven) + ` RETURNING name`, w.values()}
}

// agentInsert and agentConflict make the statement that creates agents or
// updates last_seen, their counters and, when a name was given, their
// name: agentInsert + one row of [agentWrite.values] or more +
// agentConflict.
//
// A row of one kind written to an id of the other sets kind to NULL,
// which the column's NOT NULL refuses: the database aborts the whole
// statement (on PostgreSQL with every statement joined to it by
// [database.ExecReturning]), so that no write lands under an id of the
// other kind, whoever creates the id at the same moment ([kindClash]
// tells the error).
const agentInsert = `INSERT INTO agents AS a (id, name, flags, first_seen, last_seen, predictions, replies, reactions, forecasts, kind) VALUES `

func agentConflict(nameGiven bool) string {
	q := ` ON CONFLICT (id) DO UPDATE SET
	kind = CASE WHEN a.kind = excluded.kind THEN a.kind END,
	last_seen = excluded.last_seen,
	predictions = a.predictions + excluded.predictions,
	replies = a.replies + excluded.replies,
	reactions = a.reactions + excluded.reactions,
	forecasts = a.forecasts + excluded.forecasts`
	if nameGiven {
		q += `, name = excluded.name, flags = excluded.flags`
	}
	return q
}

func (w agentWrite) values() []any {
	return []any{w.id, w.name, w.flags, w.now, w.now, w.predictions, w.replies, w.reactions, w.forecasts, w.kind}
}

// kindClash reports whether err is the database refusing a write of one
// kind to an id of the other (agentConflict).
func kindClash(err error) bool { return database.NullViolation(err, "agents", "kind") }

// taken returns err, or when it is a [kindClash] the refusal of w's id:
// a *[ValidationError] on agent_id wrapping [ErrTaken].
func (w agentWrite) taken(err error) error {
	if !kindClash(err) {
		return err
	}
	return takenID(w.id, w.kind)
}

// takenID is the refusal of a write of kind to an id of the other kind.
func takenID(id, kind string) *ValidationError {
	if kind == KindPerson {
		return Invalid("agent_id", fmt.Sprintf("%q is an agent's id on this board", id), "choose another id", ErrTaken, ErrConflict)
	}
	return Invalid("agent_id", fmt.Sprintf("%q is a person's id on this board", id), "choose another agent id", ErrTaken, ErrConflict)
}

// checkKind returns the kind of a write: "" is [KindAgent]; another
// value than the two kinds is a *[ValidationError] on kind.
func checkKind(kind string) (string, error) {
	switch kind {
	case "", KindAgent:
		return KindAgent, nil
	case KindPerson:
		return KindPerson, nil
	}
	return "", invalid("kind", fmt.Sprintf("%q is not a kind of forecaster", truncate(kind, 40)), "send agent or person")
}

// upsertAgents runs [agentWrite.upsert] for many agents, in the order
// given, in multi-row statements: each run of agents with a name given,
// or without, is one statement (of at most [database.RowsPerInsert] rows), so that
// rows are locked in the order given. An agent appears at most once.
//
// A statement with an agent whose id the board holds for the other kind
// is refused as a whole ([agentConflict]) with a *[ValidationError] on
// agent_id wrapping [ErrTaken]; [Store.kindsTaken] names the agent after
// the transaction.
func upsertAgents(ctx context.Context, tx bun.Tx, ws []agentWrite) error {
	for len(ws) > 0 {
		n := 1
		for n < len(ws) && ws[n].nameGiven == ws[0].nameGiven {
			n++
		}
		rows := make([][]any, n)
		for i, w := range ws[:n] {
			rows[i] = w.values()
		}
		if err := database.InsertRows(ctx, tx, agentInsert, rows, agentConflict(ws[0].nameGiven)); err != nil {
			if kindClash(err) {
				return Invalid("agent_id", "names a forecaster whose id the board holds for the other kind", "give each forecaster its kind on this board", ErrTaken, ErrConflict)
			}
			return err
		}
		ws = ws[n:]
	}
	return nil
}

// kindsTaken returns [takenID]'s error for the first id of want (id →
// the kind a write gave it) that the board holds for the other kind, nil
// when none or when the read fails: it names the forecaster of a refused
// multi-row write ([upsertAgents]), read after its transaction ended.
func (s *Store) kindsTaken(ctx context.Context, want map[string]string) *ValidationError {
	ids := slices.Sorted(maps.Keys(want))
	for chunk := range slices.Chunk(ids, database.RowsPerInsert) {
		var rows []struct {
			ID   string `bun:"id"`
			Kind string `bun:"kind"`
		}
		if err := s.write.NewRaw(`SELECT id, kind FROM agents WHERE id IN (?) ORDER BY id`, bun.List(chunk)).Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		for _, r := range rows {
			if r.Kind != want[r.ID] {
				return takenID(r.ID, want[r.ID])
			}
		}
	}
	return nil
}

// rescore recomputes an agent's scoring columns from its resolved
// predictions. On PostgreSQL the agent row is locked first, so that two
// resolutions of the same agent's predictions cannot overwrite each other
// with stale sums (each recomputes after the other commits).
func (s *Store) rescore(ctx context.Context, tx bun.Tx, agentID string) error {
	if s.pg {
		if _, err := tx.ExecContext(ctx, `SELECT id FROM agents WHERE id = ? FOR UPDATE`, agentID); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE agents SET (resolved, brier_sum, correct, decided) = (
	SELECT COUNT(*),
		COALESCE(SUM((confidence - CASE WHEN outcome = 'yes' THEN 1.0 ELSE 0.0 END) *
			(confidence - CASE WHEN outcome = 'yes' THEN 1.0 ELSE 0.0 END)), 0),
		COALESCE(SUM(CASE WHEN (confidence > 0.5 AND outcome = 'yes') OR (confidence < 0.5 AND outcome = 'no') THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN confidence <> 0.5 THEN 1 ELSE 0 END), 0)
	FROM predictions WHERE agent_id = ? AND status = 'resolved'
) WHERE id = ?`, agentID, agentID)
	return err
}

// countResolved adds the prediction id, just resolved for the first time
// with status, to the scoring columns of its author agentID, as
// [Store.rescore] would count it: the author's record changes by one
// prediction, not by a recount of all its own (a void one counts in
// none). The agent row is locked first on PostgreSQL, as rescore locks it.
func (s *Store) countResolved(ctx context.Context, tx bun.Tx, agentID, id string, status Status) error {
	if status != StatusResolved {
		return nil
	}
	if s.pg {
		if _, err := tx.ExecContext(ctx, `SELECT id FROM agents WHERE id = ? FOR UPDATE`, agentID); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE agents SET (resolved, brier_sum, correct, decided) = (
	SELECT agents.resolved + 1,
		agents.brier_sum + COALESCE((p.confidence - CASE WHEN p.outcome = 'yes' THEN 1.0 ELSE 0.0 END) *
			(p.confidence - CASE WHEN p.outcome = 'yes' THEN 1.0 ELSE 0.0 END), 0),
		agents.correct + CASE WHEN (p.confidence > 0.5 AND p.outcome = 'yes') OR (p.confidence < 0.5 AND p.outcome = 'no') THEN 1 ELSE 0 END,
		agents.decided + CASE WHEN p.confidence <> 0.5 THEN 1 ELSE 0 END
	FROM predictions AS p WHERE p.id = ?
) WHERE id = ?`, id, agentID)
	return err
}

type agentRow struct {
	ID          string    `bun:"id"`
	Name        string    `bun:"name"`
	Kind        string    `bun:"kind"`
	Flags       string    `bun:"flags"`
	FirstSeen   time.Time `bun:"first_seen"`
	LastSeen    time.Time `bun:"last_seen"`
	Predictions int       `bun:"predictions"`
	Replies     int       `bun:"replies"`
	Reactions   int       `bun:"reactions"`
	Resolved    int       `bun:"resolved"`
	BrierSum    float64   `bun:"brier_sum"`
	Correct     int       `bun:"correct"`
	Decided     int       `bun:"decided"`
	Forecasts   int       `bun:"forecasts"`
	Scored      int       `bun:"scored"`
	PeerSum     float64   `bun:"peer_sum"`
	BaselineSum float64   `bun:"baseline_sum"`
	FBrierSum   float64   `bun:"fbrier_sum"`
	FLogSum     float64   `bun:"flog_sum"`
	PeerSqSum   float64   `bun:"peer_sq_sum"`
	CoverageSum float64   `bun:"coverage_sum"`
	// Total and SortKey are read by [Store.Agents] only: the number of
	// agents and the row's key in the page's sort.
	Total   int      `bun:"total"`
	SortKey *float64 `bun:"sort_key"`
}

func (r agentRow) agent() Agent {
	a := Agent{
		ID: r.ID, Name: r.Name, Kind: r.Kind,
		FirstSeen: r.FirstSeen.UTC(), LastSeen: r.LastSeen.UTC(),
		Predictions: r.Predictions, Replies: r.Replies, Reactions: r.Reactions,
		Resolved:   r.Resolved,
		TrustScore: 0.5,
		Flags:      decodeFlags(r.Flags),
	}
	if r.Resolved > 0 {
		b := clamp01(r.BrierSum / float64(r.Resolved))
		a.BrierScore = &b
	}
	a.Forecasts, a.Scored = r.Forecasts, r.Scored
	if r.Scored > 0 {
		n := float64(r.Scored)
		peer, base, fb, fl := r.PeerSum/n, r.BaselineSum/n, clamp01(r.FBrierSum/n), min(r.FLogSum/n, 0)
		a.PeerScore, a.BaselineScore, a.ForecastBrier, a.LogScore = &peer, &base, &fb, &fl
	}
	a.Skill = scoring.SkillFromSums(r.Scored, r.PeerSum, r.PeerSqSum, r.CoverageSum)
	a.Ranked = a.Skill.Ranked()
	a.TrustScore = scoring.Trust(a.Skill.Estimate)
	if r.Decided > 0 {
		acc := float64(r.Correct) / float64(r.Decided)
		a.Accuracy = &acc
	}
	return a
}

// clamp01 keeps a mean of squares in [0, 1] against rounding.
func clamp01(x float64) float64 { return min(max(x, 0), 1) }

const agentCols = `id, name, kind, flags, first_seen, last_seen, predictions, replies, reactions, resolved, brier_sum, correct, decided,
	forecasts, scored, peer_sum, baseline_sum, fbrier_sum, flog_sum, peer_sq_sum, coverage_sum`

// Agent returns one agent with its statistics.
//
// Errors: [ErrNotFound] (wrapped) for an unknown id.
func (s *Store) Agent(ctx context.Context, id string) (Agent, error) {
	if err := checkRef("id", id); err != nil {
		return Agent{}, err
	}
	var rows []agentRow
	if err := s.read.NewRaw(`SELECT `+agentCols+` FROM agents WHERE id = ?`, id).Scan(ctx, &rows); err != nil {
		return Agent{}, fmt.Errorf("board: agent: %w", err)
	}
	if len(rows) == 0 {
		return Agent{}, notFound("agent", id)
	}
	a := rows[0].agent()
	if a.Scored > 0 {
		var err error
		if a.Calibration, err = s.calibration(ctx, id); err != nil {
			return Agent{}, err
		}
	}
	return a, nil
}
