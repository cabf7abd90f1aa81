package boardtest_test

import (
	"strings"
	"testing"

	"github.com/predictions-md/predictions/board/boardtest"
)

// TestCheckPostgresEnv: a malformed PREDICTIONS_TEST_POSTGRES is an
// error naming the URL form, not a panic in the driver.
func TestCheckPostgresEnv(t *testing.T) {
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{"", true},
		{"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", true},
		{"postgresql://u:p@db.example:5432/x", true},
		{"127.0.0.1:5432", false},
		{"localhost", false},
		{"mysql://u@127.0.0.1/x", false},
		{"postgres:///x", false},
		{"postgres://%zz", false},
	} {
		err := boardtest.CheckPostgresEnv(func(string) string { return tc.value })
		if (err == nil) != tc.ok {
			t.Errorf("CheckPostgresEnv(%q) = %v, want ok %v", tc.value, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable") {
			t.Errorf("CheckPostgresEnv(%q) = %v: does not give the expected form", tc.value, err)
		}
	}
}
