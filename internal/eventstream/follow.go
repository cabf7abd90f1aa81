package eventstream

import (
	"context"
	"time"
)

// DefaultPoll is how often [Follow] reads the log without being woken,
// when [FollowOptions.Poll] is 0.
const DefaultPoll = 5 * time.Second

// ReadFunc reads and handles a page of an ordered log: the entries after
// the id after, oldest first. It returns the id of the last entry it read
// (after itself when there was none) and whether the log holds more after
// that. A reader that keeps its own position (in a database, in the same
// transaction as what it does with the page) may ignore after and return
// 0.
type ReadFunc func(ctx context.Context, after int64) (last int64, more bool, err error)

// FollowOptions configure [Follow]. The zero value reads every
// [DefaultPoll] and never on a wake.
type FollowOptions struct {
	// Wake returns a channel that is closed once the log grows after the
	// call. Follow takes it before each read, so that an entry appended
	// during the read ends the wait after it. Nil means only the poll.
	Wake func() <-chan struct{}
	// Poll is how long Follow waits without reading before it reads
	// anyway (a wake from another process may be lost); 0 means
	// [DefaultPoll].
	Poll time.Duration
	// MinGap is the least time between the end of a read and the read
	// that a wake starts: the appends of a busy moment are read in one
	// batch instead of one read each. 0 reads at once on every wake.
	MinGap time.Duration
	// Woken, when set, is asked after a wake whether to read. A follower
	// with nothing to do for now (no one to deliver to) says no, and the
	// log is read at the next poll. Nil means always.
	Woken func(ctx context.Context) bool
	// Beat, when set, is called every BeatEvery (which must then be
	// positive) while Follow waits, without ending the wait: a stream's
	// heartbeat.
	Beat      func()
	BeatEvery time.Duration
}

// Follow follows an ordered log until ctx is done or read fails: it calls
// read with after, then with the last id each read returns, at once while
// read says the log holds more; then it waits for a wake, the poll or the
// end of ctx, and reads again. It returns ctx's error, or the first error
// of read: a reader that should go on after a failure logs it and returns
// no error, and the next wake or poll reads again.
//
// The first read is at once.
func Follow(ctx context.Context, after int64, read ReadFunc, opt FollowOptions) error {
	poll := opt.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	pollTimer := time.NewTimer(poll)
	defer pollTimer.Stop()
	var beat <-chan time.Time
	if opt.Beat != nil {
		t := time.NewTicker(opt.BeatEvery)
		defer t.Stop()
		beat = t.C
	}
	due := true // read without asking Woken: the first read, a poll, the next page
	for {
		var wake <-chan struct{}
		if opt.Wake != nil {
			wake = opt.Wake() // before the read: an append during it ends the wait below
		}
		if due || opt.Woken == nil || opt.Woken(ctx) {
			last, more, err := read(ctx, after)
			if err != nil {
				return err
			}
			after = last
			pollTimer.Reset(poll)
			if more {
				due = true
				continue
			}
		}
		ended := time.Now()
		due = false
	wait:
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-wake:
				if err := sleepUntil(ctx, ended.Add(opt.MinGap)); err != nil {
					return err
				}
				break wait
			case <-pollTimer.C:
				due = true
				break wait
			case <-beat:
				opt.Beat()
			}
		}
	}
}

// sleepUntil waits until t or the end of ctx.
func sleepUntil(ctx context.Context, t time.Time) error {
	wait := time.Until(t)
	if wait <= 0 {
		return nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
