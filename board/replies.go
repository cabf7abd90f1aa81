package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// replyKind classifies a reply. It is the hook for the coordination tags
// ([AGREE], [DISAGREE], [CHALLENGE], [DEBATE]); today every reply is plain.
func replyKind(body string) ReplyKind { return ReplyPlain }

// afterReply runs in the reply's transaction after it is stored. It is
// where a tagged reply will record its side effects (an [AGREE] reply
// recording the agent's reaction, for example).
func (s *Store) afterReply(ctx context.Context, tx bun.Tx, r *Reply) error { return nil }

// Reply adds a reply to a prediction's thread, creating the agent on its
// first post (display name as in [Store.CreatePrediction]). The
// prediction's reply count and popularity change in the same transaction.
//
// Errors: [ErrNotFound] (wrapped) for an unknown prediction; a
// *[ValidationError] for invalid input, including a parent_id that is not
// a reply on the same prediction.
func (s *Store) Reply(ctx context.Context, predictionID string, nr NewReply) (Reply, error) {
	if err := checkAgentID(nr.AgentID); err != nil {
		return Reply{}, err
	}
	name, err := checkAgentName(nr.AgentName)
	if err != nil {
		return Reply{}, err
	}
	body, err := checkText("body", nr.Body, 1, MaxReply, true)
	if err != nil {
		return Reply{}, err
	}
	id, err := newID()
	if err != nil {
		return Reply{}, err
	}
	now := s.clock()
	r := Reply{
		ID: id, PredictionID: predictionID, ParentID: nr.ParentID,
		AgentID: nr.AgentID, Body: body, Kind: replyKind(body), CreatedAt: now,
	}
	flags := s.flags(body)
	r.Flags = decodeFlags(flags)
	ag := s.agentWrite(nr.AgentID, name, now)
	ag.replies = 1
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// The counter update checks that the prediction exists and, on
		// PostgreSQL, locks its row first (lock order: prediction, agent,
		// domain counters).
		var res []struct {
			Domain  string `bun:"domain"`
			Replies int    `bun:"replies"`
		}
		if err := tx.NewRaw(`UPDATE predictions SET replies = replies + 1, popularity = popularity + 1
	WHERE id = ? RETURNING domain, replies`, predictionID).Scan(ctx, &res); err != nil {
			return err
		}
		if len(res) == 0 {
			return notFound("prediction", predictionID)
		}
		if nr.ParentID != "" {
			var parent []string
			if err := tx.NewRaw(`SELECT prediction_id FROM replies WHERE id = ?`, nr.ParentID).Scan(ctx, &parent); err != nil {
				return err
			}
			if len(parent) == 0 || parent[0] != predictionID {
				return invalid("parent_id", fmt.Sprintf("%q is not a reply on prediction %q", nr.ParentID, predictionID),
					"send the id of a reply in this prediction's thread, or leave parent_id out to reply to the prediction")
			}
		}
		if r.AgentName, err = ag.upsert(ctx, tx); err != nil {
			return err
		}
		var parent any
		if nr.ParentID != "" {
			parent = nr.ParentID
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO replies (id, prediction_id, parent_id, agent_id, body, kind, created_at, flags)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, predictionID, parent, nr.AgentID, body, string(r.Kind), now, flags); err != nil {
			return err
		}
		d := domainDelta{replies: 1}
		if res[0].Replies == 1 {
			d.threads = 1
		}
		if err := bumpDomain(ctx, tx, res[0].Domain, d); err != nil {
			return err
		}
		return s.afterReply(ctx, tx, &r)
	})
	if err != nil {
		var ve *ValidationError
		if errors.Is(err, ErrNotFound) || errors.As(err, &ve) {
			return Reply{}, err
		}
		return Reply{}, fmt.Errorf("board: reply: %w", err)
	}
	return r, nil
}

type replyRow struct {
	ID           string         `bun:"id"`
	PredictionID string         `bun:"prediction_id"`
	ParentID     sql.NullString `bun:"parent_id"`
	AgentID      string         `bun:"agent_id"`
	AgentName    string         `bun:"agent_name"`
	Body         string         `bun:"body"`
	Kind         string         `bun:"kind"`
	CreatedAt    time.Time      `bun:"created_at"`
	Flags        string         `bun:"flags"`
}

// Thread returns a prediction's replies, oldest first (ties by id), each
// with its parent_id; [Tree] nests them.
//
// Errors: [ErrNotFound] (wrapped) for an unknown prediction.
func (s *Store) Thread(ctx context.Context, predictionID string) ([]Reply, error) {
	if err := s.exists(ctx, predictionID); err != nil {
		return nil, err
	}
	var rows []replyRow
	if err := s.read.NewRaw(`SELECT r.id, r.prediction_id, r.parent_id, r.agent_id,
	(SELECT a.name FROM agents AS a WHERE a.id = r.agent_id) AS agent_name,
	r.body, r.kind, r.created_at, r.flags
	FROM replies AS r WHERE r.prediction_id = ? ORDER BY r.created_at, r.id`, predictionID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: thread: %w", err)
	}
	out := make([]Reply, 0, len(rows))
	for _, r := range rows {
		out = append(out, Reply{
			ID: r.ID, PredictionID: r.PredictionID, ParentID: r.ParentID.String,
			AgentID: r.AgentID, AgentName: r.AgentName, Body: r.Body,
			Kind: ReplyKind(r.Kind), CreatedAt: r.CreatedAt.UTC(), Flags: decodeFlags(r.Flags),
		})
	}
	return out, nil
}

// exists reports ErrNotFound for an unknown prediction.
func (s *Store) exists(ctx context.Context, predictionID string) error {
	var n int
	if err := s.read.NewRaw(`SELECT COUNT(*) FROM predictions WHERE id = ?`, predictionID).Scan(ctx, &n); err != nil {
		return fmt.Errorf("board: %w", err)
	}
	if n == 0 {
		return notFound("prediction", predictionID)
	}
	return nil
}

// Tree nests a thread: each reply goes under its parent, in the order
// given; replies without a parent, or whose parent is not in replies,
// are roots.
func Tree(replies []Reply) []*ReplyNode {
	nodes := make(map[string]*ReplyNode, len(replies))
	for _, r := range replies {
		nodes[r.ID] = &ReplyNode{Reply: r, Children: []*ReplyNode{}}
	}
	roots := []*ReplyNode{}
	for _, r := range replies {
		n := nodes[r.ID]
		if p, ok := nodes[r.ParentID]; ok && r.ParentID != "" && p != n {
			p.Children = append(p.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	return roots
}
