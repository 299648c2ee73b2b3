# The copies of the tables a Windows tree keeps beside the ones Windows
# serves (docs/design.md, "Where the tables live"): SysWOW64's .dat files,
# which 32-bit programs read, and Counter/Help values a Vista-or-later
# SOFTWARE hive still holds under Perflib\LLL (Windows serves the .dat
# files). A difference planted in each, by editing the bytes: audit reports
# it (id, language, first differing index, both places named); repair writes
# the stale copy from System32's table in its one commit; audit is then
# clean of it, the copies read back equal (cmp; the hive's value through
# hivexget), a second repair changes nothing, and an install keeps every
# copy equal.
. tests/cli/lib.sh

D=$TMPDIR/win
S="--store hive:$D"
W=$D/Windows
SW=$W/System32/config/SOFTWARE
PL='\Microsoft\Windows NT\CurrentVersion\Perflib'
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" $S init --languages 009,019 --layout files
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/replication.ini

# utf16_offset FILE TEXT: the byte offset of ASCII TEXT's first
# occurrence in FILE as UTF-16LE.
utf16_offset() {
    od -An -v -tu1 -w2 "$1" | awk -v t="$2" '
        function code(c,   k) { for (k = 32; k < 127; k++) if (sprintf("%c", k) == c) return k; return -1 }
        BEGIN { n = length(t); for (i = 1; i <= n; i++) want[i] = code(substr(t, i, 1)) }
        { u[NR] = $2 == 0 ? $1 : -1
          if (NR >= n) { ok = 1
              for (i = 1; i <= n && ok; i++) if (u[NR - n + i] != want[i]) ok = 0
              if (ok) { print (NR - n) * 2; exit } } }'
}
# hive_value_is LANG KIND FILE: Perflib\LANG's KIND value, as hivexget
# reads it, holds FILE's strings.
hive_value_is() {
    hivexget "$SW" "$PL\\$1" "$2" | sed '/^$/d' >"$TMPDIR/hv" ||
        fail "hivexget $1 $2"
    iconv -f UTF-16LE -t UTF-8 "$3" | tr '\0' '\n' | sed '/^$/d' |
        cmp -s - "$TMPDIR/hv" || fail "Perflib\\$1\\$2 in the hive is not $3"
}

# 1. SysWOW64's 009 names: one letter of the name at index 2 changed.
f=$W/SysWOW64/perfc009.dat
off=$(utf16_offset "$W/System32/perfc009.dat" "Processor")
[ -n "$off" ] || fail "no Processor in perfc009.dat"
printf 'K' | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
# 2. A Counter value for 019 in the hive: 019's names with the first
#    byte of index 2's text changed (bytes 0-17 are "1", "1847", "2").
cp "$W/System32/perfc019.dat" "$TMPDIR/m.dat"
printf 'K' | dd of="$TMPDIR/m.dat" bs=1 seek=18 conv=notrunc 2>/dev/null
{
    printf 'Windows Registry Editor Version 5.00\n\n[HKEY_LOCAL_MACHINE\\SOFTWARE%s\\019]\n"Counter"=hex(7):' "$PL"
    od -An -v -tx1 "$TMPDIR/m.dat" | tr -s ' \n' ',' | sed 's/^,//; s/,$//'
    printf '\n'
} >"$TMPDIR/plant.reg"
hivexregedit --merge --prefix 'HKEY_LOCAL_MACHINE\SOFTWARE' "$SW" "$TMPDIR/plant.reg" ||
    fail "hivexregedit could not plant the value"
hive_value_is 019 Counter "$TMPDIR/m.dat"

expect_exit 2 "$REGTOOL" $S audit --json
jq -e '[.findings[] | select(.id == "table-copy-wow64-differs")] |
       length == 1 and .[0].language == "009" and .[0].indices == [2] and
       .[0].severity == "error" and .[0].fix == "regtool repair" and
       (.[0].message | test("SysWOW64\\\\perfc009.dat .*System32\\\\perfc009.dat")) and
       (.[0].symptom | test("32-bit"))' "$OUT" >/dev/null ||
    fail "audit of SysWOW64: $(cat "$OUT")"
jq -e '[.findings[] | select(.id == "table-copy-hive-differs")] |
       length == 1 and .[0].language == "019" and .[0].indices == [2] and
       .[0].severity == "warning" and
       (.[0].message | test("Perflib\\\\019\\\\Counter in the SOFTWARE hive .*System32\\\\perfc019.dat"))' \
    "$OUT" >/dev/null || fail "audit of the hive's copy: $(cat "$OUT")"
expect_exit 2 "$REGTOOL" $S audit
expect_grep "^error   table-copy-wow64-differs \[009\]" "$OUT"
expect_grep "^warning table-copy-hive-differs \[019\]" "$OUT"
# --lang keeps the language's own.
expect_exit 1 "$REGTOOL" $S audit --json --lang 019
jq -e '[.findings[].id] | index("table-copy-wow64-differs") == null' "$OUT" >/dev/null ||
    fail "audit --lang 019: $(cat "$OUT")"

tree_state "$D" >"$TMPDIR/before"
expect_exit 0 "$REGTOOL" $S repair --dry-run
expect_grep "table-copy-wow64-rewritten \[009\]" "$OUT"
expect_same_tree "$D" "$TMPDIR/before"
expect_exit 0 "$REGTOOL" $S repair --backup "$TMPDIR/b.ini"
expect_grep "table-copy-wow64-rewritten \[009\]: Perflib.009.Counter: SysWOW64.perfc009.dat rewritten from System32's" "$OUT"
expect_grep "table-copy-hive-rewritten \[019\]" "$OUT"
for t in perfc009 perfh009 perfc019 perfh019; do
    cmp -s "$W/System32/$t.dat" "$W/SysWOW64/$t.dat" || fail "$t.dat: the copies differ"
done
# System32's tables are what they were: only the stale copies changed.
grep "System32/perf" "$TMPDIR/before" >"$TMPDIR/s32"
tree_state "$D" | grep "System32/perf" | cmp -s - "$TMPDIR/s32" ||
    fail "repair changed System32's tables"
hive_value_is 019 Counter "$W/System32/perfc019.dat"
expect_exit 0 "$REGTOOL" $S audit --json
jq -e '[.findings[].id | select(startswith("table-copy"))] == []' "$OUT" >/dev/null ||
    fail "after repair: $(cat "$OUT")"
tree_state "$D" >"$TMPDIR/repaired"
expect_exit 0 "$REGTOOL" $S repair --backup "$TMPDIR/b2.ini"
expect_grep "^nothing to repair" "$OUT"
expect_same_tree "$D" "$TMPDIR/repaired"

# An install writes every copy: the hive's 019 value follows the table.
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/transfer.ini
hive_value_is 019 Counter "$W/System32/perfc019.dat"
cmp -s "$W/System32/perfc019.dat" "$W/SysWOW64/perfc019.dat" || fail "install: copies differ"
expect_exit 0 "$REGTOOL" $S audit

# A SysWOW64 copy that is not System32's table before the install's
# first edit (a text changed near its start; another cut short of that
# edit) gets System32's whole table, not the splice: both copies equal
# after the install, and equal to what a tree with sound copies gets.
expect_exit 0 "$REGTOOL" $S uninstall TransferPerf
cp -a "$D" "$TMPDIR/sound"
off=$(utf16_offset "$W/SysWOW64/perfh009.dat" "Faults")
[ -n "$off" ] || fail "no 'Faults' in SysWOW64/perfh009.dat"
printf 'Q\000' | dd of="$W/SysWOW64/perfh009.dat" bs=1 seek="$off" conv=notrunc 2>/dev/null
head -c 64 "$W/System32/perfc009.dat" >"$W/SysWOW64/perfc009.dat"
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/transfer.ini
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/sound" install $CS ini-samples/transfer.ini
for t in perfc009 perfh009; do
    cmp -s "$W/System32/$t.dat" "$W/SysWOW64/$t.dat" || fail "stale copy: $t.dat copies differ"
    cmp -s "$W/SysWOW64/$t.dat" "$TMPDIR/sound/Windows/SysWOW64/$t.dat" ||
        fail "stale copy: SysWOW64/$t.dat is not what a sound tree gets"
done
# A copy that lacks a pair (index 4 cut from SysWOW64's 009 names): the
# first index where they differ is the smaller of the two found at that
# position, 4, not the 6 the copy holds there.
iconv -f UTF-16LE -t UTF-8 "$W/System32/perfc009.dat" | tr '\0' '\n' |
    awk 'NR % 2 == 1 && $0 == "4" { skip = 2 } skip { skip--; next } { print }' |
    tr '\n' '\0' | iconv -f UTF-8 -t UTF-16LE >"$W/SysWOW64/perfc009.dat" ||
    fail "cannot cut index 4 from the copy"
expect_exit 2 "$REGTOOL" $S audit --json
jq -e '[.findings[] | select(.id == "table-copy-wow64-differs")] |
       length == 1 and .[0].language == "009" and .[0].indices == [4]' "$OUT" >/dev/null ||
    fail "a copy lacking pair 4: $(jq -c '[.findings[] | select(.id == "table-copy-wow64-differs")]' "$OUT")"
echo "table_copies: ok"
