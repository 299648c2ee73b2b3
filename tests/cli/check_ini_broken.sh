#!/bin/sh
# check-ini on every file in ini-samples/broken/ exits 2 with an error at
# the line and naming the symbol its first line expects (with --json, the
# same errors and warnings also on stdout, as {"errors":[],"warnings":[]}):
#   ; expect: [FILE:]LINE SYMBOL      (FILE: the symbol file, else the INI)
# and on ini-samples/warnings/ exits 0, or 1 with --strict, with a warning
# expected the same way. Every message of the broken samples is, word for
# word, one of ini-samples/broken/messages.txt, and each line there is met.
# ini-samples/skipped/ holds what was refused once and Windows' lodctr
# loads (docs/reference.md, "What lodctr loads"): each exits 0 with the key or line
# skipped (or the tab kept) in a warning, word for word one of
# ini-samples/skipped/messages.txt, and 1 with --strict.
. tests/cli/lib.sh

expectation() {
    # The first line; the UTF-16 sample's ASCII survives dropping NULs.
    exp=$(head -c 300 "$1" | tr -d '\000\r' | head -n 1)
    case $exp in
        "; expect: "*) ;;
        *) fail "$1: first line is not '; expect: [FILE:]LINE SYMBOL'" ;;
    esac
    set -- "$1" ${exp#; expect: }
    case $2 in
        *:*) where="$(dirname "$1")/${2%%:*}:${2##*:}" ;;
        *)   where="$1:$2" ;;
    esac
    symbol=$3
}

count=0
for f in ini-samples/broken/*.ini; do
    expectation "$f"
    for json in "" --json; do
        expect_exit 2 "$REGTOOL" check-ini $json "$f"
        if [ -n "$json" ]; then
            # The errors on stdout too, as the lines stderr shows.
            jq -e --arg w "$where: error: " \
                '(keys == ["errors", "warnings"]) and
                 any(.errors[]; startswith($w))' "$OUT" >/dev/null ||
                { cat "$OUT" >&2; fail "$f: --json has no error at $where"; }
            jq -r '.errors[], .warnings[]' "$OUT" | sort >"$TMPDIR/json-lines"
            sort "$ERR" | diff - "$TMPDIR/json-lines" >&2 ||
                fail "$f: --json's errors and warnings differ from stderr"
        else
            [ ! -s "$OUT" ] || fail "$f: stdout not empty despite errors"
        fi
        grep -F -- "$where: error: " "$ERR" | grep -Fq -- "$symbol" || {
            cat "$ERR" >&2
            fail "$f: no error at $where naming $symbol"
        }
        # Every line of stderr is one diagnostic.
        if grep -v -E '^[^ ]+(:[0-9]+)?: (error|warning): ' "$ERR"; then
            fail "$f: stray output on stderr"
        fi
        [ -n "$json" ] || cat "$ERR" >>"$TMPDIR/messages"
    done
    count=$((count + 1))
done
[ "$count" -ge 18 ] || fail "only $count broken samples"
sort ini-samples/broken/messages.txt >"$TMPDIR/want"
sort "$TMPDIR/messages" >"$TMPDIR/got"
diff "$TMPDIR/want" "$TMPDIR/got" >&2 ||
    fail "messages differ from ini-samples/broken/messages.txt (< expected)"

for f in ini-samples/warnings/*.ini; do
    expectation "$f"
    expect_exit 0 "$REGTOOL" check-ini "$f"
    grep -F -- "$where: warning: " "$ERR" | grep -Fq -- "$symbol" ||
        fail "$f: no warning at $where naming $symbol"
    expect_exit 1 "$REGTOOL" check-ini --strict "$f"
    expect_exit 1 "$REGTOOL" check-ini --strict --json "$f"
    jq -e --arg w "$where: warning: " \
        'any(.warnings[]; startswith($w))' "$OUT" >/dev/null ||
        fail "$f: warning missing from the JSON"
done

: >"$TMPDIR/skipped"
for f in ini-samples/skipped/*.ini; do
    expectation "$f"
    expect_exit 0 "$REGTOOL" check-ini "$f"
    grep -F -- "$where: warning: " "$ERR" | grep -Fq -- "$symbol" ||
        fail "$f: no warning at $where naming $symbol"
    if grep -q ': error: ' "$ERR"; then fail "$f: errors"; fi
    cat "$ERR" >>"$TMPDIR/skipped"
    expect_exit 1 "$REGTOOL" check-ini --strict "$f"
    expect_exit 1 "$REGTOOL" check-ini --strict --json "$f"
    jq -e --arg w "$where: warning: " \
        'any(.warnings[]; startswith($w))' "$OUT" >/dev/null ||
        fail "$f: warning missing from the JSON"
done
sort ini-samples/skipped/messages.txt >"$TMPDIR/want"
sort "$TMPDIR/skipped" >"$TMPDIR/got"
diff "$TMPDIR/want" "$TMPDIR/got" >&2 ||
    fail "messages differ from ini-samples/skipped/messages.txt (< expected)"
exit 0
