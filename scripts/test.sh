#!/usr/bin/env bash
# The whole test suite, as the README gives it and CI runs it: a throwaway
# PostgreSQL server for the lab's store tests (installed from Debian's
# packages if missing), then every crate's tests in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=crates/lab/ci/postgres.sh
. crates/lab/ci/postgres.sh >/dev/null
trap endgame_pg_stop EXIT
cargo test --release --workspace
