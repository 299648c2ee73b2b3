# Real PerfStringBackup files (../shared/research-real/perfstringbackup,
# SPEC 4.6) restored into a tree with the same services and languages,
# then saved again: the same bytes. A to D exactly; E lists its [PERF_]
# sections in descending order, which no hive gives (a Services key's
# subkeys are kept sorted), so its services come back in the hive's
# ascending order and nothing else differs; F was converted to UTF-8 by
# its uploader: the same text, in Windows' encoding. Each file also reads
# as a psb: store, whose backup is the file (F: its text) byte for byte.
. tests/cli/lib.sh

PSB=$SHARED/research-real/perfstringbackup
printf '#define OBJ 0\n' >"$TMPDIR/sym.h"

# utf8 FILE: the text of a backup file, in UTF-8 without byte-order mark.
utf8() {
    case "$1" in
    *utf8bom*) sed '1s/^\xEF\xBB\xBF//' "$1" ;;
    *) iconv -f UTF-16LE -t UTF-8 "$1" ;;
    esac
}

# Services of the file: a Performance key each (install --create-service
# makes the key; restore then sets the file's values).
make_services() {
    utf8 "$2" | tr -d '\r' | sed -n 's/^\[PERF_\(.*\)\]$/\1/p' >"$TMPDIR/svcs"
    while IFS= read -r n; do
        "$REGTOOL" --store "$1" query "$n" >/dev/null 2>&1 && continue
        printf '[info]\ndrivername=%s\nsymbolfile=sym.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=x\nOBJ_009_HELP=y\n' \
            "$n" >"$TMPDIR/s.ini"
        "$REGTOOL" --store "$1" install --create-service --library x.dll \
            --open O --collect C --close X "$TMPDIR/s.ini" >/dev/null ||
            fail "cannot make service '$n'"
    done <"$TMPDIR/svcs"
}

for spec in A:registry B:files C:registry D:files E:registry F:files; do
    letter=${spec%%:*}
    layout=${spec#*:}
    src=$(ls "$PSB"/psb-"$letter"-*.xz)
    f=$TMPDIR/$(basename "$src" .xz)
    xz -dc "$src" >"$f"
    langs=$(utf8 "$f" | tr -d '\r' | sed -n 's/^\[PerfStrings_\(.*\)\]$/\1/p' | paste -sd, -)
    D=$TMPDIR/tree$letter
    S="hive:$D"
    expect_exit 0 "$REGTOOL" --store "$S" init --languages "$langs" --layout "$layout"
    make_services "$S" "$f"
    expect_exit 0 "$REGTOOL" --store "$S" restore "$f"
    expect_grep "^regtool: restored from $f" "$OUT"
    expect_exit 0 "$REGTOOL" --store "$S" backup "$TMPDIR/$letter.out"
    # Restoring it again changes nothing.
    expect_exit 0 "$REGTOOL" --store "$S" restore "$f"
    expect_grep ": 0 changes, nothing to write" "$OUT"

    case $letter in
    E)  # The [PERF_] blocks (header to the empty line after) reversed.
        utf8 "$f" | awk '
            /^\[PERF_/ { inperf = 1; n++ }
            /^\[PerfStrings_/ { for (i = n; i >= 1; i--) out = out blk[i]; inperf = 0 }
            { if (inperf) blk[n] = blk[n] $0 "\n"; else out = out $0 "\n" }
            END { printf "%s", substr(out, 1, length(out) - 1) }' |
            iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/E.want"
        cmp "$TMPDIR/E.want" "$TMPDIR/E.out" || fail "E: saved again, differs beyond the service order"
        cmp -s "$f" "$TMPDIR/E.out" && fail "E: the order was expected to differ" ;;
    F)  { printf '\r\n\r\n'; utf8 "$f"; } | iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/F.want"
        cmp "$TMPDIR/F.want" "$TMPDIR/F.out" || fail "F: saved again, a different text" ;;
    *)  cmp "$f" "$TMPDIR/$letter.out" || fail "$letter: saved again, different bytes" ;;
    esac

    # A real machine's database: audit finds no error, and no warning but
    # what is true of that machine.
    "$REGTOOL" --store "$S" audit --json >"$TMPDIR/$letter.audit"
    jq -r '.findings[] | select(.severity != "info") | "\(.severity) \(.id) \(.language) \(.message)"' \
        "$TMPDIR/$letter.audit" >"$TMPDIR/$letter.notinfo"
    jq -e '.summary.errors == 0' "$TMPDIR/$letter.audit" >/dev/null ||
        fail "$letter: audit finds errors: $(cat "$TMPDIR/$letter.notinfo")"
    # True of these machines: disabled ASP.NET providers (C, F), strings
    # left above Base Index by removed software (D, F), ESENT's range
    # reaching over usbhub's (D).
    grep -v -E '^warning (counters-disabled|orphan-strings|provider-overlap) ' \
        "$TMPDIR/$letter.notinfo" >"$TMPDIR/$letter.other" &&
        fail "$letter: unexpected warnings: $(cat "$TMPDIR/$letter.other")"
    # The Last Counter far above the highest index (C, E) is info only.
    case $letter in
    C|E) jq -e '[.findings[] | select(.id == "last-counter-above-highest" and .severity == "info")] | length == 1' \
             "$TMPDIR/$letter.audit" >/dev/null || fail "$letter: no info on Last Counter" ;;
    esac

    # As a store of its own: read-only, and saved back as it is.
    expect_exit 0 "$REGTOOL" --store "psb:$f" backup "$TMPDIR/$letter.psb"
    if [ "$letter" = F ]; then
        cmp "$TMPDIR/F.want" "$TMPDIR/F.psb" || fail "F: psb store saved a different text"
    else
        cmp "$f" "$TMPDIR/$letter.psb" || fail "$letter: psb store saved different bytes"
    fi
done
echo "backup/restore of real files: ok"
