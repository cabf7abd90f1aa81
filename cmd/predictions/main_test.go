package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelpAndVersion: help that is asked for goes to standard output and
// exits 0, for the program and for every command; the version too.
func TestHelpAndVersion(t *testing.T) {
	tests := []struct {
		args []string
		want string // a piece of standard output
	}{
		{[]string{"help"}, "Commands:"},
		{[]string{"--help"}, "Commands:"},
		{[]string{"-h"}, "Commands:"},
		{[]string{"version"}, "predictions "},
		{[]string{"--version"}, "predictions "},
		{[]string{"help", "serve"}, "Usage: predictions serve"},
		{[]string{"help", "check"}, "Usage: predictions check"},
	}
	for _, c := range commands() {
		tests = append(tests,
			struct {
				args []string
				want string
			}{[]string{c.name, "--help"}, "Usage: predictions " + c.name},
			struct {
				args []string
				want string
			}{[]string{c.name, "-h"}, "Usage: predictions " + c.name})
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := &cmdEnv{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
			if code := run(context.Background(), env, tt.args); code != 0 {
				t.Errorf("predictions %q exit %d, want 0; stderr:\n%s", tt.args, code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.want) {
				t.Errorf("predictions %q: standard output lacks %q:\n%s", tt.args, tt.want, stdout.String())
			}
			if stderr.Len() != 0 {
				t.Errorf("predictions %q wrote to standard error:\n%s", tt.args, stderr.String())
			}
		})
	}
}

// TestUnknownCommand: a mistyped command is an error on standard error.
func TestUnknownCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := run(context.Background(), env, []string{"srve"}); code != 2 {
		t.Errorf("predictions srve exit %d, want 2", code)
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), `unknown command "srve"`) {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}
