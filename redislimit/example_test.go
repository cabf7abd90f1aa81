package redislimit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/predictions-md/predictions/redislimit"
)

// Two replicas of a server, each with its own Limiter on one Redis, share
// one budget: 2 writes a minute, in bursts of 2. (Not run: it needs Redis.)
func ExampleLimiter_Take() {
	ctx := context.Background()
	replica1, _ := redislimit.Open("redis://127.0.0.1:6379/0", redislimit.Options{Prefix: "example:"})
	replica2, _ := redislimit.Open("redis://127.0.0.1:6379/0", redislimit.Options{Prefix: "example:"})
	defer replica1.Close()
	defer replica2.Close()
	for _, l := range []*redislimit.Limiter{replica1, replica2, replica1} {
		delay, err := l.Take(ctx, "agent:forecaster-7", 2, time.Minute, 2)
		if err != nil {
			fmt.Println("Redis does not answer: use local limits;", err)
			return
		}
		fmt.Println("wait", delay.Round(time.Second))
	}
}
