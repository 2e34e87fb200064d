#!/usr/bin/env bash
# Installs s3rver (an S3 fake that silently ignores conditional headers) for the
# integration tests, into a cache folder outside the repository:
#   ${SLUICE_CACHE:-$HOME/.cache/sluice}/s3rver   (package)
#   ${SLUICE_CACHE:-$HOME/.cache/sluice}/bin/s3rver  (launcher, printed on the last line)
# A second run with the same version does nothing.
set -euo pipefail

S3RVER_VERSION="${SLUICE_S3RVER_VERSION:-3.7.1}"
CACHE="${SLUICE_CACHE:-$HOME/.cache/sluice}"
PKG_DIR="$CACHE/s3rver"
BIN_DIR="$CACHE/bin"
STAMP="$PKG_DIR/version"
LAUNCHER="$BIN_DIR/s3rver"

mkdir -p "$BIN_DIR" "$PKG_DIR"
if [[ -x "$LAUNCHER" && -f "$STAMP" && "$(cat "$STAMP")" == "$S3RVER_VERSION" ]]; then
  echo "s3rver $S3RVER_VERSION already installed" >&2
  echo "$LAUNCHER"
  exit 0
fi

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install_s3rver: $tool is not on PATH; install Node.js 18 or later and rerun" >&2
    exit 1
  fi
done

rm -f "$STAMP"
npm install --prefix "$PKG_DIR" --no-audit --no-fund --loglevel=error "s3rver@$S3RVER_VERSION" >&2
cat >"$LAUNCHER" <<LAUNCH
#!/usr/bin/env bash
exec node "$PKG_DIR/node_modules/s3rver/bin/s3rver.js" "\$@"
LAUNCH
chmod +x "$LAUNCHER"
echo "$S3RVER_VERSION" >"$STAMP"
echo "$LAUNCHER"
