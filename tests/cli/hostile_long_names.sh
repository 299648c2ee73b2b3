# A service key name of many characters outside ASCII (161 CJK characters
# are 483 bytes of UTF-8, under Windows' 255 characters): the hive store's
# key paths were cut at 512 bytes, so "Services\<name>\Performance" was
# read as "...\<name>\Perf", a decoy key the disk's author planted beside
# it, and a Library in a user-writable place that Windows loads was judged
# clean; disable wrote into the decoy (review 55 R55-3). Planted with
# hivexregedit; read back with hivexget. A name longer than Windows allows
# (350 such characters) is refused by name, never read cut short, and no
# writer changes the tree.
. tests/cli/lib.sh

D=$TMPDIR/w
C=$D/Windows/System32/config
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009
cp -a "$D" "$TMPDIR/pristine"
# cjk N: N times U+4E2D (three bytes of UTF-8).
cjk() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "\344\270\255" }'; }
# plant N: Services\<N CJK characters> with a Performance key whose Library
# is C:\Users\Public\evil.dll, and a decoy Perf key beside it.
plant() {
    k="HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet001\\Services\\$(cjk "$1")"
    p='"Open"="O"
"Collect"="C"
"Close"="X"'
    printf 'Windows Registry Editor Version 5.00\n\n[%s]\n"Start"=dword:00000003\n\n[%s\\Performance]\n"Library"="C:\\\\Users\\\\Public\\\\evil.dll"\n%s\n\n[%s\\Perf]\n"Library"="C:\\\\Windows\\\\System32\\\\good.dll"\n%s\n' \
        "$k" "$k" "$p" "$k" "$p" >"$TMPDIR/plant.reg"
    hivexregedit --merge --prefix 'HKEY_LOCAL_MACHINE\SYSTEM' "$C/SYSTEM" \
        "$TMPDIR/plant.reg" || fail "hivexregedit --merge"
}
plant 161
X=$(cjk 161)
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries
expect_grep "^warning  *library-user-writable: $X: Library C:.Users.Public.evil.dll" "$OUT"
grep -q "good.dll" "$OUT" && fail "audit --libraries judged the decoy key"
expect_exit 0 "$REGTOOL" --store "hive:$D" disable "$X"
[ "$(hivexget "$C/SYSTEM" "ControlSet001\\Services\\$X\\Performance" \
     "Disable Performance Counters")" = 1 ] ||
    fail "disable did not write the key Windows reads"
hivexget "$C/SYSTEM" "ControlSet001\\Services\\$X\\Perf" \
    "Disable Performance Counters" >/dev/null 2>&1 &&
    fail "disable wrote into the decoy key"

# Longer than Windows allows: said, and every verb refuses it whole.
rm -rf "$D"
cp -a "$TMPDIR/pristine" "$D"
plant 350
tree_state "$D" >"$TMPDIR/before"
expect_exit 2 "$REGTOOL" --store "hive:$D" audit --libraries
expect_grep "database-unreadable: a key path of [0-9]* bytes .* holds a name longer than Windows allows (255 characters)" "$OUT"
"$REGTOOL" --store "hive:$D" disable PerfOS >"$OUT" 2>"$ERR" &&
    fail "disable beside a name longer than Windows allows succeeded"
expect_grep "holds a name longer than Windows allows" "$ERR"
# (The writer's lock, taken before the database is read, stays.)
TREE_IGNORE=regtool.lock
expect_same_tree "$D" "$TMPDIR/before"
TREE_IGNORE=

# An INI whose drivername Windows takes (255 characters or fewer) but a
# Linux file system cannot name its INF folder with (86 CJK characters
# are 258 bytes): refused before anything is written, where the install
# passed its commit point and failed making INF\<drivername>, the journal
# left to every later writer (review 55 R55-2). And 200 characters past
# the BMP are 400 of Windows' (UTF-16 units), not 200.
rm -rf "$D"
cp -a "$TMPDIR/pristine" "$D"
iconv -f UTF-16 -t UTF-8 ini-samples/transfer.ini >"$TMPDIR/t8.ini" || fail "iconv"
cp ini-samples/CounterOffsets.h "$TMPDIR/"
sed "s/^drivername=TransferPerf/drivername=$(cjk 86)/" "$TMPDIR/t8.ini" >"$TMPDIR/long.ini"
tree_state "$D" >"$TMPDIR/before"
for run in --dry-run ""; do
    # shellcheck disable=SC2086
    expect_exit 2 "$REGTOOL" --store "hive:$D" install $run --create-service \
        --library x.dll --open O --collect C --close X "$TMPDIR/long.ini"
    expect_grep "cannot name the INF folder .*: it is longer than 255 bytes of UTF-8" "$ERR"
done
TREE_IGNORE=regtool.lock
expect_same_tree "$D" "$TMPDIR/before"
TREE_IGNORE=
E=$(awk 'BEGIN { for (i = 0; i < 200; i++) printf "\360\237\230\200" }')
sed "s/^drivername=TransferPerf/drivername=$E/" "$TMPDIR/t8.ini" >"$TMPDIR/emoji.ini"
expect_exit 2 "$REGTOOL" check-ini "$TMPDIR/emoji.ini"
expect_grep "drivername is 400 characters long, longer than a registry key name (255)" "$ERR"
echo "hostile_long_names: ok"
