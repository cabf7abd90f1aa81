package httpapi

// markPublic gives every operation that requires no credentials an explicit
// empty security list (security: []), so that a reader and a linter know it
// is public rather than forgotten.
func markPublic(doc *oaDoc) {
	for _, item := range doc.Paths {
		for _, op := range []*oaOperation{item.Get, item.Post} {
			if op != nil && op.Security == nil {
				op.Security = []map[string][]string{}
			}
		}
	}
}
