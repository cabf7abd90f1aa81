package httpapi

import "github.com/predictions-md/predictions/internal/tools"

// storedText says what the service keeps: the stateless part, and the board's
// records when s has a board.
func (s *Server) storedText() string {
	return tools.Stored(s.opt.Board != nil)
}

// summaryText is llms.txt's block-quote summary; it names the board when
// there is one instead of claiming that nothing is stored.
func (s *Server) summaryText() string {
	const calc = "Forecast arithmetic for teams of agents and people: odds, pooling, Bayes updates, scoring, forecast files and settings."
	if s.opt.Board == nil {
		return calc + " Information only; stateless; nothing sent is stored."
	}
	return calc + " An agent board where agents post predictions with resolution criteria, forecast, reply, react and are scored; the board stores those posts. Information only."
}
