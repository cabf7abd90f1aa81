package board_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/board"
)

// TestValidation runs every boundary through CreatePrediction, Reply and
// React on each store: valid inputs must be stored as well as accepted.
func TestValidation(t *testing.T) {
	type change func(*board.NewPrediction)
	rep := strings.Repeat
	tests := []struct {
		name  string
		edit  change
		field string // "" when valid
	}{
		{"valid", func(*board.NewPrediction) {}, ""},
		{"agent_id empty", func(n *board.NewPrediction) { n.AgentID = "" }, "agent_id"},
		{"agent_id 1", func(n *board.NewPrediction) { n.AgentID = "a" }, ""},
		{"agent_id 64", func(n *board.NewPrediction) { n.AgentID = rep("a", 64) }, ""},
		{"agent_id 65", func(n *board.NewPrediction) { n.AgentID = rep("a", 65) }, "agent_id"},
		{"agent_id punctuation", func(n *board.NewPrediction) { n.AgentID = "A.b_c-9" }, ""},
		{"agent_id space", func(n *board.NewPrediction) { n.AgentID = "a b" }, "agent_id"},
		{"agent_id slash", func(n *board.NewPrediction) { n.AgentID = "a/b" }, "agent_id"},
		{"agent_id non-ASCII", func(n *board.NewPrediction) { n.AgentID = "agé" }, "agent_id"},
		{"agent_name 80", func(n *board.NewPrediction) { n.AgentName = rep("é", 80) }, ""},
		{"agent_name 81", func(n *board.NewPrediction) { n.AgentName = rep("é", 81) }, "agent_name"},
		{"agent_name newline", func(n *board.NewPrediction) { n.AgentName = "a\nb" }, "agent_name"},
		{"title empty", func(n *board.NewPrediction) { n.Title = "" }, "title"},
		{"title blank", func(n *board.NewPrediction) { n.Title = " \t " }, "title"},
		{"title 1", func(n *board.NewPrediction) { n.Title = "x" }, ""},
		{"title 200", func(n *board.NewPrediction) { n.Title = rep("x", 200) }, ""},
		{"title 200 code points", func(n *board.NewPrediction) { n.Title = rep("日", 200) }, ""},
		{"title 201", func(n *board.NewPrediction) { n.Title = rep("x", 201) }, "title"},
		{"title 201 code points", func(n *board.NewPrediction) { n.Title = rep("日", 201) }, "title"},
		{"title tab", func(n *board.NewPrediction) { n.Title = "a\tb" }, "title"},
		{"title DEL", func(n *board.NewPrediction) { n.Title = "a\x7fb" }, "title"},
		{"title C1", func(n *board.NewPrediction) { n.Title = "a\u0085b" }, "title"},
		{"title bad UTF-8", func(n *board.NewPrediction) { n.Title = "a\xffb" }, "title"},
		{"body empty", func(n *board.NewPrediction) { n.Body = "" }, "body"},
		{"body 1", func(n *board.NewPrediction) { n.Body = "x" }, ""},
		{"body 10000", func(n *board.NewPrediction) { n.Body = rep("ü", 10000) }, ""},
		{"body 10001", func(n *board.NewPrediction) { n.Body = rep("x", 10001) }, "body"},
		{"body newlines and tabs", func(n *board.NewPrediction) { n.Body = "a\r\n\tb" }, ""},
		{"body NUL", func(n *board.NewPrediction) { n.Body = "a\x00b" }, "body"},
		{"body escape", func(n *board.NewPrediction) { n.Body = "a\x1b[31mb" }, "body"},
		{"body bad UTF-8", func(n *board.NewPrediction) { n.Body = "\xc3" }, "body"},
		{"confidence missing", func(n *board.NewPrediction) { n.Confidence = nil }, "confidence"},
		{"confidence 0", func(n *board.NewPrediction) { n.Confidence = ptr(0.0) }, ""},
		{"confidence 1", func(n *board.NewPrediction) { n.Confidence = ptr(1.0) }, ""},
		{"confidence -0.01", func(n *board.NewPrediction) { n.Confidence = ptr(-0.01) }, "confidence"},
		{"confidence 1.01", func(n *board.NewPrediction) { n.Confidence = ptr(1.01) }, "confidence"},
		{"confidence 75", func(n *board.NewPrediction) { n.Confidence = ptr(75.0) }, "confidence"},
		{"timeframe empty", func(n *board.NewPrediction) { n.Timeframe = "" }, "timeframe"},
		{"timeframe 100", func(n *board.NewPrediction) { n.Timeframe = rep("q", 100) }, ""},
		{"timeframe 101", func(n *board.NewPrediction) { n.Timeframe = rep("q", 101) }, "timeframe"},
		{"domain lower case", func(n *board.NewPrediction) { n.Domain = "geopolitics" }, ""},
		{"domain empty", func(n *board.NewPrediction) { n.Domain = "" }, "domain"},
		{"domain unknown", func(n *board.NewPrediction) { n.Domain = "Weather" }, "domain"},
	}
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				np := newPrediction("validator")
				tt.edit(&np)
				p, err := s.CreatePrediction(ctx, np)
				checkField(t, "CreatePrediction", err, tt.field)
				if err != nil {
					return
				}
				if got, err := s.Prediction(ctx, p.ID); err != nil || got.Title != p.Title || got.Body != p.Body {
					t.Errorf("stored prediction differs: %v", err)
				}
			})
		}

		p := mustCreate(t, s, newPrediction("validator"))
		replies := []struct {
			name  string
			nr    board.NewReply
			field string
		}{
			{"body empty", board.NewReply{AgentID: "r", Body: ""}, "body"},
			{"body 1", board.NewReply{AgentID: "r", Body: "x"}, ""},
			{"body 10000", board.NewReply{AgentID: "r", Body: rep("€", 10000)}, ""},
			{"body 10001", board.NewReply{AgentID: "r", Body: rep("x", 10001)}, "body"},
			{"body control", board.NewReply{AgentID: "r", Body: "\x07"}, "body"},
			{"agent_id bad", board.NewReply{AgentID: "r r", Body: "x"}, "agent_id"},
			{"agent_name 81", board.NewReply{AgentID: "r", AgentName: rep("n", 81), Body: "x"}, "agent_name"},
		}
		for _, tt := range replies {
			t.Run("reply "+tt.name, func(t *testing.T) {
				_, err := s.Reply(ctx, p.ID, tt.nr)
				checkField(t, "Reply", err, tt.field)
			})
		}
		reactions := []struct {
			nr    board.NewReaction
			field string
		}{
			{board.NewReaction{AgentID: "r", Reaction: "Agree"}, ""},
			{board.NewReaction{AgentID: "r", Reaction: ""}, "reaction"},
			{board.NewReaction{AgentID: "r", Reaction: "like"}, "reaction"},
			{board.NewReaction{AgentID: "", Reaction: "agree"}, "agent_id"},
		}
		for _, tt := range reactions {
			t.Run("reaction "+string(tt.nr.Reaction), func(t *testing.T) {
				_, err := s.React(ctx, p.ID, tt.nr)
				checkField(t, "React", err, tt.field)
			})
		}
		checkCounters(t, s)
	})
}

func checkField(t *testing.T, call string, err error, field string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Errorf("%s: %v, want success", call, err)
		}
		return
	}
	var ve *board.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, board.ErrInvalid) {
		t.Fatalf("%s: %v, want a *ValidationError wrapping ErrInvalid", call, err)
	}
	if ve.Field != field || ve.Problem == "" || ve.Hint == "" {
		t.Errorf("%s: %+v, want field %s with a problem and a hint", call, ve, field)
	}
}

func TestConfidenceHint(t *testing.T) {
	np := newPrediction("a")
	np.Confidence = ptr(75.0)
	err := np.Validate()
	var ve *board.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(ve.Hint, "0.75 means 75%") {
		t.Errorf("Validate(confidence 75) = %v, want a hint saying 0.75 means 75%%", err)
	}
	np.Domain = "Weather"
	np.Confidence = ptr(0.5)
	if err := np.Validate(); !errors.As(err, &ve) || !strings.Contains(ve.Hint, strings.Join(board.Domains(), ", ")) {
		t.Errorf("Validate(domain Weather) = %v, want a hint listing every domain", err)
	}
}

// FuzzValidate: Validate never panics, its errors are typed, and what it
// accepts is stored within the limits.
func FuzzValidate(f *testing.F) {
	f.Add("agent-1", "name", "title", "body\n", 0.5, "Q3", "ai")
	f.Add("", "", "", "", 75.0, "", "")
	f.Add("a b", "\x00", "\xff", "\x1b", -1.0, "\t", "Weather")
	f.Fuzz(func(t *testing.T, id, name, title, body string, c float64, tf, domain string) {
		np := board.NewPrediction{AgentID: id, AgentName: name, Title: title, Body: body, Confidence: &c, Timeframe: tf, Domain: domain}
		err := np.Validate()
		if err == nil {
			if c < 0 || c > 1 {
				t.Errorf("accepted confidence %v", c)
			}
			return
		}
		var ve *board.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, board.ErrInvalid) || ve.Field == "" {
			t.Errorf("Validate error %v is not a *ValidationError wrapping ErrInvalid", err)
		}
	})
}

// TestNewPredictionJSON: a NewPrediction built in Go marshals to the
// request body with its confidence, and that body decodes back to the
// same confidence as sent.
func TestNewPredictionJSON(t *testing.T) {
	for _, tc := range []struct {
		np   board.NewPrediction
		want string
	}{
		{board.NewPrediction{AgentID: "a", Confidence: ptr(0.7)}, `0.7`},
		{board.NewPrediction{AgentID: "a", ConfidenceJSON: json.RawMessage(`"75%"`), Confidence: ptr(0.1)}, `"75%"`},
		{board.NewPrediction{AgentID: "a"}, `null`},
	} {
		b, err := json.Marshal(tc.np)
		if err != nil {
			t.Fatal(err)
		}
		var back board.NewPrediction
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got := string(back.ConfidenceJSON); got != tc.want {
			t.Errorf("json.Marshal(%+v) = %s: confidence %s, want %s", tc.np, b, got, tc.want)
		}
	}
}
