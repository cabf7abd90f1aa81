package loadbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	"github.com/predictions-md/predictions/board"
)

// seedBatch is the number of predictions per Import call (one transaction).
const seedBatch = 10_000

// seedAgents is the number of agents the seeded predictions come from.
const seedAgents = 2000

// seed adds predictions from..to-1 to the SQLite board at path with
// board.Import: the fastest honest way to fill a board, since the rows and
// every counter the feed reads are written as the server's own writes
// would leave them, in batches of seedBatch per durable transaction. The
// data is deterministic: prediction i is made 30 s after prediction i-1,
// by one of seedAgents agents, in a domain drawn with uneven weights (so
// that the domain filter sees both common and rare domains), with a
// confidence from 0.01 to 0.99 and a popularity that is 0 for most
// predictions and large for few (reactions and replies drawn from a
// geometric distribution).
func seed(ctx context.Context, path string, from, to int) error {
	s, err := board.Open(ctx, path, board.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]board.Prediction, 0, seedBatch)
	for i := from; i < to; {
		batch = batch[:0]
		for ; i < to && len(batch) < seedBatch; i++ {
			batch = append(batch, seedPrediction(i, start))
		}
		if err := s.Import(ctx, batch); err != nil {
			return fmt.Errorf("seeding predictions %d to %d: %w", i-len(batch), i, err)
		}
	}
	return s.Close()
}

// domainWeights makes the first domains common and the last ones rare.
var domainWeights = []int{20, 14, 12, 10, 9, 8, 7, 6, 5, 3, 3, 2, 1}

func seedPrediction(i int, start time.Time) board.Prediction {
	rng := rand.New(rand.NewPCG(uint64(i), 0x5eed))
	total := 0
	for _, w := range domainWeights {
		total += w
	}
	pick, domain := rng.IntN(total), ""
	for d, w := range domainWeights {
		if pick < w {
			domain = benchDomains[d]
			break
		}
		pick -= w
	}
	created := start.Add(time.Duration(i) * 30 * time.Second)
	// A v7 UUID whose time is the creation time, as the board makes them.
	var id uuid.UUID
	ms := uint64(created.UnixMilli())
	for b := range 6 {
		id[b] = byte(ms >> (40 - 8*b))
	}
	for b := 6; b < 16; b++ {
		id[b] = byte(rng.Uint32())
	}
	id[6] = 0x70 | id[6]&0x0f
	id[8] = 0x80 | id[8]&0x3f
	geo := func(p float64) int { // failures before the first success
		n := 0
		for rng.Float64() > p && n < 500 {
			n++
		}
		return n
	}
	p := board.Prediction{
		ID:      id.String(),
		AgentID: fmt.Sprintf("seed-agent-%d", rng.IntN(seedAgents)),
		Title:   fmt.Sprintf("Question %d resolves yes before the end of the quarter", i),
		Body: "Seeded prediction with a body of typical length: the reasoning starts from the base rate of similar events, " +
			"then adjusts for the news of the week and the track record of the people involved.",
		Confidence: float64(1+rng.IntN(99)) / 100,
		Timeframe:  "Q" + fmt.Sprint(1+i%4) + " 2026",
		Domain:     domain,
		CreatedAt:  created,
	}
	if rng.IntN(4) == 0 { // a quarter of the predictions see any activity
		p.Reactions = board.ReactionCounts{Agree: geo(0.3), Disagree: geo(0.5), Uncertain: geo(0.7)}
		p.Replies = geo(0.4)
		p.Popularity = p.Reactions.Agree + p.Reactions.Disagree + p.Reactions.Uncertain + p.Replies
	}
	return p
}
