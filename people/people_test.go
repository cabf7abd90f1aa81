package people_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/people"
	"github.com/predictions-md/predictions/people/peopletest"
)

// TestMain drops the PostgreSQL template of boardtest after the tests.
func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }

var rp = people.RP{ID: "localhost", Origin: "http://localhost:8080"}

// env is a board with its people, on a clock the test moves.
type env struct {
	b     *board.Store
	ppl   *people.Store
	clock *testclock.Clock
}

func eachEnv(t *testing.T, fn func(t *testing.T, e env)) {
	boardtest.EachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clock := testclock.New(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
		b := open(board.Options{Now: clock.Now})
		ppl, err := people.Open(context.Background(), b, people.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fn(t, env{b: b, ppl: ppl, clock: clock})
	})
}

// register registers id with a new software passkey and returns it with
// the session.
func register(t *testing.T, e env, id, name string) (*peopletest.Passkey, people.Session) {
	t.Helper()
	ctx := context.Background()
	c, err := e.ppl.BeginRegistration(ctx, rp, id, name)
	if err != nil {
		t.Fatalf("BeginRegistration(%q): %v", id, err)
	}
	pk, answer, err := peopletest.Create(rp.Origin, c.Options)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := e.ppl.FinishRegistration(ctx, rp, c.Token, answer)
	if err != nil {
		t.Fatalf("FinishRegistration(%q): %v", id, err)
	}
	return pk, sess
}

func signIn(ctx context.Context, e env, pk *peopletest.Passkey) (people.Session, error) {
	c, err := e.ppl.BeginSignIn(ctx, rp)
	if err != nil {
		return people.Session{}, err
	}
	answer, err := pk.Get(c.Options)
	if err != nil {
		return people.Session{}, err
	}
	return e.ppl.FinishSignIn(ctx, rp, c.Token, answer)
}

func TestRegisterSignInSignOut(t *testing.T) {
	eachEnv(t, func(t *testing.T, e env) {
		ctx := context.Background()
		pk, sess := register(t, e, "ada", "Ada L.")
		if diff := cmp.Diff(people.Person{ID: "ada", Name: "Ada L."}, sess.Person); diff != "" {
			t.Errorf("registered person (-want +got):\n%s", diff)
		}
		if want := e.clock.Now().Add(people.SessionTTL); !sess.Expires.Equal(want) {
			t.Errorf("session expires %v, want %v", sess.Expires, want)
		}
		p, err := e.ppl.Session(ctx, sess.Token)
		if err != nil || p.ID != "ada" {
			t.Fatalf("Session = %+v, %v; want ada", p, err)
		}
		a, err := e.b.Agent(ctx, "ada")
		if err != nil {
			t.Fatal(err)
		}
		if a.Kind != board.KindPerson || a.Name != "Ada L." {
			t.Errorf("the board's forecaster = kind %q name %q, want person, Ada L.", a.Kind, a.Name)
		}
		if err := e.ppl.SignOut(ctx, sess.Token); err != nil {
			t.Fatal(err)
		}
		if _, err := e.ppl.Session(ctx, sess.Token); !errors.Is(err, people.ErrNoSession) {
			t.Errorf("Session after SignOut: %v, want ErrNoSession", err)
		}
		again, err := signIn(ctx, e, pk)
		if err != nil {
			t.Fatalf("sign in: %v", err)
		}
		if again.Person.ID != "ada" || again.Token == sess.Token {
			t.Errorf("signed in as %+v with token reused=%v", again.Person, again.Token == sess.Token)
		}
		// A second device's session ends with SignOutEverywhere too.
		other, err := signIn(ctx, e, pk)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.ppl.SignOutEverywhere(ctx, "ada"); err != nil {
			t.Fatal(err)
		}
		for _, tok := range []string{again.Token, other.Token} {
			if _, err := e.ppl.Session(ctx, tok); !errors.Is(err, people.ErrNoSession) {
				t.Errorf("Session after SignOutEverywhere: %v, want ErrNoSession", err)
			}
		}
	})
}

func TestSessionExpires(t *testing.T) {
	eachEnv(t, func(t *testing.T, e env) {
		ctx := context.Background()
		_, sess := register(t, e, "bea", "")
		e.clock.Advance(people.SessionTTL - time.Second)
		if _, err := e.ppl.Session(ctx, sess.Token); err != nil {
			t.Fatalf("a second before expiry: %v", err)
		}
		e.clock.Advance(time.Second)
		if _, err := e.ppl.Session(ctx, sess.Token); !errors.Is(err, people.ErrNoSession) {
			t.Errorf("at expiry: %v, want ErrNoSession", err)
		}
		n, err := e.ppl.Expire(ctx, 100)
		if err != nil || n != 1 {
			t.Errorf("Expire = %d, %v; want 1 session removed", n, err)
		}
		for _, tok := range []string{"", "x", "not-a-session-token-of-this-board-at-all-000000000000000000000"} {
			if _, err := e.ppl.Session(ctx, tok); !errors.Is(err, people.ErrNoSession) {
				t.Errorf("Session(%q) = %v, want ErrNoSession", tok, err)
			}
		}
	})
}

// TestRefusedAnswers: what a real authenticator never sends, or sends
// once, is refused, and nobody is signed in.
func TestRefusedAnswers(t *testing.T) {
	eachEnv(t, func(t *testing.T, e env) {
		ctx := context.Background()
		pk, _ := register(t, e, "cy", "")
		forged := *pk
		other, _, err := peopletest.Create(rp.Origin, mustOptions(t, e, "someone-else"))
		if err != nil {
			t.Fatal(err)
		}
		forged.Key = other.Key // the right credential id, another key
		elsewhere := *pk
		elsewhere.Origin = "http://evil.example"
		cases := []struct {
			name   string
			answer func(opts []byte) ([]byte, error)
			token  func(tok string) string
		}{
			{"forged signature", forged.Get, nil},
			{"another origin", elsewhere.Get, nil},
			{"unknown ceremony", pk.Get, func(string) string { return "no-such-ceremony" }},
			{"not JSON", func([]byte) ([]byte, error) { return []byte("{"), nil }, nil},
			{"unknown passkey", other.Get, nil},
		}
		for _, c := range cases {
			cer, err := e.ppl.BeginSignIn(ctx, rp)
			if err != nil {
				t.Fatal(err)
			}
			answer, err := c.answer(cer.Options)
			if err != nil {
				t.Fatal(err)
			}
			tok := cer.Token
			if c.token != nil {
				tok = c.token(tok)
			}
			s, err := e.ppl.FinishSignIn(ctx, rp, tok, answer)
			if !errors.Is(err, people.ErrRefused) {
				t.Errorf("%s: FinishSignIn = %+v, %v; want ErrRefused", c.name, s.Person, err)
			}
		}

		// A replayed answer: the ceremony is used once.
		cer, err := e.ppl.BeginSignIn(ctx, rp)
		if err != nil {
			t.Fatal(err)
		}
		answer, err := pk.Get(cer.Options)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.ppl.FinishSignIn(ctx, rp, cer.Token, answer); err != nil {
			t.Fatalf("first use: %v", err)
		}
		if _, err := e.ppl.FinishSignIn(ctx, rp, cer.Token, answer); !errors.Is(err, people.ErrRefused) {
			t.Errorf("replayed: %v, want ErrRefused", err)
		}

		// A signature counter that goes back: a copied passkey.
		pk.Count -= 2
		if _, err := signIn(ctx, e, pk); !errors.Is(err, people.ErrRefused) {
			t.Errorf("counter went back: %v, want ErrRefused", err)
		}

		// A ceremony that took too long.
		cer, err = e.ppl.BeginSignIn(ctx, rp)
		if err != nil {
			t.Fatal(err)
		}
		pk.Count += 10
		answer, err = pk.Get(cer.Options)
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(people.CeremonyTTL)
		if _, err := e.ppl.FinishSignIn(ctx, rp, cer.Token, answer); !errors.Is(err, people.ErrRefused) {
			t.Errorf("expired ceremony: %v, want ErrRefused", err)
		}
	})
}

func mustOptions(t *testing.T, e env, id string) []byte {
	t.Helper()
	c, err := e.ppl.BeginRegistration(context.Background(), rp, id, "")
	if err != nil {
		t.Fatal(err)
	}
	return c.Options
}

func TestRegistrationInput(t *testing.T) {
	eachEnv(t, func(t *testing.T, e env) {
		ctx := context.Background()
		one := 0.6
		if _, err := e.b.CreatePrediction(ctx, board.NewPrediction{AgentID: "scout", Title: "Will it rain tomorrow in Paris?",
			Body: "Météo-France's record.", Confidence: &one, Timeframe: "2026-12-31", Domain: "Science"}); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			id, name, field string
			taken           bool
		}{
			{"scout", "", "person_id", true},
			{"", "", "person_id", false},
			{"has space", "", "person_id", false},
			{"ok-id", "evil\u202Ename", "name", false},
			{"ok-id", "line\nbreak", "name", false},
		}
		for _, c := range cases {
			_, err := e.ppl.BeginRegistration(ctx, rp, c.id, c.name)
			var ve *board.ValidationError
			if !errors.As(err, &ve) || ve.Field != c.field || errors.Is(err, board.ErrTaken) != c.taken {
				t.Errorf("BeginRegistration(%q, %q) = %v; want a validation error on %s (taken %v)", c.id, c.name, err, c.field, c.taken)
			}
		}
	})
}

// TestIDTakenMeanwhile: an agent that takes the id between the two steps
// wins, and the registration is refused; the person can pick another.
func TestIDTakenMeanwhile(t *testing.T) {
	eachEnv(t, func(t *testing.T, e env) {
		ctx := context.Background()
		c, err := e.ppl.BeginRegistration(ctx, rp, "dee", "")
		if err != nil {
			t.Fatal(err)
		}
		one := 0.6
		if _, err := e.b.CreatePrediction(ctx, board.NewPrediction{AgentID: "dee", Title: "Will it snow tomorrow in Oslo?",
			Body: "MET Norway's record.", Confidence: &one, Timeframe: "2026-12-31", Domain: "Science"}); err != nil {
			t.Fatal(err)
		}
		_, answer, err := peopletest.Create(rp.Origin, c.Options)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.ppl.FinishRegistration(ctx, rp, c.Token, answer)
		var ve *board.ValidationError
		if !errors.As(err, &ve) || ve.Field != "person_id" || !errors.Is(err, board.ErrTaken) {
			t.Fatalf("FinishRegistration after an agent took the id: %v; want taken on person_id", err)
		}
		a, err := e.b.Agent(ctx, "dee")
		if err != nil || a.Kind != board.KindAgent {
			t.Errorf("dee = %+v, %v; want the agent kept", a, err)
		}
	})
}

// TestConcurrentRegistrations: two people finishing registrations of the
// same id at once: exactly one gets it.
func TestConcurrentRegistrations(t *testing.T) {
	eachEnv(t, func(t *testing.T, e env) {
		ctx := context.Background()
		var answers [2][]byte
		var tokens [2]string
		for i := range answers {
			c, err := e.ppl.BeginRegistration(ctx, rp, "eve", "")
			if err != nil {
				t.Fatal(err)
			}
			_, answers[i], err = peopletest.Create(rp.Origin, c.Options)
			if err != nil {
				t.Fatal(err)
			}
			tokens[i] = c.Token
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range answers {
			wg.Go(func() { _, errs[i] = e.ppl.FinishRegistration(ctx, rp, tokens[i], answers[i]) })
		}
		wg.Wait()
		ok, taken := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, board.ErrTaken):
				taken++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		if ok != 1 || taken != 1 {
			t.Errorf("%d registered and %d refused as taken; want 1 and 1", ok, taken)
		}
	})
}

func TestFollow(t *testing.T) {
	eachEnv(t, func(t *testing.T, e env) {
		ctx := context.Background()
		register(t, e, "fay", "")
		one := 0.6
		p, err := e.b.CreatePrediction(ctx, board.NewPrediction{AgentID: "scout", Title: "Will the vote pass on Friday?",
			Body: "The chamber's record.", Confidence: &one, Timeframe: "2026-12-31", Domain: "Politics"})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // following twice is following once
			if err := e.ppl.Follow(ctx, "fay", p.ID, true); err != nil {
				t.Fatal(err)
			}
		}
		got, err := e.ppl.Following(ctx, "fay", 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range got {
			ids = append(ids, f.Prediction.ID)
		}
		if diff := cmp.Diff([]string{p.ID}, ids); diff != "" {
			t.Errorf("following (-want +got):\n%s", diff)
		}
		if err := e.ppl.Follow(ctx, "fay", "no-such-prediction", true); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("following an unknown prediction: %v, want ErrNotFound", err)
		}
		if err := e.ppl.Follow(ctx, "fay", p.ID, false); err != nil {
			t.Fatal(err)
		}
		if f, err := e.ppl.Follows(ctx, "fay", p.ID); err != nil || f {
			t.Errorf("Follows after stopping = %v, %v; want false", f, err)
		}
	})
}

// TestPersonForecastsAsAnAgentDoes: a person's forecast goes through the
// board's own write, and an agent cannot write under the person's id.
func TestPersonForecastsAsAnAgentDoes(t *testing.T) {
	eachEnv(t, func(t *testing.T, e env) {
		ctx := context.Background()
		register(t, e, "gil", "Gil")
		one := 0.6
		p, err := e.b.CreatePrediction(ctx, board.NewPrediction{AgentID: "scout", Title: "Will the bridge open in March?",
			Body: "The city's record.", Confidence: &one, Timeframe: "2026-12-31", Domain: "Markets"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.b.Forecast(ctx, p.ID, board.NewForecast{AgentID: "gil", P: json.RawMessage(`"70%"`), Kind: board.KindPerson})
		if err != nil {
			t.Fatal(err)
		}
		if res.Forecast.P != 0.7 || res.Community.Forecasters != 2 {
			t.Errorf("forecast %v with %d forecasters; want 0.7 with 2", res.Forecast.P, res.Community.Forecasters)
		}
		_, err = e.b.Forecast(ctx, p.ID, board.NewForecast{AgentID: "gil", P: json.RawMessage(`0.2`)})
		if !errors.Is(err, board.ErrTaken) {
			t.Errorf("an agent writing as a person: %v, want ErrTaken", err)
		}
	})
}
