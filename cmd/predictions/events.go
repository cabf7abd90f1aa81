package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/people"
)

// The board's event log in serve: how long it keeps events, how often a
// quiet stream sends a heartbeat, and the loop that announces scheduled
// closes and trims the log.

const (
	// closeEvery is how often serve appends the closes that came due
	// (board.Store.AnnounceCloses): the delay of a prediction.closed.
	closeEvery = 2 * time.Second
	// trimEvery is how often serve trims the log.
	trimEvery = time.Minute
)

// eventFlags declares --events-retention and --events-heartbeat.
func eventFlags(fs *flag.FlagSet, retention, heartbeat *string, env func(name, def string) string) {
	fs.StringVar(retention, "events-retention", env("PREDICTIONS_EVENTS_RETENTION", ""), "how long the board's event log keeps events (GET /api/events resumes within it,\n"+
		"older ids get 410), a `duration` of at least 1m such as 72h; empty means "+board.DefaultEventRetention.String()+" [PREDICTIONS_EVENTS_RETENTION]")
	fs.StringVar(heartbeat, "events-heartbeat", env("PREDICTIONS_EVENTS_HEARTBEAT", ""), "how often a quiet event stream sends a comment line, a `duration` such as 15s;\nempty means "+boardapi.DefaultHeartbeat.String()+" [PREDICTIONS_EVENTS_HEARTBEAT]")
}

// parseDuration reads an optional duration flag: "" is 0 (the default).
func parseDuration(name, s string, least time.Duration) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < least {
		return 0, fmt.Errorf("%s %q: give a duration of at least %s, such as %s, or leave it empty for the default", name, s, least, 30*least)
	}
	return d, nil
}

// runEventLog appends the closes that came due every closeEvery and trims
// the events older than retention (0: the default) every trimEvery, until
// ctx ends. Every replica runs it: the store makes each close appear
// once and trimming twice removes nothing twice.
func runEventLog(ctx context.Context, store *board.Store, retention time.Duration, log *slog.Logger) {
	closes := time.NewTicker(closeEvery)
	defer closes.Stop()
	trims := time.NewTicker(trimEvery)
	defer trims.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-closes.C:
			if _, err := store.AnnounceCloses(ctx); err != nil && ctx.Err() == nil {
				log.Warn("announcing closed predictions", "error", err.Error())
			}
		case <-trims.C:
			if n, err := store.TrimEvents(ctx, retention); err != nil && ctx.Err() == nil {
				log.Warn("trimming the event log", "error", err.Error())
			} else if n > 0 {
				log.Info("trimmed the event log", "events", n)
			}
		}
	}
}

// expireSessions removes the people's expired sessions and unfinished
// passkey ceremonies every trimEvery, a bounded batch at a time, until
// ctx ends. Every replica runs it; removing twice removes nothing twice.
func expireSessions(ctx context.Context, ppl *people.Store, log *slog.Logger) {
	t := time.NewTicker(trimEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := ppl.Expire(ctx, 1000); err != nil && ctx.Err() == nil {
				log.Warn("expiring people's sessions", "error", err.Error())
			}
		}
	}
}
