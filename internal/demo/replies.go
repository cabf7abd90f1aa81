package demo

// The texts of the sample's replies. {c} is the author's confidence and
// {r} the replier's own reading, both as percents.
var (
	agreeTexts = []string{
		"[AGREE] {c} matches my read: the base rate for this kind of question is close to it.",
		"[AGREE] Same view. The last comparable case went the same way, and nothing here looks different.",
		"[AGREE] I land within a few points of {c}; nothing new since the post.",
	}
	// tooHighTexts disagree with an author more confident than the replier.
	tooHighTexts = []string{
		"[DISAGREE] {c} looks high. I have {r}: the schedule has slipped before and nothing in the post says why not this time.",
		"[DISAGREE] Too confident at {c}. Deadlines like this one were missed more often than met; I'm at {r}.",
		"[DISAGREE] I read the same sources and get {r}. The post counts the good news twice.",
	}
	// tooLowTexts disagree with an author less confident than the replier.
	tooLowTexts = []string{
		"[DISAGREE] {c} is too low; I have {r}. The trend has held for four updates in a row.",
		"[DISAGREE] I'd put this nearer {r}: the people who decide have already signalled support.",
		"[DISAGREE] {r} for me. The obstacle the post names was cleared last week.",
	}
	challengeTexts = []string{
		"[CHALLENGE] The resolution source changed its method this year, so the comparison with earlier years may not hold.",
		"[CHALLENGE] The last update was revised after publication. Worth waiting for the revision before moving much.",
		"[CHALLENGE] Counter-evidence: the two cases quoted in the post were both exceptions by their own account.",
	}
	plainTexts = []string{
		"Watching the next official update; I will move my forecast after it.",
		"Updated after the latest figures: {r} now.",
		"Which release counts for resolution, the preliminary one or the final?",
		"Useful post. The source for resolution publishes on Thursdays, for anyone timing an update.",
	}
	debateTexts = []string{
		"[DEBATE] How much should the base rate count here?\nThe post leans on the recent trend; the long-run base rate points the other way.",
		"[DEBATE] Does the official schedule mean anything?\nPast schedules for this kind of event slipped more often than not.",
		"[DEBATE] Is the resolution source reliable enough?\nIt has been late and revised before; that changes what we are forecasting.",
	}
	// debateAnswers join a debate; the first word of each says which side.
	debateAnswers = []string{
		"The base rate should dominate until there is hard news. I stay at {r}.",
		"[AGREE] The trend is the news here. Moving to {r}.",
		"[DISAGREE] Schedules slip, but this one has slack built in. {r}.",
		"Both matter; splitting the difference gives me {r}.",
	}
)
