# init checks --languages before it creates anything (three or four hex
# digits each, none twice, none empty, the list not empty), and a failure
# at any point leaves nothing behind; files of System32 it does not write
# are left to it.
. tests/cli/lib.sh

mkdir -p "$TMPDIR/w"
tree_state "$TMPDIR/w" >"$TMPDIR/empty"
try() {   # try LIST MESSAGE
    expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/w/x" init --languages "$1"
    expect_grep "$2" "$ERR"
    expect_grep "nothing was written" "$ERR"
    expect_same_tree "$TMPDIR/w" "$TMPDIR/empty"
}
try 009,009 "language 009 is given twice"
try 009,00c,00C "language 00C is given twice"
# Every hex letter upper-cased, the last of them (f) too.
try 00F,00f "language 00F is given twice"
# CurrentLanguage is one key whatever the case it is given in.
try CurrentLanguage,currentlanguage "language CurrentLanguage is given twice"
try 009,CURRENTLANGUAGE,currentLanguage "language CurrentLanguage is given twice"
try '' "languages is empty"
try 009,,019 "has an empty language id"
try 009, "has an empty language id"
try 0g9 "'0g9' is not three or four hex digits"
try 00804 "'00804' is not three or four hex digits"

# Hex ids of three and four digits, 804 and 0804 both (real machines).
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/w/x" init --languages 009,804,0804
[ -f "$TMPDIR/w/x/Windows/System32/perfc0804.dat" ] || fail "no perfc0804.dat"
# Ids are written upper-cased, each letter a to f: the keys and the
# table files' names (whose case Linux keeps) as Windows spells them.
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/w/y" init --languages 009,00f,0c0a,0abe,0dc0 --layout files
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/w/y" query --json
expect_grep '"languages":\["009","00F","0ABE","0C0A","0DC0"\]' "$OUT"
for l in 00F 0C0A 0ABE 0DC0; do
    [ -f "$TMPDIR/w/y/Windows/System32/perfc$l.dat" ] || fail "no perfc$l.dat"
done

# CurrentLanguage is a key (the predefined handle's), never a table of
# its own: no perfcCurrentLanguage.dat, nor the tables as installed
# (perfd, perfi) under its name, in either layout; 009's are all there.
for layout in files registry; do
    expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/w/c-$layout" init --languages 009,CurrentLanguage --layout $layout
    found=$(find "$TMPDIR/w/c-$layout" -iname '*currentlanguage*')
    [ -z "$found" ] || fail "$layout layout: a file of CurrentLanguage: $found"
    for k in d i; do
        [ -f "$TMPDIR/w/c-$layout/Windows/System32/perf${k}009.dat" ] ||
            fail "$layout layout: no perf${k}009.dat"
    done
done

# A failure after the check leaves nothing behind either: SysWOW64 is a
# file, so its directory cannot be made once config/ was.
mkdir -p "$TMPDIR/v/x/Windows"
echo no >"$TMPDIR/v/x/Windows/SysWOW64"
tree_state "$TMPDIR/v" >"$TMPDIR/before"
expect_exit 3 "$REGTOOL" --store "hive:$TMPDIR/v/x" init --languages 009
expect_same_tree "$TMPDIR/v" "$TMPDIR/before"

# A .dat table already there: refused before anything is created.
rm -rf "$TMPDIR/v"; mkdir -p "$TMPDIR/v/x/Windows/System32"
echo old >"$TMPDIR/v/x/Windows/System32/perfh009.dat"
tree_state "$TMPDIR/v" >"$TMPDIR/before"
expect_exit 4 "$REGTOOL" --store "hive:$TMPDIR/v/x" init --languages 009
expect_grep "perfh009.dat already exists" "$ERR"
expect_same_tree "$TMPDIR/v" "$TMPDIR/before"

# Files of System32 init does not write are left to it, whatever their
# names ("perf" is every table file's name without its letter and
# language): init writes beside them.
rm -rf "$TMPDIR/v"; mkdir -p "$TMPDIR/v/x/Windows/System32"
echo other >"$TMPDIR/v/x/Windows/System32/perf"
echo other >"$TMPDIR/v/x/Windows/System32/perfc009.txt"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/v/x" init --languages 009
[ -f "$TMPDIR/v/x/Windows/System32/perfh009.dat" ] || fail "no perfh009.dat"
[ "$(cat "$TMPDIR/v/x/Windows/System32/perf")" = other ] || fail "perf was changed"

# Each base provider's Library (%SystemRoot%\...) is REG_EXPAND_SZ, as on
# Windows, whose Perflib does not expand a plain REG_SZ and would load no
# DLL; Open, Collect and Close are REG_SZ. Read by reglookup, not by us.
reglookup -p /ControlSet001/Services "$TMPDIR/v/x/Windows/System32/config/SYSTEM" \
    >"$TMPDIR/services" 2>"$ERR" || fail "reglookup: $(cat "$ERR")"
grep '/Performance/\(Library\|Open\|Collect\|Close\),' "$TMPDIR/services" >"$TMPDIR/perf"
libs=$(grep -c '/Performance/Library,EXPAND_SZ,%25SystemRoot%25\\' "$TMPDIR/perf")
[ "$libs" -ge 5 ] || fail "$libs base Libraries as REG_EXPAND_SZ: $(cat "$TMPDIR/perf")"
grep -v '/Library,EXPAND_SZ,\|/\(Open\|Collect\|Close\),SZ,' "$TMPDIR/perf" >"$TMPDIR/odd" &&
    fail "values of another type: $(cat "$TMPDIR/odd")"
[ "$(grep -c '/\(Open\|Collect\|Close\),SZ,' "$TMPDIR/perf")" -eq $((3 * libs)) ] ||
    fail "Open, Collect, Close not REG_SZ beside each Library: $(cat "$TMPDIR/perf")"
