# Helpers for CLI tests: sourced by tests/cli/*.sh.
set -u
. tests/common.sh
# The CLI built with the test hooks (REGTOOL_FAULT_AFTER_WRITES,
# REGTOOL_SIGNAL_AT_WRITE: lib/commit/io_count.c), beside the product's
# build; the scripts that simulate crashes and signals run it.
REGTOOL_TESTING=${REGTOOL_TESTING:-$(dirname "$REGTOOL")/testing/regtool}
# What a program linked with the build's libregtool.a needs too: the
# sanitizers' runtime (SAN=1 builds: ASAN=1) or gcov's (COV=1 builds,
# make coverage and the mutation score's map of the lines each script
# runs).
# PLAIN: 1 on the plain build, whose peak memory and time the bounds
# of the hostile scripts are about (the others' are larger by design).
ASAN=0 SANFLAGS="" PLAIN=1
if ldd "$REGTOOL" 2>/dev/null | grep -q libasan; then
    ASAN=1 SANFLAGS="-fsanitize=address,undefined" PLAIN=0
elif nm "$REGTOOL" 2>/dev/null | grep -q __gcov_init; then
    SANFLAGS="--coverage" PLAIN=0
fi
# The drive the native Windows build (under Wine) shows before an
# absolute path it prints: /tmp/x is Z:/tmp/x there (tests/run-windows.sh).
DRIVE=
[ "${REGTOOL_WINDOWS:-}" != 1 ] || DRIVE=Z:
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

# peak LABEL BOUND_BYTES CMD...: CMD within BOUND_BYTES of peak RSS
# (checked on the plain build), exiting PEAK_EXIT when that is set, else
# 0 up to PEAK_EXIT_MAX (1 when unset: repair's warnings left).
# TIME: GNU time, which the script checked.
MB=1048576
peak() {
    label=$1 bound=$2
    shift 2
    "$TIME" -f %M -o "$TMPDIR/rss" "$@" >"$OUT" 2>"$ERR"
    got=$?
    if [ -n "${PEAK_EXIT:-}" ]; then
        [ "$got" -eq "$PEAK_EXIT" ]
    else
        [ "$got" -le "${PEAK_EXIT_MAX:-1}" ]
    fi || { tail -n 20 "$OUT" "$ERR" >&2; fail "$label: exit $got"; }
    kb=$(tail -n 1 "$TMPDIR/rss")
    printf '%s: peak RSS %s MB (bound %s MB)\n' "$label" $((kb / 1024)) \
        $((bound / MB))
    if [ "$PLAIN" = 1 ] && [ $((kb * 1024)) -gt "$bound" ]; then
        fail "$label: peak RSS $kb KB over $((bound / MB)) MB"
    fi
}
