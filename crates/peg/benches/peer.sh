#!/usr/bin/env bash
# Side-by-side timing of `endgame count peg` (the layered engine) and, when
# its binary is given, the public solver feschber/peg-solitaire (built from
# its own source, release, without its default `game` feature).
#
# Usage: crates/peg/benches/peer.sh [PEER_BINARY] [RUNS] [THREADS]
#   ENDGAME=path/to/endgame overrides the endgame binary (default:
#   target/release/endgame, else target/ci/endgame); BASE=path/to/endgame
#   adds a second endgame binary (say, the build of an earlier commit),
#   run alternated with the first, for before/after comparisons.
#
# Each round runs every command once, alternating, so both sides see the
# same load; the medians of wall time and peak resident memory are printed.
# Without PEER_BINARY (or when it is not executable) the comparison is
# skipped and only endgame's commands are timed.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PEER=${1:-}
RUNS=${2:-5}
THREADS=${3:-2}
ENDGAME=${ENDGAME:-}
if [ -z "$ENDGAME" ]; then
  for b in target/release/endgame target/ci/endgame; do
    if [ -x "$b" ]; then ENDGAME=$b; break; fi
  done
fi
[ -x "${ENDGAME:-}" ] || { echo "no endgame binary: build it first (cargo build --release -p endgame)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (GNU time)" >&2; exit 2; }

names=()
cmds=()
add() { names+=("$1"); cmds+=("$2"); }
BASE=${BASE:-}
sides=("endgame=$ENDGAME")
if [ -n "$BASE" ]; then
  [ -x "$BASE" ] || { echo "BASE=$BASE is not executable" >&2; exit 2; }
  sides+=("base=$BASE")
fi
for what in "english goal set|--goal-only --no-solutions" "english solutions|--goal-only" "english full count|"; do
  for side in "${sides[@]}"; do
    add "${side%%=*} ${what%%|*}" "${side#*=} count peg --board english ${what#*|} --threads $THREADS -q"
  done
done
if [ -n "$PEER" ] && [ -x "$PEER" ]; then
  add "peer english goal set" "$PEER --threads $THREADS calculate-all"
else
  echo "peer binary not given or not executable: comparison skipped" >&2
fi

declare -A walls mems
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for ((r = 1; r <= RUNS; r++)); do
  for i in "${!cmds[@]}"; do
    /usr/bin/time -o "$tmp" -f "%e %M" ${cmds[$i]} >/dev/null 2>&1 || { echo "${names[$i]}: failed" >&2; exit 1; }
    read -r w m <"$tmp"
    walls[$i]+="$w "
    mems[$i]+="$m "
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo "$(date -u +%F) $(uptime | sed 's/.*load/load/') runs=$RUNS threads=$THREADS"
for i in "${!cmds[@]}"; do
  w=$(echo "${walls[$i]}" | median)
  m=$(echo "${mems[$i]}" | median)
  printf '%-32s median %6.2f s  %6.0f MB   (walls: %s)\n' "${names[$i]}" "$w" "$(echo "$m / 1024" | bc -l)" "${walls[$i]}"
done
