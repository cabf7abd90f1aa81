package httpapi_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"

	"github.com/predictions-md/predictions/httpapi"
)

func Example() {
	srv := httpapi.New(httpapi.Options{
		BaseURL: "https://predictions.example",
		Logger:  slog.New(slog.DiscardHandler),
	})
	body := `{"forecasts":[{"who":"agent:scout","p":0.62},{"who":"person","p":"35%"}]}`
	req := httptest.NewRequest("POST", "/api/v1/combine_forecasts", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)

	var res struct {
		Tool  string `json:"tool"`
		N     int    `json:"n"`
		Terms string `json:"terms"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &res)
	fmt.Println(rec.Code, res.Tool, res.N, res.Terms)
	// Output: 200 combine_forecasts 2 https://predictions.example/terms
}

func Example_problem() {
	srv := httpapi.New(httpapi.Options{BaseURL: "https://predictions.example", Logger: slog.New(slog.DiscardHandler)})
	req := httptest.NewRequest("POST", "/api/v1/combine_forecasts", strings.NewReader(`{"forecasts":[]}`))
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)

	var p httpapi.Problem
	_ = json.Unmarshal(rec.Body.Bytes(), &p)
	fmt.Println(rec.Code)
	fmt.Println(p.Error)
	fmt.Println(p.Docs)
	// Output:
	// 400
	// forecasts: has 0 item(s); it needs at least 1
	// https://predictions.example/llms-full.txt#combine_forecasts
}
