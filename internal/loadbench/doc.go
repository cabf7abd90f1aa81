// Package loadbench is the load benchmark of the predictions service
// (issue 10): `predictions bench`.
//
// [Run] starts real `predictions serve` processes on loopback ports, each on
// a database of its own in a temporary directory, and drives them with
// vegeta's library closed-loop: a fixed number of connections (64 by
// default), each sending its next request when the previous one has
// answered, for a bounded time per scenario after a warm-up. It records
// requests per second, the 50th and 99th latency percentiles and the
// errors (anything but a 2xx answer), after checking one answer of each
// scenario for correctness.
//
// Every goal is a ratio against a baseline measured in the same run,
// because the machines are shared and noisy:
//
//   - each calculation tool over REST against a bare net/http handler that
//     answers a fixed JSON body of the same size, in a process of its own
//     (the hidden `predictions bench-bare` command, [ServeBare]), driven by
//     the same requests: at least 0.7 × its rate, with p99 under 5 ms;
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
//     (VmRSS sampled every 50 ms and VmHWM, from /proc).
//
// The board is seeded with [board.Store.Import] before its server starts.
// [Report.WriteTable] prints the table as Markdown; [Report.WriteJSON]
// writes it as JSON.
package loadbench
