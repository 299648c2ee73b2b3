# The benchmark harness (bench/run.sh, `make bench`) on its tiny workload
# Wt, both layouts, one run per measurement, so that it cannot rot:
# mkbench's two layouts, every measurement, the floor, the table and
# bench/results.json's shape. Times are never asserted.
. tests/cli/lib.sh

BIN=$(dirname "$REGTOOL")/bench
for t in mkbench floor timeit; do
    [ -x "$BIN/$t" ] || fail "no $BIN/$t (make builds it)"
done

# mkbench --layout files: the tables in System32 and SysWOW64 .dat files,
# where the hive store finds them.
D=$TMPDIR/files
expect_exit 0 "$BIN/mkbench" hives "$D" --languages 009,019 --extra 0 --size 1 --layout files
for f in System32/perfc009.dat System32/perfh019.dat SysWOW64/perfh019.dat; do
    [ -s "$D/Windows/$f" ] || fail "no $f"
done
expect_exit 0 $REGTOOL --store "hive:$D" query
expect_grep 'tables in .dat files' "$OUT"
expect_exit 0 $REGTOOL --store "hive:$D" names --lang 019 2
expect_exit 64 "$BIN/mkbench" hives "$TMPDIR/bad" --layout bogus
# --help-chars: every help text cut, so Ws's values stay under 1 MB.
expect_exit 0 "$BIN/mkbench" hives "$TMPDIR/ws" --languages 009 --extra 0 --size 1 --help-chars 40
expect_exit 0 $REGTOOL --store "hive:$TMPDIR/ws" names --help-text
awk -F '\t' 'length($2) > 40 {bad = 1} END {exit bad}' "$OUT" || fail "a help text over 40 bytes"

# The harness itself, on Wt in both layouts.
RES=$TMPDIR/results.json
expect_exit 0 env BENCH_WORKLOADS=Wt BENCH_RUNS=1 BENCH_CYCLES=2 BENCH_NAMES=50 \
    BENCH_INI_SYMBOLS=100 BENCH_HOSTILE=0.01 BENCH_FLEET=20 BENCH_RESULTS="$RES" \
    sh bench/run.sh "$REGTOOL" "$BIN/mkbench" 20
cat "$OUT"
expect_grep '^op  *workload  *layout  *median s  *floor x' "$OUT"
for op in install uninstall floor names query backup restore repair rebuild; do
    for layout in registry files; do
        grep -Eq "^$op +Wt +$layout +[0-9]+\.[0-9]{4} " "$OUT" || fail "no $op row for $layout"
    done
done
expect_grep '^check-ini  *ini-100 ' "$OUT"
# The fleet audit of 20 backups (the harness checks its table's counts).
expect_grep '^fleet-audit  *fleet20  *psb ' "$OUT"
# The hostile inputs at a hundredth of their size: each verb's row.
for row in "hostile-query +svc40 +files" "hostile-repair-n +svc40 +files" \
           "hostile-install-n +lang40 +registry" "hostile-repair-n +pairs1000 +files" \
           "hostile-audit +psb100 +psb" "hostile-query +values400 +reg" \
           "hostile-uninst-n +sections500 +reg" "hostile-check-ini +ini200 +none" \
           "hostile-install +ini200 +files" "hostile-install +ini200-3lang +files" \
           "hostile-repair +longc4000 +files" "hostile-restore-n +repeat2000 +files" \
           "hostile-ps-list +stats400 +none" "hostile-ps-audit +stats400 +none" \
           "hostile-audit +langtab30 +files" "hostile-audit-libs +dll50 +files" \
           "hostile-rebuild-n +dll50 +files" "hostile-audit-libs +short50 +files" \
           "hostile-audit +tinylang[0-9]+ +psb" "hostile-names +dups[0-9]+ +registry" \
           "hostile-repair-n +dups[0-9]+ +registry" "hostile-restore-n +dups[0-9]+ +registry" \
           "hostile-write-values +hvalues800 +files" "hostile-query +hvalues800 +files"; do
    grep -Eq "^$row +[0-9]+\.[0-9]{4} " "$OUT" || fail "no row $row"
done
expect_grep '^growth after 2 install/uninstall cycles (Wt registry)' "$OUT"
[ -s "$RES" ] || fail "no $RES"
if command -v jq >/dev/null 2>&1; then
    jq -e '
      (.ops | length) == 75 and
      (.ops | all(has("op") and has("store") and has("layout") and has("workload")
        and has("median_s") and has("peak_rss_mb") and has("bytes_written")
        and has("fsyncs") and has("floor_ratio") and has("peak_rss_ratio"))) and
      (.ops[] | select(.op == "install" and .layout == "registry")
        | .median_s > 0 and .bytes_written > 0 and .fsyncs > 0
          and .floor_ratio > 0 and .peak_rss_mb > 0) and
      (.ops | map(select(.op == "floor")) | length) == 2 and
      (.growth_after_100_cycles > 0.9) and
      (.scaling | has("install_time_w2_w0")) and
      (.peer | has("hivex_c_s") and has("w1_refusal"))' "$RES" >/dev/null ||
        { cat "$RES"; fail "results.json has not the expected shape"; }
fi
# A verb not built yet is a row of nulls, one that is built has numbers.
for verb in audit backup restore repair; do
    if $REGTOOL "$verb" --help >/dev/null 2>&1; then continue; fi
    grep -Eq "^$verb +Wt +registry +not built yet" "$OUT" || fail "$verb not listed as not built yet"
done
