#!/usr/bin/env bash
# compare.sh - the benchmarks of this checkout side by side with those of an
# earlier commit, to show a change costs nothing: builds REV in a temporary
# git worktree (its own build/, removed afterwards), then runs each benchmark
# alternately from the earlier tree and from this one, PASSES times each, so
# both see the same machine.  Each benchmark prints its own ratios (profiled
# / unprofiled, ours / EventPipe, latencies); compare the columns.
#   bench/compare.sh [REV] [PASSES] [BENCH...]
#     REV     the commit to compare with (default HEAD~1)
#     PASSES  runs of each benchmark per tree (default 2)
#     BENCH   any of run, sampling, attach (default all three), run with
#             fewer rounds than on their own (the passes make up for it)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REV=${1:-HEAD~1}
PASSES=${2:-2}
shift $(($# > 2 ? 2 : $#))
BENCHES=("$@")
[[ ${#BENCHES[@]} -gt 0 ]] || BENCHES=(run sampling attach)

commit=$(git -C "$ROOT" rev-parse --verify --quiet "$REV^{commit}") ||
    { echo "compare.sh: '$REV' is not a commit of this repository" >&2; exit 2; }
for b in "${BENCHES[@]}"; do
    case $b in run | sampling | attach) ;; *) echo "compare.sh: unknown benchmark '$b' (run, sampling, attach)" >&2; exit 2 ;; esac
done

BASE=$(mktemp -d)/base
cleanup() { git -C "$ROOT" worktree remove --force "$BASE" 2>/dev/null || true; rm -rf "$(dirname "$BASE")"; }
trap cleanup EXIT
git -C "$ROOT" worktree add --detach --quiet "$BASE" "$commit"
echo "building ${commit:0:12} in $BASE ..."
make -C "$BASE" --no-print-directory -s all >/dev/null
make -C "$ROOT" --no-print-directory -s all >/dev/null

args_of() {
    case $1 in
        run) echo "8" ;;          # rounds (default 15)
        sampling) echo "4" ;;     # rounds (default 7)
        attach) echo "10" ;;      # cycles (default 15)
    esac
}

here=$(git -C "$ROOT" rev-parse --short HEAD)
[[ -z $(git -C "$ROOT" status --porcelain --untracked-files=no) ]] || here="$here+changes"
for b in "${BENCHES[@]}"; do
    for ((pass = 1; pass <= PASSES; pass++)); do
        for side in base this; do
            if [[ $side == base ]]; then tree=$BASE label=${commit:0:12}; else tree=$ROOT label=$here; fi
            echo "=== $b, pass $pass, $label"
            # shellcheck disable=SC2046
            "$tree/bench/$b.sh" $(args_of "$b")
        done
    done
done
