# regtool diff: a tree against itself, its copy and its backup is the
# same (exit 0) and writes nothing; after an install into the copy and a disable, the
# provider, its range, Perflib's values and the pairs' counts per group
# (exit 1); --store A with B; bad command lines and missing stores; and
# two real PerfStringBackup files (../shared/research-real B and D,
# decompressed here), whose summary names in a few lines the providers
# that differ, with --json checked by jq.
. tests/cli/lib.sh

A=$TMPDIR/a
B=$TMPDIR/b
expect_exit 0 "$REGTOOL" init --languages 009,019 --store "hive:$A"
TREE_IGNORE=regtool.lock
tree_state "$A" >"$TMPDIR/before"
expect_exit 0 "$REGTOOL" diff "hive:$A" "hive:$A"
expect_grep "^same: no difference" "$OUT"
expect_same_tree "$A" "$TMPDIR/before" "diff wrote to the store"
# A tree and its own PerfStringBackup file: the same.
expect_exit 0 "$REGTOOL" backup --store "hive:$A" "$TMPDIR/a.ini"
expect_exit 0 "$REGTOOL" diff "hive:$A" "psb:$TMPDIR/a.ini"
expect_grep "^same: no difference" "$OUT"
# Perflib's Version, which a PerfStringBackup file lacks: compared where
# both have it (.reg exports).
expect_exit 0 "$REGTOOL" backup --format reg --store "hive:$A" "$TMPDIR/a.reg"
expect_exit 0 "$REGTOOL" diff "hive:$A" "reg:$TMPDIR/a.reg"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/a.reg" >"$TMPDIR/a8.reg" || fail "iconv"
grep -q '^"Version"=dword:00050001' "$TMPDIR/a8.reg" || fail "no Version in the .reg backup"
sed 's/^"Version"=dword:00050001/"Version"=dword:00060000/' "$TMPDIR/a8.reg" |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/v.reg" || fail "iconv"
expect_exit 1 "$REGTOOL" diff "reg:$TMPDIR/a.reg" "reg:$TMPDIR/v.reg"
expect_grep "^different: 1 Perflib value, 0 languages in one only, 0 providers, 0 pairs in 0 groups$" "$OUT"
expect_grep "^  Version  *A 327681  *B 393216" "$OUT"
# A Version that is not a DWORD is no version: compared with nothing.
sed 's/^"Version"=dword:00050001/"Version"="6.0"/' "$TMPDIR/a8.reg" |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/s.reg" || fail "iconv"
expect_exit 0 "$REGTOOL" diff "reg:$TMPDIR/s.reg" "reg:$TMPDIR/v.reg"
expect_grep "^same: no difference" "$OUT"
cp -a "$A" "$B"
expect_exit 0 "$REGTOOL" diff --json "hive:$A" "hive:$B"
[ "$(jq -r '.same' "$OUT")" = true ] || fail "--json of two copies: not same"

CS="--create-service --library xfer.dll --open Open --collect Collect --close Close"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" install $CS --store "hive:$B" ini-samples/transfer.ini
expect_exit 0 "$REGTOOL" disable TransferPerf --store "hive:$B"
expect_exit 1 "$REGTOOL" diff "hive:$A" "hive:$B"
expect_grep "^different: 2 Perflib values, 0 languages in one only, 1 provider, 28 pairs in 2 groups$" "$OUT"
expect_grep "^  providers only in B: TransferPerf$" "$OUT"
expect_grep "^  pairs differ in the ranges of: TransferPerf (28)$" "$OUT"
expect_grep "^  Last Counter  *A 3990  *B 4004" "$OUT"
expect_grep "^  TransferPerf: only in B (3992-4004, help 3993-4005)$" "$OUT"
expect_grep "^  009 extensible A none / B TransferPerf (3992-4005): Counter 0/7/0, Help 0/7/0; indices 3992-4005$" "$OUT"
expect_grep "^  019 extensible " "$OUT"
grep -q "^    Counter" "$OUT" && fail "pairs listed without --pairs"
expect_same_tree "$A" "$TMPDIR/before" "diff wrote to the store"
# The other way round, and with --store A: the same, A and B swapped.
expect_exit 1 "$REGTOOL" --store "hive:$B" diff --pairs "hive:$A"
expect_grep "^  providers only in A: TransferPerf$" "$OUT"
expect_grep "^    Counter 3994       only in A: Bytes Sent$" "$OUT"
# Installed in both, disabled in one: the provider's Disable line only.
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" install $CS --store "hive:$A" ini-samples/transfer.ini
expect_exit 1 "$REGTOOL" diff --json "hive:$A" "hive:$B"
jq -e '.summary.pairs == 0 and .perflib == [] and
       .providers == [{"name":"TransferPerf","differs":["disable"],
                       "a":{"first_counter":3992,"last_counter":4004,"first_help":3993,
                            "last_help":4005,"disable":null},
                       "b":{"first_counter":3992,"last_counter":4004,"first_help":3993,
                            "last_help":4005,"disable":1}}]' "$OUT" >/dev/null ||
    { cat "$OUT" >&2; fail "--json of a disabled provider"; }

# Bad command lines and stores.
expect_exit 64 "$REGTOOL" diff "hive:$A"
expect_exit 64 "$REGTOOL" diff "hive:$A" "hive:$B" extra
expect_exit 64 "$REGTOOL" diff "hive:$A" "nosuch:$B"
expect_exit 4 "$REGTOOL" diff "hive:$A" "hive:$TMPDIR/nothing"
expect_grep "diff: B hive:" "$ERR"
expect_exit 0 "$REGTOOL" diff --help
expect_grep "^  --pairs" "$OUT"

# Two real backups from other machines.
PSB=$SHARED/research-real/perfstringbackup
for l in B D; do
    xz -dc "$PSB"/psb-$l-*.xz >"$TMPDIR/psb-$l.ini" || fail "cannot decompress psb-$l"
done
expect_exit 1 "$REGTOOL" diff "psb:$TMPDIR/psb-B.ini" "psb:$TMPDIR/psb-D.ini"
# The summary: a few lines before the details, naming the providers.
summary=$(sed -n '3,/^$/p' "$OUT" | sed '/^$/d')
[ "$(printf '%s\n' "$summary" | wc -l)" -le 6 ] || fail "a long summary: $summary"
expect_grep "^different: 2 Perflib values, 1 language in one only, 10 providers, 700 pairs in 16 groups$" "$OUT"
expect_grep "^  providers only in B: ASP.NET, ASP.NET_4.0.30319, aspnet_state$" "$OUT"
expect_grep "^  providers with other ranges: .*SMSvcHost 3.0.0.0, usbhub, Windows Workflow Foundation 3.0.0.0$" "$OUT"
expect_grep "^  pairs: 0 in the base part (1-1847), 700 in the extensible part" "$OUT"
# Nine providers' ranges hold differing pairs: eight named on one line,
# the ninth counted.
expect_grep "^  pairs differ in the ranges of: SMSvcHost 3.0.0.0 (60), MSDTC Bridge 3.0.0.0 (44), \([^,]*, \)\{5\}ASP.NET (226) and 1 more$" "$OUT"
[ "$(grep -c "pairs differ in the ranges of" "$OUT")" = 1 ] || fail "the providers' line is not one line"
expect_grep "^  00A  *only in A: 2111, 2143$" "$OUT"
[ "$(wc -l <"$OUT")" -le 60 ] || fail "diff of B and D: $(wc -l <"$OUT") lines"
expect_exit 1 "$REGTOOL" diff --json "psb:$TMPDIR/psb-B.ini" "psb:$TMPDIR/psb-D.ini"
jq -e '.same == false and .summary.pairs == 700 and .summary.groups == 16 and
       .summary.only_b.counter == 231 and .summary.other_text.help == 119 and
       ([.groups[].pair_count] | add) == 700 and
       ([.providers[] | select(.differs == ["only_b"]) | .name] ==
        ["ASP.NET", "ASP.NET_4.0.30319", "aspnet_state"]) and
       ([.languages[] | select(.b == null) | .id] == ["00A"]) and
       (.perflib | map(.name) == ["Last Counter", "Last Help"]) and
       (.groups[0] | has("pairs") | not)' "$OUT" >/dev/null ||
    fail "--json of B and D: $(jq -c .summary "$OUT")"
expect_exit 1 "$REGTOOL" diff --json --pairs "psb:$TMPDIR/psb-B.ini" "psb:$TMPDIR/psb-D.ini"
[ "$(jq '[.groups[].pairs | length] | add' "$OUT")" = 700 ] ||
    fail "--json --pairs lists other than 700 pairs"
echo "diff: ok"
