#!/bin/sh
# check-ini on every sample provider in ini-samples/ (and warnings/): exit
# status, the JSON's shape, and every text in it exactly as the file holds
# it, compared line by line with the UTF-8 form of the file's bytes.
. tests/cli/lib.sh
command -v jq >/dev/null || fail "jq is needed (tools/deps.sh installs it)"

# The file as UTF-8 without byte-order mark, CR or indentation.
utf8_form() {
    magic=$(head -c 3 "$1" | od -An -tx1 | tr -d ' \n')
    case $magic in
        fffe*)  tail -c +3 "$1" | iconv -f UTF-16LE -t UTF-8 ;;
        ??00*)  iconv -f UTF-16LE -t UTF-8 "$1" ;;     # UTF-16LE, no mark
        efbbbf) tail -c +4 "$1" ;;
        *)      if [ -n "$2" ]; then iconv -f "CP$2" -t UTF-8 "$1"
                else cat "$1"; fi ;;
    esac | tr -d '\r' | sed 's/^[[:space:]]*//'
}

count=0
for f in ini-samples/*.ini ini-samples/warnings/*.ini ini-samples/dotnet/*.ini; do
    cp=$(echo "$f" | sed -n 's/.*\.cp\([0-9]*\)\.ini$/\1/p')
    if [ -n "$cp" ]; then set -- --codepage "$cp"; else set --; fi
    expect_exit 0 "$REGTOOL" check-ini --json "$@" "$f"
    cp "$OUT" "$TMPDIR/json"
    jq -e '(.drivername | type == "string" and length > 0)
           and (.languages | length > 0)
           and (.trusted | type == "boolean")
           and (.objects | length > 0)
           and (.warnings | type == "array")
           and (.symbols | length > 0)
           and all(.symbols[]; (.symbol | type == "string")
                   and (.offset | type == "number")
                   and (.object | type == "boolean"))
           and ([.symbols[].offset] == ([.symbols[].offset] | sort))' \
        "$TMPDIR/json" >/dev/null || fail "$f: JSON is not as specified"

    utf8_form "$f" "$cp" >"$TMPDIR/u8"
    jq -r '.symbols[] | .symbol as $s | .text | to_entries[] | .key as $l
           | .value | (select(.name != null) | "\($s)_\($l)_NAME=\(.name)"),
                      (select(.help != null) | "\($s)_\($l)_HELP=\(.help)")' \
        "$TMPDIR/json" >"$TMPDIR/texts"
    while IFS= read -r line; do
        grep -Fxq -- "$line" "$TMPDIR/u8" ||
            fail "$f: '$line' is not in the file as written"
    done <"$TMPDIR/texts"
    # ... and no [text] key was lost on the way.
    want=$(awk '/^\[/ { t = (tolower($0) ~ /^\[text\]/); next }
                t && /=/ && !/^(;|#|\/\/)/' "$TMPDIR/u8" | wc -l)
    got=$(wc -l <"$TMPDIR/texts")
    [ "$want" -eq "$got" ] || fail "$f: $got texts in JSON, $want in [text]"
    count=$((count + 1))
done
[ "$count" -ge 8 ] || fail "only $count samples checked"

# The Transfer sample reads the same in UTF-16LE with and without
# byte-order mark and in UTF-8.
"$REGTOOL" check-ini --json ini-samples/transfer.ini >"$TMPDIR/a.json" &&
"$REGTOOL" check-ini --json ini-samples/transfer-utf8.ini >"$TMPDIR/b.json" &&
"$REGTOOL" check-ini --json ini-samples/transfer-utf16-nobom.ini \
    >"$TMPDIR/c.json" || fail "transfer samples"
cmp -s "$TMPDIR/a.json" "$TMPDIR/b.json" || fail "UTF-16LE and UTF-8 differ"
cmp -s "$TMPDIR/a.json" "$TMPDIR/c.json" ||
    fail "UTF-16LE with and without byte-order mark differ"
[ "$(head -c 2 ini-samples/transfer-utf16-nobom.ini | od -An -tx1 |
      tr -d ' \n')" = 2f00 ] ||
    fail "transfer-utf16-nobom.ini must start with '/' in UTF-16LE, no mark"
jq -e '.drivername == "TransferPerf" and .trusted == false
       and .languages == ["009"]
       and .objects == ["TRANSFER_OBJECT", "PEER_OBJECT"]
       and ([.symbols[] | [.symbol, .offset, .object]] ==
            [["TRANSFER_OBJECT", 0, true], ["BYTES_SENT", 2, false],
             ["AVAILABLE_BYTES", 4, false], ["SENT_BYTES_PER_SEC", 6, false],
             ["PEER_OBJECT", 8, true], ["PEER_BYTES_RECEIVED", 10, false],
             ["ACTIVE_PEERS", 12, false]])
       and .warnings == []' "$TMPDIR/a.json" >/dev/null ||
    fail "transfer.ini: wrong provider"

# Four languages in INI order; the object's help is over 500 characters
# in each, Cyrillic and CJK included.
expect_exit 0 "$REGTOOL" check-ini --json ini-samples/replication.ini
jq -e '.languages == ["009", "019", "00C", "404"]
       and ([.symbols[0].text[] | .help | length] | min > 500)
       and .symbols[0].text["019"].name == "Репликация"
       and .symbols[0].text["404"].name == "複寫"
       and (.symbols[0].text["00C"].help | test("réplicas ; chaque"))' \
    "$OUT" >/dev/null || fail "replication.ini: wrong provider"

# .NET's INI (PerformanceCounterCategory.Create): UTF-16LE with mark and
# an empty first line, CurrentLanguage as a language, a symbol file named
# .tmp whose values end in ';'.
expect_exit 0 "$REGTOOL" check-ini --json ini-samples/dotnet/category.ini
jq -e '.drivername == "OrderService"
       and .languages == ["009", "CurrentLanguage"]
       and .objects == ["OBJECT_1"]
       and ([.symbols[] | [.symbol, .offset]] ==
            [["OBJECT_1", 0], ["DEVICE_COUNTER_1", 2],
             ["DEVICE_COUNTER_2", 4]])
       and .symbols[2].text.CurrentLanguage.name == "Orders/sec"
       and .symbols[1].text.CurrentLanguage.help ==
           "Number of orders processed since the service started."
       and .symbols[0].text.CurrentLanguage == .symbols[0].text["009"]
       and .warnings == []' "$OUT" >/dev/null ||
    fail "dotnet/category.ini: wrong provider"
expect_exit 0 "$REGTOOL" check-ini ini-samples/dotnet/category.ini
expect_grep "^languages: 009 CurrentLanguage$" "$OUT"
expect_grep "^    CurrentLanguage name: Orders Processed$" "$OUT"

# ANSI needs its code page; without it, the file is not UTF-8.
expect_exit 2 "$REGTOOL" check-ini ini-samples/sklad.cp1251.ini
expect_grep "sklad.cp1251.ini:8: error: invalid UTF-8" "$ERR"
expect_exit 0 "$REGTOOL" check-ini --codepage=windows-1251 \
    ini-samples/sklad.cp1251.ini
expect_grep "019 name: Склад" "$OUT"
expect_exit 2 "$REGTOOL" check-ini --codepage NOPE-42 \
    ini-samples/sklad.cp1251.ini
expect_grep "error: unknown code page 'NOPE-42'" "$ERR"

# Text output.
expect_exit 0 "$REGTOOL" check-ini ini-samples/transfer.ini
expect_grep "^drivername: TransferPerf$" "$OUT"
expect_grep "^  8 PEER_OBJECT object$" "$OUT"
expect_grep "^    009 name: Bytes Sent$" "$OUT"
expect_grep "^    009 help: Number of bytes sent in the last transfer\.$" "$OUT"
[ ! -s "$ERR" ] || fail "stderr not empty for a valid INI"
# A counter with a name and no help (a warning): its name line and no
# help line, never "(null)" (planted set 35).
mkdir "$TMPDIR/nohelp"
cp ini-samples/CounterOffsets.h "$TMPDIR/nohelp/"
grep -v '^BYTES_SENT_009_HELP=' ini-samples/transfer-utf8.ini >"$TMPDIR/nohelp/t.ini"
expect_exit 0 "$REGTOOL" check-ini "$TMPDIR/nohelp/t.ini"
expect_grep "warning: BYTES_SENT has a NAME but no HELP in language 009" "$ERR"
grep -A 2 '^  2 BYTES_SENT counter$' "$OUT" | tr '\n' '|' >"$TMPDIR/nohelp/lines"
[ "$(cat "$TMPDIR/nohelp/lines")" = "  2 BYTES_SENT counter|    009 name: Bytes Sent|  4 AVAILABLE_BYTES counter|" ] ||
    fail "a counter without help printed as: $(cat "$TMPDIR/nohelp/lines")"

# Command line.
expect_exit 64 "$REGTOOL" check-ini
expect_exit 64 "$REGTOOL" check-ini --bogus ini-samples/transfer.ini
expect_exit 64 "$REGTOOL" check-ini a.ini b.ini
expect_exit 64 "$REGTOOL" check-ini --codepage
# A full output device: Linux's /dev/full (under wine64, regtool.exe
# writes to the wrapper's file, never to it: tests/run-windows.sh).
if [ "${REGTOOL_WINDOWS:-}" != 1 ]; then
    "$REGTOOL" check-ini ini-samples/replication.ini >/dev/full 2>"$ERR"
    [ $? -eq 3 ] || fail "a failed write must exit 3"
    expect_grep "regtool: cannot write the output" "$ERR"
fi
expect_exit 3 "$REGTOOL" check-ini "$TMPDIR/absent.ini"
expect_grep "absent.ini: error: cannot open: No such file or directory" "$ERR"
# A character past the BMP that --json escapes (a tag character, U+E0041,
# in the file's name) is written as its surrogate pair.
if [ "${REGTOOL_WINDOWS:-}" != 1 ]; then
    T=$TMPDIR/X$(printf '\363\240\201\201')Y.ini
    cp ini-samples/transfer.ini "$T" || fail "cp"
    expect_exit 2 "$REGTOOL" check-ini --json "$T"
    expect_grep 'X\\udb40\\udc41Y.ini:5: error: symbol file' "$OUT"
fi
exit 0
