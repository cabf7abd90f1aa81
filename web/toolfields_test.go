package web

import (
	"io"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/skillsettings"
)

// controlName finds the named controls of a form.
var controlName = regexp.MustCompile(`<(?:input|select|textarea) name="([a-z_]+)"`)

// TestFieldTexts checks that fieldTexts lists exactly the controls each
// tool form shows (besides build_settings' catalog settings), so that
// every control has a plain label and every error about a field with a
// control is shown next to it.
func TestFieldTexts(t *testing.T) {
	srv := httptest.NewServer(New(Options{}))
	t.Cleanup(srv.Close)
	for _, tl := range tools.All() {
		t.Run(tl.Name, func(t *testing.T) {
			resp, err := srv.Client().Get(srv.URL + "/tools/" + tl.Name)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var shown []string
			for _, m := range controlName.FindAllStringSubmatch(string(b), -1) {
				if _, isSetting := skillsettings.Lookup(m[1]); isSetting && tl.Name == "build_settings" && m[1] != "format" && m[1] != "preset" {
					continue
				}
				shown = append(shown, m[1])
			}
			var listed []string
			for k := range fieldTexts {
				if name, ok := strings.CutPrefix(k, tl.Name+"."); ok {
					listed = append(listed, name)
					if _, inSchema := tl.InputSchema.Properties[name]; !inSchema {
						t.Errorf("fieldTexts lists %s, which %s does not take", k, tl.Name)
					}
				}
			}
			sort.Strings(shown)
			sort.Strings(listed)
			if diff := cmp.Diff(listed, slices.Compact(shown)); diff != "" {
				t.Errorf("controls of the %s form (-fieldTexts +shown):\n%s", tl.Name, diff)
			}
		})
	}
}
