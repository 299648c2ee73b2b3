#!/bin/sh
# The folder of a store kept in files that is no disk (a reg: or psb:
# file, hives of other names given as hive:SOFTWARE,SYSTEM: a fleet's
# uploads, a disk's RegBack copies) is as hostile as a tree
# (docs/threat-model.md): a link its writer planted there is refused for
# an output named through it, also once the store is closed (audit
# --textfile is written after every store is), and a hard link there to
# a host file is not read as the user's input (restore reads its backup
# before it opens the store). Each refusal leaves the host folder as it
# was.
. tests/cli/lib.sh

HOST=$TMPDIR/host
mkdir -p "$HOST"
printf 'host file: must never change\n' >"$HOST/keep.conf"
chmod 600 "$HOST/keep.conf"
E=$TMPDIR/ev
mkdir -p "$E/rb"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/src" init --languages 009 --layout files
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/src" backup --format reg "$E/perf.reg"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/src" backup "$E/PerfStringBackup.INI"
C=$TMPDIR/src/Windows/System32/config
cp "$C/SOFTWARE" "$E/rb/SOFTWARE.sav"
cp "$C/SYSTEM" "$E/rb/SYSTEM.sav"
cp "$TMPDIR/src/Windows/System32/"*.dat "$E/rb/"
ln -s "$HOST" "$E/Temp"
ln -s "$HOST" "$E/rb/Temp"
tree_state "$HOST" >"$TMPDIR/host.state"
host_same() { expect_same_tree "$HOST" "$TMPDIR/host.state"; }

# refused WHERE ARGS...: exit 3 naming WHERE as a link; the host as it was.
refused() {
    _where=$1; shift
    expect_exit 3 "$REGTOOL" "$@"
    expect_grep "$_where is a symbolic link, which regtool does not follow inside a tree it did not write" "$ERR"
    host_same
}
refused "$E/Temp" --store "reg:$E/perf.reg" audit --textfile "$E/Temp/keep.conf"
refused "$E/Temp" --store "psb:$E/PerfStringBackup.INI" audit --textfile "$E/Temp/p.prom"
refused "$E/rb/Temp" --store "hive:$E/rb/SOFTWARE.sav,$E/rb/SYSTEM.sav" --tables "$E/rb" \
    audit --textfile "$E/rb/Temp/h.prom"
refused "$E/Temp" audit --textfile "$E/Temp/two.prom" "reg:$E/perf.reg" "psb:$E/PerfStringBackup.INI"
refused "$E/Temp" --store "psb:$E/PerfStringBackup.INI" backup --format reg "$E/Temp/b.reg"
refused "$E/Temp" --store "reg:$E/perf.reg" backup "$E/Temp/b.ini"
# Spelled through the user's own link to the folder (a mount alias): the
# folder's links are refused all the same (it was taken for no tree's).
ln -s "$E" "$TMPDIR/alias"
refused "$E/Temp" --store "reg:$E/perf.reg" audit --textfile "$TMPDIR/alias/Temp/keep.conf"
refused "$E/Temp" --store "reg:$E/perf.reg" backup "$TMPDIR/alias/Temp/b.ini"
refused "$E/Temp" --store "psb:$E/PerfStringBackup.INI" backup --format reg "$TMPDIR/alias/Temp/c.reg"
# Seventeen stores, the link in the last one's folder: every store's
# folder is held for the write (a table of sixteen had left the
# seventeenth unheld, and the metrics were written through its link,
# over a host file with --stores-from).
set --
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do
    mkdir -p "$TMPDIR/many/m$i"
    cp "$E/perf.reg" "$TMPDIR/many/m$i/perf.reg"
    set -- "$@" "reg:$TMPDIR/many/m$i/perf.reg"
done
ln -s "$HOST" "$TMPDIR/many/m17/Temp"
refused "$TMPDIR/many/m17/Temp" audit --textfile "$TMPDIR/many/m17/Temp/a.prom" "$@"
printf '%s\n' "$@" >"$TMPDIR/many/list"
refused "$TMPDIR/many/m17/Temp" audit --stores-from "$TMPDIR/many/list" --textfile "$TMPDIR/many/m17/Temp/keep.conf"
expect_exit 0 "$REGTOOL" audit --stores-from "$TMPDIR/many/list" --textfile "$TMPDIR/many/m1/m.prom"
expect_grep "^regtool_audit_success" "$TMPDIR/many/m1/m.prom"
# A store whose folder cannot be held for the write (the way to it is a
# link on another machine's disk): no metrics are written, and the
# message says why.
mkdir -p "$TMPDIR/disk/Windows/System32"
ln -s "$HOST" "$TMPDIR/disk/Windows/Temp"
expect_exit 3 "$REGTOOL" audit --textfile "$TMPDIR/held.prom" "reg:$TMPDIR/disk/Windows/Temp/perf.reg"
expect_grep "perf.reg: its folder cannot be held for the write (.*): no metrics written$" "$ERR"
[ -e "$TMPDIR/held.prom" ] && fail "metrics written with a store's folder not held"
host_same
# Outside those folders, --textfile is written as before.
expect_exit 0 "$REGTOOL" --store "reg:$E/perf.reg" audit --textfile "$TMPDIR/ok.prom"
expect_grep "^regtool_audit_success" "$TMPDIR/ok.prom"

# A hard link beside the store's file to a host backup: restore (which
# reads it before opening the store) and diff refuse it; the store keeps
# its text.
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/src" backup "$HOST/theirs.ini"
sed 's/^4=.*/4=SECRET host text/' "$HOST/theirs.ini" >"$HOST/theirs.new"
mv "$HOST/theirs.new" "$HOST/theirs.ini"
chmod 600 "$HOST/theirs.ini"
ln "$HOST/theirs.ini" "$E/hl.ini"
cp "$E/perf.reg" "$TMPDIR/perf.reg.before"
expect_exit 3 "$REGTOOL" --store "reg:$E/perf.reg" restore --force "$E/hl.ini"
expect_grep "hl.ini is a hard link" "$ERR"
cmp -s "$E/perf.reg" "$TMPDIR/perf.reg.before" || fail "restore of a hard link changed the store"
if "$REGTOOL" diff --pairs "reg:$E/perf.reg" "psb:$E/hl.ini" >"$OUT" 2>"$ERR"; then
    fail "diff read a hard link beside the store's file"
fi
expect_grep "hl.ini is a hard link" "$ERR"
grep -q SECRET "$OUT" && fail "diff printed a host file's text"

# A perfstats export kept in such a folder is one too: its --emit-reg
# patch through the folder's link is refused, and a hard link there to a
# host export is not listed.
P=$TMPDIR/pf
mkdir -p "$P"
cp ini-samples/win95/perfstats.reg "$P/perfstats.reg"
ln -s "$HOST" "$P/Temp"
tree_state "$HOST" >"$TMPDIR/host.state"
refused "$P/Temp" perfstats remove --emit-reg "$P/Temp/keep.conf" Kernel "$P/perfstats.reg"
cmp -s ini-samples/win95/perfstats.reg "$P/perfstats.reg" || fail "perfstats remove changed the export"
cp ini-samples/win95/perfstats.reg "$HOST/theirs.reg"
chmod 600 "$HOST/theirs.reg"
ln "$HOST/theirs.reg" "$P/hl.reg"
expect_exit 3 "$REGTOOL" perfstats list "$P/hl.reg"
expect_grep "hl.reg is a hard link" "$ERR"

# Such a folder's link to another machine's disk mounted here (WSL's
# /mnt/c, a partition, a Wine prefix): the look for the disk the output
# lies on stops at the store's folder, so the link is refused as any
# (it was followed to that disk, and backup, backup --force over its
# file, audit --textfile and hive recover -o wrote there).
OTHER=$TMPDIR/mnt/c
expect_exit 0 "$REGTOOL" --store "hive:$OTHER" init --languages 009
mkdir -p "$OTHER/Windows/Temp"
printf 'the other disk: must never change\n' >"$OTHER/Windows/Temp/keep.ini"
tree_state "$OTHER" >"$TMPDIR/other.state"
U=$TMPDIR/up
mkdir -p "$U"
cp "$E/perf.reg" "$U/perf.reg"
cp "$C/SOFTWARE" "$U/soft.hiv"
ln -s "$OTHER/Windows/Temp" "$U/Temp"
for args in "--store reg:$U/perf.reg backup $U/Temp/x.ini" \
    "--store reg:$U/perf.reg backup --force $U/Temp/keep.ini" \
    "--store reg:$U/perf.reg audit --textfile $U/Temp/a.prom" \
    "hive recover $U/soft.hiv -o $U/Temp/rec.hiv"; do
    # shellcheck disable=SC2086
    timeout 20 "$REGTOOL" $args >"$OUT" 2>"$ERR"
    rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 1 ] ||
        { cat "$ERR" >&2; fail "$args through the folder's link to another disk exited $rc"; }
    expect_grep "$U/Temp is a symbolic link" "$ERR"
    expect_same_tree "$OTHER" "$TMPDIR/other.state"
done
# Another machine's folders read as sources are as hostile: a hard link
# there to a host file (root's, 0600) is not read, whether the folder is
# rebuild --from's, audit --fleet's or repair --from-ini's (rebuild
# printed the host file's text and copied it into the tree's tables; the
# fleet audit parsed a host file as a machine's backup; repair copied a
# host INI's texts into the tables). An INI the user names to install is
# the user's, read as named, wherever it lies.
S=$TMPDIR/secret
mkdir -p "$S" "$TMPDIR/from/System32" "$TMPDIR/fleet/m1" "$TMPDIR/beside"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/t9" init --languages 009
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/t9/Windows/System32/perfd009.dat" | tr '\0' '\n' |
    awk 'NR == 4 { print "HOST-SECRET-TEXT-42"; next } { print }' | tr '\n' '\0' |
    iconv -f UTF-8 -t UTF-16LE >"$S/secret.dat"
printf '[PERF_x]\r\nroot:SECRET-HASH-77\r\n' >"$S/shadow"
sed 's/^drivername=.*/drivername=HOSTSECRET-INI-99/' ini-samples/replication.ini >"$S/p.ini"
chmod 600 "$S/secret.dat" "$S/shadow" "$S/p.ini"
ln "$S/secret.dat" "$TMPDIR/from/System32/perfd009.dat"
cp "$TMPDIR/t9/Windows/System32/perfi009.dat" "$TMPDIR/from/System32/"
ln "$S/shadow" "$TMPDIR/fleet/m1/PerfStringBackup.INI"
cp "$E/perf.reg" "$TMPDIR/beside/perf.reg"
cp ini-samples/ReplicationOffsets.h "$TMPDIR/beside/"
ln "$S/p.ini" "$TMPDIR/beside/hl.ini"
no_secret() {
    ! grep -q "HOST-SECRET-TEXT-42\|SECRET-HASH-77\|HOSTSECRET-INI-99" "$OUT" "$ERR" ||
        fail "$1: a host file's text read through a hard link"
}
expect_exit 3 "$REGTOOL" --store "hive:$TMPDIR/t9" rebuild --dry-run --from "$TMPDIR/from"
expect_grep "perfd009.dat is a hard link" "$ERR"
no_secret "rebuild --from"
expect_exit 3 "$REGTOOL" audit --fleet "$TMPDIR/fleet"
cat "$OUT" >>"$ERR"
expect_grep "PerfStringBackup.INI is a hard link" "$ERR"
no_secret "audit --fleet"
mkdir -p "$TMPDIR/inis"
ln "$S/p.ini" "$TMPDIR/inis/hl.ini"
cp ini-samples/ReplicationOffsets.h "$TMPDIR/inis/"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/t9" repair --dry-run --from-ini "$TMPDIR/inis"
expect_grep "hl.ini skipped: .*hl.ini is a hard link" "$ERR"
no_secret "repair --from-ini"
echo "hostile store folders: every case refused, the host untouched"
