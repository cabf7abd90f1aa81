package web_test

import (
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/predictions-md/predictions/web"
)

// The pages work without a board: the tools and the settings builder.
func Example() {
	srv := httptest.NewServer(web.New(web.Options{}))
	defer srv.Close()

	resp, err := srv.Client().Get(srv.URL + "/tools")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.Status)
	fmt.Println(resp.Header.Get("Content-Type"))
	// Output:
	// 200 OK
	// text/html; charset=utf-8
}
