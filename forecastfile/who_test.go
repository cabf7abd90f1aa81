package forecastfile_test

import (
	"testing"

	"github.com/predictions-md/predictions/forecastfile"
)

// TestSplitWho: agent:<id> and person:<id>, the prefix in any case and
// spaces dropped, name their kind; any other who, the word person
// included, has none.
func TestSplitWho(t *testing.T) {
	for _, tt := range []struct{ who, kind, rest string }{
		{"agent:alice", "agent", "alice"},
		{" Agent: alice ", "agent", "alice"},
		{"person:pat", "person", "pat"},
		{"PERSON:Jane Doe", "person", "Jane Doe"},
		{"person:", "person", ""},
		{"person", "", "person"},
		{"agent", "", "agent"},
		{"Jane Doe", "", "Jane Doe"},
		{"personal:x", "", "personal:x"},
		{"agents:x", "", "agents:x"},
	} {
		kind, rest := forecastfile.SplitWho(tt.who)
		if kind != tt.kind || rest != tt.rest {
			t.Errorf("SplitWho(%q) = %q, %q; want %q, %q", tt.who, kind, rest, tt.kind, tt.rest)
		}
	}
}
