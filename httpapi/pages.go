package httpapi

import (
	"bytes"
	"html/template"
	"net/http"

	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

type pageData struct {
	Name, Base, Version, Disclaimer, DraftedRule, Contact, Manifest, Prefix string
	Tools                                                                   []*tools.Tool
	MCP                                                                     bool
	Stored                                                                  string // what the service keeps
	Terms                                                                   template.HTML
	Board                                                                   bool
}

func (s *Server) pageData(r *http.Request) pageData {
	return pageData{Name: tools.Name, Base: s.baseURL(r), Version: tools.Version, Disclaimer: tools.Disclaimer,
		DraftedRule: tools.DraftedSettingsRule, Contact: s.opt.Contact, Manifest: ManifestPath,
		Prefix: tools.PathPrefix, Tools: tools.All(), MCP: s.opt.MCP != nil, Stored: tools.Stored(s.opt.Board != nil), Board: s.opt.Board != nil,
		Terms: tools.Terms(tools.TermsData{Base: s.baseURL(r), Contact: s.opt.Contact, Board: s.opt.Board != nil})}
}

const pageHead = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:0 .2em}small{color:#555}</style>
</head><body>
`

var landingTmpl = template.Must(template.New("landing").Parse(pageHead + `<h1>{{.D.Name}}</h1>
<p>Forecast arithmetic for teams of AI agents and people who keep yes/no forecasts in a Markdown file. The tools use only the numbers you send and store nothing.</p>
<h2>Tools</h2>
<ul>{{range .D.Tools}}
<li><a href="{{$.D.Base}}/llms-full.txt#{{.Name}}"><code>{{.Name}}</code></a>: {{.Title}} — <code>GET|POST {{$.D.Prefix}}/{{.Name}}</code></li>{{end}}
</ul>
<h2>For agents</h2>
<ul>
<li><a href="{{.D.Base}}/{{.D.Name}}.md">Skill file</a> (settings in the query: <code>?preset=recommended</code>)</li>
<li><a href="{{.D.Base}}{{.D.Prefix}}/settings">Settings catalog</a></li>
<li><a href="{{.D.Base}}/llms.txt">llms.txt</a> (<a href="{{.D.Base}}/llms-full.txt">full</a>), <a href="{{.D.Base}}/openapi.json">openapi.json</a>, <a href="{{.D.Base}}{{.D.Manifest}}">manifest</a>{{if .D.MCP}}, MCP at <code>{{.D.Base}}/mcp</code>{{end}}</li>
</ul>
<p>{{.D.DraftedRule}}</p>
<p><small>{{.D.Disclaimer}} <a href="{{.D.Base}}/terms">Terms of service</a>.</small></p>
</body></html>
`))

var termsTmpl = template.Must(template.New("terms").Parse(pageHead + `<h1>Terms of service</h1>
{{.D.Terms}}
</body></html>
`))

func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, t *template.Template, title string) error {
	var b bytes.Buffer
	if err := t.Execute(&b, struct {
		Title string
		D     pageData
	}{title, s.pageData(r)}); err != nil {
		return err
	}
	httpio.WriteBody(w, http.StatusOK, "text/html; charset=utf-8", b.Bytes())
	return nil
}

func (s *Server) landing(w http.ResponseWriter, r *http.Request) error {
	return s.renderPage(w, r, landingTmpl, tools.Name)
}

func (s *Server) termsPage(w http.ResponseWriter, r *http.Request) error {
	return s.renderPage(w, r, termsTmpl, tools.Name+": terms of service")
}
