#!/bin/sh
# Runs the libFuzzer harnesses built in build/fuzz/: first every input kept
# in tests/fuzz/regressions/<harness>/ (each once: a bug found before must
# stay fixed), then SECONDS of fuzzing from the seeds (tests/fuzz/seeds.sh,
# run by make) and the corpus grown by earlier runs, with the
# harness's dictionary. One harness at a time, so two cores shared with
# others are not taken over. Fails when any harness crashes, leaks, hits
# undefined behaviour, times out or runs out of memory; the input is then
# in build/fuzz/artifacts/<harness>/ and the log in build/fuzz/logs/.
#   sh tests/fuzz/run.sh SECONDS HARNESS...
set -u
SECONDS_EACH=$1
shift
F=build/fuzz
TOP=$(pwd)

[ -f "$F/seeds/.done" ] || { echo "fuzz: no seeds: make fuzz makes them" >&2; exit 1; }

# Longest input each harness is given: hives and their logs are large
# (the samples' NTUSER.DAT is 1 MB, UsrClass.dat with its logs 3.8 MB).
max_len() {
    case $1 in
    hive) echo 1048576 ;;
    log_replay) echo 4194304 ;;
    # Text formats: the real backups and exports (up to 14 MB) are cut;
    # what breaks a line parser shows in far less, and runs faster.
    perf_backup | reg_file) echo 262144 ;;
    multi_sz) echo 131072 ;;
    # A whole tree: the seeds are trees of 20 to 45 KB (seeds.sh).
    tree) echo 131072 ;;
    *) echo 65536 ;;
    esac
}

# The harnesses write only under TMPDIR (fuzz_ini's two files, fuzz_tree's
# tree): a scratch directory removed at the end.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/regtool-fuzz.XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
# Symbolized stacks in the logs, and UBSan stops at the first report.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

failed=""
for h in "$@"; do
    bin=$TOP/$F/fuzz_$h
    # Each run starts from the seeds: a corpus kept across runs of
    # megabyte hives and logs would grow by gigabytes.
    rm -rf "$F/corpus/$h"
    mkdir -p "$F/logs" "$F/corpus/$h" "$F/artifacts/$h"
    log=$F/logs/$h.log
    common="-rss_limit_mb=2048 -timeout=10 -max_len=$(max_len "$h")"
    common="$common -artifact_prefix=$TOP/$F/artifacts/$h/"
    dict=""
    [ -f "tests/fuzz/dict/$h.dict" ] && dict="-dict=tests/fuzz/dict/$h.dict"

    regs=$(find "tests/fuzz/regressions/$h" -type f 2>/dev/null | sort)
    if [ -n "$regs" ]; then
        # shellcheck disable=SC2086
        if ! "$bin" $common $regs >"$log.regressions" 2>&1; then
            echo "fuzz: $h: a regression input fails again (log: $log.regressions)"
            tail -n 30 "$log.regressions"
            failed="$failed $h"
            continue
        fi
        echo "fuzz: $h: $(echo "$regs" | wc -l) regression inputs pass"
    fi

    # shellcheck disable=SC2086
    "$bin" $common $dict -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
        "$F/corpus/$h" "$F/seeds/$h" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    if [ $rc -ne 0 ]; then
        echo "fuzz: $h: FAILED after ${execs:-?} executions (log: $log)"
        grep -E '^(==|SUMMARY|.*runtime error|.*property failed|artifact_prefix|Test unit written)' "$log" | head -n 20
        failed="$failed $h"
    else
        echo "fuzz: $h: ${SECONDS_EACH} s, $execs executions, corpus $(ls "$F/corpus/$h" | wc -l) inputs"
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz: failed:$failed"
    exit 1
fi
