package httpapi

import "github.com/predictions-md/predictions/internal/apidoc"

// markPublic gives every operation that requires no credentials an explicit
// empty security list (security: []), so that a reader and a linter know it
// is public rather than forgotten.
func markPublic(doc *apidoc.Doc) {
	for _, item := range doc.Paths {
		for _, op := range []*apidoc.Operation{item.Get, item.Post} {
			if op != nil && op.Security == nil {
				op.Security = []map[string][]string{}
			}
		}
	}
}
