# The shell helpers every test script shares, the CLI scripts
# (tests/cli/lib.sh sources this file) and the Wine ones (tests/wine/) alike.
# Sourced from the repository root.

# fail MESSAGE: says why on stderr, prefixed with $FAIL_WHO (FAIL), and
# ends the script.
fail() { echo "${FAIL_WHO:-FAIL}: $*" >&2; exit 1; }

# tree_state DIR [FIND-TEST...]: every file, directory, link and other
# node under DIR (only those that pass the find tests, when given), one
# per line as "WHAT ./PATH" sorted by path: a file's WHAT is its
# CRC-32 and size (crc:C:S), a directory's "dir", a link's "link" (its
# target after the path), another node's its find type letter. Equal
# output means nothing was written, created or removed there. A test's
# tree changes by accident, never by an adversary's choice: a CRC-32 with
# the size shows any such change, and one cksum over every file hashes a
# tree of 24,000 tables or a sweep's hives twenty times faster than
# sha256sum (the crash sweeps take thousands of states). A file over 64 MB
# (the sparse caps of the hostile tests) counts by its size, time and
# blocks ("big:S:T:B") rather than by gigabytes of zeros. TREE_IGNORE
# names a file left out wherever it is (regtool.lock: a reader may create
# the lock file).
tree_state() {
    _ts_dir=$1; shift
    [ $# -gt 0 ] || set -- -true
    _ts_files=$(mktemp) || fail "tree_state: no temporary file"
    (cd "$_ts_dir" && {
        # One pass: every node but the small files printed, those listed
        # (NUL-separated) for one cksum.
        find . ${TREE_IGNORE:+-name "$TREE_IGNORE" -prune -o} \( "$@" \) \( \
            \( -type d -printf 'dir %p\n' \) -o \
            \( -type l -printf 'link %p -> %l\n' \) -o \
            \( -type f -size +65536k -printf 'big:%s:%T@:%b %p\n' \) -o \
            \( -type f -fprint0 "$_ts_files" \) -o -printf '%y %p\n' \)
        xargs -0 -r cksum <"$_ts_files" | sed 's/^\([0-9]*\) \([0-9]*\) /crc:\1:\2 /'
    } | LC_ALL=C sort -k2)
    _ts_rc=$?
    rm -f "$_ts_files"
    [ "$_ts_rc" -eq 0 ] || fail "tree_state: cannot read $_ts_dir"
}
# expect_same_tree DIR FILE [WHAT]: DIR is exactly as tree_state saved it
# in FILE; else fails saying WHAT (default: DIR changed) and the diff.
expect_same_tree() {
    tree_state "$1" | diff "$2" - >&2 || fail "${3:-$1 changed} (diff above)"
}

# hive_xml HIVE: the hive's keys and values as hivexml reads them (values
# over 1 MB whole, where reglookup stops), without the times and the
# byte offsets a rewrite changes: equal output, equal content.
hive_xml() {
    hivexml "$1" >"$TMPDIR/hive.xml" || fail "hivexml cannot read $1"
    sed -e 's/<mtime>[^<]*<\/mtime>//g' \
        -e 's/<byte_runs>\(<byte_run [^>]*\/>\)*<\/byte_runs>//g' "$TMPDIR/hive.xml"
}

# sweep_outcome GOT BEFORE AFTER LABEL: a crash sweep's state GOT (a
# file) is the state BEFORE the change (old: counted in $old) or the one
# AFTER it (new: $new), as $outcome says; any other state fails, with
# the difference from BEFORE.
sweep_outcome() {
    if cmp -s "$1" "$2"; then
        old=$((old + 1)); outcome=old
    elif cmp -s "$1" "$3"; then
        new=$((new + 1)); outcome=new
    else
        diff "$2" "$1" | head -40 >&2 || true
        fail "$4: the state is neither the one before nor the one after the change (diff above)"
    fi
}
