#!/bin/sh
# The coverage report of lib/ and its targets (make coverage runs it after
# the unit and CLI suites ran on the instrumented build).
#   sh tools/coverage.sh BUILD OUT DOC
# BUILD: the COV=1 build directory holding the gcov counters (.gcda);
# OUT: where the report goes: index.html (gcovr's, file by file, line by
# line), summary.json, files.txt (the per-file table printed below);
# DOC: the document whose "## Coverage" section lists, under "### Files
# below target", one entry a line, the lib/ files below target and why
# (docs/testing.md).
# Targets: 85% of lines and 75% of branches, file by file. A file below
# either is listed; the run fails if one of them has no line in DOC's
# section. Lines marked LCOV_EXCL_LINE (or inside LCOV_EXCL_START/STOP)
# are not counted: they are unreachable defensive code, each mark with a
# comment saying why it cannot run.
# The last line is "coverage: lines L% branches B%" for lib/ as a whole.
set -eu
BUILD=$1 OUT=$2 DOC=$3
LINE_TARGET=85 BRANCH_TARGET=75

ls "$BUILD"/obj/lib/*/*.gcda >/dev/null 2>&1 || {
    echo "coverage: no counters under $BUILD/obj/lib (run the suites on a COV=1 build first)" >&2
    exit 1
}
rm -rf "$OUT"
mkdir -p "$OUT"
# Only lib/: the CLI (regtool/) and the tests are drivers here.
nice gcovr --root . --filter 'lib/' --object-directory "$BUILD/obj" \
    --html-details "$OUT/index.html" --json-summary-pretty \
    --json-summary "$OUT/summary.json" "$BUILD/obj" >/dev/null

# One row per file: name, lines covered/total, branches covered/total.
jq -r '.files[] | [.filename, .line_covered, .line_total,
                   .branch_covered, .branch_total] | @tsv' \
    "$OUT/summary.json" | sort >"$OUT/rows.tsv"

# The lib/ files DOC's "## Coverage" section names (up to the next "## ").
# Only the entries of its "### Files below target" list count, each a
# line "- `lib/FILE.c` (L% lines, B% branches): why": a file merely
# mentioned elsewhere in the section (a run's notes) is not explained.
explained=$(awk '/^## /{in_section = ($0 ~ /^## Coverage/); listed = 0; next}
                 in_section && /^### /{listed = ($0 ~ /^### Files below target/); next}
                 in_section && listed && /^- `lib\//' "$DOC" 2>/dev/null |
            grep -o 'lib/[A-Za-z0-9_/]*\.c' | sort -u || true)

awk -F '\t' -v lt="$LINE_TARGET" -v bt="$BRANCH_TARGET" \
    -v explained="$explained" '
    function pct(c, t) { return t == 0 ? 100 : 100 * c / t }
    BEGIN {
        n = split(explained, names, "\n")
        for (i = 1; i <= n; i++) known[names[i]] = 1
        printf "%-36s %8s %9s  %s\n", "file", "lines", "branches", "target (85% lines, 75% branches)"
    }
    {
        lp = pct($2, $3); bp = pct($4, $5)
        below = ($2 * 100 < lt * $3) || ($4 * 100 < bt * $5)
        note = !below ? "" : ($1 in known) ? "below, explained in docs/testing.md" \
                                           : "BELOW, NOT EXPLAINED"
        printf "%-36s %7.1f%% %8.1f%%  %s\n", $1, lp, bp, note
    }' "$OUT/rows.tsv" >"$OUT/files.txt"
cat "$OUT/files.txt"

unexplained=$(grep -c 'BELOW, NOT EXPLAINED' "$OUT/files.txt" || true)
if [ "$unexplained" -gt 0 ]; then
    echo "coverage: $unexplained lib/ file(s) below target with no line in $DOC (## Coverage):"
    grep 'BELOW, NOT EXPLAINED' "$OUT/files.txt" | awk '{print "  " $1}'
fi
echo "coverage: report in $OUT/index.html, table in $OUT/files.txt"
jq -r '"coverage: lines \(.line_percent)% branches \(.branch_percent)%"' \
    "$OUT/summary.json"
[ "$unexplained" -eq 0 ]
