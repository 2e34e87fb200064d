#!/usr/bin/env bash
# Builds the MinIO server used by the integration tests from source with `go install`
# and caches it outside the repository, so a second run on the same machine skips the build.
#
#   bash .ci/install_minio.sh        # prints the path of the binary on the last line
#
# Cache: ${SLUICE_CACHE:-$HOME/.cache/sluice}/bin/minio, stamped with the module version
# in bin/minio.version; a change of MINIO_VERSION below rebuilds.
#
# Version: the release tag RELEASE.2025-10-15T17-29-55Z is not served by the Go module
# proxy (minio has no semver tags), so we pin the pseudo-version of a later commit that
# the proxy does serve. Builds from October 2025 on refuse If-Match on a missing key.
set -euo pipefail

MINIO_MODULE="github.com/minio/minio"
MINIO_VERSION="${SLUICE_MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"
CACHE="${SLUICE_CACHE:-$HOME/.cache/sluice}"
BIN_DIR="$CACHE/bin"
STAMP="$BIN_DIR/minio.version"

mkdir -p "$BIN_DIR"
if [[ -x "$BIN_DIR/minio" && -f "$STAMP" && "$(cat "$STAMP")" == "$MINIO_VERSION" ]]; then
  echo "minio $MINIO_VERSION already built" >&2
  echo "$BIN_DIR/minio"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install_minio: the go toolchain is not on PATH; install Go 1.24 or later and rerun" >&2
  exit 1
fi

echo "building minio $MINIO_VERSION (this takes several minutes)..." >&2
start=$(date +%s)
rm -f "$STAMP"
GOBIN="$BIN_DIR" CGO_ENABLED=0 go install -trimpath "$MINIO_MODULE@$MINIO_VERSION"
echo "$MINIO_VERSION" >"$STAMP"
echo "built minio in $(($(date +%s) - start)) s" >&2
echo "$BIN_DIR/minio"
