package boardapi_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/apitest"
)

// TestBoardTags: tagged replies over HTTP, with every response checked
// against openapi.json: the reply's kind and reaction, reply_kinds in the
// feed and the prediction, and the debates of the thread.
func TestBoardTags(t *testing.T) {
	e := apitest.NewBoardEnv(t, "")
	id := apitest.CreatePred(t, e)
	path := "/api/predictions/" + id + "/threads"
	reply := func(agent, body, parent string) map[string]any {
		t.Helper()
		in := map[string]any{"agent_id": agent, "body": body}
		if parent != "" {
			in["parent_id"] = parent
		}
		return e.Post(t, path, agent, in, apitest.MustPass, 201)
	}
	agree := reply("agent-b", "[AGREE] the radar shows it", "")
	r := agree["reply"].(map[string]any)
	if r["kind"] != "agree" || r["reaction"].(map[string]any)["reaction"] != "agree" ||
		!strings.Contains(agree["summary"].(string), "records agent-b's reaction agree") {
		t.Errorf("[AGREE] reply: %v", agree)
	}
	changed := reply("agent-b", " [ Disagree ] the radar was wrong", "")
	if s := changed["summary"].(string); !strings.Contains(s, "changes agent-b's reaction from agree to disagree") {
		t.Errorf("[DISAGREE] summary = %q", s)
	}
	debate := reply("agent-c", "[DEBATE] Which model?\nECMWF or GFS.", "")
	did := debate["reply_id"].(string)
	if s := debate["summary"].(string); !strings.Contains(s, "opens debate "+did) {
		t.Errorf("[DEBATE] summary = %q", s)
	}
	ch := reply("agent-d", "[CHALLENGE] GFS misses it", did)
	joined := reply("agent-c", "why?", ch["reply_id"].(string))
	if joined["reply"].(map[string]any)["debate_id"] != did || !strings.Contains(joined["summary"].(string), "joins debate "+did) {
		t.Errorf("nested reply: %v", joined)
	}

	wantKinds := map[string]any{"plain": 1.0, "agree": 1.0, "disagree": 1.0, "challenge": 1.0, "debate": 1.0}
	feed := e.Get(t, "/api/predictions", 200)
	if diff := cmp.Diff(wantKinds, feed["predictions"].([]any)[0].(map[string]any)["reply_kinds"]); diff != "" {
		t.Errorf("feed reply_kinds (-want +got):\n%s", diff)
	}
	detail := e.Get(t, "/api/predictions/"+id, 200)
	p := detail["prediction"].(map[string]any)
	if diff := cmp.Diff(wantKinds, p["reply_kinds"]); diff != "" {
		t.Errorf("prediction reply_kinds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"agree": 0.0, "disagree": 1.0, "uncertain": 0.0}, p["reactions"]); diff != "" {
		t.Errorf("reaction counts (-want +got):\n%s", diff)
	}
	if s := detail["summary"].(string); !strings.Contains(s, "5 replies (tagged: 1 agree, 1 disagree, 1 challenge, 1 debate)") {
		t.Errorf("detail summary = %q", s)
	}
	if n := len(detail["debates"].([]any)); n != 1 {
		t.Errorf("detail: %d debates, want 1", n)
	}

	th := e.Get(t, path, 200)
	debates := th["debates"].([]any)
	if len(debates) != 1 {
		t.Fatalf("thread debates = %v", debates)
	}
	d := debates[0].(map[string]any)
	var entries []string
	for _, x := range d["entries"].([]any) {
		entries = append(entries, x.(map[string]any)["body"].(string))
	}
	if d["id"] != did || d["opened_by"] != "agent-c" || d["title"] != "Which model?" ||
		cmp.Diff([]string{"[CHALLENGE] GFS misses it", "why?"}, entries) != "" {
		t.Errorf("debate = %v", d)
	}
	if diff := cmp.Diff(map[string]any{"plain": 1.0, "agree": 0.0, "disagree": 0.0, "challenge": 1.0, "debate": 0.0}, d["counts"]); diff != "" {
		t.Errorf("debate counts (-want +got):\n%s", diff)
	}
	if s := th["summary"].(string); !strings.Contains(s, "5 replies") || !strings.Contains(s, "1 debate.") {
		t.Errorf("thread summary = %q", s)
	}
}
