package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// Cache lifetimes of the static files. A hashed name changes with the
// bytes, so its answer never goes stale; the plain name is kept for
// old pages and bookmarks and revalidates after a few minutes.
const (
	cacheHashed = "public, max-age=31536000, immutable"
	cachePlain  = "public, max-age=300"
)

// staticFile is a file of static/, read once.
type staticFile struct {
	body        []byte
	contentType string
	etag        string
	hashed      string // the name with the content hash, such as "style.3f2a1b9c04d7.css"
}

// staticFiles are the files of static/ by name, both plain ("style.css")
// and hashed ("style.3f2a1b9c04d7.css"), read and hashed once from the
// embedded bytes: the template function "static" links them.
var staticFiles = sync.OnceValue(loadStatic)

// readStatic returns the files of static/ by name for a server.
func readStatic() map[string]staticFile { return staticFiles() }

// loadStatic reads every file of static/ into memory.
func loadStatic() map[string]staticFile {
	out := make(map[string]staticFile)
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		hash := hex.EncodeToString(sum[:6])
		ext := path.Ext(p)
		ct := mime.TypeByExtension(ext)
		switch ext { // not left to the system's MIME table
		case ".css":
			ct = "text/css; charset=utf-8"
		case ".js":
			ct = "text/javascript; charset=utf-8"
		case ".svg":
			ct = "image/svg+xml"
		}
		name := path.Base(p)
		f := staticFile{body: b, contentType: ct, etag: `"` + hash + `"`,
			hashed: strings.TrimSuffix(name, ext) + "." + hash + ext}
		out[name] = f
		out[f.hashed] = f
		return nil
	})
	if err != nil {
		panic(err)
	}
	return out
}

// staticURL is the address of the static file name under its hashed
// name, for pages to link; the template function "static" calls it, so
// that a page naming a file that does not exist fails to render.
func staticURL(name string) (string, error) {
	f, ok := staticFiles()[name]
	if !ok {
		return "", fmt.Errorf("web: no static file %q", name)
	}
	return "/static/" + f.hashed, nil
}

// serveStatic serves /static/{file}: under its hashed name for a year,
// under its plain name for a few minutes, with an ETag either way.
func (s *server) serveStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	f, ok := s.static[name]
	if !ok {
		s.handle(s.notFound)(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("ETag", f.etag)
	if name == f.hashed {
		h.Set("Cache-Control", cacheHashed)
	} else {
		h.Set("Cache-Control", cachePlain)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}
