#!/usr/bin/env bash
# Builds Prometheus's promtool, which make rules-check runs on tests/prometheus/rules_test.yml, from
# the Go module proxy into .local/promtool/, and prints its path. The release is the one the compose
# file runs (.env's PROMETHEUS_VERSION, v3.M.P: Go module github.com/prometheus/prometheus
# v0.3MM.P), its dependencies pinned in tests/prometheus/promtool's go.mod and go.sum (built from
# there: Prometheus's go.mod has a replace directive, which `go install pkg@version` refuses).
# Go's module and build caches stay where Go keeps them (outside the tree): a rebuild is seconds.
source "$(dirname "$0")/lib.sh"

SOURCE="$ROOT/tests/prometheus/promtool"
version=$(sed -n 's/^PROMETHEUS_VERSION=//p' "$ROOT/.env")
[[ $version =~ ^v3\.([0-9]+)\.([0-9]+)$ ]] \
  || die "PROMETHEUS_VERSION in .env is '$version', not a v3.M.P release: set it to the Prometheus the compose file runs"
module="v0.3$(printf %02d "${BASH_REMATCH[1]}").${BASH_REMATCH[2]}"
grep -q "^require github.com/prometheus/prometheus $module\$" "$SOURCE/go.mod" \
  || die "$SOURCE/go.mod does not require github.com/prometheus/prometheus $module (PROMETHEUS_VERSION=$version in .env): set the require line to it and run 'go mod tidy' there"
command -v go >/dev/null || die "no Go toolchain: install Go 1.26 or newer (Debian: golang from backports, or go.dev's tarball)"
BINARY="$LOCAL/promtool/promtool-$version"
if stale "$BINARY" "$SOURCE"; then
  log "building promtool $version (github.com/prometheus/prometheus $module) from $SOURCE: ~10 minutes the first time"
  mkdir -p "$(dirname "$BINARY")"
  (cd "$SOURCE" && GOFLAGS=-mod=readonly go build -trimpath -o "$BINARY" github.com/prometheus/prometheus/cmd/promtool) \
    || die "go build of promtool failed (above); the modules come from the Go module proxy (GOPROXY)"
fi
echo "$BINARY"
