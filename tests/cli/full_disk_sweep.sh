# An install on a disk with N bytes free, for every N from "refused" to
# "fits", either refuses with nothing written or completes (docs/reference.md,
# "Choosing the database: stores": a commit that could not be finished is
# never started; a full disk gets exit 3, "free N bytes on the file system
# of DIR" and nothing written).
#
# The tree lies on a small tmpfs whose free space a filler file sets to N
# exactly. tmpfs gives space a page at a time, so every N that can differ
# is a multiple of 4096: the sweep finds the first N that fits, runs
# every page from 256 KB below it to 64 KB above it, and every 64th page
# below that, in both layouts. Each run either
# - exits 3 with the documented refusal, every file of the tree
#   byte-identical (diff -r: no file made, removed or changed), with its
#   size, blocks and modification time, and N bytes still free (the space
#   the commit reserved given back); or
# - exits 0 with the whole install: no journal, the INF copy equal to the
#   INI and its symbol file, names and query as a reference install on a
#   roomy disk gives them, PerfStringBackup.INI as the reference's, audit
#   as the reference's, and hivexget (an independent reader) finding the
#   new Last Counter in SOFTWARE and the service's First Counter in SYSTEM.
# Nothing else is allowed: an install that fails after its commit point
# (the INF copy written last, on a disk with too little room for it) is
# what this catches.
. tests/cli/lib.sh

CS="--create-service --library x.dll --open O --collect C --close X"
INI=ini-samples/transfer.ini
MNT=$TMPDIR/mnt
mkdir "$MNT"
cleanup() { umount "$MNT" 2>/dev/null; }
trap cleanup EXIT
PAGE=4096

free_bytes() { df -B1 --output=avail "$MNT" | tail -1 | tr -d ' '; }
# set_free N: the filler grown or shrunk until exactly N bytes are free.
set_free() {
    [ -e "$MNT/filler" ] || : >"$MNT/filler"
    size=$(stat -c %s "$MNT/filler")
    want=$((size + $(free_bytes) - $1))
    [ "$want" -ge 0 ] || fail "cannot free $1 bytes: the tree leaves less"
    if [ "$want" -lt "$size" ]; then truncate -s "$want" "$MNT/filler"
    elif [ "$want" -gt "$size" ]; then fallocate -l "$want" "$MNT/filler"
    fi
    [ "$(free_bytes)" -eq "$1" ] || fail "free space $(free_bytes), want $1"
}

# views TREE FILE: what names (both languages), query and audit say of
# TREE, with their exit statuses, the tree's path written as TREE.
views() {
    for v in "names --json" "names --json --lang 00C" "query --json" audit; do
        echo "== $v"
        # shellcheck disable=SC2086
        $REGTOOL --store "hive:$1" $v 2>&1
        echo "exit $?"
    done | sed "s|$1|TREE|g" >"$2"
}

fresh_copy() {
    rm -rf "$W" "$MNT/filler"
    cp -a "$PRISTINE" "$W"
    meta >"$TMPDIR/meta"
}
# meta: each file's size, blocks and modification time, the lock aside.
meta() {
    (cd "$W" && find . -type f ! -name regtool.lock -exec stat -c '%n %s %b %y' {} + | LC_ALL=C sort)
}

# try N: an install with N bytes free; returns 0 when it completed (the
# tree checked whole, then put back as it was), 1 when it was refused (the
# tree checked byte-identical); anything else fails the test.
try() {
    set_free "$1"
    # shellcheck disable=SC2086
    $REGTOOL --store "hive:$W" install $CS "$INI" >"$OUT" 2>"$ERR"
    rc=$?
    case $rc in
    3)
        expect_grep "No space left on device.*nothing was written.*free [0-9]* bytes on the file system of\|need [0-9]* bytes and [0-9]* are free; nothing was written: free [0-9]* bytes" "$ERR"
        # Byte for byte against the tree it was copied from (diff -r also
        # names a file or folder made or removed).
        diff -r --no-dereference "$PRISTINE" "$W" >&2 || fail "$layout: refused at $1 bytes free, but the tree changed (diff above)"
        # Nor is space kept: what the refused commit reserved past the
        # files' ends is given back, their times untouched (the lock
        # file, whose note a writer writes, aside), so the next N is
        # tried on the tree as it was.
        [ "$(free_bytes)" -eq "$1" ] || fail "$layout: refused at $1 bytes free, it left $(free_bytes) free"
        meta | diff "$TMPDIR/meta" - >&2 || fail "$layout: refused at $1 bytes free, the files' blocks or times changed (diff above)"
        return 1
        ;;
    0)
        [ ! -e "$W/Windows/System32/config/regtool.journal" ] || fail "$layout: a journal left at $1 bytes free"
        cmp -s "$INI" "$W/Windows/INF/TransferPerf/0009/transfer.ini" || fail "$layout: INF copy of the INI not whole at $1 free"
        cmp -s ini-samples/CounterOffsets.h "$W/Windows/INF/TransferPerf/0009/CounterOffsets.h" || fail "$layout: INF copy of the symbol file not whole at $1 free"
        cmp -s "$REF/Windows/System32/PerfStringBackup.INI" "$W/Windows/System32/PerfStringBackup.INI" || fail "$layout: PerfStringBackup.INI differs at $1 free"
        views "$W" "$TMPDIR/got"
        diff "$TMPDIR/views-$layout" "$TMPDIR/got" >&2 || fail "$layout: the database differs from the reference at $1 free (diff above)"
        got=$(hivexget "$W/Windows/System32/config/SOFTWARE" \
            '\Microsoft\Windows NT\CurrentVersion\Perflib' 'Last Counter') || fail "$layout: hivexget cannot read SOFTWARE"
        [ "$got" = "$last" ] || fail "$layout: hivexget reads Last Counter $got, want $last"
        got=$(hivexget "$W/Windows/System32/config/SYSTEM" \
            '\ControlSet001\Services\TransferPerf\Performance' 'First Counter') || fail "$layout: hivexget cannot read SYSTEM"
        [ "$got" = "$first" ] || fail "$layout: hivexget reads First Counter $got, want $first"
        fresh_copy
        return 0
        ;;
    esac
    cat "$OUT" "$ERR" >&2
    fail "$layout: install with $1 bytes free exited $rc, want 3 (refused) or 0"
}

# sweep LAYOUT: where the install starts to fit, found by bisection, then
# every page from WINDOW pages below that to 16 above, and every 64th
# page from 0 up to there: each refused with nothing written or complete,
# never a refusal above a fit.
WINDOW=64
sweep() {   # sweep LAYOUT SIZE: on a tmpfs of SIZE
    layout=$1
    mount -t tmpfs -o "size=$2" tmpfs "$MNT" || fail "cannot mount a tmpfs"
    REF=$TMPDIR/ref-$layout
    PRISTINE=$TMPDIR/pristine-$layout
    expect_exit 0 $REGTOOL --store "hive:$PRISTINE" init --languages 009,00C --layout "$layout"
    : >"$PRISTINE/Windows/System32/config/regtool.lock"
    cp -a "$PRISTINE" "$REF"
    # shellcheck disable=SC2086
    expect_exit 0 $REGTOOL --store "hive:$REF" install $CS "$INI"
    views "$REF" "$TMPDIR/views-$layout"
    last=$(hivexget "$REF/Windows/System32/config/SOFTWARE" \
        '\Microsoft\Windows NT\CurrentVersion\Perflib' 'Last Counter')
    first=$(grep -o '"name":"TransferPerf"[^}]*' "$TMPDIR/views-$layout" |
        grep -o '"first_counter":[0-9]*' | cut -d: -f2)
    [ -n "$first" ] || fail "$layout: no First Counter in the reference's query"
    W=$MNT/w
    fresh_copy
    lo=0
    try 0 && fail "$layout: the install fits with no byte free"
    rm -f "$MNT/filler"
    hi=$(( $(free_bytes) / PAGE ))
    try $((hi * PAGE)) || fail "$layout: the install does not fit in $((hi * PAGE)) bytes"
    while [ $((hi - lo)) -gt 1 ]; do
        mid=$(( (lo + hi) / 2 ))
        if try $((mid * PAGE)); then hi=$mid; else lo=$mid; fi
    done
    from=$((hi - WINDOW)); [ "$from" -ge 0 ] || from=0
    refused=0; fits=0
    n=0
    while [ "$n" -lt "$from" ]; do
        try $((n * PAGE)) && fail "$layout: fits at $((n * PAGE)) bytes free, refused at $((lo * PAGE))"
        refused=$((refused + 1)); n=$((n + 64))
    done
    n=$from
    while [ "$n" -le $((hi + 16)) ]; do
        if try $((n * PAGE)); then
            [ "$n" -ge "$hi" ] || fail "$layout: fits at $((n * PAGE)) bytes free, refused at $((lo * PAGE))"
            fits=$((fits + 1))
        else
            [ "$n" -lt "$hi" ] || fail "$layout: refused at $((n * PAGE)) bytes free, fitted at $((hi * PAGE))"
            refused=$((refused + 1))
        fi
        n=$((n + 1))
    done
    umount "$MNT"
    echo "$layout: fits from $((hi * PAGE)) bytes free; $refused runs refused with nothing written, $fits complete"
}

sweep registry 12m
sweep files 20m
