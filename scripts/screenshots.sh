#!/bin/sh
# Regenerates the README's screenshots (docs/screenshots/*.png, 940×660):
# each game with its hints, the lab page and the start page, taken in
# headless Chromium by crates/web/e2e/screenshots.mjs with the end-to-end
# test's own set-up (crates/web/e2e/run.sh: Chromium from apt-get only if
# missing, playwright-core from npm ci, the release binary or ENDGAME_BIN).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
SCREENSHOT_DIR="$root/docs/screenshots" exec sh "$root/crates/web/e2e/run.sh" screenshots.mjs
