package boardapi

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/prometheus/client_golang/prometheus"
)

// Optional interfaces of the board, checked by type assertion: a board
// without them simply has no such series.
type (
	poolStatser interface{ PoolStats() board.PoolStats }
	dialecter   interface{ Dialect() string }
)

// Backlogger reports the deliveries waiting in an outbox.
type Backlogger interface {
	Backlog(ctx context.Context) (int, error)
}

// collectTimeout bounds the database query of a scrape.
const collectTimeout = 2 * time.Second

var (
	dbLabels   = []string{"pool"}
	dbMaxOpen  = prometheus.NewDesc("predictions_db_max_open_connections", "Maximum number of open connections of the pool.", dbLabels, nil)
	dbOpen     = prometheus.NewDesc("predictions_db_open_connections", "Connections of the pool, in use and idle.", dbLabels, nil)
	dbInUse    = prometheus.NewDesc("predictions_db_in_use_connections", "Connections of the pool in use.", dbLabels, nil)
	dbIdle     = prometheus.NewDesc("predictions_db_idle_connections", "Idle connections of the pool.", dbLabels, nil)
	dbWaits    = prometheus.NewDesc("predictions_db_wait_count_total", "Times a query waited for a free connection.", dbLabels, nil)
	dbWaitTime = prometheus.NewDesc("predictions_db_wait_duration_seconds_total", "Time spent waiting for a free connection.", dbLabels, nil)
	outboxDesc = prometheus.NewDesc("predictions_outbox_backlog", "Messages in the outbox not yet delivered.", nil, nil)
)

// boardCollector reads the board's pool statistics and outbox backlog at
// each scrape.
type boardCollector struct {
	board  Board
	outbox Backlogger // nil: no backlog series
	log    *slog.Logger
}

func (c *boardCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{dbMaxOpen, dbOpen, dbInUse, dbIdle, dbWaits, dbWaitTime, outboxDesc} {
		ch <- d
	}
}

func (c *boardCollector) Collect(ch chan<- prometheus.Metric) {
	if ps, ok := c.board.(poolStatser); ok {
		st := ps.PoolStats()
		// On PostgreSQL reads and writes share one pool; on SQLite the
		// writer has its own single connection and readers a pool.
		if d, ok := c.board.(dialecter); ok && d.Dialect() == "postgres" {
			collectPool(ch, "shared", st.Write)
		} else {
			collectPool(ch, "write", st.Write)
			collectPool(ch, "read", st.Read)
		}
	}
	if c.outbox != nil {
		ctx, cancel := context.WithTimeout(context.Background(), collectTimeout)
		defer cancel()
		n, err := c.outbox.Backlog(ctx)
		if err != nil {
			c.log.Warn("metrics: outbox backlog", "error", err.Error())
			return
		}
		ch <- prometheus.MustNewConstMetric(outboxDesc, prometheus.GaugeValue, float64(n))
	}
}

func collectPool(ch chan<- prometheus.Metric, pool string, st sql.DBStats) {
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, pool)
	}
	gauge(dbMaxOpen, float64(st.MaxOpenConnections))
	gauge(dbOpen, float64(st.OpenConnections))
	gauge(dbInUse, float64(st.InUse))
	gauge(dbIdle, float64(st.Idle))
	ch <- prometheus.MustNewConstMetric(dbWaits, prometheus.CounterValue, float64(st.WaitCount), pool)
	ch <- prometheus.MustNewConstMetric(dbWaitTime, prometheus.CounterValue, st.WaitDuration.Seconds(), pool)
}
