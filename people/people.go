package people

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/mailbox"
)

// Limits and lifetimes.
const (
	// SessionTTL is how long a sign-in lasts when [Options.SessionTTL]
	// is 0: 30 days, after which the person signs in again.
	SessionTTL = 30 * 24 * time.Hour
	// CeremonyTTL is how long a registration or sign-in may take between
	// its two steps: 5 minutes, the WebAuthn Level 3 recommendation's
	// upper range for a timeout.
	CeremonyTTL = 5 * time.Minute
	// MaxCredentialBytes bounds the authenticator's answer a finishing
	// step reads: a passkey's attestation is a few KiB.
	MaxCredentialBytes = 64 << 10
	// MaxFollows bounds the predictions one person follows.
	MaxFollows = 1000
)

// Errors of the people's methods. Test for them with [errors.Is]; input
// errors are *[board.ValidationError] naming the field.
var (
	// ErrNoSession: the token is not a session of this board, or it
	// expired or was signed out. The person signs in again.
	ErrNoSession = errors.New("people: not signed in")
	// ErrRefused: the authenticator's answer was not accepted (a forged,
	// replayed or expired ceremony, a passkey this board does not know).
	ErrRefused = errors.New("people: passkey not accepted")
)

// Options configure [Open].
type Options struct {
	// SessionTTL is how long a session lasts; 0 means [SessionTTL].
	SessionTTL time.Duration
	// Mail keeps the forecasters' confirmed addresses (double opt-in);
	// with Mailer, a person may add an address and sign in by a link
	// sent to it ([Store.AddEmail], [Store.SendSignInLink]). Either nil
	// means no e-mail: those methods return [ErrNoMail].
	Mail *mailbox.Box
	// Mailer queues the message that carries a sign-in link.
	Mailer Mailer
}

// Store keeps the people's passkeys, sessions and follows in tables of
// their own in the board's database ([board.Store.WriteDB]), migrated by
// their own set, and writes the board's forecaster of kind person through
// the board's methods in the same transaction.
type Store struct {
	board *board.Store
	write *bun.DB
	read  *bun.DB
	ttl   time.Duration
	// mail and mailer are both set, or neither (no e-mail).
	mail   *mailbox.Box
	mailer Mailer
}

// Open returns the people of board b after applying their pending
// migrations.
func Open(ctx context.Context, b *board.Store, opt Options) (*Store, error) {
	s := &Store{board: b, write: b.WriteDB(), read: b.ReadDB(), ttl: opt.SessionTTL}
	if opt.Mail != nil && opt.Mailer != nil {
		s.mail, s.mailer = opt.Mail, opt.Mailer
	}
	if s.ttl <= 0 {
		s.ttl = SessionTTL
	}
	if err := migrateDB(ctx, s.write); err != nil {
		return nil, fmt.Errorf("people: migrating: %w", err)
	}
	return s, nil
}

// Person is a signed-in person: their forecaster id and display name on
// the board.
type Person struct {
	ID   string `json:"person_id"`
	Name string `json:"name"`
}

// Session is a sign-in: the token the cookie carries (shown once; the
// store keeps its hash), whose it is and until when.
type Session struct {
	Token   string
	Person  Person
	Expires time.Time
}

// newToken returns 32 random bytes in unpadded base64url and the SHA-256
// of that text in hex, as stored.
func newToken() (token, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("people: generating a token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, hashToken(token), nil
}

// hashToken is the stored form of a token: SHA-256 in hex. A fast hash
// suits a 256-bit random secret.
func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// startSession writes a new session for person id inside tx.
func (s *Store) startSession(ctx context.Context, tx bun.Tx, p Person) (Session, error) {
	token, hash, err := newToken()
	if err != nil {
		return Session{}, err
	}
	now := s.board.Now()
	exp := now.Add(s.ttl)
	if _, err := tx.ExecContext(ctx, `INSERT INTO person_sessions (token_hash, person_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		hash, p.ID, now, exp); err != nil {
		return Session{}, err
	}
	return Session{Token: token, Person: p, Expires: exp}, nil
}

// Session returns the person signed in by token: [ErrNoSession] when it
// is no live session of this board (unknown, expired or signed out).
func (s *Store) Session(ctx context.Context, token string) (Person, error) {
	if token == "" || len(token) > 64 {
		return Person{}, ErrNoSession
	}
	var rows []struct {
		ID      string    `bun:"person_id"`
		Name    string    `bun:"name"`
		Expires time.Time `bun:"expires_at"`
	}
	err := s.read.NewRaw(`SELECT s.person_id, a.name, s.expires_at FROM person_sessions AS s
	JOIN agents AS a ON a.id = s.person_id WHERE s.token_hash = ?`, hashToken(token)).Scan(ctx, &rows)
	if err != nil {
		return Person{}, fmt.Errorf("people: session: %w", err)
	}
	if len(rows) == 0 || !s.board.Now().Before(rows[0].Expires) {
		return Person{}, ErrNoSession
	}
	return Person{ID: rows[0].ID, Name: rows[0].Name}, nil
}

// SignOut ends the session of token. Ending one that is not live is no
// error: the person is signed out either way.
func (s *Store) SignOut(ctx context.Context, token string) error {
	if token == "" || len(token) > 64 {
		return nil
	}
	return s.board.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM person_sessions WHERE token_hash = ?`, hashToken(token))
		return err
	})
}

// SignOutEverywhere ends every session of person id, on every device.
func (s *Store) SignOutEverywhere(ctx context.Context, id string) error {
	return s.board.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM person_sessions WHERE person_id = ?`, id)
		return err
	})
}

// Expire removes expired sessions and ceremonies, and sign-in links
// asked for more than [LinkWindow] ago, at most limit of each, and
// returns how many it removed. A server calls it from time to time.
func (s *Store) Expire(ctx context.Context, limit int) (int64, error) {
	now := s.board.Now()
	var n int64
	err := s.board.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n = 0
		for _, t := range []string{"person_sessions", "passkey_ceremonies"} {
			res, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE token_hash IN (SELECT token_hash FROM `+t+` WHERE expires_at <= ? LIMIT ?)`, now, limit)
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += k
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM signin_links WHERE token_hash IN (SELECT token_hash FROM signin_links WHERE created_at <= ? LIMIT ?)`,
			now.Add(-LinkWindow), limit)
		if err != nil {
			return err
		}
		k, _ := res.RowsAffected()
		n += k
		return nil
	})
	return n, err
}
