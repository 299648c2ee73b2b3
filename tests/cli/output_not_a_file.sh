#!/bin/sh
# An output named where something other than a file stands is refused,
# the thing left as it was: regtool writes a file whole and then renames
# it into the name, which replaced a link (the user's /dev/stdout with
# stdout redirected to a file: /dev/stdout was a regular file after
# `regtool backup --force /dev/stdout > x`), a FIFO or a device with a
# file, and a numbered name beside it (backup without --force) was
# written in /dev. Here in the test's own folder: a link shaped as
# /dev/stdout is, a link to a file, a FIFO and a folder. And a folder
# where others made names a temporary could have.
. tests/cli/lib.sh

# not_written ARGS MESSAGE: regtool ARGS (words) exits 3 within a bound,
# saying MESSAGE.
not_written() {
    # shellcheck disable=SC2086
    timeout 20 "$REGTOOL" $1 >"$TMPDIR/stdout-file" 2>"$ERR"
    rc=$?
    [ "$rc" -eq 3 ] || { cat "$ERR" >&2; fail "$1 exited $rc, want 3"; }
    expect_grep "$2" "$ERR"
}

T=$TMPDIR/t
expect_exit 0 "$REGTOOL" --store "hive:$T" init --languages 009
D=$TMPDIR/names
mkdir -p "$D/folder"
ln -s /proc/self/fd/1 "$D/stdout"
printf 'the user file: must never change\n' >"$D/file"
ln -s "$D/file" "$D/to-file"
mkfifo "$D/fifo"
tree_state "$D" >"$TMPDIR/names.state"
S="--store hive:$T"
for name in stdout to-file fifo folder; do
    case $name in
    stdout | to-file) what="is a symbolic link" ;;
    fifo) what="is a FIFO, not a file" ;;
    folder) what="is a folder, not a file" ;;
    esac
    for args in "$S backup $D/$name" "$S backup --force $D/$name" \
        "$S backup --format reg --force $D/$name" \
        "$S audit --textfile $D/$name" \
        "hive recover --force $T/Windows/System32/config/SOFTWARE -o $D/$name"; do
        not_written "$args" "$D/$name $what"
        expect_same_tree "$D" "$TMPDIR/names.state" "$args changed $D"
    done
done

# The same names planted beneath the tree (its Windows\Temp, as a disk's
# author would): refused as outside it, left as they were, the store
# unchanged, where the rename replaced each (review 44 R44-5). A writer's
# --emit-reg is refused before its change.
W=$T/Windows/Temp
mkdir -p "$W"
ln -s "$D/file" "$W/link.ini"
mkfifo "$W/fifo.ini"
if [ "$(id -u)" = 0 ]; then mknod "$W/device.ini" c 1 3; fi
cp ini-samples/transfer.ini ini-samples/CounterOffsets.h "$TMPDIR/"
CS='--create-service --library %SystemRoot%\System32\transferperf.dll --open O --collect C --close X'
tree_state "$T" >"$TMPDIR/tree.state"
for name in link fifo device; do
    [ -e "$W/$name.ini" ] || [ -L "$W/$name.ini" ] || continue
    case $name in
    link) what="is a symbolic link, not a file" ;;
    fifo) what="is a FIFO, not a file" ;;
    device) what="is a character device, not a file" ;;
    esac
    for args in "$S backup --force $W/$name.ini" "$S audit --textfile $W/$name.ini" \
        "$S install $CS --emit-reg $W/$name.ini $TMPDIR/transfer.ini"; do
        not_written "$args" "$W/$name.ini $what"
        expect_same_tree "$T" "$TMPDIR/tree.state" "$args changed the tree"
        expect_same_tree "$D" "$TMPDIR/names.state" "$args changed $D"
    done
done

# A writer's --emit-reg where no file can be made (the kernel's /proc) is
# refused before its change (review 45 R45-4: committed, then refused).
# shellcheck disable=SC2086
expect_exit 3 "$REGTOOL" $S install $CS --emit-reg /proc/self/x.reg "$TMPDIR/transfer.ini"
expect_grep "kernel's file systems (proc, sysfs): no file can be saved there; nothing was written" "$ERR"
expect_same_tree "$T" "$TMPDIR/tree.state" "install --emit-reg into /proc changed the tree"

# Files someone else made first, named where the next temporaries would
# be if their names came from the clock and a count (review 41 R41-4:
# every save there failed, said as the output's own names existing): the
# save works, theirs untouched.
P=$TMPDIR/shared
mkdir "$P"
now=$(date +%s)
awk -v now="$now" -v p="$P" 'BEGIN {
    for (t = now; t < now + 8; t++)
        for (k = 1; k < 200; k += 2)
            printf "%s/out.ini.tmp.%08x%04x\n", p, t, k }' | xargs touch
expect_exit 0 "$REGTOOL" $S backup "$P/out.ini"
[ -s "$P/out.ini" ] || fail "no backup beside the names others made"
[ "$(find "$P" -name 'out.ini.tmp.*' -size 0 | wc -l)" = 800 ] ||
    fail "the names others made were not left as they were"
[ "$(ls "$P" | wc -l)" = 801 ] || fail "a temporary left beside out.ini"
echo "outputs where no file stands: refused, each left as it was"
