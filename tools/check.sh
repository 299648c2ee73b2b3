#!/bin/sh
# make check: the builds the first suites need, then every suite once
# where once is enough, each stage timed, the times printed at the end
# with the whole.
#
#   builds      the plain library, CLI, test programs and bench tools in
#               one make -j; beside it the sanitizer build (ASan+UBSan,
#               build/san), as a second make
#   then the stages below, two at a time (the CLI scripts spend much of
#   their time waiting on fsync and child processes; the others compute,
#   the later builds among them, which so fill that time instead of
#   delaying the first suites): each of two workers takes the next stage
#   of the list as soon as its last one ends, the longest first, so that
#   both end at about the same time whatever each stage's cost becomes:
#   cli-san        every CLI script but PLAIN_ONLY on the sanitizer build
#   unit-valgrind  the unit test programs under valgrind: their plain run
#                  and memcheck's in one
#   cli-plain      on the plain build: the scripts whose bounds only it
#                  shows (peak RSS and full sizes are not measured under
#                  AddressSanitizer: PLAIN_BOUNDS, which run on both), and
#                  PLAIN_ONLY: the crash sweeps, which run the CLI
#                  thousands of times to judge the files each crash
#                  leaves (the commit and recovery code they drive runs
#                  under the sanitizers in interrupt_commit.sh,
#                  hostile_journal.sh and the journal's unit tests), the
#                  benchmark harness's two checks, whose subject is the
#                  plain build, and the product's own checks (make
#                  install, the shared library, which is never sanitized,
#                  no test hooks), and the allocation failures of a
#                  preloaded allocator (AddressSanitizer's would bypass it)
#   fuzz           the harnesses (clang) and their seeds built, then each
#                  harness's regressions and FUZZ_SECONDS (10) of fuzzing
#                  (make fuzz runs longer), one at a time
#   windows        the native Windows build and its test programs under
#                  wine64, the NSIS plugin (tests/nsis/run.sh), the zip
#   unit-san       the unit test programs under the sanitizers
#   wine           the Wine build, the win32 store and the CLI under Wine
#                  (wine.mk)
#   valgrind-cli   a CLI round trip with every run under valgrind
# A stage's output is printed whole when all have ended; after a failed
# stage no new one starts, and make check fails naming it.
#   sh tools/check.sh       (from the Makefile's check target, after deps)
# CHECK_JOBS: make -j and the programs run at once (default: the cores).
set -u
cd "$(dirname "$0")/.." || exit 2
JOBS=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}
MAKE=${MAKE:-make}
PLAIN_BOUNDS="hostile_memory hostile_memory_ini hostile_inputs hostile_logs hostile_scale"
PLAIN_ONLY="crash_sweep crash_sweep_verbs full_disk_sweep crash_side_files
bench_smoke bench_bytes api_library make_install no_test_hooks
check_ini_out_of_memory"
# The scripts of cli-san and cli-plain (paths), from those names.
san_scripts() {
    for f in tests/cli/*.sh; do
        b=$(basename "$f" .sh)
        [ "$b" = lib ] && continue
        case " $(echo $PLAIN_ONLY) " in *" $b "*) continue ;; esac
        echo "$f"
    done
}
plain_scripts() {
    for b in $PLAIN_BOUNDS $PLAIN_ONLY; do
        [ -f "tests/cli/$b.sh" ] || { echo "check: no tests/cli/$b.sh" >&2; exit 2; }
        echo "tests/cli/$b.sh"
    done
}
LOGS=build/check
rm -rf "$LOGS" && mkdir -p "$LOGS" || exit 2
all_start=$(date +%s)

# cpu_seconds FILE: the CPU seconds (user and system) of the children
# line of `times` output kept in FILE. `times` itself must run in the
# stage's own shell (in a command substitution it would report a forked
# shell, which has no children yet).
cpu_seconds() {
    awk 'NR == 2 { n = 0
        for (i = 1; i <= 2; i++) { split($i, p, "m"); n += p[1] * 60 + p[2] }
        printf "%d", n }' "$1"
}

# stage NAME CMD...: CMD's output in $LOGS/NAME.log, its wall time in
# $LOGS/NAME.time, the CPU it took in $LOGS/NAME.cpu (which the other
# stage's load does not stretch: the stage's own cost), its status in
# $LOGS/NAME.rc.
stage() {
    name=$1; shift
    start=$(date +%s)
    times >"$LOGS/$name.cpu0"
    echo "== make check: $name started"
    "$@" >"$LOGS/$name.log" 2>&1
    rc=$?
    echo $(( $(date +%s) - start )) >"$LOGS/$name.time"
    times >"$LOGS/$name.cpu1"
    echo $(( $(cpu_seconds "$LOGS/$name.cpu1") - $(cpu_seconds "$LOGS/$name.cpu0") )) >"$LOGS/$name.cpu"
    echo "$rc" >"$LOGS/$name.rc"
    if [ "$rc" -eq 0 ]; then
        echo "== make check: $name passed ($(cat "$LOGS/$name.time") s)"
    else
        echo "== make check: $name FAILED (exit $rc, $(cat "$LOGS/$name.time") s)"
    fi
    return "$rc"
}
show() {
    for s in "$@"; do
        [ -f "$LOGS/$s.log" ] || continue
        echo; echo "======== $s"; cat "$LOGS/$s.log"
    done
}

san_build() {
    $MAKE -j"$JOBS" WERROR=1 BUILD=build/san SAN=1 check-programs
}
plain_build() {
    $MAKE -j"$JOBS" WERROR=1 check-programs
}
builds() {
    plain_build >"$LOGS/build-plain.log" 2>&1 & p=$!
    san_build >"$LOGS/build-san.log" 2>&1 & q=$!
    rp=0; rq=0
    wait $p || rp=$?
    wait $q || rq=$?
    cat "$LOGS/build-plain.log" "$LOGS/build-san.log"
    [ "$rp" -eq 0 ] && [ "$rq" -eq 0 ]
}
stage builds builds || { show builds; exit 1; }

STAGES="cli-san unit-valgrind cli-plain fuzz windows unit-san wine valgrind-cli"
run_stage() {
    case $1 in
    cli-san)
        stage cli-san $MAKE WERROR=1 BUILD=build/san SAN=1 cli-tests \
            CLI_SCRIPTS="$(echo $(san_scripts))" ;;
    unit-valgrind) stage unit-valgrind $MAKE WERROR=1 valgrind-unit ;;
    cli-plain)
        stage cli-plain $MAKE WERROR=1 cli-tests \
            CLI_SCRIPTS="$(echo $(plain_scripts))" ;;
    fuzz)
        stage fuzz $MAKE -j"$JOBS" WERROR=1 fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-10}" ;;
    windows)
        stage windows sh -c "$MAKE -j$JOBS WERROR=1 windows-build &&
            : >'$LOGS/windows.built' && $MAKE WERROR=1 windows-check" ;;
    unit-san) stage unit-san $MAKE WERROR=1 BUILD=build/san SAN=1 unit ;;
    wine)
        # The wine stage runs the native build too (and links its
        # library): made by the windows stage, taken earlier, and waited
        # for here, never made by two makes at once.
        until [ -f "$LOGS/windows.built" ] || [ -f "$LOGS/windows.rc" ]; do
            sleep 1
        done
        stage wine $MAKE -j"$JOBS" WERROR=1 wine-check ;;
    valgrind-cli) stage valgrind-cli $MAKE WERROR=1 valgrind-cli ;;
    esac
}
# take: the next stage of $LOGS/queue (removed from it), or nothing when
# it is empty or a stage failed. mkdir is the lock: atomic, in any sh.
take() {
    until mkdir "$LOGS/queue.lock" 2>/dev/null; do sleep 0.1; done
    if [ ! -f "$LOGS/failed" ]; then
        next=$(head -n 1 "$LOGS/queue")
        tail -n +2 "$LOGS/queue" >"$LOGS/queue.new"
        mv "$LOGS/queue.new" "$LOGS/queue"
        echo "$next"
    fi
    rmdir "$LOGS/queue.lock"
}
worker() {
    while next=$(take) && [ -n "$next" ]; do
        run_stage "$next" || : >"$LOGS/failed"
    done
}
printf '%s\n' $STAGES >"$LOGS/queue"
worker & a=$!
worker & b=$!
wait $a; wait $b

show $STAGES
echo
echo "make check: the stages' times (seconds: wall, then CPU; two stages ran at"
echo "once on $JOBS cores, so the wall times overlap and the CPU times add up):"
failed=""; cpu_all=0
for s in builds $STAGES; do
    if [ -f "$LOGS/$s.rc" ]; then
        rc=$(cat "$LOGS/$s.rc")
        if [ "$rc" -eq 0 ]; then st=passed; else st="FAILED (exit $rc)"; failed="$failed $s"; fi
        cpu=$(cat "$LOGS/$s.cpu"); cpu_all=$((cpu_all + cpu))
        printf '  %-14s %5s %5s  %s\n' "$s" "$(cat "$LOGS/$s.time")" "$cpu" "$st"
    else
        printf '  %-14s %5s %5s  %s\n' "$s" - - "not run (an earlier stage failed)"
        failed="$failed $s"
    fi
done
total=$(( $(date +%s) - all_start ))
printf 'make check: %d min %02d s in all, %d s of CPU\n' $((total / 60)) $((total % 60)) "$cpu_all"
if [ -n "$failed" ]; then
    echo "make check: FAILED:$failed"
    exit 1
fi
echo "make check: passed"
