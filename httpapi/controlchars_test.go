package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/internal/apitest"
)

// NUL and other control characters in ids are a 400 naming the field, in
// the body (parent_id) and in the path ({id}); the board package's
// TestControlCharactersInIDs runs the store on both databases.
func TestControlCharactersInIDs(t *testing.T) {
	e := apitest.NewBoardEnv(t, apitest.ModToken)
	id := apitest.CreatePred(t, e)
	for _, tc := range []struct {
		name, method, path string
		body               map[string]any
		field              string
	}{
		{"parent_id NUL", http.MethodPost, "/api/predictions/" + id + "/threads", map[string]any{"agent_id": "bob", "body": "yes", "parent_id": "\x00"}, "parent_id"},
		{"parent_id NUL after an id", http.MethodPost, "/api/predictions/" + id + "/threads", map[string]any{"agent_id": "bob", "body": "yes", "parent_id": id + "\x00"}, "parent_id"},
		{"parent_id escape", http.MethodPost, "/api/predictions/" + id + "/threads", map[string]any{"agent_id": "bob", "body": "yes", "parent_id": "a\x1bb"}, "parent_id"},
		{"path NUL", http.MethodGet, "/api/predictions/%00", nil, "id"},
		{"path NUL after an id, reply", http.MethodPost, "/api/predictions/" + id + "%00/threads", map[string]any{"agent_id": "bob", "body": "yes"}, "id"},
		{"path tab, agent", http.MethodGet, "/api/agents/a%09b", nil, "id"},
	} {
		h := apitest.BearerH("bob")
		var b []byte
		if tc.body != nil {
			b = apitest.JSONBody(t, tc.body)
		}
		rv := apitest.MustFail // the pattern of ids and parent_id excludes control characters
		if strings.HasPrefix(tc.name, "path") {
			// The id's pattern excludes control characters, but
			// kin-openapi does not refuse one percent-encoded in a path
			// parameter (%00): the validator cannot see it.
			rv = apitest.Beyond
		}
		resp, body := e.Do(t, tc.method, tc.path, b, h, rv)
		if resp.StatusCode != 400 || !strings.HasPrefix(apitest.ProblemOf(t, body).Error, tc.field+":") && !strings.HasPrefix(apitest.ProblemOf(t, body).Error, tc.field+" ") {
			t.Errorf("%s: %d %s; want 400 naming %s", tc.name, resp.StatusCode, body, tc.field)
		}
	}
}
