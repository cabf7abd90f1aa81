package board

import (
	"context"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// tagsColumns are the columns of migration 20261122000001: reply counters
// per kind on predictions (the feed reads them, never counting rows) and
// the debate of each reply, so that a thread groups by debate without a
// recursive walk.
func tagsColumns() []bunmigrate.Columns {
	const counter = " BIGINT NOT NULL DEFAULT 0"
	return []bunmigrate.Columns{
		{Table: "predictions", Defs: []string{"replies_plain" + counter, "replies_agree" + counter,
			"replies_disagree" + counter, "replies_challenge" + counter, "replies_debate" + counter}},
		{Table: "replies", Defs: []string{"debate_id TEXT"}}, // a reply id; kept right by Reply, not by a foreign key
	}
}

// migrateTags is migration 20261122000001 (coordination tags), in one
// transaction. Every reply stored before it is plain, so replies_plain
// starts as replies. The migration also made the e-mail columns of agents
// and the e-mail outbox, which packages mailbox and outbox now make or
// take over in their own first migrations.
func migrateTags(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		added, err := bunmigrate.AddColumns(ctx, tx, tagsColumns()...)
		if err != nil || !added["predictions.replies_plain"] {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE predictions SET replies_plain = replies`)
		return err
	})
}
