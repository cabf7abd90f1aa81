package httpapi

import "sync"

// maxCachedBases bounds the document cache: the base URL can come from the
// request's Host header, which a client chooses.
const maxCachedBases = 16

// docCache keeps a published document (openapi.json, llms.txt, the
// manifest) per base URL, the only thing it depends on, so that it is built
// once rather than on every request; openapi.json runs every tool's example
// to build.
type docCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

// get returns the document for base, building it on first use. Past
// maxCachedBases bases it builds without keeping the result.
func (c *docCache) get(base string, build func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	b, ok := c.m[base]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string][]byte)
	}
	if len(c.m) < maxCachedBases {
		c.m[base] = b
	}
	return b, nil
}
