package httpio_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/httpio"
)

// TestWriteBody: the answer's headers, status and body; a header added
// to one answer afterwards does not reach the next.
func TestWriteBody(t *testing.T) {
	for _, ct := range []string{httpio.JSONType, "text/plain; charset=utf-8"} {
		rec := httptest.NewRecorder()
		httpio.WriteBody(rec, http.StatusTeapot, ct, []byte(`{"a":1}`))
		want := http.Header{"Content-Type": {ct}, "Content-Length": {"7"}, "X-Content-Type-Options": {"nosniff"}}
		if diff := cmp.Diff(want, rec.Header()); diff != "" {
			t.Errorf("%s: headers (-want +got):\n%s", ct, diff)
		}
		if rec.Code != http.StatusTeapot || rec.Body.String() != `{"a":1}` {
			t.Errorf("%s: %d %s", ct, rec.Code, rec.Body)
		}
		rec.Header().Add("Content-Type", "extra")
		rec.Header().Add("X-Content-Type-Options", "extra")
	}
	rec := httptest.NewRecorder()
	httpio.WriteBody(rec, http.StatusOK, httpio.JSONType, nil)
	want := http.Header{"Content-Type": {httpio.JSONType}, "Content-Length": {"0"}, "X-Content-Type-Options": {"nosniff"}}
	if diff := cmp.Diff(want, rec.Header()); diff != "" {
		t.Errorf("after Add on an earlier answer: headers (-want +got):\n%s", diff)
	}
}
