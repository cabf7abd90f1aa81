package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"github.com/predictions-md/predictions/board"
)

// runBackup implements `predictions backup [--db DSN] FILE`. Exit status:
// 0 written; 1 a database or write error; 2 bad usage, a --db that does
// not exist, a FILE that exists, or a PostgreSQL --db (pg_dump backs it
// up: the commands are printed).
func runBackup(ctx context.Context, env *cmdEnv, args []string) int {
	set := flag.NewFlagSet("backup", flag.ContinueOnError)
	set.SetOutput(env.stderr)
	db := dbFlag(set, env.getenv)
	set.Usage = func() {
		out := set.Output()
		fmt.Fprintln(out, "Usage: predictions backup [--db DSN] FILE")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Writes a consistent copy of a SQLite board to FILE, a new file, while serve keeps running: SQLite's")
		fmt.Fprintln(out, "VACUUM INTO copies the board as one read transaction sees it, so FILE holds every write committed")
		fmt.Fprintln(out, "before the backup began and none after. The copy is written to FILE.<random>.tmp and renamed to")
		fmt.Fprintln(out, "FILE once complete and synced: a backup that fails or is killed never leaves a partial FILE (a")
		fmt.Fprintln(out, "leftover .tmp may be deleted). An existing FILE is never replaced, and the board is not changed")
		fmt.Fprintln(out, "(not even migrated). FILE is readable by its owner only: it holds key hashes and e-mail addresses.")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Restore: stop serve and start it with --db FILE (to put FILE at the old path instead, delete that")
		fmt.Fprintln(out, "path's -wal and -shm files first).")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "A PostgreSQL board is backed up with pg_dump -Fc and restored with pg_restore; given a postgres://")
		fmt.Fprintln(out, "--db, backup prints both commands for it and writes nothing.")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Exit status: 0 written; 1 database or write error; 2 bad flags, a --db that does not exist, an")
		fmt.Fprintln(out, "existing FILE, or a PostgreSQL --db.")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Flags:")
		set.PrintDefaults()
	}
	if err := set.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if set.NArg() != 1 {
		set.Usage()
		return 2
	}
	file := set.Arg(0)
	store, code := openBoard(ctx, env, "backup", *db, board.Options{MustExist: true, SkipMigrations: true})
	if store == nil {
		return code
	}
	defer store.Close()
	err := store.Backup(ctx, file)
	switch {
	case errors.Is(err, board.ErrPostgresBackup):
		pgDumpAdvice(env.stderr, *db, file)
		return 2
	case errors.Is(err, fs.ErrExist), errors.Is(err, board.ErrInvalid):
		fmt.Fprintf(env.stderr, "predictions backup: %v\n", err)
		return 2
	case err != nil:
		fmt.Fprintf(env.stderr, "predictions backup: %v\n", err)
		return 1
	}
	size := ""
	if st, err := os.Stat(file); err == nil {
		size = fmt.Sprintf(" (%d bytes)", st.Size())
	}
	fmt.Fprintf(env.stdout, "wrote %s%s, a copy of the board %s; restore it with: predictions serve --db %s\n",
		file, size, *db, shellWord(file))
	return 0
}

// pgDumpAdvice prints the pg_dump and pg_restore commands for the
// PostgreSQL board at dsn (its password hidden): the dump, and a restore
// into a new database beside it, <name>_restored, that serve --db can
// then name.
func pgDumpAdvice(w io.Writer, dsn, file string) {
	shown := redactDSN(dsn)
	d, f := shellWord(shown), shellWord(file)
	fmt.Fprintln(w, "predictions backup: a PostgreSQL board is backed up with PostgreSQL's own tools, not by predictions backup.")
	fmt.Fprintln(w, "Back it up (a consistent snapshot, while serve keeps running):")
	fmt.Fprintf(w, "  pg_dump -Fc -f %s %s\n", f, d)
	u, err := url.Parse(shown)
	name := ""
	if err == nil {
		name = strings.TrimPrefix(u.Path, "/")
	}
	if name == "" || strings.ContainsAny(name, `/"`) {
		fmt.Fprintln(w, "Restore it into a new, empty database, then start serve with --db naming that database:")
		fmt.Fprintf(w, "  pg_restore --no-owner --exit-on-error -d <new database URL> %s\n", f)
	} else {
		restored := *u
		restored.Path = "/" + name + "_restored"
		fmt.Fprintln(w, "Restore it into a new database, then start serve with --db naming that database:")
		fmt.Fprintf(w, "  psql %s -c %s\n", d, shellWord(`CREATE DATABASE "`+name+`_restored"`))
		fmt.Fprintf(w, "  pg_restore --no-owner --exit-on-error -d %s %s\n", shellWord(restored.String()), f)
	}
	if shown != dsn {
		fmt.Fprintln(w, "(the password is shown as xxxxx: put it back, or leave it out and set PGPASSWORD)")
	}
}

// shellWord quotes s for a POSIX shell when it holds anything but
// letters, digits and . _ - / : @ = % + ,.
func shellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/:@=%+,", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
