package main

import (
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var listeningRE = regexp.MustCompile(`msg=listening addr=(\S+)`)

// TestServeSaysListeningFirst runs the binary: its first line says where
// it listens and which database it opens, before it opens it. The
// database here is a PostgreSQL server that accepts connections and never
// answers, so opening the board hangs; the line is out meanwhile, without
// the password, the address already takes connections, and "ready" has
// not come. On a SQLite board the same line comes first and "ready" after.
func TestServeSaysListeningFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	bin := buildBinary(t)

	mute, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held struct {
		sync.Mutex
		conns []net.Conn
	}
	go func() {
		for {
			c, err := mute.Accept()
			if err != nil {
				return
			}
			held.Lock()
			held.conns = append(held.conns, c)
			held.Unlock()
		}
	}()
	t.Cleanup(func() {
		mute.Close()
		held.Lock()
		defer held.Unlock()
		for _, c := range held.conns {
			c.Close()
		}
	})

	db := "postgres://scout:secret@" + mute.Addr().String() + "/board?sslmode=disable"
	logs := &syncBuffer{}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", db, "--rate-limit", "off")
	cmd.Env = cleanEnv()
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })

	var addr string
	waitFor(t, 30*time.Second, "the listening line", func() bool {
		select {
		case <-done:
			t.Fatalf("the server exited before the listening line:\n%s", logs.String())
		default:
		}
		m := listeningRE.FindStringSubmatch(logs.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	first, _, _ := strings.Cut(logs.String(), "\n")
	if !listeningRE.MatchString(first) {
		t.Errorf("the first line is %q, want the listening line", first)
	}
	if want := "postgres://scout:xxxxx@" + mute.Addr().String() + "/board"; !strings.Contains(first, want) {
		t.Errorf("the listening line %q does not name the database as %s", first, want)
	}
	if strings.Contains(logs.String(), "secret") {
		t.Errorf("the output shows the database's password:\n%s", logs.String())
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Errorf("the address %s the line gives takes no connection: %v", addr, err)
	} else {
		c.Close()
	}
	if strings.Contains(logs.String(), "msg=ready") {
		t.Errorf("ready while the database does not answer:\n%s", logs.String())
	}

	file := filepath.Join(t.TempDir(), "board.db")
	p := startServer(t, bin, file)
	out := p.logs.String()
	first, _, _ = strings.Cut(out, "\n")
	if m := listeningRE.FindStringSubmatch(first); m == nil || m[1] != p.addr || !strings.Contains(first, file) {
		t.Errorf("on SQLite the first line is %q, want the listening line with %s and the database", first, p.addr)
	}
	if strings.Index(out, "msg=listening") > strings.Index(out, "msg=ready") {
		t.Errorf("ready before listening:\n%s", out)
	}
}
