package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/uptrace/bun"
)

// DumpQuery selects the predictions of [Store.Dump]: as [FeedQuery]
// selects and orders them (Domain, Sort, Offset), except that Limit 0
// means every prediction and a Limit above [MaxLimit] is not clamped.
type DumpQuery struct {
	// Domain keeps the predictions of one of [Domains]; "" keeps all.
	Domain string
	// Sort orders them as the feed does; "" is [SortRecent].
	Sort Sort
	// Limit is the most predictions to read; 0 reads every one.
	Limit int
	// Offset skips this many first.
	Offset int
}

// DumpedPrediction is a prediction of a [Dump] with every forecast,
// oldest first. Its Status is as [Store.Feed] gives it: closed for an
// open prediction past its close_at.
type DumpedPrediction struct {
	Prediction
	Forecasts []Forecast
	// Kinds[i] is the kind of Forecasts[i]'s forecaster, [KindAgent] or
	// [KindPerson].
	Kinds []string
}

// Dump is the predictions a [DumpQuery] selects, read from one snapshot
// of the board: it holds a read transaction until [Dump.Close].
type Dump struct {
	ctx  context.Context
	tx   bun.Tx
	v    view
	rows []predictionRow
}

// Dump selects the predictions q names and reads them from one snapshot,
// for a translation that writes the board out whole (package boardfile
// writes a forecast file). The predictions are read at once, each one's
// forecasts as [Dump.Predictions] reaches it. Close the Dump when done.
//
// Errors: a *[ValidationError] for an unknown domain or sort or a
// negative limit or offset; otherwise the database's. Only reading a
// prediction's forecasts fails later, in [Dump.Predictions].
func (s *Store) Dump(ctx context.Context, q DumpQuery) (*Dump, error) {
	by, err := parseSort(q.Sort)
	if err != nil {
		return nil, err
	}
	domain := ""
	if q.Domain != "" {
		if domain, err = canonicalDomain("domain", q.Domain); err != nil {
			return nil, err
		}
	}
	if q.Limit < 0 {
		return nil, invalid("limit", fmt.Sprintf("is %d; it cannot be negative", q.Limit), "send a positive number, or 0 (or nothing) for every prediction")
	}
	if q.Offset < 0 {
		return nil, invalid("offset", fmt.Sprintf("is %d; it cannot be negative", q.Offset), "send 0 to start at the first prediction")
	}
	limit := int64(q.Limit)
	if limit == 0 {
		limit = math.MaxInt64
	}
	opt := &sql.TxOptions{}
	if s.pg {
		opt = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	tx, err := s.read.BeginTx(ctx, opt)
	if err != nil {
		return nil, fmt.Errorf("board: export: %w", err)
	}
	where, args := s.where(feedFilter{sort: by, domain: domain}, nil)
	query := `SELECT ` + predictionCols + ` FROM predictions AS p` + where + ` ORDER BY ` + feedOrder[by] + ` LIMIT ? OFFSET ?`
	d := &Dump{ctx: ctx, tx: tx, v: s.view()}
	if err := tx.NewRaw(query, append(args, limit, q.Offset)...).Scan(ctx, &d.rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
		_ = tx.Rollback()
		return nil, fmt.Errorf("board: export: %w", err)
	}
	return d, nil
}

// Len is the number of predictions of d.
func (d *Dump) Len() int { return len(d.rows) }

// Predictions yields d's predictions in order, each with its forecasts;
// an error reading a prediction's forecasts is yielded once and ends it.
func (d *Dump) Predictions() iter.Seq2[DumpedPrediction, error] {
	return func(yield func(DumpedPrediction, error) bool) {
		for _, r := range d.rows {
			var fcs []struct {
				forecastRow
				Kind string `bun:"kind"`
			}
			if err := d.tx.NewRaw(`SELECT `+forecastCols+`, (SELECT a.kind FROM agents AS a WHERE a.id = f.agent_id) AS kind
	FROM forecasts AS f WHERE f.prediction_id = ? ORDER BY f.seq`, r.ID).Scan(d.ctx, &fcs); err != nil && !errors.Is(err, sql.ErrNoRows) {
				yield(DumpedPrediction{}, fmt.Errorf("board: export: forecasts of %s: %w", r.ID, err))
				return
			}
			p := DumpedPrediction{Prediction: r.prediction(d.v), Forecasts: make([]Forecast, len(fcs)), Kinds: make([]string, len(fcs))}
			for i, f := range fcs {
				p.Forecasts[i], p.Kinds[i] = f.forecast(d.v), f.Kind
			}
			if !yield(p, nil) {
				return
			}
		}
	}
}

// Close ends d's read transaction.
func (d *Dump) Close() error {
	err := d.tx.Rollback() // read only: nothing to undo
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}
