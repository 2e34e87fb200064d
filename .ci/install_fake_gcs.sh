#!/usr/bin/env bash
# Installs fake-gcs-server (the GCS emulator the integration tests run) with
# `go install`, into a cache outside the repository, and prints the binary's
# path on the last line. A second run reuses the binary; changing
# FAKE_GCS_VERSION rebuilds.
#
# Version: the upstream commit d177f7df97ca4c708289f89f1d4c7ae21c83a1ab is not
# served by the Go module proxy, so a tagged release is used. It honours
# ifGenerationMatch on multipart uploads, which is the upload path the GCS
# store uses (`resumable: false`); integration/gcs_contract_test.ts checks it.
#
# Env:
#   SLUICE_SERVER_CACHE       cache root (default: $HOME/.cache/sluice)
#   FAKE_GCS_VERSION   module version to install (default below)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FAKE_GCS_VERSION="${FAKE_GCS_VERSION:-v1.56.1}"

install_go_binary fake-gcs-server github.com/fsouza/fake-gcs-server "$FAKE_GCS_VERSION" \
  "install Go 1.26 or later (fake-gcs-server $FAKE_GCS_VERSION declares go 1.26) and rerun"
