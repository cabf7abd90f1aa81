// Command compose-check loads a compose file as docker compose does, with
// compose-go, the Compose Specification's reference loader: it parses the
// YAML, validates it against the specification's schema, interpolates
// ${VARIABLES} from the environment (a required one that is unset is an
// error), normalizes it and checks that the names of services, volumes and
// depends_on agree. It prints the loaded project as JSON, for .ci/run's
// checks of what deploy/compose.yaml must hold.
//
// Usage: go run . COMPOSE_FILE > project.json
//
// compose-go's own command (its cmd package) loads the raw model without
// the environment, so a required variable always fails there; this one
// loads the project as docker compose config does.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check COMPOSE_FILE")
		os.Exit(2)
	}
	opts, err := cli.NewProjectOptions([]string{os.Args[1]},
		cli.WithOsEnv,
		cli.WithInterpolation(true),
		cli.WithResolvedPaths(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
	)
	if err != nil {
		fail(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	b, err := p.MarshalJSON()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(append(b, '\n'))
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "compose-check: %s: %v\n", os.Args[1], err)
	os.Exit(1)
}
