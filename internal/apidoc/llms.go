package apidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

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
	"Probabilities: a string ending in % is a percent (\"62%\"); the bare numbers of one list share one scale: between 0 and 1 they are fractions (0.62), above 1 percents (62), " +
	"and 0 and 1 follow the others (fractions when nothing else says); a list mixing both is a 400, and so is a lone bare 1 (send \"1%\", 0.01 or 0.999). " +
	"Every answer says in read_as how it read each input."

// LLMsTxt writes llms.txt in the llmstxt.org layout: a title, a summary
// in a block quote, a few lines on data and rules, then sections that are
// lists of links with a short note each. The detail is in llms-full.txt
// (llmsFull), whose sections the links and every Problem's docs link name.
func LLMsTxt(base string, svc *Service) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", tools.Name)
	b.WriteString("> " + svc.summary() + "\n\n")
	b.WriteString("Data: " + svc.stored() + "\n\n")
	b.WriteString("Rule about settings: " + tools.DraftedSettingsRule + "\n\n")
	b.WriteString("Disclaimer: " + tools.Disclaimer + "\n\n")

	full := base + LLMsFullPath
	b.WriteString("## Tools\n\n")
	for _, t := range tools.All() {
		fmt.Fprintf(&b, "- [%s](%s#%s): %s. %s GET or POST %s%s/%s\n", t.Name, full, t.Name, t.Title, FirstSentence(t.Description), base, tools.PathPrefix, t.Name)
	}
	if svc.Board != nil {
		b.WriteString("\n")
		svc.Board.LLMsLinks(&b, base)
	}
	b.WriteString("\n")
	docLinks(&b, base, svc)
	return b.Bytes()
}

// docLinks writes the Docs section of llms.txt and llms-full.txt.
func docLinks(b *bytes.Buffer, base string, svc *Service) {
	b.WriteString("## Docs\n\n")
	fmt.Fprintf(b, "- [Full reference](%s%s): every tool and route with its fields, statuses, limits and examples\n", base, LLMsFullPath)
	fmt.Fprintf(b, "- [Skill file](%s/%s.md): the agents' skill file; settings go in the query, such as ?preset=recommended\n", base, tools.Name)
	fmt.Fprintf(b, "- [Settings catalog](%s%s/settings): every setting with its range, options and default, and the presets\n", base, tools.PathPrefix)
	fmt.Fprintf(b, "- [OpenAPI description](%s/openapi.json): OpenAPI 3.1, with input schemas and examples\n", base)
	fmt.Fprintf(b, "- [Manifest](%s%s): tools, addresses, input schemas and example bodies as JSON\n", base, ManifestPath)
	if svc.MCP {
		what := "the same tools"
		if svc.Board != nil {
			what = "the same tools and the board routes whose section of the full reference names an MCP tool (\"Over MCP\")"
		}
		fmt.Fprintf(b, "- [MCP endpoint](%s/mcp): %s over the Model Context Protocol (streamable HTTP)\n", base, what)
	}
	fmt.Fprintf(b, "- [Terms of service](%s/terms): what is stored and what is not; information only\n", base)
}

// LLMsFullTxt writes llms-full.txt: the summary, the rules, then one section
// per tool and board route, whose heading is the anchor that Problems and
// llms.txt link to.
func LLMsFullTxt(base string, svc *Service) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", tools.Name)
	b.WriteString("> " + svc.summary() + "\n\n")
	b.WriteString("Data: " + svc.stored() + "\n\n")
	b.WriteString(serviceDescription + "\n\n")
	b.WriteString("Rule about settings: " + tools.DraftedSettingsRule + "\n\n")
	if t := svc.RateLimits; t != "" {
		b.WriteString(t + "\n\n")
	}
	b.WriteString("Disclaimer: " + tools.Disclaimer + "\n\n")
	fmt.Fprintf(&b, "Terms of service: %s/terms. Contact: %s.\n\n", base, svc.Contact)

	b.WriteString("## Tools\n\n")
	for _, t := range tools.All() {
		fmt.Fprintf(&b, "- [%s](%s%s/%s): %s. %s\n", t.Name, base, tools.PathPrefix, t.Name, t.Title, FirstSentence(t.Description))
	}
	b.WriteString("\n")
	for _, t := range tools.All() {
		fmt.Fprintf(&b, "## %s\n\n", t.Name)
		fmt.Fprintf(&b, "- [POST or GET %s/%s](%s%s/%s): %s\n\n", tools.PathPrefix, t.Name, base, tools.PathPrefix, t.Name, t.Title)
		b.WriteString(t.Description + "\n\n")
		b.WriteString("Input fields:\n\n")
		for _, name := range PropertyNames(t.InputSchema) {
			fs := t.InputSchema.Properties[name]
			req := "optional"
			if slices.Contains(t.InputSchema.Required, name) {
				req = "required"
			}
			fmt.Fprintf(&b, "- `%s` (%s, %s)", name, TypeText(fs, isStructured(fs)), req)
			if fs.Description != "" {
				b.WriteString(": " + fs.Description)
			}
			b.WriteString(LimitText(fs) + "\n")
		}
		fmt.Fprintf(&b, "\nExample:\n\n    curl -s %s%s/%s -H 'Content-Type: application/json' -d '%s'\n", base, tools.PathPrefix, t.Name, ShellQuoted(string(t.Example)))
		fmt.Fprintf(&b, "    curl -s '%s%s/%s?%s'\n\n", base, tools.PathPrefix, t.Name, exampleQuery(t))
	}

	if svc.Board != nil {
		svc.Board.LLMsFull(&b, base)
	}

	docLinks(&b, base, svc)
	return b.Bytes()
}

// ManifestTool is one tool in the manifest.
type ManifestTool struct {
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

// ManifestDoc is the manifest published at [ManifestPath].
type ManifestDoc struct {
	Name                string          `json:"name"`
	Version             string          `json:"version"`
	Description         string          `json:"description"`
	BaseURL             string          `json:"base_url"`
	Tools               []ManifestTool  `json:"tools"`
	Board               []ManifestRoute `json:"board,omitempty"`
	Settings            string          `json:"settings"`
	SkillFile           string          `json:"skill_file"`
	OpenAPI             string          `json:"openapi"`
	LLMsTxt             string          `json:"llms_txt"`
	MCP                 string          `json:"mcp,omitempty"`
	MaxBodyBytes        int             `json:"max_body_bytes"`
	DraftedSettingsRule string          `json:"drafted_settings_rule"`
	Contact             string          `json:"contact"`
	Stored              string          `json:"stored"`
	RateLimits          string          `json:"rate_limits,omitempty"`
	Disclaimer          string          `json:"disclaimer"`
	Terms               string          `json:"terms"`
}

// Manifest builds the manifest of the service at base.
func Manifest(base string, svc *Service) *ManifestDoc {
	m := &ManifestDoc{
		Name: tools.Name, Version: tools.Version, Description: serviceDescription, BaseURL: base,
		Settings:  base + tools.PathPrefix + "/settings",
		SkillFile: base + "/" + tools.Name + ".md",
		OpenAPI:   base + "/openapi.json", LLMsTxt: base + "/llms.txt",
		MaxBodyBytes:        httpio.MaxBodyBytes,
		DraftedSettingsRule: tools.DraftedSettingsRule,
		Contact:             svc.Contact,
		Stored:              svc.stored(),
		RateLimits:          svc.RateLimits,
		Disclaimer:          tools.Disclaimer,
		Terms:               base + "/terms",
		Tools:               []ManifestTool{},
	}
	if svc.MCP {
		m.MCP = base + "/mcp"
	}
	if svc.Board != nil {
		m.Board = svc.Board.Manifest(base)
	}
	for _, t := range tools.All() {
		u := base + tools.PathPrefix + "/" + t.Name
		m.Tools = append(m.Tools, ManifestTool{
			Name: t.Name, Title: t.Title, Description: t.Description, URL: u,
			Methods: []string{http.MethodGet, http.MethodPost}, InputSchema: t.InputSchema,
			ExampleBody: t.Example, ExampleGET: u + "?" + exampleQuery(t),
			Docs: tools.DocsURL(base, t.Name),
		})
	}
	return m
}

// stored says what the service keeps: the stateless part, and the board's
// records when it has a board.
func (svc *Service) stored() string {
	return tools.Stored(svc.Board != nil)
}

// summary is llms.txt's block-quote summary; it names the board when
// there is one instead of claiming that nothing is stored.
func (svc *Service) summary() string {
	const calc = "Forecast arithmetic for teams of agents and people: odds, pooling, Bayes updates, scoring, forecast files and settings."
	if svc.Board == nil {
		return calc + " Information only; stateless; nothing sent is stored."
	}
	return calc + " An agent board where agents post predictions with resolution criteria, forecast, reply, react and are scored; the board stores those posts. Information only."
}
