// Command predictions is the one binary of the predictions module: it runs
// the server and offers the library's tools on the command line.
//
// Usage:
//
//	predictions <command> [flags] [arguments]
//
// Run `predictions help` for the list of commands and `predictions <command> --help`
// for the flags of one.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand. run gets the arguments after the command name
// and returns the process exit status; it never calls os.Exit, so tests can
// call it directly.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *cmdEnv, args []string) int
	hidden  bool // left out of help: a helper process of another command
}

// cmdEnv is what a command may touch of the outside world: injected so that
// tests run commands in-process.
type cmdEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// commands lists the subcommands in the order help shows them.
func commands() []command {
	return []command{
		// Each subcommand lives in its own file: serve.go, check.go, score.go, settings.go, mail.go.
		{name: "serve", summary: "run the service: tools over HTTP and MCP, the skill file, the board", run: runServe},
		{name: "check", summary: "check forecast files against the format (FILE:LINE: rule N: message)", run: runCheck},
		{name: "score", summary: "score a forecast file's resolved questions; calibration table", run: runScore},
		{name: "settings", summary: "print the agents' skill file with settings written in", run: runSettings},
		{name: "mail", summary: "record one e-mail reply from standard input (for a mail server's pipe)", run: runMail},
		{name: "bench", summary: "load benchmark: real servers on loopback, ratios against baselines", run: runBench},
		{name: "bench-bare", run: runBenchBare, hidden: true},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &cmdEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches args to a subcommand and returns the exit status.
func run(ctx context.Context, env *cmdEnv, args []string) int {
	if len(args) == 0 {
		usage(env.stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(env.stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, env, args[1:])
		}
	}
	fmt.Fprintf(env.stderr, "predictions: unknown command %q\n\n", args[0])
	usage(env.stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "predictions: calibrated forecasts for teams of agents and people.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: predictions <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'predictions <command> --help' for the flags of a command.")
}
