# Real producers' INIs, as a new user would try them: every INI of the
# corpora below installs with nothing but warnings, resolves (query, and
# every name and help text of the machine's languages is the INI's, as
# check-ini --json reads it, found at its index by an independent reader:
# hivexget on the SOFTWARE hive, iconv on the files layout's perfc/perfh
# tables), audits clean and uninstalls back to identical tables (names
# --json and names --help-text --json of every language, as
# real_providers_install.sh compares them). In both layouts (files and
# registry), one at a time, then all together and removed in another
# order. The corpora, read where they are, never copied into the project:
# - $SHARED/research-real/provider-corpus/ (11 producers; its README.md
#   and INDEX.tsv say where each comes from), and any further
#   $SHARED/research-real/provider-corpus-*/ with an INDEX.tsv of the same
#   columns (DIR INI first);
# - Microsoft's SDK samples perfgen and appmem (MIT), in
#   $SHARED/research-real/providers/;
# - each directory with an INDEX.tsv named in PROVIDER_CORPORA
#   (colon-separated), for a corpus not in $SHARED yet.
. tests/cli/lib.sh
command -v jq >/dev/null || fail "jq is needed (tools/deps.sh installs it)"
command -v hivexget >/dev/null || fail "hivexget is needed (tools/deps.sh installs it)"

C=$SHARED/research-real/provider-corpus
[ -f "$C/INDEX.tsv" ] || fail "no corpus at $C"
CS="--create-service --library x.dll --open O --collect C --close X"
LANGS="009 007 00C"

# The corpora's entries: INI path, one a line.
: >"$TMPDIR/entries"
add_corpus() {
    [ -f "$1/INDEX.tsv" ] || fail "no INDEX.tsv in $1"
    awk -F'\t' -v c="$1" 'NR > 1 && NF >= 2 { print c "/" $1 "/" $2 }' \
        "$1/INDEX.tsv" >>"$TMPDIR/entries"
}
add_corpus "$C"
[ "$(wc -l <"$TMPDIR/entries")" -ge 11 ] || fail "fewer than 11 corpus entries"
for extra in "$C"-*/; do
    [ -f "$extra/INDEX.tsv" ] && add_corpus "${extra%/}"
done
echo "$SHARED/research-real/providers/perfgen/Perfgen.Ini" >>"$TMPDIR/entries"
echo "$SHARED/research-real/providers/appmem/AppMem.Ini" >>"$TMPDIR/entries"
if [ -n "${PROVIDER_CORPORA:-}" ]; then
    old_ifs=$IFS
    IFS=:
    for extra in $PROVIDER_CORPORA; do
        IFS=$old_ifs
        add_corpus "$extra"
    done
    IFS=$old_ifs
fi
while IFS= read -r ini; do
    [ -f "$ini" ] || fail "corpus entry $ini does not exist"
done <"$TMPDIR/entries"
echo "provider corpus: $(wc -l <"$TMPDIR/entries") INIs"

tables() {
    for l in $LANGS; do
        "$REGTOOL" $S names --lang $l --json
        "$REGTOOL" $S names --lang $l --help-text --json
    done
}
first_of() {
    "$REGTOOL" $S query --json "$1" | sed -n 's/.*"first_counter":\([0-9]*\).*/\1/p'
}

# install_one INI [--replace]: installs it (a fresh tree registers
# ESENT and .NETFramework: their service keys are there already), with
# warnings at most, each naming the INI or its symbol file and a line.
install_one() {
    _path=$1
    drv=$("$REGTOOL" check-ini --json "$_path" | jq -r .drivername)
    case $drv in
        ESENT|.NETFramework) set -- "$_path" ${2:-} ;;
        *) set -- $CS "$_path" ${2:-} ;;
    esac
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" $S install "$@"
    if grep -v -E '^[^ ]+:[0-9]+: warning: |: warning: language [^ ]+ is in the INI but not on this machine' "$ERR"; then
        fail "$_path: install said more than warnings (above)"
    fi
}

# installed_table LANG KIND: the language's names (KIND name) or help
# texts (help) as "INDEX<TAB>TEXT" lines, read without regtool: hivexget
# prints a REG_MULTI_SZ one string a line; the files layout's perfcLLL.dat
# and perfhLLL.dat are the same strings in UTF-16LE, each ended by a NUL.
installed_table() {
    if [ "$2" = help ]; then _v=Help; _f=perfh; else _v=Counter; _f=perfc; fi
    if [ "$layout" = registry ]; then
        hivexget "$D/Windows/System32/config/SOFTWARE" \
            "\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\$1" "$_v"
    else
        iconv -f UTF-16LE -t UTF-8 "$D/Windows/System32/$_f$1.dat" | tr '\0' '\n'
    fi | awk '{ a[NR] = $0 }
              END { n = NR; while (n > 0 && a[n] == "") n--
                    for (i = 1; i < n; i += 2) print a[i] "\t" a[i + 1] }'
}

# check_texts INI: every text the INI gives a language of the machine is
# the one installed at first + offset.
check_texts() {
    _path=$1
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
            installed_table "$l" "$kind" | sort >"$TMPDIR/all"
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
    while IFS= read -r ini; do
        install_one "$ini"
        check_texts "$ini"
        expect_exit 0 "$REGTOOL" $S audit
        expect_exit 0 "$REGTOOL" $S uninstall "$drv"
        tables | cmp -s - "$TMPDIR/before" ||
            fail "$layout: $ini: tables differ after uninstall"
    done <"$TMPDIR/entries"

    # All together (a second INI of one drivername replaces the first),
    # each still resolving, then removed in another order.
    : >"$TMPDIR/drivers"
    while IFS= read -r ini; do
        d=$("$REGTOOL" check-ini --json "$ini" | jq -r .drivername)
        if grep -qxF -- "$d" "$TMPDIR/drivers"; then
            install_one "$ini" --replace
        else
            install_one "$ini"
            echo "$d" >>"$TMPDIR/drivers"
        fi
        echo "$ini" >>"$TMPDIR/last-$d"
    done <"$TMPDIR/entries"
    expect_exit 0 "$REGTOOL" $S audit
    while IFS= read -r d; do
        check_texts "$(tail -n 1 "$TMPDIR/last-$d")"
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
