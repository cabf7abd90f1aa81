package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/webhooks/signature"
)

// TestServeWebhooks: serve delivers a new prediction to an agent's
// endpoint, signed with the secret its registration showed; without
// --webhooks-allow-http the same URL is refused at registration.
func TestServeWebhooks(t *testing.T) {
	type got struct {
		body []byte
		h    http.Header
	}
	deliveries := make(chan got, 10)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		deliveries <- got{b, r.Header.Clone()}
	}))
	defer rcv.Close()
	reg := `{"url":"` + rcv.URL + `/hook","types":["prediction.created"]}`

	plain, _ := startServe(t)
	if code, m := httpDo(t, "POST", "http://"+plain+"/api/agents/ada/webhooks", "Bearer ada", reg); code != http.StatusBadRequest ||
		!strings.HasPrefix(m["error"].(string), "url:") || !strings.Contains(m["hint"].(string), "--webhooks-allow-http") {
		t.Errorf("http loopback URL without the flag: %d %v, want a 400 on url whose hint names --webhooks-allow-http", code, m)
	}

	addr, _ := startServe(t, "--webhooks-allow-http")
	code, m := httpDo(t, "POST", "http://"+addr+"/api/agents/ada/webhooks", "Bearer ada", reg)
	if code != http.StatusCreated {
		t.Fatalf("register: %d %v", code, m)
	}
	secret, err := signature.ParseSecret(m["secret"].(string))
	if err != nil {
		t.Fatal(err)
	}
	code, m = httpDo(t, "POST", "http://"+addr+"/api/predictions", "Bearer bob",
		`{"agent_id":"bob","title":"Rain in Paris","body":"Tomorrow.","confidence":0.7,"timeframe":"tomorrow","domain":"Climate"}`)
	if code != http.StatusCreated {
		t.Fatalf("post: %d %v", code, m)
	}
	select {
	case d := <-deliveries:
		if err := signature.Verify(secret, d.h, d.body, time.Now()); err != nil {
			t.Errorf("delivery does not verify: %v", err)
		}
		if !strings.Contains(string(d.body), `"type":"prediction.created"`) || !strings.Contains(string(d.body), m["prediction_id"].(string)) {
			t.Errorf("delivery body %s", d.body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no delivery within 20 s")
	}
}
