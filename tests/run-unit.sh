#!/bin/sh
# Runs each cmocka test binary (under valgrind when VALGRIND=1) from the
# repository root, so fixtures resolve as tests/fixtures/... and the shared
# samples as ../shared/samples. UNIT_JOBS programs run at once (default:
# the machine's processors; each makes its own scratch directories), and
# each one's output is printed whole, in the order given.
jobs=${UNIT_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# run_one N TEST: TEST's output into $logs/N.out, its exit status into
# $logs/N.rc.
run_one() {
    if [ "${VALGRIND:-}" = 1 ]; then
        valgrind -q --error-exitcode=99 --leak-check=full \
            --child-silent-after-fork=yes "$2" >"$logs/$1.out" 2>&1
    else
        "$2" >"$logs/$1.out" 2>&1
    fi
    echo $? >"$logs/$1.rc"
}

n=0
for t in "$@"; do
    n=$((n + 1))
    run_one "$n" "$t" &
    # At most $jobs running: wait for the oldest before starting more.
    if [ "$n" -ge "$jobs" ]; then
        while [ ! -f "$logs/$((n - jobs + 1)).rc" ]; do
            sleep 0.1
        done
    fi
done
wait

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
echo "unit test programs: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
