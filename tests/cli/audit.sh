# regtool audit through the binary: a clean init tree with the samples
# installed has no error or warning, in both layouts; damage made with
# regtool itself and with hivexsh is found with its id, in text and in
# JSON (checked with jq); several stores give one array, the worst exit
# status, and a store that cannot be opened is a finding; audit writes
# nothing.
. tests/cli/lib.sh

CS="--create-service --library x.dll --open O --collect C --close X"
for layout in files registry; do
    D=$TMPDIR/$layout
    expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009,019,00C --layout $layout
    for ini in ini-samples/transfer.ini ini-samples/replication.ini; do
        # shellcheck disable=SC2086
        expect_exit 0 "$REGTOOL" --store "hive:$D" install $CS "$ini"
    done
    tree_state "$D" >"$TMPDIR/before"
    expect_exit 0 "$REGTOOL" --store "hive:$D" audit
    expect_grep "^0 errors, 0 warnings, " "$OUT"
    expect_exit 0 "$REGTOOL" --store "hive:$D" audit --json
    jq -e '.summary.errors == 0 and .summary.warnings == 0 and (.findings | type) == "array"' \
        "$OUT" >/dev/null || fail "$layout: audit --json: $(cat "$OUT")"
    expect_same_tree "$D" "$TMPDIR/before" "$layout: audit wrote to the store"
done

# --format prometheus: the exposition of the same clean tree (made whole
# in memory, then written).
expect_exit 0 "$REGTOOL" --store "hive:$D" audit --format prometheus
expect_grep '^regtool_audit_success 1$' "$OUT"
expect_grep '^regtool_audit_findings_by_severity{severity="error"} 0$' "$OUT"
expect_grep '^regtool_base_index 1847$' "$OUT"

# A tree with system files (ntdll.dll, kernel32.dll) and every provider's
# Library in System32, in any letter case: each Library is looked up and
# found, nothing said; the one taken away is named, alone.
L=$TMPDIR/dlls
cp -a "$TMPDIR/files" "$L"
for dll in ntdll.dll kernel32.dll mscoree.dll esentprf.dll msdtcuiu.dll perfos.dll rasctrs.dll x.dll; do
    : >"$L/Windows/System32/$dll"
done
expect_exit 0 "$REGTOOL" --store "hive:$L" audit
expect_grep "^0 errors, 0 warnings, 0 info$" "$OUT"
rm "$L/Windows/System32/perfos.dll"
expect_exit 1 "$REGTOOL" --store "hive:$L" audit
expect_grep "^warning library-not-found: PerfOS: Library %SystemRoot%\\\\System32\\\\perfos.dll: Windows\\\\System32\\\\perfos.dll is not in the tree$" "$OUT"
expect_grep "^0 errors, 1 warning, 0 info$" "$OUT"

# A Library named by an 8.3 short name below a setup folder
# (C:\PROGRA~1\VENDOR~1\xfer.dll) is resolved by listing Program Files:
# found in Vendor Tools, nothing said; taken away, named as not in the
# tree.
: >"$L/Windows/System32/perfos.dll"
# (TransferPerf installed again, --force replacing its service's Library)
expect_exit 0 "$REGTOOL" --store "hive:$L" uninstall TransferPerf
expect_exit 0 "$REGTOOL" --store "hive:$L" install --force --create-service \
    --library 'C:\PROGRA~1\VENDOR~1\xfer.dll' --open O --collect C --close X \
    ini-samples/transfer.ini
mkdir -p "$L/Program Files/Vendor Tools" ||
    fail "cannot make Program Files/Vendor Tools"
: >"$L/Program Files/Vendor Tools/xfer.dll"
expect_exit 0 "$REGTOOL" --store "hive:$L" audit
expect_grep "^0 errors, 0 warnings, 0 info$" "$OUT"
rm "$L/Program Files/Vendor Tools/xfer.dll"
expect_exit 1 "$REGTOOL" --store "hive:$L" audit
expect_grep "^warning library-not-found: TransferPerf: Library C:\\\\PROGRA~1\\\\VENDOR~1\\\\xfer.dll" "$OUT"

D=$TMPDIR/registry
S="--store hive:$D"
SW=$D/Windows/System32/config/SOFTWARE
# A disabled provider: a warning, exit 1, the fix names it.
expect_exit 0 "$REGTOOL" $S disable TransferPerf
expect_exit 1 "$REGTOOL" $S audit --json
jq -e '.findings[] | select(.id == "counters-disabled" and .fix == "regtool enable TransferPerf")' \
    "$OUT" >/dev/null || fail "no counters-disabled finding: $(cat "$OUT")"
expect_exit 1 "$REGTOOL" $S audit
expect_grep "^warning counters-disabled: TransferPerf: Disable Performance Counters is 1" "$OUT"
expect_grep "fix: regtool enable TransferPerf" "$OUT"
expect_exit 0 "$REGTOOL" $S enable TransferPerf

# Last Counter set below the highest index with hivexsh: an error, exit 2.
perflib_set "$SW" "Last_Counter=2048"
expect_exit 2 "$REGTOOL" $S audit --json
jq -e '.findings[0].severity == "error" and ([.findings[].id] | index("last-counter-below-highest")) != null' \
    "$OUT" >/dev/null || fail "Last Counter 2048 not found: $(cat "$OUT")"

# Three stores at once: one array, the worst exit status; a store that
# cannot be opened is a finding of its own.
expect_exit 2 "$REGTOOL" audit --json "hive:$TMPDIR/files" "hive:$D" "hive:$TMPDIR/none"
jq -e 'length == 3 and .[0].summary.errors == 0 and .[1].summary.errors > 0 and
       .[2].findings[0].id == "store-unreadable" and .[2].layout == null' \
    "$OUT" >/dev/null || fail "three stores: $(cat "$OUT")"
# The worst whatever the order: errors then warnings only, warnings then
# a clean store.
expect_exit 2 "$REGTOOL" audit "hive:$D" "hive:$L"
expect_exit 2 "$REGTOOL" audit "hive:$L" "hive:$D"
expect_exit 1 "$REGTOOL" audit "hive:$L" "hive:$TMPDIR/files"
expect_exit 1 "$REGTOOL" audit "hive:$TMPDIR/files" "hive:$L"
printf '# trees\nhive:%s\n\nhive:%s\n' "$TMPDIR/files" "$TMPDIR/files" >"$TMPDIR/list"
expect_exit 0 "$REGTOOL" audit --json --stores-from "$TMPDIR/list"
jq -e 'length == 2' "$OUT" >/dev/null || fail "--stores-from: $(cat "$OUT")"
expect_exit 64 "$REGTOOL" audit --bogus
expect_exit 0 "$REGTOOL" audit --help
expect_grep "stores-from" "$OUT"

# A finding's indices under it in the text, each once, and "... N more"
# only past the eight shown (planted set 34: "... 0 more" under every
# finding of one to eight): index 4 of 009's Counter made a second 2.
cp -a "$TMPDIR/files" "$TMPDIR/dup"
perl -0777 -i -pe 'BEGIN { ($f, $t) = map { my $x = $_; $x =~ s/\\0/\0/g; join "", map { "$_\0" } split //, $x } ("4\\0", "2\\0") }
    s/\Q$f\E/$t/ or die "no index 4\n"' "$TMPDIR/dup/Windows/System32/perfc009.dat" ||
    fail "cannot make index 4 a second 2"
expect_exit 2 "$REGTOOL" --store "hive:$TMPDIR/dup" audit
expect_grep "^error   duplicate-index \[009\]: Perflib.009.Counter has index 2 2 times$" "$OUT"
[ "$(grep -c '^        2 "' "$OUT")" -eq 2 ] || fail "the duplicate's two pairs not listed: $(cat "$OUT")"
grep -q 'more (--json lists them all)' "$OUT" && fail "a finding of few indices said more: $(cat "$OUT")"
echo "audit: ok"
