package web

import (
	"html/template"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEscText: the rows written in Go escape text as html/template does
// in element content and in a quoted attribute.
func TestEscText(t *testing.T) {
	tmpl := template.Must(template.New("").Parse(`<p title="{{.}}">{{.}}</p>`))
	for _, s := range []string{
		"plain", `<script>alert("x")</script>`, "it's & 'that' + more", "\x00nul", "2026-03-01T12:00:00+02:00",
		"bad utf-8: \xff\xfe", "\ufdd0 \uffff non-characters", "日本語 العربية",
	} {
		var b strings.Builder
		if err := tmpl.Execute(&b, s); err != nil {
			t.Fatal(err)
		}
		e := escText.Replace(s)
		if diff := cmp.Diff(b.String(), `<p title="`+e+`">`+e+`</p>`); diff != "" {
			t.Errorf("%q (-html/template +escText):\n%s", s, diff)
		}
	}
}
