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
// the domain's predictions ("" for all), from its running sums
// (community_sums); nil when it has none scored.
func communityRecord(ctx context.Context, db bun.IDB, m pool.Method, domain string, out **CommunityRecord) error {
	var rows []struct {
		N        int     `bun:"scored"`
		Peer     float64 `bun:"peer_sum"`
		PeerSq   float64 `bun:"peer_sq_sum"`
		Baseline float64 `bun:"baseline_sum"`
		Brier    float64 `bun:"fbrier_sum"`
		Log      float64 `bun:"flog_sum"`
		Coverage float64 `bun:"coverage_sum"`
	}
	if err := db.NewRaw(`SELECT `+scoreSumCols+` FROM community_sums WHERE method = ? AND domain = ?`, string(m), domain).Scan(ctx, &rows); err != nil {
		return err
	}
	*out = nil
	if len(rows) == 0 || rows[0].N <= 0 {
		return nil
	}
	r := rows[0]
	n := float64(r.N)
	*out = &CommunityRecord{Method: m, Scored: r.N, PeerScore: r.Peer / n, BaselineScore: r.Baseline / n,
		ForecastBrier: clamp01(r.Brier / n), LogScore: min(r.Log/n, 0),
		Skill: scoring.SkillFromSums(r.N, r.Peer, r.PeerSq, r.Coverage)}
	return nil
}
