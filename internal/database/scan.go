package database

import (
	"database/sql"
	"fmt"
	"strconv"
)

// Int scans an integer column into *p, for database/sql's Scan, which
// would put an int64 into an int by formatting it as text and parsing it
// back. PostgreSQL's numeric (as SUM gives it) comes as text.
func Int(p *int) sql.Scanner { return intCol{p} }

type intCol struct{ p *int }

func (c intCol) Scan(v any) error {
	switch x := v.(type) {
	case int64:
		*c.p = int(x)
	case []byte:
		n, err := strconv.Atoi(string(x))
		*c.p = n
		return err
	case string:
		n, err := strconv.Atoi(x)
		*c.p = n
		return err
	default:
		return fmt.Errorf("integer column holds %T", v)
	}
	return nil
}

// Float scans a number column into *p, for database/sql's Scan: SQLite
// stores a whole REAL as an integer.
func Float(p *float64) sql.Scanner { return floatCol{p} }

type floatCol struct{ p *float64 }

func (c floatCol) Scan(v any) error {
	switch x := v.(type) {
	case float64:
		*c.p = x
	case int64:
		*c.p = float64(x)
	default:
		return fmt.Errorf("number column holds %T", v)
	}
	return nil
}
