# Bytes written by an install into the benchmark workload (bench/): a
# 79 MB SOFTWARE hive, twelve languages with Help values of about 5 MB, a
# provider of 200 counters (400 index/text pairs per language). Bytes are
# deterministic, so they are asserted here; time is only reported by
# `make bench`. Every byte through lib/commit/io.c counts, the journal's too.
. tests/cli/lib.sh

MKBENCH=$(dirname "$REGTOOL")/bench/mkbench
[ -x "$MKBENCH" ] || fail "no $MKBENCH (make builds it)"
D=$TMPDIR/tree
expect_exit 0 "$MKBENCH" hives "$D"
expect_exit 0 "$MKBENCH" provider "$TMPDIR/prov" --symbols 200
SW=$D/Windows/System32/config/SOFTWARE
size0=$(stat -c %s "$SW")
[ "$size0" -ge $((79 * 1048576)) ] || fail "workload SOFTWARE is only $size0 bytes"

written() { sed -n 's/^regtool: \([0-9]*\) bytes written.*/\1/p' "$ERR"; }
# The tree has a Windows directory: the install also copies the INI and
# its symbol file to Windows/INF/BenchPerf/0009 (engine/side_files.h),
# through the journal, so twice.
inf=$(( $(wc -c <"$TMPDIR/prov/bench.ini") + $(wc -c <"$TMPDIR/prov/BenchOffsets.h") ))
expect_exit 0 $REGTOOL --verbose --store "hive:$D" install --create-service \
    --library perfbench.dll --open Open --collect Collect --close Close \
    "$TMPDIR/prov/bench.ini"
bytes=$(written)
echo "install: $bytes bytes written"
# The provider's strings alone are about 590 KB in UTF-16 over twelve
# languages. Bytes appended past the old end of the hive are written once
# (rt_commit_write_fresh), zero pages past the file's end not at all; in
# pages the file already has, only the bytes that differ, twice (journal,
# then file). The goal: under 1 MB in all, and the INF copy.
[ -n "$bytes" ] && [ "$bytes" -lt $((1000000 + 2 * inf)) ] || fail "install wrote ${bytes:-?} bytes"
expect_exit 0 $REGTOOL --store "hive:$D" names --lang 816 "Bench Service 1"
[ "$(stat -c %s "$SW")" -lt $((size0 + 1048576)) ] || fail "SOFTWARE grew by more than 1 MB"

expect_exit 0 $REGTOOL --verbose --store "hive:$D" uninstall BenchPerf
bytes=$(written)
echo "uninstall: $bytes bytes written"
[ -n "$bytes" ] && [ "$bytes" -lt 1000000 ] || fail "uninstall wrote ${bytes:-?} bytes"
# The structure stays sound after both commits.
expect_exit 0 $REGTOOL hive check "$SW"

# The same tables as .dat files in System32 and SysWOW64 (Vista and
# later): each changed table is written as the bytes that differ from
# what it held, through the journal (so twice) and in both copies; about
# 590 KB of provider strings make 2.36 MB. Both copies stay identical.
F=$TMPDIR/files
expect_exit 0 "$MKBENCH" hives "$F" --layout files
same_copies() {
    for f in "$F"/Windows/System32/perf*.dat; do
        cmp -s "$f" "$F/Windows/SysWOW64/$(basename "$f")" ||
            fail "$f and its SysWOW64 copy differ"
    done
}
expect_exit 0 $REGTOOL --verbose --store "hive:$F" install --create-service \
    --library perfbench.dll --open Open --collect Collect --close Close \
    "$TMPDIR/prov/bench.ini"
bytes=$(written)
echo "install, files layout: $bytes bytes written"
[ -n "$bytes" ] && [ "$bytes" -lt $((2500000 + 2 * inf)) ] || fail "install wrote ${bytes:-?} bytes"
same_copies
expect_exit 0 $REGTOOL --store "hive:$F" names --lang 816 "Bench Service 1"
expect_exit 0 $REGTOOL --verbose --store "hive:$F" uninstall BenchPerf
bytes=$(written)
echo "uninstall, files layout: $bytes bytes written"
[ -n "$bytes" ] && [ "$bytes" -lt 100000 ] || fail "uninstall wrote ${bytes:-?} bytes"
same_copies
