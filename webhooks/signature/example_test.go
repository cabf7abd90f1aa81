package signature_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/predictions-md/predictions/webhooks/signature"
)

func Example() {
	// The endpoint's secret, shown once to its owner.
	sec, err := signature.ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		panic(err)
	}
	body := []byte(`{"test": 2432232314}`)
	sent := time.Unix(1614265330, 0)

	// The sender signs the delivery.
	h := http.Header{}
	if err := signature.SetHeaders(h, "msg_p5jXN8AQM9LWM0D4loKWxJek", sent, body, sec); err != nil {
		panic(err)
	}
	fmt.Println(h.Get("webhook-signature"))

	// The receiver verifies it on arrival, and refuses a replay ten
	// minutes later.
	fmt.Println(signature.Verify(sec, h, body, sent.Add(2*time.Second)))
	fmt.Println(signature.Verify(sec, h, body, sent.Add(10*time.Minute)))
	// Output:
	// v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=
	// <nil>
	// webhook: webhook-timestamp 2021-02-25T15:02:10Z is 10m0s from now; at most 5m0s is accepted (a delivery is verified when it arrives; check the receiver's clock (NTP), and never accept a replayed delivery)
}
