#!/bin/sh
# Runs each tests/cli/*.sh, or the scripts named after it, against the
# regtool binary given as $1. Each script gets REGTOOL, a scratch TMPDIR
# of its own, and SHARED. Scripts run CLI_JOBS at a time (default: the
# machine's cores): most of their time is spent waiting on fsync and
# child processes, not computing. The longest start first, so that the
# last to finish is not one started late; the two that run make in the
# build directory run after the others, one at a time.
REGTOOL=$1; export REGTOOL
shift
[ $# -gt 0 ] || set -- tests/cli/*.sh
SHARED=${SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/shared}; export SHARED
JOBS=${CLI_JOBS:-$(nproc 2>/dev/null || echo 2)}
results=$(mktemp -d)
suite_start=$(date +%s)
slow=" crash_sweep.sh crash_sweep_verbs.sh concurrent.sh bad_catalog.sh
       hostile_inputs.sh crash_side_files.sh backup_restore_real.sh
       full_disk_sweep.sh provider_corpus.sh "
alone=" make_install.sh api_library.sh "
in_list() { case "$(echo $2)" in *" $1 "*|"$1 "*|*" $1"|"$1") return 0 ;; esac; return 1; }

run_one='s=$1; r=$2; name=$(basename "$s" .sh)
    scratch=$(mktemp -d)
    start=$(date +%s)
    if TMPDIR=$scratch /usr/bin/time -f "%U %S" -o "$r/$name.cpu" \
        sh "$s" >"$r/$name.log" 2>&1; then
        : >"$r/$name.pass"
    fi
    cpu=$(awk "{ s += \$1 + \$2 } END { printf \"%d\", s + 0.5 }" "$r/$name.cpu" 2>/dev/null)
    echo "$(( $(date +%s) - start )) ${cpu:-?} $name.sh" >"$r/$name.time"
    rm -rf "$scratch"'

for s in "$@"; do
    b=$(basename "$s")
    [ "$b" = lib.sh ] && continue
    in_list "$b" "$slow" && echo "$s"
done >"$results/order"
for s in "$@"; do
    b=$(basename "$s")
    [ "$b" = lib.sh ] && continue
    in_list "$b" "$slow" || in_list "$b" "$alone" || echo "$s"
done >>"$results/order"
xargs -P "$JOBS" -I{} sh -c "$run_one" sh {} "$results" <"$results/order"
for s in "$@"; do
    in_list "$(basename "$s")" "$alone" && sh -c "$run_one" sh "$s" "$results"
done

passed=0; failed=0; failures=""
for s in "$@"; do
    name=$(basename "$s" .sh)
    [ "$name" = lib ] && continue
    if [ -e "$results/$name.pass" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); failures="$failures $name.sh"
        echo "--- $s"; cat "$results/$name.log" 2>/dev/null
    fi
done
# The slowest scripts, so that the time a change adds shows where it went.
echo "cli tests: the slowest (seconds: each script's wall time, then the CPU"
echo "it and its children used, which the machine's load does not stretch):"
cat "$results"/*.time 2>/dev/null | sort -rn | head -n "${CLI_SLOWEST:-8}" | sed 's/^/    /'
echo "cli tests: $(( $(date +%s) - suite_start )) s in all, $JOBS at a time;" \
    "$(cat "$results"/*.time 2>/dev/null | awk '{ s += $2 } END { print s + 0 }') s of CPU"
rm -rf "$results"
echo "cli tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
