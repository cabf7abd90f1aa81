// Package skillsettings holds the settings catalog, the four presets, the
// rules that resolve a preset plus explicit values into settings, and the
// renderers of the agents' skill file (specification 1, sections 2.4 and 4).
//
// It imports only the standard library; the HTTP and MCP adapters call it
// for GET /api/v1/settings ([Catalog], [Groups], [Presets]), for
// GET /predictions.md ([ResolveQuery], [Settings.Skill]) and for
// build_settings ([ResolveJSON] or [ResolveQuery], [ParseFormat],
// [Settings.Markdown], the settings as JSON, [Settings.Link] and
// [Settings.Install]).
//
// A program that resolves the team preset with two values of its own,
// prints what it changed and the link that reproduces the file, and writes
// the skill file:
//
//	package main
//
//	import (
//		"fmt"
//		"log"
//		"os"
//
//		"github.com/predictions-md/predictions/skillsettings"
//	)
//
//	func main() {
//		s, notes := skillsettings.Resolve(map[string]string{"preset": "team", "pool": "median", "floor_pct": "80"})
//		for _, n := range notes {
//			fmt.Println("note:", n) // never an error: values are clamped or ignored with a note
//		}
//		fmt.Println(s.Link("https://predictions.example"))
//		skill := s.Skill(skillsettings.Options{BaseURL: "https://predictions.example"})
//		if err := os.WriteFile("SKILL.md", []byte(skill), 0o644); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// It prints:
//
//	note: floor_pct: 80 is above the maximum 10; used 10
//	https://predictions.example/predictions.md?preset=team&pool=median&floor_pct=10
//
// The main entry points are [Resolve], [ResolveQuery] and [ResolveJSON]
// (values to [Settings]), [Settings.Skill] (the skill file),
// [Settings.Markdown], [Settings.Link] and [Settings.Install], and
// [Catalog], [Groups] and [Presets] (the catalog). Resolving never fails;
// [Note.Err] turns a note about an invalid value or unknown name into a
// *[ValueError] wrapping [ErrInvalid] or [ErrUnknown], and [ParseFormat]
// returns the same.
//
// # The catalog
//
// Every setting of section 2.4 is a [Setting] with its group, [Kind]
// (choice, integer or number), unit, [Range], options, default and a
// one-line meaning, in the specification's order. That order is the order
// of the skill file, of the JSON form and of the link. A setting without a
// default is optional: [Unset] clears it. The specification lists unset
// among the options of the optional choices; this package also accepts it
// for the optional numbers (min_forecasters, disagree_pts, extremize,
// min_sources, stale_minutes, decimals, review_days), since a preset may set
// them and a team may want them cleared.
//
// # Presets
//
// Each [Preset] gives a value to every setting (unset included), and carries
// its reasoning in the catalog. In short:
//
//   - core, the safe minimum: forecasts are information only
//     (act_on_forecasts never) and stay in the team's file (share never);
//     geometric mean of odds; no probability within 1 point of certainty.
//     Nothing about method, so it suits any agent.
//   - recommended, one agent with one person: base rate first, forecast
//     before reading others, one timestamped source, data stale after a
//     day, update on evidence, ask before sharing, whole percentages, Brier
//     score in 5 bins, monthly review.
//   - team, several forecasters: recommended plus at least two forecasters
//     before combining, a flag above 20 points of spread, two sources,
//     daily updates (so the pooled forecasts are of the same age), both
//     scores, review every two weeks.
//   - strict, teams that act on forecasts: act_on_forecasts ask (the only
//     preset that allows it, and only with a yes each time); three
//     forecasters, three sources, data stale after six hours, a flag from
//     15 points, a 2% floor, both scores in 10 bins, weekly review.
//
// No preset extremizes: agents built on similar models and reading the same
// sources share information, and extremizing such a pool makes it
// overconfident. Every preset pools by the geometric mean of odds, which the
// forecast-aggregation literature finds at least as accurate as the mean
// (Satopää et al., "Combining multiple probability predictions using a
// simple logit model", International Journal of Forecasting 30(2), 2014).
//
// # Resolving
//
// [ResolveQuery] (and [Resolve], [ResolveJSON] for other input shapes)
// applies the preset first, then each explicit value. It never fails: each
// value it changes or ignores yields a [Note] whose [NoteKind] lets the
// adapter decide. Numbers out of range are clamped ([NoteClamped]); an
// integer setting given a fraction is clamped, then rounded half away from
// zero ([NoteRounded]); invalid choices ([NoteInvalid], with the allowed
// values) and unknown names ([NoteUnknown]) are ignored. The skill file
// endpoint reports every note in X-Settings-Notes; build_settings answers
// the first [NoteInvalid] with 400 using [Note.Err], a *[ValueError] whose
// Hint lists the allowed values. Empty values count as not given (as a
// form sends them), and a name given twice takes its last value
// ([NoteRepeated]).
//
// # Rendering
//
// [Settings.Markdown] writes the settings sections: what each setting asks
// of the agent, in plain words. [Settings.MarshalJSON] writes the settings
// as one JSON object in the catalog's order. [Settings.Skill] writes the
// whole skill file in the Agent Skills layout (front matter with name
// "predictions" and a description that says when to use it), then the
// standing rules, the tools over HTTP and MCP, the forecast file format
// with an example, and the settings sections. The base URL and the list of
// tools are inputs ([Options]), so the server passes its own.
//
// # The link and the install command
//
// [Settings.Link] writes the preset and only the settings that differ from
// it, in the catalog's order, with clamped and rounded values already
// applied: the shortest link that reproduces the same file, the same for
// equal settings however they were given, and one that resolves without
// notes. The file itself states every value in force, so an installed copy
// does not depend on the preset's definition. [Settings.Install] writes a
// one-line command that creates [InstallDir] (.claude/skills/predictions,
// a folder per skill as the Agent Skills layout wants) and downloads the
// file into it as SKILL.md.
package skillsettings
