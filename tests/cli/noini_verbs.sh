# The verbs that read no INI, end to end on the hive store in both
# layouts: init, query, names, enable/disable, uninstall (a refusal and a
# removal), hive check and verify (refused: no running system). The same script runs against the native Windows
# build under wine64 (tests/run-windows.sh sets REGTOOL_WINDOWS=1), where
# an INI verb must fail naming the missing INI library instead.
. tests/cli/lib.sh

TREE_IGNORE=regtool.lock

for layout in files registry; do
    D=$TMPDIR/$layout
    S="--store hive:$D"
    expect_exit 0 "$REGTOOL" $S init --languages 009,019 --layout "$layout"
    expect_grep "languages 009,019" "$OUT"

    expect_exit 0 "$REGTOOL" $S query --json
    expect_grep '"base_index":1847,"last_counter":3990,"last_help":3991' "$OUT"
    expect_grep '"name":"ESENT"' "$OUT"
    expect_exit 0 "$REGTOOL" $S query
    if [ "$layout" = files ]; then
        expect_grep "^Layout        tables in .dat files: .*/Windows/System32/perfcLLL.dat" "$OUT"
    else
        expect_grep "^Layout        tables as values of Perflib" "$OUT"
    fi

    expect_exit 0 "$REGTOOL" $S names --json 1 1846
    [ "$(cat "$OUT")" = '[{"index":1,"text":"1847"},{"index":1846,"text":"End Marker"}]' ] ||
        fail "$layout: names --json printed $(cat "$OUT")"
    expect_exit 0 "$REGTOOL" $S names --lang 019 --json 1848
    expect_grep '"index":1848' "$OUT"
    expect_exit 1 "$REGTOOL" $S names 99999
    expect_exit 0 "$REGTOOL" $S names --json "end MARKER"
    expect_grep '"index":1846,"text":"End Marker"' "$OUT"

    # disable and enable change one value and give the bytes back.
    tree_state "$D" >"$TMPDIR/before"
    expect_exit 0 "$REGTOOL" $S disable ESENT
    expect_exit 0 "$REGTOOL" $S query --json ESENT
    expect_grep '"disabled":true' "$OUT"
    expect_exit 0 "$REGTOOL" $S enable ESENT
    expect_exit 0 "$REGTOOL" $S query --json ESENT
    expect_grep '"disabled":false' "$OUT"

    # A provider that has no range is refused, and the store keeps
    # every byte.
    tree_state "$D" >"$TMPDIR/before"
    expect_exit 4 "$REGTOOL" $S uninstall PerfOS
    expect_grep "'PerfOS' is not installed" "$ERR"
    expect_same_tree "$D" "$TMPDIR/before" "$layout: refused uninstall wrote"

    # The top provider removed: its strings leave every language.
    expect_exit 0 "$REGTOOL" $S names --json 2822
    expect_exit 0 "$REGTOOL" $S uninstall .NETFramework
    expect_grep "uninstalled .NETFramework: names 2822-3990, help 2823-3991" "$OUT"
    expect_exit 1 "$REGTOOL" $S names --json 2822
    expect_exit 1 "$REGTOOL" $S names --lang 019 --json 2823
    expect_exit 0 "$REGTOOL" $S names --json 2820

    expect_exit 0 "$REGTOOL" hive check "$D/Windows/System32/config/SOFTWARE"
    expect_grep "0 errors, 0 warnings" "$OUT"

    # verify needs a running system: on a tree, refused saying so (its
    # options before or after the driver), not its usage.
    for args in "PerfOS --query Costly" "--query Costly --json PerfOS"; do
        # shellcheck disable=SC2086
        expect_exit 64 "$REGTOOL" $S verify $args
        expect_grep "verify: the hive store has no running system" "$ERR"
        grep -q "^Usage" "$ERR" && fail "$layout: verify $args: the usage"
    done

    # An INI verb: installs on the full build; refused, writing nothing,
    # where the INI library is missing.
    tree_state "$D" >"$TMPDIR/before"
    if [ "${REGTOOL_WINDOWS:-}" = 1 ] && "$REGTOOL" version | grep -q 'without inih'; then
        expect_exit 3 "$REGTOOL" $S install --create-service --library x.dll \
            --open O --collect C --close X ini-samples/transfer.ini
        expect_grep "built without inih" "$ERR"
        expect_same_tree "$D" "$TMPDIR/before" "$layout: refused install wrote"
    else
        expect_exit 0 "$REGTOOL" $S install --create-service --library x.dll \
            --open O --collect C --close X ini-samples/transfer.ini
    fi
done
echo "noini verbs: ok"
