package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/skillsettings"
)

func TestRegistryNames(t *testing.T) {
	want := []string{"convert_odds", "implied_probabilities", "combine_forecasts", "bayes_update",
		"score_forecasts", "check_forecast_md", "build_settings"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("Names() mismatch (-want +got):\n%s", diff)
	}
	for _, tool := range All() {
		if tool.Title == "" || tool.Summary == "" || len(tool.Description) < 100 {
			t.Errorf("%s: title %q, summary %q, description of %d bytes: all three must say something",
				tool.Name, tool.Title, tool.Summary, len(tool.Description))
		}
		if Lookup(tool.Name) != tool {
			t.Errorf("Lookup(%q) does not return the registered tool", tool.Name)
		}
	}
	if Lookup("nope") != nil {
		t.Error(`Lookup("nope") != nil`)
	}
}

// TestExamplesMatchOutputSchema runs every tool on its published example
// and validates the Result envelope against the tool's own output schema,
// so the published description cannot drift from what the tool returns.
func TestExamplesMatchOutputSchema(t *testing.T) {
	for _, tool := range All() {
		t.Run(tool.Name, func(t *testing.T) {
			ctx := WithBaseURL(context.Background(), "https://predictions.example")
			res, err := tool.Call(ctx, tool.Example)
			if err != nil {
				t.Fatalf("Call(example %s): %v", tool.Example, err)
			}
			if res.Summary == "" {
				t.Error("empty summary")
			}
			body, err := res.Envelope("https://predictions.example/terms")
			if err != nil {
				t.Fatal(err)
			}
			out, err := tool.OutputSchema.Resolve(nil)
			if err != nil {
				t.Fatalf("output schema does not resolve: %v", err)
			}
			var inst any
			if err := json.Unmarshal(body, &inst); err != nil {
				t.Fatalf("envelope is not JSON: %v", err)
			}
			if err := out.Validate(inst); err != nil {
				t.Errorf("envelope does not match the output schema: %v\n%s", err, body)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"tool", "summary", "notes", "disclaimer", "terms"} {
				if _, ok := m[k]; !ok {
					t.Errorf("envelope lacks %q", k)
				}
			}
			if strings.Count(string(body), `"notes":`) < 1 {
				t.Errorf("no notes field in %s", body)
			}
		})
	}
}

func TestSettingsCatalogAndSkillFile(t *testing.T) {
	body, err := SettingsCatalog().Envelope("t")
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Settings []struct{ Name string } `json:"settings"`
		Presets  []struct{ Name string } `json:"presets"`
	}
	if err := json.Unmarshal(body, &cat); err != nil {
		t.Fatal(err)
	}
	// Spec 2.4 lists preset, 19 settings and build_settings' format.
	if len(cat.Settings) != 19 || len(cat.Presets) != 4 {
		t.Errorf("catalog has %d settings and %d presets, want 19 and 4 (spec 2.4)", len(cat.Settings), len(cat.Presets))
	}
	md, notes := SkillFile(map[string][]string{"floor_pct": {"50"}, "pool": {"bogus"}}, skillsettings.Options{BaseURL: "https://predictions.example"})
	if !bytes.HasPrefix(md, []byte("---\nname: predictions\n")) {
		t.Errorf("skill file does not start with the Agent Skills front matter:\n%.200s", md)
	}
	for _, name := range Names() {
		if !bytes.Contains(md, []byte(name)) {
			t.Errorf("skill file does not mention tool %s", name)
		}
	}
	if len(notes) != 2 {
		t.Errorf("SkillFile notes = %q, want one for the clamped floor_pct and one for the invalid pool", notes)
	}
}

func TestBuildSettingsInvalidChoiceIsAnError(t *testing.T) {
	_, err := Lookup("build_settings").Call(context.Background(), []byte(`{"pool":"bogus"}`))
	ie, ok := err.(*InputError)
	if !ok || ie.Field != "pool" || !strings.Contains(ie.Hint, "geo_odds") {
		t.Fatalf("Call(pool=bogus) = %v, want an InputError on pool whose hint lists geo_odds", err)
	}
	res, err := Lookup("build_settings").Call(context.Background(), []byte(`{"floor_pct":50}`))
	if err != nil {
		t.Fatalf("Call(floor_pct=50): %v", err)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "floor_pct") {
		t.Errorf("Call(floor_pct=50) notes = %q, want one clamping note", res.Notes)
	}
}

// TestSkillFileCombineExample sends combine_forecasts the example body
// the skill file gives for each value of its pool setting: the tool takes
// it without a note on an unknown field, and the method it names leads.
func TestSkillFileCombineExample(t *testing.T) {
	var pool skillsettings.Setting
	for _, st := range skillsettings.Catalog() {
		if st.Name == "pool" {
			pool = st
		}
	}
	if diff := cmp.Diff(methodNames(), pool.Allowed()); diff != "" {
		t.Errorf("the pool setting's values differ from combine_forecasts' methods (-want +got):\n%s", diff)
	}
	for _, v := range pool.Allowed() {
		t.Run(v, func(t *testing.T) {
			md, notes := SkillFile(map[string][]string{"pool": {v}}, skillsettings.Options{BaseURL: "https://predictions.example"})
			if len(notes) != 0 {
				t.Fatalf("pool=%s: notes %q", v, notes)
			}
			_, after, ok := strings.Cut(string(md), "/api/v1/combine_forecasts' -H 'Content-Type: application/json' \\\n  -d '")
			body, _, ok2 := strings.Cut(after, "'\n")
			if !ok || !ok2 {
				t.Fatalf("pool=%s: no combine_forecasts example in the skill file", v)
			}
			res, err := Lookup("combine_forecasts").Call(context.Background(), []byte(body))
			if err != nil {
				t.Fatalf("pool=%s: combine_forecasts(%s): %v", v, body, err)
			}
			if out := res.Output.(*combineOutput); string(out.Method) != v || len(res.Notes) != 0 {
				t.Errorf("pool=%s: method %s, notes %q; want %s and no notes", v, out.Method, res.Notes, v)
			}
		})
	}
}
