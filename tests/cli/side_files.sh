# The backup store install keeps for Windows' own lodctr /R (docs/design.md,
# "The backup store"), in the same commit as the change, judged by the
# files' bytes:
# - init writes the tables as installed (perfdLLL.dat, perfiLLL.dat) in
#   System32 and SysWOW64 and System32/PerfStringBackup.INI;
# - install copies the INI and its symbol file to Windows/INF/<driver>/
#   0009 byte for byte, uninstall removes them with their folders;
# - System32/PerfStringBackup.INI is the output of `regtool backup` after
#   init, install, uninstall, disable and enable (iconv reads the new
#   section);
# - a store without a Windows directory (hive files named directly) says
#   that it keeps neither.
. tests/cli/lib.sh

D=$TMPDIR/win
W=$D/Windows
S="--store hive:$D"
CS="--create-service --library x.dll --open O --collect C --close X"

expect_exit 0 $REGTOOL $S init --languages 009,019,00C
for f in perfd009 perfi009 perfd019 perfi00C; do
    [ -s "$W/System32/$f.dat" ] && [ -s "$W/SysWOW64/$f.dat" ] ||
        fail "init wrote no $f.dat in System32 and SysWOW64"
done
# The tables as installed are the tables init wrote.
cmp -s "$W/System32/perfd009.dat" "$W/System32/perfc009.dat" ||
    fail "perfd009.dat is not the base Counter table"

# psb_current: PerfStringBackup.INI is what backup saves now.
psb_current() {
    rm -f "$TMPDIR/psb"
    expect_exit 0 $REGTOOL $S backup "$TMPDIR/psb"
    cmp -s "$TMPDIR/psb" "$W/System32/PerfStringBackup.INI" ||
        fail "$1: PerfStringBackup.INI differs from regtool backup's output"
}
psb_current init

# Install: the INF copy, byte for byte; uninstall removes it.
expect_exit 0 $REGTOOL $S install $CS ini-samples/transfer.ini
cmp -s ini-samples/transfer.ini "$W/INF/TransferPerf/0009/transfer.ini" ||
    fail "no INF copy of transfer.ini"
cmp -s ini-samples/CounterOffsets.h "$W/INF/TransferPerf/0009/CounterOffsets.h" ||
    fail "no INF copy of CounterOffsets.h"
psb_current install
iconv -f UTF-16LE -t UTF-8 "$W/System32/PerfStringBackup.INI" | grep -q '^\[PERF_TransferPerf\]' ||
    fail "PerfStringBackup.INI has no [PERF_TransferPerf]"
expect_exit 0 $REGTOOL $S uninstall --dry-run TransferPerf
expect_grep "file INF/TransferPerf/0009/transfer.ini: removed" "$OUT"
expect_exit 0 $REGTOOL $S uninstall TransferPerf
[ ! -e "$W/INF/TransferPerf" ] || fail "uninstall left $(find "$W/INF/TransferPerf")"
psb_current uninstall
# enable/disable keep it too (Disable Performance Counters is saved).
expect_exit 0 $REGTOOL $S disable ESENT
psb_current disable
expect_exit 0 $REGTOOL $S enable ESENT
psb_current enable

# Hive files named directly: no Windows directory, no side files.
H=$TMPDIR/hives
mkdir "$H"
cp "$W/System32/config/SOFTWARE" "$W/System32/config/SYSTEM" "$H/"
HS="--store hive:$H/SOFTWARE,$H/SYSTEM --tables $W/System32"
expect_exit 0 $REGTOOL $HS install --dry-run $CS ini-samples/transfer.ini
expect_grep "^note: this store has no Windows directory: no INF copy and no PerfStringBackup.INI are kept$" "$OUT"
grep -q '^  file ' "$OUT" && fail "a store without a Windows directory plans files"
# A crash after the commit point leaves a sealed journal whose note the
# next reader shows: what the commit was for, "install of TransferPerf"
# or "uninstall of TransferPerf", not a bare change; a restore that sets
# two services' ranges, "change of ReplicationPerf and other services",
# not the install of the first.
J=$TMPDIR/journaled
crash_note() {   # crash_note WHAT ARGS...: the note shown after a crash
    verb=$1; shift
    rm -rf "$J"; cp -R "$D" "$J"
    $REGTOOL --verbose --store "hive:$J" "$@" >"$OUT" 2>"$ERR" ||
        fail "$verb: $(cat "$ERR")"
    writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR")
    [ -n "$writes" ] || fail "$verb: no count of writes in: $(cat "$ERR")"
    rm -rf "$J"; cp -R "$D" "$J"
    REGTOOL_FAULT_AFTER_WRITES=$((writes - 1)) $REGTOOL_TESTING \
        --store "hive:$J" "$@" >/dev/null 2>&1
    [ $? -eq 99 ] || fail "$verb: the fault hook did not end the run"
    expect_exit 0 $REGTOOL --store "hive:$J" query TransferPerf
    expect_grep "regtool.journal: .*the $verb committed at" "$ERR"
}
crash_note "install of TransferPerf" install $CS ini-samples/transfer.ini
expect_exit 0 $REGTOOL $S install $CS ini-samples/transfer.ini
crash_note "uninstall of TransferPerf" uninstall TransferPerf
expect_exit 0 $REGTOOL $S install $CS ini-samples/replication.ini
expect_exit 0 $REGTOOL $S backup "$TMPDIR/both.ini"
expect_exit 0 $REGTOOL $S uninstall ReplicationPerf
expect_exit 0 $REGTOOL $S uninstall TransferPerf
crash_note "change of ReplicationPerf and other services" restore "$TMPDIR/both.ini"
rm -rf "$J"

echo "side files: ok"
