# Commits that cannot be finished are never started, and reading writes
# nothing:
# - on read-only media (a tmpfs remounted read-only) names, query and the
#   dry runs of install and uninstall work and create nothing;
# - on writable media the dry runs create no lock file and no journal;
# - SOFTWARE read-only for the user (root's, mode 0444; the user is nobody):
#   install exits 3 naming what it needs, every file as it was;
# - a sealed journal that its user cannot finish: a reader reads the files
#   as they are (never the journal), says what is pending, which files it
#   would change and what finishing it needs, and exits 0; a writer of
#   that user exits 3 saying the same; root's next writer finishes it;
# - disk full (a small tmpfs): exit 3, "free N bytes", nothing written;
#   after space is freed the install succeeds; the same with no inodes
#   left for the INF copy's folders and files.
. tests/cli/lib.sh
# Simulated crashes and signals: the CLI with the test hooks.
REGTOOL=$REGTOOL_TESTING

P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\n' >"$P/x.ini"
CS="--create-service --library x.dll --open O --collect C --close X"
chmod 755 "$TMPDIR"
chmod -R a+rX "$P"
# GCOV_PREFIX: a gcov build's counters (make coverage) are not nobody's
# to write; libgcov would say so on stderr, which is checked here. Its
# counters go to a scratch folder instead, uncounted.
mkdir -p "$TMPDIR/nobody-gcov" && chmod 777 "$TMPDIR/nobody-gcov"
as_nobody() {
    GCOV_PREFIX=$TMPDIR/nobody-gcov \
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}
as_nobody true || fail "cannot run as nobody"

PRISTINE=$TMPDIR/pristine
expect_exit 0 $REGTOOL --store "hive:$PRISTINE/w" init --languages 009,019
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL --store "hive:$PRISTINE/w" install $CS "$P/x.ini"
rm -f "$PRISTINE/w/Windows/System32/config/regtool.lock"
MNT=$TMPDIR/mnt
mkdir "$MNT"
cleanup() { umount "$MNT" 2>/dev/null; }
trap cleanup EXIT

readers() {   # readers TREE: every read-only command, each exit 0
    expect_exit 0 $REGTOOL --store "hive:$1" names Xfer
    expect_exit 0 $REGTOOL --store "hive:$1" query Xfer
    # shellcheck disable=SC2086
    expect_exit 0 $REGTOOL --store "hive:$1" install --dry-run --replace $CS "$P/x.ini"
    expect_grep "^would install Xfer" "$OUT"
    expect_exit 0 $REGTOOL --store "hive:$1" uninstall --dry-run Xfer
    expect_grep "^would uninstall Xfer" "$OUT"
    # The recovery verbs' dry runs too (they took the writer's lock).
    expect_exit 0 $REGTOOL --store "hive:$1" repair --dry-run
    expect_exit 0 $REGTOOL --store "hive:$1" rebuild --dry-run --accept-loss
    expect_exit 0 $REGTOOL --store "hive:$1" backup "$TMPDIR/ro.ini"
    expect_exit 0 $REGTOOL --store "hive:$1" restore --dry-run "$TMPDIR/ro.ini"
    rm -f "$TMPDIR/ro.ini"
}

# Read-only media, with and without a lock file.
mount -t tmpfs -o size=16m tmpfs "$MNT" || fail "cannot mount a tmpfs"
cp -a "$PRISTINE/w" "$MNT/w"
mount -o remount,ro "$MNT" || fail "cannot remount read-only"
tree_state "$MNT" >"$TMPDIR/before"
readers "$MNT/w"
expect_same_tree "$MNT" "$TMPDIR/before"
umount "$MNT"
mount -t tmpfs -o size=16m tmpfs "$MNT"
cp -a "$PRISTINE/w" "$MNT/w"
: >"$MNT/w/Windows/System32/config/regtool.lock"
mount -o remount,ro "$MNT"
tree_state "$MNT" >"$TMPDIR/before"
readers "$MNT/w"
expect_same_tree "$MNT" "$TMPDIR/before"
umount "$MNT"

# Writable media: still no lock file, no journal.
W=$TMPDIR/t/w
C=$W/Windows/System32/config
fresh() { rm -rf "$TMPDIR/t"; mkdir "$TMPDIR/t"; cp -a "$PRISTINE/w" "$W"; }
fresh
tree_state "$TMPDIR/t" >"$TMPDIR/before"
readers "$W"
expect_same_tree "$TMPDIR/t" "$TMPDIR/before"

# SOFTWARE read-only for the user: the tree is root's, the config directory
# and the other files writable by all, SOFTWARE mode 0444.
uninstall_as_nobody() {
    as_nobody $REGTOOL --store "hive:$W" uninstall Xfer
}
fresh
chmod -R a+rwX "$TMPDIR/t"
chmod 0444 "$C/SOFTWARE"
: >"$C/regtool.lock"; chmod 0666 "$C/regtool.lock"
tree_state "$TMPDIR/t" >"$TMPDIR/before"
expect_exit 3 uninstall_as_nobody
expect_grep "SOFTWARE: Permission denied; nothing was written: run as a user who can write .*/config/SOFTWARE" "$ERR"
expect_same_tree "$TMPDIR/t" "$TMPDIR/before"

# An INF copy's folder root's, not the user's (as NFS's root_squash
# gives it): refused before the commit point, every file as it was
# (review 54 R54-4: the uninstall passed its point, failed on the INF
# copy and left the journal to every later writer).
fresh
chmod -R a+rwX "$TMPDIR/t"
chmod 0755 "$W/Windows/INF/Xfer/0009"
: >"$C/regtool.lock"; chmod 0666 "$C/regtool.lock"
tree_state "$TMPDIR/t" >"$TMPDIR/before"
expect_exit 3 uninstall_as_nobody
expect_grep "INF/Xfer/0009/x.ini: .*INF/Xfer/0009 cannot be written by this user: no file can be saved there; nothing was written" "$ERR"
expect_same_tree "$TMPDIR/t" "$TMPDIR/before"

# SOFTWARE immutable (chattr +i, as the disk's author may leave it):
# refused even to root, and the message names the flag, not only a user
# who can write it (review 38 F1). Where the file system has no such
# flag (tmpfs, overlay), said and skipped.
fresh
if chattr +i "$C/SOFTWARE" 2>/dev/null; then
    tree_state "$TMPDIR/t" >"$TMPDIR/before"
    expect_exit 3 $REGTOOL --store "hive:$W" uninstall Xfer
    chattr -i "$C/SOFTWARE"
    expect_grep "SOFTWARE: Operation not permitted; nothing was written: .*clear its immutable or append-only flag if it has one (lsattr, chattr -i -a)" "$ERR"
    tree_state "$TMPDIR/t" ! -name regtool.lock | diff "$TMPDIR/before" - >&2 ||
        fail "a refused uninstall changed the tree"
else
    echo "readonly_and_full: no immutable flag on this file system: skipped"
fi

# A sealed journal its user cannot finish: made by a crash after the
# commit point (the fault hook ends the run at the last write of the
# files, before the journal is retired).
fresh
$REGTOOL --verbose --store "hive:$W" uninstall Xfer >"$OUT" 2>"$ERR" || fail "uninstall: $(cat "$ERR")"
writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR")
expect_exit 0 $REGTOOL --store "hive:$W" names --json
cp "$OUT" "$TMPDIR/names-after"
fresh
REGTOOL_FAULT_AFTER_WRITES=$((writes - 1)) $REGTOOL --store "hive:$W" uninstall Xfer >/dev/null 2>&1
[ $? -eq 99 ] || fail "the fault hook did not end the run"
[ -s "$C/regtool.journal" ] || fail "no journal left by the crash"
# The crashed writer's note in the lock file (who held it) is stale: clear
# it, so that the lock file reads as any released one does.
: >"$C/regtool.lock"
chmod -R a+rwX "$TMPDIR/t"
chmod 0444 "$C/SOFTWARE" "$C/regtool.journal"
tree_state "$TMPDIR/t" >"$TMPDIR/before"
# A reader: the files as they are (the crash came after their last write,
# so they hold the uninstall), one line on what is pending.
expect_exit 0 as_nobody $REGTOOL --store "hive:$W" names --json
cmp -s "$OUT" "$TMPDIR/names-after" || fail "the reader did not read the files"
expect_grep "regtool.journal: the uninstall of Xfer committed at 20[0-9-]* [0-9:]* UTC is not yet in the files, which are read as they are (part-way through it, if a crash stopped it there); it would change System32/config/SOFTWARE ([0-9]* bytes), .*INF/Xfer/0009/x.ini (removed).* in $W/Windows; run as a user who can write .*/config/SOFTWARE" "$ERR"
[ "$(wc -l <"$ERR")" -eq 1 ] || fail "more than one line: $(cat "$ERR")"
expect_exit 1 as_nobody $REGTOOL --store "hive:$W" names Xfer
# A writer of that user: refused, saying what it needs.
# shellcheck disable=SC2086
expect_exit 3 as_nobody $REGTOOL --store "hive:$W" install $CS "$P/x.ini"
expect_grep "holds the uninstall of Xfer committed at .* which could not be finished .*run as a user who can write .*/config/SOFTWARE" "$ERR"
expect_same_tree "$TMPDIR/t" "$TMPDIR/before"
# Root's reader does not finish it either; root's next writer does.
expect_exit 0 $REGTOOL --store "hive:$W" query
expect_grep "is not yet in the files" "$ERR"
expect_same_tree "$TMPDIR/t" "$TMPDIR/before"
expect_exit 4 $REGTOOL --store "hive:$W" enable NoSuchProvider
expect_grep "regtool.journal: finished the uninstall of Xfer committed at" "$ERR"
[ ! -e "$C/regtool.journal" ] || fail "journal not retired"
expect_exit 0 $REGTOOL --store "hive:$W" names --json
cmp -s "$OUT" "$TMPDIR/names-after" || fail "the finished state differs"
[ ! -s "$ERR" ] || fail "something left to say: $(cat "$ERR")"

# Disk full: a tmpfs with the tree and a few KB to spare.
mount -t tmpfs -o size=20m tmpfs "$MNT"
cp -a "$PRISTINE/w" "$MNT/w"
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL --store "hive:$MNT/w" uninstall Xfer
: >"$MNT/w/Windows/System32/config/regtool.lock"
dd if=/dev/zero of="$MNT/filler" bs=4096 2>/dev/null
rm "$MNT/filler"
free=$(df -B1 --output=avail "$MNT" | tail -1)
dd if=/dev/zero of="$MNT/filler" bs=4096 count=$(( (free - 4096) / 4096 )) 2>/dev/null
tree_state "$MNT/w" >"$TMPDIR/before"
# shellcheck disable=SC2086
expect_exit 3 $REGTOOL --store "hive:$MNT/w" install $CS "$P/x.ini"
expect_grep "No space left on device; nothing was written: free [0-9]* bytes on the file system of $MNT/w" "$ERR"
expect_same_tree "$MNT/w" "$TMPDIR/before"
expect_exit 0 $REGTOOL --store "hive:$MNT/w" names
[ ! -s "$ERR" ] || fail "the failed install left something to say: $(cat "$ERR")"
rm "$MNT/filler"
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL --store "hive:$MNT/w" install $CS "$P/x.ini"
expect_exit 0 $REGTOOL --store "hive:$MNT/w" names Xfer
umount "$MNT"

# No inode left but two (a tmpfs of a few hundred, as an ext4 image its
# author filled): the INF copy's folders and files are counted before
# the commit point, refused with nothing written, where the install
# passed its point and failed making them, the journal left to every
# later writer (review 55 R55-1). With the inodes freed it goes through.
mount -t tmpfs -o size=64m,nr_inodes=400 tmpfs "$MNT"
cp -a "$PRISTINE/w" "$MNT/w"
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL --store "hive:$MNT/w" uninstall Xfer
: >"$MNT/w/Windows/System32/config/regtool.lock"
mkdir "$MNT/fill"
left=$(df --output=iavail "$MNT" | tail -1)
i=0
while [ "$i" -lt $((left - 2)) ]; do : >"$MNT/fill/$i"; i=$((i + 1)); done
tree_state "$MNT/w" >"$TMPDIR/before"
# shellcheck disable=SC2086
expect_exit 3 $REGTOOL --store "hive:$MNT/w" install $CS "$P/x.ini"
expect_grep "the new files and folders this change makes need [0-9]* inodes and [0-9]* are free; nothing was written" "$ERR"
expect_same_tree "$MNT/w" "$TMPDIR/before"
rm -r "$MNT/fill"
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL --store "hive:$MNT/w" install $CS "$P/x.ini"
umount "$MNT"
