package loadbench

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/predictions-md/predictions/board"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// seedBatch is the number of predictions per committed transaction.
const seedBatch = 10_000

// seedChunk is the number of rows of one multi-row INSERT: 500 rows of 15
// values stay well under SQLite's limit of 32,766 bound variables.
const seedChunk = 500

// seedAgents is the number of agents the seeded predictions come from.
const seedAgents = 2000

// seed adds predictions from..to-1 to the SQLite board at path. board.Open
// creates the board's schema (its migrations), then the rows go in with
// plain SQL in batches of seedBatch per durable transaction: the
// predictions with their reaction and reply counts, their agents with
// their counters and first and last seen times, and each domain's
// counters, as the server's own writes would leave them (the replies
// count as plain; no reaction or reply rows are stored). The board
// package offers no bulk import: seeding is the benchmark's business, and
// TestSeedReadsBack checks the rows against board.Store.Feed so that a
// change of schema fails a test.
//
// The data is deterministic: prediction i is made 30 s after prediction
// i-1, by one of seedAgents agents, in a domain drawn with uneven weights
// (so that the domain filter sees both common and rare domains), with a
// confidence from 0.01 to 0.99 and a popularity that is 0 for most
// predictions and large for few (reactions and replies drawn from a
// geometric distribution).
func seed(ctx context.Context, path string, from, to int) error {
	s, err := board.Open(ctx, path, board.Options{})
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	db, err := openSQLite(path)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]board.Prediction, 0, seedBatch)
	for i := from; i < to; {
		batch = batch[:0]
		for ; i < to && len(batch) < seedBatch; i++ {
			batch = append(batch, seedPrediction(i, start))
		}
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return insertSeed(ctx, tx, batch) }); err != nil {
			return fmt.Errorf("seeding predictions %d to %d: %w", i-len(batch), i, err)
		}
	}
	return db.Close()
}

// openSQLite opens the board's SQLite database at path with the board's
// durability settings (WAL, synchronous=FULL, immediate transactions,
// foreign keys) through one connection.
func openSQLite(path string) (*bun.DB, error) {
	params := url.Values{}
	params.Add("_pragma", "busy_timeout(10000)")
	params.Add("_pragma", "journal_mode(WAL)")
	params.Add("_pragma", "synchronous(FULL)")
	params.Add("_pragma", "foreign_keys(1)")
	sqldb, err := sql.Open(sqliteshim.ShimName, path+"?"+params.Encode()+"&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	sqldb.SetMaxOpenConns(1)
	sqldb.SetMaxIdleConns(1)
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}

// seedAgent sums one agent's seeded predictions.
type seedAgent struct {
	first, last time.Time
	predictions int
}

// seedDomain sums one domain's seeded predictions.
type seedDomain struct{ predictions, reactions, replies, threads int }

// insertSeed stores ps, their agents' and their domains' counters in tx.
func insertSeed(ctx context.Context, tx bun.Tx, ps []board.Prediction) error {
	agents, domains := map[string]*seedAgent{}, map[string]*seedDomain{}
	var agentOrder, domainOrder []string // first-seen order, for a stable upsert order
	for _, p := range ps {
		a := agents[p.AgentID]
		if a == nil {
			a = &seedAgent{first: p.CreatedAt, last: p.CreatedAt}
			agents[p.AgentID] = a
			agentOrder = append(agentOrder, p.AgentID)
		}
		a.predictions++
		a.first, a.last = minTime(a.first, p.CreatedAt), maxTime(a.last, p.CreatedAt)
		d := domains[p.Domain]
		if d == nil {
			d = &seedDomain{}
			domains[p.Domain] = d
			domainOrder = append(domainOrder, p.Domain)
		}
		d.predictions++
		d.reactions += p.Reactions.Agree + p.Reactions.Disagree + p.Reactions.Uncertain
		d.replies += p.Replies
		if p.Replies > 0 {
			d.threads++
		}
	}
	for _, id := range agentOrder {
		a := agents[id]
		if _, err := tx.ExecContext(ctx, `INSERT INTO agents AS a (id, name, first_seen, last_seen, predictions, forecasts)
	VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET
	first_seen = min(a.first_seen, excluded.first_seen),
	last_seen = max(a.last_seen, excluded.last_seen),
	predictions = a.predictions + excluded.predictions,
	forecasts = a.forecasts + excluded.forecasts`,
			id, id, a.first, a.last, a.predictions, a.predictions); err != nil {
			return err
		}
	}
	for lo := 0; lo < len(ps); lo += seedChunk {
		var b strings.Builder
		b.WriteString(`INSERT INTO predictions
	(id, agent_id, title, body, confidence, timeframe, domain, created_at, agree, disagree, uncertain, replies, replies_plain, popularity)
	VALUES `)
		chunk := ps[lo:min(lo+seedChunk, len(ps))]
		args := make([]any, 0, len(chunk)*14)
		for i, p := range chunk {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			rc := p.Reactions
			args = append(args, p.ID, p.AgentID, p.Title, p.Body, p.Confidence, p.Timeframe, p.Domain, p.CreatedAt,
				rc.Agree, rc.Disagree, rc.Uncertain, p.Replies, p.Replies, p.Popularity)
		}
		if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
			return err
		}
	}
	// Each prediction's author forecast its confidence, as CreatePrediction
	// records it: one standing, one history row and the community of that
	// one forecast (exactly its p, for every pooling method; the seeded
	// confidences are 1% to 99%, inside the clipping bounds).
	for _, q := range []string{
		`INSERT INTO standings (prediction_id, agent_id, forecast_id, p, first_at, updated_at)
	SELECT p.id, p.agent_id, p.id, p.confidence, p.created_at, p.created_at FROM predictions AS p WHERE p.forecasters = 0`,
		`UPDATE predictions SET community_geo = confidence, community_mean = confidence, community_median = confidence,
	forecasters = 1, community_spread = 0, community_disagree = 0, community_notes = '[]', community_updated_at = created_at
	WHERE forecasters = 0`,
		`INSERT INTO forecasts
	(id, prediction_id, agent_id, seq, p, note, created_at, community_geo, community_mean, community_median, forecasters)
	SELECT p.id, p.id, p.agent_id, 1, p.confidence, '', p.created_at, p.community_geo, p.community_mean, p.community_median, p.forecasters
	FROM predictions AS p WHERE NOT EXISTS (SELECT 1 FROM forecasts AS f WHERE f.prediction_id = p.id)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	for _, name := range domainOrder {
		d := domains[name]
		if _, err := tx.ExecContext(ctx, `INSERT INTO domain_counts AS c (domain, predictions, replies, reactions, threads)
	VALUES (?, ?, ?, ?, ?)
	ON CONFLICT (domain, shard) DO UPDATE SET
	predictions = c.predictions + excluded.predictions,
	replies = c.replies + excluded.replies,
	reactions = c.reactions + excluded.reactions,
	threads = c.threads + excluded.threads`,
			name, d.predictions, d.replies, d.reactions, d.threads); err != nil {
			return err
		}
	}
	return nil
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

// domainWeights makes the first domains common and the last ones rare.
var domainWeights = []int{20, 14, 12, 10, 9, 8, 7, 6, 5, 3, 3, 2, 1}

// seedPrediction is prediction i of the seed, as the feed reads it back.
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
	agent := fmt.Sprintf("seed-agent-%d", rng.IntN(seedAgents))
	p := board.Prediction{
		ID:        id.String(),
		AgentID:   agent,
		AgentName: agent,
		Title:     fmt.Sprintf("Question %d resolves yes before the end of the quarter", i),
		Body: "Seeded prediction with a body of typical length: the reasoning starts from the base rate of similar events, " +
			"then adjusts for the news of the week and the track record of the people involved.",
		Confidence: float64(1+rng.IntN(99)) / 100,
		Timeframe:  "Q" + fmt.Sprint(1+i%4) + " 2026",
		Domain:     domain,
		CreatedAt:  created,
		OpensAt:    created,
		Status:     board.StatusOpen,
		Flags:      []string{},
	}
	if rng.IntN(4) == 0 { // a quarter of the predictions see any activity
		p.Reactions = board.ReactionCounts{Agree: geo(0.3), Disagree: geo(0.5), Uncertain: geo(0.7)}
		p.Replies = geo(0.4)
		p.ReplyKinds.Plain = p.Replies
		p.Popularity = p.Reactions.Agree + p.Reactions.Disagree + p.Reactions.Uncertain + p.Replies
	}
	return p
}

// seedVersion names the seed data; change it when seedPrediction changes,
// so that boards kept in SeedDir are made anew.
const seedVersion = "v1"

// seed returns a board holding predictions 0 to to-1: a copy of the board
// at from (holding 0 to have-1) when from is set, then seeded. With
// SeedDir, a board seeded there by an earlier run is reused.
func (r *runner) seed(ctx context.Context, from string, have, to int) (string, error) {
	return r.keep(fmt.Sprintf("feed-%d-%s.db", to, seedVersion), thousands(float64(to))+" predictions", func(path string) error {
		if from != "" {
			if err := copyFile(from, path); err != nil {
				return err
			}
		} else {
			have = 0
		}
		return seed(ctx, path, have, to)
	})
}

// copyFile copies a closed SQLite database (its WAL checkpointed) to dst.
func copyFile(src, dst string) error {
	if fi, err := os.Stat(src + "-wal"); err == nil && fi.Size() > 0 {
		return fmt.Errorf("copying %s: its write-ahead log is not checkpointed", src)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
