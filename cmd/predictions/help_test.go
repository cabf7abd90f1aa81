package main

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	// defaultsFlag is a flag as flag.PrintDefaults writes it, ownFlag as
	// settings lists its own ("  --name").
	defaultsFlag = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)
	ownFlag      = regexp.MustCompile(`(?m)^  --([a-z][a-z0-9_-]*)`)
	// namedFlag is a flag named in running text or a usage line.
	namedFlag = regexp.MustCompile(`(?:^|[\s\[(` + "`" + `"])--([a-z][a-z0-9_-]*)`)
	// envName is the environment variable in brackets ending a flag's text.
	envName = regexp.MustCompile(`\[(PREDICTIONS_[A-Z_]+)\]`)
)

// helpOf runs `predictions args...` and returns its standard output.
func helpOf(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &cmdEnv{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := run(context.Background(), env, args); code != 0 || stderr.Len() != 0 {
		t.Fatalf("predictions %q: exit %d, stderr %q", args, code, stderr.String())
	}
	return stdout.String()
}

// TestHelpMatchesFlags renders every command's --help and checks its
// words against its flags: the usage line names only flags the command
// has, and every flag unless it says [flags] (or, for settings, [--name
// value ...]); every --flag the text names is one of the command's; where
// the text says each flag reads an environment variable, each names one,
// PREDICTIONS_ and the flag's name; the program's help lists every
// command, version included.
func TestHelpMatchesFlags(t *testing.T) {
	top := helpOf(t, "help")
	for _, c := range commands() {
		if !c.hidden && !regexp.MustCompile(`(?m)^  `+c.name+` `).MatchString(top) {
			t.Errorf("predictions help does not list %q:\n%s", c.name, top)
		}
	}
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			help := helpOf(t, c.name, "--help")
			usage, rest, _ := strings.Cut(help, "\n")
			if !strings.HasPrefix(usage, "Usage: predictions "+c.name) {
				t.Fatalf("first line %q is not the usage line", usage)
			}
			var flags []string
			for _, m := range defaultsFlag.FindAllStringSubmatch(rest, -1) {
				flags = append(flags, m[1])
			}
			for _, m := range ownFlag.FindAllStringSubmatch(rest, -1) {
				flags = append(flags, m[1])
			}
			wildcard := strings.Contains(usage, "[flags]") || strings.Contains(usage, "[--name value ...]")
			inUsage := names(usage)
			for _, f := range inUsage {
				if f != "name" && !slices.Contains(flags, f) {
					t.Errorf("usage %q names --%s, which %s does not have", usage, f, c.name)
				}
			}
			if !wildcard {
				for _, f := range flags {
					if !slices.Contains(inUsage, f) {
						t.Errorf("usage %q leaves out --%s", usage, f)
					}
				}
			}
			for _, f := range names(rest) {
				// settings takes --floor_pct as --floor-pct, and says so.
				if f != "name" && !slices.Contains(flags, f) && !slices.Contains(flags, strings.ReplaceAll(f, "-", "_")) {
					t.Errorf("the help names --%s, which %s does not have", f, c.name)
				}
			}
			if strings.Contains(help, envFlagsHeader) {
				for _, text := range flagTexts(rest) {
					m := envName.FindStringSubmatch(text.desc)
					want := "PREDICTIONS_" + strings.ToUpper(strings.ReplaceAll(text.name, "-", "_"))
					if m == nil || m[1] != want {
						t.Errorf("-%s: the header says every flag reads a variable, but its text names %v, want [%s]", text.name, m, want)
					}
				}
			}
		})
	}
	// Examples of invocations give what the text says to give.
	lines := strings.Split(helpOf(t, "mail", "--help"), "\n")
	for i, line := range lines {
		if strings.Contains(line, "predictions mail --") {
			for _, next := range lines[i+1:] { // an example continued on the next lines
				if !strings.HasPrefix(strings.TrimSpace(next), "--") {
					break
				}
				line += " " + strings.TrimSpace(next)
			}
			for _, f := range []string{"--db", "--mail-from", "--base-url"} {
				if !strings.Contains(line, f) {
					t.Errorf("mail example %q leaves out %s, which the help says to give", line, f)
				}
			}
		}
	}
	if h := helpOf(t, "version", "--help"); !strings.HasPrefix(h, "Usage: predictions version") {
		t.Errorf("version --help = %q, want its usage", h)
	}
}

// names lists the --flags named in s.
func names(s string) []string {
	var out []string
	for _, m := range namedFlag.FindAllStringSubmatch(s, -1) {
		out = append(out, strings.TrimRight(m[1], "-_"))
	}
	return out
}

type flagText struct{ name, desc string }

// flagTexts splits flag.PrintDefaults output into flags and their texts.
func flagTexts(s string) []flagText {
	var out []flagText
	for _, line := range strings.Split(s, "\n") {
		if m := defaultsFlag.FindStringSubmatch(line); m != nil {
			out = append(out, flagText{name: m[1]})
			continue
		}
		if len(out) > 0 && strings.HasPrefix(line, "    \t") {
			out[len(out)-1].desc += " " + strings.TrimSpace(line)
		}
	}
	return out
}
