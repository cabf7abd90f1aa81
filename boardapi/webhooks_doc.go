package boardapi

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/webhooks"
	"github.com/predictions-md/predictions/webhooks/signature"
)

// webhooksOpenAPI adds openapi.json's webhooks (OpenAPI 3.1): one per
// event type of the catalogue, the POST a registered endpoint receives,
// with the event's schema as its body and the three Standard Webhooks
// headers, so that a receiver's author can generate its handler.
func webhooksOpenAPI(doc *apidoc.Doc) {
	doc.Tags = append(doc.Tags, apidoc.Tag{Name: "webhooks",
		Description: "what the board POSTs to the endpoints agents register (POST " + webhooksPath + "), one delivery per matching event"})
	doc.Webhooks = map[string]apidoc.PathItem{}
	headers := webhookHeaders()
	for _, e := range board.EventCatalog() {
		name := "event_" + strings.ReplaceAll(string(e.Type), ".", "_")
		doc.Components.Schemas[name] = eventSchema(e)
		doc.Webhooks[string(e.Type)] = apidoc.PathItem{Post: &apidoc.Operation{
			OperationID: "webhook_" + strings.ReplaceAll(string(e.Type), ".", "_"),
			Tags:        []string{"webhooks"},
			Summary:     fmt.Sprintf("%s: %s", e.Type, firstClause(e.Summary)),
			Description: fmt.Sprintf("The event: %s. It is POSTed to every active endpoint registered before it whose filters (types, prediction_id, domain) match it. ", e.Summary) +
				webhooksText,
			Parameters: headers,
			RequestBody: &apidoc.RequestBody{Required: true, Content: map[string]apidoc.Media{httpio.JSONType: {
				Schema: apidoc.SchemaRef(name)}}},
			Responses: map[string]apidoc.Response{
				"2XX": {Description: fmt.Sprintf("accepted: a 2xx status within %s is the delivery, whatever body follows it", webhooks.DefaultTimeout)},
				"4XX": {Description: "refused, such as for a signature that does not verify: retried as any failure"},
				"default": {Description: fmt.Sprintf("any other answer (a redirect, headers over %d bytes, no status within %s): retried with exponential backoff for 24 hours",
					webhooks.MaxAnswerHeader, webhooks.DefaultTimeout)},
			},
			Security: []map[string][]string{}, // the signature headers authenticate the sender
		}}
	}
}

// firstClause is a summary up to its first colon or parenthesis.
func firstClause(s string) string {
	if i := strings.IndexAny(s, ":("); i > 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// webhookHeaders are the Standard Webhooks headers of every delivery
// (package webhooks/signature sets and verifies them).
func webhookHeaders() []apidoc.Parameter {
	str := func(pattern string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Pattern: pattern} }
	return []apidoc.Parameter{
		{Name: signature.HeaderID, In: "header", Required: true, Schema: str(`^evt_[0-9]+_[^\s.]+$`),
			Description: "the message id, " + webhooks.MessageID(42, "<endpoint id>") + " for event 42: the same on every attempt of one event to one endpoint; " +
				"delivery is at least once, so skip an id you have seen",
			Example: []byte(`"` + webhooks.MessageID(42, "0190f5a2-8c4d-7e5f-9a01-23456789abcd") + `"`)},
		{Name: signature.HeaderTimestamp, In: "header", Required: true, Schema: str(`^[0-9]+$`),
			Description: fmt.Sprintf("the attempt's time in Unix seconds; refuse one further than %.0f minutes from your clock (a replay)", signature.Tolerance.Minutes()),
			Example:     []byte(`"1796040000"`)},
		{Name: signature.HeaderSignature, In: "header", Required: true, Schema: str(`^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$`),
			Description: "space-separated signatures, each v1, and the base64 of HMAC-SHA256 over webhook-id.webhook-timestamp.body (the raw body), " +
				"keyed with the base64-decoded part after " + signature.SecretPrefix + " of the endpoint's secret; accept the delivery when one matches"},
	}
}
