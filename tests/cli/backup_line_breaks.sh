# A PerfStringBackup file holds texts unescaped, as lodctr /S writes them:
# a line after a line break continues the text (Windows writes help texts
# so), unless it reads as a section header or an N= record. A hostile
# tree's counter name "Evil CR LF [PERF_Injected] CR LF First Counter=..."
# would give a provider a range when the backup is restored, one with
# "2=..." would replace index 2's text, one with "0=" would make the file
# unreadable: each is left out, with a warning that counts them, and the
# backup restores; a name whose second line reads as its continuation is
# kept whole. Judged as the most lenient reader would (review 49 R49-9):
# a record behind blanks (" 4242=", NBSP), with a blank before '=' or a
# sign, a header with text after its ']', a line after a bare CR or NEL.
. tests/cli/lib.sh

D=$TMPDIR/w
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009
F=$D/Windows/System32/perfc009.dat
head -c -2 "$F" >"$F.new"
printf '4000\000Evil\r\n\r\n[PERF_Injected]\r\nFirst Counter=3000\0004002\000Two\n2=Replaced\0004004\000Zero\n0=x\0004006\000Two lines\n   , continued\0004008\000Blank\r\n 4242=EVIL\0004010\000Sign\n+4243 =EVIL\0004012\000Header\n[PERFLIB] EVIL\0004014\000Bare\r4244=EVIL\0004016\000Nel\302\2054245=EVIL\0004018\000Nbsp\n\302\2404246=EVIL\000\000' |
    iconv -f UTF-8 -t UTF-16LE >>"$F.new" || fail "iconv"
mv "$F.new" "$F"
expect_exit 0 "$REGTOOL" --store "hive:$D" names 2
cp "$OUT" "$TMPDIR/two"

expect_exit 0 "$REGTOOL" --store "hive:$D" backup "$TMPDIR/b.ini"
expect_grep "warning: left out 9 strings: a line break in each would have the file read as another string or a section there" "$ERR"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/b.ini" | tr -d '\r' >"$TMPDIR/b8"
grep -q "PERF_Injected\|Replaced\|^0=\|EVIL" "$TMPDIR/b8" &&
    fail "backup: a text's lines were written as records of their own"
grep -q "^4006=Two lines$" "$TMPDIR/b8" && grep -q "^   , continued$" "$TMPDIR/b8" ||
    fail "backup: the two-line name was not kept"

# The backup reads back: restored over the tree it changes nothing but the
# nine left-out names, and gives no provider a range.
expect_exit 0 "$REGTOOL" --store "hive:$D" restore --dry-run "$TMPDIR/b.ini"
expect_exit 0 "$REGTOOL" --store "hive:$D" restore "$TMPDIR/b.ini"
expect_exit 4 "$REGTOOL" --store "hive:$D" query Injected
expect_exit 0 "$REGTOOL" --store "hive:$D" names 2
cmp -s "$OUT" "$TMPDIR/two" || fail "restore: index 2's text changed"
expect_exit 1 "$REGTOOL" --store "hive:$D" names 4000
echo "backup_line_breaks: ok"
