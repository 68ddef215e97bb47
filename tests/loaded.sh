#!/usr/bin/env bash
# loaded.sh - runs a command (the test suite) beside busy processes, as on a
# shared CI machine or a busy laptop: one CPU-bound loop per core (two at
# least; LOADED_HOGS= says how many), killed when the command ends, however
# it ends.  Exits with the command's status.
#   tests/loaded.sh COMMAND [ARGS...]
set -u

hogs=${LOADED_HOGS:-$(nproc)}
((hogs >= 2)) || hogs=2
pids=()
stop() { ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null; }
trap stop EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < hogs; i++)); do
    sh -c 'while :; do :; done' &
    pids+=($!)
done
echo "loaded.sh: $hogs busy processes beside: $*"
"$@"
