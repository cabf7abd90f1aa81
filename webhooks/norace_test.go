//go:build !race

package webhooks_test

// raceDetector: the race detector slows the process several times, so
// timing goals loosen under it.
const raceDetector = false
