# Helpers for the .ci/install_*.sh scripts, which source this file: the cache
# folder outside the repository, reuse of a cached install stamped with its
# version, tool checks, and Go builds that never leave half a binary behind.
# Each install script stays runnable on its own and prints the installed
# binary's path on its last line (.ci/run reads it with `tail -n 1`).

# Cache root and its bin folder: $SLUICE_SERVER_CACHE, else $HOME/.cache/sluice.
SLUICE_CACHE_ROOT="${SLUICE_SERVER_CACHE:-$HOME/.cache/sluice}"
SLUICE_BIN_DIR="$SLUICE_CACHE_ROOT/bin"

# reuse_cached NAME VERSION BIN STAMP
# When BIN is executable and STAMP holds VERSION: says so on stderr, prints BIN
# and ends the calling script with status 0. Otherwise returns.
reuse_cached() {
  local name="$1" version="$2" bin="$3" stamp="$4"
  if [[ -x "$bin" && -f "$stamp" && "$(cat "$stamp")" == "$version" ]]; then
    echo "$name $version already installed at $bin" >&2
    echo "$bin"
    exit 0
  fi
}

# require_tools WHO HINT TOOL...
# Ends the calling script with status 1, naming WHO, the missing TOOL and HINT
# (what to install) on stderr, when a TOOL is not on PATH.
require_tools() {
  local who="$1" hint="$2" tool
  shift 2
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "$who: $tool is not on PATH; $hint" >&2
      exit 1
    fi
  done
}

# mark_installed NAME VERSION BIN STAMP
# Records VERSION in STAMP, says so on stderr and prints BIN.
mark_installed() {
  local name="$1" version="$2" bin="$3" stamp="$4"
  echo "$version" >"$stamp"
  echo "installed $name $version at $bin" >&2
  echo "$bin"
}

# install_go_binary NAME MODULE VERSION HINT
# Installs the Go command NAME from MODULE@VERSION as $SLUICE_BIN_DIR/NAME,
# stamped with VERSION in $SLUICE_BIN_DIR/NAME.version, and prints its path;
# reuses the cached binary when the stamp matches. HINT says how to get Go
# when it is missing. The build (`go install -trimpath`, with the caller's
# environment, e.g. CGO_ENABLED) runs in a temporary folder and its binary is
# moved in place only when it succeeded, so a failed or interrupted build
# leaves any previous binary and stamp alone.
install_go_binary() {
  local name="$1" module="$2" version="$3" hint="$4"
  local bin="$SLUICE_BIN_DIR/$name" stamp="$SLUICE_BIN_DIR/$name.version" tmp start
  mkdir -p "$SLUICE_BIN_DIR"
  reuse_cached "$name" "$version" "$bin" "$stamp"
  require_tools "install $name" "$hint" go
  echo "building $name $version (this takes a few minutes)..." >&2
  start=$SECONDS
  tmp="$(mktemp -d "$SLUICE_BIN_DIR/.build.XXXXXX")"
  # Expanded now: the temporary folder goes when the script ends, however it ends.
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" EXIT
  if ! GOBIN="$tmp" go install -trimpath "$module@$version"; then
    echo "building $name $version failed; nothing was installed" >&2
    exit 1
  fi
  mv -f "$tmp/$name" "$bin"
  echo "built $name in $((SECONDS - start)) s" >&2
  mark_installed "$name" "$version" "$bin" "$stamp"
}
