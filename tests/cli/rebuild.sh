# regtool rebuild (lodctr /R, docs/design.md, "Rebuilding: lodctr /R") from
# the backup store install keeps (tests/cli/side_files.sh), judged by
# independent readers (reglookup for the hives, iconv for the .dat tables)
# and by every file's bytes:
# - three providers installed, every Counter and Help table emptied (both
#   System32 and SysWOW64): the dry run names each provider's source and
#   loses nothing, writes nothing; rebuild gives back every table byte
#   for byte, in both directories, and Perflib's and the services'
#   values;
# - one provider's INF copy deleted and its strings gone (tables emptied,
#   no PerfStringBackup.INI): the dry run names it as lost and the file
#   it could not find; rebuild without --accept-loss (exit 4) and
#   `lodctr /R` (2) write nothing, every file byte-identical; --from a
#   copy of an identical machine's Windows directory loses nothing;
#   --accept-loss rebuilds without it;
# - with tables as values, an intact database rebuilds to itself;
# - an INF copy that is not the INI installed (symbols past the range,
#   another drivername) is not used, and the dry run says why.
. tests/cli/lib.sh

D=$TMPDIR/win
W=$D/Windows
S="--store hive:$D"
CS="--create-service --library x.dll --open O --collect C --close X"
mkdir -p "$TMPDIR/bin"
ln -s "$REGTOOL" "$TMPDIR/bin/lodctr"

# regtool --help lists rebuild; rebuild --help says what it does.
expect_exit 0 $REGTOOL --help
expect_grep "rebuild \[--dry-run\] \[--from DIR\] \[--accept-loss\]" "$OUT"
expect_exit 0 $REGTOOL rebuild --help
expect_grep "winmgmt /resyncperf" "$OUT"
expect_exit 64 $REGTOOL rebuild extra

expect_exit 0 $REGTOOL $S init --languages 009,019,00C

# psb_current: PerfStringBackup.INI is what backup saves now.
psb_current() {
    rm -f "$TMPDIR/psb"
    expect_exit 0 $REGTOOL $S backup "$TMPDIR/psb"
    cmp -s "$TMPDIR/psb" "$W/System32/PerfStringBackup.INI" ||
        fail "$1: PerfStringBackup.INI differs from regtool backup's output"
}

# Three providers: UTF-16 with BOM, UTF-8 in four languages, .NET's.
for i in transfer.ini replication.ini dotnet/category.ini; do
    expect_exit 0 $REGTOOL $S install $CS "ini-samples/$i"
done
psb_current "three installs"
[ -e "$W/INF/OrderService/0009/tmp1A2B.tmp" ] || fail "no INF copy of .NET's symbol file"

# tables DIR: every .dat table's bytes; values DIR: Perflib's values and
# every service's, as reglookup reads them.
tables() { (cd "$1/Windows" && sha256sum System32/*.dat SysWOW64/*.dat); }
values() {
    reglookup -H -p "/Microsoft/Windows NT/CurrentVersion/Perflib" \
        "$1/Windows/System32/config/SOFTWARE" | grep -v ',KEY,' ||
        fail "reglookup SOFTWARE"
    reglookup -H -p /ControlSet001/Services "$1/Windows/System32/config/SYSTEM" |
        grep -v ',KEY,' || fail "reglookup SYSTEM"
}
tables "$D" >"$TMPDIR/tables.before"
values "$D" >"$TMPDIR/values.before"
cp -a "$D" "$TMPDIR/good"

# Every Counter and Help table emptied, in both directories.
empty_tables() {
    for f in "$1"/Windows/System32/perf[ch]*.dat "$1"/Windows/SysWOW64/perf[ch]*.dat; do
        : >"$f"
    done
}
empty_tables "$D"
tree_state "$D" >"$TMPDIR/emptied"
expect_exit 0 $REGTOOL $S rebuild --dry-run
expect_same_tree "$D" "$TMPDIR/emptied"
for l in 009 019 00C; do
    expect_grep "^language $l: base from the tables as installed; " "$OUT"
done
for p in TransferPerf ReplicationPerf OrderService; do
    expect_grep "^provider $p (names [0-9]*-[0-9]*, help [0-9]*-[0-9]*): 009 from the INF copy; 00C from the INF copy; 019 from the INF copy$" "$OUT"
    expect_grep "^  INF copy: $DRIVE$W/INF/$p/0009/" "$OUT"
done
# The built-in providers have no INF copy: their strings are in the
# backup.
expect_grep "^provider ESENT (names 1848-2398, help 1849-2399): 009 from the PerfStringBackup.INI;" "$OUT"
expect_grep "^regtool: nothing would be lost$" "$OUT"
expect_grep "^regtool: winmgmt /resyncperf has no offline counterpart" "$OUT"
grep -q LOST "$OUT" && fail "the dry run loses something"

expect_exit 0 $REGTOOL $S rebuild
tables "$D" | diff "$TMPDIR/tables.before" - || fail "rebuild did not restore every table"
values "$D" | diff "$TMPDIR/values.before" - || fail "rebuild changed a value"
psb_current rebuild
# An independent decoding of the rebuilt table: the Russian name.
iconv -f UTF-16LE -t UTF-8 "$W/SysWOW64/perfc019.dat" | tr '\0' '\n' |
    grep -qx 'Строк реплицировано/с' || fail "SysWOW64's 019 table lacks a Russian name"
expect_exit 0 $REGTOOL $S hive check "$W/System32/config/SOFTWARE"
# Nothing left to do: a second rebuild writes nothing.
expect_exit 0 $REGTOOL $S rebuild
expect_grep "^regtool: rebuilt the tables from $DRIVE$W: 0 changes, nothing to write$" "$OUT"

# TransferPerf's INF copy deleted and its strings gone: tables emptied,
# PerfStringBackup.INI gone too.
rm -r "$W/INF/TransferPerf" "$W/System32/PerfStringBackup.INI"
empty_tables "$D"
tree_state "$D" >"$TMPDIR/lossy"
# The dry run shows it all and exits as the rebuild would: 4.
expect_exit 4 $REGTOOL $S rebuild --dry-run
expect_grep "rebuild: 3 provider or language texts cannot be recovered: the rebuild would write nothing (--accept-loss" "$ERR"
expect_grep "^provider TransferPerf (names 3992-4004, help 3993-4005): 009 LOST; 00C LOST; 019 LOST$" "$OUT"
expect_grep "^  no INF copy: $DRIVE$W/INF/TransferPerf/0009/transfer.ini: not found$" "$OUT"
expect_grep "^  LOST: TransferPerf has no text in 3 languages" "$OUT"
expect_grep "^missing: $DRIVE$W/System32/PerfStringBackup.INI: not found$" "$OUT"
expect_grep "^provider ReplicationPerf .*: 009 from the INF copy;" "$OUT"
expect_grep "^provider ESENT .*: 009 from the tables as installed;" "$OUT"
expect_grep "^regtool: 3 provider or language texts would be lost (--accept-loss)$" "$OUT"
expect_same_tree "$D" "$TMPDIR/lossy"
expect_exit 4 $REGTOOL $S rebuild
expect_grep "LOST: TransferPerf" "$OUT"
expect_grep "rebuild: 3 provider or language texts cannot be recovered; nothing was written (--accept-loss" "$ERR"
expect_same_tree "$D" "$TMPDIR/lossy"
# lodctr /R: Windows' "error code is 2", the file named.
REGTOOL_STORE="hive:$D" expect_exit 2 "$TMPDIR/bin/lodctr" /R
expect_grep "transfer.ini: not found" "$OUT"
grep -q -- '--accept-loss' "$OUT" "$ERR" && fail "lodctr suggests an option lodctr lacks"
expect_same_tree "$D" "$TMPDIR/lossy"

# From an identical machine's Windows directory: nothing lost, every
# table back.
expect_exit 0 $REGTOOL $S rebuild --from "$TMPDIR/good/Windows"
expect_grep "^regtool: rebuilt the tables from $DRIVE$TMPDIR/good/Windows: " "$OUT"
tables "$D" | diff "$TMPDIR/tables.before" - || fail "rebuild --from did not restore every table"
expect_exit 64 $REGTOOL $S rebuild --from ""
expect_exit 3 $REGTOOL $S rebuild --from "$TMPDIR/no/such/dir"

# --accept-loss: the others come back, TransferPerf's names do not.
rm -rf "$D"
cp -a "$TMPDIR/good" "$D"
rm -r "$W/INF/TransferPerf" "$W/System32/PerfStringBackup.INI"
empty_tables "$D"
expect_exit 0 $REGTOOL $S rebuild --accept-loss
expect_grep "^regtool: 3 provider or language texts were lost (--accept-loss)$" "$OUT"
iconv -f UTF-16LE -t UTF-8 "$W/System32/perfc009.dat" | tr '\0' '\n' >"$TMPDIR/names"
grep -qx 'Replication' "$TMPDIR/names" || fail "ReplicationPerf's names did not come back"
grep -qx 'Transfer' "$TMPDIR/names" && fail "TransferPerf's names came from nowhere"
cmp -s "$W/System32/perfc019.dat" "$W/SysWOW64/perfc019.dat" ||
    fail "System32 and SysWOW64 differ after rebuild"
# Its range stays without text (the next rebuild says so again) until it
# is uninstalled; then lodctr /R loses nothing: 0.
REGTOOL_STORE="hive:$D" expect_exit 2 "$TMPDIR/bin/lodctr" /R
expect_exit 0 $REGTOOL $S uninstall TransferPerf
REGTOOL_STORE="hive:$D" expect_exit 0 "$TMPDIR/bin/lodctr" /R
expect_grep "^lodctr: rebuilt the tables from $DRIVE$W: 0 changes, nothing to write$" "$OUT"

# Tables as values (the registry layout): the tables as installed are in
# System32 all the same; a rebuild of an intact database changes
# nothing, and without its INF copy a provider's strings come from the
# current tables.
R=$TMPDIR/reg
expect_exit 0 $REGTOOL --store "hive:$R" init --languages 009,019 --layout registry
expect_exit 0 $REGTOOL --store "hive:$R" install $CS ini-samples/replication.ini
expect_exit 0 $REGTOOL --store "hive:$R" rebuild --dry-run
expect_grep "^provider ReplicationPerf .*: 009 from the INF copy; 019 from the INF copy$" "$OUT"
expect_grep "^regtool: would rebuild the tables from $DRIVE$R/Windows: 0 changes$" "$OUT"
rm -r "$R/Windows/INF/ReplicationPerf"
expect_exit 0 $REGTOOL --store "hive:$R" rebuild
expect_grep "^provider ReplicationPerf .*: 009 from the current tables; 019 from the current tables$" "$OUT"
expect_grep "^regtool: rebuilt the tables from $DRIVE$R/Windows: 0 changes, nothing to write$" "$OUT"

# A store without a Windows directory (hive files named directly) has
# nothing to rebuild from but --from.
H=$TMPDIR/hives
mkdir "$H"
cp "$TMPDIR/good/Windows/System32/config/SOFTWARE" "$TMPDIR/good/Windows/System32/config/SYSTEM" "$H/"
HS="--store hive:$H/SOFTWARE,$H/SYSTEM --tables $TMPDIR/good/Windows/System32"
expect_exit 3 $REGTOOL $HS rebuild --dry-run
expect_grep "no Windows directory to rebuild from" "$ERR"
expect_exit 0 $REGTOOL $HS rebuild --dry-run --from "$TMPDIR/good/Windows"
expect_grep "^regtool: nothing would be lost$" "$OUT"
# The same options in their --store=SPEC and --tables=DIR spellings.
expect_exit 0 $REGTOOL --store=hive:$H/SOFTWARE,$H/SYSTEM --tables=$TMPDIR/good/Windows/System32 rebuild --dry-run --from "$TMPDIR/good/Windows"
expect_grep "^regtool: nothing would be lost$" "$OUT"
# Sources over their caps (sparse files: gigabytes that cost nothing on
# disk were read whole, 4.2 GB of memory for 4 GB of --from files) are
# refused by their size, nothing read, nothing written: a backup over
# 1536 MiB and a perfd009.dat over 256 MiB in --from, the tree's own
# PerfStringBackup.INI over 1536 MiB.
C=$TMPDIR/capped
TREE_IGNORE=regtool.lock   # the lock file a refused writer may leave
expect_exit 0 $REGTOOL --store "hive:$C" init
mkdir -p "$TMPDIR/bigfrom/System32"
truncate -s 2G "$TMPDIR/bigfrom/System32/PerfStringBackup.INI"
tree_state "$C" >"$TMPDIR/capped.before"
expect_exit 2 timeout 20 $REGTOOL --store "hive:$C" rebuild --from "$TMPDIR/bigfrom"
expect_grep "bigfrom/System32/PerfStringBackup.INI: 2147483648 bytes, larger than the 1536 MiB a side file may be; nothing was read" "$ERR"
rm "$TMPDIR/bigfrom/System32/PerfStringBackup.INI"
truncate -s 300M "$TMPDIR/bigfrom/System32/perfd009.dat"
expect_exit 2 timeout 20 $REGTOOL --store "hive:$C" rebuild --from "$TMPDIR/bigfrom"
expect_grep "perfd009.dat: 314572800 bytes, larger than the 256 MiB a .dat table may be; nothing was read" "$ERR"
expect_same_tree "$C" "$TMPDIR/capped.before" "a refused rebuild --from wrote"
truncate -s 2G "$C/Windows/System32/PerfStringBackup.INI"
tree_state "$C" >"$TMPDIR/capped.before"
expect_exit 2 timeout 20 $REGTOOL --store "hive:$C" rebuild
expect_grep "Windows/System32/PerfStringBackup.INI: 2147483648 bytes, larger than the 1536 MiB a side file may be" "$ERR"
expect_same_tree "$C" "$TMPDIR/capped.before" "a refused rebuild wrote"
TREE_IGNORE=

# An INF copy that is not the INI installed (more symbols than the
# range, or another drivername) is not used: its texts would land on the
# next provider's indices (duplicates an audit then finds). The dry run
# says why; the provider comes from the tables.
O=$TMPDIR/other
expect_exit 0 $REGTOOL --store "hive:$O" init
expect_exit 0 $REGTOOL --store "hive:$O" install $CS ini-samples/transfer.ini
ini=$(ls "$O"/Windows/INF/TransferPerf/0009/*.ini)
sym=hijack.h
awk 'BEGIN { for (i = 0; i < 40; i++) printf "#define S%d %d\n", i, 2 * i }' \
    >"$(dirname "$ini")/$sym"
awk -v s="$sym" 'BEGIN {
        printf "[info]\ndrivername=TransferPerf\nsymbolfile=%s\n[languages]\n009=English\n[objects]\nS0_009_NAME=\n[text]\n", s
        for (i = 0; i < 40; i++) printf "S%d_009_NAME=Hijack %d\nS%d_009_HELP=Hijack help %d\n", i, i, i, i }' >"$ini"
expect_exit 0 $REGTOOL --store "hive:$O" rebuild --dry-run
expect_grep "^  no INF copy: .*TransferPerf/0009/.*: its symbol [A-Za-z0-9_]* (offset [0-9]*) would be at index [0-9]*/[0-9]*, past the installed range [0-9]*-[0-9]* (help [0-9]*-[0-9]*): not the INI that was installed" "$OUT"
expect_grep "^provider TransferPerf .*: 009 from the current tables" "$OUT"
sed -i 's/^drivername=.*/drivername=Someone/' "$ini"
expect_exit 0 $REGTOOL --store "hive:$O" rebuild --dry-run
expect_grep "^  no INF copy: .*: its drivername 'Someone' is another service's: not the INI that was installed" "$OUT"
# A provider whose Last Counter is gone is placed at First Counter alone:
# its INF copy of seven counters would put six on indices its range does
# not cover (another provider's, when one lies there). Not used; the
# dry run says why. Last Counter taken out by hivexsh, the independent
# writer (setval replaces a key's values: the rest written again).
O=$TMPDIR/nolast
expect_exit 0 $REGTOOL --store "hive:$O" init
expect_exit 0 $REGTOOL --store "hive:$O" install $CS ini-samples/transfer.ini
expect_grep "^installed TransferPerf: names 3992-4004, help 3993-4005" "$OUT"
hivexsh -w "$O/Windows/System32/config/SYSTEM" <<'HIVEX' || fail "hivexsh could not take Last Counter out"
cd \ControlSet001\Services\TransferPerf\Performance
setval 9
Library
expandstring:x.dll
Open
string:O
Collect
string:C
Close
string:X
First Counter
dword:0x00000f98
First Help
dword:0x00000f99
Last Help
dword:0x00000fa5
Object List
string:3992 4000
PerfIniFile
string:transfer.ini
commit
HIVEX
expect_exit 0 $REGTOOL --store "hive:$O" rebuild --dry-run
expect_grep "^  no INF copy: .*TransferPerf/0009/.*: its symbol [A-Za-z0-9_]* (offset 2) would be at index 3994/3995, past the registry's range 3992-3992 (help 3993-4005), its Last Counter, First Help or Last Help missing" "$OUT"
expect_grep "^provider TransferPerf .*: 009 from the current tables" "$OUT"
echo "rebuild: ok"
