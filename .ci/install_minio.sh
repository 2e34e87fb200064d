#!/usr/bin/env bash
# Builds the MinIO server used by the integration tests from source with `go install`
# and caches it outside the repository, so a second run on the same machine skips the build.
#
#   bash .ci/install_minio.sh        # prints the path of the binary on the last line
#
# Cache: ${SLUICE_SERVER_CACHE:-$HOME/.cache/sluice}/bin/minio, stamped with the module version
# in bin/minio.version; a change of MINIO_VERSION below rebuilds.
#
# Version: the release tag RELEASE.2025-10-15T17-29-55Z is not served by the Go module
# proxy (minio has no semver tags), so we pin the pseudo-version of a later commit that
# the proxy does serve. Builds from October 2025 on refuse If-Match on a missing key.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MINIO_VERSION="${SLUICE_MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"

CGO_ENABLED=0 install_go_binary minio github.com/minio/minio "$MINIO_VERSION" \
  "install Go 1.24 or later and rerun"
