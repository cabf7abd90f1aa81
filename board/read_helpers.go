package board

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// SplitTag splits a reply body into its coordination tag's kind and the
// text after the tag, by the one rule that classifies replies (see
// [Reply.Kind]); a body without a tag is [ReplyPlain] and its whole self.
// A page that shows the kind as a badge shows the rest as the text.
func SplitTag(body string) (ReplyKind, string) {
	k, rest := parseTag(body)
	if k != ReplyPlain {
		rest = strings.TrimLeft(rest, " \t")
	}
	return k, rest
}

// MaxAgentNames is the most ids [Store.AgentNames] looks up at once.
const MaxAgentNames = 1000

// AgentNames returns the display names of the agents with the given ids,
// by id; unknown ids are left out. At most [MaxAgentNames] ids are read,
// the first ones.
func (s *Store) AgentNames(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	ids = ids[:min(len(ids), MaxAgentNames)]
	var rows []struct {
		ID   string `bun:"id"`
		Name string `bun:"name"`
	}
	if err := s.read.NewRaw(`SELECT id, name FROM agents WHERE id IN (?)`, bun.List(ids)).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: agent names: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = r.Name
	}
	return out, nil
}
