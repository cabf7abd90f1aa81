// Package smtptest runs an SMTP server on loopback for tests: it records
// the messages it accepts and can be told to refuse them, as a mail
// server in an outage would. It wraps github.com/emersion/go-smtp's
// server.
//
//	srv := smtptest.Start(t, smtptest.Options{})
//	// send to srv.Addr ...
//	msgs := srv.Messages()
package smtptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/mail"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one message the server accepted.
type Message struct {
	From string   // MAIL FROM
	To   []string // RCPT TO
	Data []byte   // as received after DATA
	TLS  bool     // the session was encrypted (STARTTLS)
	User string   // the authenticated user, "" without AUTH
}

// Options configure [Start].
type Options struct {
	// TLS offers STARTTLS with a self-signed certificate for 127.0.0.1;
	// [Server.ClientTLS] trusts it.
	TLS bool
	// Username and Password, when set, are required (AUTH PLAIN, allowed
	// without TLS since the server is on loopback).
	Username, Password string
	// Delay holds each message this long before accepting it, like a slow
	// server; 0 means none. [Server.SetDelay] changes it.
	Delay time.Duration
}

// Server is a running test server.
type Server struct {
	// Addr is host:port on 127.0.0.1.
	Addr string

	mu       sync.Mutex
	messages []Message
	refuse   *smtp.SMTPError
	delay    time.Duration
	held     int // messages received and not yet accepted, during the delay
	arrived  chan struct{}
	srv      *smtp.Server
	opt      Options
	roots    *x509.CertPool
}

// Start starts a server and stops it when the test ends.
func Start(tb testing.TB, opt Options) *Server {
	tb.Helper()
	s := &Server{opt: opt, delay: opt.Delay, arrived: make(chan struct{}, 1000)}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{s: s, c: c}, nil
	}))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	if opt.TLS {
		cert, roots, err := selfSigned()
		if err != nil {
			tb.Fatal(err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		s.roots = roots
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	s.srv = srv
	go srv.Serve(ln) //nolint:errcheck // returns when closed
	tb.Cleanup(func() { srv.Close() })
	return s
}

// ClientTLS is a client configuration that trusts the server's certificate.
func (s *Server) ClientTLS() *tls.Config {
	return &tls.Config{RootCAs: s.roots, ServerName: "127.0.0.1"}
}

// Refuse makes the server answer MAIL FROM with code and text until
// Accept is called (for example 421 or 451 for an outage, 550 for a
// permanent refusal, which is given at RCPT TO).
func (s *Server) Refuse(code int, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 0, 0}, Message: text}
}

// Accept undoes Refuse.
func (s *Server) Accept() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = nil
}

// SetDelay makes the server hold each message d before accepting it, from
// the next message on (a message already held keeps its delay): a server
// that slows down. A client that gives up or dies while its message is
// held does not take it back: the message was received, as a real server
// that commits before its answer is lost would deliver it.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Held is how many messages the server has received and holds for its
// delay, not accepted yet: a client is waiting for the answer.
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// Messages returns the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Wait blocks until n messages have arrived in all, or the timeout ends;
// it returns the messages.
func (s *Server) Wait(n int, timeout time.Duration) []Message {
	deadline := time.After(timeout)
	for {
		if m := s.Messages(); len(m) >= n {
			return m
		}
		select {
		case <-s.arrived:
		case <-deadline:
			return s.Messages()
		}
	}
}

type session struct {
	s    *Server
	c    *smtp.Conn
	msg  Message
	user string
}

func (ss *session) refusal() *smtp.SMTPError {
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	return ss.s.refuse
}

func (ss *session) AuthMechanisms() []string {
	if ss.s.opt.Username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != ss.s.opt.Username || password != ss.s.opt.Password {
			return errors.New("invalid username or password")
		}
		ss.user = username
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.opt.Username != "" && ss.user == "" {
		return smtp.ErrAuthRequired
	}
	if r := ss.refusal(); r != nil && r.Code < 500 {
		return r
	}
	ss.msg = Message{From: from}
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if r := ss.refusal(); r != nil && r.Code >= 500 {
		return r
	}
	ss.msg.To = append(ss.msg.To, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.msg.Data = b
	ss.s.mu.Lock()
	delay := ss.s.delay
	ss.s.held++
	ss.s.mu.Unlock()
	time.Sleep(delay)
	_, ss.msg.TLS = ss.c.TLSConnectionState()
	ss.msg.User = ss.user
	ss.s.mu.Lock()
	ss.s.held--
	ss.s.messages = append(ss.s.messages, ss.msg)
	ss.s.mu.Unlock()
	select {
	case ss.s.arrived <- struct{}{}:
	default:
	}
	return nil
}

func (ss *session) Reset()        { ss.msg = Message{} }
func (ss *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "smtptest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots, nil
}

// Header returns a header of a received message, unfolded and not
// decoded; "" when absent or when the message cannot be read.
func (m Message) Header(name string) string {
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		return ""
	}
	return msg.Header.Get(name)
}
