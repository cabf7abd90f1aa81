package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/mcpserver"
	"github.com/predictions-md/predictions/skillsettings"
)

// TestSkillResourceFollowsAuth: the skill file resource of a server with
// a board is the file GET /predictions.md serves in the same auth mode,
// and in key mode it names the key route.
func TestSkillResourceFollowsAuth(t *testing.T) {
	for _, keys := range []bool{false, true} {
		ts := serve(t, mcpserver.Options{Board: true, BoardKeys: keys})
		cs := connect(t, ts)
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.SkillURI(ts.URL)})
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("ReadResource: %v", err)
		}
		want, _ := tools.SkillFile(nil, skillsettings.Options{BaseURL: ts.URL, Board: true, BoardKeys: keys})
		if diff := cmp.Diff(string(want), res.Contents[0].Text); diff != "" {
			t.Errorf("keys=%v: skill resource (-want +got):\n%s", keys, diff)
		}
		if got := strings.Contains(res.Contents[0].Text, "/api/agents/<your agent id>/key'"); got != keys {
			t.Errorf("keys=%v: skill resource names the key route: %v", keys, got)
		}
	}
}
