#!/usr/bin/env bash
# Installs s3rver (an S3 fake that silently ignores conditional headers) for the
# integration tests, into a cache folder outside the repository:
#   ${SLUICE_SERVER_CACHE:-$HOME/.cache/sluice}/s3rver   (package)
#   ${SLUICE_SERVER_CACHE:-$HOME/.cache/sluice}/bin/s3rver  (launcher, printed on the last line)
# A second run with the same version does nothing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

S3RVER_VERSION="${SLUICE_S3RVER_VERSION:-3.7.1}"
PKG_DIR="$SLUICE_CACHE_ROOT/s3rver"
STAMP="$PKG_DIR/version"
LAUNCHER="$SLUICE_BIN_DIR/s3rver"

mkdir -p "$SLUICE_BIN_DIR" "$PKG_DIR"
reuse_cached s3rver "$S3RVER_VERSION" "$LAUNCHER" "$STAMP"
require_tools install_s3rver "install Node.js 18 or later and rerun" node npm

rm -f "$STAMP"
npm install --prefix "$PKG_DIR" --no-audit --no-fund --loglevel=error "s3rver@$S3RVER_VERSION" >&2
cat >"$LAUNCHER" <<LAUNCH
#!/usr/bin/env bash
exec node "$PKG_DIR/node_modules/s3rver/bin/s3rver.js" "\$@"
LAUNCH
chmod +x "$LAUNCHER"
mark_installed s3rver "$S3RVER_VERSION" "$LAUNCHER" "$STAMP"
