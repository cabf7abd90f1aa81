package loadbench

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/internal/tools"
)

// TestStageHandler sends each stage of score_forecasts its example and
// input it refuses, and checks what each answers: the bare body, or the
// tool's answer for the last stage; a 500 for refused input, so that a
// benchmark cannot count it; the bare body, without running the tool, to
// a GET (the readiness probe).
func TestStageHandler(t *testing.T) {
	tool := tools.Lookup("score_forecasts")
	body := BareBody(64)
	tests := []struct {
		stage, method, in string
		wantStatus        int
		want              string // the whole answer, or with a … at its end its start
	}{
		{StageDecode, http.MethodPost, string(tool.Example), 200, string(body)},
		{StageCheck, http.MethodPost, string(tool.Example), 200, string(body)},
		{StageCall, http.MethodPost, string(tool.Example), 200, string(body)},
		{StageAnswer, http.MethodPost, string(tool.Example), 200, `{"tool":"score_forecasts",…`},
		{StageDecode, http.MethodPost, `{"forecasts":[]}`, 200, string(body)}, // the limits, not the decoder, refuse it
		{StageCheck, http.MethodPost, `{"forecasts":[]}`, 500, "forecasts: …"},
		{StageDecode, http.MethodPost, `{"forecasts":{}}`, 500, "forecasts: …"},
		{StageCall, http.MethodPost, `{"forecasts":[{"p":"150%","outcome":"yes"}]}`, 500, "forecasts[0].p: …"},
		{StageCheck, http.MethodPost, `{"forecasts":[{"p":"150%","outcome":"yes"}]}`, 200, string(body)}, // the reader, not the limits, refuses it
		{StageAnswer, http.MethodPost, `{"forecasts":`, 500, "…"},
		{StageAnswer, http.MethodGet, "", 200, string(body)},
	}
	for _, tt := range tests {
		t.Run(tt.stage+"/"+tt.method+"/"+tt.in, func(t *testing.T) {
			h, err := StageHandler(body, tool, tt.stage)
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(tt.method, "/api/v1/score_forecasts", strings.NewReader(tt.in))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			got := rec.Body.String()
			if rec.Code != tt.wantStatus {
				t.Errorf("status %d, want %d (%s)", rec.Code, tt.wantStatus, got)
			}
			if prefix, ok := strings.CutSuffix(tt.want, "…"); ok {
				if !strings.HasPrefix(got, prefix) {
					t.Errorf("answer %.200s, want it to start %s", got, prefix)
				}
			} else if got != tt.want {
				t.Errorf("answer %.200s, want %s", got, tt.want)
			}
		})
	}
}

// TestStageHandlerRefuses checks the errors of a ceiling without a tool
// or with a stage that does not exist.
func TestStageHandlerRefuses(t *testing.T) {
	tests := []struct {
		tool  *tools.Tool
		stage string
		want  string
	}{
		{nil, StageCheck, "no tool given"},
		{tools.Lookup("convert_odds"), "parse", `unknown stage "parse" (use decode, check, call, answer)`},
		{tools.Lookup("convert_odds"), "", `unknown stage "" (use decode, check, call, answer)`},
	}
	for _, tt := range tests {
		_, err := StageHandler(BareBody(10), tt.tool, tt.stage)
		if err == nil || err.Error() != tt.want {
			t.Errorf("StageHandler(%v, %q): error %v, want %q", tt.tool != nil, tt.stage, err, tt.want)
		}
	}
}
