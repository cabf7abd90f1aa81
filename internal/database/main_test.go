package database_test

import (
	"os"
	"testing"

	"github.com/predictions-md/predictions/internal/database/databasetest"
)

// TestMain checks PREDICTIONS_TEST_POSTGRES and the prefix of test
// databases before any test reads them.
func TestMain(m *testing.M) { os.Exit(databasetest.Run(m)) }
