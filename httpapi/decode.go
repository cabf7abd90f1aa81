package httpapi

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

const jsonType = "application/json"

// readObject reads a POST body: Content-Type, if present, must be JSON
// (415); the body must fit in [MaxBodyBytes] (413, at once when the
// Content-Length says so). What it holds is checked by the one decoder,
// [tools.Decode], as it reads the body into the typed input (400).
func readObject(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if err := checkMediaType(ct); err != nil {
			return nil, err
		}
	}
	tooLarge := &Error{Field: "body", Err: ErrTooLarge,
		Problem: fmt.Sprintf("is larger than the limit of %d bytes (64 KB)", MaxBodyBytes),
		Hint:    "send at most 65536 bytes: shorten the text or split the input over several requests"}
	if r.ContentLength > MaxBodyBytes {
		// Answer before reading: a client announcing more than the limit
		// is refused without waiting for (or reading) what it sends.
		tooLarge.Problem = fmt.Sprintf("is %d bytes long (Content-Length); the limit is %d bytes (64 KB)", r.ContentLength, MaxBodyBytes)
		return nil, tooLarge
	}
	b, err := readAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes), r.ContentLength)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge
		}
		return nil, &Error{Field: "body", Problem: "could not be read: " + err.Error(),
			Hint: "send the whole body with its Content-Length", Err: ErrBadRequest}
	}
	return b, nil
}

// readAll is io.ReadAll with a buffer sized for the announced length
// (size, -1 when unknown), so that a large body is read without growing
// the buffer step by step. The length is only a hint: the reader bounds
// what is read.
func readAll(r io.Reader, size int64) ([]byte, error) {
	n := 512
	if size > 0 && size < MaxBodyBytes {
		n = int(size) + 1 // one more, so that io.EOF comes without a grow
	}
	b := make([]byte, 0, n)
	for {
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the next size
		}
	}
}

func checkMediaType(ct string) error {
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil && mt == jsonType {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return nil
		}
	}
	return &Error{Field: "Content-Type", Err: ErrMediaType,
		Problem: fmt.Sprintf("is %q; the tools read JSON only", ct),
		Hint:    "send the body as JSON with Content-Type: application/json (charset utf-8 if any), or use GET with query parameters"}
}
