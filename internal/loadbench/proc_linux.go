package loadbench

import (
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// setDeathSignal kills the child when the benchmark dies, so that no
// server outlives an interrupted run.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// raiseFileLimit raises this process's soft limit on open files to its
// hard limit (the Go runtime does so at start since Go 1.19; this says
// so, and checks) and returns the soft limit then in force.
func raiseFileLimit() (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			return 0, err
		}
	}
	return l.Cur, nil
}

// fileLimit is the soft limit on open files of process pid, from
// /proc/<pid>/limits; ok is false when it cannot be read.
func fileLimit(pid int) (n uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, found := strings.CutPrefix(line, "Max open files"); found {
			f := strings.Fields(rest)
			if len(f) > 0 {
				if f[0] == "unlimited" {
					return math.MaxUint64, true
				}
				n, err := strconv.ParseUint(f[0], 10, 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}
