package webhooks

import (
	"context"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/database"
)

// Store keeps the agents' webhook endpoints in tables of its own in the
// board's database ([board.Store.WriteDB]), migrated by their own set
// ([Open]).
type Store struct {
	write, read *bun.DB
	pg          bool
	now         func() time.Time
	board       *board.Store
	notifier    Notifier
	maxActive   int
}

// Notifier is told, in the transaction that disables an endpoint
// ([Store.DisableWebhook]), that it was disabled, so that its owner is
// told (package notify queues an e-mail to the agent's confirmed
// address). w is the endpoint as disabled, without its secret; at is the
// time of the change. An error rolls the change back. It returns how
// many deliveries it queued.
type Notifier interface {
	WebhookDisabled(ctx context.Context, tx bun.Tx, w Webhook, at time.Time) (queued int, err error)
}

// Options configure [Open]. The zero value is a store that tells nobody
// of a disabled endpoint and reads the real clock.
type Options struct {
	// Now is the clock of the records (created_at, disabled_at); nil
	// means time.Now.
	Now func() time.Time
	// Notifier, when set, is told of each endpoint disabled.
	Notifier Notifier
	// MaxActive bounds the active endpoints of the board, and so the
	// deliveries one event makes: a registration beyond it is refused
	// ([ErrWebhookCap]); 0 means [DefaultMaxActive].
	MaxActive int
}

// Open returns the endpoints of the board b, in its database, after
// applying their pending migrations: on a board whose own migrations
// created the endpoints' table (before it moved here), the first takes
// it over as it is.
func Open(ctx context.Context, b *board.Store, opt Options) (*Store, error) {
	s := &Store{write: b.WriteDB(), read: b.ReadDB(), pg: b.WriteDB().Dialect().Name() == dialect.PG, now: opt.Now, board: b, notifier: opt.Notifier,
		maxActive: opt.MaxActive}
	if s.maxActive <= 0 {
		s.maxActive = DefaultMaxActive
	}
	if s.now == nil {
		s.now = time.Now
	}
	if err := migrateDB(ctx, s.write); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Store) clock() time.Time {
	return s.now().UTC().Truncate(time.Microsecond)
}

func (s *Store) forUpdate() string {
	if s.pg {
		return " FOR UPDATE"
	}
	return ""
}

// inTx runs fn in a write transaction of the board's pool, the retrying
// transaction of every store (database.RunInTx): it joins the unit of
// work ctx carries, and its error is classified.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	return database.RunInTx(ctx, s.write, fn)
}
