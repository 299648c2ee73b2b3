# The lodctr drop-in speaks as lodctr does: /Q and /Q:svc print Windows'
# text line for line (docs/design.md, "Query output (lodctr /Q)") for
# providers with and without First Counter, enabled and disabled; `lodctr
# \\computer file.ini` works on the live store only and is refused with
# ERROR_BAD_NETPATH (53) elsewhere, writing nothing; /? lists every switch;
# no message says "regtool:" or suggests an option lodctr lacks; unlodctr
# removes Object List too; and REGTOOL_CODEPAGE gives an ANSI INI's code
# page.
. tests/cli/lib.sh

mkdir -p "$TMPDIR/bin"
ln -s "$REGTOOL" "$TMPDIR/bin/lodctr"
ln -s "$REGTOOL" "$TMPDIR/bin/unlodctr"
L=$TMPDIR/bin/lodctr
U=$TMPDIR/bin/unlodctr
D=$TMPDIR/win
export REGTOOL_STORE="hive:$D"
expect_exit 0 "$REGTOOL" init --languages 009 --layout registry
CS="--create-service --library %SystemRoot%\\xferperf.dll --open OpenPerf --collect CollectPerf --close ClosePerf"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" install $CS ini-samples/transfer.ini
expect_exit 0 "$L" /D:TransferPerf

expect_exit 0 "$L" /Q:TransferPerf
cat >"$TMPDIR/want" <<'Q'
Performance Counter ID Queries [PERFLIB]:
    Base Index: 0x00000737 (1847)
    Last Counter Text ID: 0x00000FA4 (4004)
    Last Help Text ID: 0x00000FA5 (4005)

[TransferPerf] Performance Counters (Disabled)
    DLL Name: %SystemRoot%\xferperf.dll
    Open Procedure: OpenPerf
    Collect Procedure: CollectPerf
    Close Procedure: ClosePerf
    First Counter ID: 0x00000F98 (3992)
    Last Counter ID: 0x00000FA4 (4004)
    First Help ID: 0x00000F99 (3993)
    Last Help ID: 0x00000FA5 (4005)
Q
diff "$TMPDIR/want" "$OUT" || fail "lodctr /Q:TransferPerf differs from Windows' text"

# Disable Performance Counters present but 0 (Windows and some installers
# write 0 rather than delete the value): the provider is enabled, and
# /Q must say so, as query does. Here a backup of the tree with the value
# turned to 0, read as a psb: store.
expect_exit 0 "$REGTOOL" backup "$TMPDIR/d.ini"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/d.ini" |
    sed 's/^Disable Performance Counters=1/Disable Performance Counters=0/' |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/d0.ini"
expect_exit 0 env REGTOOL_STORE="psb:$TMPDIR/d0.ini" "$REGTOOL" query --json TransferPerf
expect_grep '"disabled":false' "$OUT"
expect_grep '"disable_value":0' "$OUT"
expect_exit 0 env REGTOOL_STORE="psb:$TMPDIR/d0.ini" "$L" /Q:TransferPerf
expect_grep '^\[TransferPerf\] Performance Counters (Enabled)$' "$OUT"

# Without First Counter (enabled): the DLL and procedure lines only.
expect_exit 0 "$L" /E:TransferPerf
expect_exit 0 "$L" /Q:PerfOS
sed -n '6,$p' "$OUT" >"$TMPDIR/got"
printf '%s\n' '[PerfOS] Performance Counters (Enabled)' \
    '    DLL Name: %SystemRoot%\System32\perfos.dll' \
    '    Open Procedure: OpenOSObject' \
    '    Collect Procedure: CollectOSObjectData' \
    '    Close Procedure: CloseOSObject' >"$TMPDIR/want"
diff "$TMPDIR/want" "$TMPDIR/got" || fail "lodctr /Q:PerfOS differs"
# /Q lists every provider, each after an empty line.
expect_exit 0 "$L" /Q
expect_grep '^\[TransferPerf\] Performance Counters (Enabled)$' "$OUT"
expect_grep '^\[ESENT\] Performance Counters (Enabled)$' "$OUT"
[ "$(grep -c '^$' "$OUT")" -eq "$(grep -c '^\[' "$OUT")" ] ||
    fail "lodctr /Q: one empty line before each provider"
expect_exit 2 "$L" /Q:NoSuchService
expect_grep "^lodctr: " "$ERR"

# A remote computer: only the live registry has one.
TREE_IGNORE=regtool.lock
tree_state "$D" >"$TMPDIR/before"
expect_exit 53 "$L" '\\SERVER' ini-samples/replication.ini
expect_grep '^lodctr: cannot connect to \\\\SERVER: the network path was not found' "$ERR"
expect_same_tree "$D" "$TMPDIR/before" "a refused remote lodctr wrote"
# A computer and then a switch (the switches act on this machine only):
# the usage, exit 87, before any store is opened (the live registry
# named, which this machine need not have).
REGTOOL_STORE=live "$L" '\\SERVER' /S:x.ini >"$OUT" 2>"$ERR"
rc=$?
[ $rc -eq 87 ] || { cat "$ERR" >&2; fail "lodctr \\\\SERVER /S: exit $rc, want 87"; }
expect_grep '^Usage:' "$ERR"
expect_grep 'lodctr \[\\\\computername\] <INI-FileName>' "$ERR"

# Usage lists every switch; messages name lodctr, never regtool or --options.
expect_exit 0 "$L" '/?'
for sw in '/S:' '/R$' '/R:' '/T:' '/E:' '/D:' '/Q\[' '/M:'; do
    expect_grep "lodctr $sw" "$OUT"
done
expect_exit 0 "$U" '/?'
expect_grep 'unlodctr <driver>' "$OUT"
expect_grep 'unlodctr /M:' "$OUT"
for args in "/X" "ini-samples/missing.ini" "/E:"; do
    "$L" $args >"$OUT" 2>"$ERR"
    grep -q 'regtool' "$ERR" && fail "lodctr $args says regtool: $(cat "$ERR")"
    grep -q -- '--' "$ERR" && fail "lodctr $args suggests an option: $(cat "$ERR")"
done
REGTOOL_STORE= "$L" /Q >"$OUT" 2>"$ERR"
grep -q 'regtool\|--store' "$ERR" && fail "no store: $(cat "$ERR")"
# Without a store the Linux build has no database to choose; lodctr.exe
# takes the machine's registry, as Windows' lodctr does (the Wine tests
# hold that).
[ "${REGTOOL_WINDOWS:-}" = 1 ] ||
    expect_grep '^lodctr: no name database chosen: set REGTOOL_STORE' "$ERR"

# unlodctr removes Object List with the ranges.
expect_exit 0 "$REGTOOL" query --json TransferPerf
expect_grep '"object_list":"3992 4000"' "$OUT"
expect_exit 0 "$U" TransferPerf
expect_exit 0 "$REGTOOL" query --json TransferPerf
expect_grep '"object_list":null' "$OUT"

# An ANSI INI's code page from REGTOOL_CODEPAGE.
S=$TMPDIR/sklad
mkdir -p "$S"
cp ini-samples/sklad.cp1251.ini ini-samples/SkladOffsets.h "$S/"
drv=$(sed -n 's/^drivername=//p' "$S/sklad.cp1251.ini" | tr -d '\r')
# The service key is the provider installer's: made here, then emptied.
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" install --codepage 1251 $CS "$S/sklad.cp1251.ini"
expect_exit 0 "$REGTOOL" uninstall "$drv"
# Without the code page the ANSI bytes are no UTF-8: refused, naming lodctr.
expect_exit 13 "$L" "$S/sklad.cp1251.ini"
grep -q 'regtool\|--' "$ERR" && fail "lodctr without a code page: $(cat "$ERR")"
# A missing service: lodctr's words, no regtool option.
printf '[info]\ndrivername=NoSvc\nsymbolfile=o.h\n[languages]\n009=E\n[text]\nO_009_NAME=N\nO_009_HELP=H\n' >"$S/nosvc.ini"
printf '#define O 0\n' >"$S/o.h"
expect_exit 2 "$L" "$S/nosvc.ini"
expect_grep "^lodctr: service 'NoSvc' does not exist" "$ERR"
grep -q -- '--' "$ERR" && fail "lodctr suggests an option: $(cat "$ERR")"
expect_exit 4 "$REGTOOL" install "$S/nosvc.ini"
expect_grep "or use --create-service" "$ERR"
REGTOOL_CODEPAGE=1251 "$L" "$S/sklad.cp1251.ini" >"$OUT" 2>"$ERR" ||
    { cat "$ERR"; fail "lodctr with REGTOOL_CODEPAGE=1251 failed"; }
expect_exit 0 "$REGTOOL" query --json "$drv"
expect_grep '"first_counter":' "$OUT"
echo "lodctr speech: ok"
