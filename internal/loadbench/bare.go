package loadbench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

// BareBody returns a JSON object of exactly size bytes (at least 10):
// {"pad":"xxx…"}.
func BareBody(size int) []byte {
	const frame = len(`{"pad":""}`)
	return []byte(`{"pad":"` + strings.Repeat("x", max(size-frame, 0)) + `"}`)
}

// BareHandler answers every request with body as application/json, after
// reading the request body: the least any JSON endpoint does, so the
// physical limit of the HTTP stack on this machine.
func BareHandler(body []byte) http.Handler {
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", length)
		_, _ = w.Write(body)
	})
}

// The stages of a tool that a ceiling ([StageHandler]) runs on each
// request, each the one before it and more. A ceiling is the least
// server that does a stage: plain net/http, no middleware, no routing.
// Its rate against the bare handler's, in the same rounds, is the most
// the whole server can reach while the stage costs what it does.
const (
	// StageDecode decodes the body into the tool's input
	// ([tools.Tool.Decode]), then answers the bare body.
	StageDecode = "decode"
	// StageCheck also checks the input's limits ([tools.Tool.Check]),
	// then answers the bare body.
	StageCheck = "check"
	// StageCall also runs the tool ([tools.Tool.Call]), then answers the
	// bare body.
	StageCall = "call"
	// StageAnswer also writes the tool's answer ([tools.Result.AppendEnvelope])
	// and sends it instead of the bare body.
	StageAnswer = "answer"
)

// Stages lists the stages in the order they add work.
var Stages = []string{StageDecode, StageCheck, StageCall, StageAnswer}

// stageNames describe the stages in the benchmark's table.
var stageNames = map[string]string{
	StageDecode: "decode",
	StageCheck:  "decode and check",
	StageCall:   "decode, check and run",
	StageAnswer: "decode, check, run and answer",
}

// StageHandler is [BareHandler] that runs stage of tool t on the body of
// every POST before it answers. At the stages before [StageAnswer] it
// answers body; at StageAnswer, the tool's own answer. Input the tool
// refuses gets a 500, which wrk counts as an error, not as a request
// served. Other methods (the readiness probe) get body without running
// anything.
func StageHandler(body []byte, t *tools.Tool, stage string) (http.Handler, error) {
	if t == nil {
		return nil, errors.New("no tool given")
	}
	if !slices.Contains(Stages, stage) {
		return nil, fmt.Errorf("unknown stage %q (use %s)", stage, strings.Join(Stages, ", "))
	}
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		if r.Method != http.MethodPost {
			_, _ = io.Copy(io.Discard, r.Body)
			h.Set("Content-Length", length)
			_, _ = w.Write(body)
			return
		}
		in, err := httpio.ReadObject(w, r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if stage == StageDecode || stage == StageCheck {
			read := t.Check
			if stage == StageDecode {
				read = t.Decode
			}
			if _, err := read(in); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			h.Set("Content-Length", length)
			_, _ = w.Write(body)
			return
		}
		base := "http://" + r.Host
		res, err := t.Call(tools.WithBaseURL(r.Context(), base), in)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if stage == StageCall {
			h.Set("Content-Length", length)
			_, _ = w.Write(body)
			return
		}
		buf := envelopes.Get().(*[]byte)
		defer envelopes.Put(buf)
		*buf, err = res.AppendEnvelope((*buf)[:0], base+"/terms")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(*buf)))
		_, _ = w.Write(*buf)
	}), nil
}

// envelopes holds the buffers of the answers, as the server's own pool
// does.
var envelopes = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// The garbage collector's settings of `predictions serve` when neither
// GOGC nor GOMEMLIMIT is set (cmd/predictions/gc.go). A ceiling collects
// as the server does, so that it is a ceiling of the server.
const (
	ServeGCPercent   = 400
	ServeMemoryLimit = 48 << 20
)

// ServeBare serves [BareHandler] with a body of size bytes on addr until ctx
// is done. It is the baseline process of the tool scenarios
// (`predictions-bench bare`, [BareMain]): a process of its own, so that it pays
// the same process and loopback costs as `predictions serve`.
func ServeBare(ctx context.Context, addr string, size int) error {
	return serveHandler(ctx, addr, BareHandler(BareBody(size)))
}

func serveHandler(ctx context.Context, addr string, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// BareMain is the bare handler's command line (`predictions-bench bare`):
// it parses -addr and -body-size from args and serves [ServeBare] until
// ctx is done; with -tool and -stage, it serves that ceiling
// ([StageHandler]) with serve's garbage collector settings instead. It
// returns the process exit status.
func BareMain(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("bare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8081", "address to listen on (`host:port`)")
	size := fs.Int("body-size", 100, "size of the JSON body every request gets, in `bytes`")
	tool := fs.String("tool", "", "the calculation tool whose -stage runs on each POST body (a ceiling; empty: none)")
	stage := fs.String("stage", "", "with -tool, what runs: "+strings.Join(Stages, ", "))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	h := BareHandler(BareBody(*size))
	if *tool != "" || *stage != "" {
		sh, err := StageHandler(BareBody(*size), tools.Lookup(*tool), *stage)
		if err != nil {
			fmt.Fprintf(stderr, "bare: -tool %q -stage %q: %v\n", *tool, *stage, err)
			return 2
		}
		h = sh
		debug.SetGCPercent(ServeGCPercent)
		debug.SetMemoryLimit(ServeMemoryLimit)
	}
	if err := serveHandler(ctx, *addr, h); err != nil {
		fmt.Fprintf(stderr, "bare: %v\n", err)
		return 1
	}
	return 0
}

// Build compiles the predictions server (github.com/predictions-md/predictions/cmd/predictions)
// with the go command into dir and returns the binary's path. It runs in
// the current directory, which must be inside the module (or a module
// requiring it).
func Build(ctx context.Context, dir string) (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building the predictions binary: %w (or give one with -predictions)", err)
	}
	exe := filepath.Join(dir, "predictions")
	out, err := exec.CommandContext(ctx, gobin, "build", "-o", exe, "github.com/predictions-md/predictions/cmd/predictions").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return exe, nil
}
