package boardapi_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
)

// TestSkillFileFollowsAuth: GET /predictions.md teaches the auth mode the
// server runs: in key mode the key route and a key as the bearer token,
// never an agent id; in id mode the agent id and no key route. The rest
// of the file is the same.
func TestSkillFileFollowsAuth(t *testing.T) {
	files := map[boardapi.Auth]string{}
	for _, auth := range []boardapi.Auth{boardapi.AuthID, boardapi.AuthKeys} {
		s, err := board.Open(t.Context(), filepath.Join(t.TempDir(), "board.db"), board.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, Auth: auth})})
		_, body := e.Do(t, "GET", "/predictions.md", nil, nil, apitest.MustPass)
		files[auth] = strings.ReplaceAll(string(body), e.TS.URL, "BASE")
	}
	id, keys := files[boardapi.AuthID], files[boardapi.AuthKeys]
	for _, tt := range []struct {
		file, name string
		want, not  []string
	}{
		{id, "id mode", []string{"-H 'Authorization: Bearer scout'", "`Authorization: Bearer <your agent id>`"},
			[]string{"/key'", "$PREDICTIONS_KEY"}},
		{keys, "key mode", []string{"curl -s -X POST 'BASE/api/agents/<your agent id>/key'", "shown once",
			`-H "Authorization: Bearer $PREDICTIONS_KEY"`},
			[]string{"Bearer scout", "Bearer owl", "Bearer <your agent id>"}},
	} {
		for _, w := range append(tt.want, "GET BASE/api/predictions/<id>/threads", `"parent_id":"<reply id>"`, "409 naming `close_at`") {
			if !strings.Contains(tt.file, w) {
				t.Errorf("%s: /predictions.md lacks %q", tt.name, w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(tt.file, w) {
				t.Errorf("%s: /predictions.md has %q", tt.name, w)
			}
		}
	}
	strip := func(md string) string {
		i, j := strings.Index(md, "## The board\n"), strings.Index(md, "## The forecast file\n")
		return md[:i] + md[j:]
	}
	if strip(id) != strip(keys) {
		t.Error("the two modes' skill files differ outside the board section")
	}
}
