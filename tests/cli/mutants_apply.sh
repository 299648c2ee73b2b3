# make mutants' list does not rot: every mutant's edit applies exactly once
# to today's code (tools/check-mutants.sh, no build), and the check catches
# an anchor that no longer matches and one that matches twice.
. tests/cli/lib.sh

expect_exit 0 sh tools/check-mutants.sh .
expect_grep "^mutants: all [0-9]* edits of [0-9]* mutants apply$" "$OUT"

copy() {
    rm -rf "$TMPDIR/tree"; mkdir -p "$TMPDIR/tree"
    cp -r lib regtool tools "$TMPDIR/tree/"
}

# The code a mutant plants in, changed under it: its anchor gone.
copy
sed -i 's/if (n \&\& text\[n - 1\] == /if (n > 0 \&\& text[n - 1] == /' \
    "$TMPDIR/tree/lib/model/perf_backup_text.c"
expect_exit 1 sh tools/check-mutants.sh "$TMPDIR/tree"
expect_grep "lib/model/perf_backup_text.c: psb-text-trailing-lf-kept: OLD occurs 0 times" "$OUT"

# ... or its anchor met twice.
copy
printf '\n/*\n    if (n && text[n - 1] ==\n */\n' >>"$TMPDIR/tree/lib/model/perf_backup_text.c"
expect_exit 1 sh tools/check-mutants.sh "$TMPDIR/tree"
expect_grep "psb-text-trailing-lf-kept: OLD occurs 2 times" "$OUT"
echo "mutants_apply: ok"
