#!/bin/sh
# Runs each tests/cli/*.sh, or the scripts named after it, against the
# regtool binary given as $1. Each script gets REGTOOL, a scratch TMPDIR
# of its own, and SHARED.
REGTOOL=$1; export REGTOOL
shift
[ $# -gt 0 ] || set -- tests/cli/*.sh
SHARED=${SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/shared}; export SHARED
passed=0; failed=0; failures=""
for s in "$@"; do
    case "$s" in */lib.sh) continue;; esac
    scratch=$(mktemp -d)
    if TMPDIR=$scratch sh "$s" >"$scratch.log" 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); failures="$failures $(basename "$s")"
        echo "--- $s"; cat "$scratch.log"
    fi
    rm -rf "$scratch" "$scratch.log"
done
echo "cli tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
