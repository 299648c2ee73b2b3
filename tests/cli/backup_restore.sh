# backup and restore (lodctr /S, /R:file; docs/design.md, "The backup
# store") on a tree in both layouts: a backup, then damage (a table
# truncated, a provider's First Counter changed, a provider enabled), then
# --dry-run (says what would change, writes nothing) and restore: every
# table byte for byte as before, the services' values as before, Disable
# Performance Counters included. Then malformed files: an error naming the
# line, exit 2 (lodctr: 13), and the tree byte-identical. Then the file
# names backup takes when FILE exists, --force, and lodctr /S:file and
# /R:file with Win32 codes.
. tests/cli/lib.sh

CS="--create-service --library x.dll --open O --collect C --close X"
TREE_IGNORE=regtool.lock
PERFLIB='\Microsoft\Windows NT\CurrentVersion\Perflib'

mkdir -p "$TMPDIR/bin"
L=$TMPDIR/bin/lodctr
ln -s "$REGTOOL" "$L"

for layout in files registry; do
    D=$TMPDIR/$layout
    S="--store hive:$D"
    C=$D/Windows/System32/config
    expect_exit 0 "$REGTOOL" $S init --languages 009,019 --layout "$layout"
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" $S install $CS ini-samples/replication.ini
    expect_exit 0 "$REGTOOL" $S disable ESENT

    # The state to come back to: every table's bytes, every value.
    tables() {
        if [ "$layout" = files ]; then
            # Perflib\009 is a predefined-handle key there, which hivex
            # cannot read: the .dat files and Perflib's own values.
            (cd "$D/Windows" && sha256sum System32/perf*.dat SysWOW64/perf*.dat)
            printf '%s\n' "cd $PERFLIB" lsval | hivexsh "$C/SOFTWARE"
        else
            hivexregedit --export "$C/SOFTWARE" "$PERFLIB"
        fi
    }
    services() { hivexregedit --export "$C/SYSTEM" '\ControlSet001\Services'; }
    tables >"$TMPDIR/tables.before"
    services >"$TMPDIR/services.before"
    "$REGTOOL" $S query --json >"$TMPDIR/query.before"

    expect_exit 0 "$REGTOOL" $S backup "$TMPDIR/$layout.ini"
    expect_grep "saved 2 languages and 5 services to $TMPDIR/$layout.ini" "$OUT"
    tree_state "$D" >"$TMPDIR/tree.backup"
    expect_same_tree "$D" "$TMPDIR/tree.backup" "$layout: backup wrote to the store"

    # Damage: a Counter table cut short (009's .dat file; in the hive, an
    # index made non-decimal, which ends the table there for a reader),
    # ReplicationPerf's First Counter changed, ESENT enabled.
    if [ "$layout" = files ]; then
        head -c 1001 "$D/Windows/System32/perfc009.dat" >"$TMPDIR/cut"
        cp "$TMPDIR/cut" "$D/Windows/System32/perfc009.dat"
    else
        # hivex cannot rewrite a key with a Help value this big
        # (docs/design.md, "Why our own hive reader and writer"): the byte
        # is changed in place.
        at=$(grep -obUaP '1\x008\x004\x006\x00\x00\x00E\x00n\x00d\x00 \x00M' "$C/SOFTWARE" |
            head -n 1 | cut -d: -f1)
        [ -n "$at" ] || fail "no 1846 End Marker in the hive"
        printf 'x' | dd of="$C/SOFTWARE" bs=1 seek=$((at + 4)) conv=notrunc 2>/dev/null
    fi
    printf 'Windows Registry Editor Version 5.00\n\n[\\ControlSet001\\Services\\ReplicationPerf\\Performance]\n"First Counter"=dword:00000002\n' \
        >"$TMPDIR/damage.reg"
    hivexregedit --merge "$C/SYSTEM" "$TMPDIR/damage.reg" || fail "hivexregedit could not change First Counter"
    expect_exit 0 "$REGTOOL" $S enable ESENT
    tables | cmp -s - "$TMPDIR/tables.before" && fail "$layout: the damage did not happen"

    tree_state "$D" >"$TMPDIR/tree.damaged"
    # A backup of the damaged database holds every pair readable in it
    # and names the damaged table, exit 1 (backup_promises.sh holds the
    # pairs it saves).
    expect_exit 1 "$REGTOOL" $S backup "$TMPDIR/damaged.ini"
    expect_grep "Perflib.009.Counter is damaged at byte [0-9]* of [0-9]* (.*): saved the [0-9]* pairs readable in it" "$ERR"
    [ -s "$TMPDIR/damaged.ini" ] || fail "$layout: the damaged database's backup is not there"
    rm -f "$TMPDIR/damaged.ini"
    # Three changes to the database, and System32\PerfStringBackup.INI
    # (init made one) rewritten from the result in the same commit.
    expect_exit 0 "$REGTOOL" $S restore --dry-run "$TMPDIR/$layout.ini"
    expect_grep "^regtool: would restore from $TMPDIR/$layout.ini (UTF-16LE): 4 changes$" "$OUT"
    expect_grep "^language 0[01]9: [0-9]* names and [0-9]* help texts (were [0-9]* and [0-9]*) from \[PerfStrings_0[01]9\], line " "$OUT"
    expect_grep "^language 0[01]9: [0-9]* names and [0-9]* help texts, unchanged$" "$OUT"
    expect_grep "^service ReplicationPerf: names [0-9]*-[0-9]*, help [0-9]*-[0-9]*$" "$OUT"
    expect_grep "^service ESENT: Disable Performance Counters 1$" "$OUT"
    expect_grep "^services: 1 ranges set, 0 deleted, 5 unchanged$" "$OUT"
    expect_same_tree "$D" "$TMPDIR/tree.damaged" "$layout: --dry-run wrote"

    expect_exit 0 "$REGTOOL" $S restore "$TMPDIR/$layout.ini"
    expect_grep "^regtool: restored from $TMPDIR/$layout.ini (UTF-16LE): 4 changes$" "$OUT"
    cmp -s "$TMPDIR/$layout.ini" "$D/Windows/System32/PerfStringBackup.INI" ||
        fail "$layout: PerfStringBackup.INI is not the backup of the restored state"
    tables | cmp - "$TMPDIR/tables.before" || fail "$layout: tables differ after restore"
    services | cmp - "$TMPDIR/services.before" || fail "$layout: services differ after restore"
    "$REGTOOL" $S query --json | cmp - "$TMPDIR/query.before" || fail "$layout: query differs"
    expect_exit 0 "$REGTOOL" hive check "$C/SOFTWARE"
    expect_exit 0 "$REGTOOL" hive check "$C/SYSTEM"

    # A service the file does not know loses its range (lodctr's rule).
    printf '[info]\ndrivername=Later\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Later\nOBJ_009_HELP=L.\n' >"$TMPDIR/later.ini"
    printf '#define OBJ 0\n' >"$TMPDIR/o.h"
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" $S install $CS "$TMPDIR/later.ini"
    expect_exit 0 "$REGTOOL" $S restore "$TMPDIR/$layout.ini"
    expect_grep "^service Later: First/Last Counter/Help deleted (the file has no \[PERF_Later\])$" "$OUT"
    tables | cmp - "$TMPDIR/tables.before" || fail "$layout: tables differ after the second restore"
    expect_exit 0 "$REGTOOL" $S query --json Later
    expect_grep '"first_counter":null' "$OUT"

    # Restores that cut and that add pairs at the tables' end (spliced
    # there, the rest of each table left as it is): with Later installed
    # again, a backup; the first backup restored (Later's strings cut);
    # then the second (added back): the tables read by hivex as they
    # were with Later installed.
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" $S install $CS "$TMPDIR/later.ini"
    tables >"$TMPDIR/tables.later"
    expect_exit 0 "$REGTOOL" $S backup --force "$TMPDIR/later.$layout.ini"
    expect_exit 0 "$REGTOOL" $S restore "$TMPDIR/$layout.ini"
    tables | cmp - "$TMPDIR/tables.before" || fail "$layout: tables differ after cutting Later"
    expect_exit 0 "$REGTOOL" $S restore "$TMPDIR/later.$layout.ini"
    tables | cmp - "$TMPDIR/tables.later" || fail "$layout: tables differ after adding Later back"
    expect_exit 0 "$REGTOOL" hive check "$C/SOFTWARE"
    expect_exit 0 "$REGTOOL" $S restore "$TMPDIR/$layout.ini"
done

D=$TMPDIR/registry
S="--store hive:$D"
B=$TMPDIR/registry.ini
export REGTOOL_STORE="hive:$D"

# Malformed files: the line named, exit 2 (lodctr 13), nothing written.
tree_state "$D" >"$TMPDIR/before"
iconv -f UTF-16LE -t UTF-8 "$B" | sed 's/^First Help=2401\r$/First Help=24O1\r/' |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/bad.ini"
line=$(iconv -f UTF-16LE -t UTF-8 "$TMPDIR/bad.ini" | grep -n '^First Help=24O1' | cut -d: -f1)
[ -n "$line" ] || fail "the bad line was not made"
expect_exit 2 "$REGTOOL" restore "$TMPDIR/bad.ini"
expect_grep "^regtool: $TMPDIR/bad.ini:$line: \[PERF_RemoteAccess\]: First Help is not a decimal number" "$ERR"
expect_grep "nothing was written" "$ERR"
expect_exit 13 "$L" "/R:$TMPDIR/bad.ini"
expect_grep "^lodctr: $TMPDIR/bad.ini:$line: " "$ERR"
head -c $(($(wc -c <"$B") - 1)) "$B" >"$TMPDIR/odd.ini"
expect_exit 2 "$REGTOOL" restore "$TMPDIR/odd.ini"
expect_grep "odd number of bytes" "$ERR"
iconv -f UTF-16LE -t UTF-8 "$B" | sed '/^\[Perflib\]/,/^Last Help/d' |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/noperflib.ini"
expect_exit 2 "$REGTOOL" restore "$TMPDIR/noperflib.ini"
expect_grep "no \[Perflib\] section" "$ERR"
printf '\r\n\r\n[Perflib]\r\nLast Counter=5\r\nLast Help=6\r\n\r\n[PerfStrings_009]\r\n' |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/empty.ini"
expect_exit 2 "$REGTOOL" restore "$TMPDIR/empty.ini"
expect_grep "empty.ini:7: \[PerfStrings_009\] holds no strings" "$ERR"
expect_exit 3 "$REGTOOL" restore "$TMPDIR/missing.ini"
expect_exit 2 "$L" "/R:$TMPDIR/missing.ini"
expect_same_tree "$D" "$TMPDIR/before" "a refused restore wrote"
# The file restored last, restored again: nothing to write, nothing written.
expect_exit 0 "$REGTOOL" restore "$B"
expect_grep "^regtool: restored from $B (UTF-16LE): 0 changes, nothing to write$" "$OUT"
expect_same_tree "$D" "$TMPDIR/before" "restoring the same file again wrote"
# A backup cut short looks whole; a service whose First Counter has no
# string in it is what gives it away, and restore says so.
first=$(iconv -f UTF-16LE -t UTF-8 "$B" | tr -d '\r' |
    sed -n '/^\[PERF_ReplicationPerf\]/,/^$/s/^First Counter=//p')
[ -n "$first" ] || fail "no First Counter for ReplicationPerf in $B"
iconv -f UTF-16LE -t UTF-8 "$B" | grep -v "^$first=" | iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/cut.ini"
expect_exit 0 "$REGTOOL" restore --dry-run "$TMPDIR/cut.ini"
expect_grep "^regtool: warning: ReplicationPerf: its First Counter has no name in the file (a truncated backup?)$" "$ERR"
expect_same_tree "$D" "$TMPDIR/before" "a dry run wrote"

# A section that gives one of the system's providers (PerfOS: Windows'
# own, a Library and no range) a range it has not got is refused as an
# install over it is, dry run or not, naming the line; --force restores
# it (lodctr /R restores as Windows' lodctr does, forced, as it restores
# another machine's backup).
iconv -f UTF-16LE -t UTF-8 "$B" | sed 's/^\[PERF_ReplicationPerf\]/[PERF_PerfOS]/' |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/perfos.ini"
pline=$(iconv -f UTF-16LE -t UTF-8 "$TMPDIR/perfos.ini" | grep -n '^\[PERF_PerfOS\]' | cut -d: -f1)
for dry in "" --dry-run; do
    expect_exit 4 "$REGTOOL" restore $dry "$TMPDIR/perfos.ini"
    expect_grep "perfos.ini:$pline: \[PERF_PerfOS\] would give PerfOS names [0-9]*-[0-9]* and help texts [0-9]*-[0-9]*, a range it has not got: it is one of Windows' built-in providers .*; nothing was written (--force restores it anyway)$" "$ERR"
done
expect_same_tree "$D" "$TMPDIR/before" "a restore refused for PerfOS's sake wrote"
expect_exit 0 "$REGTOOL" restore --force --dry-run "$TMPDIR/perfos.ini"
# Base Index changed (a later repair --prune-orphans would take the
# system's own names for orphans above it), and a provider moved into
# the base range: refused the same way.
iconv -f UTF-16LE -t UTF-8 "$B" | sed 's/^Base Index=.*/Base Index=1/' |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/base.ini"
expect_exit 4 "$REGTOOL" restore "$TMPDIR/base.ini"
expect_grep "\[Perflib\] in the file sets Base Index 1, which is not this store's ([0-9]*): its base range is another Windows'; nothing was written (--force restores it anyway)$" "$ERR"
iconv -f UTF-16LE -t UTF-8 "$B" |
    sed '/^\[PERF_ReplicationPerf\]/,/^$/{s/^First Counter=.*/First Counter=2/;s/^First Help=.*/First Help=3/}' |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/low.ini"
expect_exit 4 "$REGTOOL" restore --dry-run "$TMPDIR/low.ini"
expect_grep "\[PERF_ReplicationPerf\] would give ReplicationPerf names 2-[0-9]* and help texts 3-[0-9]*, in the system's base range (Base Index [0-9]*); nothing was written" "$ERR"
# A First Help exactly at Base Index (Windows' own End Marker help), its
# First Counter above it, reaches into the base range as a First Counter
# there does: both refused, each naming its start; --force restores them.
bi=$(iconv -f UTF-16LE -t UTF-8 "$B" | tr -d '\r' | sed -n 's/^Base Index=//p')
[ -n "$bi" ] || fail "no Base Index in $B"
for key in "First Help" "First Counter"; do
    case $key in
    "First Help") range="names [0-9]*-[0-9]* and help texts $bi-[0-9]*" ;;
    *) range="names $bi-[0-9]* and help texts [0-9]*-[0-9]*" ;;
    esac
    iconv -f UTF-16LE -t UTF-8 "$B" |
        awk -v k="$key=" -v v="$bi" '/^\[PERF_/ { s = /^\[PERF_ReplicationPerf\]/ }
            s && index($0, k) == 1 { $0 = k v "\r" } { print }' |
        iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/edge.ini"
    expect_exit 4 "$REGTOOL" restore "$TMPDIR/edge.ini"
    expect_grep "\[PERF_ReplicationPerf\] would give ReplicationPerf $range, in the system's base range (Base Index $bi); nothing was written" "$ERR"
    expect_exit 0 "$REGTOOL" restore --force --dry-run "$TMPDIR/edge.ini"
done
expect_same_tree "$D" "$TMPDIR/before" "a restore refused for the base range's sake wrote"

# As a store: read, never written.
expect_exit 0 "$REGTOOL" --store "psb:$B" names 1846 "end marker"
expect_grep "^1846	End Marker$" "$OUT"
expect_exit 0 "$REGTOOL" --store "psb:$B" query
expect_grep "PerfStringBackup file, read-only" "$OUT"
expect_grep "ReplicationPerf" "$OUT"
# shellcheck disable=SC2086
expect_exit 4 "$REGTOOL" --store "psb:$B" uninstall ReplicationPerf
expect_grep "is a backup file, read-only as a store: nothing was written" "$ERR"
ln -s "$REGTOOL" "$TMPDIR/bin/unlodctr"
expect_exit 19 env REGTOOL_STORE="psb:$B" "$TMPDIR/bin/unlodctr" ReplicationPerf   # ERROR_WRITE_PROTECT
expect_grep "^unlodctr: $B is a backup file, read-only as a store: nothing was written" "$ERR"
expect_exit 2 "$REGTOOL" --store "psb:$TMPDIR/bad.ini" names 2
expect_grep "bad.ini:$line: " "$ERR"

# Names: FILE exists, so FILE_001, FILE_002 ...; --force overwrites; all
# taken is exit 4 (lodctr 80); nothing is written to the store.
cd "$TMPDIR" || fail "no TMPDIR"
expect_exit 0 "$REGTOOL" backup s.ini
expect_exit 0 "$REGTOOL" backup s.ini
expect_grep "to s.ini_001 " "$OUT"
cmp s.ini s.ini_001 || fail "s.ini_001 differs"
expect_exit 0 "$L" /S:s.ini
expect_grep "^lodctr: saved 2 languages and 5 services to s.ini_002 " "$OUT"
# /S: and /R: that name no file: refused (87), not a backup or a rebuild
# by a slip of the keyboard; the tables untouched.
tree_state "$D" >"$TMPDIR/noname.state"
expect_exit 87 "$L" /S:
expect_grep "^lodctr: /S needs a file: /S:file$" "$ERR"
expect_exit 87 "$L" /R:
expect_grep "^lodctr: /R: needs a file: /R:file (or /R, to rebuild)$" "$ERR"
expect_same_tree "$D" "$TMPDIR/noname.state"
echo x >s.ini
expect_exit 0 "$REGTOOL" backup --force s.ini
cmp s.ini s.ini_001 || fail "--force did not overwrite s.ini"
# The last name is used too: with _001 to _998 taken, the backup goes
# to _999 and is not refused as if all 999 names were taken. Then _999
# is taken as well, and no name is left.
i=3
while [ $i -le 998 ]; do : >"s.ini_$(printf %03d $i)"; i=$((i + 1)); done
expect_exit 0 "$REGTOOL" backup s.ini
expect_grep "to s.ini_999 " "$OUT"
cmp s.ini s.ini_999 || fail "s.ini_999 differs"
: >s.ini_999
expect_exit 4 "$REGTOOL" backup s.ini
expect_grep "s.ini and s.ini_001 to s.ini_999 all exist; nothing was saved (--force" "$ERR"
expect_exit 80 "$L" /S:s.ini                 # ERROR_FILE_EXISTS
grep -q -- '--' "$ERR" && fail "lodctr suggests an option: $(cat "$ERR")"
expect_exit 3 "$REGTOOL" backup "$TMPDIR/no/such/dir/x.ini"
expect_exit 3 "$L" "/S:$TMPDIR/no/such/dir/x.ini"     # ERROR_PATH_NOT_FOUND
expect_exit 87 "$L" /S
expect_same_tree "$D" "$TMPDIR/before" "backup wrote to the store"

# lodctr /R:file restores, quietly; /R alone rebuilds (tests/cli/rebuild.sh).
expect_exit 0 "$L" /E:ESENT
expect_exit 0 "$L" "/R:$B"
# Disable Performance Counters, and PerfStringBackup.INI rewritten.
expect_grep "^lodctr: restored from $B (UTF-16LE): 2 changes$" "$OUT"
"$REGTOOL" query --json ESENT | grep -q '"disabled":true' || fail "ESENT's Disable not restored"
echo "backup and restore: ok"
