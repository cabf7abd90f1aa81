package email

import (
	"bytes"
	"os"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"plain", "gmail-reply", "html-only", "attachment"} {
		data, err := os.ReadFile("testdata/" + name + ".eml")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkNotificationBytes(b *testing.B) {
	n := testNotification(KindChallenge)
	for b.Loop() {
		if _, err := n.Bytes(); err != nil {
			b.Fatal(err)
		}
	}
}
