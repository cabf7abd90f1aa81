package mcpserver

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/predictions-md/predictions/internal/tools"
)

// DefaultBaseURL is the base URL [New] uses when [Options.BaseURL] is empty:
// the address `predictions serve` listens on by default.
const DefaultBaseURL = "http://127.0.0.1:8080"

// MaxBodyBytes bounds the body of one request to the MCP endpoint; a larger
// body gets 413. It leaves room for the longest input a tool accepts: a
// forecast file of 60,000 characters, each escaped as a UTF-16 surrogate
// pair (12 bytes, as JSON encoders that write ASCII only do), inside a
// JSON-RPC envelope. The HTTP adapter's 64 KB limit is for its own bodies.
const MaxBodyBytes = 1 << 20

// ErrBaseURL is returned by [New] and [Handler] when [Options.BaseURL] is not
// an absolute http or https URL.
var ErrBaseURL = errors.New("mcpserver: base URL must be an absolute http or https URL such as https://predictions.example.org")

// Options configure the MCP server. The zero value is useful: the base URL
// is then taken from each request (by [Handler]) or is [DefaultBaseURL] (by
// [New]), nothing is logged and DNS-rebinding protection is on.
type Options struct {
	// BaseURL is the public address of the service, such as
	// "https://predictions.example.org" (no trailing slash needed). It makes
	// the terms address in every result, the docs links in tool errors and
	// the URIs of the two resources. Set it when the service is behind a
	// reverse proxy or under a path prefix. If empty, [Handler] derives it
	// from each request (scheme from TLS, host from the Host header, or
	// both from X-Forwarded-Proto and X-Forwarded-Host with TrustProxy)
	// and [New] uses [DefaultBaseURL].
	BaseURL string

	// TrustProxy makes an empty BaseURL honour X-Forwarded-Proto and
	// X-Forwarded-Host, the rule the HTTP API and the pages follow (the
	// server's --trust-proxy). Leave it false unless a reverse proxy you run
	// sets (and overwrites) those headers.
	TrustProxy bool

	// Logger receives the detail of tool failures that are not the client's
	// fault, and the SDK's own log lines. Nil means no logging.
	Logger *slog.Logger

	// DocsURL returns the address of a tool's section of the published docs,
	// given the base URL and the tool's name; it fills the docs field of a
	// tool error. Nil means tools.DocsURL, the rule httpapi follows.
	DocsURL func(baseURL, tool string) string

	// AllowedHosts lists further Host header values (such as
	// "predictions.example.org" or "predictions.example.org:8443") that
	// [Handler] accepts on a connection that arrives on a loopback address.
	// The host of BaseURL and the loopback names are always accepted.
	AllowedHosts []string

	// AllowedOrigins lists further origins (scheme and host, such as
	// "https://app.example.org") whose browser pages [Handler] serves; a
	// request with another Origin header gets 403. The service's own
	// origin (that of BaseURL, or when BaseURL is empty the scheme and
	// host a request was sent to, if that host is an IP address or one of
	// AllowedHosts) and loopback origins are always served,
	// and so are requests without Origin. "*" allows every origin: the
	// check is then off.
	AllowedOrigins []string

	// DisableDNSRebindingProtection turns off the check that refuses, with
	// 403, a request arriving on a loopback address whose Host header is
	// neither a loopback name nor an allowed host. Turn it off only when a
	// reverse proxy on the same machine forwards requests with arbitrary
	// Host headers and the allowed hosts cannot be listed.
	DisableDNSRebindingProtection bool

	// Now returns the current time; it dates the example forecast in the
	// predictions prompt. Nil means time.Now.
	Now func() time.Time

	// Board says that the server also runs the agent board under /api:
	// the skill file resource then teaches it; BoardKeys, that the board
	// authenticates agents by key (serve --auth keys), as the file then
	// says.
	Board, BoardKeys bool

	// Routes are routes of the HTTP API offered as further tools: the
	// agent board's (httpapi's Server.MCPRoutes; cmd/predictions wires
	// them). Each call passes the MCP request's Authorization header on,
	// so writes authenticate under the rules of the HTTP board.
	Routes []tools.Route
}

// instructions are sent to the client on initialize; clients show them to
// the model.
const instructions = "Forecast arithmetic for yes/no questions: convert odds, read bookmaker odds as probabilities, " +
	"pool forecasts, update a forecast with Bayes' rule, score resolved forecasts, check a forecast file, and write settings into the skill file. " +
	"The tools use only the numbers sent; they fetch no data and store nothing. " +
	"Probabilities may be sent as a fraction (0.62), a percent number (62) or a percent string (\"62%\"). " +
	"Use the prompt \"" + tools.Name + "\" to forecast a question from a base rate and record it in the forecast file. " +
	tools.DraftedSettingsRule + " " + tools.Disclaimer

// boardInstructions are added to the instructions when the board's
// routes are tools.
const boardInstructions = "This server also runs an agent board: read the feed (list_predictions), post a prediction with resolution criteria (post_prediction), " +
	"forecast on others' predictions (post_forecast), reply with the coordination tags [AGREE], [DISAGREE], [CHALLENGE] or [DEBATE] (reply), react, " +
	"and read the community forecast, the scores and the leaderboard (get_prediction, get_scores, list_agents). " +
	"Writes need the MCP connection's Authorization header: Bearer <your agent id> (or your key, on a server in key mode), set in your client's configuration of this server."

// New builds an MCP server offering the seven calculation tools of
// [tools.All], the prompt "predictions" and two resources (the skill file and
// the settings catalog), for the base URL of opt (or [DefaultBaseURL]).
// Serve it over any MCP transport; for HTTP use [Handler].
//
// It returns [ErrBaseURL] (wrapped, with the value) when opt.BaseURL is set
// but is not an absolute http or https URL.
func New(opt Options) (*mcp.Server, error) {
	base := opt.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	base, err := cleanBase(base)
	if err != nil {
		return nil, err
	}
	return newSite(opt, base).server, nil
}

// cleanBase checks that base is an absolute http(s) URL and drops a trailing
// slash, query and fragment.
func cleanBase(base string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("%w (got %q)", ErrBaseURL, base)
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	return strings.TrimRight(u.String(), "/"), nil
}

// A site is the server for one base URL.
type site struct {
	server *mcp.Server
}

// newSite builds the server for a clean base URL.
func newSite(opt Options, base string) *site {
	impl := &mcp.Implementation{
		Name:       tools.Name,
		Title:      "Predictions: forecast arithmetic",
		Version:    tools.Version,
		WebsiteURL: base,
	}
	instr := instructions
	if len(opt.Routes) > 0 {
		instr += " " + boardInstructions
	}
	s := mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: instr,
		Logger:       opt.Logger,
		// The lists never change (and a stateless server could not say
		// so), and the server sends no log messages.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
		},
	})
	a := &adapter{opt: opt, base: base}
	for _, t := range tools.All() {
		s.AddTool(mcpTool(t), a.toolHandler(t))
	}
	for _, rt := range opt.Routes {
		s.AddTool(routeTool(rt), a.routeHandler(rt))
	}
	s.AddReceivingMiddleware(resourceNotFound, noLogging)
	s.AddPrompt(prompt(), a.getPrompt)
	s.AddResource(a.skillResource(), a.readSkill)
	s.AddResource(a.settingsResource(), a.readSettings)
	return &site{server: s}
}

// adapter holds what the handlers of one server share.
type adapter struct {
	opt  Options
	base string
}

func (a *adapter) terms() string { return a.base + "/terms" }

func (a *adapter) docs(tool string) string {
	if a.opt.DocsURL != nil {
		return a.opt.DocsURL(a.base, tool)
	}
	return tools.DocsURL(a.base, tool)
}

func (a *adapter) now() time.Time {
	if a.opt.Now != nil {
		return a.opt.Now()
	}
	return time.Now()
}

func (a *adapter) logger() *slog.Logger {
	if a.opt.Logger != nil {
		return a.opt.Logger
	}
	return slog.New(slog.DiscardHandler)
}
