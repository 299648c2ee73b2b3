# --emit-reg on install and uninstall: the exact change as a .reg patch.
# A registry-layout tree whose tables are small (hivex writes no value
# over 1 MB: the base tables are replaced by a restore first) is copied
# three times; on one, `install --dry-run --emit-reg` writes the patch and
# nothing else; the patch, applied to the second copy with hivexregedit
# --merge, gives what a real install gives the third, as reglookup reads
# both hives. The same for uninstall. On the files layout the patch holds
# the registry part only, and says so.
. tests/cli/lib.sh

CS="--create-service --library x.dll --open O --collect C --close X"
A=$TMPDIR/a
expect_exit 0 "$REGTOOL" --store "hive:$A" init --languages 009,019 --layout registry
printf '[Perflib]\nBase Index=1847\nLast Counter=1846\nLast Help=1847\n\n[PerfStrings_009]\n1=1847\n2=System\n3=The System object.\n4=Memory\n5=Memory help.\n1846=End Marker\n1847=End Marker help.\n\n[PerfStrings_019]\n1=1847\n2=Система\n3=Система.\n1846=End Marker\n1847=End Marker help.\n' >"$TMPDIR/small.ini"
# Its base texts are not init's: another machine's backup, restored as asked.
expect_exit 0 "$REGTOOL" --store "hive:$A" restore --force "$TMPDIR/small.ini"

# The patch in each hive's part, as hivexregedit takes it: UTF-8, LF,
# keys below the hive's root; CurrentControlSet is ControlSet001 here.
merge() {
    iconv -f UTF-16LE -t UTF-8 "$1" | sed '1s/^\xef\xbb\xbf//' | tr -d '\r' |
        awk -v sw="$TMPDIR/sw.reg" -v sy="$TMPDIR/sy.reg" '
            NR == 1 { print > sw; print > sy; next }
            /^\[/ { out = index($0, "[HKEY_LOCAL_MACHINE\\SOFTWARE\\") == 1 ? sw : sy }
            out { print > out }'
    sed -i 's/\\CurrentControlSet\\/\\ControlSet001\\/' "$TMPDIR/sy.reg"
    hivexregedit --merge --prefix 'HKEY_LOCAL_MACHINE\SOFTWARE' \
        "$2/Windows/System32/config/SOFTWARE" "$TMPDIR/sw.reg" || fail "hivexregedit SOFTWARE"
    hivexregedit --merge --prefix 'HKEY_LOCAL_MACHINE\SYSTEM' \
        "$2/Windows/System32/config/SYSTEM" "$TMPDIR/sy.reg" || fail "hivexregedit SYSTEM"
}
# Every key and value as reglookup reads them; keys' write times differ.
same_hives() {
    for h in SOFTWARE SYSTEM; do
        reglookup -H "$1/Windows/System32/config/$h" 2>/dev/null |
            sed 's/,KEY,,.*$/,KEY/' | sort >"$TMPDIR/r1"
        reglookup -H "$2/Windows/System32/config/$h" 2>/dev/null |
            sed 's/,KEY,,.*$/,KEY/' | sort >"$TMPDIR/r2"
        [ -s "$TMPDIR/r1" ] || fail "reglookup read nothing from $1 $h"
        diff "$TMPDIR/r1" "$TMPDIR/r2" >&2 || fail "$3: $h differs"
    done
}

cp -a "$A" "$TMPDIR/b"
cp -a "$A" "$TMPDIR/c"
tree_state "$A" >"$TMPDIR/a.state"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$A" install --dry-run --emit-reg "$TMPDIR/p.reg" $CS ini-samples/replication.ini
expect_grep "wrote the change to $TMPDIR/p.reg as a .reg patch: 5 keys, 16 values" "$OUT"
expect_same_tree "$A" "$TMPDIR/a.state"
head -c 6 "$TMPDIR/p.reg" | od -An -tx1 | grep -q 'ff fe 57 00 69 00' || fail "not UTF-16LE with BOM"
# Only what changes: the two tables of each language, Last Counter and
# Last Help, the new service's values; Base Index and Version are not in.
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/p.reg" | tr -d '\r' >"$TMPDIR/p8"
grep -q '"Base Index"' "$TMPDIR/p8" && fail "the patch rewrites Base Index"
[ "$(grep -c '^"Counter"=hex(7):' "$TMPDIR/p8")" -eq 2 ] || fail "not two Counter tables"
merge "$TMPDIR/p.reg" "$TMPDIR/b"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/c" install $CS ini-samples/replication.ini
same_hives "$TMPDIR/b" "$TMPDIR/c" install
# The merged copy is a sound database for regtool too.
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/b" audit
# A real install writes the same patch as its dry run.
cp -a "$A" "$TMPDIR/d"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/d" install --emit-reg "$TMPDIR/p2.reg" $CS ini-samples/replication.ini
cmp "$TMPDIR/p.reg" "$TMPDIR/p2.reg" || fail "install and its dry run emit different patches"

# Uninstall: values deleted with "name"=-.
tree_state "$TMPDIR/b" >"$TMPDIR/b.state"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/b" uninstall --dry-run --emit-reg "$TMPDIR/u.reg" ReplicationPerf
expect_same_tree "$TMPDIR/b" "$TMPDIR/b.state"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/u.reg" | tr -d '\r' >"$TMPDIR/u8"
grep -q '^"First Counter"=-$' "$TMPDIR/u8" || fail "uninstall's patch does not delete First Counter"
merge "$TMPDIR/u.reg" "$TMPDIR/b"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/c" uninstall ReplicationPerf
same_hives "$TMPDIR/b" "$TMPDIR/c" uninstall

# Files layout: the registry part only, said so.
F=$TMPDIR/f
expect_exit 0 "$REGTOOL" --store "hive:$F" init --languages 009 --layout files
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$F" install --dry-run --emit-reg "$TMPDIR/f.reg" $CS ini-samples/replication.ini
expect_grep "holds only the registry part (2 table changes left out)" "$OUT"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/f.reg" | tr -d '\r' >"$TMPDIR/f8"
grep -q '"Counter"' "$TMPDIR/f8" && fail "the files layout's patch has a table"
grep -q '^"Last Counter"=dword:' "$TMPDIR/f8" || fail "the files layout's patch lacks Last Counter"

# A patch that cannot be written: exit 3, the install's own result said.
expect_exit 3 "$REGTOOL" --store "hive:$F" install --dry-run --emit-reg "$TMPDIR/no/such/dir/p.reg" $CS ini-samples/replication.ini
expect_grep "cannot write $TMPDIR/no/such/dir/p.reg" "$ERR"

# Restore and repair: their patches, merged into a copy, give what the
# real command gives. The installed tree restored from the small backup
# (the provider's strings and range go), then Last Counter set too low
# and repaired.
rm -rf "$TMPDIR/b" "$TMPDIR/c"
cp -a "$TMPDIR/d" "$TMPDIR/b"
cp -a "$TMPDIR/d" "$TMPDIR/c"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/b" restore --dry-run --emit-reg "$TMPDIR/r.reg" "$TMPDIR/small.ini"
expect_grep "wrote the change to $TMPDIR/r.reg as a .reg patch" "$OUT"
merge "$TMPDIR/r.reg" "$TMPDIR/b"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/c" restore "$TMPDIR/small.ini"
same_hives "$TMPDIR/b" "$TMPDIR/c" restore

printf 'Windows Registry Editor Version 5.00\n\n[\\Microsoft\\Windows NT\\CurrentVersion\\Perflib]\n"Last Counter"=dword:00000002\n' >"$TMPDIR/low.reg"
for t in b c; do
    hivexregedit --merge "$TMPDIR/$t/Windows/System32/config/SOFTWARE" "$TMPDIR/low.reg" ||
        fail "hivexregedit could not lower Last Counter"
done
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/b" repair --dry-run --emit-reg "$TMPDIR/fix.reg"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/fix.reg" | tr -d '\r' | grep -q '^"Last Counter"=dword:00000736$' ||
    fail "repair's patch does not set Last Counter to 1846"
merge "$TMPDIR/fix.reg" "$TMPDIR/b"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/c" repair --backup "$TMPDIR/rb.ini"
same_hives "$TMPDIR/b" "$TMPDIR/c" repair
