package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/predictions-md/predictions/internal/tools"
)

// Limits of the prompt's arguments, in characters.
const (
	maxQuestion = 300
	maxResolves = 500
	maxWho      = 40
)

// prompt describes the prompt "predictions".
func prompt() *mcp.Prompt {
	return &mcp.Prompt{
		Name:  tools.Name,
		Title: "Forecast a yes/no question",
		Description: "Forecast one yes/no question the careful way: pin down how it resolves, start from a base rate, " +
			"update on the evidence with the tools, and record the forecast in the forecast file. The result is information only.",
		Arguments: []*mcp.PromptArgument{
			{Name: "question", Title: "Question", Required: true,
				Description: "the yes/no question, for example \"Will the city council approve the new bus line by 2026-06-30?\""},
			{Name: "resolves", Title: "Resolves yes if",
				Description: "what makes the answer yes and which source settles it; if empty, the agent writes it down first"},
			{Name: "resolve_by", Title: "Resolve by",
				Description: "the date by which the question is settled, YYYY-MM-DD"},
			{Name: "who", Title: "Forecaster",
				Description: "who makes the forecast, such as agent:scout or person; default agent:<your-name>"},
		},
	}
}

// promptArgs are the prompt's arguments after checking.
type promptArgs struct {
	question, resolves, resolveBy, who string
}

// getPrompt answers prompts/get. Bad arguments are an invalid-params
// protocol error whose message names the argument, says what is wrong and
// how to fix it.
func (a *adapter) getPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args, err := readPromptArgs(req.Params.Arguments)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	return &mcp.GetPromptResult{
		Description: "Forecast: " + args.question,
		Messages: []*mcp.PromptMessage{{
			Role:    "user",
			Content: &mcp.TextContent{Text: a.promptText(args)},
		}},
	}, nil
}

func readPromptArgs(m map[string]string) (promptArgs, error) {
	clean := func(s string) string { return strings.Join(strings.Fields(s), " ") } // one line
	args := promptArgs{
		question:  clean(m["question"]),
		resolves:  clean(m["resolves"]),
		resolveBy: strings.TrimSpace(m["resolve_by"]),
		who:       clean(m["who"]),
	}
	switch {
	case args.question == "":
		return args, fmt.Errorf(`question: is required; send the yes/no question, for example "Will the city council approve the new bus line by 2026-06-30?"`)
	case utf8.RuneCountInString(args.question) > maxQuestion:
		return args, fmt.Errorf("question: is %d characters long; the limit is %d; shorten it and put the details in resolves", utf8.RuneCountInString(args.question), maxQuestion)
	case utf8.RuneCountInString(args.resolves) > maxResolves:
		return args, fmt.Errorf("resolves: is %d characters long; the limit is %d; state the yes condition and its source briefly", utf8.RuneCountInString(args.resolves), maxResolves)
	case utf8.RuneCountInString(args.who) > maxWho:
		return args, fmt.Errorf("who: is %d characters long; the limit is %d; send a short name such as agent:scout", utf8.RuneCountInString(args.who), maxWho)
	}
	if args.resolveBy != "" {
		if _, err := time.Parse(time.DateOnly, args.resolveBy); err != nil {
			return args, fmt.Errorf("resolve_by: %q is not a date; send it as YYYY-MM-DD, for example 2026-06-30", args.resolveBy)
		}
	}
	return args, nil
}

// promptText writes the instructions of the prompt. The placeholders
// <base rate>, <probability> and <reason> are left for the agent to fill.
func (a *adapter) promptText(args promptArgs) string {
	today := a.now().UTC().Format(time.DateOnly)
	resolves, resolvesLine := args.resolves, args.resolves
	if resolves == "" {
		resolves = "(not given: write down the exact yes condition and the source that will settle it before you forecast)"
		resolvesLine = "<yes condition and the source of the result>"
	}
	resolveBy, resolveByLine := args.resolveBy, args.resolveBy
	if resolveBy == "" {
		resolveBy = "(not given: agree a date with the person, YYYY-MM-DD)"
		resolveByLine = "YYYY-MM-DD"
	}
	who := args.who
	if who == "" {
		who = "agent:<your-name>"
	}

	var b strings.Builder
	p := func(format string, v ...any) { fmt.Fprintf(&b, format, v...) }
	p("Forecast this yes/no question for the person:\n\n  %s\n\n", args.question)
	p("Resolves yes if: %s\nResolve by: %s\n\n", resolves, resolveBy)
	p("Work in this order, and show your numbers:\n\n")
	p("1. Pin the question down so that anyone could settle it: the yes condition, the source of the result and the date. If it is vague, ask the person before forecasting.\n")
	p("2. Start from a base rate. Name a reference class (similar past cases), say how often they resolved yes, and write it down as the base rate in percent. " +
		"If a source gives odds rather than a probability, read them with convert_odds (or implied_probabilities for a whole market, which removes the bookmaker's margin).\n")
	p("3. Update on the specifics one piece of evidence at a time with bayes_update: prior = the base rate; for each piece, a likelihood ratio lr " +
		"(how many times more likely the evidence is if the answer is yes than if it is no) or the pair p_if_yes and p_if_no. Without strong evidence, stay near the base rate.\n")
	p("4. If several agents or people forecast the question, let each forecast before reading the others, then pool the forecasts with combine_forecasts and look at the spread.\n")
	p("5. Give one probability strictly between 0%% and 100%% (never 0%% or 100%%) and one line on why: the base rate and the main adjustments.\n")
	p("6. Record it in the forecast file in this format (one first-level heading per question; keep earlier forecasts, add a new dated line for each update), " +
		"then check the whole file with check_forecast_md and fix every finding:\n\n")
	p("```markdown\n---\npredictions: 1\nupdated: %s\n---\n\n", today)
	p("# %s\n\n", args.question)
	p("- id: %s\n- resolves: %s\n- resolve_by: %s\n- status: open\n- base_rate: <base rate>%%\n\n", slug(args.question), resolvesLine, resolveByLine)
	p("## Forecasts\n\n- %s · %s · <probability>%% · <reason>\n```\n\n", today, who)
	p("7. When the question resolves, set status: resolved and outcome: yes or no (or status: void with a Notes section saying why), " +
		"and score the forecasts with score_forecasts.\n\n")
	p("The forecast is information only: do not use it to place bets or trades or to decide anything for the person, "+
		"and do not present it as advice or as certain. %s\n\n", tools.Disclaimer)
	p("The person's settings are in the skill file (resource %s; catalog of settings: %s). %s\n",
		SkillURI(a.base), SettingsURI(a.base), tools.DraftedSettingsRule)
	return b.String()
}

// slug makes a question id from its first words: lower-case letters and
// digits joined by hyphens, at most 40 characters.
func slug(q string) string {
	var words []string
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if n+len(w) > 40 {
			break
		}
		words = append(words, w)
		n += len(w) + 1
	}
	if len(words) == 0 {
		return "q1"
	}
	return strings.Join(words, "-")
}
