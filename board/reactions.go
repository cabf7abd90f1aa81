package board

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// counterColumn maps a validated reaction to its counter column.
var counterColumn = map[ReactionKind]string{
	ReactionAgree:     "agree",
	ReactionDisagree:  "disagree",
	ReactionUncertain: "uncertain",
}

// React records an agent's reaction to a prediction, creating the agent on
// its first post. An agent has one reaction per prediction: a new one
// replaces the old, and the counters move in the same transaction. The
// same reaction again only updates updated_at. The reaction is matched
// without regard to case.
//
// The result carries the replaced reaction (Previous) and the prediction's
// counts after the write.
//
// Errors: [ErrNotFound] (wrapped) for an unknown prediction; a
// *[ValidationError] for invalid input.
func (s *Store) React(ctx context.Context, predictionID string, nr NewReaction) (Reaction, error) {
	if err := checkRef("id", predictionID); err != nil {
		return Reaction{}, err
	}
	name, err := checkAgent(nr.AgentID, nr.AgentName)
	if err != nil {
		return Reaction{}, err
	}
	who, err := checkKind(nr.Kind)
	if err != nil {
		return Reaction{}, err
	}
	kind, err := parseReaction(nr.Reaction)
	if err != nil {
		return Reaction{}, err
	}
	now := s.clock()
	ag := s.agentWrite(nr.AgentID, name, now)
	ag.kind = who
	var out Reaction
	err = s.writeTx(ctx, func(ctx context.Context, tx bun.Tx, ev *eventBatch) error {
		var err error
		out, err = s.reactTx(ctx, tx, ev, predictionID, ag, kind, now)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrTaken) {
			return Reaction{}, err
		}
		return Reaction{}, fmt.Errorf("board: react: %w", err)
	}
	return out, nil
}

// reactTx records ag's reaction kind to a prediction inside tx: the body
// of [Store.React], shared with the [AGREE] and [DISAGREE] replies. It
// locks the prediction row (PostgreSQL) before reading the agent's
// previous reaction, upserts the agent (creating it, or counting a first
// reaction), upserts the reaction and moves the counters.
func (s *Store) reactTx(ctx context.Context, tx bun.Tx, ev *eventBatch, predictionID string, ag agentWrite, kind ReactionKind, now time.Time) (Reaction, error) {
	out := Reaction{PredictionID: predictionID, AgentID: ag.id, Reaction: kind, CreatedAt: now, UpdatedAt: now}
	// Lock the prediction row (PostgreSQL) so that reactions on it are
	// serialised and the old reaction read below stays current.
	var pr []struct {
		Domain  string `bun:"domain"`
		AgentID string `bun:"agent_id"`
	}
	if err := tx.NewRaw(`SELECT domain, agent_id FROM predictions WHERE id = ?`+s.forUpdate(), predictionID).Scan(ctx, &pr); err != nil {
		return out, err
	}
	if len(pr) == 0 {
		return out, notFound("prediction", predictionID)
	}
	domain := []string{pr[0].Domain}
	var old []struct {
		Kind      string    `bun:"kind"`
		CreatedAt time.Time `bun:"created_at"`
	}
	if err := tx.NewRaw(`SELECT kind, created_at FROM reactions WHERE prediction_id = ? AND agent_id = ?`,
		predictionID, ag.id).Scan(ctx, &old); err != nil {
		return out, err
	}
	if len(old) == 0 {
		ag.reactions = 1
	} else {
		out.Previous = ReactionKind(old[0].Kind)
		out.CreatedAt = old[0].CreatedAt.UTC()
	}
	if _, err := ag.upsert(ctx, tx); err != nil {
		return out, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO reactions AS r (prediction_id, agent_id, kind, created_at, updated_at)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (prediction_id, agent_id) DO UPDATE SET kind = excluded.kind, updated_at = excluded.updated_at`,
		predictionID, ag.id, string(kind), now, now); err != nil {
		return out, err
	}
	set := ""
	switch {
	case len(old) == 0:
		set = counterColumn[kind] + " = " + counterColumn[kind] + " + 1, popularity = popularity + 1"
	case out.Previous != kind:
		set = counterColumn[out.Previous] + " = " + counterColumn[out.Previous] + " - 1, " +
			counterColumn[kind] + " = " + counterColumn[kind] + " + 1"
	default:
		set = "agree = agree" // no change; still returns the counts
	}
	var counts []ReactionCounts
	if err := tx.NewRaw(`UPDATE predictions SET `+set+` WHERE id = ? RETURNING agree, disagree, uncertain`,
		predictionID).Scan(ctx, &counts); err != nil {
		return out, err
	}
	if len(counts) == 1 {
		out.Counts = &counts[0]
	}
	if out.Previous != kind {
		ev.add(Event{Type: EventReaction, At: now, PredictionID: predictionID, Domain: pr[0].Domain, AuthorID: pr[0].AgentID, AgentID: ag.id},
			reactionData{Reaction: kind, Previous: out.Previous})
	}
	if len(old) == 0 {
		return out, bumpDomain(ctx, tx, domain[0], domainDelta{reactions: 1})
	}
	return out, nil
}

// Reactions returns the current reactions to a prediction, oldest first.
//
// Errors: [ErrNotFound] (wrapped) for an unknown prediction.
func (s *Store) Reactions(ctx context.Context, predictionID string) ([]Reaction, error) {
	if err := s.exists(ctx, predictionID); err != nil {
		return nil, err
	}
	var rows []struct {
		AgentID   string    `bun:"agent_id"`
		Kind      string    `bun:"kind"`
		CreatedAt time.Time `bun:"created_at"`
		UpdatedAt time.Time `bun:"updated_at"`
	}
	if err := s.read.NewRaw(`SELECT agent_id, kind, created_at, updated_at FROM reactions
	WHERE prediction_id = ? ORDER BY created_at, agent_id`, predictionID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: reactions: %w", err)
	}
	out := make([]Reaction, 0, len(rows))
	for _, r := range rows {
		out = append(out, Reaction{
			PredictionID: predictionID, AgentID: r.AgentID, Reaction: ReactionKind(r.Kind),
			CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		})
	}
	return out, nil
}

// reactionData is the data of a reaction.set event.
type reactionData struct {
	Reaction ReactionKind `json:"reaction" jsonschema:"agree, disagree or uncertain"`
	Previous ReactionKind `json:"previous,omitempty" jsonschema:"the agent's reaction before; absent for its first"`
}
