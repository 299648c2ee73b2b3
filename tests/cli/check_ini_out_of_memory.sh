#!/bin/sh
# Out of memory reading a provider's INI and symbol file (fail_alloc.c,
# preloaded: the k-th allocation after the INI is opened fails, that one
# only): check-ini either prints what it prints with memory or says
# "regtool: check-ini: INI: out of memory" alone (no diagnostic, which
# would be about an INI not read whole) and exits 3, the exit status of a
# system failure; never an abort. install either installs or says out of
# memory, exits 3 and writes nothing. Not under AddressSanitizer, whose
# allocator the preloaded one would bypass.
. tests/cli/lib.sh
if nm -D "$REGTOOL" 2>/dev/null | grep -q __asan_init; then
    echo "not run: regtool is built with AddressSanitizer"
    exit 0
fi
SO=$TMPDIR/fail_alloc.so
cc -shared -fPIC -o "$SO" tests/cli/fail_alloc.c -ldl || fail "cannot build fail_alloc.so"
FIRED=$TMPDIR/fired

# with_failure K CMD...: CMD with the K-th allocation after the INI's
# opening failing; stdout to $OUT, stderr to $ERR, exit status in $rc,
# $fired "y" when that allocation came.
with_failure() {
    _k=$1; shift
    rm -f "$FIRED"
    FAIL_ALLOC_FIRED=$FIRED FAIL_ALLOC_MATCH=$MATCH FAIL_ALLOC_AT=$_k \
        LD_PRELOAD=$SO "$@" >"$OUT" 2>"$ERR"
    rc=$?
    fired=; [ -f "$FIRED" ] && fired=y
}

# check-ini of INI (a real one, several languages; its code page when it
# is ANSI), each STEP-th allocation of its load failing in turn. Memory running
# out printing a diagnostic is said in its place, exit 3 too.
sweep_check_ini() {
    step=$1; ini=$2; shift 2
    MATCH=$(basename "$ini")
    "$REGTOOL" check-ini "$@" "$ini" >"$TMPDIR/want.out" 2>"$TMPDIR/want.err"
    want_rc=$?
    k=1
    while :; do
        with_failure $k "$REGTOOL" check-ini "$@" "$ini"
        if [ $rc -eq 3 ] && grep -q "^regtool: out of memory: a diagnostic is left out$" "$ERR"; then
            : # memory ran out printing a diagnostic: said in its place
        elif [ $rc -eq 3 ]; then
            [ "$(cat "$ERR")" = "regtool: check-ini: $ini: out of memory" ] ||
                { cat "$ERR" >&2; fail "$ini: allocation $k failed: exit 3 without the message"; }
            [ ! -s "$OUT" ] || fail "$ini: allocation $k failed: out of memory, and a result printed"
        else
            [ $rc -eq $want_rc ] && cmp -s "$OUT" "$TMPDIR/want.out" &&
                cmp -s "$ERR" "$TMPDIR/want.err" ||
                { cat "$OUT" "$ERR" >&2; fail "$ini: allocation $k failed: exit $rc, not out of memory nor the result with memory"; }
        fi
        [ "$fired" = y ] || break
        k=$((k + step))
        [ $k -lt 1000 ] || fail "$ini: more than 1000 allocations"
    done
    [ $k -gt 20 ] || fail "$ini: only $k allocations reached: is the INI read?"
    echo "check-ini $ini: $k allocations"
    loaded_after=$k
}
sweep_check_ini 1 ini-samples/replication.ini
replication_load=$loaded_after
sweep_check_ini 3 ini-samples/sklad.cp1251.ini --codepage 1251
sweep_check_ini 3 ini-samples/broken/duplicate_key.ini
sweep_check_ini 3 ini-samples/broken/alias_cycle.ini --json
sweep_check_ini 3 ini-samples/warnings/offset_gap.ini --json

# install on a hive tree, each allocation of the INI's load (as many as
# check-ini's, which loads it the same way: install opens the store
# after) failing in turn, sampled: out of memory said with nothing
# written, or (an allocation the C library gets by without, such as
# vasprintf's shrinking realloc) the install done as with memory.
D=$TMPDIR/tree
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009,007
cp -r "$D" "$TMPDIR/pristine"
cp -r "$D" "$TMPDIR/installed"
CS_REPL="--create-service --library repl.dll --open Open --collect Collect --close Close"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/installed" install $CS_REPL \
    ini-samples/replication.ini
cp "$OUT" "$TMPDIR/installed.out"
# What an install leaves, as independent of when it ran as it can be (the
# hives keep times): the whole database as a .reg backup, and the INF copy.
installed_as() {
    rm -f "$TMPDIR/$2.reg"
    "$REGTOOL" --store "hive:$1" backup --format reg "$TMPDIR/$2.reg" >/dev/null
}
installed_as "$TMPDIR/installed" want
MATCH=replication.ini
k=1
while [ $k -le "$replication_load" ]; do
    # shellcheck disable=SC2086
    with_failure $k "$REGTOOL" --store "hive:$D" install $CS_REPL \
        ini-samples/replication.ini
    if [ $rc -eq 0 ]; then
        installed_as "$D" got
        cmp -s "$OUT" "$TMPDIR/installed.out" &&
            cmp -s "$TMPDIR/got.reg" "$TMPDIR/want.reg" &&
            diff -r "$D/Windows/INF" "$TMPDIR/installed/Windows/INF" >/dev/null ||
            fail "install, allocation $k failed: exit 0, not as installed with memory"
        rm -rf "$D"
        cp -r "$TMPDIR/pristine" "$D"
    elif [ $rc -eq 3 ]; then
        # The INI's load, or (its last allocations past check-ini's count)
        # the store's opening after it.
        grep -Eq "^regtool: (ini-samples/replication.ini: out of memory; nothing was written|(.*: )?out of memory)$" "$ERR" ||
            { cat "$ERR" >&2; fail "install, allocation $k failed: exit 3 without saying memory ran out"; }
        [ "$(grep -c . "$ERR")" -eq 1 ] ||
            { cat "$ERR" >&2; fail "install, allocation $k failed: more than the message"; }
        diff -r "$D" "$TMPDIR/pristine" >/dev/null ||
            fail "install, allocation $k failed: out of memory, and the tree changed"
    else
        cat "$OUT" "$ERR" >&2
        fail "install, allocation $k failed: exit $rc"
    fi
    k=$((k + 4))
done

# The hive store, memory running out from the tree's first look on (its
# hives found, opened, their keys read, the layout checked), each
# allocation of query in turn: exit 3 saying memory ran out, nothing
# written; never a tree taken for one without hives (exit 4), a hive for
# a bad one or one without Select\Current (exit 2). Then install, every
# 11th of its allocations (the tree's look, the plan, the backup, the
# hives staged, the journal, the files): exit 3 saying memory ran out,
# and either nothing written, or, past the journal's seal, the change
# committed and said so ("once the change was committed", "the change
# was written"): the next writer (enable) finishes it, to what an
# install with memory leaves.
MATCH=Windows
for verb in query install; do
    k=1
    while :; do
        if [ $verb = query ]; then
            with_failure $k "$REGTOOL" --store "hive:$D" query
        else
            # shellcheck disable=SC2086
            with_failure $k "$REGTOOL" --store "hive:$D" install $CS_REPL \
                ini-samples/replication.ini
        fi
        if [ $rc -eq 3 ]; then
            grep -q "out of memory\|Cannot allocate memory" "$ERR" ||
                { cat "$ERR" >&2; fail "$verb, allocation $k failed: exit 3 without saying memory ran out"; }
            if grep -q "once the change was committed\|the change was written" "$ERR"; then
                [ $verb = install ] || fail "$verb, allocation $k failed: a reader committed"
                "$REGTOOL" --store "hive:$D" enable ReplicationPerf >/dev/null 2>&1 ||
                    fail "install, allocation $k failed: the next writer did not finish it"
                installed_as "$D" got
                cmp -s "$TMPDIR/got.reg" "$TMPDIR/want.reg" &&
                    diff -r "$D/Windows/INF" "$TMPDIR/installed/Windows/INF" >/dev/null ||
                    fail "install, allocation $k failed: committed, and not finished as installed with memory"
                rm -rf "$D" && cp -r "$TMPDIR/pristine" "$D"
            else
                # (regtool.lock aside: the lock a writer takes first stays.)
                diff -r -x regtool.lock "$D" "$TMPDIR/pristine" >/dev/null ||
                    fail "$verb, allocation $k failed: out of memory, and the tree changed"
            fi
        elif [ $rc -ne 0 ]; then
            cat "$ERR" >&2
            fail "$verb, allocation $k failed: exit $rc"
        elif [ $verb = install ]; then
            rm -rf "$D" && cp -r "$TMPDIR/pristine" "$D"
        fi
        [ "$fired" = y ] || break
        [ $verb = query ] && k=$((k + 1)) || k=$((k + ${HIVE_OOM_STRIDE:-11}))
        [ $k -lt 20000 ] || fail "$verb: more than 20000 allocations"
    done
    [ $k -gt 50 ] || fail "$verb: only $k allocations reached: is the tree read?"
    echo "$verb on a hive tree: $k allocations"
done
echo ok
