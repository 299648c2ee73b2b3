# regtool repair --from-ini: a provider whose strings are gone from the
# tables (its service values still there, as after a .dat table restored
# from an older copy) gets them back from its INI, at the indices it has,
# in every language (the INI's own text, else English); from its INF copy
# in the tree (INF\<service>\<LLLL>\<PerfIniFile>, the symbol file beside
# it as install writes it or in INF\<service> as Windows does) when DIR
# has none; not at all, said so, when there is no
# INI or the INI's offsets do not give the installed range. A second
# repair changes nothing.
. tests/cli/lib.sh

D=$TMPDIR/win
S="--store hive:$D"
CS="--create-service --library x.dll --open O --collect C --close X"
I=$TMPDIR/ini
mkdir -p "$I" "$TMPDIR/empty" "$TMPDIR/other"
printf '#define OBJ 0\n#define CNT 2\n#define CNT2 4\n' >"$I/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n019=Russian\n[objects]\nOBJ_009_NAME=\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X help.\nCNT_009_NAME=Count\nCNT_009_HELP=C help.\nCNT2_009_NAME=Count2\nCNT2_009_HELP=C2 help.\nOBJ_019_NAME=Иксфер\nOBJ_019_HELP=Помощь.\nCNT_019_NAME=Счёт\nCNT_019_HELP=Помощь счёта.\n' >"$I/x.ini"
# The same provider, one counter short: not the INI that was installed.
printf '#define OBJ 0\n#define CNT 2\n' >"$TMPDIR/other/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X help.\nCNT_009_NAME=Count\nCNT_009_HELP=C help.\n' >"$TMPDIR/other/x.ini"

expect_exit 0 "$REGTOOL" $S init --languages 009,019,00C --layout files
cp -a "$D" "$TMPDIR/pristine"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS "$I/x.ini"
for l in 009 019 00C; do
    for h in "" --help-text; do
        "$REGTOOL" $S names --lang $l $h >"$TMPDIR/names.$l$h" || fail "names $l"
    done
done
# damage: the tables as they were before the install; the service keeps
# its ranges and Last Counter stays.
damage() {
    for d in System32 SysWOW64; do
        cp "$TMPDIR/pristine/Windows/$d/"*.dat "$D/Windows/$d/" || fail "cp"
    done
}
# restored: every language's tables are exactly as the install left them.
restored() {
    for l in 009 019 00C; do
        for h in "" --help-text; do
            "$REGTOOL" $S names --lang $l $h | cmp -s - "$TMPDIR/names.$l$h" ||
                fail "$1: $l $h not as installed"
        done
    done
    expect_exit 0 "$REGTOOL" $S audit --json
    jq -e '.summary.errors == 0 and .summary.warnings == 0' "$OUT" >/dev/null ||
        fail "$1: audit after repair: $(cat "$OUT")"
    tree_state "$D" >"$TMPDIR/st"
    expect_exit 0 "$REGTOOL" $S repair --from-ini "$I" --backup "$TMPDIR/again.ini"
    expect_grep "^nothing to repair" "$OUT"
    expect_same_tree "$D" "$TMPDIR/st"
}

damage
expect_exit 2 "$REGTOOL" $S audit --json
jq -e '[.findings[] | select(.id == "provider-strings-missing") | .language] | sort == ["009","00C","019"]' \
    "$OUT" >/dev/null || fail "audit: $(cat "$OUT")"
expect_exit 0 "$REGTOOL" $S repair --from-ini "$I" --backup "$TMPDIR/b1.ini"
for l in 009 019 00C; do
    expect_grep "strings-restored \[$l\]: Xfer: Perflib.$l: 3 names and 3 help texts restored from $DRIVE$I/x.ini" "$OUT"
done
restored "from DIR"
# Russian text where the INI has it, English where not.
expect_exit 0 "$REGTOOL" $S names --lang 019 Иксфер Count2
expect_exit 1 "$REGTOOL" $S names --lang 019 Xfer

# The INF copy as install wrote it, the symbol file beside the INI in
# INF\Xfer\0009, found when DIR has no INI of it.
damage
if [ ! -f "$D/Windows/INF/Xfer/0009/o.h" ] || [ -e "$D/Windows/INF/Xfer/o.h" ]; then
    fail "install's INF copy is not INF/Xfer/0009/{x.ini,o.h}"
fi
expect_exit 0 "$REGTOOL" $S repair --from-ini "$TMPDIR/empty" --backup "$TMPDIR/b0.ini"
expect_grep "strings-restored \[009\]: .* from $DRIVE$D/Windows/INF/Xfer/0009/x.ini" "$OUT"
restored "from install's INF copy"

# The INF copy as Windows keeps it, the symbol file in INF\Xfer, with the
# INI's name in another case, found when DIR has no INI of it.
damage
rm -r "$D/Windows/INF/Xfer/0009"
mkdir -p "$D/Windows/INF/Xfer/0019"
cp "$I/o.h" "$D/Windows/INF/Xfer/"
cp "$I/x.ini" "$D/Windows/INF/Xfer/0019/X.INI"
expect_exit 0 "$REGTOOL" $S repair --from-ini "$TMPDIR/empty" --backup "$TMPDIR/b2.ini"
expect_grep "strings-restored \[009\]: .* from $DRIVE$D/Windows/INF/Xfer/0019/X.INI" "$OUT"
restored "from the INF copy"
# Two INF copies: the first by its folder's name (0009), whatever order
# the file system lists them in.
damage
mkdir -p "$D/Windows/INF/Xfer/0009"
cp "$I/x.ini" "$D/Windows/INF/Xfer/0009/x.ini"
expect_exit 0 "$REGTOOL" $S repair --from-ini "$TMPDIR/empty" --backup "$TMPDIR/b3.ini"
expect_grep "strings-restored \[009\]: .* from $DRIVE$D/Windows/INF/Xfer/0009/x.ini" "$OUT"
restored "from the first INF copy"
rm -r "$D/Windows/INF"

# No INI anywhere: said so, nothing written.
damage
tree_state "$D" >"$TMPDIR/st"
expect_exit 2 "$REGTOOL" $S repair --from-ini "$TMPDIR/empty" --backup "$TMPDIR/b3.ini"
expect_grep "ini-not-found: Xfer: strings missing (in 009, 00C, 019), and no INI of it was found" "$OUT"
expect_same_tree "$D" "$TMPDIR/st"

# An INI whose offsets do not end at the installed range: refused, with
# the INI and the symbol named; nothing written.
expect_exit 2 "$REGTOOL" $S repair --from-ini "$TMPDIR/other" --backup "$TMPDIR/b4.ini"
expect_grep "ini-range-mismatch: Xfer: not restored from $DRIVE$TMPDIR/other/x.ini: its symbol CNT (offset 2) is its last" "$OUT"
expect_same_tree "$D" "$TMPDIR/st"
[ ! -e "$TMPDIR/b4.ini" ] || fail "a repair that wrote nothing saved a backup"

# A DIR that cannot be read.
expect_exit 2 "$REGTOOL" $S repair --from-ini "$TMPDIR/nonexistent"
expect_grep "from-ini $TMPDIR/nonexistent: No such file or directory" "$ERR"
echo "repair_from_ini: ok"
