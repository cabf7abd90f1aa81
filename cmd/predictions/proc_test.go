package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/database/databasetest"
)

// The tests in crash_test.go, shutdown_test.go and slowclient_test.go run
// the real binary: built once for the package (TestMain removes it), started
// on a fresh database per test, stopped by signals.

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

func TestMain(m *testing.M) {
	if err := databasetest.CheckPostgresEnv(os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildSQLExec builds testdata/sqlexec (without the race detector) once,
// next to the binary, and returns its path.
func buildSQLExec(t *testing.T) string {
	t.Helper()
	bin := buildBinary(t)
	sqlexec.once.Do(func() {
		sqlexec.bin = filepath.Join(filepath.Dir(bin), "sqlexec")
		sqlexec.out, sqlexec.err = exec.Command("go", "build", "-o", sqlexec.bin, "./testdata/sqlexec").CombinedOutput()
	})
	if sqlexec.err != nil {
		t.Fatalf("go build ./testdata/sqlexec: %v\n%s", sqlexec.err, sqlexec.out)
	}
	return sqlexec.bin
}

var sqlexec struct {
	once sync.Once
	bin  string
	err  error
	out  []byte
}

// buildBinary builds this command once into a temporary directory and
// returns its path; every test that runs the binary shares it.
func buildBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH to build the binary: %v", err)
	}
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "predictions-test-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "predictions")
		built.out, built.err = exec.Command(goTool, "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// proc is a running server process.
type proc struct {
	cmd  *exec.Cmd
	addr string // host:port it listens on
	logs *syncBuffer
	done chan struct{} // closed when the process has exited
	err  error         // cmd.Wait's result, once done is closed
}

var readyRE = regexp.MustCompile(`ready addr=(\S+)`)

// startServer starts `predictions serve` on db (a SQLite file or a
// postgres:// URL) on a free loopback port and waits until it is ready.
// The process is killed at the end of the test if it still runs. Rate
// limits are off: these tests load the server from one address on purpose
// (the limits have their own tests in httpapi).
func startServer(t *testing.T, bin, db string, args ...string) *proc {
	t.Helper()
	return startServerEnv(t, bin, db, nil, args...)
}

// startServerEnv is startServer with env (KEY=value) added to the
// process's environment.
func startServerEnv(t *testing.T, bin, db string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{logs: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--rate-limit", "off"}, args...)...)
	p.cmd.Env = append(cleanEnv(), env...)
	p.cmd.Stdout = p.logs
	p.cmd.Stderr = p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	deadline := time.After(60 * time.Second)
	for p.addr == "" {
		if m := readyRE.FindStringSubmatch(p.logs.String()); m != nil {
			p.addr = m[1]
			break
		}
		select {
		case <-p.done:
			t.Fatalf("server exited before it was ready (%v):\n%s", p.err, p.logs.String())
		case <-deadline:
			t.Fatalf("server was not ready within 60 s:\n%s", p.logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return p
}

// url is the server's address with path appended.
func (p *proc) url(path string) string { return "http://" + p.addr + path }

// wait waits for the process to exit and returns its exit code (-1 when a
// signal ended it).
func (p *proc) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(within):
		t.Fatalf("server did not exit within %s:\n%s", within, p.logs.String())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatalf("wait: %v", p.err)
	}
	return 0
}

// cleanEnv is the test's environment without PREDICTIONS_* variables, so
// that only the flags configure the server.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PREDICTIONS_") {
			env = append(env, kv)
		}
	}
	return env
}

// pgEnv names a PostgreSQL server for the tests (boardtest.PostgresForm).
const pgEnv = boardtest.PostgresEnv

// pgDatabase creates a fresh database on the server named by pgEnv, dropped
// at the end of the test, and returns its URL. It skips the test when
// pgEnv is unset.
func pgDatabase(t *testing.T) string {
	t.Helper()
	admin := os.Getenv(pgEnv)
	if admin == "" {
		t.Skipf("%s is not set", pgEnv)
	}
	return databasetest.NewPostgres(t, admin)
}
