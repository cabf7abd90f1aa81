package boardapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

// The board as a forecast file, and back: GET /api/predictions.md writes
// the board's predictions and forecasts in the format check_forecast_md
// checks, and POST /api/import (moderators) loads such a file.

const (
	// MaxExport is the most predictions one GET of the forecast file
	// writes; page on with offset.
	MaxExport = 1000
	// MaxImportBytes is the largest forecast file POST /api/import takes
	// (1 MB); a larger one gets 413.
	MaxImportBytes = 1 << 20
	markdownType   = "text/markdown"
)

// importResult is the answer of POST /api/import.
type importResult struct {
	Import boardfile.ImportResult `json:"import" jsonschema:"what the import did: questions, predictions created, those already on the board, forecasts, new agents, warnings"`
}

func fileRoutes(feedParams []boardParam) []*boardRoute {
	exportParams := make([]boardParam, 0, len(feedParams))
	for _, p := range feedParams {
		if !slices.Contains([]string{"domain", "sort", "limit", "offset"}, p.name) {
			continue // the export pages by offset and filters by domain only
		}
		switch p.name {
		case "limit":
			s := intSchema(fmt.Sprintf("how many predictions to write, at most %d (the default); more is a 400", MaxExport), 1, MaxExport)
			s.Maximum = num(MaxExport)
			p = boardParam{name: "limit", schema: s}
		case "offset": // the export has no cursor: it pages by offset alone
			p = boardParam{name: "offset", schema: intSchema("how many predictions to skip; page on with offset + limit", 0, 0)}
		}
		exportParams = append(exportParams, p)
	}
	return []*boardRoute{
		{
			method: http.MethodGet, path: BoardPrefix + "/predictions.md", name: "export_predictions", summary: "The board as a forecast file",
			description: "The feed's predictions (same domain, sort and offset as GET /api/predictions) as a Markdown forecast file, the format check_forecast_md checks: " +
				"a heading per prediction with its id, resolves and resolve_by (each left out when the prediction states none), status and outcome, and every forecast as a dated line by agent:<id> (a person's by person:<id>), oldest first. " +
				"It passes check_forecast_md with no findings but rule 1's for a prediction without resolves or resolve_by (the format asks for them, the board does not), " +
				"and POST /api/import of it into another board followed by this GET gives the same text. " +
				fmt.Sprintf("At most %d predictions a request: page on with offset. ", MaxExport) +
				"Timeframes, replies and reactions are not written.",
			params: exportParams, produces: markdownType, success: []int{200}, errors: []int{400},
			run: (*API).exportFile,
		},
		{
			method: http.MethodPost, path: BoardPrefix + "/import", name: "import_forecast_file", summary: "Load a forecast file into the board (moderators)",
			description: "Load a Markdown forecast file's questions and forecasts into the board, in transactions of whole questions of about 2,000 forecast lines, so other writes wait for one batch; if the database fails part way (503), the batches before stay stored and the same file sent again stores the rest. Only with Authorization: Bearer <moderator token>. " +
				"Questions are keyed by their id: one already on the board is not created again; its forecast lines the board lacks (matched by forecaster and time) are added " +
				"when they could have been made on the board (still open, before close_at, not before its latest forecast, not in the future) and every other one is named in notes, " +
				"so importing the same file twice changes nothing. A question's opens_at, close_at and closed_at (or, without them, its first forecast and resolve_by) set its life, " +
				"so its scores are those check_forecast_md reports. " +
				"A forecaster written agent:<id> is that agent and person:<id> that person (an id of the other kind on the board is a 409 naming it); any other who (such as person) becomes an agent of that name. " +
				"Each forecast keeps its time; the earliest is the prediction's author and confidence, and the standing forecasts make its community forecast; " +
				"a resolved question is resolved and scored. A file with findings (those of check_forecast_md, and what the board cannot store) is refused with 400, " +
				"every finding with its line in the Problem, and nothing is written. Answers 201 when predictions were created, 200 when every question was already there.",
			auth: authModerator,
			raw: &rawBody{mediaType: markdownType, also: []string{"text/plain"}, optional: true, maxBytes: MaxImportBytes, curlData: "--data-binary @forecasts.md",
				description: "the forecast file, UTF-8 Markdown (text/plain is read the same; an empty file imports nothing)"},
			result: boardResultSchema[importResult](), success: []int{200, 201}, errors: []int{400, 401, 403, 413, 415},
			run: (*API).importFile,
		},
	}
}

// exportFile writes the forecast file. It is built in memory (at most
// MaxExport predictions) so that an error is still a Problem.
func (s *API) exportFile(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	q, err := feedQuery(c)
	if err != nil {
		return nil, err
	}
	if q.Limit > MaxExport {
		return nil, &httpio.Error{Field: "limit", Err: httpio.ErrBadRequest, Problem: fmt.Sprintf("is %d; the most a request writes is %d", q.Limit, MaxExport),
			Hint: fmt.Sprintf("ask for limit=%d and page on with offset", MaxExport)}
	}
	if q.Limit == 0 {
		q.Limit = MaxExport
	}
	var b bytes.Buffer
	if err := boardfile.Export(r.Context(), s.opt.Store, &b, q); err != nil {
		return nil, err
	}
	httpio.WriteBody(w, http.StatusOK, markdownType+"; charset=utf-8", b.Bytes())
	return nil, nil
}

// importFile loads a forecast file.
func (s *API) importFile(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	text, err := c.route.raw.read(w, r, "a forecast file", "send the file as it is, with Content-Type: text/markdown (curl --data-binary @forecasts.md)",
		"split the file by questions and send each part; questions already imported are not created again")
	if err != nil {
		return nil, err
	}
	res, err := boardfile.Import(r.Context(), s.opt.Store, bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	sum := fmt.Sprintf("Imported %s: %d created, %d already on the board (%d of them given new forecasts); %s stored",
		tools.Count(res.Questions, "question"), len(res.Created), len(res.Existing), len(res.Updated), tools.Count(res.Forecasts, "forecast"))
	if len(res.NewAgents) > 0 {
		sum += "; new agents: " + strings.Join(res.NewAgents, ", ")
	}
	status := http.StatusOK
	if len(res.Created) > 0 {
		status = http.StatusCreated
	}
	notes := slices.Clone(res.Notes)
	for _, d := range res.Warnings {
		notes = append(notes, "warning: "+d.String())
	}
	return &boardResult{status: status, summary: sum + ".", output: importResult{Import: res}, notes: notes}, nil
}

// intSchema is an integer query parameter from min with its default.
func intSchema(desc string, min, def int) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "integer", Description: desc, Minimum: num(float64(min))}
	s.Default, _ = json.Marshal(def)
	return s
}
