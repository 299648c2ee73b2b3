#!/bin/sh
# make mutants: plants one-line bugs, one at a time, in a scratch copy of
# the tree (never in this one), runs the fastest test that must catch
# each, and prints a table. Every mutant must be caught: the script exits
# 1 if one survives, and 2 if an edit no longer applies exactly once or a
# mutant does not build (the list must not rot silently).
#   sh tools/mutants.sh [NAME...]     only the mutants named
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$(cd "$ROOT/.." && pwd)/shared}; export SHARED
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rtmut.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT INT TERM
T=$SCRATCH/tree
mkdir -p "$T"
# The working tree's tracked files as they are now (edits included).
(cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$T") ||
    { echo "mutants: cannot copy the tree" >&2; exit 2; }
JOBS=${JOBS:-2}
ONLY="$*"
LOG=$SCRATCH/log
TABLE=$SCRATCH/table
: >"$TABLE"
status=0

# build_and_run TARGET: builds what TARGET needs in the scratch tree and
# runs it; 0 passed, 1 failed, 2 did not build.
build_and_run() {
    case "$1" in
    unit:*)
        bin=build/tests/${1#unit:}
        (cd "$T" && make -s -j"$JOBS" "$bin") >"$LOG" 2>&1 || return 2
        (cd "$T" && "./$bin") >>"$LOG" 2>&1 || return 1 ;;
    cli:*)
        (cd "$T" && make -s -j"$JOBS" build/regtool) >"$LOG" 2>&1 || return 2
        (cd "$T" && sh tests/run-cli.sh "$T/build/regtool" "tests/cli/${1#cli:}") \
            >>"$LOG" 2>&1 || return 1 ;;
    *) echo "mutants: unknown target $1" >&2; return 2 ;;
    esac
    return 0
}

# replace FILE: OLD by NEW (environment), exactly one occurrence.
replace() {
    OLD=$OLD NEW=$NEW python3 - "$1" <<'PY'
import os, sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
old, new = os.environ["OLD"], os.environ["NEW"]
n = s.count(old)
if n != 1:
    sys.exit("%s: the mutant's anchor occurs %d times, not once:\n%s" % (p, n, old))
open(p, "w", encoding="utf-8").write(s.replace(old, new, 1))
PY
}

baseline_done=""
# mutant NAME FILE TARGET (OLD and NEW set): plants, tests, restores.
mutant() {
    name=$1 file=$2 target=$3
    if [ -n "$ONLY" ]; then
        case " $ONLY " in *" $name "*) ;; *) return 0 ;; esac
    fi
    # The unmutated tree must pass the target first: a failing target
    # would "catch" every mutant.
    case " $baseline_done " in
    *" $target "*) ;;
    *)
        build_and_run "$target"
        r=$?
        if [ $r -ne 0 ]; then
            cat "$LOG" >&2
            echo "mutants: $target fails without any mutant" >&2
            exit 2
        fi
        baseline_done="$baseline_done $target" ;;
    esac
    cp -p "$T/$file" "$SCRATCH/orig"
    if ! replace "$T/$file"; then
        echo "mutants: $name: the edit does not apply to $file" >&2
        exit 2
    fi
    build_and_run "$target"
    r=$?
    cp "$SCRATCH/orig" "$T/$file"   # a new mtime: rebuilt next time
    case $r in
    0) result="NOT CAUGHT"; status=1 ;;
    1) result=caught
       # What failed: cmocka's failed tests, or the CLI script's FAIL line.
       by=$(sed -n 's/^\[  FAILED  \] \([A-Za-z_0-9]*\)$/\1/p' "$LOG" | sort -u | tr '\n' ' ' | sed 's/ $//')
       [ -n "$by" ] || by=$(grep -m1 '^FAIL: ' "$LOG" | cut -c7-140)
       result="caught ($by)" ;;
    *) cat "$LOG" >&2
       echo "mutants: $name does not build" >&2
       exit 2 ;;
    esac
    printf '| %s | %s | %s | %s |\n' "$name" "$file" "$target" "$result" >>"$TABLE"
    printf '%-22s %-24s %s\n' "$name" "$target" "$result" >&2
}

# --- the mutants -------------------------------------------------------

OLD='        uint64_t first = (top + 2 + 1) & ~(uint64_t)1;   /* next even */'
NEW='        uint64_t first = top + 2;   /* next even */'
mutant first-index-odd lib/engine/engine.c unit:test_engine

OLD='        if (target_switch(&t, base, rel, e) != 0)
            return -1;'
NEW='        if (body - pos == (uint64_t)len)
            break;   /* the last record skipped */
        if (target_switch(&t, base, rel, e) != 0)
            return -1;'
mutant journal-last-record lib/commit/journal.c unit:test_journal

OLD='        if (!nalloc) {'
NEW='        if (0 && !nalloc) {'
mutant cell-merge-next lib/regf/cell.c unit:test_regf_write

OLD='        if (!palloc && prev + ps == off) {'
NEW='        if (0 && !palloc && prev + ps == off) {'
mutant cell-merge-prev lib/regf/cell.c unit:test_regf_write

OLD='    snprintf(s->services, sizeof s->services, "ControlSet%03u\\Services",
             current);'
NEW='    snprintf(s->services, sizeof s->services, "ControlSet%03u\\Services",
             1u);'
mutant control-set-001 lib/store/store_hive.c unit:test_engine_hive

OLD='                (s->syswow64 &&
                 stage_dat(p, s->syswow64, c->lang, c->table, &c->value)))'
NEW='                (0 && s->syswow64 &&
                 stage_dat(p, s->syswow64, c->lang, c->table, &c->value)))'
mutant syswow64-unwritten lib/store/store_hive.c cli:install_hive.sh

OLD='        if (take_range(&w[i].counter, plan->first_counter, plan->last_counter,
                       &w[i].removed_c) ||'
NEW='        if (take_range(&w[i].counter, plan->first_counter, plan->last_counter - 2,
                       &w[i].removed_c) ||'
mutant uninstall-one-short lib/engine/engine.c unit:test_engine

OLD='    return get32(t + 16) == rt_crc32(0, b, *body);'
NEW='    return get32(t + 16) == get32(t + 16);'
mutant journal-crc-skipped lib/commit/journal.c unit:test_journal

OLD='    if (v == 0)
        return RT_MSZ_INDEX_ZERO;'
NEW='    if (v == 0 && 0)
        return RT_MSZ_INDEX_ZERO;'
mutant multi-sz-index-zero lib/model/multi_sz.c unit:test_multi_sz

OLD='           va == vb;'
NEW='           (va & 0xff) == (vb & 0xff);'
mutant lang-primary-only lib/model/lang_id.c unit:test_lang_id

OLD='    uint32_t v = out->on_top ? out->found_at : old;'
NEW='    uint32_t v = out->on_top ? last : old;'
mutant last-counter-kept-high lib/engine/engine.c unit:test_engine

OLD='    if (base > v) {'
NEW='    if (base > v && 0) {'
mutant last-below-base-index lib/engine/engine.c unit:test_engine

OLD='        uint64_t top = top_c > top_h - 1 ? top_c : top_h - 1;'
NEW='        uint64_t top = top_c;'
mutant top-ignores-last-help lib/engine/engine.c unit:test_engine

# --- the table ---------------------------------------------------------

for n in $ONLY; do
    grep -q "^| $n |" "$TABLE" || { echo "mutants: no mutant named $n" >&2; exit 2; }
done

echo
echo "| mutant | planted in | test | result |"
echo "|---|---|---|---|"
cat "$TABLE"
[ $status -eq 0 ] && echo "all $(wc -l <"$TABLE") mutants caught" ||
    echo "some mutants were NOT CAUGHT"
exit $status
