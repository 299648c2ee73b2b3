# A crash after any write of a commit touching both hives, the .dat files
# of three languages and their SysWOW64 copies leaves, after the next open,
# exactly the state before or the state after.
. tests/cli/lib.sh

P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n019=Russian\n[objects]\nOBJ_009_NAME=\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\nOBJ_019_NAME=Передача\nOBJ_019_HELP=П.\nCNT_019_NAME=Счёт\nCNT_019_HELP=С.\n' >"$P/x.ini"

state() {   # everything a reader sees: both hives by content, .dat bytes
    for h in SOFTWARE SYSTEM; do
        reglookup -H "$1/Windows/System32/config/$h" | sed 's/,[^,]*$//'
    done
    (cd "$1/Windows" && sha256sum System32/*.dat SysWOW64/*.dat)
}

PRISTINE=$TMPDIR/pristine
expect_exit 0 $REGTOOL --store "hive:$PRISTINE" init --languages 009,019,00C
install() {
    $REGTOOL --verbose --store "hive:$1" install --create-service \
        --library x.dll --open O --collect C --close X "$P/x.ini"
}
state "$PRISTINE" >"$TMPDIR/before"
cp -a "$PRISTINE" "$TMPDIR/full"
install "$TMPDIR/full" >"$OUT" 2>"$ERR" || fail "install failed: $(cat "$ERR")"
state "$TMPDIR/full" >"$TMPDIR/after"
writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR")
[ -n "$writes" ] && [ "$writes" -ge 6 ] || fail "no write count in: $(cat "$ERR")"
cmp -s "$TMPDIR/before" "$TMPDIR/after" && fail "install changed nothing"

old=0 new=0
k=1
while [ "$k" -le "$writes" ]; do
    W=$TMPDIR/k$k
    rm -rf "$W"
    cp -a "$PRISTINE" "$W"
    REGTOOL_FAULT_AFTER_WRITES=$k install "$W" >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq 99 ] || fail "k=$k: expected the fault hook to end the run, got exit $rc"
    # The next open recovers (or discards) the interrupted commit.
    $REGTOOL --store "hive:$W" query >/dev/null 2>&1 || fail "k=$k: reopen failed"
    [ ! -e "$W/Windows/System32/config/regtool.journal" ] || fail "k=$k: journal left behind"
    state "$W" >"$TMPDIR/state"
    if cmp -s "$TMPDIR/state" "$TMPDIR/before"; then old=$((old + 1))
    elif cmp -s "$TMPDIR/state" "$TMPDIR/after"; then new=$((new + 1))
    else
        diff "$TMPDIR/before" "$TMPDIR/state" | head -20
        fail "k=$k: a state that is neither before nor after"
    fi
    rm -rf "$W"
    k=$((k + 1))
done
echo "crash sweep: $writes writes, $old rolled back, $new rolled forward"
[ "$old" -gt 0 ] && [ "$new" -gt 0 ] || fail "sweep did not see both outcomes"
