package mailbox

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
)

// Options configure a [Box]. The zero value is useful: inbound mail is
// matched on message IDs of any domain and no plus address, and nothing
// is told of registrations.
type Options struct {
	// From is the board's address, such as board@example.org, whose plus
	// addresses (board+<id>@example.org) name predictions in inbound
	// mail ([Box.ReceiveMail]); the zero value names none.
	From mail.Address
	// BaseURL is the public address of the service, such as
	// https://predictions.example.org, whose host names the
	// notifications' Message-IDs ([email.IDDomain]); "" means the domain
	// of From.
	BaseURL string
	// Recorder is told of registrations and unsubscriptions inside their
	// transactions ([Box.SetRecorder]); nil means none.
	Recorder Recorder
}

// Box keeps the agents' e-mail addresses in the board's database: their
// double opt-in, their subscriptions, their unsubscriptions, and the
// e-mail replies recorded on the board. It is safe for concurrent use.
type Box struct {
	store    *board.Store
	db       *bun.DB // the store's write pool
	from     mail.Address
	domain   string // right-hand side of the notifications' Message-IDs; "" for any
	recorder Recorder

	mu       sync.Mutex
	migrated bool
}

// Recorder is told, inside the transaction of a registration or an
// unsubscription, of what follows from it by e-mail (package notify
// queues the messages in the outbox there): the change commits only with
// its messages stored, and an error rolls it back.
type Recorder interface {
	// Registered queues the confirmation message of a registration and
	// reports whether it queued one.
	Registered(ctx context.Context, tx bun.Tx, at time.Time, p PendingAddress) (queued bool, err error)
	// Unsubscribed gives up the pending messages to an address that asked
	// for no more e-mail, spelled as each of addresses.
	Unsubscribed(ctx context.Context, tx bun.Tx, at time.Time, addresses []string) error
}

// PendingAddress is a registration waiting for its confirmation.
type PendingAddress struct {
	AgentID string
	// Kind is the forecaster's kind: [board.KindAgent] or
	// [board.KindPerson] (a person adding an address from their page).
	Kind        string
	Address     string // the bare address
	DisplayName string // "" when none was given
	// Token confirms the address once ([Box.ConfirmEmail]); only its
	// hash is stored, so this is the one chance to send it.
	Token string
	// UnsubscribeToken stops all e-mail to the address ([Box.Unsubscribe]).
	UnsubscribeToken string
	Expires          time.Time
}

// Open returns the box of the store's database and applies its pending
// migrations (taking over the tables a board made before the box had a
// package of its own).
//
// Errors: an error wrapping [board.ErrInvalid] for an unusable From or
// BaseURL; the database's error when it cannot migrate.
func Open(ctx context.Context, s *board.Store, opt Options) (*Box, error) {
	b, err := New(s, opt)
	if err != nil {
		return nil, err
	}
	if err := b.ready(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// New is [Open] without touching the database: the migrations are applied
// by the first method that needs them. For an adapter given only the
// store; a server calls Open, so that a schema failure stops it at start.
func New(s *board.Store, opt Options) (*Box, error) {
	b := &Box{store: s, db: s.WriteDB(), from: opt.From, recorder: opt.Recorder}
	if opt.From.Address != "" {
		d, err := email.IDDomain(opt.From.Address, strings.TrimRight(opt.BaseURL, "/"))
		if err != nil {
			return nil, fmt.Errorf("%w: Mail: %v", board.ErrInvalid, err)
		}
		b.domain = d
	}
	return b, nil
}

// SetRecorder makes r the box's [Recorder]; nil means none. Call it
// before the box's first write: the recorder usually keeps its tables in
// the store's database, so it is made after [Open].
func (b *Box) SetRecorder(r Recorder) { b.recorder = r }

// Migrate applies the box's pending migrations, once; every method that
// reads or writes does so first. Call it before a unit of work that may
// use the box (board's Store.Atomically): on SQLite the unit holds the
// only connection the migrations could use.
func (b *Box) Migrate(ctx context.Context) error { return b.ready(ctx) }

// ready applies the migrations once.
func (b *Box) ready(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.migrated {
		return nil
	}
	if err := migrateDB(ctx, b.db); err != nil {
		return err
	}
	b.migrated = true
	return nil
}

// Sentinel errors of the box, beside the board's ([board.ErrInvalid],
// [board.ErrNotFound], [board.ErrConflict]) that its checks share.
var (
	// ErrLimit: a cap on registrations or confirmation messages is
	// reached. The error is a *[LimitError].
	ErrLimit = errors.New("mailbox: limit reached")
	// ErrExpired: a confirmation token was used already or is past its
	// lifetime. The error is a *[board.ValidationError] on token.
	ErrExpired = errors.New("mailbox: token expired or used")
)

// isUniqueViolation reports a unique index violation on either database.
func isUniqueViolation(err error) bool {
	var pe pgdriver.Error
	if errors.As(err, &pe) {
		return pe.Field('C') == "23505"
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// distinct returns ss without repeats, in their first order.
func distinct(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
