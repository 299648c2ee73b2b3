#!/bin/sh
# Runs each cmocka test binary (under valgrind when VALGRIND=1) from the
# repository root, so fixtures resolve as tests/fixtures/... and the shared
# samples as ../shared/samples. UNIT_JOBS programs run at once (default:
# the machine's processors; each makes its own scratch directories), the
# next starting as soon as any one ends, and each one's output is printed
# whole, in the order given, then the slowest programs' times.
jobs=${UNIT_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# A program that hangs (a lock waited for without end, a loop a bug made
# endless) fails after UNIT_TIMEOUT seconds rather than stalling the run.
limit=${UNIT_TIMEOUT:-600}
case $limit in '' | *[!0-9]* | 0) limit=600 ;; esac
export limit

# One program: N TEST, its output into $logs/N.out, its exit status into
# $logs/N.rc, its wall time and the CPU it and its children used (which
# the machine's load does not stretch), in seconds, into $logs/N.time.
run_one='logs=$1; n=$2; t=$3
    start=$(date +%s)
    if [ "${VALGRIND:-}" = 1 ]; then
        set -- valgrind -q --error-exitcode=99 --leak-check=full \
            --child-silent-after-fork=yes "$t"
    else
        set -- "$t"
    fi
    set -- timeout -k 10 "$limit" "$@"
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "%U %S" -o "$logs/$n.cpu" "$@" >"$logs/$n.out" 2>&1
    else
        "$@" >"$logs/$n.out" 2>&1
    fi
    rc=$?
    [ "$rc" -ne 124 ] ||
        echo "$(basename "$t"): still running after $limit s: stopped (a hang?)" >>"$logs/$n.out"
    echo $rc >"$logs/$n.rc"
    cpu=$(awk "END { printf \"%d\", \$1 + \$2 }" "$logs/$n.cpu" 2>/dev/null)
    echo "$(( $(date +%s) - start )) ${cpu:--} $(basename "$t")" >"$logs/$n.time"'

n=0
for t in "$@"; do
    n=$((n + 1))
    printf '%s %s\n' "$n" "$t"
done | xargs -P "$jobs" -L 1 sh -c "$run_one" sh "$logs"

passed=0; failed=0; failures=""; n=0
for t in "$@"; do
    n=$((n + 1))
    cat "$logs/$n.out"
    if [ "$(cat "$logs/$n.rc" 2>/dev/null)" = 0 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); failures="$failures $(basename "$t")"
    fi
done
# The slowest, so that the time a change adds shows where it went.
if [ $# -gt 1 ]; then
    echo "unit test programs: the slowest (seconds: each program's wall time, then"
    echo "the CPU it used):"
    cat "$logs"/*.time 2>/dev/null | sort -rn | head -8 | sed 's/^/    /'
fi
echo "unit test programs: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
