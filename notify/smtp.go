package notify

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"strings"
	"time"
)

// ErrConfig: an SMTP URL or mail address cannot be used. Errors wrapping
// it name the part and how to fix it.
var ErrConfig = errors.New("notify: bad configuration")

// SMTP is the mail server notifications are sent through.
type SMTP struct {
	// Host and Port locate the server.
	Host, Port string
	// ImplicitTLS connects with TLS from the start (smtps://, usually
	// port 465). Otherwise the connection starts in clear and is
	// upgraded with STARTTLS whenever the server offers it.
	ImplicitTLS bool
	// Username and Password, when Username is set, log in with AUTH
	// PLAIN, which net/smtp only does over TLS or to a loopback host.
	Username, Password string
	// From is the from= parameter of the URL: the board's address when
	// no --mail-from is given. Zero when absent.
	From mail.Address
	// TLSConfig, when set, replaces the default (system roots, server
	// name Host), for example to trust a private certificate.
	TLSConfig *tls.Config
	// LocalName is the name given in EHLO; "" means "localhost".
	LocalName string
	// Timeout bounds connecting and each message's exchange; 0 means 1
	// minute.
	Timeout time.Duration
}

// ParseURL reads a server address of the form
//
//	smtp://user:pass@host:port?from=board@example.org
//	smtps://user:pass@host:port?from=Board%20<board@example.org>
//
// smtp uses STARTTLS when the server offers it (port 587 by default),
// smtps implicit TLS (port 465 by default). User and password are
// optional and percent-encoded; from= is optional. Errors wrap
// [ErrConfig].
func ParseURL(s string) (SMTP, error) {
	bad := func(format string, a ...any) (SMTP, error) {
		return SMTP{}, fmt.Errorf("%w: --smtp-url: "+format+
			" (want smtp://user:pass@host:587?from=board@example.org, or smtps:// for implicit TLS)", append([]any{ErrConfig}, a...)...)
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad("%v", redact(err))
	}
	var c SMTP
	switch strings.ToLower(u.Scheme) {
	case "smtp":
		c.Port = "587"
	case "smtps":
		c.Port, c.ImplicitTLS = "465", true
	default:
		return bad("scheme %q is not smtp or smtps", u.Scheme)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return bad("no host")
	}
	if u.Path != "" && u.Path != "/" {
		return bad("unexpected path %q", u.Path)
	}
	c.Host = u.Hostname()
	if p := u.Port(); p != "" {
		c.Port = p
	}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
		if c.Username == "" {
			return bad("a password without a user name")
		}
	}
	for k, v := range u.Query() {
		switch {
		case k != "from":
			return bad("unknown parameter %q; only from= is read", k)
		case len(v) != 1:
			return bad("from= given %d times", len(v))
		}
		a, err := ParseAddress(v[0])
		if err != nil {
			return bad("from=: %v", err)
		}
		c.From = a
	}
	return c, nil
}

// redact drops a URL error's copy of the URL, which may hold a password.
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// ParseAddress reads one address, "board@example.org" or "Board
// <board@example.org>". Errors wrap [ErrConfig].
func ParseAddress(s string) (mail.Address, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return mail.Address{}, fmt.Errorf("%w: %q is not an e-mail address (%v); write board@example.org or \"Board <board@example.org>\"", ErrConfig, s, err)
	}
	return *a, nil
}

// String writes the server without its password, for logs.
func (c SMTP) String() string {
	u := url.URL{Scheme: "smtp", Host: net.JoinHostPort(c.Host, c.Port)}
	if c.ImplicitTLS {
		u.Scheme = "smtps"
	}
	if c.Username != "" {
		u.User = url.User(c.Username)
	}
	return u.String()
}

func (c SMTP) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return time.Minute
}

func (c SMTP) tlsConfig() *tls.Config {
	if c.TLSConfig != nil {
		return c.TLSConfig
	}
	return &tls.Config{ServerName: c.Host}
}

// conn is an open SMTP session.
type conn struct {
	net net.Conn
	c   *smtp.Client
	cfg SMTP
}

// dial connects, says EHLO, upgrades with STARTTLS when offered and logs
// in when a user is configured. Every error is a connection failure: the
// messages are retried later.
func dial(cfg SMTP) (*conn, error) {
	addr := net.JoinHostPort(cfg.Host, cfg.Port)
	d := &net.Dialer{Timeout: cfg.timeout()}
	var nc net.Conn
	var err error
	if cfg.ImplicitTLS {
		nc, err = tls.DialWithDialer(d, "tcp", addr, cfg.tlsConfig())
	} else {
		nc, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	_ = nc.SetDeadline(time.Now().Add(cfg.timeout()))
	c, err := smtp.NewClient(nc, cfg.Host)
	if err != nil {
		nc.Close()
		return nil, err
	}
	fail := func(err error) (*conn, error) {
		c.Close()
		return nil, err
	}
	name := cfg.LocalName
	if name == "" {
		name = "localhost"
	}
	if err := c.Hello(name); err != nil {
		return fail(err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok && !cfg.ImplicitTLS {
		if err := c.StartTLS(cfg.tlsConfig()); err != nil {
			return fail(fmt.Errorf("STARTTLS: %w", err))
		}
	}
	if cfg.Username != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return fail(errors.New("a user is configured but the server offers no AUTH"))
		}
		if err := c.Auth(smtp.PlainAuth("", cfg.Username, cfg.Password, cfg.Host)); err != nil {
			return fail(fmt.Errorf("AUTH: %w", err))
		}
	}
	return &conn{net: nc, c: c, cfg: cfg}, nil
}

// sendError is a failure to send one message. permanent: the server
// refused the recipient or the message for good (a 5xx reply to RCPT TO
// or DATA), so retrying cannot help. broken: the session is unusable.
type sendError struct {
	err       error
	permanent bool
	broken    bool
}

func (e *sendError) Error() string { return e.err.Error() }
func (e *sendError) Unwrap() error { return e.err }

// send sends one message in the open session.
func (c *conn) send(from, to string, msg []byte) error {
	_ = c.net.SetDeadline(time.Now().Add(c.cfg.timeout()))
	step := func(what string, err error, mayBePermanent bool) error {
		if err == nil {
			return nil
		}
		se := &sendError{err: fmt.Errorf("%s: %w", what, err)}
		var te *textproto.Error
		if errors.As(err, &te) {
			se.permanent = mayBePermanent && te.Code >= 500
			// A reply leaves the session usable after RSET.
			se.broken = c.c.Reset() != nil
		} else {
			se.broken = true
		}
		return se
	}
	// A 5xx reply to MAIL FROM is about the board's account or address,
	// not this message: it is retried (and fixed by the operator).
	if err := step("MAIL FROM", c.c.Mail(from), false); err != nil {
		return err
	}
	if err := step("RCPT TO", c.c.Rcpt(to), true); err != nil {
		return err
	}
	w, err := c.c.Data()
	if err := step("DATA", err, true); err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return &sendError{err: fmt.Errorf("DATA: %w", err), broken: true}
	}
	return step("DATA", w.Close(), true)
}

func (c *conn) close() {
	_ = c.net.SetDeadline(time.Now().Add(5 * time.Second))
	if err := c.c.Quit(); err != nil {
		c.c.Close()
	}
}
