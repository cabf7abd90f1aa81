package loadbench_test

import (
	"fmt"
	"unicode/utf8"

	"github.com/predictions-md/predictions/internal/loadbench"
)

// The bare handler's body is a JSON object of exactly the size asked for.
func ExampleBareBody() {
	b := loadbench.BareBody(24)
	fmt.Println(string(b), len(b))
	// Output: {"pad":"xxxxxxxxxxxxxx"} 24
}

// The check scenario sends a realistic forecast file just under the
// tool's limit of 60,000 characters.
func ExampleForecastFile() {
	f := loadbench.ForecastFile(loadbench.MaxForecastChars)
	n := utf8.RuneCountInString(f)
	fmt.Println(n <= loadbench.MaxForecastChars, n > loadbench.MaxForecastChars-2000)
	// Output: true true
}
