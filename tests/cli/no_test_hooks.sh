# The product has no test hooks: build/regtool and libregtool.so never
# read REGTOOL_FAULT_AFTER_WRITES or REGTOOL_SIGNAL_AT_WRITE, so an
# installer that passes them on (or an environment that has them) cannot
# end a commit half way; the test build (build/testing/regtool) has them,
# and the same install with them set is cut there.
. tests/cli/lib.sh

B=$(dirname "$REGTOOL")
for f in "$REGTOOL" "$B"/libregtool.so.* "$B/libregtool.a"; do
    [ -f "$f" ] || fail "no $f (make cli-tests builds it)"
    if grep -a -q -e REGTOOL_FAULT -e REGTOOL_SIGNAL "$f"; then
        fail "$f names a test hook"
    fi
done
grep -a -q REGTOOL_FAULT_AFTER_WRITES "$REGTOOL_TESTING" ||
    fail "$REGTOOL_TESTING has no test hook: this test proves nothing"

P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\n' >"$P/x.ini"
CS="--create-service --library x.dll --open O --collect C --close X"
for bin in "$REGTOOL" "$REGTOOL_TESTING"; do
    W=$TMPDIR/w-$(basename "$(dirname "$bin")")
    expect_exit 0 "$bin" --store "hive:$W" init --languages 009
    # shellcheck disable=SC2086
    REGTOOL_FAULT_AFTER_WRITES=1 REGTOOL_SIGNAL_AT_WRITE=1 \
        "$bin" --store "hive:$W" install $CS "$P/x.ini" >"$OUT" 2>"$ERR"
    echo $? >"$TMPDIR/rc"
done
# The last loop ran the test build: cut at its first write.
[ "$(cat "$TMPDIR/rc")" -ne 0 ] || fail "the test build ignored its hooks"
W=$TMPDIR/w-$(basename "$B")
expect_exit 0 "$REGTOOL" --store "hive:$W" query Xfer
expect_grep "Xfer" "$OUT"
echo "no test hooks: ok"
