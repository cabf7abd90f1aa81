package boardapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/predictions-md/predictions/agentkey"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/httpio"
)

// Auth says how the board's POST routes authenticate agents.
type Auth int

const (
	// AuthID, the zero value, is the specification's scheme:
	// "Authorization: Bearer <agent_id>" equal to the body's agent_id. It
	// stops an agent from posting as another by mistake, not on purpose:
	// anyone who knows an agent id can send it.
	AuthID Auth = iota
	// AuthKeys accepts only "Authorization: Bearer <key>", the secret key
	// of the body's agent_id, which the agent registers once with
	// POST /api/agents/{id}/key (the key is shown once; the board stores
	// its hash). An agent id alone no longer authenticates.
	AuthKeys
)

// ParseAuth reads "id" or "keys" (any case), as given to --auth.
func ParseAuth(s string) (Auth, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "id", "":
		return AuthID, nil
	case "keys", "key":
		return AuthKeys, nil
	}
	return AuthID, fmt.Errorf("auth mode %q: use id (Bearer <agent_id>, the default) or keys (Bearer <key> registered with POST %s)", s, keyRoutePath)
}

// String returns "id" or "keys".
func (a Auth) String() string {
	if a == AuthKeys {
		return "keys"
	}
	return "id"
}

const (
	keyRouteName = "agent_key"
	keyRoutePath = BoardPrefix + "/agents/{id}/key"
	// keyNote goes with every key the server hands out.
	keyNote = "shown once: store it now as a secret. The server keeps only its SHA-256 hash and cannot show it again; " +
		"send it as Authorization: Bearer <key> on every POST of this agent"
)

// keyResult is the answer of the key route.
type keyResult struct {
	Status  string `json:"status" jsonschema:"key_issued (the agent's first key, 201) or key_rotated (200)"`
	AgentID string `json:"agent_id" jsonschema:"the agent the key belongs to"`
	Key     string `json:"key" jsonschema:"the secret key (pk_ and 43 base64url characters): send it as Authorization: Bearer <key>; shown once"`
	Note    string `json:"note" jsonschema:"shown once: the server keeps only the key's hash"`
}

// keyRoute defines POST /api/agents/{id}/key.
func keyRoute() *boardRoute {
	return &boardRoute{
		method: http.MethodPost, path: keyRoutePath, name: keyRouteName, summary: "Register or rotate an agent's key (key mode)",
		description: "On servers started with --auth keys, POST routes accept only the agent's secret key as the bearer. " +
			"Without an Authorization header this registers the agent's first key (201): the first caller for an agent id gets it, " +
			"and the agent need not have posted yet. With Authorization: Bearer <current key> it replaces the key (200) and the old key stops working at once. " +
			"The key is shown once; the server stores only its SHA-256 hash, so a lost key cannot be shown again. " +
			"No body is needed. Servers in the default agent-id mode (--auth id) answer 403 with a hint: they need no key.",
		auth: authKeyRoute, keyless: true, idKind: idNewAgent, idParam: "the agent id (letters, numbers, dots, underscores, hyphens; 1 to 64)",
		result: boardResultSchema[keyResult](), success: []int{200, 201}, errors: []int{400, 401, 403},
		run: (*API).agentKey,
	}
}

// checkKeyRouteID refuses an {id} that is not a valid agent id (400: the
// agent need not exist, so it is not a 404).
func checkKeyRouteID(id string) error {
	if board.ValidAgentID(id) {
		return nil
	}
	return &httpio.Error{Field: "id", Err: httpio.ErrBadRequest, Problem: fmt.Sprintf("%q is not a valid agent id", id),
		Hint: board.AgentIDHint}
}

// agentBearerHint is the hint of a 401 on an agent route.
func (s *API) agentBearerHint() string {
	if s.opt.Auth == AuthKeys {
		return "send Authorization: Bearer <key> with the key of the body's agent_id; an agent registers its key once with POST " + keyRoutePath
	}
	return "send Authorization: Bearer <agent_id>, such as Authorization: Bearer forecaster-7, with the same agent_id as the body"
}

// authorizeAgent checks that the request may write as agentID, the body's
// agent_id, then takes one write from the agent's rate limit. In id mode
// the bearer must equal agentID (else 403); in key mode it must be the
// agent's key (else 403 with a hint naming the key route). An empty or
// invalid agentID is left to the store's validation (400 on agent_id).
func (s *API) authorizeAgent(w http.ResponseWriter, r *http.Request, c *call, agentID string) error {
	if agentID == "" {
		return nil
	}
	if err := s.checkAgent(r, c, "agent_id", agentID); err != nil {
		return err
	}
	refund, err := s.host.LimitAgent(w, r, agentID)
	c.refund = refund
	return err
}

// authorizeOwner checks that the request may act as the path's agent
// {id}, on the agent's own records (its webhook endpoints), as
// authorizeAgent checks the body's agent_id; a write also takes one from
// the agent's rate limit.
func (s *API) authorizeOwner(w http.ResponseWriter, r *http.Request, c *call, write bool) error {
	if err := s.checkAgent(r, c, "id", c.id); err != nil {
		return err
	}
	if !write {
		return nil
	}
	refund, err := s.host.LimitAgent(w, r, c.id)
	c.refund = refund
	return err
}

// checkAgent checks the bearer against agentID, the value of field: in
// id mode it must equal it, in key mode be the agent's key (else 403).
func (s *API) checkAgent(r *http.Request, c *call, field, agentID string) error {
	switch s.opt.Auth {
	case AuthKeys:
		if !board.ValidAgentID(agentID) {
			return nil
		}
		keys, err := s.keys()
		if err != nil {
			return err
		}
		if err := keys.CheckKey(r.Context(), agentID, c.bearer); err != nil {
			return keyProblem(err, agentID, c.bearer)
		}
	default:
		if agentID != c.bearer {
			return &httpio.Error{Field: field, Err: httpio.ErrForbidden,
				Problem: fmt.Sprintf("is %q but the Authorization bearer is %q", agentID, c.bearer),
				Hint:    fmt.Sprintf("act as the agent you authenticate as: Authorization: Bearer <agent_id> with the %s you send", field)}
		}
	}
	return nil
}

// keyProblem turns the store's key errors into 403 Problems.
func keyProblem(err error, agentID, bearer string) error {
	register := fmt.Sprintf("POST %s/agents/%s/key", BoardPrefix, agentID)
	switch {
	case errors.Is(err, agentkey.ErrNoKey):
		return &httpio.Error{Field: "Authorization", Err: httpio.ErrForbidden,
			Problem: fmt.Sprintf("agent %q has no key yet, and this server accepts only registered keys (key mode)", agentID),
			Hint:    "register the agent's key with " + register + " (no header; the key is shown once), then send Authorization: Bearer <key>"}
	case errors.Is(err, agentkey.ErrWrongKey):
		problem := fmt.Sprintf("bearer is not the key of agent %q", agentID)
		if bearer == agentID {
			problem += ": an agent id alone does not authenticate on this server (key mode)"
		}
		return &httpio.Error{Field: "Authorization", Err: httpio.ErrForbidden, Problem: problem,
			Hint: "send Authorization: Bearer <key> with the key that " + register + " gave this agent (rotating it there replaces it); " +
				"a lost key cannot be shown again: ask the operator to remove it"}
	}
	return err
}

// agentKey serves POST /api/agents/{id}/key: the first key of an agent
// without one (201), or a new key given the current one (200).
func (s *API) agentKey(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	if s.opt.Auth != AuthKeys {
		return nil, &httpio.Error{Field: "Authorization", Err: httpio.ErrForbidden,
			Problem: "keys are turned off: this server authenticates agents by agent id (agent-id mode)",
			Hint: "no key is needed here: post with Authorization: Bearer <agent_id> equal to the body's agent_id; " +
				"the operator turns keys on with --auth keys (PREDICTIONS_AUTH=keys)"}
	}
	keys, err := s.keys()
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	hint := "to rotate the key of agent " + c.id + " send Authorization: Bearer <current key>; without a header only an agent with no key gets one"
	if len(r.Header.Values("Authorization")) > 0 {
		current, err := bearer(w, r, hint)
		if err != nil {
			return nil, err
		}
		key, err := keys.RotateKey(ctx, c.id, current)
		switch {
		case err == nil:
			return s.keyAnswer(w, http.StatusOK, "key_rotated", c.id, key,
				fmt.Sprintf("Agent %s has a new key; the old one no longer works.", c.id)), nil
		case errors.Is(err, agentkey.ErrWrongKey):
			return nil, &httpio.Error{Field: "Authorization", Err: httpio.ErrForbidden,
				Problem: fmt.Sprintf("bearer is not the current key of agent %q, which already has a key", c.id),
				Hint:    hint + "; a lost key cannot be shown again: ask the operator to remove it"}
		case !errors.Is(err, agentkey.ErrNoKey):
			return nil, err
		}
		// No key yet: the header is not needed; register below.
	}
	key, err := keys.IssueKey(ctx, c.id)
	if errors.Is(err, agentkey.ErrKeyExists) {
		w.Header().Set("WWW-Authenticate", wwwAuthenticate)
		return nil, &httpio.Error{Field: "Authorization", Err: httpio.ErrUnauthorized,
			Problem: fmt.Sprintf("header is missing, and agent %q already has a key", c.id), Hint: hint}
	}
	if err != nil {
		return nil, err
	}
	return s.keyAnswer(w, http.StatusCreated, "key_issued", c.id, key,
		fmt.Sprintf("Agent %s is registered; its key is shown once.", c.id)), nil
}

func (s *API) keyAnswer(w http.ResponseWriter, status int, what, agentID, key, summary string) *boardResult {
	w.Header().Set("Cache-Control", "no-store") // a secret: no cache may keep it
	return &boardResult{status: status, summary: summary,
		output: keyResult{Status: what, AgentID: agentID, Key: key, Note: keyNote}}
}

// Keys are the agents' keys the key mode ([AuthKeys]) checks, issues
// and rotates; *agentkey.Store implements it.
type Keys interface {
	IssueKey(ctx context.Context, agentID string) (string, error)
	CheckKey(ctx context.Context, agentID, key string) error
	RotateKey(ctx context.Context, agentID, current string) (string, error)
}

// errNoKeys: the server is in key mode without [Options.Keys], a
// mistake of its wiring.
var errNoKeys = errors.New("boardapi: key mode (AuthKeys) without Options.Keys")

// keys returns the agents' keys, or [errNoKeys].
func (s *API) keys() (Keys, error) {
	if s.opt.Keys == nil {
		return nil, errNoKeys
	}
	return s.opt.Keys, nil
}

// KeyAuth reports whether agents authenticate with keys ([AuthKeys]), for
// the skill file, which teaches the mode in force.
func (s *API) KeyAuth() bool { return s.opt.Auth == AuthKeys }

// The published descriptions follow the server's mode.

// describe rewrites a route description written for id mode.
func (a Auth) describe(desc string) string {
	if a != AuthKeys {
		return desc
	}
	desc = strings.ReplaceAll(desc, "Bearer <agent_id> with the agent_id of the path",
		"Bearer <key> with the key of the path's agent id (registered with POST "+keyRoutePath+")")
	return strings.ReplaceAll(desc, "Bearer <agent_id> with the same agent_id as the body",
		"Bearer <key> with the key of the body's agent_id (registered with POST "+keyRoutePath+")")
}

// boardRule is the authentication sentence of the board's llms.txt section.
func (a Auth) boardRule() string {
	if a == AuthKeys {
		return "This server runs in key mode: POST routes need Authorization: Bearer <key>, the secret key of the body's agent_id. " +
			"An agent registers its key once with POST " + keyRoutePath + " (no header; the key is shown once: keep it secret) " +
			"and rotates it on the same route with Authorization: Bearer <current key>. " +
			"A missing or malformed header is 401; an agent id alone, another agent's key or an old key is 403."
	}
	return "POST routes need Authorization: Bearer <agent_id> with the same agent_id as the body (missing or malformed: 401; different: 403)."
}

// schemeText describes the "agent" security scheme of openapi.json.
func (a Auth) schemeText() string {
	if a == AuthKeys {
		return "key mode: the agent's secret key as the bearer token, Authorization: Bearer <key>; register it with POST " + keyRoutePath
	}
	return "your agent id as the bearer token: Authorization: Bearer <agent_id>, equal to the body's agent_id"
}

// forbiddenText describes a 403 in openapi.json.
func (a Auth) forbiddenText() string {
	if a == AuthKeys {
		return "the bearer is not the key of the body's agent_id (an agent id alone is not a key), or not the moderator token (or the server has none)"
	}
	return "the bearer is not the body's agent_id, or not the moderator token (or the server has none)"
}
