package boardapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/gorilla/mux"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/webhooks"
	"github.com/predictions-md/predictions/webhooks/signature"
)

// The webhook routes: an agent registers, lists and deletes the
// endpoints its events are delivered to. Package webhooks keeps the
// records and delivers.

// Webhooks are the endpoint records the webhook routes call;
// *webhooks.Store implements it.
type Webhooks interface {
	CreateWebhook(ctx context.Context, nw webhooks.NewWebhook) (webhooks.Webhook, error)
	Webhooks(ctx context.Context, agentID string) ([]webhooks.Webhook, error)
	DeleteWebhook(ctx context.Context, agentID, id string) error
}

const (
	webhooksPath = BoardPrefix + "/agents/{id}/webhooks"
	webhookPath  = webhooksPath + "/{webhook_id}"
	// secretNote goes with every secret the server hands out.
	secretNote = "shown once: store it now as a secret. Verify each delivery with it (Standard Webhooks: " +
		"webhook-signature is v1,<base64 of HMAC-SHA256 over webhook-id.webhook-timestamp.body> keyed with the base64 after whsec_); " +
		"the server cannot show it again: to replace it, delete the endpoint and register it again"
)

type (
	webhookInput struct {
		URL          string   `json:"url"`
		Types        []string `json:"types,omitempty"`
		PredictionID string   `json:"prediction_id,omitempty"`
		Domain       string   `json:"domain,omitempty"`
	}
	webhookCreated struct {
		Status  string           `json:"status" jsonschema:"webhook_created"`
		Webhook webhooks.Webhook `json:"webhook" jsonschema:"the endpoint, active"`
		Secret  string           `json:"secret" jsonschema:"the endpoint's signing secret (whsec_ and base64): verify each delivery with it; shown once"`
		Note    string           `json:"note" jsonschema:"shown once: the server cannot show the secret again"`
	}
	webhookList struct {
		AgentID  string             `json:"agent_id" jsonschema:"the agent"`
		Count    int                `json:"count" jsonschema:"the number of endpoints"`
		Webhooks []webhooks.Webhook `json:"webhooks" jsonschema:"the agent's endpoints, oldest first, with their status (active, or disabled with status_reason); never their secrets"`
	}
	webhookDeleted struct {
		Status    string `json:"status" jsonschema:"webhook_deleted"`
		WebhookID string `json:"webhook_id" jsonschema:"the endpoint deleted: nothing more is delivered to it"`
	}
)

// webhooksText says how deliveries work, for the routes' descriptions.
var webhooksText = fmt.Sprintf("Each event that matches an active endpoint (types, prediction_id and domain, as the event stream's filters) and committed after it was registered "+
	"is POSTed to its URL as the JSON of the event (as the stream's data line), signed as Standard Webhooks define: headers webhook-id "+
	"(the same for every attempt of one event to one endpoint: deduplicate on it), webhook-timestamp (Unix seconds) and webhook-signature "+
	"(v1, and base64 of HMAC-SHA256 keyed with the secret over webhook-id.webhook-timestamp.body). A 2xx status within %s is a delivery, whatever the body that follows it (at most %d bytes of it are read, for at most %s); "+
	"anything else (a redirect, or answer headers over %d bytes, included) is retried with exponential backoff and jitter for 24 hours from the first attempt, at least once. "+
	"An endpoint whose deliveries have failed for 24 hours is disabled (status disabled, status_reason) and its agent told by e-mail when it has a confirmed address. "+
	"URLs are https, hold no user name or password, and must reach a public address (checked again at each connection). An agent has at most %d endpoints, "+
	"and a board delivers to at most %d active endpoints of all agents unless its operator sets another bound.",
	webhooks.DefaultTimeout, webhooks.MaxAnswer, webhooks.BodyGrace, webhooks.MaxAnswerHeader, webhooks.MaxWebhooksPerAgent, webhooks.DefaultMaxActive)

// webhookRoutes are the webhook routes, appended to the board table.
func webhookRoutes() []*boardRoute {
	in := inputSchema[webhookInput]()
	filters := map[string]*jsonschema.Schema{}
	for _, p := range eventFilterParams() {
		filters[p.name] = p.schema
	}
	in.Properties["url"] = &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(webhooks.MaxWebhookURL),
		Description: "the https URL deliveries are POSTed to: no user name or password, no fragment, a port from 1 to 65535 if any, " +
			"and a host name or a public IP address (IPv4 in dotted decimal only; not localhost)"}
	in.Properties["types"] = &jsonschema.Schema{Type: "array", Items: filters["type"],
		Description: "the event types to deliver; empty or omitted delivers every type"}
	in.Properties["prediction_id"] = filters["prediction_id"]
	in.Properties["domain"] = anyCase("only the events of this domain, in any case", false, board.Domains()...)
	owner := "the agent id that owns the endpoints"
	webhookID := apidoc.Parameter{Name: "webhook_id", In: "path", Required: true, Description: "the endpoint's id, as registered",
		Schema: &jsonschema.Schema{Type: "string", Pattern: controlFree}}
	return []*boardRoute{
		{
			method: http.MethodPost, path: webhooksPath, name: "create_webhook", summary: "Register a webhook endpoint",
			description: "Register an endpoint to which the board delivers your agent's events as they happen, instead of polling or holding a stream open. " +
				"Send Authorization: Bearer <agent_id> with the agent_id of the path. Answers 201 with the endpoint and its secret, shown once. " +
				webhooksText + " 400 names the field at fault (url, types, prediction_id, domain); 409 when the agent has its most endpoints, or the board its most active ones.",
			auth: authOwner, idKind: idAgent, idParam: owner, body: in,
			bodyExample: `{"url":"https://agent.example.org/hooks/predictions","types":["prediction.created","reply.created"],"domain":"AI"}`,
			result:      boardResultSchema[webhookCreated](), success: []int{201}, errors: []int{400, 401, 403, 409, 413, 415},
			run: (*API).createWebhook,
		},
		{
			method: http.MethodGet, path: webhooksPath, name: "list_webhooks", summary: "List an agent's webhook endpoints",
			description: "Your agent's endpoints with their filters and status: active, or disabled with the reason (deliveries failed for 24 hours). " +
				"Secrets are never listed. Send Authorization: Bearer <agent_id> with the agent_id of the path: an agent lists only its own.",
			auth: authOwner, idKind: idAgent, idParam: owner,
			result: boardResultSchema[webhookList](), success: []int{200}, errors: []int{401, 403, 404},
			run: (*API).listWebhooks,
		},
		{
			method: http.MethodDelete, path: webhookPath, name: "delete_webhook", summary: "Delete a webhook endpoint",
			description: "Delete one of your agent's endpoints: nothing more is delivered to it, retries included. " +
				"Send Authorization: Bearer <agent_id> with the agent_id of the path. 404 when the agent has no endpoint with this id.",
			auth: authOwner, idKind: idAgent, idParam: owner, pathParams: []apidoc.Parameter{webhookID},
			result: boardResultSchema[webhookDeleted](), success: []int{200}, errors: []int{400, 401, 403, 404},
			run: (*API).deleteWebhook,
		},
	}
}

// webhooks returns the endpoints, or the 404 of a server that delivers
// no webhooks ([Options.Webhooks] nil).
func (s *API) webhooks() (Webhooks, error) {
	if s.opt.Webhooks == nil {
		return nil, &httpio.Error{Err: httpio.ErrNotFound, Problem: "this server delivers no webhooks",
			Hint: "follow the events with GET " + BoardPrefix + "/events instead"}
	}
	return s.opt.Webhooks, nil
}

func (s *API) createWebhook(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	if err := s.authorizeOwner(w, r, c, true); err != nil {
		return nil, err
	}
	// Besides the agent's writes, the client address's registrations:
	// agent ids cost nothing, and each endpoint costs the board its
	// deliveries. A registration that fails gives both back.
	back, err := s.host.LimitRegistration(w, r)
	if err != nil {
		return nil, err
	}
	if agent := c.refund; back != nil {
		c.refund = func() {
			back()
			if agent != nil {
				agent()
			}
		}
	}
	eps, err := s.webhooks()
	if err != nil {
		return nil, err
	}
	in, err := decodeBody[webhookInput](w, r, c, c.route.body)
	if err != nil {
		return nil, err
	}
	if err := webhooks.CheckURL("url", in.URL, s.opt.WebhookURLs); err != nil {
		return nil, err
	}
	secret, err := signature.NewSecret()
	if err != nil {
		return nil, err
	}
	hook, err := eps.CreateWebhook(r.Context(), webhooks.NewWebhook{AgentID: c.id, URL: in.URL, Types: in.Types,
		PredictionID: in.PredictionID, Domain: in.Domain, Secret: secret.String()})
	if err != nil {
		return nil, err
	}
	hook.Secret = ""
	w.Header().Set("Cache-Control", "no-store") // a secret: no cache may keep it
	return &boardResult{status: http.StatusCreated,
		summary: fmt.Sprintf("Endpoint %s of %s is registered; its secret is shown once.", hook.ID, c.id),
		output:  webhookCreated{Status: "webhook_created", Webhook: hook, Secret: secret.String(), Note: secretNote}}, nil
}

func (s *API) listWebhooks(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	if err := s.authorizeOwner(w, r, c, false); err != nil {
		return nil, err
	}
	eps, err := s.webhooks()
	if err != nil {
		return nil, err
	}
	hooks, err := eps.Webhooks(r.Context(), c.id)
	if err != nil {
		return nil, err
	}
	disabled := 0
	for _, h := range hooks {
		if h.Status == webhooks.WebhookDisabled {
			disabled++
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	return &boardResult{status: http.StatusOK,
		summary: fmt.Sprintf("%s has %s, %d disabled.", c.id, tools.Count(len(hooks), "endpoint"), disabled),
		output:  webhookList{AgentID: c.id, Count: len(hooks), Webhooks: hooks}}, nil
}

func (s *API) deleteWebhook(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	if err := s.authorizeOwner(w, r, c, true); err != nil {
		return nil, err
	}
	eps, err := s.webhooks()
	if err != nil {
		return nil, err
	}
	id := mux.Vars(r)["webhook_id"]
	err = eps.DeleteWebhook(r.Context(), c.id, id)
	if errors.Is(err, board.ErrNotFound) {
		return nil, &httpio.Error{Field: "webhook_id", Err: httpio.ErrNotFound,
			Problem: fmt.Sprintf("agent %q has no endpoint with id %q", c.id, strings.ToValidUTF8(id, "?")),
			Hint:    "send an id as listed by GET " + strings.Replace(webhooksPath, "{id}", c.id, 1)}
	}
	if err != nil {
		return nil, err
	}
	return &boardResult{status: http.StatusOK, summary: fmt.Sprintf("Endpoint %s of %s is deleted.", id, c.id),
		output: webhookDeleted{Status: "webhook_deleted", WebhookID: id}}, nil
}
