package board

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Recorder is told, inside the writing transaction, of each change the
// board records that someone outside the board delivers (e-mail
// notifications, package notify): the board only appends what happened,
// and the recorder enqueues what follows from it through the same
// transaction, so that a change is acknowledged only with its deliveries
// stored. An error from Record rolls the change back. Record returns how
// many deliveries it queued.
//
// Record may read the board's tables through tx and write its own; it
// must not write the board's.
type Recorder interface {
	Record(ctx context.Context, tx bun.Tx, c Change) (queued int, err error)
}

// Filter, when a [Recorder] implements it, says which kinds of change it
// is told of; the others skip it (on PostgreSQL a new prediction then
// needs no transaction of its own).
type Filter interface {
	Wants(ChangeKind) bool
}

// ChangeKind names a change given to a [Recorder].
type ChangeKind string

// The changes a [Recorder] is told of.
const (
	// PredictionCreated: Change.Prediction was posted.
	PredictionCreated ChangeKind = "prediction_created"
	// ReplyCreated: Change.Reply was posted on the prediction titled
	// Change.Title.
	ReplyCreated ChangeKind = "reply_created"
	// PredictionResolved: Change.Prediction was resolved, or its
	// resolution corrected, by Change.By.
	PredictionResolved ChangeKind = "prediction_resolved"
	// PredictionClosed: Change.Prediction reached its scheduled close
	// and takes no more forecasts ([Store.AnnounceCloses] tells it, once).
	PredictionClosed ChangeKind = "prediction_closed"
)

// Change is what happened, as a [Recorder] is told. Only the fields of its
// Kind are set.
type Change struct {
	Kind ChangeKind
	At   time.Time // the time of the write

	Prediction *Prediction // PredictionCreated, PredictionResolved, PredictionClosed
	Reply      *Reply      // ReplyCreated
	Title      string      // ReplyCreated: the prediction's title
	By         string      // PredictionResolved: who resolved it
}

// SetRecorder makes r the store's [Recorder]: from then on it is told of
// each change that is delivered outside the board (new predictions,
// replies, resolutions, closes) inside the change's transaction. nil means none, the
// default. Call it before the store's first write: the recorder usually
// keeps its tables in the store's database ([Store.WriteDB]), so it is made
// after [Open].
func (s *Store) SetRecorder(r Recorder) { s.recorder = r }

// wants reports whether the recorder is told of changes of kind k.
func (s *Store) wants(k ChangeKind) bool {
	if s.recorder == nil {
		return false
	}
	f, ok := s.recorder.(Filter)
	return !ok || f.Wants(k)
}

// record tells the recorder of c, in tx, if it wants it.
func (s *Store) record(ctx context.Context, tx bun.Tx, c Change) (int, error) {
	if !s.wants(c.Kind) {
		return 0, nil
	}
	return s.recorder.Record(ctx, tx, c)
}

// WriteDB is the pool that writes the board's database (on SQLite its single
// connection), for a package that keeps tables of its own in the same
// database, such as the outbox: on SQLite it must write through this pool,
// so that its writes and the board's take turns instead of failing busy.
func (s *Store) WriteDB() *bun.DB { return s.write }

// ReadDB is the pool that reads the board's database (on PostgreSQL the
// same pool as [Store.WriteDB]), for a package that keeps tables of its own in
// the same database: its reads go there, so that on SQLite they do not
// wait for the single writer.
func (s *Store) ReadDB() *bun.DB { return s.read }
