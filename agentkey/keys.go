package agentkey

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/database"
)

// Store keeps the agents' keys in a table of its own in the board's
// database ([board.Store.WriteDB]), migrated by its own set ([Open]).
type Store struct {
	write, read *bun.DB
	pg          bool
	now         func() time.Time
}

// Options configure [Open].
type Options struct {
	// Now is the clock of the records (created_at, rotated_at); nil means
	// time.Now.
	Now func() time.Time
}

// Open returns the agents' keys of the board b, in its database, after
// applying their pending migrations: on a board whose own migrations
// created the keys' table (before it moved here), the first takes it
// over with every key.
func Open(ctx context.Context, b *board.Store, opt Options) (*Store, error) {
	s := &Store{write: b.WriteDB(), read: b.ReadDB(), pg: b.WriteDB().Dialect().Name() == dialect.PG, now: opt.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if err := migrateDB(ctx, s.write); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Store) clock() time.Time {
	return s.now().UTC().Truncate(time.Microsecond)
}

// KeyPrefix starts every key, so that a leaked key is recognisable (and
// secret scanners can match it).
const KeyPrefix = "pk_"

// keyBytes is the key's randomness: 256 bits from crypto/rand.
const keyBytes = 32

// Errors of the key methods. Test for them with [errors.Is].
var (
	// ErrKeyExists: the agent already has a key. [Store.IssueKey] gives a
	// key only to the first caller; the holder rotates it with
	// [Store.RotateKey].
	ErrKeyExists = errors.New("board: the agent already has a key")
	// ErrNoKey: the agent has no key yet; register one with [Store.IssueKey].
	ErrNoKey = errors.New("board: the agent has no key")
	// ErrWrongKey: the key given is not the agent's current key.
	ErrWrongKey = errors.New("board: the key is not the agent's key")
)

// newKey returns a fresh key: [KeyPrefix] and 32 random bytes in
// unpadded base64url (46 characters in all).
func newKey() (string, error) {
	var b [keyBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("board: generating a key: %w", err)
	}
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// hashKey is what is stored of a key: its SHA-256, in hex. A fast hash is
// the right tool here: a key carries 256 bits from crypto/rand, so there is
// no dictionary to guess from and a slow password hash (bcrypt, argon2)
// would only cost CPU on every authenticated write.
func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// sameKey compares a key with a stored hash in constant time.
func sameKey(key, storedHash string) bool {
	return subtle.ConstantTimeCompare([]byte(hashKey(key)), []byte(storedHash)) == 1
}

// IssueKey registers the agent's first key and returns it. The key is not
// stored, only its hash: show it to the caller once. The agent need not
// have posted yet; the first caller for an agent id gets its key.
//
// Errors: a *[board.ValidationError] for an invalid agent id; [ErrKeyExists]
// (wrapped) when the agent already has a key; otherwise a database error.
func (s *Store) IssueKey(ctx context.Context, agentID string) (string, error) {
	if err := board.CheckAgentID(agentID); err != nil {
		return "", err
	}
	key, err := newKey()
	if err != nil {
		return "", err
	}
	res, err := database.Within(ctx, s.write).ExecContext(ctx, `INSERT INTO agent_keys (agent_id, hash, created_at)
	VALUES (?, ?, ?) ON CONFLICT (agent_id) DO NOTHING`, agentID, hashKey(key), s.clock())
	if err != nil {
		return "", fmt.Errorf("board: issue key: %w", board.Classify(err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return "", fmt.Errorf("board: issue key: %w", err)
	} else if n == 0 {
		return "", fmt.Errorf("%w: %s", ErrKeyExists, agentID)
	}
	return key, nil
}

// CheckKey reports whether key is the agent's current key, comparing
// hashes in constant time.
//
// Errors: [ErrNoKey] (wrapped) when the agent has no key (an invalid agent
// id has none either); [ErrWrongKey] (wrapped) when key is not its key;
// otherwise a database error.
func (s *Store) CheckKey(ctx context.Context, agentID, key string) error {
	if !board.ValidAgentID(agentID) {
		return fmt.Errorf("%w: %q is not an agent id", ErrNoKey, agentID)
	}
	var hashes []string
	if err := s.read.NewRaw(`SELECT hash FROM agent_keys WHERE agent_id = ?`, agentID).Scan(ctx, &hashes); err != nil {
		return fmt.Errorf("board: check key: %w", board.Classify(err))
	}
	if len(hashes) == 0 {
		return fmt.Errorf("%w: %s", ErrNoKey, agentID)
	}
	if !sameKey(key, hashes[0]) {
		return fmt.Errorf("%w: %s", ErrWrongKey, agentID)
	}
	return nil
}

// RotateKey replaces the agent's key, given its current one, and returns
// the new key; the current key stops working when RotateKey returns. The
// check and the replacement are one transaction, so of two rotations with
// the same key one succeeds and the other gets [ErrWrongKey].
//
// Errors: [ErrNoKey] (wrapped) when the agent has no key; [ErrWrongKey]
// (wrapped) when current is not its key; otherwise a database error.
func (s *Store) RotateKey(ctx context.Context, agentID, current string) (string, error) {
	key, err := newKey()
	if err != nil {
		return "", err
	}
	forUpdate := ""
	if s.pg {
		forUpdate = " FOR UPDATE"
	}
	err = database.RunInTx(ctx, s.write, func(ctx context.Context, tx bun.Tx) error {
		var stored string
		err := tx.QueryRowContext(ctx, `SELECT hash FROM agent_keys WHERE agent_id = ?`+forUpdate, agentID).Scan(&stored)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("%w: %s", ErrNoKey, agentID)
		case err != nil:
			return err
		case !sameKey(current, stored):
			return fmt.Errorf("%w: %s", ErrWrongKey, agentID)
		}
		_, err = tx.ExecContext(ctx, `UPDATE agent_keys SET hash = ?, rotated_at = ? WHERE agent_id = ?`,
			hashKey(key), s.clock(), agentID)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNoKey) || errors.Is(err, ErrWrongKey) {
			return "", err
		}
		return "", fmt.Errorf("board: rotate key: %w", board.Classify(err))
	}
	return key, nil
}
