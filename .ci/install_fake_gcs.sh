#!/usr/bin/env bash
# Installs fake-gcs-server (the GCS emulator the integration tests run) with
# `go install`, into a cache outside the repository, and prints the binary's
# path. A second run reuses the binary; changing FAKE_GCS_VERSION rebuilds.
#
# Version: the upstream commit d177f7df97ca4c708289f89f1d4c7ae21c83a1ab is not
# served by the Go module proxy, so a tagged release is used. It honours
# ifGenerationMatch on multipart uploads, which is the upload path the GCS
# store uses (`resumable: false`); integration/gcs_contract_test.ts checks it.
#
# Env:
#   SLUICE_CACHE       cache root (default: $HOME/.cache/sluice)
#   FAKE_GCS_VERSION   module version to install (default below)
set -euo pipefail

FAKE_GCS_MODULE="github.com/fsouza/fake-gcs-server"
FAKE_GCS_VERSION="${FAKE_GCS_VERSION:-v1.56.1}"
CACHE_ROOT="${SLUICE_CACHE:-$HOME/.cache/sluice}"
BIN_DIR="$CACHE_ROOT/bin"
BIN="$BIN_DIR/fake-gcs-server"
STAMP="$BIN_DIR/fake-gcs-server.version"

mkdir -p "$BIN_DIR"
if [[ -x "$BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$FAKE_GCS_VERSION" ]]; then
  echo "fake-gcs-server $FAKE_GCS_VERSION already installed at $BIN" >&2
  echo "$BIN"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "go is not on PATH: install Go to build fake-gcs-server $FAKE_GCS_VERSION" >&2
  exit 1
fi

echo "building fake-gcs-server $FAKE_GCS_VERSION (this takes a few minutes)..." >&2
tmp_bin="$(mktemp -d "$BIN_DIR/.build.XXXXXX")"
trap 'rm -rf "$tmp_bin"' EXIT
GOBIN="$tmp_bin" GOFLAGS="${GOFLAGS:-} -trimpath" \
  go install "$FAKE_GCS_MODULE@$FAKE_GCS_VERSION"
mv -f "$tmp_bin/fake-gcs-server" "$BIN"
echo "$FAKE_GCS_VERSION" >"$STAMP"
echo "installed fake-gcs-server $FAKE_GCS_VERSION at $BIN" >&2
echo "$BIN"
