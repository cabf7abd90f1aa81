package boardapi_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/internal/apitest"
)

// TestOversizedAtOnce: a body whose Content-Length is over its route's
// limit is a 413 at once, before a byte of it is sent, on every kind of
// write route (JSON, the forecast file, the raw e-mail) and with an
// Idempotency-Key as without; the client never has to send it.
func TestOversizedAtOnce(t *testing.T) {
	const mod = "mod-token"
	e := apitest.NewBoardEnv(t, mod)
	addr := strings.TrimPrefix(e.TS.URL, "http://")
	for _, tc := range []struct {
		name, path, token, contentType, key string
	}{
		{"prediction", "/api/predictions", "agent-a", "application/json", ""},
		{"prediction with a key", "/api/predictions", "agent-a", "application/json", "k1"},
		{"import", "/api/import", mod, "text/markdown", ""},
		{"import with a key", "/api/import", mod, "text/markdown", "k2"},
		{"inbound e-mail", "/api/inbound/email", mod, "message/rfc822", ""},
		{"inbound e-mail with a key", "/api/inbound/email", mod, "message/rfc822", "k3"},
		{"webhook", "/api/agents/agent-a/webhooks", "agent-a", "application/json", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: 5000000\r\n", tc.path, addr, tc.token, tc.contentType)
			if tc.key != "" {
				head += "Idempotency-Key: " + tc.key + "\r\n"
			}
			if _, err := conn.Write([]byte(head + "\r\n")); err != nil { // and not a byte of the body
				t.Fatal(err)
			}
			start := time.Now()
			_ = conn.SetReadDeadline(start.Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer within 5 s to a Content-Length of 5,000,000: %v", err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("status %d, want 413", resp.StatusCode)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("answered after %v, want at once", d)
			}
		})
	}
}
