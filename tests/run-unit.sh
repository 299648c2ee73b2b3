#!/bin/sh
# Runs each cmocka test binary (under valgrind when VALGRIND=1) from the
# repository root, so fixtures resolve as tests/fixtures/... and the shared
# samples as ../shared/samples.
passed=0; failed=0; failures=""
for t in "$@"; do
    if [ "${VALGRIND:-}" = 1 ]; then
        set -- valgrind -q --error-exitcode=99 --leak-check=full \
            --child-silent-after-fork=yes "$t"
    else
        set -- "$t"
    fi
    if "$@"; then passed=$((passed + 1)); else
        failed=$((failed + 1)); failures="$failures $(basename "$t")"
    fi
done
echo "unit test programs: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
