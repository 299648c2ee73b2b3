# The binary answers as lodctr and unlodctr, with their syntax and Win32
# exit codes.
. tests/cli/lib.sh

P=$TMPDIR/prov
mkdir -p "$P" "$TMPDIR/bin"
ln -s "$REGTOOL" "$TMPDIR/bin/lodctr"
ln -s "$REGTOOL" "$TMPDIR/bin/unlodctr.exe"
ln -s "$REGTOOL" "$TMPDIR/bin/LODCTR.EXE"
printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\n' >"$P/x.ini"

export REGTOOL_STORE="hive:$TMPDIR/win"
expect_exit 0 $REGTOOL init --languages 009 --layout registry
# The service key comes from the provider's installer; make it, then
# remove the names so lodctr finds a service without a range.
expect_exit 0 $REGTOOL install --create-service --library x.dll --open O --collect C --close X "$P/x.ini"
expect_exit 0 $REGTOOL uninstall Xfer

expect_exit 0 "$TMPDIR/bin/lodctr" "$P/x.ini"
TREE_IGNORE=regtool.lock
tree_state "$TMPDIR/win" >"$TMPDIR/installed"
expect_exit 183 "$TMPDIR/bin/lodctr" "$P/x.ini"        # ERROR_ALREADY_EXISTS
expect_grep "already installed" "$ERR"
expect_same_tree "$TMPDIR/win" "$TMPDIR/installed" "refused lodctr wrote to the store"
expect_exit 0 "$TMPDIR/bin/LODCTR.EXE" /Q:Xfer
expect_grep "Xfer" "$OUT"
expect_exit 0 "$TMPDIR/bin/lodctr" /D:Xfer
expect_exit 0 $REGTOOL query --json Xfer
expect_grep '"disabled":true' "$OUT"
expect_exit 0 "$TMPDIR/bin/lodctr" /E:Xfer
expect_exit 0 $REGTOOL query --json Xfer
expect_grep '"disabled":false' "$OUT"
for sw in /T:Xfer; do
    expect_exit 50 "$TMPDIR/bin/lodctr" "$sw"            # ERROR_NOT_SUPPORTED
    expect_grep "not implemented yet (README.md, Roadmap" "$ERR"
done
expect_exit 87 "$TMPDIR/bin/lodctr" /X                    # ERROR_INVALID_PARAMETER
expect_exit 2 "$TMPDIR/bin/lodctr" "$P/missing.ini"          # ERROR_FILE_NOT_FOUND
expect_exit 0 "$TMPDIR/bin/unlodctr.exe" Xfer
tree_state "$TMPDIR/win" >"$TMPDIR/removed"
expect_exit 2 "$TMPDIR/bin/unlodctr.exe" Xfer             # not installed
expect_grep "not installed" "$ERR"
expect_same_tree "$TMPDIR/win" "$TMPDIR/removed" "refused unlodctr wrote to the store"
