# Real producers' INIs, as a new user would try them: every INI of
# $SHARED/research-real/provider-corpus/ (its README.md and INDEX.tsv say
# where each comes from; they are read where they are, never copied into
# the project) installs with nothing but warnings, resolves (query, and
# every name and help text of the machine's languages is the INI's, as
# check-ini --json reads it), audits clean and uninstalls back to
# identical tables (names --json and names --help-text --json of every
# language, as real_providers_install.sh compares them). In both layouts
# (files and registry), one at a time, then all together and removed in
# another order.
. tests/cli/lib.sh
command -v jq >/dev/null || fail "jq is needed (tools/deps.sh installs it)"

C=$SHARED/research-real/provider-corpus
[ -f "$C/INDEX.tsv" ] || fail "no corpus at $C"
CS="--create-service --library x.dll --open O --collect C --close X"
LANGS="009 007 00C"

# The corpus's entries: DIR INI, one a line.
awk -F'\t' 'NR > 1 { print $1 "\t" $2 }' "$C/INDEX.tsv" >"$TMPDIR/entries"
[ "$(wc -l <"$TMPDIR/entries")" -ge 11 ] || fail "fewer than 11 corpus entries"

tables() {
    for l in $LANGS; do
        "$REGTOOL" $S names --lang $l --json
        "$REGTOOL" $S names --lang $l --help-text --json
    done
}
first_of() {
    "$REGTOOL" $S query --json "$1" | sed -n 's/.*"first_counter":\([0-9]*\).*/\1/p'
}

# install_one DIR INI [--replace]: installs it (a fresh tree registers
# ESENT and .NETFramework: their service keys are there already), with
# warnings at most, each naming the INI or its symbol file and a line.
install_one() {
    _path=$C/$1/$2
    drv=$("$REGTOOL" check-ini --json "$_path" | jq -r .drivername)
    case $drv in
        ESENT|.NETFramework) set -- "$_path" ${3:-} ;;
        *) set -- $CS "$_path" ${3:-} ;;
    esac
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" $S install "$@"
    if grep -v -E '^[^ ]+:[0-9]+: warning: |: warning: language [^ ]+ is in the INI but not on this machine' "$ERR"; then
        fail "$_path: install said more than warnings (above)"
    fi
}

# check_texts DIR INI: every text the INI gives a language of the machine
# is the one installed at first + offset.
check_texts() {
    _path=$C/$1/$2
    "$REGTOOL" check-ini --json "$_path" >"$TMPDIR/spec.json" 2>/dev/null ||
        fail "$_path: check-ini"
    drv=$(jq -r .drivername "$TMPDIR/spec.json")
    f=$(first_of "$drv")
    [ -n "$f" ] || fail "$_path: $drv has no First Counter"
    for l in $LANGS; do
        jq -e --arg l "$l" '.languages | index($l)' "$TMPDIR/spec.json" >/dev/null ||
            continue
        for kind in name help; do
            jq -r --arg l "$l" --arg k "$kind" --argjson f "$f" \
                '.symbols[] | select(.text[$l][$k] != null)
                 | "\($f + .offset + (if $k == "help" then 1 else 0 end))\t\(.text[$l][$k])"' \
                "$TMPDIR/spec.json" | sort >"$TMPDIR/want"
            [ -s "$TMPDIR/want" ] || [ "$l$kind" != 009name ] ||
                fail "$_path: no 009 name to compare"
            [ -s "$TMPDIR/want" ] || continue
            if [ $kind = help ]; then h=--help-text; else h=; fi
            # shellcheck disable=SC2086
            "$REGTOOL" $S names --lang $l $h --json |
                jq -r '.[] | "\(.index)\t\(.text)"' | sort >"$TMPDIR/all"
            comm -23 "$TMPDIR/want" "$TMPDIR/all" >"$TMPDIR/missing"
            [ ! -s "$TMPDIR/missing" ] || {
                head -5 "$TMPDIR/missing" >&2
                fail "$_path: $l ${kind}s not installed as the INI gives them"
            }
        done
    done
}

for layout in files registry; do
    D=$TMPDIR/$layout
    S="--store hive:$D"
    expect_exit 0 "$REGTOOL" $S init --languages 009,007,00C --layout $layout
    # The corpus replaces these two of a fresh tree.
    expect_exit 0 "$REGTOOL" $S uninstall ESENT
    expect_exit 0 "$REGTOOL" $S uninstall .NETFramework
    tables >"$TMPDIR/before"

    # One at a time.
    while IFS="$(printf '\t')" read -r dir ini; do
        install_one "$dir" "$ini"
        check_texts "$dir" "$ini"
        expect_exit 0 "$REGTOOL" $S audit
        expect_exit 0 "$REGTOOL" $S uninstall "$drv"
        tables | cmp -s - "$TMPDIR/before" ||
            fail "$layout: $dir: tables differ after uninstall"
    done <"$TMPDIR/entries"

    # All together (a second INI of one drivername replaces the first),
    # each still resolving, then removed in another order.
    : >"$TMPDIR/drivers"
    while IFS="$(printf '\t')" read -r dir ini; do
        d=$("$REGTOOL" check-ini --json "$C/$dir/$ini" | jq -r .drivername)
        if grep -qxF -- "$d" "$TMPDIR/drivers"; then
            install_one "$dir" "$ini" --replace
        else
            install_one "$dir" "$ini"
            echo "$d" >>"$TMPDIR/drivers"
        fi
        printf '%s\t%s\n' "$dir" "$ini" >>"$TMPDIR/last-$d"
    done <"$TMPDIR/entries"
    expect_exit 0 "$REGTOOL" $S audit
    while IFS= read -r d; do
        last=$(tail -n 1 "$TMPDIR/last-$d")
        check_texts "$(echo "$last" | cut -f1)" "$(echo "$last" | cut -f2)"
        rm -f "$TMPDIR/last-$d"
    done <"$TMPDIR/drivers"
    # Every other one first, then the rest from the end.
    { awk 'NR % 2 == 0' "$TMPDIR/drivers"; awk 'NR % 2 == 1' "$TMPDIR/drivers" | tac; } \
        >"$TMPDIR/order"
    [ "$(sort "$TMPDIR/order")" = "$(sort "$TMPDIR/drivers")" ] || fail "order"
    while IFS= read -r d; do
        expect_exit 0 "$REGTOOL" $S uninstall "$d"
        expect_exit 0 "$REGTOOL" $S audit
    done <"$TMPDIR/order"
    tables | cmp -s - "$TMPDIR/before" ||
        fail "$layout: tables differ after uninstalling all"
done
echo "provider corpus: ok"
