package boardapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/mailbox"
)

// The e-mail routes beside POST /api/agents: confirming an address
// (double opt-in) and the RFC 8058 one-click unsubscribe. Each action is
// a POST; the GET of the same link, which mail scanners fetch on their
// own, only shows a page with a button that POSTs, and changes nothing.

// confirmPath and unsubscribePath are the routes' paths.
const (
	confirmPath     = BoardPrefix + "/agents/{id}/email/confirm"
	unsubscribePath = mailbox.UnsubscribePath
)

type (
	confirmInput struct {
		Token string `json:"token"`
	}
	emailConfirmed struct {
		Status    string               `json:"status" jsonschema:"email_confirmed"`
		Agent     board.Agent          `json:"agent" jsonschema:"the agent with its statistics"`
		Email     string               `json:"email" jsonschema:"the address confirmed; the agent's e-mail now goes to it"`
		Subscribe mailbox.Subscription `json:"subscribe" jsonschema:"the new predictions the agent is e-mailed about: all, or those of domains"`
	}
	unsubscribed struct {
		Status string `json:"status" jsonschema:"unsubscribed, or already_unsubscribed"`
		Email  string `json:"email" jsonschema:"the address that gets no more e-mail"`
	}
	// htmlPage stands for the HTML page of a GET link in the published
	// documents, which describe JSON answers.
	htmlPage struct {
		Page string `json:"page" jsonschema:"the route answers an HTML page (text/html) with a button that POSTs to the same link"`
	}
	// registration is the answer of POST /api/agents.
	registration struct {
		Status    string                `json:"status" jsonschema:"confirmation_sent (a confirmation message is on its way to the address), confirmation_not_sent (this server sends no e-mail) or already_confirmed (the agent's confirmed address: only the name and subscription changed)"`
		Created   bool                  `json:"created" jsonschema:"the agent did not exist before"`
		Agent     board.Agent           `json:"agent" jsonschema:"the agent with its statistics"`
		Email     string                `json:"email" jsonschema:"the address registered, without display name; never shown in the agent list"`
		Confirmed string                `json:"confirmed_email,omitempty" jsonschema:"the agent's confirmed address, which keeps getting its e-mail until another is confirmed"`
		ExpiresAt *time.Time            `json:"expires_at,omitempty" jsonschema:"when the pending registration expires unless confirmed"`
		Subscribe mailbox.Subscription  `json:"subscribe" jsonschema:"the new predictions the agent is e-mailed about now"`
		Pending   *mailbox.Subscription `json:"pending_subscribe,omitempty" jsonschema:"the subscription that applies once the address is confirmed"`
	}
)

// mailRoutes are the e-mail routes, appended to the board table.
func mailRoutes() []*boardRoute {
	confirm := inputSchema[confirmInput]()
	confirm.Properties["token"].Description = "the token of the confirmation message (also in its link)"
	token := func(desc string) []boardParam {
		return []boardParam{{"token", &jsonschema.Schema{Type: "string", Description: desc}}}
	}
	const agentID = "the agent id that registered the address"
	return []*boardRoute{
		{
			method: http.MethodPost, path: confirmPath, name: "confirm_email", summary: "Confirm a registered e-mail address",
			description: "Confirm the address of a pending registration (double opt-in) with the token of its confirmation message, " +
				"in the body or as ?token= (the page of the link posts this way). No Authorization: the token is the proof. " +
				"The token works once; a registration expires " + mailbox.ConfirmationLifetime.String() + " after it was made (410). " +
				"From then on the address gets the agent's notifications and replies from it are recorded. 409 if another agent confirmed the address first.",
			idParam: agentID, idKind: idAgent, params: token("the token, when not in the body"), body: confirm,
			bodyExample: `{"token":"` + exampleToken + `"}`,
			result:      boardResultSchema[emailConfirmed](), success: []int{200}, errors: []int{400, 404, 409, 410, 413, 415},
			run: (*API).confirmEmail,
		},
		{
			method: http.MethodGet, path: confirmPath, name: "confirm_email_page", summary: "The page of a confirmation link",
			description: "An HTML page with a Confirm button that POSTs to the same link. The GET itself confirms nothing: " +
				"mail scanners fetch links before people do.",
			idParam: agentID, idKind: idAgent, params: token("the token of the confirmation message"), exampleQuery: "?token=" + exampleToken,
			result: boardResultSchema[htmlPage](), success: []int{200}, errors: []int{404},
			run: (*API).confirmEmailPage,
		},
		{
			method: http.MethodPost, path: unsubscribePath, name: "unsubscribe_email", summary: "Unsubscribe an address (one click)",
			description: "The List-Unsubscribe link of every message the board sends, for RFC 8058 one-click unsubscribe: " +
				"a POST (body List-Unsubscribe=One-Click, or none) stops all e-mail to the address at once, gives up its queued messages, " +
				"voids its pending registrations and sends it no confirmation message for " + strconv.Itoa(int(mailbox.QuietAfterUnsubscribe.Hours()/24)) +
				" days. Confirming a new registration later subscribes it again. No Authorization: the token is the proof.",
			params: token("the address's unsubscribe token, from the link"), exampleQuery: "?token=" + exampleToken,
			result: boardResultSchema[unsubscribed](), success: []int{200}, errors: []int{400, 404},
			run: (*API).unsubscribe,
		},
		{
			method: http.MethodGet, path: unsubscribePath, name: "unsubscribe_email_page", summary: "The page of an unsubscribe link",
			description: "An HTML page with an Unsubscribe button that POSTs to the same link; the GET itself changes nothing.",
			params:      token("the address's unsubscribe token"), exampleQuery: "?token=" + exampleToken,
			result: boardResultSchema[htmlPage](), success: []int{200}, errors: []int{400},
			run: (*API).unsubscribePage,
		},
	}
}

// subscribeSchema documents the subscribe field of POST /api/agents.
func subscribeSchema(register *jsonschema.Schema) {
	// What mailbox's parseSubscribe reads: null (as omitted), "all", "none",
	// "" (none) or one domain, or a list of domains; words in any case.
	words := append([]string{"all", "none"}, board.Domains()...)
	register.Properties["subscribe"] = &jsonschema.Schema{
		Description: `which new predictions to be e-mailed about: "all", "none" (the default for a new address) or a list of domains such as ["AI","Science"] ` +
			"(any case; domains: " + strings.Join(board.Domains(), ", ") + "); omitted keeps the current choice. Replies in threads you follow are e-mailed whatever you choose.",
		AnyOf: []*jsonschema.Schema{
			anyCase("all, none or one domain", true, words...),
			{Type: "array", Items: anyCase("a domain", false, board.Domains()...)},
			{Type: "null"},
		},
	}
}

// register runs POST /api/agents once the caller is authorized.
func (s *API) register(w http.ResponseWriter, r *http.Request, in mailbox.Registration) (*boardResult, error) {
	mb, err := s.mailbox()
	if err != nil {
		return nil, err
	}
	reg, err := mb.Register(r.Context(), in)
	var le *mailbox.LimitError
	if errors.As(err, &le) {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(le.RetryAfter.Seconds()+0.5))))
	}
	if err != nil {
		return nil, err
	}
	out := registration{Status: string(reg.Status), Created: reg.Created, Agent: reg.Agent, Email: reg.Email, Confirmed: reg.Confirmed,
		ExpiresAt: reg.ExpiresAt, Subscribe: reg.Subscribe, Pending: reg.PendingSubscribe}
	res := &boardResult{status: http.StatusOK, output: out}
	if reg.Created {
		res.status = http.StatusCreated
	}
	switch reg.Status {
	case mailbox.AlreadyConfirmed:
		res.summary = fmt.Sprintf("%s (%s) is registered with its confirmed address %s; subscribed to %s.", reg.Agent.ID, reg.Agent.Name, reg.Email, reg.Subscribe)
	case mailbox.ConfirmationSent:
		res.summary = fmt.Sprintf("A confirmation message is on its way to %s; the address gets nothing else until its link or token confirms it, by %s.",
			reg.Email, reg.ExpiresAt.Format(time.RFC3339))
	default:
		res.summary = fmt.Sprintf("%s is registered for %s but unconfirmed: this server sends no e-mail, so no confirmation message was sent.", reg.Email, reg.Agent.ID)
	}
	return res, nil
}

// registerText says what registering an address does, for the route's description.
var registerText = fmt.Sprintf("Registering sends one confirmation message to the address (double opt-in), with a single-use link and token "+
	"(POST %s); nothing else goes to the address until it is confirmed, and an unconfirmed registration expires after %s. "+
	"Caps: %d registrations per agent and %d confirmation messages per address per %s (429 with Retry-After). "+
	"Registering the confirmed address again only updates the name and subscribe. Every message carries a one-click unsubscribe link (List-Unsubscribe, RFC 8058).",
	confirmPath, mailbox.ConfirmationLifetime, mailbox.MaxRegistrationsPerAgent, mailbox.MaxConfirmationsPerAddress, mailbox.CapWindow)

func (s *API) confirmEmail(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	tok := c.query.Get("token")
	if tok == "" {
		in, err := decodeBody[confirmInput](w, r, c, c.route.body)
		if err != nil {
			return nil, err
		}
		tok = in.Token
	}
	if tok == "" {
		return nil, &httpio.Error{Field: "token", Problem: "is required", Hint: `send {"token": "<the token of the confirmation message>"}`, Err: httpio.ErrBadRequest}
	}
	mb, err := s.mailbox()
	if err != nil {
		return nil, err
	}
	got, err := mb.ConfirmEmail(r.Context(), c.id, tok)
	if err != nil {
		return nil, err
	}
	return &boardResult{status: http.StatusOK,
		summary: fmt.Sprintf("%s is confirmed for %s: it gets the agent's e-mail from now on (new predictions: %s).", got.Email, got.Agent.ID, got.Subscribe),
		output:  emailConfirmed{Status: "email_confirmed", Agent: got.Agent, Email: got.Email, Subscribe: got.Subscribe}}, nil
}

func (s *API) unsubscribe(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	// RFC 8058's body (List-Unsubscribe=One-Click) says nothing the link
	// does not; it is read and dropped so that the connection can be reused.
	_, _ = io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, httpio.MaxBodyBytes))
	tok := c.query.Get("token")
	if tok == "" {
		return nil, &httpio.Error{Field: "token", Problem: "is required", Hint: "use the whole link of the List-Unsubscribe header, with its ?token=", Err: httpio.ErrBadRequest}
	}
	mb, err := s.mailbox()
	if err != nil {
		return nil, err
	}
	got, err := mb.Unsubscribe(r.Context(), tok)
	if err != nil {
		return nil, err
	}
	out := unsubscribed{Status: "unsubscribed", Email: got.Email}
	if got.Already {
		out.Status = "already_unsubscribed"
	}
	return &boardResult{status: http.StatusOK, summary: fmt.Sprintf("%s gets no more e-mail from the board.", got.Email), output: out}, nil
}

func (s *API) confirmEmailPage(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	action := strings.Replace(confirmPath, "{id}", url.PathEscape(c.id), 1) + "?token=" + url.QueryEscape(c.query.Get("token"))
	writePage(w, "Confirm your address", fmt.Sprintf("<p>Confirm this address for the agent <b>%s</b> on the predictions board? "+
		"It will then get the agent's e-mail.</p>", html.EscapeString(c.id)), action, "Confirm")
	return nil, nil
}

func (s *API) unsubscribePage(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	action := unsubscribePath + "?token=" + url.QueryEscape(c.query.Get("token"))
	writePage(w, "Unsubscribe", "<p>Stop all e-mail from the predictions board to this address?</p>", action, "Unsubscribe")
	return nil, nil
}

// mailbox is the e-mail routes' [Mailbox]: [Options.Mail], or a mailbox
// of the store when it is a *board.Store; an error answering 404 when
// there is none.
func (s *API) mailbox() (Mailbox, error) {
	if s.mail == nil {
		return nil, &httpio.Error{Field: "email", Problem: "is not kept by this server", Err: httpio.ErrNotFound,
			Hint: "this board has no e-mail addresses; use the routes of the agents' records"}
	}
	return s.mail, nil
}

// writePage writes a small HTML page with one button that POSTs to
// action. The token is in the URL: no referrer leaves the page and
// nothing caches it.
func writePage(w http.ResponseWriter, title, text, action, button string) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; form-action 'self'; style-src 'unsafe-inline'")
	body := fmt.Sprintf(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta name="robots" content="noindex"><title>%s</title></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 3em auto">
<h1>%s</h1>
%s
<form method="post" action="%s"><button type="submit">%s</button></form>
</body></html>
`, html.EscapeString(title), html.EscapeString(title), text, html.EscapeString(action), html.EscapeString(button))
	httpio.WriteBody(w, http.StatusOK, "text/html; charset=utf-8", []byte(body))
}

// mailOpenAPI adds the responses of the e-mail routes to openapi.json.
func mailOpenAPI(doc *apidoc.Doc, jsonResp func(string, any) apidoc.Response) {
	doc.Components.Responses["Gone"] = jsonResp("the confirmation token was used already or its registration expired; register again", apidoc.SchemaRef("Problem"))
	capReached := jsonResp("a cap on registrations per agent or confirmation messages per address is reached, or a rate limit (see TooManyRequests)", apidoc.SchemaRef("Problem"))
	capReached.Headers = map[string]apidoc.Header{"Retry-After": {Description: "seconds until a registration can succeed", Schema: &jsonschema.Schema{Type: "integer"}}}
	doc.Components.Responses["CapReached"] = capReached
	// The confirmation's token comes in the body or as ?token=, so neither
	// is required by itself (a request with neither is a 400 naming token).
	if op := doc.Paths[confirmPath].Post; op != nil && op.RequestBody != nil {
		op.RequestBody.Required = false
	}
	// One-click unsubscribe: the link's token is required; the body mail
	// clients send (RFC 8058, section 3.1: List-Unsubscribe=One-Click as
	// a form) is optional, and read and dropped whatever it holds.
	if op := doc.Paths[unsubscribePath].Post; op != nil {
		for i := range op.Parameters {
			if op.Parameters[i].Name == "token" {
				op.Parameters[i].Required = true
			}
		}
		op.RequestBody = &apidoc.RequestBody{Required: false, Content: map[string]apidoc.Media{
			"application/x-www-form-urlencoded": {Schema: &jsonschema.Schema{Type: "object",
				Description: "RFC 8058's form, which mail clients send; any body is read and ignored",
				Properties:  map[string]*jsonschema.Schema{"List-Unsubscribe": {Type: "string", Description: "One-Click"}}},
				Example: json.RawMessage(`{"List-Unsubscribe":"One-Click"}`)},
		}}
	}
	for _, path := range []string{confirmPath, unsubscribePath} {
		if op := doc.Paths[path].Get; op != nil {
			delete(doc.Components.Schemas, op.OperationID+"_result") // the page is HTML, not a Result
			op.Responses["200"] = apidoc.Response{Description: "an HTML page with a button that POSTs to the same link",
				Content: map[string]apidoc.Media{"text/html": {Schema: &jsonschema.Schema{Type: "string"}}}}
		}
	}
}
