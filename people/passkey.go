package people

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
)

// RP is the relying party a ceremony runs for: the site as the browser
// sees it. WebAuthn binds a passkey to ID, so a board keeps the same ID
// for as long as its people's passkeys should work.
type RP struct {
	// ID is the relying party id: the site's host name without port,
	// such as "predictions.example.org" or "localhost".
	ID string
	// Origin is the origin the pages are served from, such as
	// "https://predictions.example.org" or "http://localhost:8080".
	Origin string
	// Name is shown by the browser while it asks for the passkey.
	Name string
}

func (rp RP) relyingParty() (*webauthn.WebAuthn, error) {
	name := rp.Name
	if name == "" {
		name = "predictions"
	}
	w, err := webauthn.New(&webauthn.Config{
		RPID:          rp.ID,
		RPDisplayName: name,
		RPOrigins:     []string{rp.Origin},
		// A passkey: a discoverable credential, so that signing in asks
		// for nothing but the passkey; user verification preferred, as
		// the WebAuthn Level 3 default.
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementRequired,
			UserVerification: protocol.VerificationPreferred,
		},
		AttestationPreference: protocol.PreferNoAttestation,
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: CeremonyTTL},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: CeremonyTTL},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("people: relying party %q at %q: %w", rp.ID, rp.Origin, err)
	}
	return w, nil
}

// user is a person as the WebAuthn library sees them.
type user struct {
	id, name string
	handle   []byte
	creds    []webauthn.Credential
}

func (u *user) WebAuthnID() []byte                         { return u.handle }
func (u *user) WebAuthnName() string                       { return u.id }
func (u *user) WebAuthnDisplayName() string                { return u.name }
func (u *user) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// handleBytes is the length of a user handle: 64 random bytes, the most
// WebAuthn allows, as its recommendation for an opaque handle.
const handleBytes = 64

// Ceremony is a registration or sign-in begun: the options the browser
// passes to navigator.credentials (JSON, {"publicKey": ...}) and the
// token that names the ceremony when the browser's answer comes back.
type Ceremony struct {
	Options json.RawMessage
	Token   string
}

// BeginRegistration starts registering a new person with the chosen id
// (the board's agent id rule) and display name. The id is checked to be
// free now and again, atomically, when the registration finishes.
//
// Errors: a *[board.ValidationError] on person_id (bad or taken, the
// latter wrapping [board.ErrTaken]) or name.
func (s *Store) BeginRegistration(ctx context.Context, rp RP, id, name string) (Ceremony, error) {
	id = strings.TrimSpace(id)
	if err := board.CheckAgentID(id); err != nil {
		return Ceremony{}, renameField(err, "person_id")
	}
	name, err := board.CheckAgentName(name)
	if err != nil {
		return Ceremony{}, renameField(err, "name")
	}
	if err := checkDisplayName(name); err != nil {
		return Ceremony{}, err
	}
	if name == "" {
		name = id
	}
	switch _, err := s.board.Agent(ctx, id); {
	case err == nil:
		return Ceremony{}, taken(id)
	case !errors.Is(err, board.ErrNotFound):
		return Ceremony{}, err
	}
	w, err := rp.relyingParty()
	if err != nil {
		return Ceremony{}, err
	}
	handle := make([]byte, handleBytes)
	if _, err := rand.Read(handle); err != nil {
		return Ceremony{}, fmt.Errorf("people: generating a user handle: %w", err)
	}
	u := &user{id: id, name: name, handle: handle}
	creation, data, err := w.BeginRegistration(u)
	if err != nil {
		return Ceremony{}, fmt.Errorf("people: begin registration: %w", err)
	}
	return s.saveCeremony(ctx, "register", u, creation, data)
}

// FinishRegistration checks the browser's answer to the registration
// named by token (the JSON of a PublicKeyCredential, as
// PublicKeyCredential.toJSON gives it) and, in one transaction, makes
// the person (a forecaster of kind person on the board), stores the
// passkey and signs the person in.
//
// Errors: [ErrRefused] (wrapped, with the reason) for an answer that is
// not valid for this ceremony, an unknown, used or expired ceremony; a
// *[board.ValidationError] on person_id wrapping [board.ErrTaken] when
// the id was taken meanwhile.
func (s *Store) FinishRegistration(ctx context.Context, rp RP, token string, answer []byte) (Session, error) {
	if len(answer) > MaxCredentialBytes {
		return Session{}, fmt.Errorf("%w: the answer is %d bytes; at most %d are read", ErrRefused, len(answer), MaxCredentialBytes)
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(answer)
	if err != nil {
		return Session{}, fmt.Errorf("%w: the answer is not a WebAuthn registration: %s", ErrRefused, libraryReason(err))
	}
	w, err := rp.relyingParty()
	if err != nil {
		return Session{}, err
	}
	var out Session
	err = s.board.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		c, err := s.takeCeremony(ctx, tx, "register", token)
		if err != nil {
			return err
		}
		u := &user{id: c.PersonID, name: c.Name, handle: c.handle}
		cred, err := w.CreateCredential(u, c.data, parsed)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrRefused, libraryReason(err))
		}
		a, err := s.board.AddPerson(ctx, tx, u.id, u.name)
		if err != nil {
			return err
		}
		now := s.board.Now()
		if _, err := tx.ExecContext(ctx, `INSERT INTO people (person_id, handle, created_at) VALUES (?, ?, ?)`,
			a.ID, encode(u.handle), now); err != nil {
			return err
		}
		if err := insertPasskey(ctx, tx, a.ID, cred, now); err != nil {
			return err
		}
		out, err = s.startSession(ctx, tx, Person{ID: a.ID, Name: a.Name})
		return err
	})
	return out, err
}

// BeginSignIn starts a sign-in with any passkey of this board (a
// discoverable credential: the browser offers the person's passkeys).
func (s *Store) BeginSignIn(ctx context.Context, rp RP) (Ceremony, error) {
	w, err := rp.relyingParty()
	if err != nil {
		return Ceremony{}, err
	}
	assertion, data, err := w.BeginDiscoverableLogin()
	if err != nil {
		return Ceremony{}, fmt.Errorf("people: begin sign-in: %w", err)
	}
	return s.saveCeremony(ctx, "signin", nil, assertion, data)
}

// FinishSignIn checks the browser's answer to the sign-in named by
// token and signs the person whose passkey answered in.
//
// Errors: [ErrRefused] (wrapped, with the reason) for an answer that is
// not valid for this ceremony (a forged or replayed assertion, a passkey
// this board does not know, a signature counter that went back), or an
// unknown, used or expired ceremony.
func (s *Store) FinishSignIn(ctx context.Context, rp RP, token string, answer []byte) (Session, error) {
	if len(answer) > MaxCredentialBytes {
		return Session{}, fmt.Errorf("%w: the answer is %d bytes; at most %d are read", ErrRefused, len(answer), MaxCredentialBytes)
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(answer)
	if err != nil {
		return Session{}, fmt.Errorf("%w: the answer is not a WebAuthn sign-in: %s", ErrRefused, libraryReason(err))
	}
	w, err := rp.relyingParty()
	if err != nil {
		return Session{}, err
	}
	var out Session
	err = s.board.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		c, err := s.takeCeremony(ctx, tx, "signin", token)
		if err != nil {
			return err
		}
		var lookupErr error
		handler := func(rawID, userHandle []byte) (webauthn.User, error) {
			u, err := s.userByHandle(ctx, tx, userHandle)
			if err != nil {
				lookupErr = err
			}
			return u, err
		}
		wu, cred, err := w.ValidatePasskeyLogin(handler, c.data, parsed)
		if lookupErr != nil {
			return lookupErr
		}
		if err != nil {
			return fmt.Errorf("%w: %s", ErrRefused, libraryReason(err))
		}
		if cred.Authenticator.CloneWarning {
			return fmt.Errorf("%w: the passkey's signature counter went back, a sign that it was copied; sign in with another passkey", ErrRefused)
		}
		u := wu.(*user)
		if err := updatePasskey(ctx, tx, cred, s.board.Now()); err != nil {
			return err
		}
		out, err = s.startSession(ctx, tx, Person{ID: u.id, Name: u.name})
		return err
	})
	return out, err
}

// ceremony is a stored ceremony, taken.
type ceremony struct {
	PersonID string
	Name     string
	handle   []byte
	data     webauthn.SessionData
}

func (s *Store) saveCeremony(ctx context.Context, kind string, u *user, options any, data *webauthn.SessionData) (Ceremony, error) {
	opts, err := json.Marshal(options)
	if err != nil {
		return Ceremony{}, fmt.Errorf("people: ceremony options: %w", err)
	}
	sd, err := json.Marshal(data)
	if err != nil {
		return Ceremony{}, fmt.Errorf("people: ceremony data: %w", err)
	}
	token, hash, err := newToken()
	if err != nil {
		return Ceremony{}, err
	}
	var id, name, handle string
	if u != nil {
		id, name, handle = u.id, u.name, encode(u.handle)
	}
	exp := s.board.Now().Add(CeremonyTTL)
	err = s.board.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO passkey_ceremonies (token_hash, kind, person_id, name, handle, data, expires_at)
	VALUES (?, ?, ?, ?, ?, ?, ?)`, hash, kind, id, name, handle, string(sd), exp)
		return err
	})
	if err != nil {
		return Ceremony{}, err
	}
	return Ceremony{Options: opts, Token: token}, nil
}

// takeCeremony reads and deletes the ceremony of token inside tx: a
// ceremony is used once, so a replayed answer finds none.
func (s *Store) takeCeremony(ctx context.Context, tx bun.Tx, kind, token string) (ceremony, error) {
	gone := fmt.Errorf("%w: this %s was not begun here, was already used or took longer than %v: start again", ErrRefused, kindText(kind), CeremonyTTL)
	if token == "" || len(token) > 64 {
		return ceremony{}, gone
	}
	hash := hashToken(token)
	var rows []struct {
		PersonID string    `bun:"person_id"`
		Name     string    `bun:"name"`
		Handle   string    `bun:"handle"`
		Data     string    `bun:"data"`
		Expires  time.Time `bun:"expires_at"`
	}
	if err := tx.NewRaw(`SELECT person_id, name, handle, data, expires_at FROM passkey_ceremonies WHERE token_hash = ? AND kind = ?`+s.board.LockClause(),
		hash, kind).Scan(ctx, &rows); err != nil {
		return ceremony{}, err
	}
	if len(rows) == 0 {
		return ceremony{}, gone
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM passkey_ceremonies WHERE token_hash = ?`, hash); err != nil {
		return ceremony{}, err
	}
	r := rows[0]
	if !s.board.Now().Before(r.Expires) {
		return ceremony{}, gone
	}
	c := ceremony{PersonID: r.PersonID, Name: r.Name}
	if r.Handle != "" {
		h, err := decode(r.Handle)
		if err != nil {
			return ceremony{}, fmt.Errorf("people: stored handle: %w", err)
		}
		c.handle = h
	}
	if err := json.Unmarshal([]byte(r.Data), &c.data); err != nil {
		return ceremony{}, fmt.Errorf("people: stored ceremony: %w", err)
	}
	return c, nil
}

func kindText(kind string) string {
	if kind == "register" {
		return "registration"
	}
	return "sign-in"
}

// userByHandle reads the person whose passkeys carry handle, with their
// passkeys.
func (s *Store) userByHandle(ctx context.Context, db bun.IDB, handle []byte) (*user, error) {
	var rows []struct {
		ID   string `bun:"person_id"`
		Name string `bun:"name"`
	}
	if err := db.NewRaw(`SELECT p.person_id, a.name FROM people AS p JOIN agents AS a ON a.id = p.person_id WHERE p.handle = ?`,
		encode(handle)).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: this passkey belongs to no one on this board: register, or use a passkey made for this site", ErrRefused)
	}
	var creds []string
	if err := db.NewRaw(`SELECT credential FROM passkeys WHERE person_id = ? ORDER BY created_at`, rows[0].ID).Scan(ctx, &creds); err != nil {
		return nil, err
	}
	u := &user{id: rows[0].ID, name: rows[0].Name, handle: handle}
	for _, c := range creds {
		var cr webauthn.Credential
		if err := json.Unmarshal([]byte(c), &cr); err != nil {
			return nil, fmt.Errorf("people: stored passkey: %w", err)
		}
		u.creds = append(u.creds, cr)
	}
	return u, nil
}

func insertPasskey(ctx context.Context, tx bun.Tx, personID string, cred *webauthn.Credential, now time.Time) error {
	b, err := json.Marshal(cred)
	if err != nil {
		return fmt.Errorf("people: passkey: %w", err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO passkeys (credential_id, person_id, credential, created_at, used_at) VALUES (?, ?, ?, ?, ?)`,
		encode(cred.ID), personID, string(b), now, now)
	return err
}

// updatePasskey stores a passkey's record after a sign-in (its signature
// counter and flags) and when it was used.
func updatePasskey(ctx context.Context, tx bun.Tx, cred *webauthn.Credential, now time.Time) error {
	b, err := json.Marshal(cred)
	if err != nil {
		return fmt.Errorf("people: passkey: %w", err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE passkeys SET credential = ?, used_at = ? WHERE credential_id = ?`, string(b), now, encode(cred.ID))
	return err
}

func encode(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func decode(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }

// libraryReason is the WebAuthn library's reason for refusing, with its
// detail when it gives one.
func libraryReason(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Details != "" {
		return strings.TrimSuffix(pe.Details, ": <nil>")
	}
	return err.Error()
}

// checkDisplayName refuses, in a person's chosen name, what agents' names
// are only flagged for: markup (< or >) and the Unicode bidirectional
// controls (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which could
// make a name read as someone else's (Unicode TR 9; CVE-2021-42574's
// "Trojan Source").
func checkDisplayName(name string) error {
	for i, r := range []rune(name) {
		switch {
		case r == '<' || r == '>':
			return board.Invalid("name", fmt.Sprintf("has %q at character %d: a display name holds no markup", r, i+1), "write the name without < and >")
		case r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069):
			return board.Invalid("name", fmt.Sprintf("has the bidirectional control %U at character %d", r, i+1), "write the name without direction controls; the board shows each name in its own direction")
		}
	}
	return nil
}

// taken is the error of an id that a forecaster already holds.
func taken(id string) error {
	return board.Invalid("person_id", fmt.Sprintf("%q is taken by another forecaster on this board", id),
		"choose another id", board.ErrConflict, board.ErrTaken)
}

// renameField gives a board validation error the name of this package's
// field for the same value.
func renameField(err error, field string) error {
	var ve *board.ValidationError
	if errors.As(err, &ve) {
		return board.Invalid(field, ve.Problem, ve.Hint)
	}
	return err
}
