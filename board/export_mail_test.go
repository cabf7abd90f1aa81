package board

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/quotedprintable"
	"regexp"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun/migrate"
)

var tokenInLink = regexp.MustCompile(`confirm\?token=([A-Za-z0-9_-]+)`)

// ConfirmationToken returns the token of the latest confirmation message
// queued for addr, read from the message as its recipient would. Test-only.
func ConfirmationToken(ctx context.Context, s *Store, addr string) (string, error) {
	var msgs [][]byte
	if err := s.write.NewRaw(`SELECT payload FROM outbox WHERE kind = 'email' AND topic = '' AND recipient = ? ORDER BY created_at DESC, id DESC`,
		addr).Scan(ctx, &msgs); err != nil {
		return "", err
	}
	if len(msgs) == 0 {
		return "", fmt.Errorf("no confirmation message to %s", addr)
	}
	_, body, _ := bytes.Cut(msgs[0], []byte("\r\n\r\n"))
	text, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
	if err != nil {
		return "", err
	}
	m := tokenInLink.FindSubmatch(text)
	if m == nil {
		return "", fmt.Errorf("no token in the confirmation message to %s:\n%s", addr, msgs[0])
	}
	return string(m[1]), nil
}

// ConfirmationMessages counts the confirmation messages queued for addr.
func ConfirmationMessages(ctx context.Context, s *Store, addr string) (int, error) {
	var n int
	err := s.write.NewRaw(`SELECT COUNT(*) FROM outbox WHERE kind = 'email' AND topic = '' AND recipient = ?`, addr).Scan(ctx, &n)
	return n, err
}

// ResetToken gives the agent's latest pending registration a new token
// and returns it, for stores without mail (no message to read it from).
func ResetToken(ctx context.Context, s *Store, agentID string) (string, error) {
	tok, hash, err := newToken()
	if err != nil {
		return "", err
	}
	var latest []string
	if err := s.write.NewRaw(`SELECT token_hash FROM email_confirmations WHERE agent_id = ? AND used_at IS NULL
	ORDER BY created_at DESC LIMIT 1`, agentID).Scan(ctx, &latest); err != nil {
		return "", err
	}
	if len(latest) == 0 {
		return "", fmt.Errorf("agent %s has no pending registration", agentID)
	}
	_, err = s.write.ExecContext(ctx, `UPDATE email_confirmations SET token_hash = ? WHERE token_hash = ?`, hash, latest[0])
	return tok, err
}

// DropConfirmations deletes the confirmation messages from the outbox, as
// if they had been delivered and pruned, so that tests of notifications
// count only those; nothing when the store has no recorder (its database
// may hold the outbox table of before the outbox package). Test-only.
func DropConfirmations(ctx context.Context, s *Store) error {
	if s.recorder == nil {
		return nil
	}
	_, err := s.write.ExecContext(ctx, `DELETE FROM outbox WHERE kind = 'email' AND topic = ''`)
	return err
}

// ParseSubscribe is parseSubscribe, for the fuzz test.
func ParseSubscribe(raw []byte) (Subscription, bool, error) { return parseSubscribe(raw) }

// OpenBeforeOptIn opens dsn with the migrations before 20261125000001
// only, the schema a board had before double opt-in, and returns a raw
// handle to write old rows with. Test-only.
func OpenBeforeOptIn(ctx context.Context, dsn string) (*Store, error) {
	s := &Store{now: time.Now}
	var err error
	if database.IsPostgres(dsn) {
		err = s.openPostgres(dsn, Options{})
	} else {
		err = s.openSQLite(dsn, Options{})
	}
	if err != nil {
		return nil, err
	}
	old := migrate.NewMigrations()
	for _, m := range migrations().Sorted() {
		if m.Name < "20261125000001" {
			old.Add(m)
		}
	}
	mg := migrate.NewMigrator(s.write, old, migrate.WithTableName("board_migrations"),
		migrate.WithLocksTableName("board_migration_locks"), migrate.WithMarkAppliedOnSuccess(true))
	if err := mg.Init(ctx); err != nil {
		return nil, err
	}
	if _, err := mg.Migrate(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Exec runs a statement on the writer, for tests that write old rows.
func Exec(ctx context.Context, s *Store, q string, args ...any) error {
	_, err := s.write.ExecContext(ctx, q, args...)
	return err
}
