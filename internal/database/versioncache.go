package database

import (
	"fmt"
	"iter"
	"maps"
	"strings"
	"sync"
)

// VersionCache keeps results read from a database, each with the version
// of the data it was read after (a number that every change of those
// data raises, such as a counter kept by triggers): a result is served
// only at that version, so it is right while nothing it shows can have
// changed, whoever wrote. A result must not change once kept. Set the
// bounds before use: at most MaxEntries results and MaxBytes bytes (by
// the sizes given with them); a result above an eighth of MaxBytes is not
// kept.
type VersionCache[V any] struct {
	MaxEntries, MaxBytes int

	mu    sync.Mutex
	m     map[string]versioned[V]
	bytes int // the sum of the results' sizes
}

type versioned[V any] struct {
	version int64
	value   V
	size    int
}

// QueryKey is a key of a result: its query and arguments, each after a
// NUL (which no query or argument holds).
func QueryKey(q string, args []any) string {
	var b strings.Builder
	b.WriteString(q)
	for _, a := range args {
		fmt.Fprintf(&b, "\x00%v", a)
	}
	return b.String()
}

// Get returns the result of key read after version, if it is kept.
func (c *VersionCache[V]) Get(key string, version int64) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
	return r.value, ok && r.version == version
}

// Put keeps v, of size bytes, as the result of key read after version,
// unless a result read after a later version is kept or v is too large.
// When the cache is full, results of older versions go first, then all.
func (c *VersionCache[V]) Put(key string, version int64, v V, size int) {
	if size > c.MaxBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.m[key]
	if ok && old.version > version {
		return
	}
	if c.m == nil {
		c.m = map[string]versioned[V]{}
	}
	c.bytes -= old.size // 0 when not kept
	delete(c.m, key)
	if len(c.m) >= c.MaxEntries || c.bytes+size > c.MaxBytes {
		maps.DeleteFunc(c.m, func(_ string, r versioned[V]) bool {
			if r.version < version {
				c.bytes -= r.size
				return true
			}
			return false
		})
		if len(c.m) >= c.MaxEntries || c.bytes+size > c.MaxBytes {
			clear(c.m)
			c.bytes = 0
		}
	}
	c.m[key] = versioned[V]{version, v, size}
	c.bytes += size
}

// Len returns how many results are kept.
func (c *VersionCache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// All returns the kept results, of any version, by key.
func (c *VersionCache[V]) All() iter.Seq2[string, V] {
	c.mu.Lock()
	kept := maps.Clone(c.m)
	c.mu.Unlock()
	return func(yield func(string, V) bool) {
		for k, r := range kept {
			if !yield(k, r.value) {
				return
			}
		}
	}
}
