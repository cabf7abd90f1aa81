package skillsettings_test

import (
	"strings"
	"testing"

	"github.com/predictions-md/predictions/skillsettings"
)

func TestInstallAt(t *testing.T) {
	s, _ := skillsettings.ResolveQuery(nil)
	link := s.Link("https://predictions.example")
	tests := []struct {
		loc  string
		want string
	}{
		{"", "mkdir -p .claude/skills/predictions && curl -fsSL '" + link + "' -o .claude/skills/predictions/SKILL.md"},
		{"project", "mkdir -p .claude/skills/predictions && curl -fsSL '" + link + "' -o .claude/skills/predictions/SKILL.md"},
		{"User", "mkdir -p ~/.claude/skills/predictions && curl -fsSL '" + link + "' -o ~/.claude/skills/predictions/SKILL.md"},
		{"agents", "mkdir -p .agents/skills/predictions && curl -fsSL '" + link + "' -o .agents/skills/predictions/SKILL.md"},
	}
	for _, tt := range tests {
		l, err := skillsettings.ParseLocation(tt.loc)
		if err != nil {
			t.Fatalf("ParseLocation(%q): %v", tt.loc, err)
		}
		if got := s.InstallAt("https://predictions.example", l); got != tt.want {
			t.Errorf("InstallAt(%q) = %q, want %q", tt.loc, got, tt.want)
		}
	}
	if _, err := skillsettings.ParseLocation("desktop"); err == nil || !strings.Contains(err.Error(), "project, user or agents") {
		t.Errorf("ParseLocation(desktop) = %v, want an error listing the locations", err)
	}
}
