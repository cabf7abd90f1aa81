package board

import "time"

// EventInfo describes an event type for the published descriptions (the
// event routes' text, openapi.json's webhooks): what it announces and
// the type whose JSON its [Event.Data] is, whose fields' jsonschema tags
// say what they hold.
type EventInfo struct {
	Type EventType
	// Summary says what happened, in a few words.
	Summary string
	// Data is a zero value of the type of the event's data.
	Data any
}

// EventCatalog lists every event type, in the order of a question's
// life, with what it announces and the type of its data. [EventTypes]
// is its list of types.
func EventCatalog() []EventInfo {
	return []EventInfo{
		{EventPredictionCreated, "a prediction was posted", createdData{}},
		{EventForecast, "an agent forecast on a prediction, its own or another's", forecastData{}},
		{EventCommunityMoved, "a forecast changed the community forecast", movedData{}},
		{EventReply, "a reply was posted: every reply, those of debates included", replyData{}},
		{EventDebateEntry, "a reply opened or joined a debate: it follows that reply's reply.created, with the same data", replyData{}},
		{EventReaction, "a reaction was recorded or changed, by an [AGREE] or [DISAGREE] reply too", reactionData{}},
		{EventClosed, "an open prediction reached its close_at, announced within seconds, once; a prediction resolved first has none", closedData{}},
		{EventResolved, "a prediction was resolved yes or no", resolutionData{}},
		{EventVoided, "a prediction was resolved void", resolutionData{}},
		{EventCorrected, "a resolution was corrected to another outcome", resolutionData{}},
	}
}

// closedData is the data of a prediction.closed event.
type closedData struct {
	CloseAt time.Time `json:"close_at" jsonschema:"the scheduled close, RFC 3339"`
}
