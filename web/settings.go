package web

import (
	"net/http"
	"net/url"

	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/skillsettings"
)

// settingControl is a setting's control on a form.
type settingControl struct {
	skillsettings.Setting
	// Value is the value in force ("" when unset).
	Value string
	// Base is the value the preset (or, without one, the catalog) gives.
	Base string
	// Changed is Value != Base.
	Changed bool
}

type settingGroup struct {
	skillsettings.Group
	Controls []settingControl
}

// change is a setting whose value differs from the preset's.
type change struct {
	Name, From, To string
}

type settingsPage struct {
	Presets   []skillsettings.Preset
	Preset    string // "" for none
	Summary   string // the preset's summary
	Reasoning string
	Groups    []settingGroup
	Changes   []change
	Notes     []string
	Preview   string
	Link      string
	Install   string
	Query     string
	Confirmed bool
	Rule      string
}

// settings is the settings builder: a preset, the adjustments, what they
// change, the skill file they give (the same text as GET /predictions.md
// with the link's query) and, once the person says yes, the install
// command.
func (s *server) settings(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	confirmed := q.Get("confirm") == "yes"
	delete(q, "confirm")
	// The form sends every control; an optional setting left empty is
	// cleared, as "unset" would clear it.
	for _, st := range skillsettings.Catalog() {
		if vs, ok := q[st.Name]; ok && st.Optional && len(vs) == 1 && vs[0] == "" {
			q.Set(st.Name, skillsettings.Unset)
		}
	}
	set, notes := skillsettings.ResolveQuery(q)
	base := presetValues(set.Preset())

	page := settingsPage{Presets: skillsettings.Presets(), Preset: set.Preset(), Rule: tools.DraftedSettingsRule,
		Notes: skillsettings.Strings(notes), Confirmed: confirmed}
	if p, ok := skillsettings.LookupPreset(set.Preset()); ok {
		page.Summary, page.Reasoning = p.Summary, p.Reasoning
	}
	groups := map[string]int{}
	for _, g := range skillsettings.Groups() {
		groups[g.ID] = len(page.Groups)
		page.Groups = append(page.Groups, settingGroup{Group: g})
	}
	for _, st := range skillsettings.Catalog() {
		v, _ := set.Get(st.Name)
		c := settingControl{Setting: st, Value: v, Base: base[st.Name], Changed: v != base[st.Name]}
		if c.Changed {
			page.Changes = append(page.Changes, change{Name: st.Name, From: shown(c.Base), To: shown(v)})
		}
		g := &page.Groups[groups[st.Group]]
		g.Controls = append(g.Controls, c)
	}

	baseURL := s.baseURL(r)
	page.Query = set.Query()
	page.Link = set.Link(baseURL)
	page.Install = set.Install(baseURL)
	lq, _ := url.ParseQuery(page.Query) // written by Settings.Query, so it parses
	md, _ := tools.SkillFile(lq, skillsettings.Options{BaseURL: baseURL, Board: s.opt.Board != nil, BoardKeys: s.opt.BoardKeys})
	page.Preview = string(md)
	return s.render(w, r, http.StatusOK, "settings", "Settings builder", "settings", page)
}

// presetValues returns what the preset gives each setting ("" for unset);
// without a preset, the catalog's defaults.
func presetValues(preset string) map[string]string {
	out := map[string]string{}
	p, ok := skillsettings.LookupPreset(preset)
	for _, st := range skillsettings.Catalog() {
		v := st.Default
		if ok {
			v = p.Values[st.Name]
			if v == skillsettings.Unset {
				v = ""
			}
		}
		out[st.Name] = v
	}
	return out
}

// shown writes a setting's value for the list of changes.
func shown(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}
