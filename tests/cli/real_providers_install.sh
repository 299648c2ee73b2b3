# Real producers' INIs install as they are (docs/design.md, "The lodctr
# input"): Microsoft's SDK samples perfgen and appmem (0x1A at the end,
# symbol file names in another case, appmem without [objects] and with names
# ending in spaces, stored without them), Transfer as UTF-16LE without
# byte-order mark, a .NET-style INI (CurrentLanguage in [languages] and
# [text], '#define X 0;'), and an INI with a four-digit language, into a
# tree whose Perflib has 009, 0804 and CurrentLanguage. Every language gets
# the right text, names --lang 0804 finds it, and uninstalling everything
# gives every table back byte for byte; hivexget, an independent reader,
# sees the texts.
. tests/cli/lib.sh

R=$SHARED/research-real/providers
D=$TMPDIR/win
S="--store hive:$D"
SW=$D/Windows/System32/config/SOFTWARE
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" $S init --languages 009,0804,CurrentLanguage --layout registry
expect_exit 0 "$REGTOOL" $S query --json
expect_grep '"languages":\["009","0804","CurrentLanguage"\]' "$OUT"
tables() {
    for l in 009 0804 CurrentLanguage; do
        "$REGTOOL" $S names --lang $l --json
        "$REGTOOL" $S names --lang $l --help-text --json
    done
}
tables >"$TMPDIR/before"
# hivexget prints a REG_MULTI_SZ one string a line: INDEX then TEXT.
text_of() {   # text_of LANG INDEX
    hivexget "$SW" "\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\$1" Counter |
        grep -A1 -x "$2" | sed -n 2p
}
first_of() {
    "$REGTOOL" $S query --json "$1" | sed -n 's/.*"first_counter":\([0-9]*\).*/\1/p'
}

# The SDK samples, where they are, unchanged.
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS "$R/perfgen/Perfgen.Ini"
f=$(first_of PERFGEN)
[ "$(text_of 009 "$f")" = "Signal Generator" ] || fail "perfgen 009: '$(text_of 009 "$f")'"
[ "$(text_of 0804 "$f")" = "Signal Generator" ] || fail "perfgen 0804 (English text)"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS "$R/appmem/AppMem.Ini"
f=$(first_of APPMEM)
expect_exit 0 "$REGTOOL" $S names --json $((f + 2)) $((f + 4)) $((f + 6)) $((f + 8))
# The names' trailing spaces go, as the profile API lodctr reads through
# drops them.
expect_grep '"text":"Memory Reallocs"' "$OUT"
expect_grep '"text":"Memory Allocs/Sec"' "$OUT"

# UTF-16LE without BOM.
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/transfer-utf16-nobom.ini
expect_exit 0 "$REGTOOL" $S names --lang 0804 --json "Bytes Sent"
expect_grep '"text":"Bytes Sent"' "$OUT"

# .NET: its CurrentLanguage text goes to the CurrentLanguage subkey. A copy
# whose CurrentLanguage text differs from its 009 text, written as .NET
# writes (UTF-16LE with BOM), beside its symbol file.
N=$TMPDIR/dotnet
mkdir -p "$N"
cp ini-samples/dotnet/tmp1A2B.tmp "$N/"
iconv -f UTF-16 -t UTF-8 ini-samples/dotnet/category.ini | tr -d '\r' |
    sed 's/^\(.*_CurrentLanguage_NAME=\)\(.*\)$/\1\2 (UI)/; s/$/\r/' |
    iconv -f UTF-8 -t UTF-16 >"$N/category.ini"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS "$N/category.ini"
f=$(first_of OrderService)
[ "$(text_of CurrentLanguage "$f")" = "OrderService (UI)" ] ||
    fail ".NET CurrentLanguage text: '$(text_of CurrentLanguage "$f")'"
[ "$(text_of 009 "$f")" = "OrderService" ] || fail ".NET 009 text"

# A four-digit language in an INI serves the 0804 subkey; 804 and 0804
# in one INI are one language twice.
F=$TMPDIR/four
mkdir -p "$F"
printf '#define OBJ 0\n#define CNT 2\n' >"$F/f.h"
printf '[info]\ndrivername=Four\nsymbolfile=f.h\n[languages]\n009=English\n0804=Chinese\n[objects]\nOBJ_009_NAME=Four\n[text]\nOBJ_009_NAME=Four\nOBJ_009_HELP=F.\nOBJ_0804_NAME=\345\233\233\nOBJ_0804_HELP=\345\233\233.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\nCNT_804_NAME=\350\256\241\346\225\260\nCNT_804_HELP=\350\256\241.\n' >"$F/four.ini"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS "$F/four.ini"
f=$(first_of Four)
expect_exit 0 "$REGTOOL" $S names --lang 0804 "$f" $((f + 2))
expect_grep "^$f	四$" "$OUT"
expect_grep "^$((f + 2))	计数$" "$OUT"
[ "$(text_of 0804 "$f")" = "四" ] || fail "hivexget 0804: '$(text_of 0804 "$f")'"
printf '[info]\ndrivername=Twice\nsymbolfile=f.h\n[languages]\n804=A\n0804=B\n[text]\nOBJ_804_NAME=x\nOBJ_804_HELP=y\nCNT_804_NAME=x\nCNT_804_HELP=y\n' >"$F/twice.ini"
expect_exit 2 "$REGTOOL" check-ini "$F/twice.ini"
expect_grep "twice.ini:6: error: .*language '0804' is language '804' of line 5 again" "$ERR"

for p in Four OrderService TransferPerf APPMEM PERFGEN; do
    expect_exit 0 "$REGTOOL" $S uninstall "$p"
done
tables | cmp -s - "$TMPDIR/before" || fail "tables differ after uninstalling everything"
echo "real providers: ok"
