#!/bin/sh
# Crash sweep of each verb that writes, on the live store under Wine: the
# Winelib regtool runs install, disable, enable, uninstall, restore and
# repair on the prefix's registry and is ended at its k-th write
# (REGTOOL_FAULT_AFTER_WRITES=k, exit 99) for every k until it completes;
# the next process (sweep dump) opens the store, which rolls back what
# was left, and the registry and the side files (the INF copy) must equal
# exactly the state before the verb or the state it leaves when it runs
# whole. The state is set up anew for
# every k (sweep reset: the base database of sweep.c, then the verb's own
# preparation through regtool, unfaulted).
# Usage: crash_sweep_verbs.sh SWEEP REGTOOL (both Winelib), from run.sh
# with $WINE64 and the prefix set up.
set -eu
sweep=$1
regtool=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
. tests/common.sh
. tests/wine/wine_run.sh
FAIL_WHO="crash sweep (verbs)"
# The side files the verbs keep beside the registry (the provider's INF
# copy, PerfStringBackup.INI) and any temporary file a crash left, each
# with its checksum: part of the state that must be the before- or the
# after-state as a whole.
files() {
    tree_state "$WINEPREFIX/drive_c/windows" -ipath './inf/sweepnew*' \
        -o -iname '*.regtool-new' -o -iname 'perfstringbackup.ini'
}
# The whole state: the registry as sweep.c dumps it, then the files.
state() { wine_step "$sweep" dump && files; }
rt() {
    rt_rc=0
    wine_run "$scratch/rt.out" "$scratch/rt.err" "$regtool" --store live "$@" || rt_rc=$?
    cat "$scratch/rt.out" "$scratch/rt.err" >"$scratch/out"
    [ "$rt_rc" -eq 0 ] || echo "(exit $rt_rc)" >>"$scratch/out"
    return "$rt_rc"
}

# A provider for the service sweep.c leaves alone (SweepNew), English only:
# the languages without its text get English, 009 (Wine's stub) none.
printf '#define OBJ 0\n#define RATE 2\n' >"$scratch/s.h"
printf '[info]\ndrivername=SweepNew\nsymbolfile=s.h\n[languages]\n009=English\n[objects]\nOBJ_009_NAME=Sweep\n[text]\nOBJ_009_NAME=Sweep\nOBJ_009_HELP=Sweep help.\nRATE_009_NAME=Sweep Rate\nRATE_009_HELP=Sweeps per second.\n' \
    >"$scratch/p.ini"
install_args="--create-service --library sweepnew.dll --open O --collect C --close X"

# prepare VERB: the state the verb starts from.
prepare() {
    wine_step "$sweep" reset
    (cd "$WINEPREFIX/drive_c/windows" &&
        find . \( -ipath './inf/sweepnew' -o -iname '*.regtool-new' \) \
            -prune -exec rm -rf {} +)
    case $1 in
    install) ;;
    disable | enable | uninstall)
        # shellcheck disable=SC2086
        rt install $install_args "$scratch/p.ini" || fail "prepare $1: $(cat "$scratch/out")"
        [ "$1" != enable ] || rt disable SweepNew || fail "prepare enable: $(cat "$scratch/out")" ;;
    restore)
        # shellcheck disable=SC2086
        rt install $install_args "$scratch/p.ini" || fail "prepare restore: $(cat "$scratch/out")"
        [ -f "$scratch/backup.ini" ] ||
            rt backup "$scratch/backup.ini" || fail "prepare restore: $(cat "$scratch/out")"
        rt uninstall SweepNew || fail "prepare restore: $(cat "$scratch/out")" ;;
    repair)
        # shellcheck disable=SC2086
        rt install $install_args "$scratch/p.ini" || fail "prepare repair: $(cat "$scratch/out")"
        # Last Counter below the provider's names: repair raises it.
        wine_run "$scratch/reg.out" "$scratch/reg.err" reg add \
            'HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib' \
            /v 'Last Counter' /t REG_DWORD /d 1847 /f ||
            fail "prepare repair: reg add: $(cat "$scratch/reg.out" "$scratch/reg.err")" ;;
    esac
}

# run VERB: the verb itself.
run() {
    case $1 in
    # shellcheck disable=SC2086
    install) rt install $install_args "$scratch/p.ini" ;;
    disable | enable | uninstall) rt "$1" SweepNew ;;
    restore) rt restore "$scratch/backup.ini" ;;
    repair) rt repair --backup "$scratch/repair-backup.ini" ;;
    esac
}

total=0
for verb in install disable enable uninstall restore repair; do
    prepare "$verb"
    state >"$scratch/before"
    # repair exits non-zero when it leaves findings: its whole run's code
    # is the one every faulted run that goes to the end must give too.
    full=0
    run "$verb" || full=$?
    [ "$full" -eq 0 ] || [ "$verb" = repair ] || fail "$verb: $(cat "$scratch/out")"
    state >"$scratch/after"
    cmp -s "$scratch/before" "$scratch/after" && fail "$verb changed nothing"
    old=0 new=0 k=1
    while :; do
        prepare "$verb"
        rm -f "$scratch"/repair-backup.ini*
        rc=0
        export REGTOOL_FAULT_AFTER_WRITES=$k
        run "$verb" || rc=$?
        unset REGTOOL_FAULT_AFTER_WRITES
        [ "$rc" -eq 99 ] || {
            [ "$rc" -eq "$full" ] ||
                fail "$verb, k=$k: exit $rc, not 99 nor $full: $(cat "$scratch/out")"
            break
        }
        state >"$scratch/got"
        sweep_outcome "$scratch/got" "$scratch/before" "$scratch/after" "$verb, k=$k"
        k=$((k + 1))
    done
    [ "$old" -gt 0 ] || fail "$verb: no crash point rolled back (k=$k, exit $rc)"
    echo "crash sweep (verbs): $verb on the live store: $((k - 1)) crash points, $old rolled back, $new found the new state"
    total=$((total + k - 1))
done
echo "crash sweep (verbs): $total crash points over six verbs on the live store"
