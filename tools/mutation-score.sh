#!/bin/sh
# make mutation-score: mutants generated at random places of lib/ and
# regtool/ (tools/mutation-points.awk: relational, arithmetic, off-by-one,
# logical, ignored call result, constant, deleted statement), each built
# in a scratch copy of the tree (never in this one) and run against the
# fast suites until one test fails. Not part of make check.
#   SEED=N       the random choice of mutants (default: today, %Y%m%d);
#                the same seed on the same awk gives the same mutants
#   MUTANTS=N    how many mutants that build and differ from the original
#                are run (default 60); compile failures and equivalent
#                mutants (object code byte-identical to the original's,
#                debug sections aside) are counted apart
#   TIMEOUT=S    per mutant, for its tests (default: 3 times the
#                unmutated suite's time, at least 60 s): a mutant still
#                running then is killed by timeout (counted killed, listed
#                apart)
#   JOBS=N       make -j and the test programs run at once (default 2)
#   SCRATCH=DIR  where the copy is built (default build/mutation): kept
#                from one run to the next, so that only what changed is
#                rebuilt
#   EQUIVALENTS=FILE  mutants reviewed and found equivalent (default
#                tools/equivalent-mutants.txt): a survivor listed there,
#                by its file, class, change and the source line it
#                changes (not its line number, which edits elsewhere
#                move), is counted with the equivalent mutants, and its
#                reason printed; a listed mutant a test kills counts
#                killed (the review was wrong: the run says so)
#   MAP=0|1      after the fast suites, the CLI scripts of make check
#                that run the mutant's line, as a gcov build found them
#                (tools/test-map.sh; default 1): made once per tree and
#                kept in SCRATCH/map, about as long as make check's CLI
#                scripts take
#   EXTRA=S      of those scripts, the fastest while their time in all
#                (on the gcov build) stays within S seconds (default 150)
#   LEAKS=0|1    the unit test programs linked with LeakSanitizer alone
#                (default 1; -fsanitize=leak at link time: the objects
#                are the same, a leak at exit fails the program)
# Run as root, the tests run as nobody (setpriv, or runuser): a mutant of
# the platform layer can then change no file of the system (one that
# chmod'ed its argument once made /dev/null 0600). They write only to a
# private TMPDIR (owned by nobody, also their HOME); the tree and its
# builds, made by root, they only read.
# The suites: the unit test programs (for a lib/ mutant), then the CLI
# scripts of CLI_SCRIPTS (both, for a regtool/ mutant: the CLI scripts
# only), fastest first, then the other CLI scripts that run its line
# (MAP). Prints each mutant as it goes, then the compile
# failures, the equivalent mutants, those killed by timeout and every
# survivor (file:line, class, the change), and last:
#   mutation score: K/N killed (P%)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$(cd "$ROOT/.." && pwd)/shared}; export SHARED
SEED=${SEED:-$(date +%Y%m%d)}
MUTANTS=${MUTANTS:-60}
JOBS=${JOBS:-2}
# Built as make check builds: a mutant that draws a warning does not build.
WERROR=1; export WERROR
SCRATCH=${SCRATCH:-$ROOT/build/mutation}
# Quick CLI scripts (a few seconds each) that drive every verb of the
# command line, and the quick ones of the behaviours beyond that (four-
# digit languages, init's language list, the INF copies repair
# --from-ini reads, dirty hives and their logs, the
# side files a commit writes, trees with two names for one file); the
# slow ones (crash sweeps, other hostile inputs, concurrency) are left to
# make cli-tests.
CLI_SCRIPTS=${CLI_SCRIPTS:-"cli_conventions.sh noini_verbs.sh names_query_dryrun.sh
    messages.sh audit.sh diff.sh repair.sh repair_from_ini.sh rebuild.sh
    perfstats.sh hive_check.sh
    check_ini_samples.sh languages_four_digit.sh init_languages.sh
    dirty_hive_policy.sh hive_recover.sh side_files.sh hostile_case.sh"}
LEAKS=${LEAKS:-1}
MAP=${MAP:-1}
EXTRA=${EXTRA:-150}
EQUIVALENTS=${EQUIVALENTS:-$ROOT/tools/equivalent-mutants.txt}
[ -r "$EQUIVALENTS" ] || { echo "mutation-score: cannot read $EQUIVALENTS" >&2; exit 2; }
for v in "$SEED" "$MUTANTS" "$JOBS" "$LEAKS" "$MAP" "$EXTRA"; do
    case $v in '' | *[!0-9]*) echo "mutation-score: SEED, MUTANTS, JOBS, LEAKS, MAP and EXTRA are numbers" >&2; exit 2 ;; esac
done

# AS_TESTER CMD...: runs CMD as the user the tests run as.
AS_TESTER="" OWNER=""
if [ "$(id -u)" = 0 ]; then
    TESTER=nobody
    TESTER_GROUP=$(id -gn "$TESTER" 2>/dev/null) ||
        { echo "mutation-score: run as root, and there is no user $TESTER to run the tests as" >&2; exit 2; }
    OWNER=$TESTER:$TESTER_GROUP
    if command -v setpriv >/dev/null 2>&1; then
        AS_TESTER="setpriv --reuid=$TESTER --regid=$TESTER_GROUP --clear-groups --"
    elif command -v runuser >/dev/null 2>&1; then
        AS_TESTER="runuser -u $TESTER --"
    else
        echo "mutation-score: run as root, and neither setpriv nor runuser is there to run the tests as $TESTER" >&2
        exit 2
    fi
fi

T=$SCRATCH/tree
# The sources afresh (with their own times, so that make rebuilds only
# what changed since the last run), the objects kept.
if [ -d "$T" ]; then
    find "$T" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} + || exit 2
fi
rm -rf "$SCRATCH/logs" && mkdir -p "$SCRATCH/logs" || exit 2
. "$ROOT/tools/scratch-tree.sh"
scratch_tree "$ROOT" "$SCRATCH" ||
    { echo "mutation-score: cannot copy the tree" >&2; exit 2; }
cd "$T" || exit 2
# A run stopped in the middle of a mutant left its object behind, newer
# than the source: the source made newer still is compiled again.
if [ -f "$SCRATCH/mutating" ]; then
    touch "$(cat "$SCRATCH/mutating")" && rm -f "$SCRATCH/mutating" || exit 2
fi

# The CLI scripts that exist (a name that no longer does is an error: the
# list must not rot silently).
cli=""
for s in $CLI_SCRIPTS; do
    [ -f "tests/cli/$s" ] || { echo "mutation-score: no tests/cli/$s" >&2; exit 2; }
    cli="$cli cli:tests/cli/$s"
done
units=$(ls tests/test_*.c | sed 's|^tests/\(.*\)\.c$|unit:build/tests/\1|')

# A deleted free() changes no result a test asserts: the unit tests find
# it by leak checking (LeakSanitizer alone costs little: its allocator
# and a scan at exit, some tens of milliseconds a program). Linked so, or
# not, since the last run: the programs are linked afresh.
UNIT_LINK=""
if [ "$LEAKS" = 1 ]; then
    if printf 'int main(void) { return 0; }\n' >"$SCRATCH/leak-probe.c" &&
       ${CC:-cc} -fsanitize=leak -o "$SCRATCH/leak-probe" "$SCRATCH/leak-probe.c" \
           >/dev/null 2>&1 && "$SCRATCH/leak-probe"; then
        UNIT_LINK="LDFLAGS_SAN=-fsanitize=leak"
    else
        echo "mutation-score: the compiler cannot link -fsanitize=leak: no leak checks" >&2
    fi
    rm -f "$SCRATCH/leak-probe" "$SCRATCH/leak-probe.c"
fi
if [ "$(cat "$SCRATCH/unit-link" 2>/dev/null)" != "$UNIT_LINK" ]; then
    rm -f build/tests/test_* && echo "$UNIT_LINK" >"$SCRATCH/unit-link" || exit 2
fi

echo "mutation-score: building the unmutated copy in $SCRATCH" >&2
{ make -s -j"$JOBS" $UNIT_LINK $(echo "$units" | sed 's|^unit:||') &&
  make -s -j"$JOBS" build/regtool build/testing/regtool build/bench/mkbench; } >"$SCRATCH/logs/build" 2>&1 ||
    { cat "$SCRATCH/logs/build" >&2; echo "mutation-score: the unmutated tree does not build" >&2; exit 2; }

# The tester reads the tree, runs its programs and reads ../shared (the
# folders above SCRATCH open to all).
if [ -n "$AS_TESTER" ] &&
   ! $AS_TESTER sh -c 'test -r Makefile && test -x build/regtool && test -r "$SHARED"'; then
    echo "mutation-score: $TESTER cannot read $T or $SHARED (or run its programs): put SCRATCH= where all may read" >&2
    exit 2
fi

# run_suite LIST SECONDS: runs the tests of LIST (unit:BIN, cli:SCRIPT),
# JOBS at a time, in order, and starts no new one after a failure. A unit
# test program is linked just before it runs (the library is up to date
# by then): a mutant killed by the first tests costs no other link.
# Writes each test's milliseconds to $SCRATCH/logs/times and the failed
# tests' names to $SCRATCH/logs/failed. 0: all passed, 1: one failed,
# 3: still running after SECONDS (timeout stops every test it started:
# it signals its whole process group).
run_suite() {
    # What the tests leave behind (a mutant's tests may not clean up).
    rm -rf "$SCRATCH/tmp" && mkdir "$SCRATCH/tmp" || return 1
    if [ -n "$AS_TESTER" ]; then
        chown "$TESTER:$TESTER_GROUP" "$SCRATCH/tmp" && chmod 700 "$SCRATCH/tmp" ||
            return 1
    fi
    : >"$SCRATCH/logs/failed"
    : >"$SCRATCH/logs/times"
    for t in $1; do echo "$t"; done |
    L=$SCRATCH/logs REGTOOL=$T/build/regtool TMPDIR=$SCRATCH/tmp AS="$AS_TESTER" \
        UL="$UNIT_LINK" timeout -k 10 "$2" xargs -P "$JOBS" -I{} sh -c '
        t=$1; s=$(date +%s%N)
        # The test is linked as the caller; it runs as $AS (the tester,
        # when run as root, its HOME the TMPDIR), its output kept by the
        # caller.
        if [ -n "$AS" ]; then HOME=$TMPDIR; export HOME; fi
        case $t in
        unit:*) make -s $UL "${t#unit:}" >"$L/test.$$" 2>&1 &&
                $AS "./${t#unit:}" >"$L/test.$$" 2>&1 ;;
        cli:*) CLI_JOBS=1 $AS sh tests/run-cli.sh "$REGTOOL" "${t#cli:}" >"$L/test.$$" 2>&1 ;;
        esac
        rc=$?
        echo "$(( ($(date +%s%N) - s) / 1000000 )) $t" >>"$L/times"
        [ $rc -eq 0 ] && exit 0
        echo "${t##*/}" >>"$L/failed"
        exit 255' sh {} 2>/dev/null
    rc=$?
    # A failure first: xargs, stopped by a test's 255, exits 124 too.
    [ -s "$SCRATCH/logs/failed" ] && return 1
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && return 3
    [ $rc -eq 0 ] || return 1
    return 0
}

# Which CLI scripts run which lines: made once per tree (its sources'
# checksum the key).
if [ "$MAP" = 1 ]; then
    . "$ROOT/tools/test-map.sh"
    key=$(find lib regtool tests tools bench Makefile -type f | sort | xargs cat | cksum)
    if [ "$(cat "$SCRATCH/map.key" 2>/dev/null)" != "$key" ] || [ ! -f "$SCRATCH/map/lines" ]; then
        echo "mutation-score: mapping the lines each CLI script runs (a gcov build; once per tree)" >&2
        rm -f "$SCRATCH/map.key"
        build_test_map "$T" "$SCRATCH/map" "$JOBS" "$AS_TESTER" "$OWNER" "$CLI_SCRIPTS" ||
            { echo "mutation-score: the map cannot be made" >&2; exit 2; }
        echo "$key" >"$SCRATCH/map.key"
    fi
    echo "mutation-score: the map: $(wc -l <"$SCRATCH/map/times") scripts; left out, failing on the gcov build: $(tr '\n' ' ' <"$SCRATCH/map/failed")" >&2
fi

# The unmutated suite must pass (a failing test would "kill" every
# mutant); its times order the tests, fastest first.
echo "mutation-score: running the suites on the unmutated copy" >&2
start=$(date +%s)
run_suite "$units $cli" 36000 || {
    echo "mutation-score: fails without any mutant: $(cat "$SCRATCH/logs/failed")" >&2; exit 2; }
base=$(( $(date +%s) - start ))
TIMEOUT=${TIMEOUT:-$(( base * 3 > 60 ? base * 3 : 60 ))}
sort -n "$SCRATCH/logs/times" | cut -d' ' -f2 >"$SCRATCH/order"
unit_order=$(grep '^unit:' "$SCRATCH/order")
cli_order=$(grep '^cli:' "$SCRATCH/order")
echo "mutation-score: suites take ${base}s unmutated; per-mutant timeout ${TIMEOUT}s; SEED=$SEED" >&2

files=$(ls lib/*/*.c regtool/*.c | grep -v '^lib/provider/ini_unavailable\.c$')
awk -v seed="$SEED" -f "$ROOT/tools/mutation-points.awk" $files >"$SCRATCH/points"

# near_first FILE LIST: LIST (fastest first) with the tests named after
# FILE's name first, then those named after its folder (lib/regf/check.c:
# a test_*check*, then the test_regf_*): they are the likeliest to
# fail, and a killed mutant stops at the first failure.
near_first() {
    name=$(basename "$1" .c); dir=$(basename "$(dirname "$1")")
    for t in $2; do case ${t##*/} in *"$name"*) echo "$t" ;; esac; done
    for t in $2; do case ${t##*/} in *"$name"*) ;; *"$dir"*) echo "$t" ;; esac; done
    for t in $2; do case ${t##*/} in *"$name"* | *"$dir"*) ;; *) echo "$t" ;; esac; done
}

# Each file's object, unmutated: kept to compare and to restore.
obj_of() { echo "build/obj/${1%.c}.o"; }
strip_code() { objcopy --strip-debug "$1" "$2" 2>/dev/null; }

# reviewed CLASS FILE LINE ORIG REPL: prints the reason and succeeds
# when EQUIVALENTS lists this mutant: its lines are
#   FILE<TAB>CLASS<TAB>ORIGINAL<TAB>REPLACEMENT<TAB>SOURCE LINE<TAB>WHY
# (SOURCE LINE: the unmutated line, blanks at its ends trimmed).
reviewed() {
    src=$(sed -n "$3p" "$SCRATCH/src.orig")
    F=$2 C=$1 O=$4 R=$5 S=$src awk -F '\t' '
        BEGIN { s = ENVIRON["S"]; gsub(/^[ \t]+|[ \t]+$/, "", s) }
        /^#/ || NF < 6 { next }
        $1 == ENVIRON["F"] && $2 == ENVIRON["C"] && $3 == ENVIRON["O"] &&
        $4 == ENVIRON["R"] && $5 == s { print $6; found = 1; exit }
        END { exit !found }' "$EQUIVALENTS"
}

tested=0 killed=0 timeouts=0 broken=0 equivalent=0 n=0
: >"$SCRATCH/misreviewed"
: >"$SCRATCH/survivors"; : >"$SCRATCH/broken"; : >"$SCRATCH/equivalent"; : >"$SCRATCH/timeouts"
# Stopped (INT, TERM), the run finishes the mutant it is on (its tests
# are in timeout's process group, out of reach of the signal) and prints
# the summary of those run.
stop=0
trap 'stop=1' INT TERM
SEP=$(printf '\037')
while IFS=$SEP read -r class file line col orig repl; do
    [ "$tested" -lt "$MUTANTS" ] && [ "$stop" = 0 ] || break
    n=$((n + 1))
    obj=$(obj_of "$file")
    # (The Makefile's .SECONDARY: an object missing is not rebuilt unless
    # named.)
    make -s "$obj" >"$SCRATCH/logs/build" 2>&1 &&
    cp -p "$file" "$SCRATCH/src.orig" && cp -p "$obj" "$SCRATCH/obj.orig" ||
        { echo "mutation-score: no object for $file" >&2; exit 2; }
    echo "$file" >"$SCRATCH/mutating"
    ORIG=$orig REPL=$repl awk -v L="$line" -v C="$col" '
        NR == L {
            o = ENVIRON["ORIG"]
            if (substr($0, C, length(o)) != o) { bad = 1 }
            else $0 = substr($0, 1, C - 1) ENVIRON["REPL"] substr($0, C + length(o))
        }
        { print }
        END { exit bad }' "$SCRATCH/src.orig" >"$file" || {
        echo "mutation-score: $file:$line: the point does not apply" >&2; exit 2; }
    what="$file:$line $class: '$orig' -> '$repl'"
    if [ "$class" = off1 ]; then what="$file:$line $class: '$repl' added at column $col"; fi
    if ! make -s "$obj" >"$SCRATCH/logs/build" 2>&1; then
        broken=$((broken + 1)); echo "$what" >>"$SCRATCH/broken"; verdict="does not build"
    elif strip_code "$obj" "$SCRATCH/a.o" && strip_code "$SCRATCH/obj.orig" "$SCRATCH/b.o" &&
         cmp -s "$SCRATCH/a.o" "$SCRATCH/b.o"; then
        equivalent=$((equivalent + 1)); echo "$what" >>"$SCRATCH/equivalent"; verdict=equivalent
    else
        case $file in
        lib/*) suite="$(near_first "$file" "$unit_order") $cli_order"
               need="build/libregtool.a build/regtool build/testing/regtool build/bench/mkbench" ;;
        *) suite=$cli_order; need="build/regtool build/testing/regtool" ;;
        esac
        extra=""
        [ "$MAP" = 0 ] || extra=$(covering_scripts "$SCRATCH/map" "$file" "$line" "$EXTRA" "$CLI_SCRIPTS")
        suite="$suite $extra"
        if ! make -s -j"$JOBS" $need >"$SCRATCH/logs/build" 2>&1; then
            broken=$((broken + 1)); echo "$what" >>"$SCRATCH/broken"; verdict="does not link"
        else
            n_extra=$(echo $extra | wc -w)
            run_suite "$suite" "$(( TIMEOUT + (n_extra > 0 ? 3 * EXTRA : 0) ))"
            rc=$?
            tested=$((tested + 1))
            if [ $rc -eq 0 ] && why=$(reviewed "$class" "$file" "$line" "$orig" "$repl"); then
                tested=$((tested - 1)); equivalent=$((equivalent + 1))
                echo "$what (reviewed: $why)" >>"$SCRATCH/equivalent"
                verdict="equivalent (reviewed)"
            elif [ $rc -eq 0 ]; then
                verdict="SURVIVED (the fast suites and $n_extra more scripts that run the line)"
                echo "$what" >>"$SCRATCH/survivors"
            elif [ $rc -eq 3 ]; then
                killed=$((killed + 1)); timeouts=$((timeouts + 1))
                verdict="killed by timeout"; echo "$what" >>"$SCRATCH/timeouts"
            else
                killed=$((killed + 1))
                verdict="killed ($(tr '\n' ' ' <"$SCRATCH/logs/failed" | sed 's/ $//'))"
                reviewed "$class" "$file" "$line" "$orig" "$repl" >/dev/null &&
                    echo "$what (listed equivalent in $EQUIVALENTS, but killed)" >>"$SCRATCH/misreviewed"
            fi
        fi
    fi
    # The original source (a new mtime) and its object (newer still): the
    # next make re-archives the library and relinks, but compiles nothing.
    cp "$SCRATCH/src.orig" "$file"
    cp "$SCRATCH/obj.orig" "$obj"
    touch "$obj"
    rm -f "$SCRATCH/mutating"
    printf '[%d/%d] %s: %s\n' "$tested" "$MUTANTS" "$what" "$verdict"
done <"$SCRATCH/points"

list() {
    echo "$1: $(wc -l <"$2")"
    sed 's/^/  /' "$2"
}
echo
[ "$stop" = 0 ] || echo "mutation-score: stopped after $tested of $MUTANTS mutants"
list "compile failures (not counted)" "$SCRATCH/broken"
list "equivalent mutants (not counted)" "$SCRATCH/equivalent"
list "killed by timeout (counted killed)" "$SCRATCH/timeouts"
list "survivors" "$SCRATCH/survivors"
[ ! -s "$SCRATCH/misreviewed" ] || list "listed as equivalent, yet killed (mend $EQUIVALENTS)" "$SCRATCH/misreviewed"
[ "$tested" -gt 0 ] || { echo "mutation-score: no mutant ran" >&2; exit 2; }
rm -rf "$SCRATCH/tmp"
echo "mutation score: $killed/$tested killed ($(( killed * 100 / tested ))%)"
