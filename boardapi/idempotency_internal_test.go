package boardapi

import "testing"

// TestStoredRoutes: each renamed route keeps storing its Idempotency-Keys
// under its former name, that name is no other route's, and no two
// routes store under one name, so a key never answers another route.
func TestStoredRoutes(t *testing.T) {
	names := map[string]bool{}
	for _, br := range boardTable() {
		names[br.name] = true
	}
	for now, old := range storedRoutes {
		if !names[now] {
			t.Errorf("storedRoutes has %q, which names no route", now)
		}
		if names[old] {
			t.Errorf("storedRoutes stores %q under %q, the name of another route", now, old)
		}
	}
	seen := map[string]string{}
	for _, br := range boardTable() {
		if !br.takesKey() {
			continue
		}
		r := storedRoute(br.name)
		if other, ok := seen[r]; ok {
			t.Errorf("%s and %s both store their keys under %q", other, br.name, r)
		}
		seen[r] = br.name
	}
	if got := storedRoute("post_prediction"); got != "create_prediction" {
		t.Errorf(`storedRoute("post_prediction") = %q, want "create_prediction"`, got)
	}
}
