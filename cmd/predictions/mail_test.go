package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/smtptest"
)

const (
	boardFrom = "Predictions board <board@predictions.example.org>"
	boardBase = "https://predictions.example.org"
	modSecret = "mod-secret"
)

// startServe runs serve with e-mail through srv and returns its address.
func startMailServe(t *testing.T, db string, srv *smtptest.Server) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var logs syncBuffer
	cfg := &serveConfig{listen: listenConfig{addr: "127.0.0.1:0", baseURL: boardBase}, board: boardConfig{db: db, moderatorToken: modSecret}, log: logConfig{format: "text"},
		mail: notifyConfig{smtpURL: "smtp://" + srv.Addr + "?from=" + url.QueryEscape(boardFrom), interval: 20 * time.Millisecond}}
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, newTestLogger(&logs)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v\n%s", err, logs.String())
		}
	})
	addrRE := regexp.MustCompile(`ready addr=(\S+)`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(logs.String()); m != nil {
			if !strings.Contains(logs.String(), "e-mail notifications on") {
				t.Errorf("no e-mail line in the log:\n%s", logs.String())
			}
			return "http://" + m[1]
		}
	}
	t.Fatalf("server did not start:\n%s", logs.String())
	return ""
}

// call sends a JSON request and decodes the JSON answer.
func call(t *testing.T, method, u, bearer string, body any, want int) map[string]any {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, u, rd)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &m); err != nil || resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, u, resp.StatusCode, want, raw)
	}
	return m
}

// confirmByMail waits until the sink holds n messages, and opens the
// link of each confirmation among them as a person would: the GET page,
// then its button's POST. It returns the messages.
func confirmByMail(t *testing.T, base string, srv *smtptest.Server, n int) []smtptest.Message {
	t.Helper()
	msgs := srv.Wait(n, 30*time.Second)
	if len(msgs) != n {
		t.Fatalf("%d messages, want %d", len(msgs), n)
	}
	link := regexp.MustCompile(regexp.QuoteMeta(boardBase) + `(/api/agents/[^/\s]+/email/confirm\?token=[A-Za-z0-9_-]+)`)
	for _, m := range msgs {
		if !strings.HasPrefix(m.Header("Subject"), "Confirm your address") {
			continue
		}
		if m.Header("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" || !strings.HasPrefix(m.Header("List-Unsubscribe"), "<"+boardBase+"/api/email/unsubscribe?token=") {
			t.Errorf("confirmation without the RFC 8058 headers: %q, %q", m.Header("List-Unsubscribe"), m.Header("List-Unsubscribe-Post"))
		}
		pm, err := email.Parse(bytes.NewReader(m.Data))
		if err != nil {
			t.Fatal(err)
		}
		l := link.FindStringSubmatch(pm.Text)
		if l == nil {
			t.Fatalf("no link in the confirmation:\n%s", pm.Text)
		}
		resp, err := http.Get(base + l[1])
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		resp, err = http.Post(base+l[1], "application/x-www-form-urlencoded", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("confirming %s: %d", l[1], resp.StatusCode)
		}
	}
	return msgs
}

// mailCmd runs `predictions mail` with msg on stdin.
func mailCmd(t *testing.T, db string, msg []byte, extra ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cmdEnv{stdin: bytes.NewReader(msg), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	args := append([]string{"mail", "--db", db, "--mail-from", boardFrom, "--base-url", boardBase}, extra...)
	code = run(context.Background(), env, args)
	return code, out.String(), errb.String()
}

// answer writes the e-mail a person's client sends when answering the
// notification n with text on top and the notification quoted below.
func answer(from string, n smtptest.Message, text string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: Re: %s\r\n", from, n.Header("Reply-To"), n.Header("Subject"))
	fmt.Fprintf(&b, "In-Reply-To: %s\r\nReferences: %s %s\r\n", n.Header("Message-Id"), n.Header("References"), n.Header("Message-Id"))
	fmt.Fprintf(&b, "Message-ID: <%d.answer@agents.example>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n", time.Now().UnixNano())
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
	b.WriteString(text + "\r\n\r\nOn Sun, 22 Nov 2026 at 09:00, Predictions board <board@predictions.example.org> wrote:\r\n")
	for line := range strings.SplitSeq(strings.ReplaceAll(string(n.Data), "\r\n", "\n"), "\n") {
		b.WriteString("> " + line + "\r\n")
	}
	return []byte(b.String())
}

// TestEmailEndToEnd: agents register addresses, a prediction is posted,
// its notification arrives over SMTP with the thread's headers, an answer
// comes back through `predictions mail` and is in the thread with its tag
// and in the reaction counts; its own notification goes to the author,
// whose answer through POST /api/inbound/email becomes a nested reply.
func TestEmailEndToEnd(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	db := filepath.Join(t.TempDir(), "p.db")
	base := startMailServe(t, db, srv)

	call(t, "POST", base+"/api/agents", "ada", map[string]any{"agent_id": "ada", "email": "Ada Lovelace <ada@agents.example>"}, 201)
	call(t, "POST", base+"/api/agents", "bob", map[string]any{"agent_id": "bob", "email": "bob@agents.example", "subscribe": []string{"climate"}}, 201)
	confirmByMail(t, base, srv, 2)
	created := call(t, "POST", base+"/api/predictions", "ada", map[string]any{"agent_id": "ada", "title": "Rain in Paris tomorrow",
		"body": "The front arrives overnight.", "confidence": 0.7, "timeframe": "tomorrow", "domain": "Climate"}, 201)
	pid := created["prediction_id"].(string)

	msgs := srv.Wait(3, 30*time.Second)
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want 2 confirmations and 1 notification", len(msgs))
	}
	n := msgs[2]
	got := map[string]any{"envelope from": n.From, "envelope to": n.To, "From": n.Header("From"), "To": n.Header("To"),
		"Reply-To": n.Header("Reply-To"), "Message-Id": n.Header("Message-Id"), "In-Reply-To": n.Header("In-Reply-To"),
		"References": n.Header("References"), "Subject": n.Header("Subject")}
	want := map[string]any{"envelope from": "board@predictions.example.org", "envelope to": []string{"bob@agents.example"},
		"From": `"Predictions board" <board@predictions.example.org>`, "To": `"bob" <bob@agents.example>`,
		"Reply-To":   `"Predictions board" <board+` + pid + `@predictions.example.org>`,
		"Message-Id": "<prediction." + pid + "@predictions.example.org>", "In-Reply-To": "", "References": "",
		"Subject": "[prediction " + pid + "] Rain in Paris tomorrow"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notification headers (-want +got):\n%s", diff)
	}
	parsed, err := email.Parse(bytes.NewReader(n.Data))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"The front arrives overnight.", boardBase + "/api/predictions/" + pid,
		"[AGREE]", "[DISAGREE]", "[CHALLENGE]", "[DEBATE]"} {
		if !strings.Contains(parsed.Text, line) {
			t.Errorf("notification text lacks %q:\n%s", line, parsed.Text)
		}
	}

	// bob answers by e-mail through the mail server's pipe.
	bobs := answer("Bob <BOB@agents.example>", n, "[DISAGREE] The radar shows the front stalling.")
	code, stdout, stderr := mailCmd(t, db, bobs)
	if code != 0 || !strings.Contains(stdout, "recorded reply") {
		t.Fatalf("predictions mail: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The mail server delivers it again: recorded once, exit 0.
	if code, stdout, stderr := mailCmd(t, db, bobs); code != 0 || !strings.HasPrefix(stdout, "duplicate:") {
		t.Errorf("the same message again: exit %d, stdout %q, stderr %q; want 0 and duplicate", code, stdout, stderr)
	}
	th := call(t, "GET", base+"/api/predictions/"+pid+"/threads", "", nil, 200)
	thread := th["thread"].([]any)
	if len(thread) != 1 {
		t.Fatalf("thread = %v", thread)
	}
	r := thread[0].(map[string]any)
	if r["agent_id"] != "bob" || r["kind"] != "disagree" || r["body"] != "[DISAGREE] The radar shows the front stalling." {
		t.Errorf("reply by e-mail = %v", r)
	}
	p := call(t, "GET", base+"/api/predictions/"+pid, "", nil, 200)["prediction"].(map[string]any)
	if diff := cmp.Diff(map[string]any{"agree": 0.0, "disagree": 1.0, "uncertain": 0.0}, p["reactions"]); diff != "" {
		t.Errorf("reactions (-want +got):\n%s", diff)
	}

	// Its notification goes to the author, in the thread.
	msgs = srv.Wait(4, 30*time.Second)
	if len(msgs) != 4 {
		t.Fatalf("%d messages, want 4", len(msgs))
	}
	rn := msgs[3]
	rid := r["id"].(string)
	got = map[string]any{"to": rn.To, "Message-Id": rn.Header("Message-Id"), "In-Reply-To": rn.Header("In-Reply-To"),
		"References": rn.Header("References"), "Subject": rn.Header("Subject")}
	want = map[string]any{"to": []string{"ada@agents.example"},
		"Message-Id":  "<reply." + rid + "." + pid + "@predictions.example.org>",
		"In-Reply-To": "<prediction." + pid + "@predictions.example.org>", "References": "<prediction." + pid + "@predictions.example.org>",
		"Subject": "Re: [prediction " + pid + "] Rain in Paris tomorrow"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reply notification (-want +got):\n%s", diff)
	}

	// ada answers that message through the HTTP gateway: bob's reply is
	// the parent.
	req, _ := http.NewRequest("POST", base+"/api/inbound/email", bytes.NewReader(answer("ada@agents.example", rn, "[CHALLENGE] Stalling fronts still rain.")))
	req.Header.Set("Authorization", "Bearer "+modSecret)
	req.Header.Set("Content-Type", "message/rfc822")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 || !strings.Contains(string(body), `"parent_id":"`+rid+`"`) || !strings.Contains(string(body), `"kind":"challenge"`) {
		t.Errorf("inbound e-mail: %d %s", resp.StatusCode, body)
	}
	if msgs = srv.Wait(5, 30*time.Second); len(msgs) != 5 || msgs[4].To[0] != "bob@agents.example" {
		t.Errorf("ada's answer notified %v, want bob", msgs[len(msgs)-1].To)
	}
}

func TestMailExitStatus(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	db := filepath.Join(t.TempDir(), "p.db")
	base := startMailServe(t, db, srv)
	call(t, "POST", base+"/api/agents", "bob", map[string]any{"agent_id": "bob", "email": "bob@agents.example", "subscribe": "all"}, 201)
	confirmByMail(t, base, srv, 1)
	created := call(t, "POST", base+"/api/predictions", "ada", map[string]any{"agent_id": "ada", "title": "Snow",
		"body": "Snow in May.", "confidence": 0.1, "timeframe": "May", "domain": "Climate"}, 201)
	pid := created["prediction_id"].(string)
	n := srv.Wait(2, 30*time.Second)[1]

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	typo := filepath.Join(t.TempDir(), "pp.db") // a mistyped --db
	auto := answer("bob@agents.example", n, "I am away until Monday.")
	auto = append([]byte("Auto-Submitted: auto-replied\r\n"), auto...)
	for _, tc := range []struct {
		name   string
		msg    []byte
		args   []string
		code   int
		stderr string
	}{
		{"unknown sender", answer("eve@agents.example", n, "[AGREE] yes"), nil, 67, "not the registered address"},
		{"not an e-mail", []byte("\x00\x01 garbage"), nil, 65, "refused"},
		{"no prediction", []byte("From: bob@agents.example\r\nSubject: hello\r\n\r\n[AGREE] yes\r\n"), nil, 65, "names no prediction"},
		{"only a quote", answer("bob@agents.example", n, ""), nil, 65, "no text of its own"},
		{"auto-reply", auto, nil, 0, "ignored"},
		{"database unavailable", answer("bob@agents.example", n, "[AGREE] yes"), []string{"--db", filepath.Join(file, "p.db")}, 75, "try again later"},
		{"bad flag", nil, []string{"--smtp-url", "http://x"}, 64, "smtp"},
		{"no such database", answer("bob@agents.example", n, "[AGREE] yes"), []string{"--db", typo}, 78, "does not exist"},
		{"no such directory", answer("bob@agents.example", n, "[AGREE] yes"), []string{"--db", filepath.Join(typo, "p.db")}, 78, "does not exist"},
	} {
		code, _, stderr := mailCmd(t, db, tc.msg, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, stderr, tc.code, tc.stderr)
		}
	}
	if _, err := os.Stat(typo); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("mail --db %s created the file or failed to look: %v", typo, err)
	}
	if th := call(t, "GET", base+"/api/predictions/"+pid+"/threads", "", nil, 200); th["count"] != 0.0 {
		t.Errorf("refused messages were recorded: %v", th["thread"])
	}
}

func newTestLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

func TestParseServeMail(t *testing.T) {
	none := func(string) string { return "" }
	cfg, err := parseServe(nil, func(k string) string {
		return map[string]string{"PREDICTIONS_SMTP_URL": "smtps://u:p@mail.example.org", "PREDICTIONS_MAIL_FROM": "board@example.org",
			"PREDICTIONS_BASE_URL": boardBase}[k]
	}, io.Discard)
	if err != nil || cfg.mail.smtpURL != "smtps://u:p@mail.example.org" || cfg.mail.mailFrom != "board@example.org" {
		t.Errorf("from the environment: %+v, %v", cfg, err)
	}
	for _, args := range [][]string{
		{"--mail-from", "board@example.org"},                  // no server to send through
		{"--smtp-url", "smtp://mail.example.org"},             // no address to send from
		{"--smtp-url", "smtp://mail.example.org?from=nobody"}, // not an address
		{"--smtp-url", "imap://mail.example.org", "--mail-from", "b@example.org"},
		{"--smtp-url", "smtp://mail.example.org", "--mail-from", "b@"},
		{"--smtp-url", "smtp://mail.example.org", "--mail-from", "b@example.org"}, // no --base-url for the links
	} {
		if len(args) < 4 || args[len(args)-1] != "b@example.org" {
			args = append(args, "--base-url", boardBase)
		}
		if _, err := parseServe(args, none, io.Discard); err == nil {
			t.Errorf("parseServe(%q) = nil error", args)
		}
	}
	opt, srv, err := mailSetup("smtp://mail.example.org:2525?from=a@example.org", "Board <b@example.org>", boardBase)
	if err != nil || srv.Port != "2525" || opt.From.Address != "b@example.org" || opt.From.Name != "Board" || opt.BaseURL != boardBase {
		t.Errorf("mailSetup: %+v %+v %v; --mail-from wins over from=", opt, srv, err)
	}
	if opt, srv, err := mailSetup("", "b@example.org", ""); err != nil || srv != nil || opt == nil {
		t.Errorf("mailSetup without a server = %+v %+v %v; want options for the mail command", opt, srv, err)
	}
}

func TestMailHelp(t *testing.T) {
	var out bytes.Buffer
	env := &cmdEnv{stdout: &out, stderr: &out, getenv: func(string) string { return "" }}
	if code := run(context.Background(), env, []string{"mail", "--help"}); code != 0 {
		t.Fatalf("mail --help exit %d", code)
	}
	for _, want := range []string{"Usage: predictions mail", "-smtp-url", "-mail-from", "67 unknown sender", "master.cf", ".forward"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("mail --help lacks %q:\n%s", want, out.String())
		}
	}
}
