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
# And as Windows' profile reader reads them, the one lodctr /R uses
# (review 53): a '[' line without its ']', a control character before
# '[' or a number, a VT before '=', a word after a number ("4248 x=",
# which wcstoul reads as 4248); a header to regtool's own reader, which
# ends lines at CR LF only ("[X<LS>]"); a text ending in a line feed,
# which would not read back; a line after FS alone (review 54 R54-1: the
# tables' UTF-16 was not looked at for it).
. tests/cli/lib.sh

D=$TMPDIR/w
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009
F=$D/Windows/System32/perfc009.dat
head -c -2 "$F" >"$F.new"
printf '4000\000Evil\r\n\r\n[PERF_Injected]\r\nFirst Counter=3000\0004002\000Two\n2=Replaced\0004004\000Zero\n0=x\0004006\000Two lines\n   , continued\0004008\000Blank\r\n 4242=EVIL\0004010\000Sign\n+4243 =EVIL\0004012\000Header\n[PERFLIB] EVIL\0004014\000Bare\r4244=EVIL\0004016\000Nel\302\2054245=EVIL\0004018\000Nbsp\n\302\2404246=EVIL\0004020\000Cut\n[PERF_PerfOS\nFirst Counter=1848\0004022\000Ctl\n\001[PERF_PerfOS]\r\nFirst Counter=1848\0004024\000Vt\n4247\v=EVIL\0004026\000Ls\n[X\342\200\250]\0004028\000Word\n4248 x=EVIL\0004030\000Trail\n\0004032\000Fs\0344249=EVIL\034[PERF_PerfOS]\000\000' |
    iconv -f UTF-8 -t UTF-16LE >>"$F.new" || fail "iconv"
mv "$F.new" "$F"
expect_exit 0 "$REGTOOL" --store "hive:$D" names 2
cp "$OUT" "$TMPDIR/two"

expect_exit 0 "$REGTOOL" --store "hive:$D" backup "$TMPDIR/b.ini"
expect_grep "warning: left out 16 strings whose line breaks would not read back as written (as another string or a section there, or a final line feed dropped; names --json shows them)" "$ERR"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/b.ini" | tr -d '\r' >"$TMPDIR/b8"
grep -q "PERF_Injected\|Replaced\|^0=\|EVIL\|PERF_PerfOS\|Trail\|\[X" "$TMPDIR/b8" &&
    fail "backup: a text's lines were written as records of their own"
grep -q "^4006=Two lines$" "$TMPDIR/b8" && grep -q "^   , continued$" "$TMPDIR/b8" ||
    fail "backup: the two-line name was not kept"

# The backup reads back: restored over the tree it changes nothing but the
# sixteen left-out names, and gives no provider a range.
expect_exit 0 "$REGTOOL" --store "hive:$D" restore --dry-run "$TMPDIR/b.ini"
expect_exit 0 "$REGTOOL" --store "hive:$D" restore "$TMPDIR/b.ini"
expect_exit 4 "$REGTOOL" --store "hive:$D" query Injected
expect_exit 0 "$REGTOOL" --store "hive:$D" names 2
cmp -s "$OUT" "$TMPDIR/two" || fail "restore: index 2's text changed"
expect_exit 1 "$REGTOOL" --store "hive:$D" names 4000
echo "backup_line_breaks: ok"
