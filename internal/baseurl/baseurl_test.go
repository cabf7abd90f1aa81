package baseurl_test

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"

	"github.com/predictions-md/predictions/internal/baseurl"
)

func TestOf(t *testing.T) {
	tests := []struct {
		name       string
		host       string
		tls        bool
		headers    map[string]string
		configured string
		trust      bool
		want       string
	}{
		{name: "configured wins", host: "a.example", configured: "https://b.example/x", trust: true,
			headers: map[string]string{"X-Forwarded-Host": "c.example"}, want: "https://b.example/x"},
		{name: "plain", host: "a.example:8080", want: "http://a.example:8080"},
		{name: "tls", host: "a.example", tls: true, want: "https://a.example"},
		{name: "forwarded ignored without trust", host: "a.example",
			headers: map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "c.example"}, want: "http://a.example"},
		{name: "forwarded with trust", host: "a.example", trust: true,
			headers: map[string]string{"X-Forwarded-Proto": "https, http", "X-Forwarded-Host": " c.example , d.example"}, want: "https://c.example"},
		{name: "odd proto ignored", host: "a.example", trust: true,
			headers: map[string]string{"X-Forwarded-Proto": "gopher"}, want: "http://a.example"},
		{name: "no host", host: "", want: "http://localhost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.Host = tt.host
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			if got := baseurl.Of(r, tt.configured, tt.trust); got != tt.want {
				t.Errorf("Of(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}
