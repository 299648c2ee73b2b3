#!/bin/sh
# regtool's benchmarks (`make bench`; not part of `make check`).
#   sh bench/run.sh REGTOOL MKBENCH [SYMBOLS]
#
# For each workload and layout, mkbench generates the tree once
# (deterministic text and layout); each measurement then warms up once and
# runs BENCH_RUNS times, each run of a writing operation on a fresh copy of
# the tree that is synced before the clock starts. Prints a table of
# medians with the floor (bench/floor.c: read the database files, write
# copies, fsync them) measured in the same run, each ratio and whether
# its target is met, and writes BENCH_RESULTS (bench/results.json).
# Targets are only reported, never asserted.
#
# Workloads (mkbench hives options):
#   W0  1/4 of W1's pairs (no extra providers), SOFTWARE 20 MB
#   W1  the 79 MB SOFTWARE hive: twelve languages, 13 extra providers
#   W2  4x W1's pairs (64 extra providers), SOFTWARE 316 MB
#   Ws  one language (009), every value under 1 MB: for the libhivex peers
#   Wt  two small languages, no filler: the smoke test's (seconds)
# Layouts: registry (tables as Perflib\LLL values) and files (System32 and
# SysWOW64 perfcLLL.dat/perfhLLL.dat); Ws and the peers: registry only.
#
# Environment:
#   BENCH_RUNS         timed runs per measurement (5)
#   BENCH_WORKLOADS    workloads to run ("W0 W1 W2 Ws")
#   BENCH_LAYOUTS      layouts to run ("registry files")
#   BENCH_CYCLES       install/uninstall cycles for the growth (100), run
#                      on W1's registry tree (else the first tree run)
#   BENCH_NAMES        names resolved by one `names` (1000)
#   BENCH_INI_SYMBOLS  symbols of the check-ini INI (4000)
#   BENCH_RESULTS      the JSON file (bench/results.json)
#   BENCH_FLEET        machines of the fleet audit (1000; 0: not run): a
#                      PerfStringBackup.INI of about 1.5 MB (init's 009
#                      database and the bench provider, regtool backup)
#                      copied per machine, every tenth with an index line
#                      duplicated, every 25th with a provider's section
#                      removed; row "fleet-audit" of workload fleetN:
#                      `audit --fleet` on all of them, target 30 s
#   BENCH_HOSTILE      the scale of the hostile inputs (1: the sizes of
#                      tests/cli/hostile_scale.sh, which took regtool
#                      quadratic time; 2: twice, 0.01: a hundredth; 0:
#                      not run); rows
#                      "hostile-VERB" of workloads svcN (a SYSTEM of N
#                      performance services), langN (a SOFTWARE of N
#                      Perflib languages), langtabN (N languages with
#                      their .dat tables in System32 and SysWOW64),
#                      hvaluesN (a SYSTEM whose Services\Many\Performance
#                      has N values, written by regtool's hive writer:
#                      hostile-write-values times the writing),
#                      dllN (N services each with a DLL of its own in
#                      System32 and an INF copy: hostile-audit-libs and
#                      hostile-rebuild-n), shortN (N services whose
#                      Library goes through 8.3 short names, beside N
#                      folders in Program Files: hostile-audit-libs),
#                      pairsN (a perfc009.dat of N
#                      equal pairs), psbN (a PerfStringBackup.INI of N
#                      services), repeatN (a PerfStringBackup.INI whose
#                      strings repeat one index N times: restore
#                      --dry-run refuses it), statsN (a Windows 95 .reg
#                      export of N statistics under 1,000 servers, each
#                      exported twice: hostile-ps-list and -ps-audit),
#                      valuesN and sectionsN (.reg stores),
#                      and the memory cases of tests/cli/hostile_memory.sh:
#                      "hostile-check-ini" and "hostile-install" of iniN
#                      (an INI of N symbols in three languages; -3lang:
#                      on a tree with the three), "hostile-repair" of
#                      longcN (a perfc009.dat N pairs past Last Counter),
#                      "hostile-audit" of tinylangN (a PerfStringBackup
#                      file of N one-string languages, two findings each),
#                      "hostile-names", "hostile-repair-n" and
#                      "hostile-restore-n" of dupsN (a registry-layout
#                      Counter of N tiny duplicate pairs)
# BENCH_WORKLOADS set empty (BENCH_WORKLOADS=) runs no tree: with it,
# BENCH_HOSTILE alone.
set -eu
[ $# -ge 2 ] || { echo "usage: sh bench/run.sh REGTOOL MKBENCH [SYMBOLS]" >&2; exit 64; }
REGTOOL=$1 MKBENCH=$2 SYMBOLS=${3:-200}
BIN=$(cd "$(dirname "$MKBENCH")" && pwd)
FLOOR=$BIN/floor TIMEIT=$BIN/timeit PEER=$BIN/hivexpeer
RUNS=${BENCH_RUNS:-5}
WORKLOADS=${BENCH_WORKLOADS-W0 W1 W2 Ws}
HOSTILE=${BENCH_HOSTILE:-1}
FLEET=${BENCH_FLEET:-1000}
LAYOUTS=${BENCH_LAYOUTS:-registry files}
CYCLES=${BENCH_CYCLES:-100}
NAMES=${BENCH_NAMES:-1000}
INI_SYMBOLS=${BENCH_INI_SYMBOLS:-4000}
RESULTS=${BENCH_RESULTS:-bench/results.json}
for t in "$REGTOOL" "$MKBENCH" "$FLOOR" "$TIMEIT"; do
    [ -x "$t" ] || { echo "bench: no $t (make builds it)" >&2; exit 1; }
done
case $RUNS in '' | *[!0-9]* | 0) echo "bench: BENCH_RUNS must be 1 or more" >&2; exit 64 ;; esac

W=$(mktemp -d "${TMPDIR:-/tmp}/regtool-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
RUN=$W/run                       # the fresh copy each timed run works on
ROWS=$W/rows.tsv                 # op wl layout status median rss_kb bytes fsyncs
SIZES=$W/sizes.tsv               # wl layout database_bytes
: >"$ROWS"; : >"$SIZES"
CS="--create-service --library %SystemRoot%\\System32\\perfbench.dll --open Open --collect Collect --close Close"
CONFIG=Windows/System32/config
HIVEX_PREFIX='HKEY_LOCAL_MACHINE\SOFTWARE'

wl_args() {
    case $1 in
    W0) echo "--extra 0 --size 20" ;;
    W1) echo "--extra 13 --size 79" ;;
    W2) echo "--extra 64 --size 316" ;;
    Ws) echo "--languages 009 --extra 0 --size 14 --help-chars 200" ;;
    Wt) echo "--languages 009,019 --extra 0 --size 1" ;;
    *) return 1 ;;
    esac
}

# The database's files under tree $1, relative: both hives and, in the
# files layout, the .dat tables (System32's, then SysWOW64's copies).
db_files() {
    (cd "$1" && ls $CONFIG/SOFTWARE $CONFIG/SYSTEM &&
        { ls Windows/System32/perf[ch]*.dat Windows/SysWOW64/perf[ch]*.dat 2>/dev/null || :; })
}
# Bytes of those files, without the SysWOW64 copies (what regtool has to
# hold: the peak RSS target's measure), or with them when $2 is "all".
db_bytes() {
    db_files "$1" | { [ "${2:-}" = all ] && cat || grep -v SysWOW64; } |
        (cd "$1" && xargs stat -c %s) | awk '{s += $1} END {print s + 0}'
}

fresh() {   # fresh SRC: a copy of tree SRC at $RUN, synced
    rm -rf "$RUN"
    cp -a "$1" "$RUN"
    sync
}

# One timed run of CMD: time and peak RSS into $W/t, output into $W/out
# and $W/err. Returns CMD's status.
timed() { "$TIMEIT" "$W/t" "$@" >"$W/out" 2>"$W/err"; }

# measure OP WL LAYOUT SRC RO CMD...: warms up once, then times RUNS runs
# of CMD, each on a fresh copy of tree SRC (with RO=ro one copy serves all
# runs: CMD only reads; with SRC empty CMD needs no tree). Appends a row.
measure() {
    m_op=$1 m_wl=$2 m_layout=$3 m_src=$4 m_ro=$5; shift 5
    : >"$W/times"; rss=0 run=0 status=ok
    [ -z "$m_src" ] || [ "$m_ro" != ro ] || fresh "$m_src"
    while [ $run -le "$RUNS" ]; do    # run 0 is the warm-up
        [ -z "$m_src" ] || [ "$m_ro" = ro ] || fresh "$m_src"
        rc=0
        timed "$@" || rc=$?
        # OK_EXITS: the statuses that are a success (audit's findings).
        case " ${OK_EXITS:-0} " in *" $rc "*) rc=0 ;; esac
        if [ $rc -ne 0 ]; then
            status="failed (exit $rc)"
            sed 's/^/    /' "$W/err" | head -5 >&2
            break
        fi
        if [ $run -gt 0 ]; then
            IFS=' ' read -r s k <"$W/t"
            echo "$s" >>"$W/times"
            [ "$k" -le "$rss" ] || rss=$k
        fi
        run=$((run + 1))
    done
    if [ "$status" = ok ]; then
        median=$(sort -g "$W/times" | awk '{v[NR] = $1}
            END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
        # The last run's --verbose line; no line: nothing was written.
        io=$(sed -n 's/^regtool: \([0-9]*\) bytes written in [0-9]* writes, \([0-9]*\) fsyncs.*/\1 \2/p' "$W/err")
        io=${io:-0 0}
        printf '%s\t%s\t%s\tok\t%s\t%s\t%s\t%s\n' "$m_op" "$m_wl" "$m_layout" \
            "$median" "$rss" "${io% *}" "${io#* }" >>"$ROWS"
        printf '  %-18s %8.4f s\n' "$m_op" "$median"
    else
        printf '%s\t%s\t%s\t%s\t\t\t\t\n' "$m_op" "$m_wl" "$m_layout" "$status" >>"$ROWS"
        printf '  %-18s %s\n' "$m_op" "$status"
    fi
}

not_built() {   # not_built OP WL LAYOUT
    printf '%s\t%s\t%s\tnot built yet\t\t\t\t\n' "$1" "$2" "$3" >>"$ROWS"
    printf '  %-18s not built yet\n' "$1"
}
built() { "$REGTOOL" "$1" --help >/dev/null 2>&1; }

bench_tree() {   # bench_tree WL LAYOUT
    wl=$1 layout=$2 M=$W/$1.$2
    mkdir -p "$M"
    echo "== $wl, $layout layout"
    # shellcheck disable=SC2046
    "$MKBENCH" hives "$M/master" $(wl_args "$wl") --layout "$layout" >"$M/gen"
    sed 's/^/  /' "$M/gen"
    printf '%s\t%s\t%s\n' "$wl" "$layout" "$(db_bytes "$M/master")" >>"$SIZES"
    cp -a "$M/master" "$M/installed"
    # shellcheck disable=SC2086
    "$REGTOOL" --store "hive:$M/installed" install $CS "$W/prov/bench.ini" \
        >"$W/out" 2>"$W/err" || { cat "$W/out" "$W/err" >&2; exit 1; }
    sync
    S="hive:$RUN"

    # shellcheck disable=SC2086
    measure install "$wl" "$layout" "$M/master" rw \
        "$REGTOOL" --verbose --store "$S" install $CS "$W/prov/bench.ini"
    measure uninstall "$wl" "$layout" "$M/installed" rw \
        "$REGTOOL" --verbose --store "$S" uninstall BenchPerf
    # shellcheck disable=SC2046
    measure floor "$wl" "$layout" "$M/master" rw \
        "$FLOOR" $(db_files "$M/master" | sed "s|^|$RUN/|")

    # names: NAMES names drawn (seeded) from the installed 009 table;
    # none numeric or starting with '-' (they would read as an index or
    # an option).
    "$REGTOOL" --store "hive:$M/installed" names --lang 009 |
        awk -F '\t' -v n="$NAMES" 'BEGIN {srand(18)}
            $2 != "" && $2 !~ /^[0-9]+$/ && $2 !~ /^-/ {t[c++] = $2}
            END {for (i = 0; i < n; i++) print t[int(rand() * c)]}' >"$M/names"
    (
        IFS='
'
        set -f
        # shellcheck disable=SC2046
        set -- $(cat "$M/names")
        measure names "$wl" "$layout" "$M/installed" ro \
            "$REGTOOL" --verbose --store "$S" names --lang 009 "$@"
    )
    measure query "$wl" "$layout" "$M/installed" ro \
        "$REGTOOL" --verbose --store "$S" query

    # The verbs still on the roadmap are measured once `VERB --help`
    # succeeds; the command lines below are their expected syntax.
    if built audit; then
        measure audit "$wl" "$layout" "$M/installed" ro \
            "$REGTOOL" --verbose --store "$S" audit
    else not_built audit "$wl" "$layout"; fi
    if built backup; then
        measure backup "$wl" "$layout" "$M/installed" rw \
            "$REGTOOL" --verbose --store "$S" backup "$W/backup"
    else not_built backup "$wl" "$layout"; fi
    if built restore && [ -e "$W/backup" ]; then
        measure restore "$wl" "$layout" "$M/master" rw \
            "$REGTOOL" --verbose --store "$S" restore "$W/backup"
    else not_built restore "$wl" "$layout"; fi
    rm -rf "$W/backup"
    if built repair; then
        measure repair "$wl" "$layout" "$M/installed" rw \
            "$REGTOOL" --verbose --store "$S" repair
    else not_built repair "$wl" "$layout"; fi
    if built rebuild; then
        measure rebuild "$wl" "$layout" "$M/installed" rw \
            "$REGTOOL" --verbose --store "$S" rebuild
    else not_built rebuild "$wl" "$layout"; fi
}

# Database size after CYCLES install/uninstall cycles over its size before.
growth() {   # growth WL LAYOUT
    M=$W/$1.$2
    fresh "$M/master"
    before=$(db_bytes "$RUN" all)
    cycle=0
    while [ $cycle -lt "$CYCLES" ]; do
        # shellcheck disable=SC2086
        "$REGTOOL" --store "hive:$RUN" install $CS "$W/prov/bench.ini" >/dev/null 2>&1 &&
            "$REGTOOL" --store "hive:$RUN" uninstall BenchPerf >/dev/null 2>&1 ||
            { echo "  growth: cycle $cycle failed" >&2; return 1; }
        cycle=$((cycle + 1))
    done
    after=$(db_bytes "$RUN" all)
    printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$CYCLES" "$before" "$after" >"$W/growth"
    echo "    $CYCLES cycles: $before -> $after bytes"
}

# The peers at Ws: the same change (the pairs regtool's install appends
# to Perflib\009's Counter and Help) made with libhivex (bench/hivexpeer.c)
# and as a .reg patch merged by hivexregedit.
peers() {
    M=$W/Ws.registry
    mkdir -p "$W/Ws.add"
    "$PEER" diff "$M/master/$CONFIG/SOFTWARE" "$M/installed/$CONFIG/SOFTWARE" 009 "$W/Ws.add"
    measure peer-hivex-c Ws registry "$M/master" rw \
        "$PEER" apply "$RUN/$CONFIG/SOFTWARE" 009 "$W/Ws.add"
    if command -v hivexregedit >/dev/null 2>&1; then
        "$PEER" reg "$M/master/$CONFIG/SOFTWARE" 009 "$W/Ws.add" "$W/Ws.reg"
        measure peer-hivexregedit Ws registry "$M/master" rw \
            hivexregedit --merge --prefix "$HIVEX_PREFIX" "$RUN/$CONFIG/SOFTWARE" "$W/Ws.reg"
    fi
}

# What the peers say when asked for the same change at W1 (values of
# 5 MB, stored as big data).
refusals() {
    M=$W/W1.registry
    mkdir -p "$W/W1.add"
    "$PEER" diff "$M/master/$CONFIG/SOFTWARE" "$M/installed/$CONFIG/SOFTWARE" 009 "$W/W1.add"
    fresh "$M/master"
    if timed "$PEER" apply "$RUN/$CONFIG/SOFTWARE" 009 "$W/W1.add"; then
        msg="libhivex program: accepted"
    else
        msg="libhivex program: $(sed -n '1s/^hivexpeer: //p' "$W/err")"
    fi
    if command -v hivexregedit >/dev/null 2>&1; then
        "$PEER" reg "$M/master/$CONFIG/SOFTWARE" 009 "$W/W1.add" "$W/W1.reg"
        fresh "$M/master"
        if timed hivexregedit --merge --prefix "$HIVEX_PREFIX" "$RUN/$CONFIG/SOFTWARE" "$W/W1.reg"; then
            msg="$msg; hivexregedit: accepted"
        else
            # Without the Perl source position.
            msg="$msg; hivexregedit: $(sed -n '1s/ at \/[^ ]* line [0-9].*//p' "$W/err")"
        fi
        rm -f "$W/W1.reg"
    fi
    echo "$msg" >"$W/refusal"
    echo "    $msg"
}

# The trees: every workload in every layout, but Ws in the registry
# layout only. The growth runs on W1's registry tree, else the first.
TREES= GROWTH_AT=
for wl in $WORKLOADS; do
    wl_args "$wl" >/dev/null || { echo "bench: unknown workload $wl" >&2; exit 64; }
    for layout in $LAYOUTS; do
        case $layout in registry | files) ;; *) echo "bench: unknown layout $layout" >&2; exit 64 ;; esac
        [ "$wl" = Ws ] && [ "$layout" = files ] && continue
        TREES="$TREES $wl.$layout"
        [ -n "$GROWTH_AT" ] || GROWTH_AT=$wl.$layout
        [ "$wl.$layout" != W1.registry ] || GROWTH_AT=$wl.$layout
    done
done

echo "regtool benchmarks: $RUNS runs per measurement after a warm-up; trees$TREES"
"$MKBENCH" provider "$W/prov" --symbols "$SYMBOLS" | sed 's/^/  /'
[ -x "$PEER" ] || echo "  no $PEER (make bench builds it): peers not measured"
for tree in $TREES; do
    wl=${tree%.*} layout=${tree#*.}
    bench_tree "$wl" "$layout"
    if [ "$tree" = "$GROWTH_AT" ]; then
        echo "  growth:"
        growth "$wl" "$layout"
    fi
    if [ -x "$PEER" ] && [ "$tree" = Ws.registry ]; then
        echo "  peers:"
        peers
    fi
    if [ -x "$PEER" ] && [ "$tree" = W1.registry ]; then
        echo "  peers' refusals:"
        refusals
    fi
    rm -rf "$W/$tree" "$RUN"
done

# The hostile inputs of tests/cli/hostile_scale.sh, HOSTILE times their
# size: each verb's time and peak RSS. The hives are made with regtool's
# own writer (tests/cli/mkscale.c, built here against libregtool.a).
hostile() {
    H=$W/hostile
    mkdir -p "$H"
    SRC=$(cd "$(dirname "$0")/.." && pwd)
    LIBA=$(dirname "$REGTOOL")/libregtool.a
    # A sanitized libregtool.a (make check's second pass) links only into
    # a program built the same way.
    SANFLAGS=
    ldd "$REGTOOL" 2>/dev/null | grep -q libasan &&
        SANFLAGS="-fsanitize=address,undefined"
    # A gcov-instrumented one (make coverage) links only with libgcov.
    nm "$REGTOOL" 2>/dev/null | grep -q __gcov_init && SANFLAGS="--coverage"
    cc -O2 $SANFLAGS -I"$SRC/lib" -o "$H/mkscale" "$SRC/tests/cli/mkscale.c" "$LIBA" -linih ||
        { echo "  cannot build mkscale: hostile inputs not measured" >&2; return 0; }
    INI=$SRC/tests/bad/common/x.ini
    CSX="--create-service --library x.dll --open O --collect C --close X"
    for layout in files registry; do
        "$REGTOOL" --store "hive:$H/init-$layout" init --layout $layout >/dev/null
    done
    scaled() {   # scaled N: N times HOSTILE (a fraction too), at least 1
        awk -v n="$1" -v s="$HOSTILE" 'BEGIN { n = int(n * s); print n < 1 ? 1 : n }'
    }
    mk() {   # mk NAME LAYOUT: $H/NAME, a copy of the initialized tree
        rm -rf "${H:?}/$1"
        cp -a "$H/init-$2" "$H/$1"
    }
    verbs() {   # verbs WL LAYOUT STORE: the reading verbs and dry runs
        OK_EXITS="0 1 2"
        for v in query names audit; do
            measure "hostile-$v" "$1" "$2" "" ro "$REGTOOL" --store "$3" $v
        done
        # shellcheck disable=SC2086
        measure hostile-install-n "$1" "$2" "" ro "$REGTOOL" --store "$3" install --dry-run $CSX "$INI"
        measure hostile-uninst-n "$1" "$2" "" ro "$REGTOOL" --store "$3" uninstall --dry-run ESENT
        OK_EXITS=0
    }
    n=$(scaled 4000); wl=svc$n
    echo "== hostile: $wl (files)"
    mk "$wl" files && "$H/mkscale" services "$H/$wl/$CONFIG/SYSTEM" "$n"
    verbs "$wl" files "hive:$H/$wl"
    OK_EXITS="0 1 2"
    measure hostile-repair-n "$wl" files "" ro "$REGTOOL" --store "hive:$H/$wl" repair --dry-run
    OK_EXITS=0
    rm -rf "${H:?}/$wl"
    # The hive writer itself: N values set on one key, then set again
    # (quadratic before: each set scanned and copied the key's list).
    n=$(scaled 80000); wl=hvalues$n
    echo "== hostile: $wl (files)"
    measure hostile-write-values "$wl" files "$H/init-files" rw \
        "$H/mkscale" values "$RUN/$CONFIG/SYSTEM" "$n"
    mk "$wl" files && "$H/mkscale" values "$H/$wl/$CONFIG/SYSTEM" "$n"
    verbs "$wl" files "hive:$H/$wl"
    rm -rf "${H:?}/$wl"
    n=$(scaled 4000); wl=lang$n
    echo "== hostile: $wl (registry)"
    mk "$wl" registry && "$H/mkscale" languages "$H/$wl/$CONFIG/SOFTWARE" "$n"
    verbs "$wl" registry "hive:$H/$wl"
    rm -rf "${H:?}/$wl"
    # Files beside the keys (each was found by a pass over its folder).
    n=$(scaled 3000); wl=langtab$n
    echo "== hostile: $wl (files)"
    mk "$wl" files && "$H/mkscale" languages "$H/$wl/$CONFIG/SOFTWARE" "$n" &&
        "$H/mkscale" tables "$H/$wl/Windows/System32" "$n" &&
        "$H/mkscale" tables "$H/$wl/Windows/SysWOW64" "$n"
    verbs "$wl" files "hive:$H/$wl"
    rm -rf "${H:?}/$wl"
    n=$(scaled 5000); wl=dll$n
    echo "== hostile: $wl (files)"
    mk "$wl" files && "$H/mkscale" libraries "$H/$wl/$CONFIG/SYSTEM" "$n"
    (cd "$H/$wl/Windows/System32" &&
        awk -v n="$n" 'BEGIN { print "ntdll.dll"; print "kernel32.dll"
            for (i = 0; i < n; i++) printf "scale%06d.dll\n", i }' | xargs touch)
    mkdir "$H/$wl/Windows/INF" && (cd "$H/$wl/Windows/INF" &&
        awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "Scale%06d/0009\n", i }' |
            xargs mkdir -p &&
        awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "Scale%06d/0009/scale%06d.ini\n", i, i }' |
            xargs touch)
    OK_EXITS="0 1 2"
    measure hostile-audit-libs "$wl" files "" ro "$REGTOOL" --store "hive:$H/$wl" audit --libraries
    # Those providers' texts are found nowhere: the dry run exits 4, as
    # the rebuild it shows would without --accept-loss.
    OK_EXITS="0 4"
    measure hostile-rebuild-n "$wl" files "" ro "$REGTOOL" --store "hive:$H/$wl" rebuild --dry-run
    OK_EXITS=0
    rm -rf "${H:?}/$wl"
    n=$(scaled 5000); wl=short$n
    echo "== hostile: $wl (files)"
    mk "$wl" files && "$H/mkscale" shortnames "$H/$wl/$CONFIG/SYSTEM" "$n"
    (cd "$H/$wl/Windows/System32" && touch ntdll.dll kernel32.dll)
    mkdir "$H/$wl/Program Files" && (cd "$H/$wl/Program Files" &&
        awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "S%05d Scale\n", i }' |
            tr '\n' '\0' | xargs -0 mkdir &&
        awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "S%05d Scale/scale.dll\n", i }' |
            tr '\n' '\0' | xargs -0 touch)
    OK_EXITS="0 1 2"
    measure hostile-audit-libs "$wl" files "" ro "$REGTOOL" --store "hive:$H/$wl" audit --libraries
    OK_EXITS=0
    rm -rf "${H:?}/$wl"
    n=$(scaled 100000); wl=pairs$n
    echo "== hostile: $wl (files)"
    mk "$wl" files
    awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "2\nx\n"; printf "\n" }' |
        tr '\n' '\0' | iconv -f ASCII -t UTF-16LE >"$H/$wl/Windows/System32/perfc009.dat"
    OK_EXITS="0 1 2"
    measure hostile-repair-n "$wl" files "" ro "$REGTOOL" --store "hive:$H/$wl" repair --dry-run
    measure hostile-audit "$wl" files "" ro "$REGTOOL" --store "hive:$H/$wl" audit
    OK_EXITS=0
    rm -rf "${H:?}/$wl"
    n=$(scaled 10000); wl=psb$n
    echo "== hostile: $wl"
    iconv -f UTF-16LE -t UTF-8 "$H/init-files/Windows/System32/PerfStringBackup.INI" | tr -d '\r' |
        awk -v n="$n" '/^\[PERF_ESENT\]/ && !done {
                for (i = 0; i < n; i++)
                    printf "[PERF_Scale%06d]\nFirst Counter=%d\nFirst Help=%d\nLast Counter=%d\nLast Help=%d\n\n",
                           i, 1000000 + 4 * i, 1000001 + 4 * i, 1000002 + 4 * i, 1000003 + 4 * i
                done = 1 }
            { print }' | sed 's/$/\r/' | iconv -f UTF-8 -t UTF-16LE >"$H/$wl.ini"
    verbs "$wl" psb "psb:$H/$wl.ini"
    rm -f "$H/$wl.ini"
    n=$(scaled 200000); wl=repeat$n
    echo "== hostile: $wl (files)"
    iconv -f UTF-16LE -t UTF-8 "$H/init-files/Windows/System32/PerfStringBackup.INI" | tr -d '\r' |
        awk -v n="$n" '{ print } /^\[PerfStrings_009\]/ && !done {
                for (i = 0; i < n; i++) print "2=x"
                done = 1 }' | sed 's/$/\r/' | iconv -f UTF-8 -t UTF-16LE >"$H/$wl.ini"
    OK_EXITS=2    # refused: the index repeated
    measure hostile-restore-n "$wl" files "" ro "$REGTOOL" --store "hive:$H/init-files" restore --dry-run "$H/$wl.ini"
    OK_EXITS=0
    rm -f "$H/$wl.ini"
    n=$(scaled 40000); wl=stats$n
    echo "== hostile: $wl (.reg)"
    awk -v n="$n" 'BEGIN { printf "REGEDIT4\r\n\r\n"
        for (i = 0; i < n; i++)
            printf "[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\S%06d\\%s%06d]\r\n\"Name\"=\"s\"\r\n\r\n", int(i / 2) % 1000, (i % 2 ? "t" : "T"), int(i / 2) }' \
        >"$H/$wl.reg"
    measure hostile-ps-list "$wl" none "" ro "$REGTOOL" perfstats list "$H/$wl.reg"
    OK_EXITS="0 1 2"
    measure hostile-ps-audit "$wl" none "" ro "$REGTOOL" perfstats audit "$H/$wl.reg"
    OK_EXITS=0
    rm -f "$H/$wl.reg"
    "$REGTOOL" --store "hive:$H/init-files" backup --format reg "$H/full.reg" >/dev/null
    iconv -f UTF-16 -t UTF-8 "$H/full.reg" >"$H/full8.reg"
    n=$(scaled 40000); wl=values$n
    echo "== hostile: $wl (.reg)"
    { cat "$H/full8.reg"
      printf '\r\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Many\\Performance]\r\n'
      awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "\"V%06d\"=dword:%08x\r\n", i, i }'
    } >"$H/$wl.reg"
    verbs "$wl" reg "reg:$H/$wl.reg"
    rm -f "$H/$wl.reg"
    n=$(scaled 50000); wl=sections$n
    echo "== hostile: $wl (.reg)"
    { cat "$H/full8.reg"
      awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++)
          printf "\r\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Rep\\Performance]\r\n\"Library\"=\"r%d.dll\"\r\n", i }'
    } >"$H/$wl.reg"
    verbs "$wl" reg "reg:$H/$wl.reg"
    rm -f "$H/full.reg" "$H/full8.reg" "$H/$wl.reg"
    # The memory cases of tests/cli/hostile_memory.sh: a big INI (N
    # symbols, NAME and HELP in three languages) and its symbol file,
    # checked and installed for real on an English tree and on one with
    # its three languages; a real repair of a perfc009.dat N pairs longer
    # than Last Counter says (System32's and SysWOW64's).
    n=$(scaled 20000); wl=ini$n
    echo "== hostile: $wl (files)"
    mkdir -p "$H/$wl"
    awk -v n="$n" 'BEGIN { print "#ifndef BIG_H"; print "#define BIG_H"
                 for (i = 0; i < n; i++) printf "#define COUNTER_%05d %d\n", i, 2 * i
                 print "#endif" }' >"$H/$wl/big.h"
    awk -v n="$n" 'BEGIN { m = split("009 007 00C", L, " ")
                 printf "[info]\ndrivername=BigProvider\nsymbolfile=big.h\n"
                 printf "[languages]\n009=English\n007=German\n00C=French\n"
                 printf "[objects]\nCOUNTER_00000_009_NAME=Big\n[text]\n"
                 for (i = 0; i < n; i++) for (j = 1; j <= m; j++)
                     printf "COUNTER_%05d_%s_NAME=Counter %d (%s)\nCOUNTER_%05d_%s_HELP=What counter %d of the big provider counts, in language %s.\n",
                         i, L[j], i, L[j], i, L[j], i, L[j] }' >"$H/$wl/big.ini"
    measure hostile-check-ini "$wl" none "" ro "$REGTOOL" check-ini "$H/$wl/big.ini"
    # shellcheck disable=SC2086
    measure hostile-install "$wl" files "$H/init-files" rw \
        "$REGTOOL" --verbose --store "hive:$RUN" install $CSX "$H/$wl/big.ini"
    "$REGTOOL" --store "hive:$H/init-3lang" init --layout files \
        --languages 009,007,00C >/dev/null
    # shellcheck disable=SC2086
    measure hostile-install "$wl-3lang" files "$H/init-3lang" rw \
        "$REGTOOL" --verbose --store "hive:$RUN" install $CSX "$H/$wl/big.ini"
    rm -rf "${H:?}/$wl" "$H/init-3lang"
    n=$(scaled 400000); wl=longc$n
    echo "== hostile: $wl (files)"
    mk "$wl" files
    for dir in System32 SysWOW64; do
        c=$H/$wl/Windows/$dir/perfc009.dat
        size=$(stat -c %s "$c")
        { head -c $((size - 2)) "$c"
          awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "%d\n%d\n", 10000 + 2 * i, i % 100 }' |
              tr '\n' '\000' | iconv -f ASCII -t UTF-16LE
          printf '\000\000'
        } >"$H/c.dat"
        mv "$H/c.dat" "$c"
    done
    OK_EXITS="0 1"
    measure hostile-repair "$wl" files "$H/$wl" rw \
        "$REGTOOL" --verbose --store "hive:$RUN" repair --backup "$RUN/repair-backup.ini"
    OK_EXITS=0
    rm -rf "${H:?}/$wl"
    # A registry-layout Counter of N tiny duplicate pairs "2", "2" (the
    # memory case of tests/cli/hostile_memory.sh): names, and the dry
    # runs of repair and of a restore of the tree's own backup.
    n=$(scaled 500000); wl=dups$n
    echo "== hostile: $wl (registry)"
    mk "$wl" registry
    "$REGTOOL" --store "hive:$H/$wl" backup "$H/$wl.ini" >/dev/null
    "$H/mkscale" duplicates "$H/$wl/$CONFIG/SOFTWARE" "$n"
    measure hostile-names "$wl" registry "" ro "$REGTOOL" --store "hive:$H/$wl" names
    OK_EXITS="0 1 2"
    measure hostile-repair-n "$wl" registry "" ro "$REGTOOL" --store "hive:$H/$wl" repair --dry-run
    OK_EXITS=0
    measure hostile-restore-n "$wl" registry "" ro "$REGTOOL" --store "hive:$H/$wl" restore --dry-run --force "$H/$wl.ini"
    rm -rf "${H:?}/$wl" "$H/$wl.ini"
    # An audit whose findings outnumber its input's lines: a
    # PerfStringBackup file of N one-string languages, two findings in
    # each (the memory case of tests/cli/hostile_memory.sh).
    n=$(scaled 65536); wl=tinylang$n
    echo "== hostile: $wl"
    awk -v n="$n" 'BEGIN { printf "\r\n\r\n[Perflib]\r\nBase Index=1847\r\nLast Counter=2\r\nLast Help=3"
                 for (i = 0; i < n; i++) printf "\r\n\r\n[PerfStrings_%04x]\r\n2=x", i }' |
        iconv -f UTF-8 -t UTF-16LE >"$H/$wl.ini"
    OK_EXITS="0 1 2"
    measure hostile-audit "$wl" psb "" ro "$REGTOOL" --store "psb:$H/$wl.ini" audit
    OK_EXITS=0
    rm -rf "$H"
}
[ "$HOSTILE" = 0 ] || hostile

# A fleet's PerfStringBackup files, one per machine (audit --fleet): the
# table must count the planted machines exactly.
fleet() {
    n=$FLEET wl=fleet$FLEET FL=$W/fleet
    echo "== fleet: $n PerfStringBackup files"
    mkdir -p "$FL/m"
    # shellcheck disable=SC2086
    { "$REGTOOL" --store "hive:$FL/w" init --languages 009 &&
      "$REGTOOL" --store "hive:$FL/w" install $CS "$W/prov/bench.ini" &&
      "$REGTOOL" --store "hive:$FL/w" backup "$FL/base.ini"; } >"$W/out" 2>"$W/err" ||
        { cat "$W/out" "$W/err" >&2; exit 1; }
    iconv -f UTF-16LE -t UTF-8 "$FL/base.ini" >"$FL/base.txt"
    awk '{ print } /^\[PerfStrings_009\]/ { s = 1; next } s && /^4=/ { print; s = 0 }' \
        "$FL/base.txt" | iconv -f UTF-8 -t UTF-16LE >"$FL/dup.ini"
    awk '/^\[PERF_BenchPerf\]/ { skip = 1; next } /^\[/ { skip = 0 } !skip' \
        "$FL/base.txt" | iconv -f UTF-8 -t UTF-16LE >"$FL/orphan.ini"
    i=1 dups=0 orphans=0
    while [ $i -le "$n" ]; do
        src=base
        if [ $((i % 10)) -eq 0 ]; then src=dup dups=$((dups + 1))
        elif [ $((i % 25)) -eq 0 ]; then src=orphan orphans=$((orphans + 1)); fi
        cp "$FL/$src.ini" "$FL/m/$(printf 'machine%05d.ini' "$i")"
        i=$((i + 1))
    done
    printf '%s\t%s\t%s\n' "$wl" psb "$(stat -c %s "$FL/base.ini")" >>"$SIZES"
    echo "  $n machines, $(stat -c %s "$FL/base.ini") bytes each; $dups with an index duplicated, $orphans with a section removed"
    sync
    OK_EXITS="0 1 2"
    measure fleet-audit "$wl" psb "" ro "$REGTOOL" audit --fleet "$FL/m"
    OK_EXITS=0
    got=$(awk '$1 == "duplicate-index" { d = $3 } $1 == "orphan-strings" { o = $3 }
               END { print d + 0, o + 0 }' "$W/out")
    [ "$got" = "$dups $orphans" ] ||
        { echo "bench: the fleet table counted $got, planted $dups $orphans" >&2; cat "$W/out" >&2; exit 1; }
    rm -rf "$FL"
}
[ "$FLEET" = 0 ] || fleet

echo "== check-ini of a $INI_SYMBOLS-symbol INI"
"$MKBENCH" provider "$W/ini" --symbols "$INI_SYMBOLS" >/dev/null
measure check-ini "ini-$INI_SYMBOLS" none "" ro "$REGTOOL" check-ini "$W/ini/bench.ini"

# --- the table and results.json ------------------------------------------
mkdir -p "$(dirname "$RESULTS")"
touch "$W/growth" "$W/refusal"
awk -F '\t' -v results="$RESULTS" -v runs="$RUNS" '
function num(v, fmt) { return v == "" ? "null" : sprintf(fmt, v) }
function str(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
function mark(ok) { return ok ? "met" : "MISSED" }
function commas(n,   s) {
    s = sprintf("%d", n)
    while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s)
    return s
}
FILENAME ~ /sizes/ { size[$1 "." $2] = $3; next }
FILENAME ~ /growth/ { g_wl = $1 " " $2; g_cycles = $3; g_ratio = $5 / $4; next }
FILENAME ~ /refusal/ { refusal = $0; next }
{
    n++; op[n] = $1; wl[n] = $2; lay[n] = $3; st[n] = $4
    med[n] = $5; rss[n] = $6; by[n] = $7; fs[n] = $8
    if ($1 == "floor" && $4 == "ok") floor[$2 "." $3] = $5
}
END {
    printf "\n%-18s %-8s %-8s %9s %8s %9s %7s %12s %6s  %s\n", "op", "workload",
        "layout", "median s", "floor x", "RSS MB", "RSS x", "bytes", "fsyncs", "targets"
    js = ""
    for (i = 1; i <= n; i++) {
        k = wl[i] "." lay[i]
        if (op[i] ~ /^peer-/) { peer[op[i]] = med[i]; peer_st[op[i]] = st[i]; continue }
        fr = ""; rr = ""; rmb = ""
        if (st[i] == "ok") {
            rmb = rss[i] / 1024
            if (k in floor && floor[k] > 0) fr = med[i] / floor[k]
            if (k in size && size[k] > 0) rr = rss[i] * 1024 / size[k]
        }
        tg = ""
        if (st[i] == "ok") {
            if (wl[i] == "W1" && (op[i] == "install" || op[i] == "uninstall") && fr != "")
                tg = tg " floor<=0.5x " mark(fr <= 0.5)
            if (wl[i] == "W1" && (op[i] == "names" || op[i] == "query") && fr != "")
                tg = tg " floor<=0.2x " mark(fr <= 0.2)
            if (op[i] == "check-ini")
                tg = tg " <50ms " mark(med[i] < 0.05)
            # The recovery verbs (backup, restore, repair, rebuild): at
            # most 1.5x the floor at W1 and W2; a backup holds half the
            # database at most.
            if ((wl[i] == "W1" || wl[i] == "W2") && op[i] ~ /^(backup|restore|repair|rebuild)$/ && fr != "")
                tg = tg " floor<=1.5x " mark(fr <= 1.5)
            # A fleet: 1,000 backups in 30 s, a few backups in memory.
            if (op[i] == "fleet-audit")
                tg = tg " <=30s " mark(med[i] <= 30)
            if (rr != "" && op[i] == "fleet-audit")
                tg = tg " RSS<=4x " mark(rr <= 4)
            else if (rr != "" && op[i] == "backup")
                tg = tg " RSS<=0.5x " mark(rr <= 0.5)
            else if (rr != "" && op[i] != "floor")
                tg = tg " RSS<=1.2x " mark(rr <= 1.2)
        }
        if (st[i] == "ok")
            printf "%-18s %-8s %-8s %9.4f %8s %9.1f %7s %12s %6d %s\n", op[i], wl[i], lay[i],
                med[i], fr == "" ? "-" : sprintf("%.3f", fr), rmb,
                rr == "" ? "-" : sprintf("%.2f", rr), commas(by[i]), fs[i], tg
        else
            printf "%-18s %-8s %-8s %s\n", op[i], wl[i], lay[i], st[i]
        if (op[i] == "install") { inst_t[wl[i] "." lay[i]] = med[i]; inst_b[wl[i] "." lay[i]] = by[i] }
        if (op[i] == "audit" && st[i] == "ok") audit_t[wl[i] "." lay[i]] = med[i]
        js = js (js == "" ? "" : ",\n  ") sprintf("{\"op\":%s,\"store\":%s,\"layout\":%s,\"workload\":%s,\"median_s\":%s,\"peak_rss_mb\":%s,\"bytes_written\":%s,\"fsyncs\":%s,\"floor_ratio\":%s,\"peak_rss_ratio\":%s}",
            str(op[i]), str(op[i] == "check-ini" ? "none" : op[i] == "fleet-audit" ? "psb" : "hive"), str(lay[i]), str(wl[i]),
            num(med[i], "%.6f"), num(rmb, "%.1f"), num(st[i] == "ok" ? by[i] : "", "%d"),
            num(st[i] == "ok" ? fs[i] : "", "%d"), num(fr, "%.4f"), num(rr, "%.3f"))
    }

    # Scaling on the registry layout (else files), audit speed at W1.
    lay0 = ("W0.registry" in inst_t && "W2.registry" in inst_t) ? "registry" : "files"
    sc_t = sc_b = sc_a = ""
    if (("W0." lay0) in inst_t && ("W2." lay0) in inst_t) {
        if (inst_t["W0." lay0] > 0) sc_t = inst_t["W2." lay0] / inst_t["W0." lay0]
        if (inst_b["W0." lay0] > 0) sc_b = inst_b["W2." lay0] / inst_b["W0." lay0]
        if (("W0." lay0) in audit_t && ("W2." lay0) in audit_t && audit_t["W0." lay0] > 0)
            sc_a = audit_t["W2." lay0] / audit_t["W0." lay0]
    }
    amb = ""
    for (k in audit_t) if (k ~ /^W1\./ && (amb == "" || k == "W1.registry"))
        amb = size[k] / 1048576 / audit_t[k]
    printf "\nscaling W2/W0 (%s layout): install time %s, install bytes %s, audit time %s\n", lay0,
        sc_t == "" ? "-" : sprintf("%.2fx", sc_t), sc_b == "" ? "-" : sprintf("%.2fx", sc_b),
        sc_a == "" ? (("W0." lay0) in inst_t ? "not built yet" : "-") : sprintf("%.2fx", sc_a)
    printf "audit at W1: %s\n", amb == "" ? "not built yet" : sprintf("%.1f MB/s", amb)
    if (g_cycles != "")
        printf "growth after %d install/uninstall cycles (%s): %.4fx (target <= 1.02: %s)\n",
            g_cycles, g_wl, g_ratio, mark(g_ratio <= 1.02)
    rs = ("Ws.registry" in inst_t) ? inst_t["Ws.registry"] : ""
    hc = ("peer-hivex-c" in peer) ? peer["peer-hivex-c"] : ""
    hr = ("peer-hivexregedit" in peer) ? peer["peer-hivexregedit"] : ""
    if (rs != "") {
        printf "peers at Ws: regtool install %.4f s", rs
        if (hc != "") printf "\n  libhivex program %.4f s: regtool %.2fx as fast (target >= 5x: %s)", hc, hc / rs, mark(hc / rs >= 5)
        if (hr != "") printf "\n  hivexregedit --merge %.4f s: regtool %.2fx as fast (target >= 50x: %s)", hr, hr / rs, mark(hr / rs >= 50)
        printf "\n"
    }
    if (refusal != "") printf "peers at W1: %s\n", refusal

    printf "{\"ops\":[\n  %s],\n", js > results
    printf "\"runs\":%d,\n\"audit_mb_per_s\":%s,\n", runs, num(amb, "%.2f") > results
    printf "\"scaling\":{\"install_time_w2_w0\":%s,\"install_bytes_w2_w0\":%s,\"audit_time_w2_w0\":%s},\n",
        num(sc_t, "%.4f"), num(sc_b, "%.4f"), num(sc_a, "%.4f") > results
    printf "\"growth_after_100_cycles\":%s,\n", num(g_cycles == "" ? "" : g_ratio, "%.6f") > results
    printf "\"peer\":{\"workload\":\"Ws\",\"regtool_s\":%s,\"hivex_c_s\":%s,\"hivexregedit_s\":%s,\"w1_refusal\":%s}}\n",
        num(rs, "%.6f"), num(hc, "%.6f"), num(hr, "%.6f"), refusal == "" ? "null" : str(refusal) > results
    printf "\n%s written\n", results
}' "$SIZES" "$W/growth" "$W/refusal" "$ROWS"
