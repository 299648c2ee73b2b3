#!/bin/sh
# Crash sweep of the win32 store under Wine: for every k from 1 to the
# number of writes a commit makes, a process applying a multi-language
# change is ended at its k-th write (REGTOOL_FAULT_AFTER_WRITES=k); the
# next process opens the store, which rolls back what was left, and the
# registry must equal exactly the state before or after the change.
# Usage: crash_sweep.sh SWEEP (sweep.exe.so built by winegcc, or sweep.exe
# built by mingw-w64), run from run.sh with $WINE64 and the prefix set up.
set -eu
sweep=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
. tests/wine/wine_run.sh
# Launches go through wine_run (tests/wine/wine_run.sh); a failure names
# its step.
step() {
    wine_run "$scratch/step.out" "$scratch/step.err" "$sweep" "$@" ||
        { echo "crash sweep: sweep $*: exit $?: $(cat "$scratch/step.err")" >&2; exit 1; }
    cat "$scratch/step.err" >&2
    cat "$scratch/step.out"
}

step reset
step dump >"$scratch/before"
step apply >"$scratch/count"
step dump >"$scratch/after"
if cmp -s "$scratch/before" "$scratch/after"; then
    echo "crash sweep: the change changed nothing" >&2; exit 1
fi
# A native (mingw-w64) build prints CRLF line ends.
n=$(tr -d '\r' <"$scratch/count" | sed -n 's/^writes \([0-9][0-9]*\)$/\1/p')
[ -n "$n" ] && [ "$n" -gt 0 ] || { echo "crash sweep: no write count" >&2; exit 1; }

old=0; new=0; k=1
while [ "$k" -le "$n" ]; do
    step reset
    rc=0
    export REGTOOL_FAULT_AFTER_WRITES=$k
    wine_run "$scratch/apply.out" "$scratch/apply.err" "$sweep" apply || rc=$?
    unset REGTOOL_FAULT_AFTER_WRITES
    if [ "$rc" -ne 99 ]; then
        echo "crash sweep: k=$k: apply exited $rc, not at the fault" >&2; exit 1
    fi
    step dump >"$scratch/got"
    if cmp -s "$scratch/got" "$scratch/before"; then
        old=$((old + 1))
    elif cmp -s "$scratch/got" "$scratch/after"; then
        new=$((new + 1))
    else
        echo "crash sweep: k=$k: registry is neither the old nor the new state" >&2
        diff "$scratch/before" "$scratch/got" >&2 || true
        exit 1
    fi
    k=$((k + 1))
done
echo "crash sweep: $n crash points, $old rolled back to the old state, $new found the new state"
# The last write retires the journal: only then is the new state final.
[ "$old" -gt 0 ] && [ "$new" -gt 0 ] || { echo "crash sweep: expected both outcomes" >&2; exit 1; }
