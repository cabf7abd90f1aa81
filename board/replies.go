package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// replyKind classifies a reply by the coordination tag its body starts
// with; see [parseTag].
func replyKind(body string) ReplyKind {
	k, _ := parseTag(body)
	return k
}

// tags maps the coordination tags, in lower case, to their kinds.
var tags = map[string]ReplyKind{
	"agree":     ReplyAgree,
	"disagree":  ReplyDisagree,
	"challenge": ReplyChallenge,
	"debate":    ReplyDebate,
}

// parseTag reads the coordination tag at the start of a reply body:
// optional white space (line breaks included), '[', optional white space,
// one of the tag words in any case (ASCII letters only, so no Unicode case
// folding lets a look-alike through), optional white space, ']'. It
// returns the kind and the text after the tag; a body that does not start
// with a tag is plain, and rest is then the whole body.
func parseTag(body string) (kind ReplyKind, rest string) {
	s := strings.TrimLeftFunc(body, unicode.IsSpace)
	s, ok := strings.CutPrefix(s, "[")
	if !ok {
		return ReplyPlain, body
	}
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return ReplyPlain, body
	}
	word := strings.TrimRightFunc(s[:end], unicode.IsSpace)
	for i := 0; i < len(word); i++ {
		if c := word[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return ReplyPlain, body
		}
	}
	k, ok := tags[strings.ToLower(word)]
	if !ok {
		return ReplyPlain, body
	}
	return k, s[end+1:]
}

// replyCounter is the predictions column counting replies of a kind.
func replyCounter(k ReplyKind) string {
	if _, ok := tags[string(k)]; ok {
		return "replies_" + string(k)
	}
	return "replies_plain"
}

// debateOf is the debate a new reply belongs to: a [DEBATE] reply opens
// its own, any other reply joins its parent's (parentDebate, "" when the
// parent is in none or there is no parent).
func debateOf(id string, kind ReplyKind, parentDebate string) string {
	if kind == ReplyDebate {
		return id
	}
	return parentDebate
}

// afterReply runs in the reply's transaction after it is stored: an
// [AGREE] or [DISAGREE] reply records the agent's reaction through the
// same code as [Store.React], so one reaction per agent, the counters and
// the popularity stay right. [CHALLENGE] and [DEBATE] need nothing more:
// the kind, its counter and debate_id are written with the reply.
func (s *Store) afterReply(ctx context.Context, tx bun.Tx, ev *eventBatch, r *Reply, who string) error {
	var kind ReactionKind
	switch r.Kind {
	case ReplyAgree:
		kind = ReactionAgree
	case ReplyDisagree:
		kind = ReactionDisagree
	default:
		return nil
	}
	ag := s.agentWrite(r.AgentID, "", r.CreatedAt)
	ag.kind = who
	re, err := s.reactTx(ctx, tx, ev, r.PredictionID, ag, kind, r.CreatedAt)
	if err != nil {
		return err
	}
	r.Reaction = &re
	return nil
}

// Reply adds a reply to a prediction's thread, creating the agent on its
// first post (display name as in [Store.CreatePrediction]). The
// prediction's reply count, its count of the reply's kind and its
// popularity change in the same transaction.
//
// A body starting with a coordination tag gets its kind (see the package
// documentation, "Reply kinds"): [AGREE] and [DISAGREE] also record or
// replace the agent's reaction, returned in Reaction; [DEBATE] opens a
// debate, and a reply whose parent is in a debate joins it (DebateID).
//
// The store's [Recorder] ([Store.SetRecorder]) is told of the reply in the
// same transaction (it queues the notification to the prediction's followers;
// see the package documentation, "E-mail threads").
//
// Errors: [ErrNotFound] (wrapped) for an unknown prediction; a
// *[ValidationError] for invalid input, including a parent_id that is not
// a reply on the same prediction.
func (s *Store) Reply(ctx context.Context, predictionID string, nr NewReply) (Reply, error) {
	return s.reply(ctx, predictionID, nr, nil)
}

// reply records a reply; a non-nil then runs in the same transaction
// after it ([Store.ReplyThen]).
func (s *Store) reply(ctx context.Context, predictionID string, nr NewReply, then func(ctx context.Context, tx bun.Tx, r Reply) error) (Reply, error) {
	if err := checkRef("id", predictionID); err != nil {
		return Reply{}, err
	}
	if err := checkRef("parent_id", nr.ParentID); err != nil {
		return Reply{}, err
	}
	name, err := checkAgent(nr.AgentID, nr.AgentName)
	if err != nil {
		return Reply{}, err
	}
	who, err := checkKind(nr.Kind)
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
	counter := replyCounter(r.Kind)
	flags := s.flags(body)
	r.Flags = decodeFlags(flags)
	ag := s.agentWrite(nr.AgentID, name, now)
	ag.kind = who
	ag.replies = 1
	err = s.writeTx(ctx, func(ctx context.Context, tx bun.Tx, ev *eventBatch) error {
		// The counter update checks that the prediction exists and, on
		// PostgreSQL, locks its row first (lock order: prediction, agent,
		// domain counters).
		var res []struct {
			Domain  string `bun:"domain"`
			Replies int    `bun:"replies"`
			Title   string `bun:"title"`
			AgentID string `bun:"agent_id"`
		}
		if err := tx.NewRaw(`UPDATE predictions SET replies = replies + 1, popularity = popularity + 1, `+
			counter+` = `+counter+` + 1 WHERE id = ? RETURNING domain, replies, title, agent_id`, predictionID).Scan(ctx, &res); err != nil {
			return err
		}
		if len(res) == 0 {
			return notFound("prediction", predictionID)
		}
		parentDebate, parentAgent := "", ""
		if nr.ParentID != "" {
			var parent []struct {
				PredictionID string         `bun:"prediction_id"`
				DebateID     sql.NullString `bun:"debate_id"`
				AgentID      string         `bun:"agent_id"`
			}
			if err := tx.NewRaw(`SELECT prediction_id, debate_id, agent_id FROM replies WHERE id = ?`, nr.ParentID).Scan(ctx, &parent); err != nil {
				return err
			}
			if len(parent) == 0 || parent[0].PredictionID != predictionID {
				return invalid("parent_id", fmt.Sprintf("%q is not a reply on prediction %q", nr.ParentID, predictionID),
					"send the id of a reply in this prediction's thread, or leave parent_id out to reply to the prediction")
			}
			parentDebate, parentAgent = parent[0].DebateID.String, parent[0].AgentID
		}
		r.DebateID = debateOf(id, r.Kind, parentDebate)
		if r.AgentName, err = ag.upsert(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO replies (id, prediction_id, parent_id, agent_id, body, kind, debate_id, created_at, flags)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, predictionID, sql.NullString{String: nr.ParentID, Valid: nr.ParentID != ""}, nr.AgentID, body,
			string(r.Kind), sql.NullString{String: r.DebateID, Valid: r.DebateID != ""}, now, flags); err != nil {
			return err
		}
		d := domainDelta{replies: 1}
		if res[0].Replies == 1 {
			d.threads = 1
		}
		if err := bumpDomain(ctx, tx, res[0].Domain, d); err != nil {
			return err
		}
		// Every reply is a reply.created, so that a subscriber to replies
		// sees debates too; one that opens or joins a debate is also a
		// debate.entry, with the same data.
		e := Event{Type: EventReply, At: now, PredictionID: predictionID, Domain: res[0].Domain, AuthorID: res[0].AgentID,
			AgentID: r.AgentID, ToAgentID: parentAgent}
		data := replyData{ReplyID: r.ID, ParentID: r.ParentID, Kind: r.Kind, DebateID: r.DebateID}
		ev.add(e, data)
		if r.DebateID != "" {
			e.Type = EventDebateEntry
			ev.add(e, data)
		}
		if err := s.afterReply(ctx, tx, ev, &r, who); err != nil {
			return err
		}
		if then != nil {
			if err := then(ctx, tx, r); err != nil {
				return err
			}
		}
		_, err := s.record(ctx, tx, Change{Kind: ReplyCreated, At: now, Reply: &r, Title: res[0].Title})
		return err
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
	DebateID     sql.NullString `bun:"debate_id"`
	CreatedAt    time.Time      `bun:"created_at"`
	Flags        string         `bun:"flags"`
}

// Thread returns a prediction's replies, oldest first (ties by id), each
// with its parent_id and debate_id; [Tree] nests them and [Debates] groups
// them by debate.
//
// Errors: [ErrNotFound] (wrapped) for an unknown prediction.
func (s *Store) Thread(ctx context.Context, predictionID string) ([]Reply, error) {
	if err := s.exists(ctx, predictionID); err != nil {
		return nil, err
	}
	var rows []replyRow
	if err := s.read.NewRaw(`SELECT `+replyCols+` FROM replies AS r WHERE r.prediction_id = ? ORDER BY r.created_at, r.id`,
		predictionID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: thread: %w", err)
	}
	out := make([]Reply, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.reply())
	}
	return out, nil
}

// replyCols selects a replyRow from "replies AS r".
const replyCols = `r.id, r.prediction_id, r.parent_id, r.agent_id,
	(SELECT a.name FROM agents AS a WHERE a.id = r.agent_id) AS agent_name, r.body, r.kind, r.debate_id, r.created_at, r.flags`

func (r replyRow) reply() Reply {
	return Reply{
		ID: r.ID, PredictionID: r.PredictionID, ParentID: r.ParentID.String,
		AgentID: r.AgentID, AgentName: r.AgentName, Body: r.Body,
		Kind: ReplyKind(r.Kind), DebateID: r.DebateID.String, CreatedAt: r.CreatedAt.UTC(), Flags: decodeFlags(r.Flags),
	}
}

// exists reports ErrNotFound for an unknown prediction.
func (s *Store) exists(ctx context.Context, predictionID string) error {
	if err := checkRef("id", predictionID); err != nil {
		return err
	}
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

// Debates groups a thread (as returned by [Store.Thread], oldest first) by
// debate, in the order the debates were opened. It reads each reply's
// DebateID, so it needs no walk of the tree; a debate opened inside
// another names it in ParentDebateID and is an entry of it.
func Debates(replies []Reply) []Debate {
	out := []Debate{}
	index := map[string]int{} // debate id → position in out
	byID := make(map[string]*Reply, len(replies))
	for i := range replies {
		byID[replies[i].ID] = &replies[i]
	}
	for _, r := range replies {
		if r.Kind != ReplyDebate || r.DebateID != r.ID {
			continue
		}
		d := Debate{ID: r.ID, OpenedBy: r.AgentID, OpenedByName: r.AgentName, OpenedAt: r.CreatedAt,
			Title: debateTitle(r.Body), Entries: []Reply{}}
		if p, ok := byID[r.ParentID]; ok && r.ParentID != "" {
			d.ParentDebateID = p.DebateID
		}
		index[r.ID] = len(out)
		out = append(out, d)
	}
	for _, r := range replies {
		host := r.DebateID
		if r.DebateID == r.ID { // an opening reply: an entry of the debate it was opened in
			host = ""
			if i, ok := index[r.ID]; ok {
				host = out[i].ParentDebateID
			}
		}
		if i, ok := index[host]; ok && host != "" {
			out[i].Entries = append(out[i].Entries, r)
			out[i].Counts.add(r.Kind, 1)
		}
	}
	return out
}

// debateTitle is the first non-blank line after the tag, trimmed and cut
// to MaxTitle characters.
func debateTitle(body string) string {
	_, rest := parseTag(body)
	lines := strings.FieldsFunc(rest, func(r rune) bool {
		return r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == '\u0085' || r == '\u2028' || r == '\u2029'
	})
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > MaxTitle {
			line = string([]rune(line)[:MaxTitle])
		}
		return line
	}
	return ""
}

// replyData is the data of a reply.created or debate.entry event.
type replyData struct {
	ReplyID  string    `json:"reply_id" jsonschema:"the reply's id"`
	ParentID string    `json:"parent_id,omitempty" jsonschema:"the reply it answers; absent for a reply to the prediction"`
	Kind     ReplyKind `json:"kind" jsonschema:"plain, agree, disagree, challenge or debate: its coordination tag"`
	DebateID string    `json:"debate_id,omitempty" jsonschema:"the debate it opens or joins (the id of its [DEBATE] reply); absent outside debates"`
}
