package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

// serviceDescription opens openapi.json, llms.txt and the manifest.
const serviceDescription = "Stateless forecast arithmetic for teams of AI agents and people who keep yes/no forecasts in a Markdown file: " +
	"convert odds between notations, turn a set of odds into probabilities, pool forecasts, apply Bayes' rule, " +
	"score resolved forecasts, check a forecast file and write settings into the agents' skill file. " +
	"The tools use only the numbers sent, fetch nothing and store nothing. " +
	"Every tool answers GET (query parameters; arrays and objects as URL-encoded JSON) and POST (a JSON body of at most 64 KB). " +
	"Success is 200 with a Result; bad input is 400 with a Problem that names the field and says how to fix it. " +
	"Probabilities: a number below 1 is a fraction (0.62), a number from 1 to 100 is a percent (62), a string ending in % is a percent (\"62%\")."

// llmsText writes llms.txt in the llmstxt.org layout: a title, a summary
// in a block quote, a few lines on data and rules, then sections that are
// lists of links with a short note each. The detail is in llms-full.txt
// (llmsFull), whose sections the links and every Problem's docs link name.
func (s *Server) llmsText(base string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", tools.Name)
	b.WriteString("> " + s.summaryText() + "\n\n")
	b.WriteString("Data: " + s.storedText() + "\n\n")
	b.WriteString("Rule about settings: " + tools.DraftedSettingsRule + "\n\n")
	b.WriteString("Disclaimer: " + tools.Disclaimer + "\n\n")

	full := base + LLMsFullPath
	b.WriteString("## Tools\n\n")
	for _, t := range tools.All() {
		fmt.Fprintf(&b, "- [%s](%s#%s): %s. %s GET or POST %s%s/%s\n", t.Name, full, t.Name, t.Title, apidoc.FirstSentence(t.Description), base, tools.PathPrefix, t.Name)
	}
	if s.opt.Board != nil {
		b.WriteString("\n")
		s.opt.Board.LLMsLinks(&b, base)
	}
	b.WriteString("\n")
	s.docLinks(&b, base)
	return b.Bytes()
}

// docLinks writes the Docs section of llms.txt and llms-full.txt.
func (s *Server) docLinks(b *bytes.Buffer, base string) {
	b.WriteString("## Docs\n\n")
	fmt.Fprintf(b, "- [Full reference](%s%s): every tool and route with its fields, statuses, limits and examples\n", base, LLMsFullPath)
	fmt.Fprintf(b, "- [Skill file](%s/%s.md): the agents' skill file; settings go in the query, such as ?preset=recommended\n", base, tools.Name)
	fmt.Fprintf(b, "- [Settings catalog](%s%s/settings): every setting with its range, options and default, and the presets\n", base, tools.PathPrefix)
	fmt.Fprintf(b, "- [OpenAPI description](%s/openapi.json): OpenAPI 3.1, with input schemas and examples\n", base)
	fmt.Fprintf(b, "- [Manifest](%s%s): tools, addresses, input schemas and example bodies as JSON\n", base, ManifestPath)
	if s.opt.MCP != nil {
		what := "the same tools"
		if s.opt.Board != nil {
			what = "the same tools and the board's routes"
		}
		fmt.Fprintf(b, "- [MCP endpoint](%s/mcp): %s over the Model Context Protocol (streamable HTTP)\n", base, what)
	}
	fmt.Fprintf(b, "- [Terms of service](%s/terms): what is stored and what is not; information only\n", base)
}

// llmsFull writes llms-full.txt: the summary, the rules, then one section
// per tool and board route, whose heading is the anchor that Problems and
// llms.txt link to.
func (s *Server) llmsFull(base string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", tools.Name)
	b.WriteString("> " + s.summaryText() + "\n\n")
	b.WriteString("Data: " + s.storedText() + "\n\n")
	b.WriteString(serviceDescription + "\n\n")
	b.WriteString("Rule about settings: " + tools.DraftedSettingsRule + "\n\n")
	if t := s.rateLimitText(); t != "" {
		b.WriteString(t + "\n\n")
	}
	b.WriteString("Disclaimer: " + tools.Disclaimer + "\n\n")
	fmt.Fprintf(&b, "Terms of service: %s/terms. Contact: %s.\n\n", base, s.opt.Contact)

	b.WriteString("## Tools\n\n")
	for _, t := range tools.All() {
		fmt.Fprintf(&b, "- [%s](%s%s/%s): %s. %s\n", t.Name, base, tools.PathPrefix, t.Name, t.Title, apidoc.FirstSentence(t.Description))
	}
	b.WriteString("\n")
	for _, t := range tools.All() {
		fmt.Fprintf(&b, "## %s\n\n", t.Name)
		fmt.Fprintf(&b, "- [POST or GET %s/%s](%s%s/%s): %s\n\n", tools.PathPrefix, t.Name, base, tools.PathPrefix, t.Name, t.Title)
		b.WriteString(t.Description + "\n\n")
		b.WriteString("Input fields:\n\n")
		for _, name := range apidoc.PropertyNames(t.InputSchema) {
			fs := t.InputSchema.Properties[name]
			req := "optional"
			if contains(t.InputSchema.Required, name) {
				req = "required"
			}
			fmt.Fprintf(&b, "- `%s` (%s, %s)", name, apidoc.TypeText(fs.Type, fs.Types, isStructured(fs)), req)
			if fs.Description != "" {
				b.WriteString(": " + fs.Description)
			}
			b.WriteString(apidoc.LimitText(fs) + "\n")
		}
		fmt.Fprintf(&b, "\nExample:\n\n    curl -s %s%s/%s -H 'Content-Type: application/json' -d '%s'\n", base, tools.PathPrefix, t.Name, apidoc.ShellQuoted(string(t.Example)))
		fmt.Fprintf(&b, "    curl -s '%s%s/%s?%s'\n\n", base, tools.PathPrefix, t.Name, exampleQuery(t))
	}

	if s.opt.Board != nil {
		s.opt.Board.LLMsFull(&b, base)
	}

	s.docLinks(&b, base)
	return b.Bytes()
}

// LLMsFullPath is where the full text for agents is published; llms.txt
// links its sections.
const LLMsFullPath = "/llms-full.txt"

func (s *Server) llmsTxt(w http.ResponseWriter, r *http.Request) error {
	base := s.baseURL(r)
	body, _ := s.llmsDocs.get(base, func() ([]byte, error) { return s.llmsText(base), nil })
	httpio.WriteBody(w, http.StatusOK, "text/plain; charset=utf-8", body)
	return nil
}

func (s *Server) llmsFullTxt(w http.ResponseWriter, r *http.Request) error {
	base := s.baseURL(r)
	body, _ := s.llmsFullDocs.get(base, func() ([]byte, error) { return s.llmsFull(base), nil })
	httpio.WriteBody(w, http.StatusOK, "text/plain; charset=utf-8", body)
	return nil
}

// manifestTool is one tool in the manifest.
type manifestTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	URL         string          `json:"url"`
	Methods     []string        `json:"methods"`
	InputSchema any             `json:"input_schema"`
	ExampleBody json.RawMessage `json:"example_body"`
	ExampleGET  string          `json:"example_get"`
	Docs        string          `json:"docs"`
}

// manifestDoc is the manifest published at [ManifestPath].
type manifestDoc struct {
	Name                string                 `json:"name"`
	Version             string                 `json:"version"`
	Description         string                 `json:"description"`
	BaseURL             string                 `json:"base_url"`
	Tools               []manifestTool         `json:"tools"`
	Board               []apidoc.ManifestRoute `json:"board,omitempty"`
	Settings            string                 `json:"settings"`
	SkillFile           string                 `json:"skill_file"`
	OpenAPI             string                 `json:"openapi"`
	LLMsTxt             string                 `json:"llms_txt"`
	MCP                 string                 `json:"mcp,omitempty"`
	MaxBodyBytes        int                    `json:"max_body_bytes"`
	DraftedSettingsRule string                 `json:"drafted_settings_rule"`
	Contact             string                 `json:"contact"`
	Stored              string                 `json:"stored"`
	RateLimits          string                 `json:"rate_limits,omitempty"`
	Disclaimer          string                 `json:"disclaimer"`
	Terms               string                 `json:"terms"`
}

func (s *Server) manifestFor(base string) *manifestDoc {
	m := &manifestDoc{
		Name: tools.Name, Version: tools.Version, Description: serviceDescription, BaseURL: base,
		Settings:  base + tools.PathPrefix + "/settings",
		SkillFile: base + "/" + tools.Name + ".md",
		OpenAPI:   base + "/openapi.json", LLMsTxt: base + "/llms.txt",
		MaxBodyBytes:        MaxBodyBytes,
		DraftedSettingsRule: tools.DraftedSettingsRule,
		Contact:             s.opt.Contact,
		Stored:              s.storedText(),
		RateLimits:          s.rateLimitText(),
		Disclaimer:          tools.Disclaimer,
		Terms:               base + "/terms",
		Tools:               []manifestTool{},
	}
	if s.opt.MCP != nil {
		m.MCP = base + "/mcp"
	}
	if s.opt.Board != nil {
		m.Board = s.opt.Board.Manifest(base)
	}
	for _, t := range tools.All() {
		u := base + tools.PathPrefix + "/" + t.Name
		m.Tools = append(m.Tools, manifestTool{
			Name: t.Name, Title: t.Title, Description: t.Description, URL: u,
			Methods: []string{http.MethodGet, http.MethodPost}, InputSchema: t.InputSchema,
			ExampleBody: t.Example, ExampleGET: u + "?" + exampleQuery(t),
			Docs: tools.DocsURL(base, t.Name),
		})
	}
	return m
}

func (s *Server) manifest(w http.ResponseWriter, r *http.Request) error {
	base := s.baseURL(r)
	body, err := s.manifestDocs.get(base, func() ([]byte, error) { return httpio.Document(s.manifestFor(base)) })
	if err != nil {
		return err
	}
	httpio.WriteBody(w, http.StatusOK, httpio.JSONType, body)
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
