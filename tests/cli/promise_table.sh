# docs/promises.md, the table of README's promises and the tests that
# hold them, cannot name a test that is not there. Every `tests/...` or
# `tests/wine/...` reference in its rows must resolve:
#   `FILE`            the file exists;
#   `FILE#TEXT`       the file holds TEXT word for word (the check);
#   `FILE:FUNCTION`   FUNCTION is defined in FILE as a test function
#                     (void FUNCTION(void **state)) and registered with
#                     cmocka somewhere under tests/, so that it runs.
# The checker is first run on rows naming a missing file, a missing check
# and a missing function, each of which it must refuse.
. tests/cli/lib.sh

# check TABLE: prints each reference that does not resolve; exit 1 if any.
check() {
    grep '^|' "$1" | grep -o '`[^`]*`' | sed 's/^`//; s/`$//' |
        grep -E '^(wine-)?tests/' >"$TMPDIR/refs"
    [ -s "$TMPDIR/refs" ] || { echo "$1: no test named"; return 1; }
    # The registrations, each on one line (they wrap).
    cat tests/*.c tests/*.h | tr '\n' ' ' | tr -s ' ' >"$TMPDIR/registered"
    bad=0
    while IFS= read -r ref; do
        case $ref in
        *#*)
            file=${ref%%#*}; text=${ref#*#}
            if [ ! -f "$file" ]; then echo "$ref: no file $file"; bad=1
            elif ! grep -qF -- "$text" "$file"; then echo "$ref: $file does not hold '$text'"; bad=1
            fi ;;
        *.c:*|*.h:*)
            file=${ref%%:*}; fn=${ref#*:}
            if [ ! -f "$file" ]; then echo "$ref: no file $file"; bad=1
            elif ! grep -Eq "^(static )?void $fn\(void \*\*" "$file"; then
                echo "$ref: no test function $fn in $file"; bad=1
            elif ! grep -Eq "unit_test[a-z_]*\( ?$fn[ ,)]" "$TMPDIR/registered"; then
                echo "$ref: $fn is not registered to run"; bad=1
            fi ;;
        *)
            [ -f "$ref" ] || { echo "$ref: no such file"; bad=1; } ;;
        esac
    done <"$TMPDIR/refs"
    return $bad
}

T=docs/promises.md
[ -f "$T" ] || fail "no $T"
# The checker catches each kind of rot.
for row in '`tests/cli/no_such_script.sh`' \
           '`tests/cli/messages.sh#a check no script holds, 4ab1`' \
           '`tests/test_journal.c:no_such_test_function`' \
           '`tests/test_journal.c:make_victim`'; do
    printf '| a promise | %s |\n' "$row" >"$TMPDIR/rotten.md"
    if check "$TMPDIR/rotten.md" >"$OUT"; then
        fail "the checker accepts $row"
    fi
done
check "$T" >"$OUT" || { cat "$OUT" >&2; fail "$T names tests that are not there (above)"; }
echo "promise table: $(wc -l <"$TMPDIR/refs") references, each found"
