package smtptest_test

import (
	"bufio"
	"fmt"
	"net"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/smtptest"
)

const msg = "From: a@example.org\r\nTo: b@example.org\r\nSubject: hi\r\n\r\nHello.\r\n"

// send delivers msg over net/smtp and returns how long DATA took.
func send(t *testing.T, addr string) time.Duration {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Mail("a@example.org"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("b@example.org"); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := w.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // waits for the 250
		t.Fatal(err)
	}
	return time.Since(start)
}

func TestSetDelay(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	const d = 300 * time.Millisecond
	if took := send(t, srv.Addr); took >= d {
		t.Fatalf("without a delay the message took %s", took)
	}
	srv.SetDelay(d)
	if took := send(t, srv.Addr); took < d {
		t.Errorf("with SetDelay(%s) the message was accepted after %s", d, took)
	}
	srv.SetDelay(0)
	if took := send(t, srv.Addr); took >= d {
		t.Errorf("after SetDelay(0) the message took %s", took)
	}
	if got := len(srv.Messages()); got != 3 {
		t.Errorf("%d messages, want 3", got)
	}
}

// A client that dies while its message is held, after sending the final
// dot, leaves the message delivered; Held counts it meanwhile.
func TestDelayClientGone(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	srv.SetDelay(time.Second)
	nc, err := net.Dial("tcp", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(nc)
	var replies []string
	for _, line := range []string{"", "EHLO client", "MAIL FROM:<a@example.org>", "RCPT TO:<b@example.org>", "DATA", msg + "."} {
		if line != "" {
			fmt.Fprintf(nc, "%s\r\n", line)
		}
		if line == msg+"." {
			break // gone before the answer
		}
		for { // a reply's last line has a space after the code
			l, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if len(l) >= 4 && l[3] == ' ' {
				replies = append(replies, l[:3])
				break
			}
		}
	}
	for deadline := time.Now().Add(time.Second); srv.Held() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Held() = %d while the message is held, want 1", srv.Held())
		}
	}
	nc.Close()
	if diff := cmp.Diff([]string{"220", "250", "250", "250", "354"}, replies); diff != "" {
		t.Fatalf("replies (-want +got):\n%s", diff)
	}
	got := srv.Wait(1, 5*time.Second)
	if len(got) != 1 || !strings.Contains(string(got[0].Data), "Hello.") {
		t.Fatalf("messages = %+v, want the one whose client left", got)
	}
	if n := srv.Held(); n != 0 {
		t.Errorf("Held() = %d once the message is accepted, want 0", n)
	}
}
