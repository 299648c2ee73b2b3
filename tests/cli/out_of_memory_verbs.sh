#!/bin/sh
# Out of memory in the verbs check_ini_out_of_memory.sh does not sweep:
# names --provider, audit (text and Prometheus), diff, backup (both
# formats), restore --dry-run, a .reg store's query and audit, hive
# check and init, and an audit of a tree on another mount (the table of
# mounts read on the way). fail_alloc.c, preloaded, fails the k-th allocation after a file
# whose path holds MATCH is opened, that one only;
# k runs over every STRIDE-th allocation up to the last the verb makes.
# Each run either ends as it does with memory (an allocation the C
# library gets by without: same exit, same output, same file written) or
# exits 3 saying memory ran out, with nothing printed to stdout (audit
# aside: what it found before is said, and in Prometheus' format not
# counted, success 0), nothing written to the tree and
# nothing left in the output's folder (a backup's file absent, init's
# tree removed). Never an abort, never another exit: a verb that took
# memory running out for an answer (a Windows folder, SysWOW64 or a
# system file not there, a value not quotable) is caught by the first.
# Not under AddressSanitizer, whose allocator the preloaded one would
# bypass.
. tests/cli/lib.sh
if [ "$ASAN" = 1 ]; then
    echo "not run: regtool is built with AddressSanitizer"
    exit 0
fi
SO=$TMPDIR/fail_alloc.so
cc -shared -fPIC -o "$SO" tests/cli/fail_alloc.c -ldl || fail "cannot build fail_alloc.so"
FIRED=$TMPDIR/fired

A=$TMPDIR/a
expect_exit 0 "$REGTOOL" --store "hive:$A" init --languages 009,007
CS="--create-service --library xfer.dll --open Open --collect Collect --close Close"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$A" install $CS ini-samples/transfer.ini
expect_exit 0 "$REGTOOL" --store "hive:$A" backup --format reg "$TMPDIR/a.reg"
# A tree of one language, its tables as values: its .reg backup, the
# base tables as hex, is half the size (the sweeps run it many times).
B=$TMPDIR/b
expect_exit 0 "$REGTOOL" --store "hive:$B" init --layout registry
expect_exit 0 "$REGTOOL" --store "hive:$B" backup --format reg "$TMPDIR/b.reg"
cp -a "$A" "$TMPDIR/pristine-a"
cp -a "$B" "$TMPDIR/pristine-b"
OUTDIR=$TMPDIR/made
mkdir "$OUTDIR"

# same_made A B: the same file, or the same tree (hives keep the time
# they were written: their database as query reads it, the tree's path
# aside, every other file byte for byte).
same_made() {
    if [ -f "$1" ]; then
        cmp -s "$1" "$2"
    else
        "$REGTOOL" --store "hive:$1" query 2>&1 | sed "s|$1|TREE|g" >"$TMPDIR/q1" &&
            "$REGTOOL" --store "hive:$2" query 2>&1 | sed "s|$2|TREE|g" >"$TMPDIR/q2" &&
            cmp -s "$TMPDIR/q1" "$TMPDIR/q2" &&
            diff -r -x SOFTWARE -x SYSTEM "$1" "$2" >/dev/null
    fi
}

# sweep NAME STRIDE MATCH MADE CMD...: CMD with each STRIDE-th allocation
# after MATCH's opening failing. MADE: the file or folder CMD creates
# ("-": none), compared with what it makes with memory.
sweep() {
    name=$1 stride=$2 match=$3 made=$4; shift 4
    rm -rf "$OUTDIR" && mkdir "$OUTDIR"
    "$@" >"$TMPDIR/want.out" 2>"$TMPDIR/want.err"
    want_rc=$?
    [ $want_rc -le 1 ] || { cat "$TMPDIR/want.err" >&2; fail "$name: exit $want_rc with memory"; }
    [ "$made" = - ] || { cp -a "$made" "$TMPDIR/want.made" && rm -rf "$made"; } ||
        fail "$name: made nothing with memory"
    k=1 ran_out=0
    while :; do
        rm -f "$FIRED"
        FAIL_ALLOC_FIRED=$FIRED FAIL_ALLOC_MATCH=$match FAIL_ALLOC_AT=$k \
            LD_PRELOAD=$SO "$@" >"$OUT" 2>"$ERR"
        rc=$?
        [ -f "$FIRED" ] || break
        if [ $rc -eq 3 ]; then
            grep -q "out of memory\|Cannot allocate memory" "$ERR" ||
                { cat "$ERR" >&2; fail "$name, allocation $k failed: exit 3 without saying memory ran out"; }
            case $name in
            audit*) # what it found before is said, never as counts
                ! grep -q '^regtool_audit_findings' "$OUT" ||
                    { cat "$OUT" >&2; fail "$name, allocation $k failed: out of memory, and findings counted"; } ;;
            *) [ ! -s "$OUT" ] ||
                { cat "$OUT" >&2; fail "$name, allocation $k failed: out of memory, and a result printed"; } ;;
            esac
            [ -z "$(ls -A "$OUTDIR")" ] ||
                fail "$name, allocation $k failed: out of memory, and $(ls -A "$OUTDIR") left"
            ran_out=$((ran_out + 1))
        elif [ $rc -eq $want_rc ]; then
            # (the Prometheus audit's clock aside)
            grep -v '^regtool_audit_timestamp_seconds' "$TMPDIR/want.out" >"$TMPDIR/want.cmp"
            grep -v '^regtool_audit_timestamp_seconds' "$OUT" >"$TMPDIR/got.cmp"
            cmp -s "$TMPDIR/got.cmp" "$TMPDIR/want.cmp" ||
                { diff "$TMPDIR/want.cmp" "$TMPDIR/got.cmp" >&2; fail "$name, allocation $k failed: exit $rc, not the output with memory"; }
            [ "$made" = - ] || same_made "$made" "$TMPDIR/want.made" ||
                fail "$name, allocation $k failed: exit $rc, and $made not as made with memory"
        else
            cat "$OUT" "$ERR" >&2
            fail "$name, allocation $k failed: exit $rc"
        fi
        [ "$made" = - ] || rm -rf "$made"
        diff -r -x regtool.lock "$A" "$TMPDIR/pristine-a" >/dev/null &&
            diff -r -x regtool.lock "$B" "$TMPDIR/pristine-b" >/dev/null ||
            fail "$name, allocation $k failed: a tree changed"
        k=$((k + stride))
        [ $k -lt 100000 ] || fail "$name: more than 100000 allocations"
    done
    [ $ran_out -gt 10 ] || fail "$name: memory ran out only $ran_out times: is the verb reached?"
    rm -rf "$TMPDIR/want.made"
    echo "$name: $k allocations, $ran_out out of memory"
}

sweep names 13 Windows - "$REGTOOL" --store "hive:$A" names --provider TransferPerf
sweep audit 11 Windows - "$REGTOOL" --store "hive:$A" audit
sweep audit-prometheus 11 Windows - "$REGTOOL" --store "hive:$A" audit --format prometheus
sweep diff 29 Windows - "$REGTOOL" diff "hive:$A" "reg:$TMPDIR/a.reg"
sweep backup 11 Windows "$OUTDIR/b.ini" "$REGTOOL" --store "hive:$A" backup "$OUTDIR/b.ini"
sweep backup-reg 97 Windows "$OUTDIR/b.reg" "$REGTOOL" --store "hive:$B" backup --format reg "$OUTDIR/b.reg"
sweep restore 197 b.reg - "$REGTOOL" --store "hive:$B" restore --dry-run "$TMPDIR/b.reg"
sweep reg-query 7 b.reg - "$REGTOOL" --store "reg:$TMPDIR/b.reg" query
# The first allocation after the .reg file's opening is the store's
# buffer for its bytes: memory running out there was said as the store
# unreadable, exit 2 (review 33 F9).
sweep audit-reg 7 b.reg - "$REGTOOL" --store "reg:$TMPDIR/b.reg" audit
sweep audit-reg-prometheus 13 b.reg - "$REGTOOL" --store "reg:$TMPDIR/b.reg" audit --format prometheus
sweep hive-check 3 SYSTEM - "$REGTOOL" hive check "$A/Windows/System32/config/SYSTEM"
sweep init 499 made "$OUTDIR/t" "$REGTOOL" --store "hive:$OUTDIR/t" init --languages 009,007
# A tree on another mount (/dev/shm, where it is one): the walk to it
# reads the table of mounts as it crosses; memory running out there is
# said, never taken for a table that does not list the mount (an audit
# then said its store's layout not and exited 0).
if [ -d /dev/shm ] && [ -w /dev/shm ] &&
    [ "$(stat -c %d /dev/shm)" != "$(stat -c %d "$TMPDIR")" ]; then
    SHM=$(mktemp -d /dev/shm/regtool-oom.XXXXXX) || fail "mktemp in /dev/shm"
    trap 'rm -rf "$SHM"' EXIT
    cp -a "$TMPDIR/pristine-a" "$SHM/a"
    sweep audit-on-another-mount 11 Windows - "$REGTOOL" --store "hive:$SHM/a" audit
fi
echo ok
