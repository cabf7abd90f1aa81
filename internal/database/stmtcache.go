package database

import (
	"context"
	"database/sql"
	"sync"
)

// StmtCache keeps statements prepared on a pool, by their text:
// database/sql keeps each prepared on every connection of the pool, so a
// query that recurs is not parsed and planned again each time. The zero
// value is ready to use.
type StmtCache struct {
	// Max bounds the statements kept; 0 means 256.
	Max int

	mu     sync.RWMutex
	m      map[string]*sql.Stmt
	closed bool
}

// Get returns the statement for q, preparing it on db the first time; nil
// when the cache is full or closed or the preparation failed (the caller
// then runs q unprepared, and meets the error there).
func (c *StmtCache) Get(ctx context.Context, db *sql.DB, q string) *sql.Stmt {
	c.mu.RLock()
	st := c.m[q]
	c.mu.RUnlock()
	if st != nil {
		return st
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.m[q]; st != nil {
		return st
	}
	limit := c.Max
	if limit == 0 {
		limit = 256
	}
	if c.closed || len(c.m) >= limit {
		return nil
	}
	st, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[q] = st
	return st
}

// Close closes the statements; the cache prepares no more.
func (c *StmtCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var first error
	for _, st := range c.m {
		if err := st.Close(); err != nil && first == nil {
			first = err
		}
	}
	c.m = nil
	return first
}

// QueryRow runs q on db as the cache's prepared statement, or unprepared
// when the cache has none for it ([StmtCache.Get]).
func (c *StmtCache) QueryRow(ctx context.Context, db *sql.DB, q string, args ...any) *sql.Row {
	if st := c.Get(ctx, db, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return db.QueryRowContext(ctx, q, args...)
}

// Query is [StmtCache.QueryRow] for a query of many rows.
func (c *StmtCache) Query(ctx context.Context, db *sql.DB, q string, args ...any) (*sql.Rows, error) {
	if st := c.Get(ctx, db, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return db.QueryContext(ctx, q, args...)
}
