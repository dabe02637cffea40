#!/bin/sh
# Regenerates the README's screenshots (docs/screenshots/*.png, 940×660):
# each game with its hints, the lab page and the start page, taken in
# headless Chromium by crates/web/e2e/screenshots.mjs with the same set-up
# as the end-to-end test (crates/web/e2e/run.sh): Chromium from apt-get
# (only if missing), playwright-core from npm ci, the release binary
# (or ENDGAME_BIN).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
e2e="$root/crates/web/e2e"
if [ ! -x /usr/bin/chromium ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
fi
cd "$e2e"
if [ ! -d node_modules/playwright-core ]; then
  npm ci --no-audit --no-fund
fi
if [ -z "${ENDGAME_BIN:-}" ]; then
  target=${CARGO_TARGET_DIR:-$root/target}
  (cd "$root" && cargo build --release -p endgame)
  ENDGAME_BIN="$target/release/endgame"
fi
ENDGAME_BIN="$ENDGAME_BIN" SCREENSHOT_DIR="$root/docs/screenshots" node screenshots.mjs
