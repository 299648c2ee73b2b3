#!/bin/sh
# A mount inside a tree is not crossed (docs/threat-model.md): a tree on
# a disk cannot make mounts, but regtool run in a container or chroot
# whose copy of the tree has a host folder bound into it would otherwise
# write to the host. A host folder bound at Windows/INF, at an installed
# provider's INF folder, at System32/config, and a host file bound over
# PerfStringBackup.INI: install, uninstall and query refuse, naming the
# mount point, rebuild says the INF copy behind one is behind a mount
# point, and the host folder keeps its bytes. A tree whose root is
# itself a mount point (a Windows disk mounted at /mnt/win) works as any.
# Needs root and mounts: without them it says SKIP and passes.
. tests/cli/lib.sh

HOST=$TMPDIR/host
T=$TMPDIR/t
W=$T/Windows
C=$W/System32/config
INI=ini-samples/transfer.ini
CS="--create-service --library x.dll --open O --collect C --close X"

# Every mount made here, undone however the script ends: the scratch
# folder is removed after it, and a mount left there would take the
# host folder's files with it.
MOUNTS=
NSPID=
unmount_all() {
    for m in $MOUNTS; do umount -l "$m" 2>/dev/null; done
    MOUNTS=
}
# A chattr flag a failed check left is cleared too, or the scratch folder
# could not be removed.
unflag_all() { chattr -R -i -a "$TMPDIR" >/dev/null 2>&1; }
trap 'unmount_all; unflag_all; [ -z "$NSPID" ] || kill "$NSPID" 2>/dev/null' EXIT
trap 'unmount_all; unflag_all; exit 1' INT TERM HUP
bind() {
    mount --bind "$1" "$2" || fail "mount --bind $1 $2 failed after a first one worked"
    MOUNTS="$2 $MOUNTS"
}

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: hostile_mounts needs root to make mounts"
    exit 0
fi
mkdir -p "$TMPDIR/probe-a" "$TMPDIR/probe-b"
if ! mount --bind "$TMPDIR/probe-a" "$TMPDIR/probe-b" 2>/dev/null; then
    echo "SKIP: hostile_mounts: mount --bind is not allowed here"
    exit 0
fi
umount "$TMPDIR/probe-b"

mkdir -p "$HOST/etc"
printf 'host file: must never change\n' >"$HOST/victim"
printf 'root:x:0:0\n' >"$HOST/etc/passwd"
printf '[info]\n' >"$HOST/etc/transfer.ini"
tree_state "$HOST" >"$TMPDIR/host.state"
host_same() { expect_same_tree "$HOST" "$TMPDIR/host.state"; }
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine" init --layout registry
fresh() { unmount_all; rm -rf "$T"; cp -a "$TMPDIR/pristine" "$T"; }
# refused_mount WHAT ARGS...: regtool fails, within a bound, naming WHAT
# as a mount point; the host keeps its bytes.
refused_mount() {
    what=$1; shift
    timeout 20 "$REGTOOL" "$@" >"$OUT" 2>"$ERR"; rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] ||
        { cat "$OUT" "$ERR" >&2; fail "$* exited $rc past the mount at $what"; }
    expect_grep "$what is a mount point: refused" "$ERR"
    host_same
}

# A host folder bound at Windows/INF: the install writes no INI or
# symbol file into it.
fresh
mkdir -p "$W/INF"
bind "$HOST/etc" "$W/INF"
refused_mount "$W/INF" --store "hive:$T" install $CS "$INI"

# An installed provider whose INF folder is then a host folder holding a
# file of the INI's name: uninstall removes nothing there.
fresh
expect_exit 0 "$REGTOOL" --store "hive:$T" install $CS "$INI"
[ -f "$W/INF/TransferPerf/0009/transfer.ini" ] || fail "no INF copy after install"
bind "$HOST/etc" "$W/INF/TransferPerf/0009"
refused_mount "$W/INF/TransferPerf/0009" --store "hive:$T" uninstall TransferPerf
# rebuild, which reads the INF copies, says the copy's folder is a mount
# point (it called it "not found") and reads nothing through it.
expect_exit 0 timeout 20 "$REGTOOL" --store "hive:$T" rebuild --dry-run
expect_grep "no INF copy: .*$W/INF/TransferPerf/0009 is a mount point: refused" "$OUT"
grep -q "transfer.ini: not found" "$OUT" && fail "rebuild called a mount point's INF copy not found"
host_same

# A host folder bound at System32/config, where the hives are: no verb
# reads or writes through it, a reader included.
fresh
cp -a "$C" "$TMPDIR/config-copy"
bind "$TMPDIR/config-copy" "$C"
tree_state "$TMPDIR/config-copy" >"$TMPDIR/config.state"
refused_mount "$C" --store "hive:$T" query
refused_mount "$C" --store "hive:$T" install $CS "$INI"
expect_same_tree "$TMPDIR/config-copy" "$TMPDIR/config.state"

# A host file bound over PerfStringBackup.INI, which every change
# rewrites.
fresh
bind "$HOST/victim" "$W/System32/PerfStringBackup.INI"
refused_mount "$W/System32/PerfStringBackup.INI" --store "hive:$T" install $CS "$INI"

# The tree's root itself a mount point: install, query and uninstall
# work as on any tree.
fresh
bind "$T" "$T"
expect_exit 0 timeout 20 "$REGTOOL" --store "hive:$T" install $CS "$INI"
[ -f "$W/INF/TransferPerf/0009/transfer.ini" ] || fail "no INF copy after install on a mounted root"
expect_exit 0 timeout 20 "$REGTOOL" --store "hive:$T" query
expect_grep "TransferPerf" "$OUT"
expect_exit 0 timeout 20 "$REGTOOL" --store "hive:$T" uninstall TransferPerf
# ... and a mount below that root is still refused.
mkdir -p "$W/INF"
bind "$HOST/etc" "$W/INF"
refused_mount "$W/INF" --store "hive:$T" install $CS "$INI"

# A folder of the disk bound elsewhere (its Users on bu: a container's
# volume, an export) and a link the disk planted beneath it
# (Users/Public/Temp to a host folder): a path through the bound folder
# is walked as the disk's, as through a link into it, so the planted
# link is refused for an output, --textfile and backup --force over a
# host file (each was written through it). A bound folder no disk holds
# works as any.
fresh
OUT2=$TMPDIR/bound-out
mkdir -p "$T/Users/Public" "$TMPDIR/bu" "$OUT2" "$TMPDIR/plain" "$TMPDIR/bp"
printf 'host file: must never change\n' >"$OUT2/keep.conf"
chmod 600 "$OUT2/keep.conf"
ln -s "$OUT2" "$T/Users/Public/Temp"
tree_state "$OUT2" >"$TMPDIR/bound-out.state"
bind "$T/Users" "$TMPDIR/bu"
# Inside a chroot on the file system the source lies on (make
# fresh-check's root) the table of mounts names the source by its way
# from that file system's root, outside the chroot: it is found by what
# of that way lies below the chroot's own root.
for args in "backup $TMPDIR/bu/Public/Temp/perf.ini" \
    "backup --force $TMPDIR/bu/Public/Temp/keep.conf" \
    "audit --textfile $TMPDIR/bu/Public/Temp/perf.prom"; do
    # shellcheck disable=SC2086
    timeout 20 "$REGTOOL" --store "hive:$T" $args >"$OUT" 2>"$ERR"
    rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] ||
        { cat "$ERR" >&2; fail "$args through a bound folder of the disk exited $rc"; }
    expect_grep "$T/Users/Public/Temp is a symbolic link" "$ERR"
done
expect_exit 3 timeout 20 "$REGTOOL" hive recover "$C/SOFTWARE" -o "$TMPDIR/bu/Public/Temp/rec"
expect_grep "$T/Users/Public/Temp is a symbolic link" "$ERR"
expect_same_tree "$OUT2" "$TMPDIR/bound-out.state"
bind "$TMPDIR/plain" "$TMPDIR/bp"
expect_exit 0 timeout 20 "$REGTOOL" --store "hive:$T" backup "$TMPDIR/bp/perf.ini"
[ -s "$TMPDIR/plain/perf.ini" ] || fail "backup into a bound folder no disk holds wrote nothing"
unmount_all

# The same through ways the kernel and a walk could part on: the user's
# own relative link beyond a bound folder that climbs out of it
# (data/cur -> ../disk, data bound at m/mdata: the kernel goes up from
# the mount point, into m/disk, which was not seen); a reg: store opened
# through a bound folder and an output named by the folder's source (the
# root was recorded by the mount point's spelling only); and ".." right
# after a bound folder, which leaves it as the kernel does.
mkdir -p "$TMPDIR/m/mdata" "$TMPDIR/data" "$TMPDIR/uploads/m1" "$TMPDIR/view"
cp -a "$T" "$TMPDIR/m/disk"
rm -f "$TMPDIR/m/disk/Users/Public/Temp"
ln -s "$OUT2" "$TMPDIR/m/disk/Windows/Temp"
ln -s ../disk "$TMPDIR/data/cur"
bind "$TMPDIR/data" "$TMPDIR/m/mdata"
expect_exit 3 timeout 20 "$REGTOOL" hive recover "$C/SOFTWARE" -o "$TMPDIR/m/mdata/cur/Windows/Temp/b"
expect_grep "$TMPDIR/m/disk/Windows/Temp is a symbolic link" "$ERR"
expect_exit 0 "$REGTOOL" --store "hive:$T" backup --format reg "$TMPDIR/uploads/m1/perf.reg"
ln -s "$OUT2" "$TMPDIR/uploads/m1/Temp"
bind "$TMPDIR/uploads" "$TMPDIR/view"
expect_exit 3 timeout 20 "$REGTOOL" --store "reg:$TMPDIR/view/m1/perf.reg" backup --force "$TMPDIR/uploads/m1/Temp/keep.conf"
expect_grep "Temp is a symbolic link" "$ERR"
expect_exit 3 timeout 20 "$REGTOOL" --store "reg:$TMPDIR/view/m1/perf.reg" audit --textfile "$TMPDIR/uploads/m1/Temp/perf.prom"
expect_same_tree "$OUT2" "$TMPDIR/bound-out.state"
expect_exit 1 timeout 20 "$REGTOOL" hive recover "$C/SOFTWARE" -o "$TMPDIR/view/../up.hiv"
[ -f "$TMPDIR/up.hiv" ] || fail "hive recover -o BOUND/../up.hiv wrote nothing beside the bound folder"
unmount_all

# One folder bound at two places, its file system's own mount gone (one
# host folder given to a container as two volumes): a tree there works
# (each bind was taken for the other's source, "more than 40 links").
if unshare -m --propagation private true 2>/dev/null; then
    mkdir -p "$TMPDIR/two/fs" "$TMPDIR/two/a" "$TMPDIR/two/b"
    unshare -m --propagation private sh -c "
        mount -t tmpfs none '$TMPDIR/two/fs' && mkdir '$TMPDIR/two/fs/sub' &&
        mount --bind '$TMPDIR/two/fs/sub' '$TMPDIR/two/a' &&
        mount --bind '$TMPDIR/two/fs/sub' '$TMPDIR/two/b' &&
        umount -l '$TMPDIR/two/fs' &&
        '$REGTOOL' --store 'hive:$TMPDIR/two/a/disk' init --languages 009 &&
        '$REGTOOL' --store 'hive:$TMPDIR/two/b/disk' backup '$TMPDIR/two/a/perf.ini'" >"$OUT" 2>"$ERR" ||
        { cat "$ERR" >&2; fail "a tree in a folder bound twice did not work"; }
fi

# The same bound folder of a disk whose own mount point is a long path of
# spaces (five folders of 250: the table of mounts spells each "\040",
# over 4096 bytes): its line is read whole, the source found, and the
# planted link refused, exit 3 (a field split at 4095 bytes hid the
# disk's mount, and the backup was written through the link).
if unshare -m --propagation private true 2>/dev/null; then
    SP=$(printf '%250s' '')
    LONG="$TMPDIR/long/$SP/$SP/$SP/$SP/$SP"
    mkdir -p "$LONG" "$TMPDIR/lbu"
    # shellcheck disable=SC2016
    unshare -m --propagation private sh -c '
        mount -t tmpfs none "$1" && mkdir -p "$1/Users/Public" &&
        ln -s "$3" "$1/Users/Public/Temp" &&
        "$2" --store "hive:$1" init --languages 009 >/dev/null &&
        mount --bind "$1/Users" "$4" &&
        exec timeout 20 "$2" --store "hive:$1" backup "$4/Public/Temp/perf.ini"' \
        sh "$LONG" "$REGTOOL" "$OUT2" "$TMPDIR/lbu" >"$OUT" 2>"$ERR"
    rc=$?
    [ "$rc" = 3 ] || { cat "$ERR" >&2; fail "a backup through the bound folder of a disk at a long path exited $rc"; }
    # The message keeps its reason, the paths cut in their middle.
    expect_grep "/perf.ini: $TMPDIR/long/ .* \.\.\. .*/Users/Public/Temp is a symbolic link, which regtool does not follow .*; nothing was saved" "$ERR"
    expect_same_tree "$OUT2" "$TMPDIR/bound-out.state"
fi

# In a chroot whose root file system's mount is not shown (a container),
# a volume bound at /mnt/data whose source's way ends in "/data", and the
# image's link /data -> /mnt/data: the link is the volume again, not its
# source (it was taken for it, and every path through the volume refused:
# "more than 8 bound folders"). A tree of the user's on the volume works.
if unshare -m --propagation private true 2>/dev/null; then
    CR=$TMPDIR/croot
    mkdir -p "$CR/bin" "$CR/proc" "$CR/mnt/data" "$TMPDIR/vol/data"
    cp "$REGTOOL" "$CR/bin/regtool"
    for l in $(ldd "$REGTOOL" | grep -o '/[^ ]*'); do
        mkdir -p "$CR$(dirname "$l")" && cp -L "$l" "$CR$l"
    done
    ln -s /mnt/data "$CR/data"
    expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/vol/data/t" init --languages 009
    unshare -m --propagation private sh -c "
        mount --bind '$TMPDIR/vol/data' '$CR/mnt/data' &&
        mount -t proc proc '$CR/proc' &&
        timeout 20 chroot '$CR' /bin/regtool --store hive:/mnt/data/t backup /mnt/data/b.ini" >"$OUT" 2>"$ERR" ||
        { cat "$ERR" >&2; fail "a tree on a volume beside a link named like its source's end did not work in a chroot"; }
    [ -s "$TMPDIR/vol/data/b.ini" ] || fail "backup in the chroot wrote nothing on the volume"
fi

# A path through /proc/PID/root of a process in another mount namespace
# (a container's files, as root reaches them from outside): the link's
# text ("/") is not where the kernel goes, so it is refused (the walk
# went on in this namespace, found no disk, and the container's disk's
# planted link was followed).
NSPID=
if unshare -m --propagation private true 2>/dev/null; then
    mkdir -p "$TMPDIR/ns"
    unshare -m --propagation private sh -c "mount -t tmpfs none '$TMPDIR/ns' &&
        cp -a '$T' '$TMPDIR/ns/disk' && rm -rf '$TMPDIR/ns/disk/Users' &&
        ln -s '$OUT2' '$TMPDIR/ns/disk/Windows/Temp' &&
        echo \$\$ >'$TMPDIR/ns.pid' && exec sleep 60" &
    i=0
    while [ ! -s "$TMPDIR/ns.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    NSPID=$(cat "$TMPDIR/ns.pid" 2>/dev/null)
    [ -n "$NSPID" ] || fail "the other mount namespace did not start"
    expect_exit 3 timeout 20 "$REGTOOL" hive recover "$C/SOFTWARE" -o "/proc/$NSPID/root$TMPDIR/ns/disk/Windows/Temp/z"
    expect_grep "/proc/$NSPID/root leads into another mount namespace" "$ERR"
    kill "$NSPID"
    wait
    NSPID=
    expect_same_tree "$OUT2" "$TMPDIR/bound-out.state"
else
    echo "SKIP: hostile_mounts: unshare -m is not allowed here (the /proc/PID/root case)"
fi

# Without /proc (a rescue chroot, a minimal container), or with a table
# of mounts that does not list the mount, where a folder is bound from
# cannot be read: a bound folder of the file system it is on is refused,
# not taken for a plain one (the disk's Users bound there, its planted
# Users/Public/Temp was followed). The table is hidden here by /dev/null
# bound over the process's own (over all of /proc, the sanitizers' build
# could not read its options nor check leaks).
if unshare -m --propagation private true 2>/dev/null; then
    mkdir -p "$TMPDIR/np"
    timeout 20 unshare -m --propagation private sh -c "
        mount --bind '$T/Users' '$TMPDIR/np' &&
        mount --bind /dev/null /proc/\$\$/mountinfo &&
        exec '$REGTOOL' hive recover '$C/SOFTWARE' -o '$TMPDIR/np/Public/Temp/np'" \
        >"$OUT" 2>"$ERR"
    rc=$?
    [ "$rc" -eq 3 ] || { cat "$ERR" >&2; fail "a bound folder without /proc: exit $rc, want 3"; }
    expect_grep "$TMPDIR/np is a folder bound there from another, and where from cannot be read" "$ERR"
    expect_same_tree "$OUT2" "$TMPDIR/bound-out.state"
fi
unmount_all

# A read-only view of a disk (its folder bound elsewhere, the bind made
# read-only: how a disk or an evidence copy is handed to a tool that must
# not write it). The walk holds the disk by the view's source, on a mount
# that may be written: every writer is refused as the kernel would
# refuse it through the view (a store, an output, a new tree), and the
# disk keeps its bytes (review 40 R40-5: each wrote, exit 0); readers and
# dry runs work, as on any read-only media.
fresh
mkdir -p "$TMPDIR/rov"
bind "$T" "$TMPDIR/rov"
if mount -o remount,bind,ro "$TMPDIR/rov" 2>/dev/null; then
    tree_state "$T" >"$TMPDIR/disk.state"
    V=$TMPDIR/rov
    expect_exit 0 "$REGTOOL" --store "hive:$V" query
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" --store "hive:$V" install --dry-run $CS "$INI"
    for args in "install $CS $INI" "disable PerfOS" "backup $V/Windows/bk.ini" \
        "audit --textfile $V/Windows/a.prom"; do
        # shellcheck disable=SC2086
        expect_exit 3 "$REGTOOL" --store "hive:$V" $args
        expect_grep "[Rr]ead-only file system" "$ERR"
    done
    expect_exit 3 "$REGTOOL" --store "hive:$TMPDIR/pristine" backup "$V/Windows/bk.ini"
    expect_exit 3 "$REGTOOL" hive recover "$C/SOFTWARE" -o "$V/Windows/rec.hive"
    expect_exit 3 "$REGTOOL" --store "hive:$V/Windows/Temp/new" init
    expect_same_tree "$T" "$TMPDIR/disk.state" "a writer changed the disk through its read-only view"
else
    echo "SKIP: hostile_mounts: a bind cannot be made read-only here"
fi
unmount_all

# A writer's --emit-reg into a read-only mount is refused before its
# change, nothing written (review 45 R45-4: the install was committed,
# then the patch refused).
fresh
mkdir -p "$TMPDIR/rofs"
if mount -t tmpfs -o ro,size=1m tmpfs "$TMPDIR/rofs" 2>/dev/null; then
    MOUNTS="$TMPDIR/rofs $MOUNTS"
    tree_state "$T" >"$TMPDIR/t.state"
    # shellcheck disable=SC2086
    expect_exit 3 "$REGTOOL" --store "hive:$T" install $CS --emit-reg "$TMPDIR/rofs/p.reg" "$INI"
    expect_grep "rofs is on a read-only file system: no file can be saved there; nothing was written" "$ERR"
    expect_same_tree "$T" "$TMPDIR/t.state" "install --emit-reg into a read-only mount changed the tree"
else
    echo "SKIP: hostile_mounts: a read-only tmpfs cannot be mounted here"
fi
unmount_all

# An --emit-reg the saving refuses for what no look at the folder tells
# (review 46 R46-2: each refused only after the install was committed):
# a full file system (the patch is written before the change, put in
# place after it: exit 3, nothing written, no temporary left), an
# immutable output, an append-only folder and a file mounted as the
# output (refused before: exit 3). Then, with room, the patch is there.
fresh
# (The writer's lock, taken before the patch is written, stays.)
TREE_IGNORE=regtool.lock
tree_state "$T" >"$TMPDIR/t.state"
mkdir -p "$TMPDIR/full"
if mount -t tmpfs -o size=32m tmpfs "$TMPDIR/full" 2>/dev/null; then
    MOUNTS="$TMPDIR/full $MOUNTS"
    dd if=/dev/zero of="$TMPDIR/full/fill" bs=4k count=8191 2>/dev/null
    # shellcheck disable=SC2086
    expect_exit 3 "$REGTOOL" --store "hive:$T" install $CS --emit-reg "$TMPDIR/full/p.reg" "$INI"
    expect_grep "cannot write .*p.reg: No space left on device; nothing was written" "$ERR"
    expect_same_tree "$T" "$TMPDIR/t.state" "install --emit-reg onto a full file system changed the tree"
    [ "$(ls "$TMPDIR/full")" = fill ] || fail "a full file system kept: $(ls "$TMPDIR/full")"
    rm "$TMPDIR/full/fill"
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" --store "hive:$T" install $CS --emit-reg "$TMPDIR/full/p.reg" "$INI"
    expect_grep "wrote the change to .*p.reg as a .reg patch" "$OUT"
    head -c 2 "$TMPDIR/full/p.reg" | od -An -tx1 | grep -q "ff fe" ||
        fail "the patch written with the change is not a .reg file"
    [ "$(ls "$TMPDIR/full")" = p.reg ] || fail "beside the patch: $(ls "$TMPDIR/full")"
else
    echo "SKIP: hostile_mounts: a small tmpfs cannot be mounted here"
fi
TREE_IGNORE=
unmount_all
fresh
tree_state "$T" >"$TMPDIR/t.state"
: >"$TMPDIR/imm.reg"
mkdir -p "$TMPDIR/ap"
if chattr +i "$TMPDIR/imm.reg" 2>/dev/null && chattr +a "$TMPDIR/ap" 2>/dev/null; then
    # shellcheck disable=SC2086
    expect_exit 3 "$REGTOOL" --store "hive:$T" install $CS --emit-reg "$TMPDIR/imm.reg" "$INI"
    expect_grep "imm.reg is immutable or append-only" "$ERR"
    # shellcheck disable=SC2086
    expect_exit 3 "$REGTOOL" --store "hive:$T" install $CS --emit-reg "$TMPDIR/ap/p.reg" "$INI"
    expect_grep "ap is immutable or append-only .*: no file can be saved there" "$ERR"
    chattr -i "$TMPDIR/imm.reg"
    chattr -a "$TMPDIR/ap"
    expect_same_tree "$T" "$TMPDIR/t.state" "install --emit-reg onto an immutable output changed the tree"
    # flag_refused FLAG FOLDER PATTERN WHAT: with chattr FLAG on FOLDER
    # (of the tree), install and its dry run exit 3, saying PATTERN, the
    # tree as it was.
    flag_refused() {
        tree_state "$T" >"$TMPDIR/t.state"
        chattr "+$1" "$T/$2"
        for run in --dry-run ""; do
            # shellcheck disable=SC2086
            expect_exit 3 "$REGTOOL" --store "hive:$T" install $CS $run "$INI"
            expect_grep "$3" "$ERR"
        done
        chattr "-$1" "$T/$2"
        expect_same_tree "$T" "$TMPDIR/t.state" "$4"
    }
    # An append-only config folder takes the journal but never lets it
    # go: refused before anything is written, the dry run too (review 49
    # R49-4: the commit passed its point, could not finish, and every
    # later writer stopped on it).
    # (The writer's lock, taken before, stays: a run's lock always does.)
    TREE_IGNORE=regtool.lock
    flag_refused a Windows/System32/config \
        "regtool.journal: .*config is immutable or append-only .*; nothing was written" \
        "install into an append-only config folder changed the tree"
    # Nor one the commit writes an INF copy below (review 51 R51-4: the
    # commit passed its point and stopped there).
    mkdir -p "$T/Windows/INF"
    flag_refused i Windows/INF \
        "INF/TransferPerf/0009/transfer.ini: .*INF is immutable or append-only .*; nothing was written" \
        "install below an immutable INF folder changed the tree"
    # Nor an immutable Windows folder the commit makes INF in (review 54
    # R54-5: the folder the way's first new folder goes in went unasked).
    rm -rf "$T/Windows/INF"
    flag_refused i Windows \
        "INF/TransferPerf/0009/transfer.ini: .*/Windows is immutable or append-only .*; nothing was written" \
        "install into an immutable Windows folder changed the tree"
    # A file the commit rewrites in place, immutable: refused by the dry
    # run as by the run (review 52 R52-6: the dry run said nothing).
    flag_refused i Windows/System32/PerfStringBackup.INI \
        "PerfStringBackup.INI.*immutable or append-only" \
        "install over an immutable PerfStringBackup.INI changed the tree"
    # The writer's lock, immutable: refused by the dry run as by the run
    # (review 53 R53-6: the dry run printed its plan).
    flag_refused i Windows/System32/config/regtool.lock \
        "regtool.lock is immutable or append-only .*: no writer can take it" \
        "install with an immutable lock changed the tree"
    TREE_IGNORE=
    rm "$T/Windows/System32/config/regtool.lock"
    # A reg: store's file, append-only, and its lock, immutable: the same.
    expect_exit 0 "$REGTOOL" --store "hive:$T" backup --format reg "$TMPDIR/st.reg"
    for f in a:st.reg i:st.reg.lock; do
        : >>"$TMPDIR/${f#*:}"
        cp "$TMPDIR/st.reg" "$TMPDIR/st.before"
        chattr "+${f%%:*}" "$TMPDIR/${f#*:}"
        for run in --dry-run ""; do
            # shellcheck disable=SC2086
            expect_exit 3 "$REGTOOL" --store "reg:$TMPDIR/st.reg" install $CS $run "$INI"
            expect_grep "${f#*:}.* is immutable or append-only" "$ERR"
        done
        chattr "-${f%%:*}" "$TMPDIR/${f#*:}"
        cmp -s "$TMPDIR/st.reg" "$TMPDIR/st.before" ||
            fail "install into a reg: store with ${f#*:} chattr +${f%%:*} changed it"
    done
else
    chattr -i "$TMPDIR/imm.reg" 2>/dev/null
    echo "SKIP: hostile_mounts: chattr +i and +a cannot be set here"
fi
: >"$TMPDIR/src.reg"
: >"$TMPDIR/bm.reg"
if mount --bind "$TMPDIR/src.reg" "$TMPDIR/bm.reg" 2>/dev/null; then
    MOUNTS="$TMPDIR/bm.reg $MOUNTS"
    # shellcheck disable=SC2086
    expect_exit 3 "$REGTOOL" --store "hive:$T" install $CS --emit-reg "$TMPDIR/bm.reg" "$INI"
    expect_grep "bm.reg is a mount point" "$ERR"
    expect_same_tree "$T" "$TMPDIR/t.state" "install --emit-reg onto a mounted file changed the tree"
else
    echo "SKIP: hostile_mounts: a file cannot be bind-mounted here"
fi
unmount_all
host_same
echo "hostile mounts: every crossing refused, the host untouched; a mounted root works"
