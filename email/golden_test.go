package email

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The board of the test messages.
const (
	testDomain = "predictions.example.org"
	testPred   = "0192f3a4-5b6c-7d8e-9f00-112233445566"
	testReply  = "0192f3b0-0000-7000-8000-aaaaaaaaaaaa"
)

var testMailbox = mail.Address{Name: "Predictions board", Address: "board@" + testDomain}

// goldenOptions has a small size limit so that testdata/oversize.eml stays
// small.
var goldenOptions = Options{MaxBytes: 16 << 10}

// goldenResult is what a golden file records about one message.
type goldenResult struct {
	Message      *Message `json:"message,omitempty"`
	Error        string   `json:"error,omitempty"`
	Sentinel     string   `json:"sentinel,omitempty"`
	PredictionID string   `json:"prediction_id,omitempty"`
	MatchedBy    string   `json:"matched_by,omitempty"`
	ParentReply  string   `json:"parent_reply,omitempty"`
}

func sentinelName(err error) string {
	for _, s := range []struct {
		err  error
		name string
	}{{ErrTooLarge, "ErrTooLarge"}, {ErrNoText, "ErrNoText"}, {ErrMalformed, "ErrMalformed"}, {ErrCharset, "ErrCharset"}, {ErrInvalid, "ErrInvalid"}} {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return "none"
}

// TestGolden parses each testdata/*.eml and compares the result with
// testdata/*.golden.json. Regenerate with go test -update.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.eml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 14 {
		t.Fatalf("found %d messages in testdata, want at least 14", len(files))
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var res goldenResult
			m, err := goldenOptions.Parse(bytes.NewReader(data))
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("Parse error %v (%T) is not an *Error", err, err)
				}
				res.Error, res.Sentinel = err.Error(), sentinelName(err)
			} else {
				res.Message = m
				res.PredictionID, res.MatchedBy, _ = PredictionID(m, testDomain, testMailbox)
				res.ParentReply, _ = ParentReplyID(m, testDomain)
			}
			var got bytes.Buffer
			enc := json.NewEncoder(&got)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(res); err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(in, ".eml")+".golden.json", got.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
