# Real PerfStringBackup files (../shared/research-real/perfstringbackup,
# (docs/design.md, "The backup store")) restored into a tree with the same
# services and languages, then saved again: the same bytes. Each is another
# machine's backup (its base texts are Windows' own, the tree's are init's):
# restore refuses it, naming how many base texts differ (for B the count
# iconv and awk find), with nothing written, and restores it with --force,
# or lodctr /R:file (D) as Windows' does, each with a warning line. A to D
# exactly; E lists its [PERF_] sections in descending order, which no hive
# gives (a Services key's subkeys are kept sorted), so its services come
# back in the hive's ascending order and nothing else differs; F was
# converted to UTF-8 by its uploader: the same text, in Windows' encoding.
# Each file also reads as a psb: store, whose backup is the file (F: its
# text) byte for byte.
. tests/cli/lib.sh

PSB=$SHARED/research-real/perfstringbackup
printf '#define OBJ 0\n' >"$TMPDIR/sym.h"
L=$TMPDIR/bin/lodctr
mkdir -p "$TMPDIR/bin"
ln -s "$REGTOOL" "$L"

# utf8 FILE: the text of a backup file, in UTF-8 without byte-order mark.
utf8() {
    case "$1" in
    *utf8bom*) sed '1s/^\xEF\xBB\xBF//' "$1" ;;
    *) iconv -f UTF-16LE -t UTF-8 "$1" ;;
    esac
}

# base_differ TREE FILE: "in X of the N", the base texts (indices 1 to
# 1847) a files-layout TREE's .dat tables and FILE's sections both have
# (the first of each index), and how many of them differ, read with iconv
# and awk, not regtool.
base_differ() {
    for _l in $(ls "$1/Windows/System32" | sed -n 's/^perfc\(.*\)\.dat$/\1/p'); do
        for _k in c h; do
            iconv -f UTF-16LE -t UTF-8 "$1/Windows/System32/perf$_k$_l.dat" |
                tr '\000' '\n' | awk -v l="$_l" 'NR % 2 == 1 { i = $0; next } { print l "\t" i "\t" $0 }'
        done
    done >"$TMPDIR/db.tsv"
    utf8 "$2" | tr -d '\r' | awk '
        /^\[/ { sec = "" }
        /^\[PerfStrings_/ { sec = substr($0, 14, length($0) - 14); next }
        sec != "" && /=/ { p = index($0, "="); print sec "\t" substr($0, 1, p - 1) "\t" substr($0, p + 1) }' \
        >"$TMPDIR/file.tsv"
    awk -F '\t' -v base=1847 '
        NR == FNR { k = $1 SUBSEP $2; if ($2 + 0 <= base && !(k in d)) d[k] = $3; next }
        { k = $1 SUBSEP $2 }
        $2 + 0 <= base && (k in d) && !(k in seen) { seen[k] = 1; n++; if (d[k] != $3) x++ }
        END { print "in " x + 0 " of the " n + 0 }' "$TMPDIR/db.tsv" "$TMPDIR/file.tsv"
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
    # Another machine's backup: refused, nothing written.
    tree_state "$D" >"$TMPDIR/before"
    expect_exit 4 "$REGTOOL" --store "$S" restore "$f"
    expect_grep "^regtool: restore from $f: the file's base texts (indices 1 to Base Index 1847) differ from the database's in [1-9][0-9]* of the [1-9][0-9]* they both have (the first: index [0-9]* of language [0-9A-F]*): it is another machine's backup; nothing was written (--force restores it anyway)$" "$ERR"
    expect_same_tree "$D" "$TMPDIR/before"
    if [ "$letter" = B ]; then
        want=$(base_differ "$D" "$f")
        expect_grep "differ from the database's $want they both have" "$ERR"
    fi
    # Restored when asked: --force, or lodctr /R:file, with a warning line.
    if [ "$letter" = D ]; then
        expect_exit 0 env REGTOOL_STORE="$S" "$L" "/R:$f"
        expect_grep "^lodctr: restored from $f" "$OUT"
        who=lodctr
    else
        expect_exit 0 "$REGTOOL" --store "$S" restore --force "$f"
        expect_grep "^regtool: restored from $f" "$OUT"
        who=regtool
    fi
    expect_grep "^$who: warning: $f: its base texts (indices 1 to Base Index 1847) differ from the database's in [1-9][0-9]* of the [1-9][0-9]* they both have (the first: index [0-9]* of language [0-9A-F]*): another machine's backup, restored as asked$" "$ERR"
    expect_exit 0 "$REGTOOL" --store "$S" backup "$TMPDIR/$letter.out"
    # Restoring it again changes nothing: its own texts now, no --force.
    expect_exit 0 "$REGTOOL" --store "$S" restore "$f"
    expect_grep ": 0 changes, nothing to write" "$OUT"
    grep -q "another machine" "$ERR" && fail "$letter: restored again, still another machine's: $(cat "$ERR")"

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
