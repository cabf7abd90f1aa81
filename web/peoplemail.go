package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/people"
)

// PeopleMail is the people's e-mail: a confirmed address added from
// their own page, and sign-in by a one-time link sent to it.
// *people.Store implements it.
type PeopleMail interface {
	AddEmail(ctx context.Context, id, addr string) (mailbox.Registered, error)
	Email(ctx context.Context, id string) (string, error)
	SendSignInLink(ctx context.Context, addr string) error
	SignInByLink(ctx context.Context, token string) (people.Session, error)
}

// maxEmailForm bounds the body of a form that carries an address (or a
// link's token): the longest address, percent-encoded, and a field name.
const maxEmailForm = 4 << 10

// mailOn reports whether people can use e-mail here.
func (s *server) mailOn() bool {
	return s.opt.People != nil && s.opt.PeopleMail != nil
}

// emailForm checks what every e-mail form needs (e-mail on, a same-site
// request) and parses the form.
func (s *server) emailForm(w http.ResponseWriter, r *http.Request) error {
	if !s.mailOn() {
		return &pageError{Status: http.StatusNotFound, Title: "No e-mail here",
			Message: "This server sends no e-mail, so there is no sign-in link and no address to add.",
			Hint:    "Sign in with your passkey at /signin."}
	}
	if err := s.crossOrigin(r); err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxEmailForm)
	if err := r.ParseForm(); err != nil {
		return &pageError{Status: http.StatusBadRequest, Title: "Bad form", Field: "email",
			Message: "The form could not be read.", Hint: "Send it again from the page."}
	}
	return nil
}

// emailError is the page of a refused e-mail form: the field and the
// problem for a validation error or a conflict, a 429 with Retry-After
// for a cap reached.
func emailError(w http.ResponseWriter, err error) error {
	var le *mailbox.LimitError
	var ve *board.ValidationError
	switch {
	case errors.As(err, &le):
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(le.RetryAfter.Seconds()+0.5))))
		return &pageError{Status: http.StatusTooManyRequests, Title: "Too many messages", Field: le.Field,
			Message: le.Field + " " + le.Problem + ".", Hint: sentence(le.Hint)}
	case errors.As(err, &ve):
		status := http.StatusBadRequest
		if errors.Is(err, board.ErrConflict) {
			status = http.StatusConflict
		}
		return &pageError{Status: status, Title: "Not accepted", Field: ve.Field, Message: ve.Field + " " + ve.Problem + ".", Hint: sentence(ve.Hint)}
	case errors.Is(err, people.ErrNoMail):
		return &pageError{Status: http.StatusNotFound, Title: "No e-mail here", Message: "This server sends no e-mail."}
	}
	return err
}

// sendLink e-mails a sign-in link to the address of the sign-in page's
// form when it is a person's confirmed address, and answers alike
// either way: the page then says that a link is on its way if the
// address is known.
func (s *server) sendLink(w http.ResponseWriter, r *http.Request) error {
	if err := s.emailForm(w, r); err != nil {
		return err
	}
	if err := s.opt.PeopleMail.SendSignInLink(r.Context(), r.PostFormValue("email")); err != nil {
		return emailError(w, err)
	}
	http.Redirect(w, r, "/signin?link=sent#email-link", http.StatusSeeOther)
	return nil
}

type linkPage struct {
	Token string
	TTL   time.Duration
}

// linkPageShow is the page of a sign-in link: a button that signs in by
// POST. The GET itself uses nothing up, since mail scanners fetch links
// before people do; the page's own address, which holds the token, is
// sent to no one (Referrer-Policy: no-referrer).
func (s *server) linkPageShow(w http.ResponseWriter, r *http.Request) error {
	if !s.mailOn() {
		return noPeople()
	}
	w.Header().Set("Referrer-Policy", "no-referrer")
	return s.render(w, r, http.StatusOK, "signinlink", "Sign in", "signin", linkPage{Token: r.URL.Query().Get("token"), TTL: people.LinkTTL})
}

// signInByLink signs in with the token of a sign-in link, once, and
// sets the same session cookie as a passkey.
func (s *server) signInByLink(w http.ResponseWriter, r *http.Request) error {
	if err := s.emailForm(w, r); err != nil {
		return err
	}
	sess, err := s.opt.PeopleMail.SignInByLink(r.Context(), r.PostFormValue("token"))
	if errors.Is(err, people.ErrLink) {
		return &pageError{Status: http.StatusBadRequest, Title: "Link not accepted", Field: "token",
			Message: sentence(strings.TrimPrefix(err.Error(), "people: ")), Hint: "Ask for a new link at /signin, or sign in with your passkey."}
	}
	if err != nil {
		return err
	}
	s.setSession(w, r, sess)
	http.Redirect(w, r, "/agents/"+url.PathEscape(sess.Person.ID), http.StatusSeeOther)
	return nil
}

// addEmail registers an address for the signed-in person from their own
// page; the confirmation message's link confirms it.
func (s *server) addEmail(w http.ResponseWriter, r *http.Request) error {
	if err := s.emailForm(w, r); err != nil {
		return err
	}
	p, err := signedIn(r)
	if err != nil {
		return err
	}
	if id := r.PathValue("id"); id != p.ID {
		return &pageError{Status: http.StatusForbidden, Title: "Refused",
			Message: fmt.Sprintf("You are signed in as %q: an address is added on your own page only.", p.ID),
			Hint:    "Open your own page from the link at the top and add it there."}
	}
	if _, err := s.opt.PeopleMail.AddEmail(r.Context(), p.ID, r.PostFormValue("email")); err != nil {
		return emailError(w, err)
	}
	http.Redirect(w, r, "/agents/"+url.PathEscape(p.ID)+"?email=sent#email", http.StatusSeeOther)
	return nil
}
