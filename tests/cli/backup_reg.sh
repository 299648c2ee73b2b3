# backup --format reg and its restore, on a tree in both layouts: the
# .reg file is what reg export writes (UTF-16LE with BOM, Version 5.00)
# and holds the whole database (read as a reg: store, it answers query and
# names as the tree does); after damage (a provider uninstalled, one
# enabled, a table cut short) restore brings back every table byte for
# byte and every value, as hivexregedit and hivexsh read them; a second
# restore writes nothing; a dry run writes nothing; a malformed file is
# refused naming its line, exit 2, the tree untouched; another machine's
# .reg backup is refused without --force.
. tests/cli/lib.sh

CS="--create-service --library x.dll --open O --collect C --close X"
PERFLIB='\Microsoft\Windows NT\CurrentVersion\Perflib'

for layout in files registry; do
    D=$TMPDIR/$layout
    S="--store hive:$D"
    C=$D/Windows/System32/config
    expect_exit 0 "$REGTOOL" $S init --languages 009,019 --layout "$layout"
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" $S install $CS ini-samples/replication.ini
    expect_exit 0 "$REGTOOL" $S disable ESENT

    snap() {
        hivexregedit --export "$C/SYSTEM" '\ControlSet001\Services'
        if [ "$layout" = files ]; then
            (cd "$D/Windows" && sha256sum System32/perf*.dat SysWOW64/perf*.dat)
            printf '%s\n' "cd $PERFLIB" lsval | hivexsh "$C/SOFTWARE"
        else
            hivexregedit --export "$C/SOFTWARE" "$PERFLIB"
        fi
    }
    snap >"$TMPDIR/before" || fail "cannot read the tree"

    B=$TMPDIR/$layout.reg
    expect_exit 0 "$REGTOOL" $S backup --format reg "$B"
    expect_grep "saved 2 languages and 6 services to $B" "$OUT"
    if [ "$layout" = files ]; then
        expect_grep "note: this store keeps its tables in .dat files" "$OUT"
    fi
    head -c 6 "$B" | od -An -tx1 | grep -q 'ff fe 57 00 69 00' || fail "not UTF-16LE with BOM"
    iconv -f UTF-16LE -t UTF-8 "$B" | tr -d '\r' >"$TMPDIR/b8"
    for want in '"Library"=hex(2):' '"Object List"="' '"PerfIniFile"="replication.ini"' \
        '"Disable Performance Counters"=dword:00000001' '"Counter"=hex(7):' \
        '[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Services\ReplicationPerf\Performance]'; do
        grep -qF "$want" "$TMPDIR/b8" || fail "$layout: no $want in the .reg backup"
    done
    # The file as a database answers as the tree does.
    "$REGTOOL" --store "reg:$B" query --json | sed 's/^{"layout":"[^"]*"//' >"$TMPDIR/q1"
    "$REGTOOL" $S query --json | sed 's/^{"layout":"[^"]*"//' >"$TMPDIR/q2"
    cmp "$TMPDIR/q1" "$TMPDIR/q2" || fail "$layout: query of the .reg backup differs"
    "$REGTOOL" --store "reg:$B" names --lang 019 --help-text >"$TMPDIR/n1"
    "$REGTOOL" $S names --lang 019 --help-text >"$TMPDIR/n2"
    cmp "$TMPDIR/n1" "$TMPDIR/n2" || fail "$layout: names of the .reg backup differ"
    # FILE exists: FILE_001, as for the ini format.
    expect_exit 0 "$REGTOOL" $S backup --format reg "$B"
    expect_grep "to ${B}_001" "$OUT"
    cmp "$B" "${B}_001" || fail "$layout: a second backup differs"

    # Damage.
    expect_exit 0 "$REGTOOL" $S uninstall ReplicationPerf
    expect_exit 0 "$REGTOOL" $S enable ESENT
    if [ "$layout" = files ]; then
        head -c 1001 "$D/Windows/System32/perfc009.dat" >"$TMPDIR/cut"
        cp "$TMPDIR/cut" "$D/Windows/System32/perfc009.dat"
    else
        at=$(grep -obUaP '1\x008\x004\x006\x00\x00\x00E\x00n\x00d\x00 \x00M' "$C/SOFTWARE" |
            head -n 1 | cut -d: -f1)
        [ -n "$at" ] || fail "no 1846 End Marker in the hive"
        printf 'X' | dd of="$C/SOFTWARE" bs=1 seek="$at" conv=notrunc 2>/dev/null
    fi
    snap | cmp -s - "$TMPDIR/before" && fail "$layout: the damage did not happen"

    tree_state "$D" >"$TMPDIR/damaged"
    expect_exit 0 "$REGTOOL" $S restore --dry-run --emit-reg "$TMPDIR/p.reg" "$B"
    expect_grep "would restore from $B (.reg): 13 changes" "$OUT"
    expect_same_tree "$D" "$TMPDIR/damaged"
    # The patch: the service values restored, and the tables where they
    # are registry values.
    iconv -f UTF-16LE -t UTF-8 "$TMPDIR/p.reg" | tr -d '\r' >"$TMPDIR/p8"
    grep -q '^"PerfIniFile"="replication.ini"$' "$TMPDIR/p8" || fail "$layout: restore's patch lacks PerfIniFile"
    if [ "$layout" = files ]; then
        expect_grep "(4 table changes left out)" "$OUT"
    else
        [ "$(grep -c '^"Help"=hex(7):' "$TMPDIR/p8")" -eq 2 ] || fail "restore's patch lacks the Help tables"
    fi

    # Malformed: line 5 of the file broken.
    awk 'NR == 5 { print "\"Base Index\"=dword:xyz"; next } { print }' "$TMPDIR/b8" >"$TMPDIR/bad.reg"
    expect_exit 2 "$REGTOOL" $S restore "$TMPDIR/bad.reg"
    expect_grep "$TMPDIR/bad.reg:5: dword: takes 1 to 8 hex digits; nothing was written" "$ERR"
    expect_same_tree "$D" "$TMPDIR/damaged"

    # A table of no string: English's Counter an empty REG_MULTI_SZ (its
    # terminator alone, two bytes) is refused, never written as a table.
    awk 'skip && /^  / { next } { skip = 0 }
         /^\[/ { in009 = ($0 ~ /Perflib\\009\]$/) }
         in009 && /^"Counter"=hex\(7\):/ { print "\"Counter\"=hex(7):00,00"; skip = /\\$/; next }
         { print }' "$TMPDIR/b8" >"$TMPDIR/empty.reg"
    grep -q '^"Counter"=hex(7):00,00$' "$TMPDIR/empty.reg" || fail "$layout: no empty Counter made"
    expect_exit 2 "$REGTOOL" $S restore "$TMPDIR/empty.reg"
    expect_grep "Perflib\\\\009's Counter in the file is empty" "$ERR"
    expect_same_tree "$D" "$TMPDIR/damaged"

    expect_exit 0 "$REGTOOL" $S restore "$B"
    expect_grep "restored from $B (.reg): 13 changes" "$OUT"
    snap >"$TMPDIR/after"
    cmp "$TMPDIR/before" "$TMPDIR/after" || fail "$layout: restore did not bring the database back"
    tree_state "$D" >"$TMPDIR/restored"
    expect_exit 0 "$REGTOOL" $S restore "$B"
    expect_grep "0 changes, nothing to write" "$OUT"
    expect_same_tree "$D" "$TMPDIR/restored"
done

# Another machine's .reg backup: tree W holds Windows' own base texts
# (a real PerfStringBackup restored with --force), tree I init's. W's .reg
# restored onto I is refused as restore refuses another machine's
# PerfStringBackup: exit 4, how many differ named, nothing written; with
# --dry-run it is said, and its exit is the restore's (4); with --force
# it is restored, with a warning line.
W=$TMPDIR/windows
I=$TMPDIR/init
xz -dc "$SHARED/research-real/perfstringbackup/psb-C-009.PerfStringBackup.INI.xz" >"$TMPDIR/C.ini"
expect_exit 0 "$REGTOOL" --store "hive:$W" init --languages 009 --layout files
expect_exit 0 "$REGTOOL" --store "hive:$W" restore --force "$TMPDIR/C.ini"
expect_exit 0 "$REGTOOL" --store "hive:$W" backup --format reg "$TMPDIR/w.reg"
expect_exit 0 "$REGTOOL" --store "hive:$I" init --languages 009 --layout files
differ="differ from the database's in [1-9][0-9]* of the [1-9][0-9]* they both have (the first: index [0-9]* of language 009)"
tree_state "$I" >"$TMPDIR/init_before"
expect_exit 4 "$REGTOOL" --store "hive:$I" restore --dry-run --emit-reg "$TMPDIR/refused.reg" "$TMPDIR/w.reg"
# The change the restore refuses is no patch either (review 39 F6).
[ ! -e "$TMPDIR/refused.reg" ] || fail "a refused restore's dry run wrote its patch"
expect_grep "^regtool: warning: $TMPDIR/w.reg: its base texts (indices 1 to Base Index 1847) $differ: another machine's backup, which restore refuses without --force$" "$ERR"
expect_grep "^regtool: restore from $TMPDIR/w.reg: another machine's backup: the restore would write nothing (--force restores it anyway)$" "$ERR"
expect_grep "^regtool: would restore from $TMPDIR/w.reg (.reg)" "$OUT"
expect_same_tree "$I" "$TMPDIR/init_before"
expect_exit 4 "$REGTOOL" --store "hive:$I" restore "$TMPDIR/w.reg"
expect_grep "^regtool: restore from $TMPDIR/w.reg: the file's base texts (indices 1 to Base Index 1847) $differ: it is another machine's backup; nothing was written (--force restores it anyway)$" "$ERR"
# (the writer's lock file it made aside)
tree_state "$I" ! -name regtool.lock | diff "$TMPDIR/init_before" - >&2 ||
    fail "a refused restore changed $I"
expect_exit 0 "$REGTOOL" --store "hive:$I" restore --force "$TMPDIR/w.reg"
expect_grep "^regtool: restored from $TMPDIR/w.reg (.reg)" "$OUT"
expect_grep "^regtool: warning: $TMPDIR/w.reg: its base texts (indices 1 to Base Index 1847) $differ: another machine's backup, restored as asked$" "$ERR"
# Its own texts now: again without --force, nothing to write.
expect_exit 0 "$REGTOOL" --store "hive:$I" restore "$TMPDIR/w.reg"
expect_grep "0 changes, nothing to write" "$OUT"

expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/files" backup --format xml "$TMPDIR/x"
expect_grep "give ini" "$ERR"
