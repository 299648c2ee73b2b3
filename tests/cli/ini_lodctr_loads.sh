# What Windows' lodctr loads, install and the lodctr drop-in load, with
# lodctr's result (docs/reference.md, "What lodctr loads"): each sample of
# ini-samples/skipped/ installs with its warning naming the file and line,
# the texts it keeps are installed and the skipped ones are not, and the
# provider uninstalls back to identical tables. `install --strict`, and
# the drop-in with REGTOOL_STRICT=1, refuse the same INI on its warning
# and write nothing. The profile API's trimming: a name written with a
# trailing tab is stored without it, a tab inside a help text is kept;
# .NET 2.0's corperfmonsymbols.ini installs with its Greek name that ends
# in a TAB stored without it.
. tests/cli/lib.sh

D=$TMPDIR/win
S="--store hive:$D"
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" $S init --languages 009 --layout registry
tables() {
    "$REGTOOL" $S names --json
    "$REGTOOL" $S names --help-text --json
}
tables >"$TMPDIR/before"

first_of() {
    "$REGTOOL" $S query --json "$1" | sed -n 's/.*"first_counter":\([0-9]*\).*/\1/p'
}

for f in ini-samples/skipped/*.ini; do
    exp=$(head -n 1 "$f" | tr -d '\r')
    line=$(echo "${exp#; expect: }" | cut -d' ' -f1)
    tree_state "$D" >"$TMPDIR/tree"
    # shellcheck disable=SC2086
    expect_exit 2 "$REGTOOL" $S install --strict $CS "$f"
    expect_grep "^$f:$line: warning: " "$ERR"
    expect_grep "refused as strict; nothing was written" "$ERR"
    expect_same_tree "$D" "$TMPDIR/tree"
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" $S install $CS "$f"
    expect_grep "^$f:$line: warning: " "$ERR"
    if grep -q ': error: ' "$ERR"; then fail "$f: errors"; fi
    drv=$(sed -n 's/^drivername=\(.*\)\r*$/\1/p' "$f" | tr -d '\r')
    expect_exit 0 "$REGTOOL" $S audit
    expect_exit 0 "$REGTOOL" $S uninstall "$drv"
    tables | cmp -s - "$TMPDIR/before" || fail "$f: tables differ after uninstall"
done

# What the samples keep: the tab inside AVAILABLE_BYTES' help (offset 4).
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/skipped/tab_in_text.ini
f=$(first_of BrokenSample)
expect_exit 0 "$REGTOOL" $S names --help-text --json $((f + 5))
grep -q '\\t' "$OUT" || fail "tab_in_text: the tab inside the help is not kept"
expect_exit 0 "$REGTOOL" $S uninstall BrokenSample

# What quoted_text.ini stores: values as GetPrivateProfileString returns
# them, one pair of enclosing quotes dropped (its symbolfile= too), quotes
# inside a text or unmatched kept.
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/skipped/quoted_text.ini
f=$(first_of QuotedSample)
expect_exit 0 "$REGTOOL" $S names --json $((f + 2)) $((f + 4))
expect_grep '"text":"Bytes Sent"}' "$OUT"
expect_grep '"text":"Available"}' "$OUT"
expect_exit 0 "$REGTOOL" $S names --help-text --json $((f + 1)) $((f + 3)) $((f + 5))
expect_grep '"text":"Provides information related to transferring files."}' "$OUT"
expect_grep '"text":"Number of \\"bytes\\" sent in the last transfer."}' "$OUT"
expect_grep '"text":"\\"Bytes still to send.'"'"'"}' "$OUT"
expect_exit 0 "$REGTOOL" $S uninstall QuotedSample

# A name ending in a tab (as .NET 2.0's Greek EXCEP_THROWN_TOTAL_008_NAME)
# and in spaces: stored without them.
T=$TMPDIR/tab
mkdir -p "$T"
printf '#define OBJ 0\n#define CNT 2\n' >"$T/t.h"
printf '[info]\r\ndrivername=TabEnd\r\nsymbolfile=t.h\r\n[languages]\r\n009=English\r\n[objects]\r\nOBJ_009_NAME=\r\n[text]\r\nOBJ_009_NAME=Tab end\t\r\nOBJ_009_HELP=Help  \t \r\nCNT_009_NAME=Count   \r\nCNT_009_HELP=a\tb\r\n' >"$T/t.ini"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS "$T/t.ini"
expect_grep "t.ini:9: warning: OBJ_009_NAME ends in a tab" "$ERR"
expect_grep "t.ini:11: warning: CNT_009_NAME ends in spaces" "$ERR"
f=$(first_of TabEnd)
expect_exit 0 "$REGTOOL" $S names --json "$f" $((f + 2))
expect_grep "\"text\":\"Tab end\"}" "$OUT"
expect_grep "\"text\":\"Count\"}" "$OUT"
expect_exit 0 "$REGTOOL" $S names --help-text --json $((f + 1)) $((f + 3))
expect_grep '"text":"Help"}' "$OUT"
expect_grep '"text":"a\\tb"}' "$OUT"
expect_exit 0 "$REGTOOL" $S uninstall TabEnd

# The real case: .NET 2.0's corperfmonsymbols.ini ($SHARED's provider
# corpus, read where it is), whose Greek EXCEP_THROWN_TOTAL_008_NAME ends
# in a TAB. It replaces a fresh tree's .NETFramework; the 008 name is the
# file's text without its trailing blanks, read here with iconv, not the
# loader.
N=$SHARED/research-real/provider-corpus/netfx20-clr
G=$TMPDIR/greek
expect_exit 0 "$REGTOOL" --store "hive:$G" init --languages 009,008 --layout files
expect_exit 0 "$REGTOOL" --store "hive:$G" install --replace "$N/corperfmonsymbols.ini"
expect_grep "corperfmonsymbols.ini:1887: warning: EXCEP_THROWN_TOTAL_008_NAME ends in a tab" "$ERR"
written=$(iconv -f UTF-16 -t UTF-8 "$N/corperfmonsymbols.ini" | tr -d '\r' |
    sed -n 's/^EXCEP_THROWN_TOTAL_008_NAME=//p')
trimmed=$(printf '%s' "$written" | sed 's/[[:space:]]*$//')
[ "$written" != "$trimmed" ] || fail "corperfmonsymbols.ini: no trailing blank to drop"
offset=$(sed -n 's/^#define EXCEP_THROWN_TOTAL  *\([0-9]*\).*/\1/p' "$N/CORPerfMonSymbols.h")
f=$("$REGTOOL" --store "hive:$G" query --json .NETFramework |
    sed -n 's/.*"first_counter":\([0-9]*\).*/\1/p')
expect_exit 0 "$REGTOOL" --store "hive:$G" names --lang 008 --json $((f + offset))
got=$(jq -r '.[0].text' "$OUT")
[ "$got" = "$trimmed" ] || fail "008 name: '$got', want '$trimmed'"
expect_exit 0 "$REGTOOL" --store "hive:$G" audit

# The lodctr drop-in: loads what lodctr loads, refuses it with
# REGTOOL_STRICT=1 (ERROR_INVALID_DATA, 13), writing nothing.
mkdir -p "$TMPDIR/bin"
ln -s "$REGTOOL" "$TMPDIR/bin/lodctr"
export REGTOOL_STORE="hive:$D"
tree_state "$D" >"$TMPDIR/tree"
REGTOOL_STRICT=1; export REGTOOL_STRICT
expect_exit 13 "$TMPDIR/bin/lodctr" ini-samples/skipped/undefined_offset.ini
expect_grep "undefined_offset.ini:17: warning: MISSING_COUNTER is not defined" "$ERR"
expect_grep "^lodctr: .*refused as strict; nothing was written" "$ERR"
# lodctr has no --strict: its messages never suggest one.
if grep -q -- '--strict\|regtool:' "$ERR"; then fail "lodctr names a regtool option"; fi
expect_same_tree "$D" "$TMPDIR/tree"
unset REGTOOL_STRICT
expect_exit 0 "$TMPDIR/bin/lodctr" ini-samples/skipped/undefined_offset.ini
expect_grep "undefined_offset.ini:17: warning: MISSING_COUNTER is not defined" "$ERR"
expect_exit 0 "$REGTOOL" $S uninstall BrokenSample
tables | cmp -s - "$TMPDIR/before" || fail "tables differ after the drop-in's install"
echo "lodctr loads: ok"
