#!/bin/sh
# A hostile tree cannot reach outside it (docs/threat-model.md): links
# planted where regtool writes or reads (the lock, the journal,
# PerfStringBackup.INI, a .dat table's SysWOW64 copy, an INF folder, the
# Windows folder itself, a .reg store's lock), hard links where it writes
# (PerfStringBackup.INI, a .dat table, a hive), and FIFOs where it reads
# (PerfStringBackup.INI, the journal, a hive), and links planted as the
# folders init makes a tree in. Each is refused with a message naming
# the link or the file, within a bound (timeout: a FIFO must not block
# an open), and every file outside the tree keeps its bytes; where
# regtool refuses, the tree keeps its bytes too.
. tests/cli/lib.sh

HOST=$TMPDIR/host
mkdir -p "$HOST/etc"
printf 'host file: must never change\n' >"$HOST/victim"
printf 'root:x:0:0\n' >"$HOST/etc/passwd"
printf '[info]\n' >"$HOST/etc/transfer.ini"
chmod 600 "$HOST/victim"
tree_state "$HOST" >"$TMPDIR/host.state"
host_same() { expect_same_tree "$HOST" "$TMPDIR/host.state"; }
T=$TMPDIR/t
W=$T/Windows
C=$W/System32/config
INI=ini-samples/transfer.ini
CS="--create-service --library x.dll --open O --collect C --close X"
for layout in registry files; do
    expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine-$layout" init --layout $layout
done
# A tree as a writer leaves it: with its (empty) lock file, which a
# writer creates before it reads anything else.
fresh() { rm -rf "$T"; cp -a "$TMPDIR/pristine-$1" "$T"; : >"$C/regtool.lock"; }
snap() { tree_state "$T" >"$TMPDIR/before"; }
# refused_link CODE WHAT ARGS...: exit CODE, a message naming WHAT as a
# link, the tree and the host unchanged; bounded in time.
refused_link() {
    code=$1; what=$2; shift 2
    snap
    expect_exit "$code" timeout 20 "$REGTOOL" "$@"
    grep -Eq -- "$what (is a symbolic link|is not a file)" "$ERR" ||
        { cat "$ERR" >&2; fail "no word of $what as a link in $ERR"; }
    expect_same_tree "$T" "$TMPDIR/before"
    host_same
}

# The writer's lock linked to a host file: not truncated, not written.
for layout in registry files; do
    fresh $layout
    rm "$C/regtool.lock"
    ln -s "$HOST/victim" "$C/regtool.lock"
    refused_link 3 "$C/regtool.lock" --store "hive:$T" install $CS "$INI"
    refused_link 3 "$C/regtool.lock" --store "hive:$T" uninstall PerfOS
done

# A dangling link as the journal: refused as a journal that is no
# regular file (exit 2), nothing created at its target.
fresh registry
ln -s "$HOST/new-file" "$C/regtool.journal"
snap
expect_exit 2 timeout 20 "$REGTOOL" --store "hive:$T" install $CS "$INI"
expect_grep "regtool.journal: not a regular file" "$ERR"
expect_same_tree "$T" "$TMPDIR/before"
[ ! -e "$HOST/new-file" ] || fail "the journal's link created $HOST/new-file"
host_same
# A reader given that link says so, reads no journal through it, and
# reads the files.
timeout 20 "$REGTOOL" --store "hive:$T" query >"$OUT" 2>"$ERR"
expect_grep "regtool.journal: not a regular file" "$ERR"
expect_grep "Last Counter" "$OUT"

# PerfStringBackup.INI, which every change rewrites, linked to a host
# file: the install is refused before its commit point.
fresh registry
[ -f "$W/System32/PerfStringBackup.INI" ] || fail "init made no PerfStringBackup.INI"
rm "$W/System32/PerfStringBackup.INI"
ln -s "$HOST/victim" "$W/System32/PerfStringBackup.INI"
refused_link 3 "$W/System32/PerfStringBackup.INI" --store "hive:$T" install $CS "$INI"

# A file of the tree that is a hard link (a second name of a file outside
# the tree, on the same file system): never written, and the message
# says what it is, not "No such device" (the refusal's words were lost
# when the space reserved in the files before it was given back: the
# files layout's perfh009.dat and PerfStringBackup.INI come after
# perfc009.dat).
for case in registry:System32/PerfStringBackup.INI files:System32/perfh009.dat \
    files:System32/PerfStringBackup.INI registry:System32/config/SOFTWARE; do
    fresh "${case%%:*}"
    f=$W/${case#*:}
    cp "$f" "$TMPDIR/twin"
    ln -f "$TMPDIR/twin" "$f"
    cp "$TMPDIR/twin" "$TMPDIR/twin.before"
    snap
    # (a hive refused as it is read, as a FIFO there is: exit 2)
    code=3; case $f in */SOFTWARE) code=2 ;; esac
    expect_exit $code timeout 20 "$REGTOOL" --store "hive:$T" install $CS "$INI"
    # (read first, where its other name may be a host file: refused as
    # such, in the same words)
    expect_grep "$f is a hard link (2 links)[a-z/ ']*: refused" "$ERR"
    grep -q "No such device" "$ERR" && fail "${case#*:}: a hard link called 'No such device'"
    expect_same_tree "$T" "$TMPDIR/before"
    cmp -s "$TMPDIR/twin" "$TMPDIR/twin.before" || fail "${case#*:}: its other name was written"
    rm -f "$TMPDIR/twin" "$TMPDIR/twin.before"
    host_same
done

# A table that is a hard link to a host file of another owner (root's
# 0600 secret, a user's tree): never read, so its text is never printed,
# saved by backup or copied into the tree by rebuild. As root the host
# file is given away (nobody's); as a user, where the tree lies on the
# file system of / (any host file may be the other name there).
printf '1\0001847\0002\000System\0004\000SECRET-TEXT\000\000' |
    iconv -f ASCII -t UTF-16LE >"$HOST/secret"
chmod 600 "$HOST/secret"
if [ "$(id -u)" = 0 ]; then chown 65534 "$HOST/secret"; fi
if [ "$(id -u)" = 0 ] || [ "$(stat -c %d "$HOST")" = "$(stat -c %d /)" ]; then
    # (perfd009.dat is read by rebuild alone: the tables it starts from)
    for case in "perfc009.dat:names" "perfc009.dat:backup $TMPDIR/out.ini" \
        "perfc009.dat:rebuild --accept-loss" "perfd009.dat:rebuild --accept-loss"; do
        f=${case%%:*} verb=${case#*:}
        fresh files
        rm -f "$W/System32/$f"
        ln "$HOST/secret" "$W/System32/$f"
        snap
        # shellcheck disable=SC2086
        expect_exit 3 timeout 20 "$REGTOOL" --store "hive:$T" $verb
        expect_grep "$f is a hard link (2 links) [a-z/ ']*: refused" "$ERR"
        ! grep -q SECRET "$OUT" "$ERR" || fail "$f: $verb printed the host file's text"
        [ ! -e "$TMPDIR/out.ini" ] || fail "$f: $verb saved a backup"
        expect_same_tree "$T" "$TMPDIR/before"
    done
fi
rm -f "$HOST/secret"

# An output file the user names beneath the tree, relative to the working
# directory, through a folder the tree has as a link to a host folder: the
# link is refused as it is for the tree's own files (a relative path was
# not seen as beneath the tree, and the backup went to the host folder).
fresh registry
mkdir -p "$HOST/out"
ln -s "$HOST/out" "$W/Temp"
for f in "--format reg Windows/Temp/perf.reg" "Windows/Temp/perf.ini"; do
    # shellcheck disable=SC2086
    (cd "$T" && exec "$REGTOOL" --store "hive:$T" backup $f) >"$OUT" 2>"$ERR"
    [ $? -eq 3 ] || { cat "$ERR" >&2; fail "backup $f through a linked folder: not refused"; }
    expect_grep "Windows/Temp is a symbolic link, which regtool does not follow inside a tree it did not write" "$ERR"
    [ -z "$(ls -A "$HOST/out")" ] || fail "backup $f wrote into the host folder"
done
rm -rf "$HOST/out"

# Files the user names on the tree's disk (a folder holding
# Windows/System32) but no store of it confines: a hive given to hive
# recover, a psb: store. The disk is confined as the tree is: an output
# named through a folder the disk has as a link to a host folder is
# refused (hive recover wrote the tree's hive there, and with --force
# over a host file; backup of a psb: store wrote a .reg file there).
fresh registry
mkdir -p "$HOST/out"
printf 'host file: must never change\n' >"$HOST/out/keep.conf"
ln -s "$HOST/out" "$W/Temp"
for args in "hive recover Windows/System32/config/SOFTWARE -o Windows/Temp/rec" \
    "hive recover --force Windows/System32/config/SOFTWARE -o Windows/Temp/keep.conf" \
    "--store psb:Windows/System32/PerfStringBackup.INI backup --format reg Windows/Temp/perf.reg" \
    "--store psb:$W/System32/PerfStringBackup.INI backup $W/Temp/perf.ini"; do
    # shellcheck disable=SC2086
    (cd "$T" && exec "$REGTOOL" $args) >"$OUT" 2>"$ERR"
    [ $? -eq 3 ] || { cat "$ERR" >&2; fail "$args through a linked folder: not refused"; }
    expect_grep "Windows/Temp is a symbolic link, which regtool does not follow inside a tree it did not write" "$ERR"
    [ "$(ls -A "$HOST/out")" = keep.conf ] || fail "$args wrote into the host folder"
    grep -q "must never change" "$HOST/out/keep.conf" || fail "$args replaced a host file"
done
# lodctr /S through it: refused as access is (5, the reference's "a file
# cannot be written"), not as an I/O failure.
mkdir -p "$TMPDIR/bin"
ln -sf "$REGTOOL" "$TMPDIR/bin/lodctr"
expect_exit 5 "$TMPDIR/bin/lodctr" --store "hive:$T" "/S:$W/Temp/perf.ini"
expect_grep "Windows/Temp is a symbolic link" "$ERR"
[ "$(ls -A "$HOST/out")" = keep.conf ] || fail "lodctr /S wrote into the host folder"
rm -f "$W/Temp"
# psb: and reg: stores named through a link the disk holds (its Users to
# a host folder): refused for a reader, diff and a writer (the stores'
# folders were once confined as trees of their own, the disk forgotten).
mkdir -p "$HOST/users"
expect_exit 0 "$REGTOOL" --store "hive:$T" backup "$HOST/users/theirs.ini"
expect_exit 0 "$REGTOOL" --store "hive:$T" backup --format reg "$HOST/users/perf.reg"
tree_state "$HOST" >"$TMPDIR/host-users.state"
ln -s "$HOST/users" "$T/Users"
expect_exit 3 "$REGTOOL" --store "psb:$T/Users/theirs.ini" names 4
expect_grep "$T/Users is a symbolic link" "$ERR"
if "$REGTOOL" diff --pairs "hive:$T" "psb:$T/Users/theirs.ini" >"$OUT" 2>"$ERR"; then
    fail "diff read a store through the disk's link"
fi
expect_grep "$T/Users is a symbolic link" "$ERR"
expect_exit 3 "$REGTOOL" --store "reg:$T/Users/perf.reg" disable PerfOS
expect_grep "$T/Users is a symbolic link" "$ERR"
expect_same_tree "$HOST" "$TMPDIR/host-users.state"
rm -f "$T/Users"
rm -rf "$HOST/users"
# The user's own link to a folder of the disk whose way there crosses a
# link the disk planted (alias -> Windows/Temp -> a host folder): refused
# for an output and for a store read through it (the link was resolved
# whole, the planted one with it, and the path seen in no tree).
mkdir -p "$HOST/via"
printf 'host file: must never change\n' >"$HOST/via/keep.conf"
expect_exit 0 "$REGTOOL" --store "hive:$T" backup "$HOST/via/theirs.ini"
tree_state "$HOST" >"$TMPDIR/host-via.state"
ln -s "$HOST/via" "$W/Temp"
ln -s "$W/Temp" "$TMPDIR/alias-into"
expect_exit 3 "$REGTOOL" --store "hive:$T" backup --force "$TMPDIR/alias-into/keep.conf"
expect_grep "$W/Temp is a symbolic link" "$ERR"
expect_exit 3 "$REGTOOL" --store "psb:$TMPDIR/alias-into/theirs.ini" query
expect_grep "$W/Temp is a symbolic link" "$ERR"
expect_same_tree "$HOST" "$TMPDIR/host-via.state"
rm -f "$W/Temp" "$TMPDIR/alias-into"
rm -rf "$HOST/via"
# A disk the user keeps where its way, once their own links are resolved,
# is longer than PATH_MAX (two short links to a deep folder), the disk's
# Windows/Temp a link to a host folder: where the way cannot be walked
# the output is refused, not written as spelled (the disk went unseen and
# its link was followed); so is a relative output from a working
# directory too deep to name.
N=$(awk 'BEGIN { while (i++ < 240) printf "n" }')
deep1=
deep2=
for i in 1 2 3 4 5 6 7 8 9 10; do
    deep1="$deep1/$N$i"
    deep2="$deep2$N$((i + 10))/"
done
mkdir -p "$TMPDIR/deep$deep1" "$HOST/deep"
ln -s "$TMPDIR/deep$deep1" "$TMPDIR/L1"
mkdir -p "$TMPDIR/L1/$deep2"
ln -s "$deep2" "$TMPDIR/L1/L2"
cp -a "$TMPDIR/pristine-registry" "$TMPDIR/L1/L2/disk"
ln -s "$HOST/deep" "$TMPDIR/L1/L2/disk/Windows/Temp"
tree_state "$HOST" >"$TMPDIR/host-deep.state"
expect_exit 3 "$REGTOOL" hive recover "$C/SOFTWARE" -o "$TMPDIR/L1/L2/disk/Windows/Temp/long"
expect_grep "bytes once its links are resolved" "$ERR"
(cd "$TMPDIR/L1/L2" && exec "$REGTOOL" hive recover "$C/SOFTWARE" -o disk/Windows/Temp/rel) >"$OUT" 2>"$ERR"
[ $? -eq 3 ] || { cat "$ERR" >&2; fail "a relative output from a working directory too deep to name: not refused"; }
expect_grep "the working directory is longer than" "$ERR"
expect_same_tree "$HOST" "$TMPDIR/host-deep.state"
rm -rf "$TMPDIR/deep" "$TMPDIR/L1" "$HOST/deep"
# A tree named beneath the disk (its Windows.old, laid out as a tree
# itself, a link to another disk mounted beside it), init into its
# Windows/Temp (a link to a host folder), and --tables in its Users (a
# link to a host folder of tables): each reached with the disk's links
# refused (writers changed the other disk's hives, init made a tree in
# the host folder, install rewrote the host's table).
OTHER2=$HOST/other2
expect_exit 0 "$REGTOOL" --store "hive:$OTHER2" init --languages 009
cp -a "$OTHER2/Windows/System32/perfc009.dat" "$HOST/perfc009.keep"
mkdir -p "$HOST/tmp"
tree_state "$HOST" >"$TMPDIR/host-beneath.state"
ln -s "$OTHER2" "$T/Windows.old"
ln -s "$HOST/tmp" "$W/Temp"
ln -s "$OTHER2/Windows/System32" "$T/Users"
expect_exit 4 "$REGTOOL" --store "hive:$T/Windows.old" disable PerfOS
expect_grep "$T/Windows.old is a symbolic link" "$ERR"
expect_exit 3 "$REGTOOL" --store "hive:$W/Temp/new" init --languages 009
expect_grep "$W/Temp is a symbolic link" "$ERR"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/clean" init --languages 009
# shellcheck disable=SC2086
expect_exit 2 "$REGTOOL" --store "hive:$TMPDIR/clean" --tables "$T/Users" install $CS "$INI"
expect_grep "$T/Users is a symbolic link" "$ERR"
expect_same_tree "$HOST" "$TMPDIR/host-beneath.state"
rm -f "$T/Windows.old" "$W/Temp" "$T/Users"
rm -rf "$OTHER2" "$HOST/tmp" "$HOST/perfc009.keep" "$TMPDIR/clean"
# However the path to the disk is spelled (through the user's own link
# above it, with "//" or "/./"), and whatever the letter case of its
# Windows and System32 folders (XP's WINDOWS/system32), or with no
# Windows folder at all (System32/config at its root).
ln -s "$T" "$TMPDIR/userlink"
ln -s "$HOST/out" "$W/Temp"
for out in "$TMPDIR/userlink/Windows/Temp/rec" "$TMPDIR//t/Windows/Temp/rec" \
    "$TMPDIR/./t/Windows/Temp/rec"; do
    expect_exit 3 "$REGTOOL" hive recover "$C/SOFTWARE" -o "$out"
    expect_grep "Windows/Temp is a symbolic link, which regtool does not follow inside a tree it did not write" "$ERR"
done
rm -f "$W/Temp" "$TMPDIR/userlink"
mv "$T/Windows" "$T/WINDOWS"
mv "$T/WINDOWS/System32" "$T/WINDOWS/system32"
ln -s "$HOST/out" "$T/WINDOWS/Temp"
expect_exit 3 "$REGTOOL" hive recover "$T/WINDOWS/system32/config/SOFTWARE" -o "$T/WINDOWS/Temp/rec"
expect_grep "WINDOWS/Temp is a symbolic link, which regtool does not follow inside a tree it did not write" "$ERR"
# A decoy beside the disk's Windows folder: an entry of its name in
# another case ("Windows", a file, beside the folder "windows"), whichever
# the folder lists first, does not hide the disk: a link at its root stays
# refused (hive recover --force replaced a host file through it).
rm -f "$T/WINDOWS/Temp"
mv "$T/WINDOWS" "$T/windows"
: >"$T/Windows"
ln -s "$HOST/out" "$T/Temp"
expect_exit 3 "$REGTOOL" hive recover --force "$T/windows/system32/config/SOFTWARE" -o "$T/Temp/keep.conf"
expect_grep "/Temp is a symbolic link, which regtool does not follow inside a tree it did not write" "$ERR"
grep -q "must never change" "$HOST/out/keep.conf" || fail "a case twin of Windows hid the disk: a host file was replaced"
rm -rf "$T"
mkdir -p "$T/System32" "$T/Temp"
cp -a "$TMPDIR/pristine-registry/Windows/System32/config" "$T/System32/config"
rmdir "$T/Temp"
ln -s "$HOST/out" "$T/Temp"
expect_exit 3 "$REGTOOL" hive recover "$T/System32/config/SOFTWARE" -o "$T/Temp/rec"
expect_grep "/Temp is a symbolic link, which regtool does not follow inside a tree it did not write" "$ERR"
[ "$(ls -A "$HOST/out")" = keep.conf ] || fail "a spelling of the disk wrote into the host folder"
rm -rf "$HOST/out"

# A link of the disk whose target is laid out as a disk itself (another
# machine's disk mounted beside it, root's Wine prefix): the outermost
# disk keeps its rules, so the link is refused, not taken for the disk
# and followed (audit --textfile wrote on the other disk, check-ini read
# its 0600 INI, rebuild --from read its tables); a link back to the
# tree's own root (Temp -> ..) is refused, where hive recover crashed.
fresh registry
OTHER=$HOST/other
mkdir -p "$OTHER/Windows/System32/config" "$HOST/out"
printf 'host file: must never change\n' >"$HOST/out/keep.conf"
printf '[info]\ndrivername=Secret\nsymbolfile=s.h\n[languages]\n009=English\n' >"$OTHER/Windows/creds.ini"
chmod 600 "$OTHER/Windows/creds.ini"
cp "$W/System32/"*.dat "$OTHER/Windows/System32/"
mkdir -p "$HOST/old/System32"
cp "$W/System32/"*.dat "$HOST/old/System32/"
tree_state "$HOST" >"$TMPDIR/host-other.state"
ln -s "$OTHER/Windows" "$W/Temp"
ln -s .. "$W/Up"
expect_exit 3 "$REGTOOL" --store "hive:$T" audit --textfile "$W/Temp/perf.prom"
expect_grep "$W/Temp is a symbolic link" "$ERR"
expect_exit 3 "$REGTOOL" check-ini "$W/Temp/creds.ini"
expect_grep "$W/Temp is a symbolic link" "$ERR"
expect_exit 3 "$REGTOOL" --store "hive:$T" rebuild --dry-run --from "$W/Temp"
expect_grep "$W/Temp is a symbolic link" "$ERR"
expect_exit 3 "$REGTOOL" hive recover "$C/SOFTWARE" -o "$W/Up/rec"
expect_grep "$W/Up is a symbolic link" "$ERR"
expect_same_tree "$HOST" "$TMPDIR/host-other.state"
rm -f "$W/Temp" "$W/Up"
# rebuild --from a folder of the tree that is a link to a host folder
# (Windows.old): refused, nothing of the host's tables read into the tree.
ln -s "$HOST/old" "$T/Windows.old"
snap
expect_exit 3 "$REGTOOL" --store "hive:$T" rebuild --from "$T/Windows.old"
expect_grep "$T/Windows.old is a symbolic link" "$ERR"
expect_same_tree "$T" "$TMPDIR/before"
rm "$T/Windows.old"
# The hive store's other layouts are disks too: hives in config/ at the
# tree's root, or at its root itself.
for layout in config root; do
    rm -rf "$T"
    mkdir -p "$T"
    case $layout in
    config) cp -a "$TMPDIR/pristine-registry/Windows/System32/config" "$T/config" ;;
    root) cp "$TMPDIR/pristine-registry/Windows/System32/config/SOFTWARE" \
              "$TMPDIR/pristine-registry/Windows/System32/config/SYSTEM" "$T/" ;;
    esac
    ln -s "$HOST/out" "$T/Temp"
    expect_exit 3 "$REGTOOL" hive recover --force "$TMPDIR/pristine-registry/Windows/System32/config/SOFTWARE" -o "$T/Temp/keep.conf"
    expect_grep "$T/Temp is a symbolic link" "$ERR"
done
expect_same_tree "$HOST" "$TMPDIR/host-other.state"
rm -rf "$HOST/out" "$HOST/other" "$HOST/old" "$T"

# A file the user names on the tree's disk is read with the tree's rules:
# a hard link there to a host file (root's 0600 secret; as a user, where
# the tree lies on the file system of /) is refused, not read as the
# user's own input: a backup restored or compared, a vendor's INI and
# symbol file installed (the whole host file was copied into Windows/INF).
if [ "$(id -u)" = 0 ] || [ "$(stat -c %d "$HOST")" = "$(stat -c %d /)" ]; then
    fresh files
    expect_exit 0 "$REGTOOL" --store "hive:$T" backup "$TMPDIR/own.ini"
    cp "$TMPDIR/own.ini" "$HOST/secret.ini"
    printf '#define OBJ 0\n#define CNT 2\nSECRET-TEXT\n' >"$HOST/secret.h"
    chmod 600 "$HOST/secret.ini" "$HOST/secret.h"
    if [ "$(id -u)" = 0 ]; then chown 65534 "$HOST/secret.ini" "$HOST/secret.h"; fi
    mkdir -p "$W/Temp" "$T/Program Files/Evil"
    ln "$HOST/secret.ini" "$W/Temp/backup.ini"
    ln "$HOST/secret.h" "$T/Program Files/Evil/evil.h"
    printf '[info]\r\ndrivername=Evil\r\nsymbolfile=evil.h\r\n[languages]\r\n009=English\r\n[text]\r\nOBJ_009_NAME=Evil\r\nOBJ_009_HELP=E.\r\nCNT_009_NAME=Count\r\nCNT_009_HELP=C.\r\n' \
        >"$T/Program Files/Evil/evil.ini"
    snap
    for args in "--store hive:$T restore $W/Temp/backup.ini" \
        "diff hive:$T psb:$W/Temp/backup.ini"; do
        # shellcheck disable=SC2086
        expect_exit 3 timeout 20 "$REGTOOL" $args
        expect_grep "backup.ini is a hard link (2 links) [a-z/ ']*: refused" "$ERR"
    done
    # shellcheck disable=SC2086
    expect_exit 2 timeout 20 "$REGTOOL" --store "hive:$T" install $CS "$T/Program Files/Evil/evil.ini"
    expect_grep "evil.h is a hard link (2 links) [a-z/ ']*: refused" "$ERR"
    ! grep -rq SECRET-TEXT "$W/INF" 2>/dev/null || fail "a host file's text was copied into the tree"
    expect_same_tree "$T" "$TMPDIR/before"
    rm -f "$HOST/secret.ini" "$HOST/secret.h" "$W/Temp/backup.ini"
    # One over the backups' cap (sparse, 3 GB): refused as a hard link
    # too, its size never said (it was looked at by name before the open).
    truncate -s 3G "$HOST/secret.ini"
    chmod 600 "$HOST/secret.ini"
    ln "$HOST/secret.ini" "$W/Temp/backup.ini"
    expect_exit 3 timeout 20 "$REGTOOL" --store "hive:$T" restore --dry-run "$W/Temp/backup.ini"
    expect_grep "backup.ini is a hard link (2 links) [a-z/ ']*: refused" "$ERR"
    ! grep -q 3221225472 "$ERR" || fail "the size of a host file hard-linked into the tree was said"
    rm -f "$HOST/secret.ini" "$W/Temp/backup.ini"
fi

# A .dat table's SysWOW64 copy linked to a host file.
fresh files
rm "$W/SysWOW64/perfc009.dat"
ln -s "$HOST/victim" "$W/SysWOW64/perfc009.dat"
snap
expect_exit 2 timeout 20 "$REGTOOL" --store "hive:$T" install $CS "$INI"
expect_grep "SysWOW64/perfc009.dat is not a file" "$ERR"
expect_same_tree "$T" "$TMPDIR/before"
host_same

# The SysWOW64 folder itself a link to a host folder holding copies of
# the tables, a dangling link, or a plain file: refused, reader and writer
# alike, naming it and what stands there (before, the tree was taken for
# one without SysWOW64: every verb exited 0 and left the copies out).
for planted in link dangling file; do
    fresh files
    rm -rf "$HOST/wow" "$W/SysWOW64.real"
    mv "$W/SysWOW64" "$W/SysWOW64.real"
    case $planted in
    link)
        cp -a "$W/SysWOW64.real" "$HOST/wow"
        ln -s "$HOST/wow" "$W/SysWOW64"
        what="a symbolic link" ;;
    dangling)
        ln -s "$HOST/none" "$W/SysWOW64"
        what="a symbolic link" ;;
    file)
        printf 'x\n' >"$W/SysWOW64"
        what="a regular file" ;;
    esac
    rm -rf "$W/SysWOW64.real"
    [ -d "$HOST/wow" ] && tree_state "$HOST/wow" >"$TMPDIR/wow.state"
    snap
    for verb in "install $CS $INI" "uninstall TransferPerf" query; do
        # shellcheck disable=SC2086
        expect_exit 2 timeout 20 "$REGTOOL" --store "hive:$T" $verb
        expect_grep "^regtool: $W/SysWOW64 is $what, not a folder: refused" "$ERR"
        expect_same_tree "$T" "$TMPDIR/before"
    done
    [ -d "$HOST/wow" ] && expect_same_tree "$HOST/wow" "$TMPDIR/wow.state"
    [ ! -e "$HOST/none" ] || fail "SysWOW64 dangling: its target was made"
    rm -rf "$HOST/wow"
    host_same
done

# INF/<driver> linked to a host folder: the INI and symbol file are not
# written into it.
fresh registry
mkdir -p "$W/INF"
ln -s "$HOST/etc" "$W/INF/TransferPerf"
refused_link 3 "$W/INF/TransferPerf" --store "hive:$T" install $CS "$INI"

# An installed provider whose INF copy's folder is then replaced by a
# link to a host folder holding a file of the INI's name: uninstall
# removes nothing there (and says which link it refused).
fresh registry
expect_exit 0 "$REGTOOL" --store "hive:$T" install $CS "$INI"
[ -f "$W/INF/TransferPerf/0009/transfer.ini" ] || fail "no INF copy after install"
rm -r "$W/INF/TransferPerf/0009"
ln -s "$HOST/etc" "$W/INF/TransferPerf/0009"
refused_link 3 "$W/INF/TransferPerf/0009" --store "hive:$T" uninstall TransferPerf
# The INF copy's language folder a FIFO: rebuild reads nothing there and
# says what stands in the folder's place (not "not found").
rm "$W/INF/TransferPerf/0009"
mkfifo "$W/INF/TransferPerf/0009"
expect_exit 0 timeout 20 "$REGTOOL" --store "hive:$T" rebuild --dry-run
expect_grep "INF/TransferPerf/0009/transfer.ini: its language folder is not a folder (a file, a FIFO, a device or a socket): not read" "$OUT"

# The Windows folder itself a link (to a copy of a tree elsewhere): the
# tree the user named holds a link where its Windows folder should be.
fresh registry
mv "$W" "$HOST/Windows"
ln -s "$HOST/Windows" "$W"
tree_state "$HOST" >"$TMPDIR/host.state"
expect_exit 4 timeout 20 "$REGTOOL" --store "hive:$T" install $CS "$INI"
expect_grep "$W is a symbolic link" "$ERR"
expect_same_tree "$HOST" "$TMPDIR/host.state"
rm -rf "$HOST/Windows"
tree_state "$HOST" >"$TMPDIR/host.state"

# FIFOs where regtool reads: each open returns at once and is refused.
fresh registry
rm "$W/System32/PerfStringBackup.INI"
mkfifo "$W/System32/PerfStringBackup.INI"
snap
expect_exit 3 timeout 20 "$REGTOOL" --store "hive:$T" install $CS "$INI"
expect_grep "PerfStringBackup.INI is not a file" "$ERR"
expect_same_tree "$T" "$TMPDIR/before"
fresh registry
mkfifo "$C/regtool.journal"
for verb in query names "install $CS $INI"; do
    # shellcheck disable=SC2086
    "$REGTOOL" --store "hive:$T" $verb >"$OUT" 2>"$ERR" </dev/null &
    pid=$!
    ( sleep 20; kill -9 $pid 2>/dev/null ) &
    killer=$!
    wait $pid; rc=$?
    kill $killer 2>/dev/null
    [ "$rc" -ne 137 ] || fail "$verb blocked on a FIFO journal"
    # A reader reads the files and says what it could not read; a writer,
    # which would have to finish a journal, refuses.
    case "$verb" in install*) [ "$rc" -ne 0 ] || fail "$verb went on past a FIFO journal" ;; esac
    expect_grep "regtool.journal: not a regular file" "$ERR"
done
fresh registry
rm "$C/SYSTEM"
mkfifo "$C/SYSTEM"
expect_exit 2 timeout 20 "$REGTOOL" --store "hive:$T" query
expect_grep "SYSTEM" "$ERR"

# A dirty SOFTWARE whose LOG1 is a link to a root-only secret: the log is
# not read through the link, and no copy of it (NAME.regtool-STAMP) is
# made in the tree.
MKDIRTY=$TMPDIR/mkdirty
cc -Ilib -o "$MKDIRTY" tests/cli/mkdirty.c lib/regf/marvin32.c \
    lib/regf/base_block.c || fail "cannot build mkdirty"
fresh registry
"$MKDIRTY" "$C/SOFTWARE" || fail "mkdirty failed"
rm -f "$C/SOFTWARE.LOG1" "$C/SOFTWARE.LOG2"
printf 'root:$6$secret-hash:19000::::::\n' >"$HOST/shadow"
chmod 600 "$HOST/shadow"
tree_state "$HOST" >"$TMPDIR/host.state"
ln -s "$HOST/shadow" "$C/SOFTWARE.LOG1"
for verb in query "install $CS $INI"; do
    # shellcheck disable=SC2086
    timeout 20 "$REGTOOL" --store "hive:$T" $verb >"$OUT" 2>"$ERR" </dev/null
    [ $? -ne 124 ] || fail "$verb on a dirty hive with a linked log did not end"
    ! grep -rqs 'secret-hash' "$T" || fail "$verb copied the secret into the tree"
    ! grep -qs 'secret-hash' "$OUT" "$ERR" || fail "$verb printed the secret"
    host_same
done

# The .reg store's lock beside the file, linked to a host file.
fresh registry
expect_exit 0 "$REGTOOL" --store "hive:$T" backup --format reg "$TMPDIR/db.reg"
ln -s "$HOST/victim" "$TMPDIR/db.reg.lock"
cp "$TMPDIR/db.reg" "$TMPDIR/db.reg.before"
expect_exit 3 timeout 20 "$REGTOOL" --store "reg:$TMPDIR/db.reg" install $CS "$INI"
expect_grep "db.reg.lock is a symbolic link" "$ERR"
cmp -s "$TMPDIR/db.reg" "$TMPDIR/db.reg.before" || fail "the .reg file changed"
host_same
# A psb: store read from a tree's PerfStringBackup.INI that is a link to a
# host file (a backup holding a secret name): refused as the hive store
# refuses that link, exit 3 naming it, the host file never read (it was
# followed, and names printed the secret); restore of it likewise.
fresh files
expect_exit 0 "$REGTOOL" --store "hive:$T" backup --force "$TMPDIR/host.ini"
{ printf '\377\376'
  iconv -f UTF-16 -t UTF-8 "$TMPDIR/host.ini" | sed 's/^2=[^\r]*/2=secret-name/' |
      iconv -f UTF-8 -t UTF-16LE; } >"$HOST/backup.ini"
tree_state "$HOST" >"$TMPDIR/host.state"
expect_exit 0 "$REGTOOL" --store "psb:$HOST/backup.ini" names 2
expect_grep secret-name "$OUT"
rm -f "$W/System32/PerfStringBackup.INI"
ln -s "$HOST/backup.ini" "$W/System32/PerfStringBackup.INI"
for verb in "names 2" query audit; do
    # shellcheck disable=SC2086
    timeout 20 "$REGTOOL" --store "psb:$W/System32/PerfStringBackup.INI" $verb >"$OUT" 2>"$ERR"
    got=$?
    [ $got -eq 3 ] || [ "$verb" = audit ] || { cat "$OUT" "$ERR" >&2; fail "psb: $verb through a link: exit $got, want 3"; }
    grep -q "PerfStringBackup.INI is a symbolic link" "$OUT" "$ERR" ||
        { cat "$OUT" "$ERR" >&2; fail "psb: $verb does not name the link"; }
    ! grep -qs secret-name "$OUT" "$ERR" || fail "psb: $verb read the host file through the link"
done
host_same
# restore (lodctr /R:file) of a backup kept in the tree under another
# name, a link to the host file: refused, nothing of the host file
# written into the tree (it was restored into it).
fresh files
ln -s "$HOST/backup.ini" "$W/System32/PerfStringBackup.old"
for verb in "restore --dry-run" restore; do
    snap
    # shellcheck disable=SC2086
    expect_exit 3 timeout 20 "$REGTOOL" --store "hive:$T" $verb "$W/System32/PerfStringBackup.old"
    expect_grep "PerfStringBackup.old is a symbolic link" "$ERR"
    ! grep -qs secret-name "$OUT" "$ERR" || fail "$verb read the host file through the link"
    expect_same_tree "$T" "$TMPDIR/before"
done
host_same
# install (lodctr INI) and check-ini of an INI named in the tree's INF
# copy, a link to a host INI: refused (exit 3 naming the link), never read
# (the host INI was installed: 'would install HostSecret').
fresh files
sed 's/^drivername=.*/drivername=HostSecret/' "$INI" >"$HOST/host.ini"
tree_state "$HOST" >"$TMPDIR/host.state"
mkdir -p "$W/INF/Host/0009"
cp ini-samples/CounterOffsets.h "$W/INF/Host/0009/"
ln -s "$HOST/host.ini" "$W/INF/Host/0009/host.ini"
for verb in "install --dry-run $CS" check-ini; do
    snap
    # shellcheck disable=SC2086
    expect_exit 3 timeout 20 "$REGTOOL" --store "hive:$T" $verb "$W/INF/Host/0009/host.ini"
    grep -q "host.ini is a symbolic link" "$OUT" "$ERR" ||
        { cat "$OUT" "$ERR" >&2; fail "$verb: the refusal does not name the link"; }
    ! grep -qs HostSecret "$OUT" "$ERR" || fail "$verb read the host INI through the link"
    expect_same_tree "$T" "$TMPDIR/before"
done
host_same
# audit --stores-from a list kept in the tree, a link to a host list:
# refused naming the link (exit 64), the host list never read (its store
# was audited).
printf 'psb:%s\n' "$HOST/backup.ini" >"$HOST/stores.txt"
tree_state "$HOST" >"$TMPDIR/host.state"
ln -s "$HOST/stores.txt" "$W/stores.txt"
"$REGTOOL" audit --stores-from "$W/stores.txt" >"$OUT" 2>"$ERR"
got=$?
[ $got -ne 0 ] || { cat "$OUT" "$ERR" >&2; fail "audit --stores-from through a link: exit 0"; }
expect_grep "stores.txt is a symbolic link" "$ERR"
! grep -qs "$HOST/backup.ini" "$OUT" "$ERR" || fail "audit --stores-from read the host list through the link"
host_same
# init into a tree whose folders are planted as links (Windows, System32,
# config, SysWOW64, to a host folder; SysWOW64 also dangling): refused
# with exit 3 and a message naming the link as one, nothing written
# through it, and the folders init made before it met the link removed:
# the tree as it was, the host untouched.
for planted in Windows Windows/System32 Windows/System32/config \
    Windows/SysWOW64 dangling; do
    rm -rf "$T"
    link=$planted target=$HOST/etc
    [ "$planted" = dangling ] && link=Windows/SysWOW64 target=$HOST/none
    mkdir -p "$T/$(dirname "$link")"
    ln -s "$target" "$T/$link"
    snap
    expect_exit 3 timeout 20 "$REGTOOL" --store "hive:$T" init
    expect_grep "^regtool: init: .*: $T/$link is a symbolic link" "$ERR"
    expect_same_tree "$T" "$TMPDIR/before"
    [ ! -e "$HOST/none" ] || fail "init through a dangling $link made its target"
    host_same
done
# A failed init removes the folders it made for the path it was given,
# and only those: $TMPDIR/made/new/<a name too long for the system>/t
# fails after making new, which goes; made, there before, stays.
mkdir "$TMPDIR/made"
long=$(printf '%0300d' 0)
expect_exit 3 "$REGTOOL" --store "hive:$TMPDIR/made/new/$long/t" init
expect_grep "File name too long" "$ERR"
[ -d "$TMPDIR/made" ] || fail "a failed init removed a folder that was there before"
[ ! -e "$TMPDIR/made/new" ] || fail "a failed init left the folder it made: $TMPDIR/made/new"
# A cd through a link the disk planted (its Users/Public/Temp to a host
# folder), then a relative output: the way the shell took ($PWD) is
# walked, and the link refused as when the output is named through it
# (the working directory's real name, the host folder, was taken, and
# backup --force replaced a host file there).
CD=$TMPDIR/cdisk
mkdir -p "$TMPDIR/cdhost"
printf 'host file: must never change\n' >"$TMPDIR/cdhost/keep.conf"
chmod 600 "$TMPDIR/cdhost/keep.conf"
expect_exit 0 "$REGTOOL" --store "hive:$CD" init --languages 009
mkdir -p "$CD/Users/Public"
ln -s "$TMPDIR/cdhost" "$CD/Users/Public/Temp"
tree_state "$TMPDIR/cdhost" >"$TMPDIR/cdhost.state"
R=$REGTOOL
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
for args in "--store hive:$CD backup --force keep.conf" \
    "--store hive:$CD audit --textfile m.prom" \
    "hive recover $CD/Windows/System32/config/SOFTWARE -o rec.hiv"; do
    # shellcheck disable=SC2086
    (cd "$CD/Users/Public/Temp" && PWD=$CD/Users/Public/Temp && export PWD &&
        exec "$R" $args) >"$OUT" 2>"$ERR"
    rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] ||
        { cat "$ERR" >&2; fail "$args after a cd through the disk's link exited $rc"; }
    expect_grep "$CD/Users/Public/Temp is a symbolic link" "$ERR"
    expect_same_tree "$TMPDIR/cdhost" "$TMPDIR/cdhost.state"
done
# The user's own link to their own backup, in a folder of theirs that no
# tree holds: refused (an input is read by its own name), in words that
# say so and claim no tree, nothing written; by the name it points to,
# restored.
U=$TMPDIR/userlinks
mkdir -p "$U/home" "$U/real"
expect_exit 0 "$REGTOOL" --store "hive:$U/t" init --languages 009
expect_exit 0 "$REGTOOL" --store "hive:$U/t" backup "$U/real/b.ini"
ln -s ../real/b.ini "$U/home/b.ini"
tree_state "$U/t" >"$TMPDIR/userlinks.state"
expect_exit 3 "$REGTOOL" --store "hive:$U/t" restore --dry-run "$U/home/b.ini"
expect_grep "home/b.ini is a symbolic link: a file named to regtool is read by its own name, never through a link (name the file it points to)" "$ERR"
grep -q "inside a tree" "$ERR" && fail "the user's own link was said to be inside a tree"
expect_same_tree "$U/t" "$TMPDIR/userlinks.state"
expect_exit 0 "$REGTOOL" --store "hive:$U/t" restore --dry-run "$U/real/b.ini"
# A "." the user typed in a path names the folder before it, beneath the
# disk's root too, as "//" does: a store hive:t/Windows/., an input
# t/./Windows/Temp/b.ini and an output on the open tree's canonical form
# were refused, as leading out of the tree. ".." there stays refused,
# and a link of the disk stays refused whatever "." surrounds it.
fresh registry
mkdir -p "$W/Temp" "$TMPDIR/dothost"
expect_exit 0 "$REGTOOL" --store "hive:$T" backup "$W/Temp/b.ini"
expect_exit 0 "$REGTOOL" --store "hive:$T" backup --format reg "$W/Temp/b.reg"
tree_state "$TMPDIR/dothost" >"$TMPDIR/dothost.state"
in_tmp() { (cd "$TMPDIR" && PWD=$(pwd) && export PWD && exec "$R" "$@") >"$OUT" 2>"$ERR"; }
for args in "--store hive:t/Windows/. query" "--store hive:t/./Windows query" \
    "--store hive:./t/Windows/System32/./config query" \
    "--store hive:$T/./Windows/. query" \
    "--store hive:t restore --dry-run t/./Windows/Temp/b.ini" \
    "--store hive:t restore --dry-run t/Windows/Temp/./b.ini" \
    "--store hive:t/. backup t/./Windows/Temp/./c.ini" \
    "--store reg:t/./Windows/Temp/./b.reg query" \
    "--store reg:t/Windows/Temp/./b.reg audit"; do
    # shellcheck disable=SC2086
    in_tmp $args
    rc=$?
    [ "$rc" -eq 0 ] || { cat "$ERR" >&2; fail "regtool $args exited $rc"; }
done
[ -f "$W/Temp/c.ini" ] || fail "backup t/./Windows/Temp/./c.ini made no $W/Temp/c.ini"
in_tmp --store hive:t/Windows/../Windows query
[ $? -eq 4 ] || fail "a '..' below the disk's root was not refused"
expect_grep 'the name ".." in it would lead out of' "$ERR"
ln -s "$TMPDIR/dothost" "$W/Temp/lnk"
in_tmp --store hive:t backup t/./Windows/Temp/lnk/./d.ini
[ $? -eq 3 ] || fail "a link of the disk beside a '.' was not refused"
expect_grep "Windows/Temp/lnk is a symbolic link, which regtool does not follow" "$ERR"
expect_same_tree "$TMPDIR/dothost" "$TMPDIR/dothost.state"
CT=$(cd "$T" && pwd -P)
expect_exit 0 "$REGTOOL" --store "hive:$CT" backup "$CT/Windows/Temp/./e.ini"
expect_exit 0 "$REGTOOL" --store "hive:$CT" restore --dry-run "$CT/./Windows/Temp/./e.ini"
expect_exit 0 "$REGTOOL" --store "hive:$CT" audit --textfile "$CT/Windows/./Temp/a.prom"
[ -f "$W/Temp/e.ini" ] && [ -f "$W/Temp/a.prom" ] ||
    fail "an output named on the tree's canonical form with a '.' was not made"

# A link the tree planted is never followed to look at a mount: statfs
# of the path as typed followed Windows/Temp to where it led (a link to
# an automount that never answers hung every verb, past SIGTERM: review
# 41 R41-8), and so did a commit's look at its folders' flags, through a
# link planted as Windows/INF (review 54 R54-3). Traced: no statfs, stat
# or statx names a path through the link, for each verb that takes a
# path there.
if strace -f -o /dev/null true 2>/dev/null; then
    LT=$TMPDIR/lt
    mkdir -p "$TMPDIR/lt-host" "$TMPDIR/lt-host/TransferPerf/0009"
    expect_exit 0 "$REGTOOL" --store "hive:$LT" init --languages 009
    ln -s "$TMPDIR/lt-host" "$LT/Windows/Temp"
    ln -s "$TMPDIR/lt-host" "$LT/Windows/INF"
    LIB='%SystemRoot%\System32\transferperf.dll'
    for args in "--store hive:$LT backup $LT/Windows/Temp/bk.ini" \
        "--store hive:$LT install --dry-run --create-service --library $LIB --open O --collect C --close X ini-samples/transfer.ini" \
        "--store hive:$LT install --create-service --library $LIB --open O --collect C --close X ini-samples/transfer.ini" \
        "--store hive:$LT audit --textfile $LT/Windows/Temp/a.prom" \
        "--store hive:$LT/Windows/Temp/new init" \
        "hive recover $LT/Windows/System32/config/SOFTWARE -o $LT/Windows/Temp/r.hive" \
        "--store hive:$LT --tables $LT/Windows/Temp query" \
        "--store hive:$LT rebuild --dry-run --from $LT/Windows/Temp" \
        "--store hive:$LT repair --dry-run --from-ini $LT/Windows/Temp"; do
        # shellcheck disable=SC2086
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
            strace -f -o "$TMPDIR/statfs" \
            -e trace=statfs,statfs64,statx,stat,lstat,newfstatat "$REGTOOL" $args \
            >/dev/null 2>&1
        through='statfs.*Windows/Temp\|Windows/\(Temp\|INF\)/'
        grep -q "$through" "$TMPDIR/statfs" &&
            fail "$args: a look through the planted link: $(grep "$through" "$TMPDIR/statfs" | head -n 1)"
    done
    [ -z "$(find "$TMPDIR/lt-host" ! -type d)" ] ||
        fail "a verb wrote through the planted link"
fi
echo "hostile links: every case refused, the host untouched"
