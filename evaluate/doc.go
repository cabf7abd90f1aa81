// Package evaluate measures how well each pool of package pool would have
// served as a question's community forecast, by replaying forecast files
// in time order: after every forecast, it pools the standing forecasts by
// every method of [pool.Methods], with each forecaster's skill as it was
// known at that moment, and scores the community forecasts once the
// question resolved. It is what `predictions evaluate` prints, so that
// anyone can rerun the evaluation behind the board's default pool
// (docs/POOLS.md gives the command and its output).
//
// It imports only the standard library and the module's forecastfile,
// pool and scoring packages.
//
//	rep, err := evaluate.Run([]*forecastfile.File{f}, evaluate.Options{Warmup: 0.5})
//	if err != nil { … }
//	rep.WriteText(os.Stdout)
//
// # Rules
//
// [Run] documents the replay: which questions and forecasts count, how a
// forecaster's skill at a moment comes from the questions closed before
// it ([scoring.History]), and how the standing forecasts are pooled.
// [Scores] says how a pool's community forecasts are scored, at the close
// and time-averaged over the question's life, and [Gain] how a pool is
// compared with the median and with recency (Metaculus's community
// prediction), with a paired bootstrap interval over questions. The
// bootstrap is seeded ([Options.Seed]), so a report is the same on every
// run.
//
// # Warmup
//
// Skills need a history. With [Options.Warmup] F, the earliest fraction F
// of the questions by actual close feed the skills and are not scored; the
// scores are over the rest. That is how pool's constants were chosen: on
// the earlier half of PredictionBook's questions with F = 0.5, the later
// half kept aside to check them.
package evaluate
