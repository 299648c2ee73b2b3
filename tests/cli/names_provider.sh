#!/bin/sh
# names --provider: a provider's counters in a language as index, name
# and help, text and JSON; a range's indices without a name in that
# language said on stderr and listed as runs in JSON; an unknown
# provider, one with no range, a language not in the store: exit 1 with a
# message; a hostile range (First Counter 2, Last Counter 0x7fffffff) read
# by the table's pairs, not its 2^30 indices. And names NAME's notes on a
# match found only in another case or only with trailing blanks, with the
# match kind in JSON.
. tests/cli/lib.sh

D=$TMPDIR/w
S="--store hive:$D"
SYS32=$D/Windows/System32
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" $S init --languages 009,007 --layout files
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/transfer.ini

# utf16_edit FILE FROM TO: replaces the pair text FROM (ASCII, \0 for the
# NULs between index and text) with TO in a table file, UTF-16LE.
utf16_edit() {
    perl -0777 -i -pe '
        BEGIN { ($f, $t) = map { s/\\0/\0/g; join "", map { "$_\0" } split //, $_ } @ARGV[1, 2];
                @ARGV = ($ARGV[0]) }
        s/\Q$f\E/$t/ or die "no such pair\n"' "$1" "$2" "$3" ||
        fail "cannot edit $1"
}

# Text: the header, then index<TAB>name<TAB>help in index order; the
# provider in any case.
expect_exit 0 "$REGTOOL" $S names --provider transferPERF
expect_grep "^provider TransferPerf: counters 3992..4004, help 3993..4005, language 009$" "$OUT"
[ "$(wc -l <"$OUT")" -eq 8 ] || fail "want a header and 7 counters: $(cat "$OUT")"
expect_grep "^3994	Bytes Sent	Number of bytes sent in the last transfer.$" "$OUT"
sed 1d "$OUT" | cut -f1 | sort -n -c || fail "counters not in index order"
[ ! -s "$ERR" ] || fail "notes on a whole provider: $(cat "$ERR")"

# JSON.
expect_exit 0 "$REGTOOL" $S names --provider TransferPerf --lang 007 --json
jq -e '.provider == "TransferPerf" and .language == "007" and
       .first_counter == 3992 and .last_counter == 4004 and
       .first_help == 3993 and .last_help == 4005 and
       (.counters | length) == 7 and .missing == [] and .missing_count == 0 and
       .counters[1] == {"index":3994,"name":"Bytes Sent","help":"Number of bytes sent in the last transfer."}' \
    "$OUT" >/dev/null || fail "names --provider --json printed $(cat "$OUT")"

# A language missing entries: 007 without 3996's name nor 3999's help.
utf16_edit "$SYS32/perfc007.dat" '3996\0Available Bytes\0' ''
utf16_edit "$SYS32/perfh007.dat" \
    '3999\0Rate at which bytes are sent, averaged over the last sample interval.' \
    '9999\0Rate at which bytes are sent, averaged over the last sample interval.'
expect_exit 0 "$REGTOOL" $S names --provider TransferPerf --lang 007
[ "$(wc -l <"$OUT")" -eq 7 ] || fail "want a header and 6 counters: $(cat "$OUT")"
expect_grep "^3998	Bytes Sent/sec	$" "$OUT"
expect_grep "^regtool: 1 of TransferPerf's counter indices have no name in 007: 3996$" "$ERR"
expect_grep "^regtool: 1 of TransferPerf's counters have no help text in 007" "$ERR"
expect_exit 0 "$REGTOOL" $S names --provider TransferPerf --lang 007 --json
jq -e '.missing == [{"first":3996,"last":3996}] and .missing_count == 1 and
       (.counters | length) == 6 and
       (.counters[] | select(.index == 3998) | .help) == null' \
    "$OUT" >/dev/null || fail "missing entries in JSON: $(cat "$OUT")"

# Errors, exit 1 as names' not found: no such provider, no range, no
# such language; a provider with other arguments is a usage error.
expect_exit 1 "$REGTOOL" $S names --provider NoSuchPerf
expect_grep "^regtool: no provider 'NoSuchPerf': no service of that name has a Performance key$" "$ERR"
[ ! -s "$OUT" ] || fail "output for an unknown provider: $(cat "$OUT")"
expect_exit 1 "$REGTOOL" $S names --provider perfos --json
expect_grep "^regtool: provider PerfOS has no counters installed (no First Counter)$" "$ERR"
[ ! -s "$OUT" ] || fail "output for a provider with no range: $(cat "$OUT")"
expect_exit 1 "$REGTOOL" $S names --provider TransferPerf --lang 00C
expect_grep "^regtool: language 00C is not in the database$" "$ERR"
expect_exit 64 "$REGTOOL" $S names --provider TransferPerf 3994
expect_exit 64 "$REGTOOL" $S names --provider TransferPerf --help-text

# names NAME: a match in another case or only with trailing blanks is
# found (exit 0) and said, per name; an exact one is not. A table text
# with a trailing blank (Active Peers ) as well as a name asked with one.
utf16_edit "$SYS32/perfc009.dat" '4004\0Active Peers\0' '4004\0Active Peers \0'
expect_exit 0 "$REGTOOL" $S names "Bytes Sent" "bytes sent" "Bytes Sent " "BYTES SENT	" "Active Peers"
[ "$(grep -c "^3994	Bytes Sent$" "$OUT")" -eq 4 ] || fail "Bytes Sent not found 4 times: $(cat "$OUT")"
expect_grep "^4004	Active Peers $" "$OUT"
expect_grep "^regtool: names: 'bytes sent' matches 'Bytes Sent' (index 3994) only in another case$" "$ERR"
expect_grep "^regtool: names: 'Bytes Sent ' matches 'Bytes Sent' (index 3994) only with trailing blanks$" "$ERR"
expect_grep "^regtool: names: 'BYTES SENT\\\\t' matches 'Bytes Sent' (index 3994) only with trailing blanks and in another case$" "$ERR"
expect_grep "^regtool: names: 'Active Peers' matches 'Active Peers ' (index 4004) only with trailing blanks$" "$ERR"
[ "$(wc -l <"$ERR")" -eq 4 ] || fail "a note on an exact match: $(cat "$ERR")"
expect_exit 0 "$REGTOOL" $S names --json "Bytes Sent" "bytes sent" "Bytes Sent " "active peers"
jq -e '[.[].match] == ["exact","case","trailing-blanks","trailing-blanks"] and
       .[3] == {"index":4004,"text":"Active Peers ","match":"trailing-blanks"}' \
    "$OUT" >/dev/null || fail "match kinds: $(cat "$OUT")"
# An exact match before one in another case only (3996 renamed "bytes
# sent"): both found, and no note, since a match is exact.
utf16_edit "$SYS32/perfc009.dat" '3996\0Available Bytes\0' '3996\0bytes sent\0'
expect_exit 0 "$REGTOOL" $S names "Bytes Sent"
expect_grep "^3994	Bytes Sent$" "$OUT"
expect_grep "^3996	bytes sent$" "$OUT"
[ ! -s "$ERR" ] || fail "a note beside an exact match: $(cat "$ERR")"
utf16_edit "$SYS32/perfc009.dat" '3996\0bytes sent\0' '3996\0Available Bytes\0'
# An index lookup has no match kind; one not there is still exit 1.
expect_exit 1 "$REGTOOL" $S names --json 3994 "Bytes Sentx"
[ "$(cat "$OUT")" = '[{"index":3994,"text":"Bytes Sent"}]' ] || fail "names --json 3994: $(cat "$OUT")"
expect_grep "name 'Bytes Sentx' not found in 009 Counter" "$ERR"

# A hostile range: First Counter 2, Last Counter 0x7fffffff. The table's
# pairs are walked (the base range's and every provider's names are in
# it), the 2^30 indices without a name come back as a few runs.
printf 'Windows Registry Editor Version 5.00\n\n[\\ControlSet001\\Services\\TransferPerf\\Performance]\n"First Counter"=dword:00000002\n"Last Counter"=dword:7fffffff\n' \
    >"$TMPDIR/huge.reg"
hivexregedit --merge "$SYS32/config/SYSTEM" "$TMPDIR/huge.reg" ||
    fail "hivexregedit could not set the range"
expect_exit 0 "$REGTOOL" $S names --provider TransferPerf
expect_grep "^provider TransferPerf: counters 2..2147483647, help 3993..4005, language 009$" "$OUT"
expect_grep "^4004	Active Peers 	Number of peers with a transfer in progress.$" "$OUT"
expect_grep "^regtool: warning: TransferPerf's First Help is 3993, not First Counter + 1" "$ERR"
expect_grep "counter indices have no name in 009: .*4006..2147483646$" "$ERR"
expect_exit 0 timeout 20 "$REGTOOL" $S names --provider TransferPerf --json
[ "$(wc -c <"$OUT")" -lt 4000000 ] || fail "names --provider printed $(wc -c <"$OUT") bytes"
"$REGTOOL" $S names >"$TMPDIR/out.list" || fail "names cannot list 009"
evens=$(awk -F'\t' '$1 % 2 == 0 && $1 >= 2 { print $1 }' "$TMPDIR/out.list" | sort -u | wc -l)
jq -e --argjson evens "$evens" '
    (.counters | length) == $evens and
    .missing[-1] == {"first":4006,"last":2147483646} and
    .missing_count == 1073741823 - $evens' \
    "$OUT" >/dev/null || fail "hostile range: $(jq -c '.missing_count, (.counters | length), .missing[-1]' "$OUT"), $evens names"
# The runs of nameless indices said on stderr: the first eight, then
# how many more, and no "and 0 more" when there are exactly eight (a
# bench provider of 20 symbols whose odd counters 1 to 15, then 17, lose
# their 009 name).
B=$TMPDIR/b
MKBENCH=$(dirname "$REGTOOL")/bench/mkbench
expect_exit 0 "$MKBENCH" provider "$TMPDIR/bp" --symbols 20
expect_exit 0 "$REGTOOL" --store "hive:$B" init --languages 009
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$B" install $CS "$TMPDIR/bp/bench.ini"
expect_exit 0 "$REGTOOL" --store "hive:$B" query --json BenchPerf
F=$(jq '.providers[0].first_counter' "$OUT")
unname() {   # unname K: counter K of the bench provider loses its 009 name
    name=$(sed -n "s/^SYM_00$(printf %02d "$1")_009_NAME=//p" "$TMPDIR/bp/bench.ini" | tr -d '\r')
    utf16_edit "$B/Windows/System32/perfc009.dat" "$((F + 2 * $1))\\0$name\\0" ''
}
for k in 1 3 5 7 9 11 13 15; do unname $k; done
expect_exit 0 "$REGTOOL" --store "hive:$B" names --provider BenchPerf
expect_grep "^regtool: 8 of BenchPerf's counter indices have no name in 009: $((F + 2)), $((F + 6)), .*, $((F + 30))$" "$ERR"
grep -q "more runs" "$ERR" && fail "eight runs said with more: $(cat "$ERR")"
unname 17
expect_exit 0 "$REGTOOL" --store "hive:$B" names --provider BenchPerf
expect_grep "^regtool: 9 of BenchPerf's counter indices have no name in 009: $((F + 2)), .*, $((F + 30)) and 1 more runs$" "$ERR"
echo "names_provider: ok"
