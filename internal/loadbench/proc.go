package loadbench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// proc is a child process serving HTTP on a loopback port.
type proc struct {
	name string
	addr string // host:port
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // its exit error, once done
}

// freeAddr returns a loopback address with a port that was free a moment
// ago. Another process may take it before the child listens; start retries.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// start runs exe with args(addr) on a free port and waits until GET
// readyPath answers 200. The child's output is discarded. It retries on
// another port when the child exits before answering (the port was taken).
func start(ctx context.Context, name, exe string, args func(addr string) []string, readyPath string) (*proc, error) {
	var lastErr error
	for range 3 {
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, exe, args(addr)...)
		cmd.Stdout, cmd.Stderr = nil, nil // /dev/null: the benchmark discards the logs
		setDeathSignal(cmd)
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting %s: %w", name, err)
		}
		p := &proc{name: name, addr: addr, cmd: cmd, done: make(chan struct{})}
		go func() { p.err = cmd.Wait(); close(p.done) }()
		if err := p.waitReady(ctx, readyPath, 2*time.Minute); err != nil {
			p.stop()
			lastErr = err
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		return p, nil
	}
	return nil, fmt.Errorf("%s did not start: %w (run `%s %s` to see its log)", name, lastErr, exe, strings.Join(args("127.0.0.1:8080"), " "))
}

func (p *proc) url(path string) string { return "http://" + p.addr + path }

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) waitReady(ctx context.Context, path string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	c := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited: %v", p.name, p.err)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if resp, err := c.Get(p.url(path)); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer GET %s within %s", p.name, path, limit)
}

// stop asks the process to shut down (SIGINT) and kills it after a grace
// period. It returns the exit error of a process that did not stop cleanly.
func (p *proc) stop() error {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not stop within 20 s; killed", p.name)
	}
	var ee *exec.ExitError
	if p.err != nil && !errors.As(p.err, &ee) {
		return p.err
	}
	return nil
}

// Memory is a process's resident memory, from /proc/<pid>/status.
type Memory struct {
	// Process names the process: "serve, 1,000,000 predictions".
	Process string `json:"process"`
	// PeakRSSMB is the largest VmRSS sampled (every 50 ms) while it served.
	PeakRSSMB float64 `json:"peak_rss_mb"`
	// HWMMB is VmHWM, the kernel's high-water mark of RSS over the whole
	// life of the process, read at the end.
	HWMMB float64 `json:"hwm_mb"`
	// AfterMB is VmRSS after the last scenario.
	AfterMB float64 `json:"after_mb"`
	// Samples is the number of samples taken.
	Samples int `json:"samples"`
	// LimitMB is the goal: RSS stays under it. 0 means no goal.
	LimitMB float64 `json:"limit_mb,omitempty"`
	// Met reports whether HWMMB is under LimitMB; nil without a goal.
	Met *bool `json:"met,omitempty"`
}

// Sampler samples a process's RSS until finished: [SampleRSS] starts it.
type Sampler struct {
	pid  int
	stop chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	peak    float64
	samples int
}

// SampleRSS samples the VmRSS of process pid every 50 ms (from
// /proc/<pid>/status, so on Linux only) until Finish.
func SampleRSS(pid int) *Sampler {
	s := &Sampler{pid: pid, stop: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if st, err := readStatus(pid); err == nil {
				s.mu.Lock()
				s.peak = max(s.peak, st["VmRSS"])
				s.samples++
				s.mu.Unlock()
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// Finish stops sampling and reads VmHWM and VmRSS once more; process
// names the process in the result.
func (s *Sampler) Finish(process string) Memory {
	close(s.stop)
	s.wg.Wait()
	m := Memory{Process: process, PeakRSSMB: s.peak, Samples: s.samples}
	if st, err := readStatus(s.pid); err == nil {
		m.HWMMB, m.AfterMB = st["VmHWM"], st["VmRSS"]
		m.PeakRSSMB = max(m.PeakRSSMB, m.AfterMB)
	}
	return m
}

// readStatus reads the Vm* lines of /proc/<pid>/status, in MB.
func readStatus(pid int) (map[string]float64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || !strings.HasPrefix(k, "Vm") {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) == 2 && fs[1] == "kB" {
			if n, err := strconv.ParseFloat(fs[0], 64); err == nil {
				out[k] = n / 1024
			}
		}
	}
	return out, sc.Err()
}

// userHZ is the unit of the times in /proc/<pid>/stat: Linux reports
// them in USER_HZ, 100 per second on every architecture it runs on.
const userHZ = 100

// processCPU is the CPU time, user and system, that process pid has used,
// from fields 14 and 15 of /proc/<pid>/stat (after the command name,
// which is in parentheses and may hold spaces); false where there is no
// such file or pid is 0.
func processCPU(pid int) (time.Duration, bool) {
	if pid == 0 {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	fs := strings.Fields(string(b[i+1:])) // fs[0] is field 3, the state
	if len(fs) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fs[11], 10, 64)
	stime, err2 := strconv.ParseInt(fs[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / userHZ, true
}

// fetchProfile saves a CPU profile of seconds from a pprof endpoint.
func fetchProfile(ctx context.Context, pprofAddr string, seconds int, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", pprofAddr, seconds), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("pprof: %s: %s", resp.Status, b)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
