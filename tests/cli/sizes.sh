# The size check (tools/check-sizes.sh, issue 41) passes on the tree,
# naming what is left to split, and fails naming a file over 1,000 lines
# and a function over 120; a struct or an initializer is no function, a
# function of exactly 120 lines passes, and a file or function listed to
# split is named, not failed.
. tests/cli/lib.sh

expect_exit 0 sh tools/check-sizes.sh .
if grep "split it" "$OUT"; then fail "the tree has something to split that is not listed"; fi

copy() {
    rm -rf "$TMPDIR/tree"; mkdir -p "$TMPDIR/tree"
    cp -r lib regtool tools "$TMPDIR/tree/"
}
# lines N: N lines of a statement each.
lines() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) print "    x++;" }'; }

# A file over 1,000 lines: 1,001 lines of one function's worth of small ones.
copy
awk 'BEGIN { for (i = 0; i < 143; i++) printf "int f%d(void)\n{\n    int x = 0;\n    x++;\n    x++;\n    return x;\n}\n", i }' \
    >"$TMPDIR/tree/lib/model/big.c"
[ "$(wc -l <"$TMPDIR/tree/lib/model/big.c")" -eq 1001 ] || fail "big.c is not 1,001 lines"
expect_exit 1 sh tools/check-sizes.sh "$TMPDIR/tree"
expect_grep "lib/model/big.c: 1001 lines, over 1000: split it along its seams" "$OUT"

# A function of 121 lines (signature on two lines, "{", body, "}") fails,
# named at its first line; one of 120 passes; a long initializer and a
# long struct do not count.
copy
{
    echo '#include <stddef.h>'
    echo 'static const int table[] = {'
    lines 200 | sed 's/.*/    1,/'
    echo '};'
    echo 'struct big {'
    lines 200 | sed 's/.*/    int a;/'
    echo '};'
    echo 'static int just_fits(int x,'
    echo '                     int y)'
    echo '{'
    lines 116
    echo '}'
    echo 'int one_too_long(int x)'
    echo '{'
    lines 118
    echo '}'
} >"$TMPDIR/tree/regtool/long.c"
expect_exit 1 sh tools/check-sizes.sh "$TMPDIR/tree"
expect_grep "regtool/long.c:[0-9]*: one_too_long: 121 lines, over 120: split it into named steps" "$OUT"
if grep -q "just_fits\|table\|big" "$OUT"; then cat "$OUT" >&2; fail "counted what fits, or a struct or initializer"; fi
line=$(grep -n '^int one_too_long' "$TMPDIR/tree/regtool/long.c" | cut -d: -f1)
expect_grep "regtool/long.c:$line: one_too_long" "$OUT"

# Listed to split (a file, and FILE:FUNCTION, in the copy's own script):
# named, not failed.
awk 'BEGIN { for (i = 0; i < 143; i++) printf "int f%d(void)\n{\n    int x = 0;\n    x++;\n    x++;\n    return x;\n}\n", i }' \
    >"$TMPDIR/tree/lib/model/big.c"
sed -i 's|^TO_SPLIT="|TO_SPLIT="lib/model/big.c regtool/long.c:one_too_long |' \
    "$TMPDIR/tree/tools/check-sizes.sh"
grep -q '^TO_SPLIT="lib/model/big.c regtool/long.c:one_too_long' \
    "$TMPDIR/tree/tools/check-sizes.sh" || fail "TO_SPLIT not found in tools/check-sizes.sh"
expect_exit 0 sh "$TMPDIR/tree/tools/check-sizes.sh" "$TMPDIR/tree"
expect_grep "lib/model/big.c: 1001 lines (over 1000; to split: issue 41)" "$OUT"
expect_grep "regtool/long.c:[0-9]*: one_too_long: 121 lines (over 120; to split: issue 41)" "$OUT"
echo "sizes: ok"
