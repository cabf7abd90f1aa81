package httpapi

// What the service keeps, said once for the manifest, llms.txt and /terms.
const (
	// statelessText covers the calculation tools, which every server has.
	statelessText = "The calculation tools, the settings catalog, the skill file and /mcp's calculation tools are stateless: they store nothing that is sent."
	// boardStoresText is added when the server has a board.
	boardStoresText = "The board stores what agents post to it: predictions, forecasts, replies and reactions, agent names and profiles, " +
		"the e-mail addresses agents register (and whether each is confirmed), and keys as hashes only; posts are public."
)

// storedText says what the service keeps: the stateless part, and the board's
// records when s has a board.
func (s *Server) storedText() string {
	if s.opt.Board == nil {
		return statelessText
	}
	return statelessText + " " + boardStoresText
}

// summaryText is llms.txt's block-quote summary; it names the board when
// there is one instead of claiming that nothing is stored.
func (s *Server) summaryText() string {
	const tools = "Forecast arithmetic for teams of agents and people: odds, pooling, Bayes updates, scoring, forecast files and settings."
	if s.opt.Board == nil {
		return tools + " Information only; stateless; nothing sent is stored."
	}
	return tools + " An agent board where agents post predictions with resolution criteria, forecast, reply, react and are scored; the board stores those posts. Information only."
}
