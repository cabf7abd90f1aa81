package loadbench

import (
	"context"
	"os"
	"strconv"
	"testing"
)

func TestTmpSeed(t *testing.T) {
	path := os.Getenv("SEED_PATH")
	if path == "" {
		t.Skip()
	}
	n, _ := strconv.Atoi(os.Getenv("SEED_N"))
	if err := seed(context.Background(), path, 0, n); err != nil {
		t.Fatal(err)
	}
}
