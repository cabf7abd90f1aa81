package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/forecastfile"
)

// dbFlag adds --db, read as serve reads it.
func dbFlag(fs *flag.FlagSet, getenv func(string) string) *string {
	def := getenv("PREDICTIONS_DB")
	if def == "" {
		def = "predictions.db"
	}
	return fs.String("db", def, "board database, as for serve: a SQLite `file` or a postgres:// URL [PREDICTIONS_DB]")
}

// runExport implements `predictions export [--db DSN] [filters]`. Exit
// status: 0 written, 2 bad usage or an unusable --db, 1 a database or
// write error.
func runExport(ctx context.Context, env *cmdEnv, args []string) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	db := dbFlag(fs, env.getenv)
	var q board.FeedQuery
	fs.StringVar(&q.Domain, "domain", "", "only this domain ("+strings.Join(board.Domains(), ", ")+"); default all")
	sort := fs.String("sort", "recent", "order, as the feed: recent, confidence, popular or closing (predictions still open that have a close_at, soonest first)")
	fs.IntVar(&q.Limit, "limit", 0, "at most this many predictions; 0 for all")
	fs.IntVar(&q.Offset, "offset", 0, "skip this many predictions first")
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintln(out, "Usage: predictions export [--db DSN] [--domain D] [--sort S] [--limit N] [--offset N] > board.md")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Writes the board's predictions to standard output as a forecast file, as GET /api/predictions.md")
		fmt.Fprintln(out, "does: a heading per prediction with its id, resolves, resolve_by, status, outcome and domain (tags),")
		fmt.Fprintln(out, "then every forecast, oldest first, as a dated line by agent:<id> (a person's by person:<id>). A prediction posted without")
		fmt.Fprintln(out, "resolves or resolve_by has no such line, which `predictions check` names (rule 1); the file has no")
		fmt.Fprintln(out, "other finding, and `predictions import` loads it back.")
		fmt.Fprintln(out, "Exit status: 0 written; 1 database or write error; 2 bad flags or a --db that does not exist.")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Flags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "predictions export: unexpected argument %q; the file is written to standard output\n", fs.Arg(0))
		return 2
	}
	q.Sort = board.Sort(*sort)
	store, code := openBoard(ctx, env, "export", *db, board.Options{MustExist: true})
	if store == nil {
		return code
	}
	defer store.Close()
	w := bufio.NewWriter(env.stdout)
	err := boardfile.Export(ctx, store, w, q)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions export: %v\n", err)
		if errors.Is(err, board.ErrInvalid) {
			return 2
		}
		return 1
	}
	return 0
}

// runImport implements `predictions import [--db DSN] FILE`. Exit status:
// 0 imported (or nothing new), 1 refused for findings, 2 bad usage or an
// unreadable FILE, 3 a database error.
func runImport(ctx context.Context, env *cmdEnv, args []string) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	db := dbFlag(fs, env.getenv)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintln(out, "Usage: predictions import [--db DSN] FILE")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Loads a forecast file's questions and forecasts into the board, as POST /api/import does. A FILE")
		fmt.Fprintln(out, "of - reads standard input. A question is a prediction with the question's id;")
		fmt.Fprintln(out, "one the board already has is not created again: its forecast lines the board lacks are added when")
		fmt.Fprintln(out, "they could have been made there, and every other one is printed as a note, so importing a file")
		fmt.Fprintln(out, "twice changes nothing. Forecasts keep their times; the first is the author's; opens_at, close_at")
		fmt.Fprintln(out, "and closed_at set the question's life, so its scores are those `predictions check` prints. A")
		fmt.Fprintln(out, "forecaster agent:<id> is that agent, person:<id> that person, any other (such as person) the agent of that name, with")
		fmt.Fprintln(out, "characters an agent id cannot hold made hyphens (Jane Doe is Jane-Doe). A file with findings (see")
		fmt.Fprintln(out, "`predictions check`) is refused: its findings are printed as FILE:LINE: rule N: message and nothing")
		fmt.Fprintln(out, "is written. A question without resolves or resolve_by is not refused (the board takes a prediction")
		fmt.Fprintln(out, "without them, and `predictions export` writes one so): a file missing only those keys is imported,")
		fmt.Fprintln(out, "and each missing key is printed as a rule-1 warning. A file that passes goes in transactions of")
		fmt.Fprintln(out, "whole questions of about 2,000 forecast lines each (a question with more is a transaction of its")
		fmt.Fprintln(out, "own), so other writes wait for one batch, not the whole file; if the database fails part way, the")
		fmt.Fprintln(out, "error says how many questions were stored, and sending the same file again stores the rest. A SQLite")
		fmt.Fprintln(out, "--db that does not exist is created (in a directory that exists), and removed again when the import")
		fmt.Fprintln(out, "is refused or fails.")
		fmt.Fprintln(out, "Exit status: 0 imported (or nothing new); 1 refused for findings; 2 bad flags or unreadable FILE;")
		fmt.Fprintln(out, "3 database error.")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Flags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	name := fs.Arg(0)
	var r io.Reader = env.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(env.stderr, "predictions import: %v\n", err)
			return 2
		}
		defer f.Close()
		r = f
	}
	fresh := newSQLiteFile(*db)
	store, code := openBoard(ctx, env, "import", *db, board.Options{})
	if store == nil {
		if code == 1 {
			code = 3
		}
		return code
	}
	res, err := boardfile.Import(ctx, store, r)
	store.Close()
	if err != nil && fresh {
		// A refused or failed import into a board it created leaves no
		// empty board behind.
		removeSQLite(*db)
	}
	var ie *boardfile.ImportError
	if errors.As(err, &ie) {
		printDiagnostics(env.stderr, name, ie.Findings)
		fmt.Fprintf(env.stderr, "predictions import: %s: %d finding(s); nothing was imported\n", displayName(name), len(ie.Findings))
		return 1
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions import: %v\n", err)
		return 3
	}
	printDiagnostics(env.stderr, name, res.Warnings)
	fmt.Fprintf(env.stdout, "imported %d of %d question(s) from %s as predictions, with %d forecast(s)\n",
		len(res.Created), res.Questions, displayName(name), res.Forecasts)
	for _, p := range res.Created {
		fmt.Fprintf(env.stdout, "  created %s (line %d, %s, %d forecast(s))\n", p.ID, p.Line, p.Status, p.Forecasts)
	}
	if len(res.NewAgents) > 0 {
		fmt.Fprintf(env.stdout, "new agents: %s\n", strings.Join(res.NewAgents, ", "))
	}
	if len(res.Existing) > 0 {
		fmt.Fprintf(env.stdout, "already on the board, not created again: %s\n", strings.Join(res.Existing, ", "))
	}
	for _, p := range res.Updated {
		fmt.Fprintf(env.stdout, "  added %d forecast(s) to %s (line %d)\n", p.Forecasts, p.ID, p.Line)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(env.stdout, "note: %s\n", n)
	}
	return 0
}

// newSQLiteFile reports whether dsn names a SQLite file that does not
// exist yet, which opening it would create.
func newSQLiteFile(dsn string) bool {
	if l := strings.ToLower(dsn); strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://") {
		return false
	}
	_, err := os.Stat(dsn)
	return errors.Is(err, os.ErrNotExist)
}

// removeSQLite removes a SQLite database file with its WAL and shared
// memory files.
func removeSQLite(path string) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}
}

// printDiagnostics writes FILE:LINE: rule N: [warning: ]message lines, as
// check does.
func printDiagnostics(w io.Writer, name string, ds []forecastfile.Diagnostic) {
	for _, d := range ds {
		sev := ""
		if d.Severity == forecastfile.Warning {
			sev = "warning: "
		}
		fmt.Fprintf(w, "%s:%d: rule %d: %s%s\n", displayName(name), d.Line, d.Rule, sev, d.Message)
	}
}

// openBoard opens the board for export, import or backup, with opt and
// the flags that serve stores. On failure it prints why and returns nil
// with the exit status: 2 for an unusable --db, 1 when the database does
// not answer.
func openBoard(ctx context.Context, env *cmdEnv, cmd, dsn string, opt board.Options) (*board.Store, int) {
	opt.Flag = forecastfile.Flags
	store, err := board.Open(ctx, dsn, opt)
	if err == nil {
		return store, 0
	}
	fmt.Fprintf(env.stderr, "predictions %s: --db %s: %v\n", cmd, redactDSN(dsn), err)
	if errors.Is(err, board.ErrNoDatabase) || errors.Is(err, board.ErrInvalid) {
		return nil, 2
	}
	return nil, 1
}
