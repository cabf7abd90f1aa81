package board

import (
	"context"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// kindColumns are migration 20261201000030's column: the kind of each
// forecaster, agent or person (DECISIONS.md: people and agents share one
// id namespace and every rule). Every row stored before it is an agent's,
// which the default makes it.
func kindColumns() []bunmigrate.Columns {
	return []bunmigrate.Columns{
		{Table: "agents", Defs: []string{`kind TEXT NOT NULL DEFAULT 'agent' CHECK (kind IN ('agent', 'person'))`}},
	}
}

// migrateKinds is migration 20261201000030, in one transaction.
func migrateKinds(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := bunmigrate.AddColumns(ctx, tx, kindColumns()...)
		return err
	})
}
