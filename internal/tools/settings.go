package tools

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/skillsettings"
)

// SettingsCatalog returns the settings catalog (GET /api/v1/settings and
// the MCP resource): every setting with its group, kind, unit, range,
// options and default, the groups, and the presets with the value each
// gives to each setting.
func SettingsCatalog() *Result {
	cat := skillsettings.Catalog()
	return &Result{
		Tool: "settings",
		Summary: fmt.Sprintf("%d settings in %d groups and %d presets (%s); a preset is applied first and explicit settings override it.",
			len(cat), len(skillsettings.Groups()), len(skillsettings.Presets()), strings.Join(skillsettings.PresetNames(), ", ")),
		Output: catalogOutput{
			Settings: cat, Groups: skillsettings.Groups(), Presets: skillsettings.Presets(),
			DraftedSettingsRule: DraftedSettingsRule,
		},
	}
}

// SettingsCatalogSchema is the JSON Schema of [SettingsCatalog]'s Result.
func SettingsCatalogSchema() *jsonschema.Schema {
	s, err := outputSchemaFor[catalogOutput]()
	if err != nil {
		panic(fmt.Sprintf("tools: settings catalog: %v", err))
	}
	return s
}

type catalogOutput struct {
	Settings            []skillsettings.Setting `json:"settings"`
	Groups              []skillsettings.Group   `json:"groups"`
	Presets             []skillsettings.Preset  `json:"presets"`
	DraftedSettingsRule string                  `json:"drafted_settings_rule"`
}

// SkillFile renders the skill file (GET /predictions.md and the MCP
// resource) with the settings of q written in. Invalid or unknown values are
// ignored and, like clamped ones, described in notes.
// opt says what the server runs beyond the tools: its BaseURL, and with
// Board (and BoardKeys, for key mode) the agent board, which the file then
// teaches; the tool table is the registry's, whatever opt.Tools holds.
func SkillFile(q url.Values, opt skillsettings.Options) (markdown []byte, notes []string) {
	s, ns := skillsettings.ResolveQuery(q)
	opt.Tools = skillOptions("").Tools
	return []byte(s.Skill(opt)), skillsettings.Strings(ns)
}

func skillOptions(baseURL string) skillsettings.Options {
	opt := skillsettings.Options{BaseURL: baseURL}
	for _, t := range All() {
		opt.Tools = append(opt.Tools, skillsettings.Tool{Name: t.Name, Summary: t.Summary})
	}
	return opt
}

// SkillTools lists the tools for the skill file's tool table.
func SkillTools() []skillsettings.Tool { return skillOptions("").Tools }

type buildOutput struct {
	Preset   string                 `json:"preset" jsonschema:"the preset applied first, or empty"`
	Format   skillsettings.Format   `json:"format" jsonschema:"section or skill"`
	Settings skillsettings.Settings `json:"settings" jsonschema:"every setting in force; null for unset optional settings"`
	Markdown string                 `json:"markdown" jsonschema:"the settings sections as Markdown"`
	Skill    string                 `json:"skill,omitempty" jsonschema:"the whole skill file, with format skill"`
	Link     string                 `json:"link" jsonschema:"address of the skill file with these settings written in"`
	Install  string                 `json:"install" jsonschema:"one-line shell command that installs the skill file"`
	Rule     string                 `json:"rule" jsonschema:"settings drafted by an agent count only after the person says yes"`
}

// buildSettingsSchema describes build_settings' input from the catalog:
// preset, every setting and format. Numbers carry their range in the
// description, not as bounds, because out-of-range numbers are clamped
// with a note rather than refused.
func buildSettingsSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	add := func(name string, fs *jsonschema.Schema) {
		s.Properties[name] = fs
		s.PropertyOrder = append(s.PropertyOrder, name)
	}
	presets := []any{}
	for _, p := range skillsettings.PresetNames() {
		presets = append(presets, p)
	}
	add("preset", &jsonschema.Schema{Type: "string", Enum: presets,
		Description: "starting point, applied first; explicit settings override it"})
	for _, st := range skillsettings.Catalog() {
		desc := st.Meaning
		if st.Unit != "" {
			desc += " (" + st.Unit + ")"
		}
		if st.Optional {
			desc += "; optional: unset clears it"
		}
		var fs *jsonschema.Schema
		switch st.Kind {
		case skillsettings.Choice:
			enum := []any{}
			for _, v := range st.Allowed() {
				enum = append(enum, v)
			}
			fs = &jsonschema.Schema{Type: "string", Enum: enum}
		default:
			typ := "number"
			if st.Kind == skillsettings.Integer {
				typ = "integer"
			}
			if st.Range != nil {
				desc += fmt.Sprintf("; from %s to %s, values outside are clamped with a note",
					strconv.FormatFloat(st.Range.Min, 'g', -1, 64), strconv.FormatFloat(st.Range.Max, 'g', -1, 64))
			}
			num := &jsonschema.Schema{Type: "number"}
			if typ == "integer" {
				num.Description = "a whole number; a fraction is rounded with a note"
			}
			fs = num
			if st.Optional {
				fs = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{num, {Type: "string", Enum: []any{skillsettings.Unset}}}}
			}
		}
		fs.Description = desc
		if st.Default != "" {
			fs.Default = defaultJSON(st)
		}
		add(st.Name, fs)
	}
	add("format", &jsonschema.Schema{Type: "string", Enum: []any{string(skillsettings.FormatSection), string(skillsettings.FormatSkill)},
		Description: "section: the settings sections only; skill: the whole skill file as well", Default: []byte(`"section"`)})
	locs := []any{}
	for _, l := range skillsettings.Locations() {
		locs = append(locs, string(l))
	}
	add("install_to", &jsonschema.Schema{Type: "string", Enum: locs, Default: []byte(`"project"`),
		Description: "where the install command writes SKILL.md: project (.claude/skills/predictions, at the root of a project), " +
			"user (~/.claude/skills/predictions, every project of the user) or agents (.agents/skills/predictions, the cross-agent folder)"})
	return s
}

func defaultJSON(st skillsettings.Setting) []byte {
	if st.Kind == skillsettings.Choice {
		return []byte(strconv.Quote(st.Default))
	}
	if _, err := strconv.ParseFloat(st.Default, 64); err == nil {
		return []byte(st.Default)
	}
	return nil
}

func buildSettings() *Tool {
	return defineSchema(Tool{
		Name:    "build_settings",
		Title:   "Build settings",
		Summary: "write chosen settings into the skill file's settings sections, with a link and an install command",
		Description: "Build the settings of the agents' skill file from a preset (core, recommended, team, strict) and explicit settings, which override it. " +
			"Returns the settings sections as Markdown, the settings as JSON, a link to the skill file with them written in and a one-line install command; " +
			"with format skill, the whole skill file too. Numbers out of range are clamped with a note; an invalid choice is an error listing the allowed values. " +
			"Nothing is stored. " + DraftedSettingsRule,
	}, buildSettingsSchema(),
		`{"preset":"team","pool":"median","floor_pct":2,"format":"section"}`,
		runBuild)
}

func runBuild(ctx context.Context, in *map[string]any, r *Reply) (buildOutput, error) {
	values := *in
	format, err := skillsettings.ParseFormat(stringValue(values["format"]))
	if err != nil {
		return buildOutput{}, fieldError("format", err, "use section or skill")
	}
	delete(values, "format")
	loc, err := skillsettings.ParseLocation(stringValue(values["install_to"]))
	if err != nil {
		return buildOutput{}, fieldError("install_to", err, "use project (.claude/skills), user (~/.claude/skills) or agents (.agents/skills)")
	}
	delete(values, "install_to")
	s, notes := skillsettings.ResolveJSON(values)
	for _, n := range notes {
		if n.Kind == skillsettings.NoteUnknown {
			continue // already named by the unknown-field notes
		}
		if err := n.Err(); err != nil {
			hint := "see GET /api/v1/settings for the allowed values"
			if ve, ok := err.(*skillsettings.ValueError); ok {
				hint = ve.Hint()
			}
			return buildOutput{}, fieldError(n.Setting, err, hint)
		}
		r.Notes = append(r.Notes, n.String())
	}
	out := buildOutput{
		Preset: s.Preset(), Format: format, Settings: s, Markdown: s.Markdown(),
		Link: s.Link(BaseURL(ctx)), Install: s.InstallAt(BaseURL(ctx), loc), Rule: DraftedSettingsRule,
	}
	if format == skillsettings.FormatSkill {
		out.Skill = s.Skill(skillOptions(BaseURL(ctx)))
	}
	preset := "no preset"
	if s.Preset() != "" {
		preset = "preset " + s.Preset()
	}
	r.Summary = fmt.Sprintf("Settings built from %s; show them to the person and use them only once the person agrees.", preset)
	return out, nil
}

func stringValue(v any) string {
	s, _ := v.(string)
	return s
}
