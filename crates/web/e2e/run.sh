#!/bin/sh
# End-to-end test of the web workbench: installs Chromium (apt-get, only if
# missing) and playwright-core (npm ci), builds the endgame binary, runs
# e2e.mjs (or the script named as the first argument, e.g.
# screenshots.mjs). Screenshots land in crates/web/e2e/output/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
if [ ! -x /usr/bin/chromium ]; then
  # Through sudo when not root, as crates/lab/ci/postgres.sh does.
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
fi
cd "$here"
if [ ! -d node_modules/playwright-core ]; then
  npm ci --no-audit --no-fund
fi
# A caller that has just built the binary (scripts/test.sh, after cargo
# test) passes it in ENDGAME_BIN and saves a second build.
if [ -z "${ENDGAME_BIN:-}" ]; then
  target=${CARGO_TARGET_DIR:-$root/target}
  (cd "$root" && cargo build --release -p endgame)
  ENDGAME_BIN="$target/release/endgame"
fi
ENDGAME_BIN="$ENDGAME_BIN" node "${1:-e2e.mjs}"
