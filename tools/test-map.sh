# Sourced by tools/mutation-score.sh: which CLI scripts run which lines.
# A mutant is judged by the tests that reach it: the fast suites, and
# then the scripts of make check that run its line (a bug in the
# Prometheus writer is for the Prometheus tests to catch, which the fast
# suites do not hold). The map is made once per tree: every script run on
# a gcov build (COV=1), each with counters of its own (GCOV_PREFIX), and
# gcov's JSON read for the lines it ran.
#
# build_test_map TREE MAP JOBS AS OWNER SKIP: in TREE (its sources; the
# coverage build is made in TREE/build/cov), runs each tests/cli/*.sh but
# those of SKIP (names) and those that run make in the build directory,
# JOBS at a time, as AS (a command prefix; empty: as the caller) whose
# counters' folders are given to OWNER (user:group; empty: none), and
# writes MAP/lines ("FILE:LINE SCRIPT", sorted), MAP/times ("SECONDS
# SCRIPT" of those that passed) and MAP/failed (scripts that fail on the
# coverage build: slower and larger than the plain one, a bound on time
# or memory may not hold there; their lines are not in the map).
build_test_map() {
    (
    tree=$1 map=$2 jobs=$3 as=$4 owner=$5 skip=" $6 "
    cd "$tree" || exit 1
    rm -rf "$map" && mkdir -p "$map/cov" || exit 1
    make -s -j"$jobs" BUILD=build/cov COV=1 cli-programs \
        >"$map/build.log" 2>&1 || { cat "$map/build.log" >&2; exit 1; }
    for s in tests/cli/*.sh; do
        b=${s##*/}
        case "$skip lib.sh make_install.sh api_library.sh make_demo.sh " in
        *" $b "*) continue ;;
        esac
        mkdir -p "$map/cov/$b" || exit 1
        echo "$s"
    done >"$map/scripts"
    mkdir -p "$map/tmp" || exit 1
    [ -z "$owner" ] || chown -R "$owner" "$map/cov" "$map/tmp" || exit 1
    : >"$map/times"; : >"$map/failed"
    M=$map REGTOOL=$tree/build/cov/regtool AS=$as xargs -P "$jobs" -I{} sh -c '
        s=$1 b=${1##*/}; start=$(date +%s)
        if TMPDIR=$M/tmp HOME=$M/tmp GCOV_PREFIX=$M/cov/$b GCOV_PREFIX_STRIP=0 \
           CLI_JOBS=1 $AS sh tests/run-cli.sh "$REGTOOL" "$s" >"$M/cov/$b.log" 2>&1; then
            echo "$(( $(date +%s) - start )) $b" >>"$M/times"
        else
            echo "$b" >>"$M/failed"
        fi' sh {} <"$map/scripts"
    # Each passing script's counters read with the build's notes (.gcno)
    # beside them: the lines of lib/ and regtool/ it ran.
    obj=$tree/build/cov/obj
    while read -r secs b; do
        d=$map/cov/$b$obj
        [ -d "$d" ] || continue
        (cd "$obj" && find . -name '*.gcno') | while read -r g; do
            [ -e "$d/${g%.gcno}.gcda" ] && ln -sf "$obj/$g" "$d/$g"
        done
        for dir in $(cd "$d" && find . -name '*.gcda' -exec dirname {} \; | sort -u); do
            gcov --json-format --stdout -o "$d/$dir" "$d/$dir"/*.gcda 2>/dev/null
        done | jq -r --arg s "$b" '.files[] | .file as $f |
            select($f | test("^(lib|regtool)/")) |
            .lines[] | select(.count > 0) | "\($f):\(.line_number) \($s)"'
    done <"$map/times" | sort -u >"$map/lines.tmp" &&
    mv "$map/lines.tmp" "$map/lines" && rm -rf "$map/cov" "$map/tmp"
    )
}

# covering_scripts MAP FILE LINE BUDGET SKIP: the scripts of MAP that run
# FILE's line LINE, but those of SKIP, fastest first, while their time in
# all stays within BUDGET seconds; as "cli:tests/cli/NAME", one a line.
covering_scripts() {
    sort -n "$1/times" | awk -v key="$2:$3" -v budget="$4" -v skip=" $5 " '
        FILENAME != "-" { if ($1 == key) want[$2] = 1; next }
        ($2 in want) && index(skip, " " $2 " ") == 0 {
            if (used + $1 > budget) exit
            used += $1; print "cli:tests/cli/" $2
        }' "$1/lines" -
}
