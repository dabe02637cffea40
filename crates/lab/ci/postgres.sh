#!/usr/bin/env bash
# A throwaway PostgreSQL server for the lab's store tests.
#
# Source it (`. crates/lab/ci/postgres.sh`) to get ENDGAME_TEST_POSTGRES
# exported in the current shell, or run it to print the export line.
# It installs the Debian packages `postgresql` and `fonts-dejavu-core` with
# apt-get only if they are missing, initialises a cluster in a temporary
# directory (as the `postgres` user when running as root), starts it on
# 127.0.0.1 on a free port, and creates the database `endgame_test`.
# Stop it with `endgame_pg_stop` (e.g. `trap endgame_pg_stop EXIT`).

_endgame_pg_main() {
    set -e
    local need=()
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
        need+=(postgresql)
    fi
    if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
        need+=(fonts-dejavu-core)
    fi
    if [ ${#need[@]} -gt 0 ]; then
        echo "postgres.sh: installing ${need[*]}" >&2
        local sudo=""
        [ "$(id -u)" -ne 0 ] && sudo="sudo"
        $sudo apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
    fi
    local bin
    bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
    local dir
    dir="$(mktemp -d /tmp/endgame-pg.XXXXXX)"
    local port
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)))"
    local run=()
    local user
    user="$(id -un)"
    if [ "$(id -u)" -eq 0 ]; then
        # initdb refuses to run as root.
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
        chown postgres "$dir"
        run=(runuser -u postgres --)
        user=postgres
    fi
    "${run[@]}" "$bin/initdb" -D "$dir/data" -U "$user" --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        return 1
    }
    "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-h 127.0.0.1 -p $port -k $dir" start >&2 || {
        cat "$dir/server.log" >&2
        return 1
    }
    "${run[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U "$user" endgame_test
    ENDGAME_TEST_POSTGRES="postgres://$user@127.0.0.1:$port/endgame_test"
    ENDGAME_PG_DIR="$dir"
    ENDGAME_PG_CTL=("${run[@]}" "$bin/pg_ctl")
    export ENDGAME_TEST_POSTGRES ENDGAME_PG_DIR
    echo "export ENDGAME_TEST_POSTGRES=$ENDGAME_TEST_POSTGRES"
}

# Stops the server started above.
endgame_pg_stop() {
    if [ -n "${ENDGAME_PG_DIR:-}" ] && [ -d "$ENDGAME_PG_DIR/data" ]; then
        "${ENDGAME_PG_CTL[@]}" -D "$ENDGAME_PG_DIR/data" -m fast stop >&2 || true
        rm -rf "$ENDGAME_PG_DIR"
    fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    _endgame_pg_main
else
    # Sourced: leave the caller's `set -e` as it was. (Saving `set +o` in a
    # command substitution does not work: bash clears errexit there, so
    # restoring it turned `set -e` off in scripts/test.sh and test
    # failures no longer stopped CI.)
    case $- in *e*) _endgame_pg_had_e=1 ;; *) _endgame_pg_had_e=0 ;; esac
    _endgame_pg_main
    _endgame_pg_rc=$?
    if [ "$_endgame_pg_had_e" = 1 ]; then set -e; else set +e; fi
    return $_endgame_pg_rc
fi
