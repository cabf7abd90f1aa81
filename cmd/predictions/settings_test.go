package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/skillsettings"
)

// runCmd runs the binary's dispatcher in-process with the given environment.
func runCmd(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cmdEnv{
		stdin:  strings.NewReader(""),
		stdout: &out,
		stderr: &errb,
		getenv: func(k string) string { return env[k] },
	}
	code = run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func skillFor(t *testing.T, base string, in map[string]string) string {
	t.Helper()
	s, _ := skillsettings.Resolve(in)
	return s.Skill(skillsettings.Options{BaseURL: base, Tools: tools.SkillTools()})
}

func TestSettingsCommand(t *testing.T) {
	const envURL = "https://env.example"
	for _, tc := range []struct {
		name       string
		env        map[string]string
		args       []string
		wantOut    string
		wantErr    []string // lines of stderr
		wantStatus int
	}{
		{
			name:    "defaults",
			wantOut: skillFor(t, skillsettings.DefaultBaseURL, nil),
		},
		{
			name:    "preset and overrides, both spellings",
			args:    []string{"--preset", "team", "--pool", "mean", "--floor-pct", "2", "--min_sources=3"},
			wantOut: skillFor(t, skillsettings.DefaultBaseURL, map[string]string{"preset": "team", "pool": "mean", "floor_pct": "2", "min_sources": "3"}),
		},
		{
			name:    "clamped and rounded values give notes on stderr",
			args:    []string{"--preset", "strict", "--floor_pct", "25", "--min-sources", "-1", "--review_days", "2.5"},
			wantOut: skillFor(t, skillsettings.DefaultBaseURL, map[string]string{"preset": "strict", "floor_pct": "10", "min_sources": "0", "review_days": "3"}),
			wantErr: []string{
				"note: min_sources: -1 is below the minimum 0; used 0",
				"note: floor_pct: 25 is above the maximum 10; used 10",
				"note: review_days: 2.5 is not a whole number; rounded to 3",
			},
		},
		{
			name:    "repeated flag takes the last value",
			args:    []string{"--pool", "mean", "--pool=median"},
			wantOut: skillFor(t, skillsettings.DefaultBaseURL, map[string]string{"pool": "median"}),
			wantErr: []string{"note: pool: given more than once; used the last value, median"},
		},
		{
			name:    "unset clears a preset value",
			args:    []string{"-preset", "team", "-share", "unset"},
			wantOut: skillFor(t, skillsettings.DefaultBaseURL, map[string]string{"preset": "team", "share": "unset"}),
		},
		{
			name:    "base URL from the environment",
			env:     map[string]string{"PREDICTIONS_BASE_URL": envURL},
			wantOut: skillFor(t, envURL, nil),
		},
		{
			name:    "flag beats the environment",
			env:     map[string]string{"PREDICTIONS_BASE_URL": envURL},
			args:    []string{"--base-url", "https://flag.example/"},
			wantOut: skillFor(t, "https://flag.example", nil),
		},
		{
			name:    "link format",
			args:    []string{"--format", "link", "--preset", "core", "--base_url=https://p.example", "--bins", "10"},
			wantOut: "https://p.example/predictions.md?preset=core&bins=10\nmkdir -p .claude/skills/predictions && curl -fsSL 'https://p.example/predictions.md?preset=core&bins=10' -o .claude/skills/predictions/SKILL.md\n",
		},
		{
			name: "section format",
			args: []string{"--format=section", "--preset", "recommended"},
			wantOut: func() string {
				s, _ := skillsettings.Resolve(map[string]string{"preset": "recommended"})
				return s.Markdown()
			}(),
		},
		{
			name:       "invalid choice is an error",
			args:       []string{"--pool", "average"},
			wantErr:    []string{`predictions settings: pool: "average" is not allowed; use one of geo_odds, mean, median, recency, skill, for example pool=geo_odds`, "Run 'predictions settings --help' for the settings and their values."},
			wantStatus: 2,
		},
		{
			name: "unknown setting is an error",
			args: []string{"--colour", "blue", "--Floor-Pct", "2"},
			wantErr: []string{
				"predictions settings: --Floor_Pct is not a setting; did you mean floor_pct? The settings are: " + strings.Join(settingNames(), ", "),
				"predictions settings: --colour is not a setting; the settings are: " + strings.Join(settingNames(), ", "),
				"Run 'predictions settings --help' for the settings and their values.",
			},
			wantStatus: 2,
		},
		{
			name:       "unknown preset",
			args:       []string{"--preset", "lax"},
			wantErr:    []string{`predictions settings: preset: "lax" is not allowed; use one of core, recommended, team, strict, for example preset=core`, "Run 'predictions settings --help' for the settings and their values."},
			wantStatus: 2,
		},
		{
			name:       "missing value",
			args:       []string{"--preset", "team", "--pool"},
			wantErr:    []string{"predictions settings: flag --pool needs a value, for example --pool=geo_odds", "Run 'predictions settings --help' for the flags."},
			wantStatus: 2,
		},
		{
			name:       "positional argument",
			args:       []string{"team"},
			wantErr:    []string{`predictions settings: unexpected argument "team"; give settings as --name value, for example --pool mean`, "Run 'predictions settings --help' for the flags."},
			wantStatus: 2,
		},
		{
			name:       "bad base URL",
			args:       []string{"--base-url", "predictions.example"},
			wantErr:    []string{`predictions settings: base URL "predictions.example" is not an http or https address, for example --base-url https://predictions.example`, "Run 'predictions settings --help' for the flags."},
			wantStatus: 2,
		},
		{
			name:       "bad format",
			args:       []string{"--format", "html"},
			wantErr:    []string{`predictions settings: --format "html" is not one of skill, section, json, link`, "Run 'predictions settings --help' for the flags."},
			wantStatus: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, tc.env, append([]string{"settings"}, tc.args...)...)
			if code != tc.wantStatus {
				t.Errorf("exit status = %d, want %d; stderr:\n%s", code, tc.wantStatus, errOut)
			}
			if diff := cmp.Diff(tc.wantOut, out); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			var gotErr []string
			if errOut != "" {
				gotErr = strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func settingNames() []string {
	var out []string
	for _, s := range skillsettings.Catalog() {
		out = append(out, s.Name)
	}
	return out
}

func TestSettingsJSON(t *testing.T) {
	code, out, errOut := runCmd(t, nil, "settings", "--format", "json", "--preset", "team", "--extremize", "1.4")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if got["preset"] != "team" || got["extremize"] != 1.4 || got["pool"] != "geo_odds" {
		t.Errorf("JSON = %s", out)
	}
}

func TestSettingsHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		code, out, errOut := runCmd(t, nil, "settings", "--pool", "mean", arg)
		if code != 0 || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", arg, code, errOut)
		}
		want := []string{"Usage: predictions settings", "--floor-pct=2", "--base-url", "PREDICTIONS_BASE_URL", skillsettings.DefaultBaseURL, ".claude/skills/predictions/SKILL.md", "geo_odds|mean|median", "integer 1 to 50, or unset"}
		want = append(want, skillsettings.PresetNames()...)
		for _, name := range settingNames() {
			want = append(want, "--"+name+" ")
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: help lacks %q", arg, w)
			}
		}
	}
	// The binary's own help lists the command.
	_, out, _ := runCmd(t, nil, "help")
	if !strings.Contains(out, "settings") {
		t.Errorf("predictions help does not list settings:\n%s", out)
	}
}

func TestSettingsToolsAreTheSeven(t *testing.T) {
	want := []string{"convert_odds", "implied_probabilities", "combine_forecasts", "bayes_update", "score_forecasts", "check_forecast_md", "build_settings"}
	var got []string
	for _, tool := range tools.SkillTools() {
		got = append(got, tool.Name)
		if tool.Summary == "" {
			t.Errorf("%s has no summary", tool.Name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}
