//go:build !linux

package loadbench

import "os/exec"

func setDeathSignal(*exec.Cmd) {}

// raiseFileLimit is a no-op here: the limit is unknown (0).
func raiseFileLimit() (uint64, error) { return 0, nil }

func fileLimit(int) (uint64, bool) { return 0, false }
