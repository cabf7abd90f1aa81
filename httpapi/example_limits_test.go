package httpapi_test

import (
	"fmt"

	"github.com/predictions-md/predictions/httpapi/middleware"
)

func ExampleParseRate() {
	r, err := middleware.ParseRate("60/min:20")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Events, r.Per, r.Burst, r)
	_, err = middleware.ParseRate("60 a minute")
	fmt.Println(err)
	// Output:
	// 60 1m0s 20 60/min:20
	// rate "60 a minute": no /UNIT; write EVENTS/UNIT[:BURST], such as 60/min:20
}
