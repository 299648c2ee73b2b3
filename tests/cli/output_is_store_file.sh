# An output the user names (backup FILE, audit --textfile, --emit-reg,
# repair --backup, lodctr /S:FILE) that is one of the open store's own
# files is refused, exit 64, nothing written: the hives and their logs,
# the journal and the lock, a .dat table (current or as installed, in
# System32 or SysWOW64), the tree's PerfStringBackup.INI, an INF copy's
# files; a reg: store's file and its lock; a psb: store's file. In any
# letter case (Windows sees one name there), through a link to the
# store's folder, and with "." steps, which the writer drops (review 43
# R43-1: config/./SOFTWARE was replaced by audit --textfile). A file of another name beside them is written as
# before. A writer's --emit-reg is refused before its change is made;
# two outputs naming one file (a backup's numbered names too), or an
# output the run's input (an INI, its symbol file, a backup, a list of
# stores), alike.
. tests/cli/lib.sh

T=$TMPDIR/t
expect_exit 0 "$REGTOOL" --store "hive:$T" init --languages 009,019
C=$T/Windows/System32/config
ln -s "$C" "$TMPDIR/to-config"
CS="--create-service --library x.dll --open O --collect C --close X"
refused() {   # refused WHAT CMD...: exit 64, said, the tree unchanged
    what=$1; shift
    expect_exit 64 "$@"
    expect_grep "names one of the store's own files" "$ERR"
    expect_grep "nothing was written" "$ERR"
    expect_same_tree "$T" "$TMPDIR/before" "$what changed the tree"
}
tree_state "$T" >"$TMPDIR/before"
S="--store hive:$T"
for f in "$C/SOFTWARE" "$C/software.log1" "$C/SYSTEM.LOG2" "$C/System.LOG" \
    "$C/regtool.journal" "$C/REGTOOL.LOCK" "$TMPDIR/to-config/SYSTEM" \
    "$T/Windows/System32/perfc009.dat" "$T/Windows/SysWOW64/PERFH019.DAT" \
    "$T/Windows/System32/perfi009.dat" "$T/Windows/SysWOW64/perfd019.dat" \
    "$T/Windows/System32/perfc01A.dat" \
    "$T/Windows/System32/PerfStringBackup.INI" \
    "$C/./SOFTWARE" "$T/Windows/./System32/PerfStringBackup.INI" \
    "$T/Windows/System32/./perfc009.dat" "$C/./regtool.journal"; do
    refused "backup --force $f" "$REGTOOL" $S backup --force "$f"
    refused "backup $f" "$REGTOOL" $S backup "$f"
    refused "backup --format reg $f" "$REGTOOL" $S backup --format reg --force "$f"
    refused "audit --textfile $f" "$REGTOOL" $S audit --textfile "$f"
    # shellcheck disable=SC2086
    refused "install --emit-reg $f" "$REGTOOL" $S install --dry-run $CS \
        --emit-reg "$f" ini-samples/transfer.ini
    refused "repair --backup $f" "$REGTOOL" $S repair --backup "$f"
    refused "repair --dry-run --backup $f" "$REGTOOL" $S repair --dry-run --backup "$f"
done
# lodctr /S:FILE answers with Windows' code for a bad parameter (87).
ln -s "$REGTOOL" "$TMPDIR/lodctr"
REGTOOL_STORE="hive:$T" expect_exit 87 "$TMPDIR/lodctr" "/S:$C/SOFTWARE"
expect_grep "names one of the store's own files" "$ERR"
expect_same_tree "$T" "$TMPDIR/before" "lodctr /S changed the tree"

# Beside them, files of other names are written as before.
expect_exit 0 "$REGTOOL" $S backup --force "$C/SOFTWARE.ini"
expect_exit 0 "$REGTOOL" $S audit --textfile "$T/Windows/System32/perf.prom"
expect_exit 0 "$REGTOOL" $S backup "$T/Windows/System32/perfc009.dat.bak"
rm -f "$C/SOFTWARE.ini" "$T/Windows/System32/perf.prom" "$T/Windows/System32/perfc009.dat.bak"
expect_same_tree "$T" "$TMPDIR/before" "the other outputs were not taken out"

# A reg: store: its file and its lock. A psb: store: its file.
expect_exit 0 "$REGTOOL" $S backup --format reg "$TMPDIR/db.reg"
expect_exit 0 "$REGTOOL" $S backup "$TMPDIR/db.ini"
mkdir "$TMPDIR/stores"
mv "$TMPDIR/db.reg" "$TMPDIR/db.ini" "$TMPDIR/stores/"
tree_state "$TMPDIR/stores" >"$TMPDIR/stores-before"
for f in "$TMPDIR/stores/db.reg" "$TMPDIR/stores/DB.REG.lock"; do
    expect_exit 64 "$REGTOOL" --store "reg:$TMPDIR/stores/db.reg" backup --force "$f"
    expect_grep "names one of the store's own files" "$ERR"
    expect_exit 64 "$REGTOOL" --store "reg:$TMPDIR/stores/db.reg" audit --textfile "$f"
    # shellcheck disable=SC2086
    expect_exit 64 "$REGTOOL" --store "reg:$TMPDIR/stores/db.reg" install --dry-run \
        $CS --emit-reg "$f" ini-samples/transfer.ini
done
expect_exit 64 "$REGTOOL" --store "psb:$TMPDIR/stores/db.ini" backup --force "$TMPDIR/stores/db.ini"
expect_grep "names one of the store's own files" "$ERR"
expect_exit 64 "$REGTOOL" --store "psb:$TMPDIR/stores/db.ini" audit --textfile "$TMPDIR/stores/db.ini"
expect_same_tree "$TMPDIR/stores" "$TMPDIR/stores-before" "a reg: or psb: store's file changed"
# Several stores audited: the textfile is none of theirs.
expect_exit 64 "$REGTOOL" audit --textfile "$TMPDIR/stores/db.ini" \
    "hive:$T" "psb:$TMPDIR/stores/db.ini"
expect_same_tree "$TMPDIR/stores" "$TMPDIR/stores-before" "a fleet's textfile replaced a store"

# The INF copy an install is about to make is its own file already
# (review 42 R42-1: the patch was written over the INI it had just
# copied there): by its path, in other letter cases, and relative to a
# folder the run starts in (no part of the copy's folder made yet).
[ -e "$T/Windows/INF" ] && fail "init made an INF folder"
# "." and ".." in the parts to be made are where the made folders put
# them (review 43: INF/TransferPerf/./0009 was let through, and the
# patch replaced the INI the install had just copied there).
for f in "$T/Windows/INF/TransferPerf/0009/transfer.ini" \
    "$T/Windows/inf/transferperf/0009/COUNTEROFFSETS.H" \
    "$T/Windows/INF/TransferPerf/./0009/transfer.ini" \
    "$T/Windows/INF/X/../TransferPerf//0009/transfer.ini" \
    "$T//Windows/INF//TransferPerf/0009/transfer.ini" \
    "$T/./Windows/INF/TransferPerf/0009/./transfer.ini"; do
    # shellcheck disable=SC2086
    refused "install --emit-reg $f" "$REGTOOL" $S install $CS \
        --emit-reg "$f" ini-samples/transfer.ini
done
ABS_INI=$PWD/ini-samples/transfer.ini
# shellcheck disable=SC2086
(cd "$T/Windows" && "$REGTOOL" $S install $CS --emit-reg INF/TransferPerf/0009/transfer.ini \
    "$ABS_INI" >"$OUT" 2>"$ERR"; echo $? >"$TMPDIR/rc")
[ "$(cat "$TMPDIR/rc")" = 64 ] || { cat "$ERR" >&2; fail "install --emit-reg INF/... from the Windows folder: exit $(cat "$TMPDIR/rc")"; }
expect_grep "names one of the store's own files" "$ERR"
expect_same_tree "$T" "$TMPDIR/before" "install --emit-reg INF/... changed the tree"

# An INF copy's INI and symbol file, which install writes and uninstall
# deletes (review 41 R41-1: a backup saved over the INI was deleted by
# the next uninstall), by their path and through a link to their folder.
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/transfer.ini
INF=$T/Windows/INF/TransferPerf/0009
ln -s "$INF" "$TMPDIR/to-inf"
tree_state "$T" >"$TMPDIR/before"
# A link of another name the user made to one of them (review 44 R44-2).
ln -s "$INF/transfer.ini" "$TMPDIR/linked.ini"
for f in "$INF/transfer.ini" "$INF/COUNTEROFFSETS.H" "$TMPDIR/to-inf/transfer.ini" \
    "$TMPDIR/linked.ini"; do
    refused "backup --force $f" "$REGTOOL" $S backup --force "$f"
    refused "audit --textfile $f" "$REGTOOL" $S audit --textfile "$f"
done

# A writer's --emit-reg over one of them is refused before its change is
# committed, the tree as it was (review 41 R41-6: install, uninstall,
# restore and repair committed, then refused the patch, exit 64).
expect_exit 0 "$REGTOOL" $S backup "$TMPDIR/bk.ini"
for f in "$C/SOFTWARE.LOG1" "$INF/transfer.ini"; do
    refused "uninstall --emit-reg $f" "$REGTOOL" $S uninstall --emit-reg "$f" TransferPerf
    refused "restore --emit-reg $f" "$REGTOOL" $S restore --emit-reg "$f" "$TMPDIR/bk.ini"
    refused "repair --enable-disabled --emit-reg $f" "$REGTOOL" $S repair --enable-disabled --emit-reg "$f"
    # shellcheck disable=SC2086
    refused "install --replace --emit-reg $f" "$REGTOOL" $S install --replace $CS \
        --emit-reg "$f" ini-samples/transfer.ini
done
# A patch whose folder its writer cannot write in (not there, or reached
# beneath the tree through "..") is refused before the change, exit 3
# (review 43 R43-3: the install was committed, then the patch refused).
# So is one whose name is a folder or a FIFO (review 44 R44-2).
mkdir "$TMPDIR/a-folder"
mkfifo "$TMPDIR/a-fifo"
for f in "$T/Windows/System32/../System32/p.reg" "$TMPDIR/no-such-folder/p.reg" \
    "$T/Windows/System32/../INF/TransferPerf/0009/transfer.ini" \
    "$TMPDIR/a-folder" "$TMPDIR/a-fifo"; do
    # shellcheck disable=SC2086
    expect_exit 3 "$REGTOOL" $S install --replace $CS --emit-reg "$f" ini-samples/transfer.ini
    expect_grep "^regtool: --emit-reg: cannot write .*; nothing was written$" "$ERR"
    expect_same_tree "$T" "$TMPDIR/before" "install --emit-reg $f changed the tree"
    expect_exit 3 "$REGTOOL" $S uninstall --emit-reg "$f" TransferPerf
    expect_same_tree "$T" "$TMPDIR/before" "uninstall --emit-reg $f changed the tree"
done

# Two outputs of one run naming one file, or an output over the file the
# run reads: refused alike (R41-7: the patch was written over the backup
# repair had just saved).
same() {   # same WHAT CMD...: exit 64, said, the tree unchanged
    what=$1; shift
    expect_exit 64 "$@"
    expect_grep "name one file" "$ERR"
    expect_same_tree "$T" "$TMPDIR/before" "$what changed the tree"
}
same "repair --backup X --emit-reg X" "$REGTOOL" $S repair --enable-disabled \
    --backup "$TMPDIR/x.ini" --emit-reg "$TMPDIR/X.INI"
[ -e "$TMPDIR/x.ini" ] && fail "repair --backup X --emit-reg X saved X"
cp ini-samples/transfer.ini ini-samples/CounterOffsets.h "$TMPDIR/"
# shellcheck disable=SC2086
same "install --emit-reg INI" "$REGTOOL" $S install --replace $CS \
    --emit-reg "$TMPDIR/transfer.ini" "$TMPDIR/transfer.ini"
cmp -s ini-samples/transfer.ini "$TMPDIR/transfer.ini" || fail "install --emit-reg INI changed the INI"
same "restore --emit-reg FILE" "$REGTOOL" $S restore --emit-reg "$TMPDIR/bk.ini" "$TMPDIR/bk.ini"
# The INI's symbol file is read as the INI is (review 42 R42-4: the patch
# replaced it), and so are --from-ini's INIs and symbol files.
# shellcheck disable=SC2086
same "install --emit-reg SYMBOLFILE" "$REGTOOL" $S install --replace $CS \
    --emit-reg "$TMPDIR/counteroffsets.h" "$TMPDIR/transfer.ini"
cmp -s ini-samples/CounterOffsets.h "$TMPDIR/CounterOffsets.h" ||
    fail "install --emit-reg SYMBOLFILE changed the symbol file"
# The same below the tree, where a "." step was let through (review 43
# R43-1: a vendor folder on the disk repaired, its symbol file replaced).
mkdir "$T/Vendor"
cp ini-samples/transfer.ini ini-samples/CounterOffsets.h "$T/Vendor/"
tree_state "$T" >"$TMPDIR/before"
# shellcheck disable=SC2086
same "install --emit-reg TREE/./SYMBOLFILE" "$REGTOOL" $S install --replace $CS \
    --emit-reg "$T/Vendor/./CounterOffsets.h" "$T/Vendor/transfer.ini"
rm -r "$T/Vendor"
tree_state "$T" >"$TMPDIR/before"
for o in --backup --emit-reg; do
    for f in transfer.ini CounterOffsets.h; do
        same "repair --from-ini DIR $o DIR/$f" "$REGTOOL" $S repair --enable-disabled \
            --from-ini "$TMPDIR" "$o" "$TMPDIR/$f"
        cmp -s "ini-samples/$f" "$TMPDIR/$f" || fail "repair $o DIR/$f changed it"
    done
done
# A backup whose name is taken goes to NAME_001 and on: the patch may
# name none of them (R42-3: the backup saved as B_001, then replaced).
echo taken >"$TMPDIR/b"
for f in "$TMPDIR/b_001" "$TMPDIR/B_017" "$TMPDIR/b_999"; do
    same "repair --backup B --emit-reg $f" "$REGTOOL" $S repair --enable-disabled \
        --backup "$TMPDIR/b" --emit-reg "$f"
    expect_grep "saved as NAME_001 and on" "$ERR"
    [ -e "$f" ] && fail "repair --backup B --emit-reg $f wrote $f"
done
# The default backup's numbered names alike.
(cd "$TMPDIR" && : >regtool-repair-backup.ini && "$REGTOOL" $S repair --enable-disabled \
    --emit-reg regtool-repair-backup.ini_001 >"$OUT" 2>"$ERR"; echo $? >rc)
[ "$(cat "$TMPDIR/rc")" = 64 ] || fail "repair --emit-reg over the default backup's numbered name: exit $(cat "$TMPDIR/rc")"
expect_grep "saved as NAME_001 and on" "$ERR"
[ -e "$TMPDIR/regtool-repair-backup.ini_001" ] && fail "repair wrote the default backup's numbered name"
rm -f "$TMPDIR/regtool-repair-backup.ini"
# An audit's list of stores and its textfile (R42-2: the metrics were
# written over the list the next run reads).
echo "hive:$T" >"$TMPDIR/stores.txt"
cp "$TMPDIR/stores.txt" "$TMPDIR/x.txt"
expect_exit 64 "$REGTOOL" audit --stores-from "$TMPDIR/stores.txt" --textfile "$TMPDIR/STORES.TXT"
expect_grep "name one file" "$ERR"
[ "$(cat "$TMPDIR/stores.txt")" = "hive:$T" ] || fail "audit --textfile replaced its --stores-from list"
expect_exit 64 "$REGTOOL" audit --textfile "$TMPDIR/stores.txt" --stores-from "$TMPDIR/x.txt" \
    --stores-from "$TMPDIR/stores.txt"
[ "$(cat "$TMPDIR/stores.txt")" = "hive:$T" ] || fail "audit --textfile replaced its second --stores-from list"

# Through the user's own link: one bearing a store file's name in another
# folder (review 44 R44-1: u/SOFTWARE -> the tree's SOFTWARE was replaced
# by the audit's text), and one reached by ".." from inside the store's
# folder, which the held folder refuses to look at (R44-8: taken for
# another file; a hive pair the audit could not read had its text
# written over its SOFTWARE; a reg: and a psb: store's file replaced).
mkdir "$TMPDIR/u" "$TMPDIR/pair" "$TMPDIR/rs"
ln -s "$C/SOFTWARE" "$TMPDIR/u/SOFTWARE"
ln -s "$C/SYSTEM" "$TMPDIR/u/SYSTEM"
tree_state "$T" >"$TMPDIR/before"
refused "audit --textfile u/SOFTWARE" "$REGTOOL" $S audit --textfile "$TMPDIR/u/SOFTWARE"
refused "backup --force --format reg u/SYSTEM" "$REGTOOL" $S backup --force --format reg \
    "$TMPDIR/u/SYSTEM"
cp "$C/SOFTWARE" "$C/SYSTEM" "$TMPDIR/pair/"
ln -s "$TMPDIR/pair/SOFTWARE" "$TMPDIR/u/pair-sw"
expect_exit 0 "$REGTOOL" $S backup --format reg "$TMPDIR/rs/db.reg"
ln -s "$TMPDIR/rs/db.reg" "$TMPDIR/u/db"
{ tree_state "$TMPDIR/pair"; tree_state "$TMPDIR/rs"; } >"$TMPDIR/all-before"
(cd "$TMPDIR/pair" && "$REGTOOL" --store hive:SOFTWARE,SYSTEM audit --textfile ../u/pair-sw \
    >"$OUT" 2>"$ERR"; echo $? >"$TMPDIR/rc")
[ "$(cat "$TMPDIR/rc")" = 64 ] || fail "audit of a hive pair --textfile ../link: exit $(cat "$TMPDIR/rc")"
expect_grep "names one of the store's own files" "$ERR"
(cd "$TMPDIR/rs" && "$REGTOOL" --store reg:db.reg audit --textfile ../u/db \
    >"$OUT" 2>"$ERR"; echo $? >"$TMPDIR/rc")
[ "$(cat "$TMPDIR/rc")" = 64 ] || fail "audit of a reg: store --textfile ../link: exit $(cat "$TMPDIR/rc")"
rm -f "$TMPDIR/rc"
{ tree_state "$TMPDIR/pair"; tree_state "$TMPDIR/rs"; } >"$TMPDIR/all-after"
cmp -s "$TMPDIR/all-before" "$TMPDIR/all-after" || fail "an output through the user's link changed a store"
echo "outputs over the store's own files: refused"
