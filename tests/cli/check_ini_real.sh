#!/bin/sh
# check-ini on real lodctr inputs, read where they are and exactly as
# their producers wrote them: Microsoft's SDK samples perfgen and appmem
# ($SHARED/research-real/providers, README there). Both INIs end with a
# DOS end-of-file byte (0x1A), name their symbol file in another case
# than the file's (genctrnm.h for GenCtrnm.h); appmem has no [objects]
# and four names that end in spaces, dropped (as the profile API drops
# them) with a warning.
. tests/cli/lib.sh
command -v jq >/dev/null || fail "jq is needed (tools/deps.sh installs it)"
P=$SHARED/research-real/providers
[ -f "$P/perfgen/Perfgen.Ini" ] || fail "no $P/perfgen/Perfgen.Ini"
[ "$(tail -c 1 "$P/perfgen/Perfgen.Ini" | od -An -tx1 | tr -d ' ')" = 1a ] ||
    fail "Perfgen.Ini no longer ends with 0x1A"
[ ! -e "$P/perfgen/genctrnm.h" ] || fail "genctrnm.h exists in lower case"

expect_exit 0 "$REGTOOL" check-ini --strict --json "$P/perfgen/Perfgen.Ini"
jq -e '.drivername == "PERFGEN" and .languages == ["009"]
       and .objects == ["SIGGEN_OBJ"]
       and ([.symbols[] | [.symbol, .offset]] ==
            [["SIGGEN_OBJ", 0], ["SINE_WAVE", 2], ["TRIANGLE_WAVE", 4],
             ["SQUARE_WAVE", 6], ["CONSTANT_VALUE", 8]])
       and .symbols[0].text["009"].name == "Signal Generator"
       and .symbols[4].text["009"].help == "Displays a constant non-zero value that does not change from sample to sample."
       and .symbols[3].text["009"].name == "Square Wave"
       and .warnings == []' "$OUT" >/dev/null ||
    { cat "$OUT" >&2; fail "Perfgen.Ini: wrong provider"; }
expect_exit 0 "$REGTOOL" check-ini "$P/perfgen/Perfgen.Ini"
expect_grep "^symbolfile: genctrnm.h$" "$OUT"
[ ! -s "$ERR" ] || fail "Perfgen.Ini: diagnostics for a valid INI"

expect_exit 0 "$REGTOOL" check-ini --json "$P/appmem/AppMem.Ini"
jq -e '.drivername == "APPMEM" and .objects == []
       and ([.symbols[] | [.symbol, .offset]] ==
            [["APPMEMOBJ", 0], ["APPMEMALLOC", 2], ["APPALLOCS", 4],
             ["APPALLOCSSEC", 6], ["APPREALLOCS", 8],
             ["APPREALLOCSSEC", 10], ["APPFREES", 12], ["APPFREESSEC", 14]])
       and .symbols[0].text["009"].name == "Application Memory"
       and .symbols[3].text["009"].name == "Memory Allocs/Sec"
       and .symbols[4].text["009"].name == "Memory Reallocs"
       and .symbols[5].text["009"].name == "Memory Reallocs/Sec"
       and .symbols[6].text["009"].name == "Memory Frees"
       and .symbols[7].text["009"].name == "Memory Frees/Sec"
       and .symbols[7].text["009"].help == "The rate the application is calling the GlobalFree function to release allocated memory."
       and (.warnings | length) == 4
       and all(.warnings[]; test("AppMem.Ini:(15|17|21|23): warning: APP[A-Z]+_009_NAME ends in spaces; they are dropped, as the profile API drops them$"))' \
    "$OUT" >/dev/null || { cat "$OUT" >&2; fail "AppMem.Ini: wrong provider"; }
# Warnings only: exit 1 with --strict, the texts still on stdout.
expect_exit 1 "$REGTOOL" check-ini --strict "$P/appmem/AppMem.Ini"
expect_grep "^    009 name: Memory Frees$" "$OUT"
[ "$(grep -c ': warning: .* ends in spaces' "$ERR")" -eq 4 ] ||
    fail "AppMem.Ini: want 4 trailing-space warnings"
if grep -q ': error: ' "$ERR"; then fail "AppMem.Ini: errors"; fi
exit 0
