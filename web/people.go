package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/people"
)

// People is what the pages need of the people's accounts: passkey
// ceremonies, sessions and follows. *people.Store implements it.
type People interface {
	BeginRegistration(ctx context.Context, rp people.RP, id, name string) (people.Ceremony, error)
	FinishRegistration(ctx context.Context, rp people.RP, token string, answer []byte) (people.Session, error)
	BeginSignIn(ctx context.Context, rp people.RP) (people.Ceremony, error)
	FinishSignIn(ctx context.Context, rp people.RP, token string, answer []byte) (people.Session, error)
	Session(ctx context.Context, token string) (people.Person, error)
	SignOut(ctx context.Context, token string) error
	Follow(ctx context.Context, id, predictionID string, on bool) error
	Follows(ctx context.Context, id, predictionID string) (bool, error)
	Following(ctx context.Context, id string, limit int) ([]people.Followed, error)
}

// Writer is the board's writes that a signed-in person makes from the
// pages: the same methods, rules and events as an agent's writes through
// the API. *board.Store implements it.
type Writer interface {
	Forecast(ctx context.Context, predictionID string, nf board.NewForecast) (board.ForecastResult, error)
	Reply(ctx context.Context, predictionID string, nr board.NewReply) (board.Reply, error)
}

// The session cookie. On HTTPS it carries the __Host- prefix, which
// browsers accept only with Secure, Path=/ and no Domain, so that no
// other host (a subdomain) can set it (RFC 6265bis §4.1.3.2).
const (
	sessionCookie       = "predictions_session"
	secureSessionCookie = "__Host-predictions_session"
)

// personKey is the context key of the signed-in person.
type personKey struct{}

// viewer is the person signed in on this request, or nil.
func viewer(r *http.Request) *people.Person {
	p, _ := r.Context().Value(personKey{}).(*people.Person)
	return p
}

// sessionToken is the session cookie's value on r, "" without one.
func sessionToken(r *http.Request) string {
	for _, name := range []string{secureSessionCookie, sessionCookie} {
		if c, err := r.Cookie(name); err == nil && c.Value != "" {
			return c.Value
		}
	}
	return ""
}

// withViewer looks up the session that r's cookie names and puts its
// person in r's context. A cookie that names no live session (expired,
// signed out, or from another server) is dropped, and the visitor reads
// as signed out. A database that cannot be reached reads as signed out
// too: the page still shows, and a write asks to sign in again.
func (s *server) withViewer(w http.ResponseWriter, r *http.Request) *http.Request {
	if s.opt.People == nil {
		return r
	}
	token := sessionToken(r)
	if token == "" || strings.HasPrefix(r.URL.Path, staticPrefix) {
		return r // the static files are the same for everyone: no lookup
	}
	p, err := s.opt.People.Session(r.Context(), token)
	if err != nil {
		if errors.Is(err, people.ErrNoSession) {
			s.clearSession(w, r)
		} else {
			s.log.WarnContext(r.Context(), "web: session lookup failed", "error", err.Error())
		}
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), personKey{}, &p))
}

// secure reports whether the browser reached the site over HTTPS: TLS
// here, a base URL that says https, or, behind a trusted proxy,
// X-Forwarded-Proto: https.
func (s *server) secure(r *http.Request) bool {
	return strings.HasPrefix(s.baseURL(r), "https://")
}

func (s *server) setSession(w http.ResponseWriter, r *http.Request, sess people.Session) {
	name := sessionCookie
	if s.secure(r) {
		name = secureSessionCookie
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: sess.Token, Path: "/",
		MaxAge: int(sess.Expires.Sub(s.now()).Seconds()), HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteLaxMode})
}

func (s *server) clearSession(w http.ResponseWriter, r *http.Request) {
	for _, name := range []string{secureSessionCookie, sessionCookie} {
		if _, err := r.Cookie(name); err == nil {
			http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
				Secure: name == secureSessionCookie, SameSite: http.SameSiteLaxMode})
		}
	}
}

// relyingParty is the WebAuthn relying party of this request: the host
// of the base URL (or, without one, of the request), which the browser
// checks against the page's origin.
func (s *server) relyingParty(r *http.Request) (people.RP, error) {
	u, err := url.Parse(s.baseURL(r))
	if err != nil || u.Host == "" {
		return people.RP{}, fmt.Errorf("web: no origin for passkeys: %q", s.baseURL(r))
	}
	return people.RP{ID: u.Hostname(), Origin: u.Scheme + "://" + u.Host, Name: "predictions"}, nil
}

// crossOrigin refuses a state-changing request that a browser sent from
// another site (net/http's CrossOriginProtection: Sec-Fetch-Site, else
// Origin against Host), with a 403 page.
func (s *server) crossOrigin(r *http.Request) error {
	if err := s.csrf.Check(r); err != nil {
		return &pageError{Status: http.StatusForbidden, Title: "Refused",
			Message: "This form was sent from another site, so it was not accepted.",
			Hint:    "Open the page on this site and send the form from there."}
	}
	return nil
}

// signedIn returns the person signed in, or a 401 page asking to sign in.
func signedIn(r *http.Request) (*people.Person, error) {
	if p := viewer(r); p != nil {
		return p, nil
	}
	return nil, &pageError{Status: http.StatusUnauthorized, Title: "Sign in first",
		Message: "You are not signed in, or your session ended.",
		Hint:    "Sign in with your passkey at /signin, then send the form again."}
}

// noPeople is the page of a people's route on a server without them.
func noPeople() *pageError {
	return &pageError{Status: http.StatusNotFound, Title: "No sign-in here",
		Message: "This server does not let people sign in: it has no board, or runs without people's accounts.",
		Hint:    "The board's pages can still be read."}
}

type signinPage struct {
	Person *people.Person
	Next   string
	// The board's rules for an id and a name, for the form's checks.
	IDPattern      string
	MaxID, MaxName int
	// Mail offers a sign-in link by e-mail; LinkSent says one was asked
	// for, which lasts LinkTTL.
	Mail, LinkSent bool
	LinkTTL        time.Duration
}

// signin shows the forms to register and to sign in.
func (s *server) signin(w http.ResponseWriter, r *http.Request) error {
	if s.opt.People == nil {
		return noPeople()
	}
	return s.render(w, r, http.StatusOK, "signin", "Sign in", "signin", signinPage{Person: viewer(r), Next: safeNext(r.URL.Query().Get("next")),
		IDPattern: htmlPattern(board.AgentIDPattern), MaxID: board.MaxAgentID, MaxName: board.MaxAgentName,
		Mail: s.mailOn(), LinkSent: r.URL.Query().Get("link") == "sent", LinkTTL: people.LinkTTL})
}

// safeNext is a path on this site to go to after signing in: only an
// absolute path, never another site ("//host" or a scheme).
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || strings.ContainsAny(next, "\r\n") {
		return ""
	}
	return next
}

// ceremonyAnswer is the JSON of a begun ceremony.
type ceremonyAnswer struct {
	Options json.RawMessage `json:"options"`
	Token   string          `json:"token"`
}

// jsonError is the JSON answer of a ceremony step that failed.
type jsonError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
	Hint  string `json:"hint,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ceremonyHandler serves a step of registration or sign-in: JSON in and
// out, for the page's script. Errors are JSON too: the field, what was
// wrong, how to fix it.
func (s *server) ceremonyHandler(step func(w http.ResponseWriter, r *http.Request, rp people.RP) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.opt.People == nil {
			writeJSON(w, http.StatusNotFound, jsonError{Error: noPeople().Message})
			return
		}
		if err := s.crossOrigin(r); err != nil {
			writeJSON(w, http.StatusForbidden, jsonError{Error: err.(*pageError).Message, Hint: err.(*pageError).Hint})
			return
		}
		rp, err := s.relyingParty(r)
		if err == nil {
			var out any
			if out, err = step(w, r, rp); err == nil {
				writeJSON(w, http.StatusOK, out)
				return
			}
		}
		var ve *board.ValidationError
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			writeJSON(w, http.StatusRequestEntityTooLarge, jsonError{Error: fmt.Sprintf("the passkey's answer is over %d bytes", tooBig.Limit),
				Hint: "Send the answer your browser's passkey prompt gave, unchanged."})
		case errors.As(err, &ve):
			status := http.StatusBadRequest
			if errors.Is(err, board.ErrConflict) {
				status = http.StatusConflict
			}
			writeJSON(w, status, jsonError{Error: ve.Field + " " + ve.Problem, Field: ve.Field, Hint: ve.Hint})
		case errors.Is(err, people.ErrRefused):
			writeJSON(w, http.StatusBadRequest, jsonError{Error: strings.TrimPrefix(err.Error(), "people: "),
				Hint: "Try again; if it fails again, register a new passkey."})
		case errors.Is(board.Classify(err), board.ErrUnavailable):
			w.Header().Set("Retry-After", "5")
			writeJSON(w, http.StatusServiceUnavailable, jsonError{Error: "The board's database cannot be reached just now.", Hint: "Try again in a few seconds."})
		default:
			s.log.ErrorContext(r.Context(), "web: passkey step failed", "path", r.URL.Path, "error", err.Error())
			writeJSON(w, http.StatusInternalServerError, jsonError{Error: "Something went wrong.", Hint: "Try again in a moment."})
		}
	}
}

// readAnswer reads the browser's answer to a ceremony: the body, at most
// people.MaxCredentialBytes.
func readAnswer(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, people.MaxCredentialBytes))
	if err != nil {
		return nil, fmt.Errorf("%w: the answer could not be read (%w); it may be at most %d bytes", people.ErrRefused, err, people.MaxCredentialBytes)
	}
	return b, nil
}

func (s *server) registerBegin(w http.ResponseWriter, r *http.Request, rp people.RP) (any, error) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		return nil, board.Invalid("person_id", "could not be read from the form", "send the form's fields person_id and name")
	}
	c, err := s.opt.People.BeginRegistration(r.Context(), rp, r.PostFormValue("person_id"), r.PostFormValue("name"))
	if err != nil {
		return nil, err
	}
	return ceremonyAnswer{Options: c.Options, Token: c.Token}, nil
}

func (s *server) registerFinish(w http.ResponseWriter, r *http.Request, rp people.RP) (any, error) {
	answer, err := readAnswer(w, r)
	if err != nil {
		return nil, err
	}
	sess, err := s.opt.People.FinishRegistration(r.Context(), rp, r.URL.Query().Get("token"), answer)
	if err != nil {
		return nil, err
	}
	s.setSession(w, r, sess)
	return map[string]string{"person_id": sess.Person.ID, "next": "/agents/" + url.PathEscape(sess.Person.ID)}, nil
}

func (s *server) signinBegin(w http.ResponseWriter, r *http.Request, rp people.RP) (any, error) {
	c, err := s.opt.People.BeginSignIn(r.Context(), rp)
	if err != nil {
		return nil, err
	}
	return ceremonyAnswer{Options: c.Options, Token: c.Token}, nil
}

func (s *server) signinFinish(w http.ResponseWriter, r *http.Request, rp people.RP) (any, error) {
	answer, err := readAnswer(w, r)
	if err != nil {
		return nil, err
	}
	sess, err := s.opt.People.FinishSignIn(r.Context(), rp, r.URL.Query().Get("token"), answer)
	if err != nil {
		return nil, err
	}
	s.setSession(w, r, sess)
	next := safeNext(r.URL.Query().Get("next"))
	if next == "" {
		next = "/agents/" + url.PathEscape(sess.Person.ID)
	}
	return map[string]string{"person_id": sess.Person.ID, "next": next}, nil
}

// signout ends the session the cookie names, here and on every replica
// (sessions live in the board's database), and drops the cookie.
func (s *server) signout(w http.ResponseWriter, r *http.Request) error {
	if s.opt.People == nil {
		return noPeople()
	}
	if err := s.crossOrigin(r); err != nil {
		return err
	}
	if token := sessionToken(r); token != "" {
		if err := s.opt.People.SignOut(r.Context(), token); err != nil {
			return err
		}
	}
	s.clearSession(w, r)
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// Form limits.
const (
	// maxPersonForm bounds a forecast, reply or follow form's body: a
	// reply of board.MaxReply characters, percent-encoded (up to 9 bytes
	// a character), and the other fields.
	maxPersonForm = 9*board.MaxReply + 4<<10
)

// personWrite checks what every person's form needs (people configured,
// a same-site request, a signed-in person, a board to write, a valid
// prediction id) and parses the form.
func (s *server) personWrite(w http.ResponseWriter, r *http.Request) (*people.Person, string, error) {
	if s.opt.People == nil || s.opt.Writer == nil {
		return nil, "", noPeople()
	}
	if err := s.crossOrigin(r); err != nil {
		return nil, "", err
	}
	p, err := signedIn(r)
	if err != nil {
		return nil, "", err
	}
	if err := s.limitWrite(w, r, p.ID); err != nil {
		return nil, "", err
	}
	id := r.PathValue("id")
	if !board.ValidPredictionID(id) {
		return nil, "", notFoundError("prediction", id)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxPersonForm)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, "", &pageError{Status: http.StatusRequestEntityTooLarge, Title: "Too large",
				Message: fmt.Sprintf("The form is larger than %d bytes.", maxPersonForm), Hint: "Shorten the text and send it again."}
		}
		return nil, "", &pageError{Status: http.StatusBadRequest, Title: "Bad form", Message: "The form could not be read.", Hint: "Send it again from the page."}
	}
	return p, id, nil
}

// limitWrite takes one write from the person's budget, the same
// per-forecaster limit as an agent's API writes (a 429 page with
// Retry-After over it). A write refused afterwards is not given back:
// forms are few, and a refused one is still a request.
func (s *server) limitWrite(w http.ResponseWriter, r *http.Request, id string) error {
	if s.host == nil {
		return nil
	}
	if _, err := s.host.LimitAgent(w, r, id); err != nil {
		var he *httpio.Error
		msg, hint := "You are sending forms faster than the board takes them.", "Wait a moment and send it again."
		if errors.As(err, &he) {
			msg, hint = sentence(he.Problem), sentence(he.Hint)
		}
		return &pageError{Status: http.StatusTooManyRequests, Title: "Too many writes", Message: msg, Hint: hint}
	}
	return nil
}

// formError is a board's refusal of a person's form, as a page that
// names the field: a 400, or a 409 for a closed question or a taken id.
func formError(err error, field string) error {
	var ve *board.ValidationError
	if !errors.As(err, &ve) {
		return notFoundAs(err, "prediction", "")
	}
	status := http.StatusBadRequest
	if errors.Is(err, board.ErrClosed) || errors.Is(err, board.ErrConflict) {
		status = http.StatusConflict
	}
	f := ve.Field
	if f == "p" {
		f = field
	}
	return &pageError{Status: status, Title: "Not accepted", Field: f, Message: f + " " + ve.Problem + ".", Hint: sentence(ve.Hint)}
}

// forecast records a signed-in person's forecast from the question
// page's form: the percent field p ("62", "62%" or "62.5"), read as
// percent by the one rule of the board's input ("62%"), and an optional
// note. It then shows the question again, at the person's forecast.
func (s *server) forecast(w http.ResponseWriter, r *http.Request) error {
	p, id, err := s.personWrite(w, r)
	if err != nil {
		return err
	}
	v := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(r.PostFormValue("p")), "%"))
	if v == "" {
		return &pageError{Status: http.StatusBadRequest, Title: "Not accepted", Field: "p",
			Message: "p is empty: give your forecast in percent.", Hint: "Write a number from 0 to 100, such as 62."}
	}
	if _, err := strconv.ParseFloat(v, 64); err != nil {
		return &pageError{Status: http.StatusBadRequest, Title: "Not accepted", Field: "p",
			Message: fmt.Sprintf("p %q is not a number.", v), Hint: "Write a number from 0 to 100, such as 62 or 62.5."}
	}
	raw, _ := json.Marshal(v + "%")
	nf := board.NewForecast{AgentID: p.ID, P: raw, Note: r.PostFormValue("note"), Kind: board.KindPerson}
	if _, err := s.opt.Writer.Forecast(r.Context(), id, nf); err != nil {
		if errors.Is(err, board.ErrNotFound) {
			return notFoundError("prediction", id)
		}
		return formError(err, "p")
	}
	http.Redirect(w, r, "/predictions/"+url.PathEscape(id)+"#your-forecast", http.StatusSeeOther)
	return nil
}

// replyTags are the coordination tags a person's reply may start with,
// as the form offers them.
var replyTags = map[string]string{"": "", "agree": "[AGREE] ", "disagree": "[DISAGREE] ", "challenge": "[CHALLENGE] ", "debate": "[DEBATE] "}

// reply records a signed-in person's reply from the thread's form: the
// body, a coordination tag chosen from the four, and optionally the
// reply it answers (parent_id).
func (s *server) reply(w http.ResponseWriter, r *http.Request) error {
	p, id, err := s.personWrite(w, r)
	if err != nil {
		return err
	}
	tag, ok := replyTags[r.PostFormValue("tag")]
	if !ok {
		return &pageError{Status: http.StatusBadRequest, Title: "Not accepted", Field: "tag",
			Message: fmt.Sprintf("tag %q is not a coordination tag.", r.PostFormValue("tag")), Hint: "Choose none, agree, disagree, challenge or debate."}
	}
	body := strings.TrimSpace(r.PostFormValue("body"))
	nr := board.NewReply{AgentID: p.ID, Body: tag + body, ParentID: r.PostFormValue("parent_id"), Kind: board.KindPerson}
	if body == "" {
		nr.Body = ""
	}
	rep, err := s.opt.Writer.Reply(r.Context(), id, nr)
	if err != nil {
		if errors.Is(err, board.ErrNotFound) && nr.ParentID == "" {
			return notFoundError("prediction", id)
		}
		return formError(err, "body")
	}
	http.Redirect(w, r, "/predictions/"+url.PathEscape(id)+"#reply-"+url.PathEscape(rep.ID), http.StatusSeeOther)
	return nil
}

// follow makes the signed-in person follow the question, or stop (the
// form's field on is "0").
func (s *server) follow(w http.ResponseWriter, r *http.Request) error {
	p, id, err := s.personWrite(w, r)
	if err != nil {
		return err
	}
	if err := s.opt.People.Follow(r.Context(), p.ID, id, r.PostFormValue("on") != "0"); err != nil {
		if errors.Is(err, board.ErrNotFound) {
			return notFoundError("prediction", id)
		}
		return formError(err, "prediction_id")
	}
	http.Redirect(w, r, "/predictions/"+url.PathEscape(id)+"#follow", http.StatusSeeOther)
	return nil
}

// htmlPattern is a Go regular expression anchored by ^ and $ as an HTML
// pattern attribute takes it: unanchored (the attribute anchors it), and
// with a hyphen in a class escaped, which the attribute's "v" flag
// requires (HTML §4.10.5.3.6, ECMAScript's ClassSetSyntaxCharacter).
func htmlPattern(re string) string {
	re = strings.TrimSuffix(strings.TrimPrefix(re, "^"), "$")
	return strings.ReplaceAll(re, "-]", `\-]`)
}
