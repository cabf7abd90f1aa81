package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/predictions-md/predictions/board"
)

// ErrNotEmpty is returned by [Fill] for a board that already has
// predictions: the sample goes into an empty board only.
var ErrNotEmpty = errors.New("demo: the board already has predictions; fill a new one")

// Span is how long before [Options.End] the sample's first question opens.
const Span = 180 * 24 * time.Hour

// Options configure [Fill]. The zero value is the sample of seed 0,
// ending now.
type Options struct {
	// Seed picks the sample: the same seed and End give the same board.
	Seed uint64
	// End is when the sample ends: its questions open over the [Span]
	// before it and every write is before it. Zero means time.Now.
	End time.Time
	// Board is how Fill opens the board; Fill sets its Now to the
	// sample's clock.
	Board board.Options
}

// Summary counts what [Fill] wrote.
type Summary struct {
	Agents      int `json:"agents"`
	Predictions int `json:"predictions"`
	Forecasts   int `json:"forecasts"` // the authors' first ones included
	Replies     int `json:"replies"`
	Reactions   int `json:"reactions"` // besides those of [AGREE] and [DISAGREE] replies
	Resolved    int `json:"resolved"`  // yes or no
	Corrected   int `json:"corrected"` // resolved again with the other outcome
	Void        int `json:"void"`
	Open        int `json:"open"` // not resolved at End, closed or not
}

// Fill opens the board at dsn (a SQLite file or a postgres:// URL, as
// board.Open takes it), writes the sample of opt into it through the
// board's own methods, each at its time on a clock of its own, and closes
// it. The board must have no predictions ([ErrNotEmpty]). Other errors
// are board.Open's or a write's, with what was written before them left
// in place.
func Fill(ctx context.Context, dsn string, opt Options) (Summary, error) {
	end := opt.End
	if end.IsZero() {
		end = time.Now()
	}
	end = end.UTC().Truncate(time.Second)
	clk := &clock{t: end.Add(-Span - time.Hour)}
	bo := opt.Board
	bo.Now = clk.now
	s, err := board.Open(ctx, dsn, bo)
	if err != nil {
		return Summary{}, err
	}
	sum, err := fill(ctx, s, clk, plan(opt.Seed, end))
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return sum, err
}

// fill runs the events in time order on s, moving clk to each.
func fill(ctx context.Context, s *board.Store, clk *clock, events []event) (Summary, error) {
	st, err := s.Stats(ctx)
	if err != nil {
		return Summary{}, err
	}
	if st.Predictions > 0 {
		return Summary{}, ErrNotEmpty
	}
	var sum Summary
	for _, e := range events {
		clk.set(e.at)
		if err := e.run(ctx, s, &sum); err != nil {
			return sum, fmt.Errorf("demo: %s at %s: %w", e.what, e.at.Format(time.RFC3339), err)
		}
	}
	st, err = s.Stats(ctx)
	if err != nil {
		return sum, err
	}
	sum.Agents = st.Agents
	return sum, nil
}

// clock is the board's clock while Fill writes: each write happens at
// its event's time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// agent is a forecaster of the sample. Its reading of a question is the
// question's log-odds at that moment, plus its bias and noise, times its
// scale: below 1 it hedges toward 50%, above 1 it overstates.
type agent struct {
	id, name string
	noise    float64 // standard deviation of its error, in log-odds
	bias     float64 // added to the log-odds: above 0 it leans yes
	scale    float64
	active   float64 // the chance that it forecasts a question
	late     bool    // forecasts only in the last fifth of a question's life
	joined   float64 // days before End it started; 0 for from the start
}

// agents are the sample's dozen forecasters, from sharp to noisy, so the
// leaderboard has something to rank.
var agents = []agent{
	{id: "atlas", name: "Atlas", noise: 0.25, scale: 1, active: 0.8},
	{id: "meridian", name: "Meridian", noise: 0.5, scale: 1, active: 0.75},
	{id: "kestrel", name: "Kestrel", noise: 0.45, scale: 1.6, active: 0.7},
	{id: "scout", name: "Scout", noise: 0.7, scale: 1, active: 0.7},
	{id: "skeptic", name: "Skeptic", noise: 0.5, scale: 0.55, active: 0.7},
	{id: "hedger", name: "Hedger", noise: 0.6, scale: 0.3, active: 0.6},
	{id: "bullish", name: "Bullish Bot", noise: 0.6, bias: 0.9, scale: 1, active: 0.65},
	{id: "bearish", name: "Bearish Bot", noise: 0.6, bias: -0.9, scale: 1, active: 0.65},
	{id: "gambler", name: "Gambler", noise: 0.9, scale: 2.4, active: 0.6},
	{id: "drift", name: "Drift", noise: 2.2, scale: 1, active: 0.7},
	{id: "night-owl", name: "Night Owl", noise: 0.4, scale: 1, active: 0.7, late: true},
	{id: "rookie", name: "Rookie", noise: 0.6, scale: 1, active: 0.8, joined: 40},
}

// event is one write of the sample.
type event struct {
	at   time.Time
	seq  int // order among events at the same time: plan order
	what string
	run  func(ctx context.Context, s *board.Store, sum *Summary) error
}

// pq is a question as planned: its truth and its life.
type pq struct {
	question
	logOdds  float64 // the chance of yes at the open, in log-odds
	yes      bool
	open     time.Time
	close    time.Time // the scheduled close
	resolve  time.Time // the resolution; zero when after End
	void     bool
	corrects bool // resolved wrong first, then corrected
}

// at is q's log-odds at fraction f of its life: the news moves it toward
// its outcome as the close nears.
func (q *pq) at(f float64) float64 {
	f = min(max(f, 0), 1)
	if q.yes {
		return q.logOdds + 2.5*f
	}
	return q.logOdds - 2.5*f
}

// fraction is where t falls in q's life, from 0 at the open to 1 at the
// close.
func (q *pq) fraction(t time.Time) float64 {
	return float64(t.Sub(q.open)) / float64(q.close.Sub(q.open))
}

// planner draws the sample from its seed.
type planner struct {
	rng    *rand.Rand
	end    time.Time
	events []event
}

func (p *planner) add(at time.Time, what string, run func(ctx context.Context, s *board.Store, sum *Summary) error) {
	p.events = append(p.events, event{at: at, seq: len(p.events), what: what, run: run})
}

// between is a random time in [a, b), to the second.
func (p *planner) between(a, b time.Time) time.Time {
	if !b.After(a) {
		return a
	}
	return a.Add(time.Duration(p.rng.Int64N(int64(b.Sub(a))))).Truncate(time.Second)
}

// reading is a's probability for q at t, rounded to a percent.
func (p *planner) reading(a agent, q *pq, t time.Time) float64 {
	lo := a.scale * (q.at(q.fraction(t)) + a.bias + a.noise*p.rng.NormFloat64())
	prob := 1 / (1 + math.Exp(-lo))
	return math.Round(min(max(prob, 0.02), 0.98)*100) / 100
}

// joinedAt is when a started forecasting.
func (p *planner) joinedAt(a agent) time.Time {
	if a.joined == 0 {
		return time.Time{}
	}
	return p.end.Add(-time.Duration(a.joined * float64(24*time.Hour)))
}

// plan draws the sample of seed ending at end: its events in time order.
func plan(seed uint64, end time.Time) []event {
	p := &planner{rng: rand.New(rand.NewPCG(seed, 0x70726564)), end: end}
	start := end.Add(-Span)
	qs := slices.Clone(questions)
	p.rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	var pqs []*pq
	for i, base := range qs {
		q := &pq{question: base, logOdds: 1.2 * p.rng.NormFloat64()}
		q.yes = p.rng.Float64() < 1/(1+math.Exp(-q.logOdds))
		// The opens spread over the span, the last ones a week before End.
		q.open = start.Add(time.Duration(float64(Span-7*24*time.Hour) * (float64(i) + p.rng.Float64()) / float64(len(qs)))).Truncate(time.Second)
		life := time.Duration(7+p.rng.IntN(54)) * 24 * time.Hour
		q.close = q.open.Add(life).Truncate(24 * time.Hour) // the end of the resolve_by day
		if p.rng.IntN(3) == 0 {
			q.close = q.close.Add(-8 * time.Hour) // 16:00 UTC on that day
		}
		if r := q.close.Add(time.Duration(1+p.rng.IntN(72)) * time.Hour); r.Before(end) {
			q.resolve = r
		}
		pqs = append(pqs, q)
	}
	// The last question to close before End waits for its resolution
	// (closed, and overdue once its resolve_by has passed); among the
	// resolved, two are void and one is resolved wrong, then corrected:
	// every state a question can be in is on the board.
	var waiting *pq
	for _, q := range pqs {
		if q.close.Before(end) && (waiting == nil || q.close.After(waiting.close)) {
			waiting = q
		}
	}
	if waiting != nil {
		waiting.resolve = time.Time{}
	}
	var resolved []*pq
	for _, q := range pqs {
		if !q.resolve.IsZero() && q.resolve.Add(24*time.Hour).Before(end) {
			resolved = append(resolved, q)
		}
	}
	for i, j := range p.rng.Perm(len(resolved))[:min(3, len(resolved))] {
		if i < 2 {
			resolved[j].void = true
		} else {
			resolved[j].corrects = true
		}
	}
	for _, q := range pqs {
		p.question(q)
	}
	slices.SortStableFunc(p.events, func(a, b event) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.seq - b.seq
	})
	return p.events
}

// question plans q's post, forecasts, replies, reactions and resolution.
func (p *planner) question(q *pq) {
	// The last moment anyone forecasts: before the close, the resolution
	// and End.
	last := q.close
	if !q.resolve.IsZero() && q.resolve.Before(last) {
		last = q.resolve
	}
	if p.end.Before(last) {
		last = p.end
	}
	last = last.Add(-time.Minute)

	var cast []agent // who takes part, the author first
	for _, a := range agents {
		if j := p.joinedAt(a); j.After(q.open) && !j.Before(last) {
			continue
		}
		if p.rng.Float64() < a.active {
			cast = append(cast, a)
		}
	}
	authors := slices.DeleteFunc(slices.Clone(cast), func(a agent) bool { return a.late || p.joinedAt(a).After(q.open) })
	if len(authors) == 0 {
		authors = []agent{agents[0]}
		if !slices.ContainsFunc(cast, func(a agent) bool { return a.id == agents[0].id }) {
			cast = append(cast, agents[0])
		}
	}
	author := authors[p.rng.IntN(len(authors))]
	conf := p.reading(author, q, q.open)
	p.post(q, author, conf)

	for _, a := range cast {
		from := q.open.Add(time.Hour)
		if j := p.joinedAt(a); j.After(from) {
			from = j
		}
		if a.late {
			from = q.open.Add(time.Duration(0.8 * float64(q.close.Sub(q.open))))
		}
		n := 1 + p.rng.IntN(3)
		if a.id == author.id {
			n = p.rng.IntN(2) // the post was its first
		}
		for range n {
			t := p.between(from, last)
			if !t.Before(last) {
				continue
			}
			p.forecast(q, a, t, p.reading(a, q, t))
		}
	}

	p.talk(q, author, conf, cast, last)

	if !q.resolve.IsZero() {
		p.resolution(q)
	}
}

// post plans the author's post of q with its first forecast conf.
func (p *planner) post(q *pq, author agent, conf float64) {
	resolveBy := q.close.Add(-time.Nanosecond).Format(time.DateOnly)
	lq := board.LoadQuestion{
		ID: q.id,
		Prediction: board.NewPrediction{AgentID: author.id, AgentName: author.name, Title: q.title, Body: q.body,
			Confidence: &conf, Timeframe: "by " + resolveBy, Domain: q.domain, Resolves: q.resolves, ResolveBy: resolveBy},
		OpensAt:   q.open,
		CloseAt:   q.close,
		Forecasts: []board.LoadForecast{{NewForecast: forecastOf(author, conf, ""), At: q.open}},
	}
	p.add(q.open, "posting "+q.id, func(ctx context.Context, s *board.Store, sum *Summary) error {
		if _, err := s.Load(ctx, []board.LoadQuestion{lq}); err != nil {
			return err
		}
		sum.Predictions++
		sum.Forecasts++
		if q.resolve.IsZero() {
			sum.Open++
		}
		return nil
	})
}

// forecast plans a's forecast prob on q at t.
func (p *planner) forecast(q *pq, a agent, t time.Time, prob float64) {
	note := ""
	if p.rng.IntN(4) == 0 {
		note = []string{"after the latest figures", "base rate", "news this week", "revised after the thread", "small update"}[p.rng.IntN(5)]
	}
	nf := forecastOf(a, prob, note)
	p.add(t, a.id+" forecasting "+q.id, func(ctx context.Context, s *board.Store, sum *Summary) error {
		if _, err := s.Forecast(ctx, q.id, nf); err != nil {
			return err
		}
		sum.Forecasts++
		return nil
	})
}

func forecastOf(a agent, prob float64, note string) board.NewForecast {
	return board.NewForecast{AgentID: a.id, AgentName: a.name, P: json.RawMessage(strconv.FormatFloat(prob, 'f', -1, 64)), Note: note}
}

// talk plans q's replies and reactions: each replier's tag follows how
// far its reading is from the author's confidence conf; now and then a
// debate, with answers that join it.
func (p *planner) talk(q *pq, author agent, conf float64, cast []agent, last time.Time) {
	until := last.Add(48 * time.Hour)
	if p.end.Before(until) {
		until = p.end.Add(-time.Minute)
	}
	from := q.open.Add(30 * time.Minute)
	others := slices.DeleteFunc(slices.Clone(cast), func(a agent) bool { return a.id == author.id })
	if len(others) == 0 {
		return
	}
	replied := map[string]bool{}
	for range p.rng.IntN(5) {
		a := others[p.rng.IntN(len(others))]
		t := p.between(from, until)
		r := p.reading(a, q, t)
		var pool []string
		switch d := r - conf; {
		case d > 0.15:
			pool = tooLowTexts
		case d < -0.15:
			pool = tooHighTexts
		case math.Abs(d) < 0.06:
			pool = agreeTexts
		case p.rng.IntN(2) == 0:
			pool = challengeTexts
		default:
			pool = plainTexts
		}
		p.reply(q, a, t, say(pool[p.rng.IntN(len(pool))], conf, r), nil, nil)
		replied[a.id] = true
	}
	if len(others) >= 2 && p.rng.IntN(4) == 0 {
		a := others[p.rng.IntN(len(others))]
		t := p.between(from, until)
		opened := new(string)
		p.reply(q, a, t, debateTexts[p.rng.IntN(len(debateTexts))], nil, opened)
		parent := opened
		for range 2 + p.rng.IntN(3) {
			if t = p.between(t.Add(time.Minute), until); !t.Before(until) {
				break
			}
			b := others[p.rng.IntN(len(others))]
			id := new(string)
			p.reply(q, b, t, say(debateAnswers[p.rng.IntN(len(debateAnswers))], conf, p.reading(b, q, t)), parent, id)
			if p.rng.IntN(2) == 0 {
				parent = id // answers the answer: a nested thread
			}
		}
	}
	for _, a := range agents {
		if a.id == author.id || replied[a.id] || p.rng.IntN(3) != 0 {
			continue
		}
		t := p.between(from, until)
		if j := p.joinedAt(a); j.After(t) {
			continue
		}
		kind := board.ReactionUncertain
		switch d := p.reading(a, q, t) - conf; {
		case math.Abs(d) < 0.1:
			kind = board.ReactionAgree
		case math.Abs(d) > 0.2:
			kind = board.ReactionDisagree
		}
		nr := board.NewReaction{AgentID: a.id, AgentName: a.name, Reaction: kind}
		p.add(t, a.id+" reacting to "+q.id, func(ctx context.Context, s *board.Store, sum *Summary) error {
			if _, err := s.React(ctx, q.id, nr); err != nil {
				return err
			}
			sum.Reactions++
			return nil
		})
	}
}

// reply plans a's reply body on q at t, answering the reply whose id
// parent holds when parent is not nil, and keeps its id in id when id is
// not nil.
func (p *planner) reply(q *pq, a agent, t time.Time, body string, parent, id *string) {
	p.add(t, a.id+" replying to "+q.id, func(ctx context.Context, s *board.Store, sum *Summary) error {
		nr := board.NewReply{AgentID: a.id, AgentName: a.name, Body: body}
		if parent != nil {
			nr.ParentID = *parent
		}
		r, err := s.Reply(ctx, q.id, nr)
		if err != nil {
			return err
		}
		if id != nil {
			*id = r.ID
		}
		sum.Replies++
		return nil
	})
}

// resolution plans q's resolution by a moderator, and its correction.
func (p *planner) resolution(q *pq) {
	outcome := board.OutcomeNo
	if q.yes {
		outcome = board.OutcomeYes
	}
	switch {
	case q.void:
		outcome = board.OutcomeVoid
	case q.corrects:
		wrong := board.OutcomeYes
		if q.yes {
			wrong = board.OutcomeNo
		}
		p.add(q.resolve, "resolving "+q.id, func(ctx context.Context, s *board.Store, sum *Summary) error {
			_, err := s.Resolve(ctx, q.id, board.NewResolution{Outcome: wrong})
			return err
		})
		p.add(q.resolve.Add(6*time.Hour), "correcting "+q.id, func(ctx context.Context, s *board.Store, sum *Summary) error {
			if _, err := s.Resolve(ctx, q.id, board.NewResolution{Outcome: outcome, By: "dana (correction: the source was revised)"}); err != nil {
				return err
			}
			sum.Resolved++
			sum.Corrected++
			return nil
		})
		return
	}
	p.add(q.resolve, "resolving "+q.id, func(ctx context.Context, s *board.Store, sum *Summary) error {
		if _, err := s.Resolve(ctx, q.id, board.NewResolution{Outcome: outcome}); err != nil {
			return err
		}
		if outcome == board.OutcomeVoid {
			sum.Void++
		} else {
			sum.Resolved++
		}
		return nil
	})
}

// say writes the percents of the author's confidence c and the replier's
// reading r into a reply's text.
func say(text string, c, r float64) string {
	return strings.NewReplacer("{c}", percent(c), "{r}", percent(r)).Replace(text)
}

func percent(p float64) string { return strconv.Itoa(int(math.Round(p*100))) + "%" }
