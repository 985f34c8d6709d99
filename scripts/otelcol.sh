#!/usr/bin/env bash
# Builds the OpenTelemetry Collector that make otel-check ships a log file with (filelog receiver,
# batch processor, kafka exporter; tests/otel/collector) from the Go module proxy into
# .local/otelcol/otelcol, and prints that path. The module versions are pinned in that directory's
# go.mod and go.sum (the Collector's own release set: core v0.165.0 / v1.71.0, contrib v0.165.1).
# Go's module and build caches stay where Go keeps them (outside the tree): a rebuild is seconds.
source "$(dirname "$0")/lib.sh"

SOURCE="$ROOT/tests/otel/collector"
BINARY="$LOCAL/otelcol/otelcol"
command -v go >/dev/null || die "no Go toolchain: install Go 1.26 or newer (Debian: golang from backports, or go.dev's tarball)"
if stale "$BINARY" "$SOURCE"; then
  log "building the OpenTelemetry Collector (filelog, batch, kafka) from $SOURCE: several minutes the first time"
  mkdir -p "$(dirname "$BINARY")"
  (cd "$SOURCE" && GOFLAGS=-mod=readonly go build -trimpath -o "$BINARY" .) \
    || die "go build of the Collector failed (above); the modules come from the Go module proxy (GOPROXY)"
fi
echo "$BINARY"
