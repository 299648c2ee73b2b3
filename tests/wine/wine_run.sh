# Sourced by the Wine sweeps (tests/wine/crash_sweep*.sh), with $WINE64
# set by prefix.sh in run.sh.
# wine_run OUT ERR PROGRAM ARGS...: PROGRAM under wine64, its output in
# files OUT and ERR; its exit status. A run that fails without a word
# (any status but 99, the test hook's, and no output at all) is one Wine
# did not start: in a fresh debootstrap root about one launch in a
# thousand ends so, with status 1, before the program's first line. Such
# a run is made once more, and the retry said on stderr; regtool and the
# test helpers always say why they fail, so no failure of theirs is
# retried.
wine_run() {
    wr_out=$1 wr_err=$2
    shift 2
    wr_rc=0
    "$WINE64" "$@" >"$wr_out" 2>"$wr_err" || wr_rc=$?
    if [ "$wr_rc" -ne 0 ] && [ "$wr_rc" -ne 99 ] && [ ! -s "$wr_out" ] &&
        [ ! -s "$wr_err" ]; then
        echo "tests/wine: $(basename "$1") $2 exited $wr_rc without a word (Wine did not start it); run again" >&2
        wr_rc=0
        "$WINE64" "$@" >"$wr_out" 2>"$wr_err" || wr_rc=$?
    fi
    return "$wr_rc"
}
# wine_step PROGRAM ARGS...: PROGRAM's output, its messages on stderr;
# a failure names the step (a Wine process that dies without a word would
# otherwise end a sweep silently under set -e). Needs $scratch and fail
# (tests/common.sh).
wine_step() {
    wine_run "$scratch/step.out" "$scratch/step.err" "$@" ||
        fail "$(basename "$1") $2: exit $?: $(cat "$scratch/step.err")"
    cat "$scratch/step.err" >&2
    cat "$scratch/step.out"
}
