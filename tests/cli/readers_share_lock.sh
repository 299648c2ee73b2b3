# Readers take the lock shared: while another reader holds it (flock(1)
# holding it shared, as a regtool reader's open does), query, names, audit
# and backup each run at once, with --wait 0 (no waiting at all), and say
# nothing of waiting; a writer is refused (exit 3, nothing written). While
# a writer holds it (exclusive), a reader is refused too.
. tests/cli/lib.sh

P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\n' >"$P/x.ini"
CS="--create-service --library x.dll --open O --collect C --close X"
W=$TMPDIR/w
C=$W/Windows/System32/config
L=$C/regtool.lock
expect_exit 0 $REGTOOL --store "hive:$W" init --languages 009
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL --store "hive:$W" install $CS "$P/x.ini"
hold_lock -s "$L"
trap 'kill $holder 2>/dev/null' EXIT
tree_state "$W" >"$TMPDIR/before"
expect_exit 0 $REGTOOL --wait 0 --store "hive:$W" query Xfer
expect_grep "Xfer" "$OUT"
expect_exit 0 $REGTOOL --wait 0 --store "hive:$W" names Count
expect_grep "Count" "$OUT"
expect_exit 0 $REGTOOL --wait 0 --store "hive:$W" audit
expect_exit 0 $REGTOOL --wait 0 --store "hive:$W" backup "$TMPDIR/b.ini"
[ -s "$TMPDIR/b.ini" ] || fail "backup wrote nothing"
! grep -q "waiting" "$ERR" || fail "a reader waited for a reader: $(cat "$ERR")"
expect_same_tree "$W" "$TMPDIR/before"
# A writer is kept out by the reader.
expect_exit 3 $REGTOOL --wait 0 --store "hive:$W" uninstall Xfer
expect_grep "gave up after 0 s waiting for another regtool (reading) holding .*regtool.lock" "$ERR"
expect_same_tree "$W" "$TMPDIR/before"
kill $holder; wait $holder 2>/dev/null

# A writer (exclusive) keeps readers out.
hold_lock -x "$L"
expect_exit 3 $REGTOOL --wait 0 --store "hive:$W" names Count
expect_grep "gave up after 0 s waiting for another regtool" "$ERR"
kill $holder; wait $holder 2>/dev/null
trap - EXIT
# Free again: the writer goes on.
expect_exit 0 $REGTOOL --wait 0 --store "hive:$W" uninstall Xfer
