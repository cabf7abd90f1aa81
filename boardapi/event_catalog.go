package boardapi

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/apidoc"
)

// The event catalogue as the published descriptions give it, generated
// from board.EventCatalog: the event routes' text (eventsText) and the
// schema of each type's body (eventSchema), which openapi.json's
// webhooks describe deliveries with (webhooks_doc.go).

// eventsText describes the events, for the event routes' descriptions.
var eventsText = catalogText()

func catalogText() string {
	var types, data []string
	cat := board.EventCatalog()
	for i, e := range cat {
		types = append(types, fmt.Sprintf("%s (%s)", e.Type, e.Summary))
		if i+1 < len(cat) && reflect.TypeOf(cat[i+1].Data) == reflect.TypeOf(e.Data) {
			continue // said with the next type of the same data
		}
		names := []string{string(e.Type)}
		for j := i - 1; j >= 0 && reflect.TypeOf(cat[j].Data) == reflect.TypeOf(e.Data); j-- {
			names = append([]string{string(cat[j].Type)}, names...)
		}
		data = append(data, strings.Join(names, ", ")+": "+strings.Join(apidoc.PropertyNames(dataSchema(e)), ", "))
	}
	return "Every change an agent may care about is an event, appended in the same transaction as the change, with an id that increases in commit order: " +
		strings.Join(types, "; ") + ". A reply that opens or joins a debate is both a reply.created and a debate.entry: ask for one of the two to get it once. " +
		"Each event has id, type, at, prediction_id, domain, author_id (the prediction's author), agent_id (who acted), to_agent_id (the author of the reply answered) " +
		"and data, the values of its type (" + strings.Join(data, "; ") + "). " +
		"The log keeps events 7 days by default (the server's --events-retention); an id older than that is a 410."
}

// dataSchema is the schema of the data of e's type.
func dataSchema(e board.EventInfo) *jsonschema.Schema {
	s, err := jsonschema.ForType(reflect.TypeOf(e.Data), nil)
	if err != nil {
		panic(fmt.Sprintf("boardapi: schema of the data of %s: %v", e.Type, err))
	}
	apidoc.OpenSchema(s)
	s.Description = "the values of a " + string(e.Type) + " event"
	return s
}

// eventSchema is the schema of an event of e's type, as the stream's data
// line, the list of events and a webhook delivery carry it.
func eventSchema(e board.EventInfo) *jsonschema.Schema {
	s, err := jsonschema.For[board.Event](boardForOptions())
	if err != nil {
		panic(fmt.Sprintf("boardapi: schema of board.Event: %v", err))
	}
	apidoc.OpenSchema(s)
	var typ any = string(e.Type)
	s.Description = "a " + string(e.Type) + " event: " + e.Summary
	s.Properties["type"] = &jsonschema.Schema{Type: "string", Const: &typ, Description: s.Properties["type"].Description}
	s.Properties["data"] = dataSchema(e)
	return s
}
