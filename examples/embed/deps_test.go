package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps: a program that mounts only the calculation API links no
// database driver, no bun, no Redis client and no MCP SDK (httpapi imports
// neither the board's adapter nor the MCP adapter).
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{"github.com/uptrace/bun", "modernc.org/sqlite", "github.com/mattn/go-sqlite3",
		"github.com/jackc/", "github.com/lib/pq", "github.com/redis/", "github.com/modelcontextprotocol/go-sdk",
		"github.com/predictions-md/predictions/board", "github.com/predictions-md/predictions/boardapi"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(pkg, f) {
				t.Errorf("examples/embed links %s", pkg)
			}
		}
	}
}
