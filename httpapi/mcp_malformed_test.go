package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/predictions-md/predictions/mcpserver"
)

func newMCP(t *testing.T) http.Handler {
	t.Helper()
	h, err := mcpserver.Handler(mcpserver.Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	return h
}
