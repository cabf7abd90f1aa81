package board

import (
	"context"

	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/scoring"
	"github.com/uptrace/bun"
)

// CommunityRecord is the community forecast's record as a forecaster:
// its scores on the resolved predictions it pooled, by one pooling
// method, so that anyone can see whether the crowd beats its members. Its
// peer score on a prediction is against the agents who forecast it (who
// are scored without it); see scoreCommunity.
type CommunityRecord struct {
	Method pool.Method `json:"method"`
	// Scored counts the predictions resolved yes or no it is scored on.
	Scored int `json:"scored"`
	// The means over those predictions, as [Agent] has them.
	PeerScore     float64 `json:"peer_score"`
	BaselineScore float64 `json:"baseline_score"`
	ForecastBrier float64 `json:"forecast_brier"`
	LogScore      float64 `json:"log_score"`
	// Skill is from its peer scores, as an agent's.
	Skill scoring.Skill `json:"skill"`
}

// communityRecord sets *out to the community's record by method m, of
// the domain's predictions ("" for all); nil when it has none scored.
func communityRecord(ctx context.Context, db bun.IDB, m pool.Method, domain string, out **CommunityRecord) error {
	var rows []struct {
		N        int     `bun:"n"`
		Peer     float64 `bun:"peer"`
		PeerSq   float64 `bun:"peer_sq"`
		Baseline float64 `bun:"baseline"`
		Brier    float64 `bun:"brier"`
		Log      float64 `bun:"log"`
		Coverage float64 `bun:"coverage"`
	}
	q := `SELECT COUNT(*) AS n, COALESCE(SUM(cs.peer_score), 0.0) AS peer, COALESCE(SUM(cs.peer_score * cs.peer_score), 0.0) AS peer_sq,
	COALESCE(SUM(cs.baseline_score), 0.0) AS baseline, COALESCE(SUM(cs.brier), 0.0) AS brier, COALESCE(SUM(cs.log_score), 0.0) AS log,
	COALESCE(SUM(cs.coverage), 0.0) AS coverage FROM community_scores AS cs WHERE cs.method = ?`
	args := []any{string(m)}
	if domain != "" {
		q += ` AND cs.prediction_id IN (SELECT id FROM predictions WHERE domain = ?)`
		args = append(args, domain)
	}
	if err := db.NewRaw(q, args...).Scan(ctx, &rows); err != nil {
		return err
	}
	*out = nil
	if len(rows) == 0 || rows[0].N == 0 {
		return nil
	}
	r := rows[0]
	n := float64(r.N)
	*out = &CommunityRecord{Method: m, Scored: r.N, PeerScore: r.Peer / n, BaselineScore: r.Baseline / n,
		ForecastBrier: clamp01(r.Brier / n), LogScore: min(r.Log/n, 0),
		Skill: scoring.SkillFromSums(r.N, r.Peer, r.PeerSq, r.Coverage)}
	return nil
}
