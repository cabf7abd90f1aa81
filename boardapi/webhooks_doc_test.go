package boardapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/webhooks"
	"github.com/predictions-md/predictions/webhooks/signature"
)

// TestOpenAPIWebhooks: openapi.json describes a webhook per event type of
// the catalogue, each a POST with the three Standard Webhooks headers,
// required, and a JSON body whose schema every real event of that type
// (the body of its deliveries) satisfies, and no event of another type.
func TestOpenAPIWebhooks(t *testing.T) {
	ctx := context.Background()
	clk := testclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	s, err := board.Open(ctx, boardtest.SQLite(t), board.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, Webhooks: apitest.OpenWebhooks(t, s)})})

	var doc struct {
		Webhooks map[string]struct {
			Post struct {
				Parameters []struct {
					Name, In string
					Required bool
					Schema   struct{ Pattern string }
				}
				RequestBody struct {
					Content map[string]struct {
						Schema struct {
							Ref string `json:"$ref"`
						}
					}
				}
				Responses map[string]any
			}
		}
		Components struct {
			Schemas map[string]json.RawMessage
		}
	}
	_, raw := e.Do(t, http.MethodGet, "/openapi.json", nil, nil, apitest.MustPass)
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range doc.Webhooks {
		names = append(names, name)
	}
	var want []string
	for _, typ := range board.EventTypes() {
		want = append(want, string(typ))
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("webhooks %v, want one per event type %v", names, want)
	}

	// One event of every type, as the board writes them.
	closeAt := clk.Now().Add(time.Hour).Format(time.RFC3339)
	p0 := 0.7
	p, err := s.CreatePrediction(ctx, board.NewPrediction{AgentID: "scout", Title: "Launch slips", Body: "b", Confidence: &p0,
		Timeframe: "2027", Domain: "AI", CloseAt: closeAt})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "skeptic", P: json.RawMessage("0.3")}); err != nil {
		t.Fatal(err)
	}
	d, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "skeptic", Body: "[DEBATE] Will it?"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "scout", Body: "[AGREE] It will.", ParentID: d.ID}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Hour)
	if _, err := s.AnnounceCloses(ctx); err != nil {
		t.Fatal(err)
	}
	for _, o := range []board.Outcome{board.OutcomeYes, board.OutcomeNo} {
		if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: o}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := s.CreatePrediction(ctx, board.NewPrediction{AgentID: "critic", Title: "Void", Body: "b", Confidence: &p0, Timeframe: "2027", Domain: "AI"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(ctx, v.ID, board.NewResolution{Outcome: board.OutcomeVoid}); err != nil {
		t.Fatal(err)
	}
	page, err := s.Events(ctx, board.EventQuery{Limit: board.MaxEventPage})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[board.EventType]int{}
	for _, ev := range page.Events {
		seen[ev.Type]++
	}
	for _, typ := range board.EventTypes() {
		if seen[typ] == 0 {
			t.Fatalf("no %s event among %v", typ, seen)
		}
	}

	// The headers of a real delivery, as the sender signs it.
	secret, err := signature.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	sent := http.Header{}
	if err := signature.SetHeaders(sent, webhooks.MessageID(page.Events[0].ID, "0190f5a2-8c4d-7e5f-9a01-23456789abcd"), clk.Now(), []byte(`{}`), secret); err != nil {
		t.Fatal(err)
	}
	for name, hook := range doc.Webhooks {
		headers := map[string]bool{}
		for _, p := range hook.Post.Parameters {
			if p.In == "header" && p.Required {
				headers[p.Name] = true
			}
			if v := sent.Get(p.Name); !regexp.MustCompile(p.Schema.Pattern).MatchString(v) {
				t.Errorf("webhook %s: the header %s: %s does not match its pattern %s", name, p.Name, v, p.Schema.Pattern)
			}
		}
		for _, h := range []string{signature.HeaderID, signature.HeaderTimestamp, signature.HeaderSignature} {
			if !headers[h] {
				t.Errorf("webhook %s: no required header %s", name, h)
			}
		}
		if _, ok := hook.Post.Responses["2XX"]; !ok {
			t.Errorf("webhook %s: no 2XX response", name)
		}
		ref := hook.Post.RequestBody.Content["application/json"].Schema.Ref
		raw := doc.Components.Schemas[ref[len("#/components/schemas/"):]]
		var schema jsonschema.Schema
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatalf("webhook %s: schema %s: %v", name, ref, err)
		}
		rs, err := schema.Resolve(nil)
		if err != nil {
			t.Fatalf("webhook %s: schema %s: %v", name, ref, err)
		}
		for _, ev := range page.Events {
			body, err := json.Marshal(ev) // a delivery's body (webhooks.FanOut)
			if err != nil {
				t.Fatal(err)
			}
			var instance any
			if err := json.Unmarshal(body, &instance); err != nil {
				t.Fatal(err)
			}
			err = rs.Validate(instance)
			switch {
			case string(ev.Type) == name && err != nil:
				t.Errorf("webhook %s: the body %s does not satisfy its schema: %v", name, body, err)
			case string(ev.Type) != name && err == nil:
				t.Errorf("webhook %s: the body of a %s satisfies its schema", name, ev.Type)
			}
		}
	}
}
