#!/bin/sh
# A CLI round trip with every regtool run under valgrind (memcheck, full
# leak check): init, check-ini, install, query, names, audit, disable and
# enable, backup, uninstall, restore, repair --dry-run, hive check, in
# both layouts. Any memory error or leak fails it (exit 99 from valgrind).
# Usage: sh tests/valgrind-cli.sh REGTOOL (an unsanitized build)
set -eu
regtool=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
runs=0
# vg ARGS: regtool ARGS under valgrind; it must exit 0, or up to $allowed
# when that is set for this one run (allowed=2 vg audit: findings).
vg() {
    limit=${allowed:-0}
    allowed=0
    runs=$((runs + 1))
    rc=0
    valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect,possible \
        "$regtool" "$@" >"$scratch/out" 2>"$scratch/err" || rc=$?
    if [ "$rc" -eq 99 ]; then
        echo "valgrind-cli: memory error or leak in: regtool $*" >&2
        cat "$scratch/err" >&2
        exit 1
    fi
    if [ "$rc" -gt "$limit" ]; then
        echo "valgrind-cli: regtool $* exited $rc" >&2
        cat "$scratch/err" >&2
        exit 1
    fi
}
cs="--create-service --library x.dll --open O --collect C --close X"
for layout in registry files; do
    d=$scratch/$layout
    vg --store "hive:$d" init --languages 009,019 --layout "$layout"
    vg check-ini ini-samples/transfer.ini
    # shellcheck disable=SC2086
    vg --store "hive:$d" install $cs ini-samples/transfer.ini
    # shellcheck disable=SC2086
    vg --store "hive:$d" install --dry-run --replace $cs ini-samples/transfer.ini
    vg --store "hive:$d" query --json
    vg --store "hive:$d" names --lang 009 1848 1850
    allowed=2 vg --store "hive:$d" audit --json
    vg --store "hive:$d" disable TransferPerf
    vg --store "hive:$d" enable TransferPerf
    vg --store "hive:$d" backup "$scratch/$layout.ini"
    vg --store "hive:$d" uninstall TransferPerf
    vg --store "hive:$d" restore "$scratch/$layout.ini"
    allowed=2 vg --store "hive:$d" repair --dry-run
    vg hive check "$d/Windows/System32/config/SOFTWARE"
done
echo "valgrind-cli: $runs regtool runs clean under valgrind"
