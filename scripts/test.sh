#!/usr/bin/env bash
# The whole test suite, as the README gives it and CI runs it: a throwaway
# PostgreSQL server for the lab's store tests (installed from Debian's
# packages if missing), every crate's tests with release optimisation (the
# `ci` profile: no whole-program link), then the web workbench in a real
# headless Chromium (Debian's, installed if missing, driven by
# playwright-core from npm).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=crates/lab/ci/postgres.sh
. crates/lab/ci/postgres.sh >/dev/null
trap endgame_pg_stop EXIT
# A failing test must stop the run, whatever the sourced script did.
set -euo pipefail
cargo test --profile ci --workspace
# cargo test has just built the binary the browser tests need.
ENDGAME_BIN="${CARGO_TARGET_DIR:-$PWD/target}/ci/endgame" sh crates/web/e2e/run.sh
