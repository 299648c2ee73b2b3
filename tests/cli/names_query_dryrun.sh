# names (table listing, index and name lookups, JSON, exit 1 when not
# found), query --json, and --dry-run, which prints the exact change set
# and leaves every file byte-identical.
. tests/cli/lib.sh

D=$TMPDIR/win
export REGTOOL_STORE="hive:$D"
expect_exit 0 $REGTOOL init --languages 009,019 --layout registry
CS="--create-service --library %SystemRoot%\\xfer.dll --open Open --collect Collect --close Close"

# --dry-run: the change set, and not one byte written.
TREE_IGNORE=regtool.lock
tree_state "$D" >"$TMPDIR/before"
# init over an existing tree is refused and changes nothing.
expect_exit 4 $REGTOOL init --languages 009 --layout files
expect_grep "already holds hives; nothing was written" "$ERR"
expect_same_tree "$D" "$TMPDIR/before" "refused init wrote to the store"
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL install --dry-run $CS ini-samples/transfer.ini
expect_grep "^would install TransferPerf: names 3992-4004, help 3993-4005" "$OUT"
expect_grep "^  Perflib\\\\019\\\\Counter: +7 -0 pairs" "$OUT"
expect_grep "^      + 3994 Bytes Sent$" "$OUT"
expect_grep "^  Perflib: Last Counter = 4004 (REG_DWORD)" "$OUT"
expect_grep '^  Services\\TransferPerf\\Performance: Object List = "3992 4000" (REG_SZ)' "$OUT"
expect_same_tree "$D" "$TMPDIR/before" "--dry-run wrote to the store"

# shellcheck disable=SC2086
expect_exit 0 $REGTOOL install $CS ini-samples/transfer.ini

expect_exit 0 $REGTOOL names --json 1 3994
[ "$(cat "$OUT")" = '[{"index":1,"text":"1847"},{"index":3994,"text":"Bytes Sent"}]' ] ||
    fail "names --json printed $(cat "$OUT")"
expect_exit 0 $REGTOOL names --help-text 3995
expect_grep "^3995	Number of bytes sent in the last transfer.$" "$OUT"
expect_exit 0 $REGTOOL names --json "bytes sent/SEC"
expect_grep '"index":3998,"text":"Bytes Sent/sec"' "$OUT"
# Every index of the table when nothing is asked.
expect_exit 0 $REGTOOL names --lang 019
[ "$(wc -l <"$OUT")" -eq "$(grep -c . "$OUT")" ] || fail "blank lines in the listing"
expect_grep "^4004	Active Peers$" "$OUT"
# Not there: exit 1, saying which, the rest still printed.
expect_exit 1 $REGTOOL names 3994 99999 "No Such Counter"
expect_grep "^3994	Bytes Sent$" "$OUT"
expect_grep "index 99999 not found in 009 Counter" "$ERR"
expect_grep "name 'No Such Counter' not found in 009 Counter" "$ERR"
expect_exit 1 $REGTOOL names --lang 00C 2
expect_grep "language 00C is not in the database" "$ERR"

expect_exit 0 $REGTOOL query --json TransferPerf
expect_grep '"base_index":1847,"last_counter":4004,"last_help":4005,"languages":\["009","019"\]' "$OUT"
expect_grep '"name":"TransferPerf","library":"%SystemRoot%\\\\xfer.dll","open":"Open","collect":"Collect","close":"Close","first_counter":3992,"last_counter":4004,"first_help":3993,"last_help":4005,"object_list":"3992 4000","ini_file":"transfer.ini","disabled":false,"disable_value":null' "$OUT"
expect_exit 4 $REGTOOL query NoSuchService

# uninstall --dry-run lists what would go, writes nothing.
tree_state "$D" >"$TMPDIR/installed"
expect_exit 0 $REGTOOL uninstall --dry-run TransferPerf
expect_grep "^      - 4004 Active Peers$" "$OUT"
expect_grep "delete PerfIniFile" "$OUT"
expect_same_tree "$D" "$TMPDIR/installed" "uninstall --dry-run wrote to the store"

# diff --json --pairs: each pair's text in A and in B, null where one
# has none (the installed tree against a fresh one).
expect_exit 0 $REGTOOL init --languages 009,019 --layout registry --store "hive:$TMPDIR/fresh"
expect_exit 1 $REGTOOL diff --json --pairs "hive:$D" "hive:$TMPDIR/fresh"
jq -e '[.groups[] | select(.language == "009") | .pairs[] |
        select(.table == "counter" and .index == 3994)] ==
       [{"table":"counter","index":3994,"class":"only_a","a":"Bytes Sent","b":null}]' \
    "$OUT" >/dev/null || fail "diff --json --pairs: $(head -c 600 "$OUT")"
