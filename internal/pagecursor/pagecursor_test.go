package pagecursor_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/internal/pagecursor"
)

type position struct {
	At string `json:"t"`
	ID string `json:"i"`
}

const salt = "test cursor v1\x00"

// TestOpen: a sealed cursor opens to its position; one too long, cut
// short, edited, of another salt or of another shape is refused with the
// error that says so.
func TestOpen(t *testing.T) {
	text := pagecursor.Seal(salt, []byte(`{"t":"2026-03-01T12:00:00Z","i":"q-1"}`))
	var p position
	if err := pagecursor.Open(text, salt, &p); err != nil || p != (position{"2026-03-01T12:00:00Z", "q-1"}) {
		t.Fatalf("Open(Seal(...)) = %+v, %v", p, err)
	}
	edited := []byte(text)
	edited[3] ^= 1
	for _, tc := range []struct {
		name, text, salt string
		want             error
	}{
		{"too long", strings.Repeat("A", pagecursor.MaxLen+1), salt, pagecursor.ErrTooLong},
		{"not base64url", "!!", salt, pagecursor.ErrNotCursor},
		{"empty", "", salt, pagecursor.ErrNotCursor},
		{"cut short", text[:len(text)-2], salt, pagecursor.ErrDamaged},
		{"edited", string(edited), salt, pagecursor.ErrDamaged},
		{"another salt", text, "other\x00", pagecursor.ErrDamaged},
		{"another shape", pagecursor.Seal(salt, []byte(`{"x":1}`)), salt, pagecursor.ErrNotCursor},
		{"trailing value", pagecursor.Seal(salt, []byte(`{} {}`)), salt, pagecursor.ErrNotCursor},
	} {
		if err := pagecursor.Open(tc.text, tc.salt, &p); !errors.Is(err, tc.want) {
			t.Errorf("%s: Open = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// FuzzOpen: any text opens or is refused with one of Open's errors, never
// a panic; what opens seals and opens again to the same position.
func FuzzOpen(f *testing.F) {
	f.Add(pagecursor.Seal(salt, []byte(`{"t":"x","i":"y"}`)))
	f.Add("")
	f.Add("eyJ0IjoieCJ9")
	f.Fuzz(func(t *testing.T, text string) {
		var p position
		err := pagecursor.Open(text, salt, &p)
		if err != nil {
			if !errors.Is(err, pagecursor.ErrTooLong) && !errors.Is(err, pagecursor.ErrDamaged) && !errors.Is(err, pagecursor.ErrNotCursor) {
				t.Fatalf("Open(%q) = %v: not one of Open's errors", text, err)
			}
			return
		}
		payload, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var again position
		if err := pagecursor.Open(pagecursor.Seal(salt, payload), salt, &again); err != nil || again != p {
			t.Fatalf("round trip of %+v = %+v, %v", p, again, err)
		}
	})
}
