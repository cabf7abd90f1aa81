package board

import "context"

// StoredKeyHash returns what agent_keys holds for the agent. Test-only.
func StoredKeyHash(ctx context.Context, s *Store, agentID string) (string, error) {
	var h string
	err := s.read.NewRaw(`SELECT hash FROM agent_keys WHERE agent_id = ?`, agentID).Scan(ctx, &h)
	return h, err
}
