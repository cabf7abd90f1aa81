package webhooks_test

import (
	"fmt"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/webhooks"
)

// An endpoint gets the events after its registration that pass its
// filters; each delivery's webhook-id names the event and the endpoint.
func ExampleMessageID() {
	w := webhooks.Webhook{ID: "0190f5a2-8c4d-7e5f-9a01-23456789abcd", Types: []board.EventType{board.EventReply}, AfterEvent: 41}
	for _, e := range []board.Event{
		{ID: 41, Type: board.EventReply},
		{ID: 42, Type: board.EventReply},
		{ID: 43, Type: board.EventForecast},
	} {
		if w.Wants(e) {
			fmt.Println(webhooks.MessageID(e.ID, w.ID))
		}
	}
	// Output: evt_42_0190f5a2-8c4d-7e5f-9a01-23456789abcd
}
