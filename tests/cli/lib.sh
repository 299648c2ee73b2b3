# Helpers for CLI tests: sourced by tests/cli/*.sh.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_exit CODE CMD...: runs CMD, stdout to $OUT, stderr to $ERR.
OUT=$TMPDIR/out; ERR=$TMPDIR/err
expect_exit() {
    want=$1; shift
    "$@" >"$OUT" 2>"$ERR"; got=$?
    [ "$got" -eq "$want" ] || { cat "$OUT" "$ERR" >&2; fail "$* exited $got, want $want"; }
}
expect_grep() { grep -q -- "$1" "$2" || { cat "$2" >&2; fail "no '$1' in $2"; }; }
# tree_state DIR: every file and directory under DIR, with each file's
# sha256, one per line: equal output means nothing was written, created or
# removed there.
tree_state() {
    (cd "$1" && find . | LC_ALL=C sort | while IFS= read -r f; do
        if [ -f "$f" ]; then echo "$(sha256sum <"$f" | cut -c1-64) $f"
        else echo "dir $f"; fi
    done)
}
# expect_same_tree DIR FILE: DIR is exactly as tree_state saved it in FILE.
expect_same_tree() {
    tree_state "$1" | diff "$2" - >&2 || fail "$1 changed (diff above)"
}
