// Package loadbench is the load benchmark of the predictions service,
// run by the command predictions-bench.
//
// [Run] starts real `predictions serve` processes ([Config.Exe], which
// [Build] makes) on loopback ports, each on a database of its own in a
// temporary directory, and drives them with wrk (Debian's package `wrk`),
// closed loop: a fixed number of connections (64 by default, from 2 wrk
// threads), each sending its next request when the previous one has
// answered. Each scenario is a wrk Lua script made from a line of a table
// (method, path, headers, body, and a request() function where requests
// vary, as the board writes do); the script's done() prints the run's
// requests, latency percentiles and errors on one line that the package
// parses. A scenario and its baseline take turns in rounds (3 by default)
// after a warm-up, and the table gives requests per second over all
// rounds, the median of the rounds' 50th and 99th latency percentiles and
// the errors (socket errors, timeouts, statuses of 400 and above), after
// checking one answer of each scenario for correctness. On Linux it also
// gives the server's CPU time per request: the process's user and system
// time from /proc/<pid>/stat over the measured rounds, divided by their
// requests (wrk's own CPU is not in it).
//
// Every goal is a ratio against a baseline measured in the same run,
// because the machines are shared and noisy:
//
//   - each calculation tool over REST against a bare net/http handler that
//     answers a fixed JSON body of the same size, in a process of its own
//     (`predictions-bench bare`, [BareMain], [ServeBare]), driven by the
//     same requests: at least 0.7 × its rate, with p99 under 5 ms;
//   - MCP tools/call convert_odds against POST convert_odds: at least 0.5 ×;
//   - POST /api/predictions (1,000 agents, each authenticated as itself)
//     against a raw bun/SQLite insert loop with the board's durability
//     settings (WAL, synchronous=FULL, one writer connection, one committed
//     transaction per row) at the same concurrency: at least 0.4 × its rows
//     per second, with no errors;
//   - GET /api/predictions for each sort, with and without the domain
//     filter, at offset 0 and 10,000, over 1,000,000 predictions against the
//     same over 10,000: p50 at most 1.5 × at offset 0 (the deep offset is
//     reported); and the server's resident memory under 100 MB throughout
//     (VmRSS sampled every 50 ms and VmHWM, from /proc);
//   - the same feeds after the cursor at depth 10,000 (the next_cursor of
//     the page that ends there, asked of the server before the load)
//     against the first page of the same board in the same rounds: p50
//     at most 1.5 ×;
//   - POST /api/predictions against a server holding [Config.Streams]
//     event streams open (GET /api/events, 10,000 by default, read by
//     this process) against the same writes to a server with none, in
//     the same rounds: at least 0.9 ×, with no errors; and the server with
//     the streams under 200 MB of resident memory throughout;
//   - with [Config.Real], the reads and forecast writes of a generated
//     board of 50,000 resolved questions ([Config.RealQuestions]) against
//     the same on a board of 1,000, in the same rounds: at least 0.8 ×
//     its rate, reads with p99 under 50 ms, and the large board's server
//     under 150 MB of resident memory.
//
// # Seeding
//
// The feed's boards are seeded before their servers start: board.Open
// creates the schema, then the predictions, their agents' and their
// domains' counters go in with plain SQL in batches, as the server's own
// writes would leave them. The board package has no bulk import; a test
// reads a seeded board back through board.Store.Feed, so that a change of
// schema fails it. The real-size boards go in through the board's own
// import (package boardfile), as generated forecast files of
// PredictionBook's shape, so that their scores and skills are the
// board's arithmetic.
//
// # CPU per request in process
//
// BenchmarkInProcess (a Go benchmark) runs each tool scenario's request
// through the HTTP handler in process and reports the CPU time per
// request:
//
//	go test ./internal/loadbench -run '^$' -bench InProcess -benchmem
//
// [Report.WriteTable] prints the table as Markdown; [Report.WriteJSON]
// writes it as JSON.
package loadbench
