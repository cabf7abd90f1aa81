package mcpserver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/mcpserver"
)

// TestAnnouncedLengthTooLarge: a body announced larger than MaxBodyBytes is
// refused before any of it is read, so a client cannot hold the request
// open by announcing more than it sends.
func TestAnnouncedLengthTooLarge(t *testing.T) {
	h, err := mcpserver.Handler(mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.ContentLength = mcpserver.MaxBodyBytes + 1
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("status = %d, want 413: %s", rec.Code, rec.Body)
	}
}
