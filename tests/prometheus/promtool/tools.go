//go:build tools

// Package promtool pins Prometheus's promtool at the release the compose file runs (.env's
// PROMETHEUS_VERSION): scripts/promtool.sh builds github.com/prometheus/prometheus/cmd/promtool
// from this module, whose go.mod and go.sum fix every dependency's version.
package promtool

import _ "github.com/prometheus/prometheus/cmd/promtool"
