package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/skillsettings"
)

// tools.SkillTools() lists the seven tools for the skill file the command writes.
//

// settingsOutputs are the values of --format.
var settingsOutputs = []string{"skill", "section", "json", "link"}

// settingsBoards are the values of --board: none, the file of a server
// without the board; id and keys, that of serve under --auth id or keys.
var settingsBoards = []string{"none", "id", "keys"}

// runSettings implements `predictions settings`: it resolves a preset and
// explicit settings exactly as GET /predictions.md does and prints the skill
// file, so that a person can write it to disk without a server. The file
// has the board's section only with --board id or keys, as serve (which
// always runs the board) serves it under that --auth. Notes about
// clamped, rounded or repeated values go to stderr. Unlike the HTTP endpoint,
// which ignores them with a note, an invalid value or an unknown setting is
// an error here (exit status 2): on a command line it is almost always a
// typo, and a file written from it would silently differ from what was asked.
func runSettings(_ context.Context, env *cmdEnv, args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "predictions settings: "+format+"\n", a...)
		fmt.Fprintln(env.stderr, "Run 'predictions settings --help' for the flags.")
		return 2
	}
	base := env.getenv("PREDICTIONS_BASE_URL")
	output := "skill"
	boardAuth := "none"
	q := map[string][]string{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch arg {
		case "-h", "-help", "--help", "help":
			settingsUsage(env.stdout)
			return 0
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
			return fail("unexpected argument %q; give settings as --name value, for example --pool mean", arg)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		name = strings.ReplaceAll(name, "-", "_")
		if !hasValue {
			if i+1 >= len(args) {
				return fail("flag %s needs a value, for example %s=%s", arg, arg, exampleValue(name))
			}
			i++
			value = args[i]
		}
		switch name {
		case "base_url":
			base = value
		case "format":
			if !contains(settingsOutputs, value) {
				return fail("--format %q is not one of %s", value, strings.Join(settingsOutputs, ", "))
			}
			output = value
		case "board":
			if !contains(settingsBoards, value) {
				return fail("--board %q is not one of %s", value, strings.Join(settingsBoards, ", "))
			}
			boardAuth = value
		default:
			q[name] = append(q[name], value)
		}
	}
	if base == "" {
		base = skillsettings.DefaultBaseURL
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail("base URL %q is not an http or https address, for example --base-url https://predictions.example", base)
	}

	s, notes := skillsettings.ResolveQuery(q)
	bad := 0
	for _, n := range notes {
		if err := n.Err(); err != nil {
			var ve *skillsettings.ValueError
			if errors.As(err, &ve) && errors.Is(err, skillsettings.ErrUnknown) {
				fmt.Fprintf(env.stderr, "predictions settings: --%s is not a setting; %s\n", ve.Setting, ve.Hint())
			} else {
				fmt.Fprintf(env.stderr, "predictions settings: %s\n", strings.TrimPrefix(err.Error(), "skillsettings: "))
			}
			bad++
			continue
		}
		fmt.Fprintf(env.stderr, "note: %s\n", n)
	}
	if bad > 0 {
		fmt.Fprintln(env.stderr, "Run 'predictions settings --help' for the settings and their values.")
		return 2
	}

	switch output {
	case "section":
		io.WriteString(env.stdout, s.Markdown())
	case "json":
		b, _ := s.MarshalJSON()
		var out bytes.Buffer
		if err := json.Indent(&out, b, "", "  "); err != nil {
			return fail("internal error: %v", err)
		}
		out.WriteByte('\n')
		out.WriteTo(env.stdout)
	case "link":
		fmt.Fprintln(env.stdout, s.Link(base))
		fmt.Fprintln(env.stdout, s.Install(base))
	default:
		io.WriteString(env.stdout, s.Skill(skillsettings.Options{BaseURL: base, Tools: tools.SkillTools(),
			Board: boardAuth != "none", BoardKeys: boardAuth == "keys"}))
	}
	return 0
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// exampleValue gives a valid value of the named setting for a hint.
func exampleValue(name string) string {
	if name == "preset" {
		return "team"
	}
	if name == "base_url" {
		return skillsettings.DefaultBaseURL
	}
	if name == "board" {
		return "id"
	}
	if st, ok := skillsettings.Lookup(name); ok {
		if st.Default != "" {
			return st.Default
		}
		if a := st.Allowed(); len(a) > 0 {
			return a[0]
		}
		return fmt.Sprint(st.Range.Min)
	}
	return "value"
}

func settingsUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: predictions settings [--preset P] [--name value ...] [--base-url URL] [--board B] [--format F]

Print the agents' skill file (SKILL.md in the Agent Skills layout) with the
given settings written in: the preset first, then each --name value
overriding it. Without --board it is the file of a server without the
board: the calculation tools and the settings, but not the board's section
(posting, forecasting, replying, scores). With --board id or --board keys it
is exactly what GET /predictions.md answers on predictions serve --auth id
or serve --auth keys, the board's section included. Notes about clamped or
rounded numbers go to stderr; an invalid value or an unknown setting is an
error (exit status 2). Names take underscores or hyphens (--floor_pct 2 or
--floor-pct=2); "unset" clears an optional setting.

Write it where agents look for skills:

  mkdir -p .claude/skills/predictions
  predictions settings --preset team --pool mean > .claude/skills/predictions/SKILL.md

Flags:
  --base-url URL   address of the server named in the file
                   (default $PREDICTIONS_BASE_URL, else `+skillsettings.DefaultBaseURL+`)
  --board B        none (default): no board section; id: the board section
                   of serve --auth id (agents send their id as the bearer
                   token); keys: that of serve --auth keys (agents register
                   a key once and send it)
  --format F       skill (default): the whole file; section: the settings
                   sections only; json: the settings as JSON; link: the link
                   to the file on the server and a one-line install command
  --preset P       starting point:
`)
	for _, p := range skillsettings.Presets() {
		fmt.Fprintf(w, "                     %-12s %s\n", p.Name, p.Summary)
	}
	fmt.Fprintln(w, "\nSettings:")
	for _, g := range skillsettings.Groups() {
		fmt.Fprintf(w, "\n  %s\n", g.Title)
		for _, st := range skillsettings.Catalog() {
			if st.Group != g.ID {
				continue
			}
			var values string
			if a := st.Allowed(); a != nil {
				values = strings.Join(a, "|")
			} else {
				values = fmt.Sprintf("%s %g to %g", st.Kind, st.Range.Min, st.Range.Max)
				if st.Optional {
					values += ", or unset"
				}
			}
			def := "not set"
			if st.Default != "" {
				def = "default " + st.Default
			}
			fmt.Fprintf(w, "  --%-18s %s (%s)\n  %-20s %s\n", st.Name, values, def, "", st.Meaning)
		}
	}
	fmt.Fprintln(w, "\nOut-of-range numbers are clamped into the range, with a note.")
	fmt.Fprintln(w, "\n"+skillsettings.Disclaimer)
}
