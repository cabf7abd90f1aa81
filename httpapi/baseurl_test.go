package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/httpapi"
)

// TestBuildSettingsAddress: build_settings links and installs from the
// same public address as every other link: the configured base URL, else
// the request's own scheme and host (never a fixed 127.0.0.1:8080).
func TestBuildSettingsAddress(t *testing.T) {
	for _, tc := range []struct {
		name, base string
	}{
		{"configured", "https://predictions.example"},
		{"from the request", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(httpapi.New(httpapi.Options{BaseURL: tc.base}))
			defer srv.Close()
			want := tc.base
			if want == "" {
				want = srv.URL
			}
			resp, err := http.Get(srv.URL + "/api/v1/build_settings?preset=team")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got struct{ Link, Install, Terms string }
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got.Link, want+"/predictions.md?") || !strings.Contains(got.Install, "'"+want+"/predictions.md?") ||
				got.Terms != want+"/terms" {
				t.Errorf("link %q, install %q, terms %q; want all at %s", got.Link, got.Install, got.Terms, want)
			}
		})
	}
}
