# rebuild's preview keeps its promise (issue 38): what `rebuild --dry-run`
# says each language's tables gain and lose (the change set's "+A -R
# pairs" per table) and the strings it says are lost (its "lost" list and
# count) are exactly what `rebuild` then changes, as an independent reader
# sees the tables before and after: libhivex (Win::Hivex) for tables kept
# as registry values, the .dat files' own bytes for System32's tables,
# decoded here, never by regtool.
#
# Cases: each real PerfStringBackup.INI (../shared/research-real, A-F)
# restored into a tree from `init` whose SYSTEM is the real Windows 7 hive
# (../shared/samples/SYSTEM.xz), both table layouts; the same tree
# without a restore; and a fresh init tree. The tree with C restored is
# the issue's: its dry run said "nothing would be lost" and "+0 -0 pairs",
# then the rebuild dropped 148 names and replaced base texts.
# lodctr /R says the same loss line before it writes.
. tests/cli/lib.sh

PSB=$SHARED/research-real/perfstringbackup
SYS=$TMPDIR/SYSTEM
xz -dc "$SHARED/samples/SYSTEM.xz" >"$SYS" || fail "cannot read the sample SYSTEM hive"
mkdir -p "$TMPDIR/bin"
ln -s "$REGTOOL" "$TMPDIR/bin/lodctr"

# tables DIR: every table of the tree as "LANG<TAB>TABLE<TAB>INDEX<TAB>TEXT"
# lines (TEXT with \, newline, CR and tab escaped), read by the referee:
# Perflib\LANG's Counter and Help values through libhivex, else System32's
# perfcLANG.dat and perfhLANG.dat.
tables() {
    perl -MWin::Hivex -MEncode -e '
        use strict;
        sub pairs {
            my ($lang, $table, $bytes) = @_;
            my @s = split /\x00/, decode("UTF-16LE", $bytes), -1;
            for (my $i = 0; $i + 1 < @s && $s[$i] ne ""; $i += 2) {
                my ($ix, $t) = ($s[$i], $s[$i + 1]);
                $ix = 0 + $ix if $ix =~ /^[0-9]+$/;
                $t =~ s/\\/\\\\/g; $t =~ s/\n/\\n/g; $t =~ s/\r/\\r/g; $t =~ s/\t/\\t/g;
                print encode("UTF-8", "$lang\t$table\t$ix\t$t\n");
            }
        }
        my ($dir) = @ARGV;
        my $h = Win::Hivex->open("$dir/Windows/System32/config/SOFTWARE");
        my $n = $h->root;
        for my $k ("Microsoft", "Windows NT", "CurrentVersion", "Perflib") {
            $n = $h->node_get_child($n, $k) or die "no Perflib\n";
        }
        my $values = 0;
        for my $l ($h->node_children($n)) {
            my $lang = $h->node_name($l);
            for my $table ("Counter", "Help") {
                my $v = eval { $h->node_get_value($l, $table) } or next;
                my ($type, $data) = $h->value_value($v);
                pairs($lang, $table, $data);
                $values++;
            }
        }
        exit 0 if $values;
        for my $f (glob "$dir/Windows/System32/perf[ch]*.dat") {
            my ($c, $lang) = $f =~ m{/perf([ch])([0-9A-Fa-f]+)\.dat$} or next;
            open my $fh, "<:raw", $f or die "$f: $!\n";
            local $/;
            pairs($lang, $c eq "c" ? "Counter" : "Help", <$fh>);
        }' "$1" >"$TMPDIR/tables.tsv" || fail "the referee cannot read the tables of $1"
    LC_ALL=C sort "$TMPDIR/tables.tsv"
}

# check NAME DIR STORE...: the dry run's preview of DIR, then the
# rebuild, against the referee's view of the tables before and after.
check() {
    name=$1 dir=$2
    shift 2
    tables "$dir" >"$TMPDIR/$name.before"
    # A dry run writes nothing (it may take the store's lock, whose
    # empty file stays as a writer's does).
    tree_state "$dir" | grep -v ' ./Windows/System32/config/regtool.lock$' >"$TMPDIR/$name.state"
    # Exit 4 where provider texts would be lost, as the rebuild's.
    "$REGTOOL" --store "hive:$dir" rebuild --dry-run >"$OUT" 2>"$ERR"
    dry_exit=$?
    cp "$OUT" "$TMPDIR/$name.dry"
    tree_state "$dir" | grep -v ' ./Windows/System32/config/regtool.lock$' |
        diff "$TMPDIR/$name.state" - >&2 || fail "$name: the dry run wrote (diff above)"
    # The preview: each table change's counts, the lost strings' list
    # and count, all from the change set the rebuild commits.
    sed -n 's/^  Perflib\\\([^\\]*\)\\\([A-Za-z]*\): +\([0-9]*\) -\([0-9]*\) pairs .*/\1 \2 +\3 -\4/p' \
        "$TMPDIR/$name.dry" | LC_ALL=C sort >"$TMPDIR/$name.counts.said"
    sed -n 's/^  lost Perflib\\\([^\\]*\)\\\([A-Za-z]*\) \([0-9]*\) .*/\1 \2 \3/p' \
        "$TMPDIR/$name.dry" | LC_ALL=C sort >"$TMPDIR/$name.lost.said"
    said=$(sed -n 's/^regtool: \([0-9]*\) strings of the current tables would be lost: .*/\1/p' \
        "$TMPDIR/$name.dry")
    if [ -z "$said" ]; then
        said=0
        grep -q "^regtool: nothing would be lost$" "$TMPDIR/$name.dry" ||
            grep -q "provider or language texts would be lost" "$TMPDIR/$name.dry" ||
            fail "$name: the dry run says neither what is lost nor that nothing is"
    else
        grep -q "nothing would be lost" "$TMPDIR/$name.dry" &&
            fail "$name: the dry run says both that $said strings and nothing would be lost"
    fi
    [ "$said" -eq "$(wc -l <"$TMPDIR/$name.lost.said")" ] ||
        fail "$name: the dry run counts $said lost strings and lists $(wc -l <"$TMPDIR/$name.lost.said")"
    # Provider texts that cannot be recovered: the rebuild then needs
    # --accept-loss; what it changes is the same either way.
    accept= want_exit=0
    grep -q "provider or language texts would be lost" "$TMPDIR/$name.dry" &&
        accept=--accept-loss want_exit=4
    [ "$dry_exit" -eq "$want_exit" ] ||
        fail "$name: the dry run exited $dry_exit, want $want_exit"
    if [ "$#" -gt 0 ]; then
        REGTOOL_STORE="hive:$dir" expect_exit 0 "$@"
        prog=lodctr
    else
        expect_exit 0 "$REGTOOL" --store "hive:$dir" rebuild $accept
        prog=regtool
    fi
    cp "$OUT" "$TMPDIR/$name.real"
    # The same loss line before it writes, or none when nothing is lost.
    if [ "$said" -gt 0 ]; then
        grep -n "" "$TMPDIR/$name.real" | grep -q "^[0-9]*:$prog: $said strings of the current tables will be lost: no source gives their index a text$" ||
            fail "$name: $prog does not say that $said strings will be lost"
        [ "$(grep -n "will be lost" "$TMPDIR/$name.real" | cut -d: -f1)" -lt \
          "$(grep -n "rebuilt the tables" "$TMPDIR/$name.real" | cut -d: -f1)" ] ||
            fail "$name: $prog says what is lost only after writing"
    else
        grep -q "will be lost" "$TMPDIR/$name.real" && fail "$name: $prog says strings will be lost, the dry run none"
    fi
    tables "$dir" >"$TMPDIR/$name.after"
    # What changed, as multisets of pairs: comm keeps repeated lines.
    LC_ALL=C comm -13 "$TMPDIR/$name.before" "$TMPDIR/$name.after" >"$TMPDIR/$name.added"
    LC_ALL=C comm -23 "$TMPDIR/$name.before" "$TMPDIR/$name.after" >"$TMPDIR/$name.removed"
    awk -F'\t' 'FILENAME ~ /added$/ { a[$1 " " $2]++; k[$1 " " $2] = 1; next }
                { r[$1 " " $2]++; k[$1 " " $2] = 1 }
                END { for (t in k) print t " +" (a[t] + 0) " -" (r[t] + 0) }' \
        "$TMPDIR/$name.added" "$TMPDIR/$name.removed" |
        LC_ALL=C sort >"$TMPDIR/$name.counts.done"
    diff "$TMPDIR/$name.counts.said" "$TMPDIR/$name.counts.done" >&2 ||
        fail "$name: the preview's pairs added and removed (<) are not what the rebuild changed (>)"
    # Lost: an index's removed pairs beyond the pairs added at it.
    awk -F'\t' 'FILENAME ~ /added$/ { a[$1 " " $2 " " $3]++; next }
                { r[$1 " " $2 " " $3]++ }
                END { for (t in r) for (i = a[t]; i < r[t]; i++) print t }' \
        "$TMPDIR/$name.added" "$TMPDIR/$name.removed" |
        LC_ALL=C sort >"$TMPDIR/$name.lost.done"
    diff "$TMPDIR/$name.lost.said" "$TMPDIR/$name.lost.done" >&2 ||
        fail "$name: the strings the preview says are lost (<) are not those the rebuild lost (>)"
    echo "$name: $(wc -l <"$TMPDIR/$name.added") pairs added, $(wc -l <"$TMPDIR/$name.removed") removed, $said lost, as previewed"
}

# utf8 FILE: a backup's text in UTF-8 (F is already).
utf8() {
    case "$1" in
    *utf8bom*) sed '1s/^\xEF\xBB\xBF//' "$1" ;;
    *) iconv -f UTF-16LE -t UTF-8 "$1" ;;
    esac
}

for spec in A:registry B:files C:registry D:files E:registry F:files; do
    letter=${spec%%:*}
    layout=${spec#*:}
    src=$(ls "$PSB"/psb-"$letter"-*.xz)
    f=$TMPDIR/$(basename "$src" .xz)
    xz -dc "$src" >"$f"
    langs=$(utf8 "$f" | tr -d '\r' | sed -n 's/^\[PerfStrings_\(.*\)\]$/\1/p' | paste -sd, -)
    D=$TMPDIR/tree$letter
    expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages "$langs" --layout "$layout"
    cp "$SYS" "$D/Windows/System32/config/SYSTEM"
    # Another machine's backup: its base texts differ from the init tree's.
    expect_exit 0 "$REGTOOL" --store "hive:$D" restore --force "$f"
    [ "$letter" = C ] && cp -a "$D" "$TMPDIR/treeC.lodctr"
    check "$letter" "$D"
done

# The issue's tree: 2,596 names restored, 2,448 after. Its dry run said
# "nothing would be lost" and "Perflib\009\Counter: +0 -0 pairs".
grep -q "^regtool: nothing would be lost$" "$TMPDIR/C.dry" && fail "C: the dry run says nothing would be lost"
[ "$(grep -c "	Counter	" "$TMPDIR/C.before")" -eq 2596 ] || fail "C: not 2596 names restored"
[ "$(grep -c "	Counter	" "$TMPDIR/C.after")" -eq 2448 ] || fail "C: not 2448 names after the rebuild"
# lodctr /R on the same tree: the same loss line, then the same tables.
check C.lodctr "$TMPDIR/treeC.lodctr" "$TMPDIR/bin/lodctr" /R
cmp "$TMPDIR/C.after" "$TMPDIR/C.lodctr.after" || fail "lodctr /R left other tables than rebuild"

# The real SYSTEM without a restore, and a fresh init tree.
D=$TMPDIR/treeW7
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009,00C --layout registry
cp "$SYS" "$D/Windows/System32/config/SYSTEM"
check W7 "$D"
D=$TMPDIR/treeInit
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009,019 --layout files
check init "$D"
echo "rebuild preview: ok"
