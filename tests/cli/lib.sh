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
