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
. tests/common.sh
. tests/wine/wine_run.sh
FAIL_WHO="crash sweep"

wine_step "$sweep" reset
wine_step "$sweep" dump >"$scratch/before"
wine_step "$sweep" apply >"$scratch/count"
wine_step "$sweep" dump >"$scratch/after"
if cmp -s "$scratch/before" "$scratch/after"; then
    fail "the change changed nothing"
fi
# A native (mingw-w64) build prints CRLF line ends.
n=$(tr -d '\r' <"$scratch/count" | sed -n 's/^writes \([0-9][0-9]*\)$/\1/p')
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no write count"

old=0; new=0; k=1
while [ "$k" -le "$n" ]; do
    wine_step "$sweep" reset
    rc=0
    export REGTOOL_FAULT_AFTER_WRITES=$k
    wine_run "$scratch/apply.out" "$scratch/apply.err" "$sweep" apply || rc=$?
    unset REGTOOL_FAULT_AFTER_WRITES
    [ "$rc" -eq 99 ] || fail "k=$k: apply exited $rc, not at the fault"
    wine_step "$sweep" dump >"$scratch/got"
    sweep_outcome "$scratch/got" "$scratch/before" "$scratch/after" "k=$k: the registry"
    k=$((k + 1))
done
echo "crash sweep: $n crash points, $old rolled back to the old state, $new found the new state"
# The last write retires the journal: only then is the new state final.
[ "$old" -gt 0 ] && [ "$new" -gt 0 ] || fail "expected both outcomes"
