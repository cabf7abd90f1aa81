package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/internal/eventstream"
	"github.com/predictions-md/predictions/outbox"
)

// Reader is the fan-out's name among the outbox's readers.
const Reader = "webhooks"

// RetryFor is how long a delivery is retried after its first attempt,
// and how long an endpoint may fail before it is disabled: the Standard
// Webhooks specification's senders retry for about a day.
const RetryFor = 24 * time.Hour

// DefaultPoll is how often the fan-out reads the log without being woken.
const DefaultPoll = 5 * time.Second

// Board is what the fan-out reads of the board, its event log;
// *board.Store implements it.
type Board interface {
	Events(ctx context.Context, q board.EventQuery) (board.EventPage, error)
	EventsChanged() <-chan struct{}
}

// FanOut queues the deliveries of the board's events. Its fields are set
// before [FanOut.Run] or [FanOut.Step] and not changed after.
type FanOut struct {
	Board Board
	// Endpoints are the endpoints the events are matched to.
	Endpoints *Store
	Outbox    *outbox.Outbox
	// DB is the pool that writes the outbox's database: the board's
	// (board.Store.WriteDB), on SQLite its single writer.
	DB *bun.DB
	// Log receives what fails; nil means slog.Default().
	Log *slog.Logger
	// Poll is how often Run reads the log without being woken; 0 means
	// [DefaultPoll].
	Poll time.Duration
	// Queued, when set, is called after a step that queued deliveries
	// committed (a [Sender.Kick]).
	Queued func()
}

func (f *FanOut) log() *slog.Logger {
	if f.Log != nil {
		return f.Log
	}
	return slog.Default()
}

// MessageID is the webhook-id of the delivery of event to endpoint: the
// same for every attempt.
func MessageID(eventID int64, endpoint string) string {
	return "evt_" + strconv.FormatInt(eventID, 10) + "_" + endpoint
}

// Step queues the deliveries of the events after the position, a page
// at a time, each page in one transaction with the move of the
// position, until the log has no more. It returns how many it queued.
func (f *FanOut) Step(ctx context.Context) (int, error) {
	total := 0
	for {
		n, more, err := f.page(ctx)
		total += n
		if err != nil || !more {
			return total, err
		}
	}
}

// page queues the deliveries of one page of events, in a transaction
// that runs again when the database aborts it for a deadlock or a
// serialization failure ([database.RunInTx], as the board's writes).
func (f *FanOut) page(ctx context.Context) (queued int, more bool, err error) {
	err = database.RunInTx(ctx, f.DB, func(ctx context.Context, tx bun.Tx) error {
		queued, more = 0, false
		pos, err := f.Outbox.Position(ctx, tx, Reader)
		if err != nil {
			return err
		}
		hooks, err := f.Endpoints.ActiveWebhooks(ctx)
		if err != nil {
			return err
		}
		// A page's transaction writes at most about MaxFanOutRows rows
		// (one event, whatever its fan-out), so that it holds the
		// writer, on SQLite the board's only one, briefly.
		limit := board.MaxEventPage
		if len(hooks) > 0 {
			limit = max(1, min(limit, MaxFanOutRows/len(hooks)))
		}
		page, err := f.Board.Events(ctx, board.EventQuery{After: pos, Limit: limit})
		if errors.Is(err, board.ErrEventsTrimmed) {
			// The events after pos are gone (the reader stopped for longer
			// than the log keeps them): go on from the oldest kept.
			f.log().Warn("webhooks: events trimmed before they were delivered; going on from the oldest kept", "position", pos)
			page, err = f.Board.Events(ctx, board.EventQuery{After: 0, Limit: limit})
		}
		if err != nil {
			return err
		}
		if page.LastID == pos {
			return nil
		}
		var items []outbox.Item
		if len(page.Events) > 0 {
			for _, e := range page.Events {
				var payload []byte
				for _, h := range hooks {
					if !h.Wants(e) {
						continue
					}
					if payload == nil {
						if payload, err = json.Marshal(e); err != nil {
							return fmt.Errorf("webhooks: event %d: %w", e.ID, err)
						}
					}
					items = append(items, outbox.Item{Kind: outbox.Webhook, Topic: e.PredictionID, Ref: MessageID(e.ID, h.ID),
						Recipient: h.ID, Payload: payload, Seq: e.ID})
				}
			}
		}
		if _, err := f.Outbox.Enqueue(ctx, tx, items...); err != nil {
			return err
		}
		queued, more = len(items), page.HasMore
		return f.Outbox.SetPosition(ctx, tx, Reader, page.LastID)
	})
	if err != nil {
		return 0, false, fmt.Errorf("webhooks: fan-out: %w", err)
	}
	return queued, more, nil
}

// MaxFanOutRows bounds the deliveries one transaction of the fan-out
// queues, by the events it reads: as many as this many rows allow for
// the active endpoints, at least one.
const MaxFanOutRows = 1000

// MinGap is the least time between two fan-out steps that Run takes
// when woken by writes: a step is a write transaction (on SQLite the
// board's single writer), so a busy board's events are queued in batches
// at most this often instead of one transaction per write.
const MinGap = 25 * time.Millisecond

// Run queues deliveries at once, then whenever the board says events
// were appended (at most once per [MinGap]) and every Poll, until ctx is
// done. While no endpoint is active it takes no step on a wake, only
// every Poll, which keeps the position near the log's head without a
// transaction per write: an endpoint gets only the events committed
// after its registration ([Webhook.Wants]), and the first wake
// after it is registered queues them. Failures are logged and tried
// again at the next wake.
func (f *FanOut) Run(ctx context.Context) {
	poll := f.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	step := func(ctx context.Context, _ int64) (int64, bool, error) {
		n, err := f.Step(ctx) // the position is the outbox's, moved with each page
		if err != nil && ctx.Err() == nil {
			f.log().Error("webhooks: queueing deliveries", "error", err.Error())
		}
		if n > 0 && f.Queued != nil {
			f.Queued()
		}
		return 0, false, nil
	}
	// A write right after a step waits for the rest of MinGap, so that
	// the writes of a busy moment go in one step; a write after a quiet
	// spell is queued at once.
	_ = eventstream.Follow(ctx, 0, step, eventstream.FollowOptions{
		Wake: f.Board.EventsChanged, Poll: poll, MinGap: MinGap, Woken: f.anyActive})
}

// anyActive says whether an endpoint is active; on a failure to read
// them it says yes, so that the step runs and reports the failure.
func (f *FanOut) anyActive(ctx context.Context) bool {
	hooks, err := f.Endpoints.ActiveWebhooks(ctx)
	return err != nil || len(hooks) > 0
}
