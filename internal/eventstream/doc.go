// Package eventstream serves an ordered log of events as Server-Sent
// Events streams (the HTML standard, "Server-sent events"), thousands at
// once, and follows such a log as it grows.
//
// It knows nothing of what the events are: a [Log] gives them in id order
// and says when it grows, [Config.Encode] turns one into its id, name and
// data, and each stream's filters are a key and a match function. A route
// reads the request (its filters, Last-Event-ID), refuses what it must
// before the first byte, and hands the stream to a [Hub]:
//
//	hub := eventstream.NewHub(eventstream.Config[board.Event]{Log: log, Encode: encode})
//	...
//	st, err := hub.Open(w, r, key, q.Match)
//	if err != nil {
//		return err // a Problem: nothing is written yet
//	}
//	backlog, err := readBacklog(r.Context(), q, resume, st.From())
//	if err != nil {
//		st.Close()
//		return err
//	}
//	st.Serve(backlog, nextPage)
//
// [Stream.Serve] sends the backlog, then the events the hub offers: over
// HTTP/1.x it hands the connection to the hub once the backlog is sent
// (the stream is then parked: the hub writes its socket, with writev(2)
// where it can, and the request's goroutine ends); over HTTP/2 the
// request's goroutine writes what the hub puts in the stream's buffer. A
// stream that falls behind by [Config.Buffer] events is dropped, and its
// client resumes with Last-Event-ID. [Hub.Stop] ends every stream for a
// server shutting down; [Hub.Counts] says how many are open and parked.
// The deadlines and the heartbeat are [Config]'s, each with a default.
//
// [Follow] is the loop under the hub, for any reader of an ordered log
// (the webhook fan-out reads the same log): read the pages after the last
// id, then wait for a wake, a poll or the end of a context.
package eventstream
