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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/predictions-md/predictions/internal/tools"
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
		// Each subcommand lives in its own file: serve.go, check.go, score.go, evaluate.go, settings.go, mail.go,
		// boardfile.go (export and import), backup.go, demo.go.
		{name: "serve", summary: "run the service: tools over HTTP and MCP, the skill file, the board", run: runServe},
		{name: "check", summary: "check forecast files against the format (FILE:LINE: rule N: message)", run: runCheck},
		{name: "score", summary: "score a forecast file's resolved questions; calibration table", run: runScore},
		{name: "evaluate", summary: "replay forecast files and score every pool as the community forecast", run: runEvaluate},
		{name: "settings", summary: "print the agents' skill file with settings written in", run: runSettings},
		{name: "mail", summary: "record one e-mail reply from standard input (for a mail server's pipe)", run: runMail},
		{name: "export", summary: "write the board as a forecast file to standard output", run: runExport},
		{name: "import", summary: "load a forecast file's questions and forecasts into the board", run: runImport},
		{name: "backup", summary: "write a consistent copy of a live SQLite board to a new file", run: runBackup},
		{name: "demo", summary: "fill an empty board with a generated sample of agents, questions and forecasts", run: runDemo},
		{name: "version", summary: "print the program's version and the version of the API it serves", run: runVersion},
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
		if len(args) > 1 && args[0] == "help" {
			// predictions help serve: the command's own help.
			return run(ctx, env, []string{args[1], "--help"})
		}
		usage(env.stdout)
		return 0
	case "-version", "--version":
		return runVersion(ctx, env, nil)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			if asksHelp(args[1:]) {
				// Help that was asked for is the answer: standard output,
				// whatever the command writes its errors to.
				e := *env
				e.stderr = env.stdout
				env = &e
			}
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
	fmt.Fprintln(w, "Run 'predictions help <command>' or 'predictions <command> --help' for the flags")
	fmt.Fprintln(w, "of a command.")
}

// runVersion prints the build's version and the API's: the program is
// built from a module version (a tag, a pseudo-version or "(devel)"),
// while openapi.json's info.version, the manifest and the MCP server's
// serverInfo carry the version of the API, tools.Version.
func runVersion(_ context.Context, env *cmdEnv, args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: predictions version")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Prints the version the program was built from (a release tag, a pseudo-version, or")
		fmt.Fprintln(fs.Output(), "(devel) in a work tree, with the VCS revision), then the version of the API it serves:")
		fmt.Fprintln(fs.Output(), "openapi.json's info.version, the manifest's and the MCP server's serverInfo.version.")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "predictions version: unexpected argument %q; version takes no arguments\n", fs.Arg(0))
		return 2
	}
	fmt.Fprintln(env.stdout, "predictions", version())
	fmt.Fprintln(env.stdout, "API", tools.Version)
	return 0
}

// asksHelp reports whether the flags ask for help (before any "--").
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// version is the module version the binary was built from (a tag, or a
// pseudo-version with `go install …@version`; "(devel)" in a work tree),
// with the VCS revision when the build recorded one.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		v += " " + rev[:min(12, len(rev))] + dirty
	}
	return v
}
