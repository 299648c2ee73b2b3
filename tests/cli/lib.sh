# Helpers for CLI tests: sourced by tests/cli/*.sh.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
# The CLI built with the test hooks (REGTOOL_FAULT_AFTER_WRITES,
# REGTOOL_SIGNAL_AT_WRITE: lib/commit/io_count.c), beside the product's
# build; the scripts that simulate crashes and signals run it.
REGTOOL_TESTING=${REGTOOL_TESTING:-$(dirname "$REGTOOL")/testing/regtool}
# expect_exit CODE CMD...: runs CMD, stdout to $OUT, stderr to $ERR.
OUT=$TMPDIR/out; ERR=$TMPDIR/err
expect_exit() {
    want=$1; shift
    "$@" >"$OUT" 2>"$ERR"; got=$?
    [ "$got" -eq "$want" ] || { cat "$OUT" "$ERR" >&2; fail "$* exited $got, want $want"; }
}
expect_grep() { grep -q -- "$1" "$2" || { cat "$2" >&2; fail "no '$1' in $2"; }; }
# hold_lock -s|-x FILE [SECONDS]: a background process that holds FILE's
# flock (shared or exclusive) itself, for SECONDS (60) at most; its pid in
# $holder once it holds it. Killing it lets go at once (flock(1) CMD would
# leave CMD, a child that outlives the kill, holding the lock).
hold_lock() {
    sh -c 'exec 9>>"$2" && flock "$1" 9 && exec sleep "$3"' sh "$1" "$2" "${3:-60}" &
    holder=$!
    # Until it holds it: an exclusive try fails from then on (a fixed
    # sleep is too short on a loaded machine).
    _i=0
    while flock -n -x "$2" true; do
        _i=$((_i + 1))
        [ $_i -le 600 ] || fail "the background flock never took $2"
        sleep 0.05
    done
}
# tree_state DIR: every file, directory, link and other node under DIR,
# one per line as "WHAT ./PATH" sorted by path: a file's WHAT is its
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
    _ts_files=$(mktemp) || fail "tree_state: no temporary file"
    (cd "$1" && {
        # One pass: every node but the small files printed, those listed
        # (NUL-separated) for one cksum.
        find . ${TREE_IGNORE:+-name "$TREE_IGNORE" -prune -o} \
            \( -type d -printf 'dir %p\n' \) -o \
            \( -type l -printf 'link %p -> %l\n' \) -o \
            \( -type f -size +65536k -printf 'big:%s:%T@:%b %p\n' \) -o \
            \( -type f -fprint0 "$_ts_files" \) -o -printf '%y %p\n'
        xargs -0 -r cksum <"$_ts_files" | sed 's/^\([0-9]*\) \([0-9]*\) /crc:\1:\2 /'
    } | LC_ALL=C sort -k2)
    _ts_rc=$?
    rm -f "$_ts_files"
    [ "$_ts_rc" -eq 0 ] || fail "tree_state: cannot read $1"
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

# perflib_set HIVE NAME=VALUE...: the SOFTWARE HIVE's Perflib DWORD values (spaces in NAME
# written as _), the others kept: hivexsh's setval replaces all of a key's
# values.
perflib_set() {
    _sw=$1; shift
    _pl="/Microsoft/Windows NT/CurrentVersion/Perflib"
    reglookup -H -p "$_pl" "$_sw" |
        awk -F, -v p="$_pl/" -v set="$*" '
            BEGIN { n = split(set, a, " ")
                    for (k = 1; k <= n; k++) {
                        split(a[k], kv, "="); gsub(/_/, " ", kv[1]); v[kv[1]] = kv[2] } }
            index($1, p) == 1 && $2 != "KEY" {
                name = substr($1, length(p) + 1)
                if (name ~ /\//) next
                if ($2 != "DWORD") { print "not a DWORD: " $1 > "/dev/stderr"; bad = 1; exit }
                names[++m] = name
                val[m] = (name in v) ? sprintf("0x%x", v[name]) : $3 }
            END { if (bad) exit 1
                  print "cd \\Microsoft\\Windows NT\\CurrentVersion\\Perflib"
                  print "setval " m
                  for (k = 1; k <= m; k++) { print names[k]; print "dword:" val[k] }
                  print "commit" }
        ' >"$TMPDIR/hivexsh.in" || fail "perflib_set: cannot list Perflib"
    hivexsh -w "$_sw" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not set $*"
}
