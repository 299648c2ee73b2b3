#!/bin/sh
# Small hostile inputs that made regtool quadratic or crash it: each is
# made here (hives with regtool's own writer, tests/cli/mkscale.c; text
# with awk) and every verb that reads it must finish within a bound about
# ten times what it takes (a quadratic takes a hundred times more at these
# sizes), and write nothing.
#   a SYSTEM of N performance services     a value read below Services
#                                          re-read and sorted the list
#   N services, each with a DLL of its     each DLL and each INF copy
#   own in System32 and an INF copy        found by a pass over System32
#                                          or INF
#   N services whose Library goes through  each short name resolved by
#   8.3 short names (PROGRA~1\SNNNNN~1)    listing its folder again
#   a SOFTWARE of N Perflib languages      the overlay of an install's
#                                          change set scanned per read,
#                                          each language looked up by a
#                                          scan
#   N languages, each with its two .dat    each table found by a pass
#   tables in System32 and SysWOW64        over System32
#   a restore writing those 4N tables      each table staged compared
#                                          with every one before, each
#                                          file of the commit found by a
#                                          pass over its records
#   a SOFTWARE of N languages lacking      repair --dry-run held each
#   English's entries                      language's change three times
#                                          and the printed text whole;
#                                          thousands made gigabytes of
#                                          tables (now refused)
#   a perfc009.dat of N equal pairs        repair's check of its change
#                                          walked the pairs taken
#   a perfc009.dat of N indices each held  repair looked each duplicate up
#   twice, a perfc007.dat of 2N strings    in every other language by a scan
#   N providers and 4N strings per table   repair --prune-orphans compared
#                                          each string with every range
#   N providers of ranges 2,000,000 wide   repair --from-ini looked for
#                                          each range's strings by a pass
#                                          over the range and the table
#   an INI of N languages into a tree of   each text looked for by passes
#   N languages                            over the INI's languages
#   an INF copy of N offsets chosen        repair --from-ini's set of the
#   against a fixed multiplier             indices it adds probed one
#                                          cluster
#   an INF copy of N counters listing      each symbol's text looked for
#   4,095 languages                        by a scan of its languages
#   N languages, each with an INF copy     each removal looked for among
#   of the provider                        every change before it
#   a .reg of N languages restored into    each store language looked for
#   a store of N others                    by a scan of the file's keys
#   N languages whose SysWOW64 copies      each kept table's difference
#   differ                                 looked for by a scan of all
#   a CurrentLanguage of 100,000 pairs     CurrentLanguage walked for
#   beside N one-pair languages            each language it was compared
#                                          with
#   a PerfStringBackup.INI of N services   each section compared with
#                                          every other
#   a backup setting N services' ranges    restore looked for each First
#   with M strings of another language     Counter by a scan of its strings
#   a .reg key of N values, a .reg of N    each value looked up by a scan
#   sections of one key
#   a .reg export of N stat servers, of    perfstats found each key's
#   one server with N statistics           server by a scan, compared each
#                                          statistic with every earlier one
#   a PerfStringBackup.INI repeating one   restore's duplicate check walked
#   index N times                          back over the equal indices
#   N backups in one folder audited by     each file's disk looked for by
#   audit --stores-from                    listing that folder again
#   a .reg file deleting N values, N keys, each deletion moved the entries
#   one name N times                       after it, rebuilt the index
# And the crash: a SYSTEM whose Services key lists itself is refused by
# every verb (exit 2, the hive, the key and what is wrong), a subkey list
# cycle by hive check; nothing loops.
#
# Under AddressSanitizer (several times slower) the inputs are an eighth
# of the size, under the same bounds (the sizes that show the bounds are
# the plain build's; the sanitizers look for memory errors, which show at
# any size).
. tests/cli/lib.sh

MKSCALE=$TMPDIR/mkscale
# shellcheck disable=SC2086
cc $SANFLAGS -Ilib -o "$MKSCALE" tests/cli/mkscale.c \
    "$(dirname "$REGTOOL")/libregtool.a" -linih || fail "cannot build mkscale"
# size N: N, or an eighth of it under AddressSanitizer.
size() { if [ "$ASAN" = 1 ]; then echo $(($1 / 8)); else echo "$1"; fi; }

CS="--create-service --library x.dll --open O --collect C --close X"
INI=$PWD/tests/bad/common/x.ini
TIME=/usr/bin/time
[ -x "$TIME" ] || fail "no $TIME (Debian package time: tools/deps.sh installs it)"
n=0
# bounded LABEL SECONDS EXITS ARGS...: regtool ARGS takes at most SECONDS
# of processor time (user and system: the machine's load does not count)
# and ends with one of the exit statuses EXITS ("0 1"); stdout to $OUT,
# its peak RSS in KB to $RSS_KB.
# Three minutes of wall time stop it whatever it is doing: a hang, not a
# bound (a commit of 24,000 tables waits on as many fsyncs, a minute and
# more on a disk other work shares).
bounded() {
    label=$1 secs=$2 exits=$3
    shift 3
    # Under the sanitizers every step costs several times more (and N is
    # an eighth), under gcov's counters (make coverage) about twice: the
    # bound is three times as generous in any build but the plain one.
    [ "$PLAIN" = 1 ] || secs=$((secs * 3))
    "$TIME" -f '%U %S %M' -o "$TMPDIR/cpu" timeout -k 1 180 "$REGTOOL" "$@" \
        </dev/null >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -ne 124 ] && [ "$got" -ne 137 ] ||
        fail "$label: still running after three minutes"
    case " $exits " in
    *" $got "*) ;;
    *) head -c 2000 "$ERR" >&2; fail "$label: exit $got, want one of $exits" ;;
    esac
    # USER_CPU=1: the user time alone, where the input is thousands of
    # files whose opening (a confined walk each) costs system time in
    # proportion, and a quadratic shows in the user time only.
    ms=$(tail -n 1 "$TMPDIR/cpu" | awk -v u="${USER_CPU:-0}" '{ printf "%d", ($1 + (u ? 0 : $2)) * 1000 }')
    RSS_KB=$(tail -n 1 "$TMPDIR/cpu" | awk '{ print $3 }')
    printf '%s: exit %s, %s ms of processor time (bound %s s)\n' "$label" "$got" "$ms" "$secs"
    [ "$ms" -le $((secs * 1000)) ] ||
        fail "$label: $ms ms of processor time, over $secs s (a quadratic?)"
    n=$((n + 1))
}

# Every reading verb, and the dry runs of the writing ones, on store $1.
# all_verbs WHAT STORE SECONDS [AUDIT_SECONDS]
all_verbs() {
    # (not SECS: bounded sets that)
    what=$1 st=$2 verb_secs=$3
    bounded "$what: query" "$verb_secs" "0" --store "$st" query
    bounded "$what: names" "$verb_secs" "0" --store "$st" names
    bounded "$what: audit" "${4:-$verb_secs}" "0 1 2" --store "$st" audit
    bounded "$what: install --dry-run" "$verb_secs" "0" --store "$st" install --dry-run $CS "$INI"
    bounded "$what: uninstall --dry-run" "$verb_secs" "0" --store "$st" uninstall --dry-run ESENT
    bounded "$what: backup" "$verb_secs" "0" --store "$st" backup "$TMPDIR/backup.ini"
    rm -f "$TMPDIR/backup.ini"
}

# Each pristine store has its lock file already (a writer leaves it).
for layout in files registry; do
    expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine-$layout" init --layout $layout
    expect_exit 4 "$REGTOOL" --store "hive:$TMPDIR/pristine-$layout" disable NoSuchService
done
# fresh LAYOUT: a new store in $W, its hives in $CFG.
fresh() {
    rm -rf "$TMPDIR/w"
    cp -a "$TMPDIR/pristine-$1" "$TMPDIR/w"
    W=$TMPDIR/w CFG=$TMPDIR/w/Windows/System32/config
}

# languages_tree N: a fresh tree of the files layout with N (an eighth
# under AddressSanitizer: $N) Perflib languages, each with its (empty)
# tables in System32 and SysWOW64.
languages_tree() {
    fresh files
    N=$(size "$1")
    "$MKSCALE" languages "$CFG/SOFTWARE" "$N" || fail "mkscale languages"
    for d in System32 SysWOW64; do
        "$MKSCALE" tables "$W/Windows/$d" "$N" || fail "mkscale tables $d"
    done
}

# 1. A SYSTEM whose Services key lists itself: refused by every verb with
# the hive and the key named, nothing written (it crashed every verb).
fresh files
"$MKSCALE" selfloop "$CFG/SYSTEM" || fail "mkscale selfloop"
tree_state "$W" >"$TMPDIR/before"
# (audit reports it as its finding database-unreadable)
why="^(regtool: .*|error +database-unreadable: )$CFG/SYSTEM: ControlSet001\\\\Services(\\\\[A-Za-z]+)?: key node at file offset 0x[0-9a-f]+: lists itself as a subkey"
for verb in query names audit "install $CS $INI" "uninstall ESENT" "repair" \
            "backup $TMPDIR/b.ini" "disable ESENT"; do
    # shellcheck disable=SC2086
    bounded "Services lists itself: ${verb%% *}" 5 2 --store "hive:$W" $verb
    cat "$OUT" "$ERR" | grep -Eq "$why" ||
        { cat "$OUT" "$ERR" >&2; fail "Services lists itself: ${verb%% *}: no line matches $why"; }
done
expect_same_tree "$W" "$TMPDIR/before"
# A cycle of two keys (Services\ALoop lists Services): hive check refuses
# it; the verbs, which never walk below a service, finish.
fresh files
"$MKSCALE" cycle "$CFG/SYSTEM" || fail "mkscale cycle"
tree_state "$W" >"$TMPDIR/before"
bounded "a cycle of two keys: hive check" 5 2 hive check "$CFG/SYSTEM"
expect_grep "reached twice (cycle in the key tree)" "$OUT"
bounded "a cycle of two keys: query" 5 0 --store "hive:$W" query
bounded "a cycle of two keys: audit" 5 "0 1" --store "hive:$W" audit
expect_same_tree "$W" "$TMPDIR/before"
# Keys each with a security cell of its own: hive check counts each
# cell's keys (a search of the cells seen so far, for each key: 320,000
# keys took 16 s, 200,000 about 6).
fresh files
N=$(size 200000)
"$MKSCALE" ownsk "$CFG/SOFTWARE" "$N" || fail "mkscale ownsk"
bounded "$N keys each with a security cell of its own: hive check" 2 0 hive check "$CFG/SOFTWARE"
expect_grep "^0 errors, 0 warnings$" "$OUT"

# 2. Performance services: 4,000 (the review's 8,000 took 49 s to query).
fresh files
N=$(size 4000)
"$MKSCALE" services "$CFG/SYSTEM" "$N" || fail "mkscale services"
tree_state "$W" >"$TMPDIR/before"
all_verbs "$N services" "hive:$W" 4
bounded "$N services: repair --dry-run" 4 "0 1 2" --store "hive:$W" repair --dry-run
expect_same_tree "$W" "$TMPDIR/before"

# 2b. Files beside the keys: 5,000 services, each with a DLL of its own
# in System32 and its INF copy in INF\ScaleNNNNNN\0009 (the folders of
# a disk with thousands of drivers). Each DLL and each INF copy was
# found by a pass over System32 or INF: audit --libraries took 12.5 s,
# rebuild --dry-run 7.7 s.
fresh files
N=$(size 5000)
"$MKSCALE" libraries "$CFG/SYSTEM" "$N" || fail "mkscale libraries"
# ntdll.dll and kernel32.dll: system files, without which audit
# --libraries does not look for the DLLs in the tree.
(cd "$W/Windows/System32" &&
    awk -v n="$N" 'BEGIN { print "ntdll.dll"; print "kernel32.dll"
        for (i = 0; i < n; i++) printf "scale%06d.dll\n", i }' | xargs touch) ||
    fail "cannot plant the DLLs"
mkdir "$W/Windows/INF" && (cd "$W/Windows/INF" &&
    awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "Scale%06d/0009\n", i }' |
        xargs mkdir -p &&
    awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "Scale%06d/0009/scale%06d.ini\n", i, i }' |
        xargs touch) || fail "cannot plant the INF copies"
tree_state "$W" >"$TMPDIR/before"
bounded "$N services with DLLs: audit --libraries" 3 1 --store "hive:$W" audit --libraries
# Every DLL found: only the five providers of regtool init miss theirs.
expect_grep "^0 errors, 5 warnings, 0 info$" "$OUT"
! grep -q "library-not-found: Scale" "$OUT" || fail "$N services with DLLs: a DLL not found"
# Their texts are found nowhere: exit 4, as the rebuild's.
bounded "$N INF copies: rebuild --dry-run" 3 4 --store "hive:$W" rebuild --dry-run
# Every INF copy found and read (an empty file: no drivername).
[ "$(grep -c "^  no INF copy: $W/Windows/INF/Scale[0-9]*/0009/scale[0-9]*\.ini: \[info\] has no drivername$" "$OUT")" -eq "$N" ] ||
    fail "$N INF copies: not every INF copy read"
expect_same_tree "$W" "$TMPDIR/before"

# 2c. 8.3 short names: 5,000 services whose Library is
# C:\PROGRA~1\SNNNNN~1\scale.dll, beside as many folders in Program
# Files. Each short name was resolved by listing its folder: Program
# Files, 5,000 entries, listed twice for each provider (20 s of processor
# time); now each folder once an audit (0.2 s).
fresh files
N=$(size 5000)
"$MKSCALE" shortnames "$CFG/SYSTEM" "$N" || fail "mkscale shortnames"
(cd "$W/Windows/System32" && touch ntdll.dll kernel32.dll) ||
    fail "cannot plant the system files"
mkdir "$W/Program Files" && (cd "$W/Program Files" &&
    awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "S%05d Scale\n", i }' |
        tr '\n' '\0' | xargs -0 mkdir &&
    awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "S%05d Scale/scale.dll\n", i }' |
        tr '\n' '\0' | xargs -0 touch) || fail "cannot plant the DLLs"
tree_state "$W" >"$TMPDIR/before"
bounded "$N short names: audit --libraries" 3 1 --store "hive:$W" audit --libraries
# Every short name resolved and every DLL found: only the five providers
# of regtool init miss theirs.
expect_grep "^0 errors, 5 warnings, 0 info$" "$OUT"
! grep -q "short name\|library-not-found: Scale" "$OUT" ||
    { cat "$OUT" >&2; fail "$N short names: a short name or a DLL not found"; }
expect_same_tree "$W" "$TMPDIR/before"

# 3. Perflib languages (registry layout, no tables): 4,000. Audit lists
# English's names as missing from each, linear in languages but ample.
fresh registry
N=$(size 4000)
"$MKSCALE" languages "$CFG/SOFTWARE" "$N" || fail "mkscale languages"
tree_state "$W" >"$TMPDIR/before"
all_verbs "$N languages" "hive:$W" 3 12
expect_same_tree "$W" "$TMPDIR/before"

# 3a. Files beside the keys: 3,000 languages in the .dat layout, each
# with its perfcLLLL.dat and perfhLLLL.dat (empty tables) in System32 and
# SysWOW64. Each table was found by a pass over its folder: query took
# 32 s, audit 62 s. Audit lists English's names as missing from each.
languages_tree 3000
tree_state "$W" >"$TMPDIR/before"
all_verbs "$N languages with tables" "hive:$W" 3 8
# Its audit in memory: at most 10 x what it reads (the hives and the
# tables) + 24 MB, as hostile_memory.sh bounds. Each language's finding
# language-missing-entries lists English's 1,072 names with their texts:
# each kept its own copy of them (in arrays grown by doubling in the
# findings' pool): 211 MB for 6 MB. The same list is kept once now.
bounded "$N languages with tables: audit" 8 2 --store "hive:$W" audit
[ "$(grep -c '^info  *language-missing-entries \[[0-9a-f]*\]: ' "$OUT")" -eq "$N" ] ||
    fail "$N languages with tables: not one language-missing-entries a language"
[ "$(grep -c '^        1862 "Queue Session 1862"$' "$OUT")" -eq "$N" ] ||
    fail "$N languages with tables: a language-missing-entries without English's texts"
read_bytes=$(cat "$CFG/SOFTWARE" "$CFG/SYSTEM" "$W"/Windows/System32/perf*.dat \
    "$W"/Windows/SysWOW64/perf*.dat | wc -c)
bound=$((10 * read_bytes + 24 * 1048576))
printf '%s languages with tables: audit peak RSS %s MB for %s KB read (bound %s MB)\n' \
    "$N" $((RSS_KB / 1024)) $((read_bytes / 1024)) $((bound / 1048576))
if [ "$ASAN" = 0 ] && [ $((RSS_KB * 1024)) -gt "$bound" ]; then
    fail "$N languages with tables: audit peak RSS $RSS_KB KB over $((bound / 1048576)) MB"
fi
expect_same_tree "$W" "$TMPDIR/before"
# Four times as many: each table read was found among those read before
# by a walk over them (install --dry-run took 9.7 s of processor time,
# backup 3.9 s).
languages_tree 12000
tree_state "$W" >"$TMPDIR/before"
# shellcheck disable=SC2086
bounded "$N languages with tables: install --dry-run" 4 0 --store "hive:$W" install --dry-run $CS "$INI"
bounded "$N languages with tables: backup" 4 0 --store "hive:$W" backup "$TMPDIR/backup.ini"
rm -f "$TMPDIR/backup.ini"
expect_same_tree "$W" "$TMPDIR/before"
# A commit that writes them all: restore of a backup giving each of 6,000
# languages a name and a help text, 24,000 .dat tables. Each table was
# staged after a comparison with every one staged before, and the
# commit found each file's records, intent and final size by passes over
# all its records: 17 s of processor time (2.8 s now on one machine, 7.5
# s on another: most of it the system's, opening, resolving and syncing
# the files, whose cost varies with the machine). So the bound is the
# same restore of a quarter of the languages: linear, 6,000 take four
# times its time; quadratic, sixteen. Six times, and a second.
restore_langs() {
    languages_tree "$1"
    "$REGTOOL" --store "hive:$W" backup "$TMPDIR/langs.ini" >/dev/null || fail "backup of $N languages"
    iconv -f UTF-16LE -t UTF-8 "$TMPDIR/langs.ini" | tr -d '\r' |
        awk '{ print } /^\[PerfStrings_[0-9a-f][0-9a-f][0-9a-f][0-9a-f]\]/ {
                print "2=System"; print "3=System help" }' |
        sed 's/$/\r/' | iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/named.ini" ||
        fail "cannot write $TMPDIR/named.ini"
    bounded "$N languages with tables: restore" 60 0 --store "hive:$W" restore "$TMPDIR/named.ini"
    last=$(printf '%04x' $((0x1000 + N - 1)))
    for d in System32 SysWOW64; do
        iconv -f UTF-16LE -t UTF-8 "$W/Windows/$d/perfh$last.dat" | tr '\0' '\n' |
            grep -qx "System help" || fail "$N languages: $d/perfh$last.dat not restored"
    done
    rm -f "$TMPDIR/langs.ini" "$TMPDIR/named.ini"
}
restore_langs 1500
quarter_ms=$ms
restore_langs 6000
[ "$ms" -le $((quarter_ms * 6 + 1000)) ] ||
    fail "$N languages with tables: restore: $ms ms of processor time, over six times the $quarter_ms ms of a quarter of them and a second (a quadratic?)"

# 3b. repair --dry-run of 100 languages without tables: each gets
# English's 1,072 names and help texts above Base Index, and that change
# is inherent (its new tables, the pairs shown, its part of the new
# PerfStringBackup.INI: about 1.6 MB a language). What the dry run holds
# besides is bounded: twice what the change writes + 24 MB (it held
# each language's lists, their tables encoded again for the check, and
# the printed text whole: 2.2 times). It checks the change as its commit
# would, the change made in the hive's image (review 37): the real run's
# peak, 1.9 times (1.35 before that check).
fresh registry
N=$(size 100)
"$MKSCALE" languages "$CFG/SOFTWARE" "$N" || fail "mkscale languages"
tree_state "$W" >"$TMPDIR/before"
bounded "$N languages: repair --dry-run" 8 0 --store "hive:$W" repair --dry-run
[ "$(grep -c '^  entries-filled \[1[0-9a-f]*\]: Perflib\\1[0-9a-f]*\\\(Counter\|Help\): 1072 entries English' "$OUT")" -eq $((2 * N)) ] ||
    fail "$N languages: not every language's tables filled"
# The tables it makes count as made: nothing is left (it said each
# language still had none).
! grep -q '^left:$' "$OUT" || fail "$N languages: findings left after the repair"
# What the change writes: each table's bytes, and the files'.
written=$(awk '/^  Perflib\\.*pairs \([0-9]+ bytes\)$/ || /^  file .*: [0-9]+ bytes$/ {
        n = $0; sub(/ bytes\)?$/, "", n); sub(/.*[ (]/, "", n); w += n }
    END { printf "%d", w }' "$OUT")
bound=$((2 * written + 24 * 1048576))
printf '%s languages: peak RSS %s MB for %s MB written (bound %s MB)\n' "$N" \
    $((RSS_KB / 1024)) $((written / 1048576)) $((bound / 1048576))
if [ "$ASAN" = 0 ] && [ $((RSS_KB * 1024)) -gt "$bound" ]; then
    fail "$N languages: repair --dry-run peak RSS $RSS_KB KB over $((bound / 1048576)) MB"
fi
expect_same_tree "$W" "$TMPDIR/before"
# 3c. 2,500 such languages would make 1.9 GB of tables (it took 107 s and
# 9.8 GB to plan them): refused before a text is copied, at every scale.
fresh registry
"$MKSCALE" languages "$CFG/SOFTWARE" 2500 || fail "mkscale languages"
tree_state "$W" >"$TMPDIR/before"
for dry in --dry-run ""; do
    # shellcheck disable=SC2086
    bounded "2500 languages: repair${dry:+ $dry}" 2 2 --store "hive:$W" repair $dry --backup "$TMPDIR/none.ini"
    expect_grep "Perflib\\\\009's entries above Base Index given to the 2500 languages that lack them would make the name tables [0-9]* MiB together, more than the 1024 MiB a tree's tables may be; nothing was written" "$ERR"
    if [ "$ASAN" = 0 ] && [ "$RSS_KB" -gt $((64 * 1024)) ]; then
        fail "2500 languages: repair${dry:+ $dry}: peak RSS $RSS_KB KB over 64 MB"
    fi
done
[ ! -e "$TMPDIR/none.ini" ] || fail "repair saved a backup of a change it refused"
expect_same_tree "$W" "$TMPDIR/before"

# 4. perfc009.dat of 100,000 pairs "2=x": repair's dry run checks its
# change against them.
fresh files
N=$(size 90000)
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "2\nx\n"; printf "\n" }' |
    tr '\n' '\0' | iconv -f ASCII -t UTF-16LE >"$W/Windows/System32/perfc009.dat" ||
    fail "cannot write perfc009.dat"
tree_state "$W" >"$TMPDIR/before"
bounded "$N equal pairs: repair --dry-run" 4 "0 1 2" --store "hive:$W" repair --dry-run
bounded "$N equal pairs: audit" 4 "0 1 2" --store "hive:$W" audit
expect_same_tree "$W" "$TMPDIR/before"

# 4a. 60,000 indices each held twice in perfc009.dat, each with two
# texts, and perfc007.dat of 120,000 other strings, then each of those
# indices once, each thousandth with 009's second text and again later
# with a third: repair looked each duplicate up in every other language
# by a scan of its pairs (15 s of processor time; index 2 held 100,000
# times, as in 4, is found at once). 007 is resolved first: 009 has
# not chosen yet, so its duplicates keep their first text; 009 then
# finds 007's, decoded and shortened, and keeps the text 007 has.
rm -rf "$TMPDIR/w"
W=$TMPDIR/w
expect_exit 0 "$REGTOOL" --store "hive:$W" init --languages 009,007
expect_exit 4 "$REGTOOL" --store "hive:$W" disable NoSuchService   # (its lock file)
D=$(size 60000) U=$(size 120000)
S=$W/Windows/System32
# table FILE: FILE's pairs, then those of stdin (lines: index, text).
table() {
    { perl -0777 -pe 'substr($_, -2) = ""' "$1"   # (its last NUL)
      tr '\n' '\0' | iconv -f UTF-8 -t UTF-16LE
      printf '\0\0'; } >"$TMPDIR/table" && mv "$TMPDIR/table" "$1"
}
awk -v d="$D" 'BEGIN { for (i = 0; i < d; i++) printf "%d\nx%d\n", 10000000 + 2 * i, i
                       for (i = 0; i < d; i++) printf "%d\ny%d\n", 10000000 + 2 * i, i }' |
    table "$S/perfc009.dat" || fail "cannot write perfc009.dat"
awk -v d="$D" -v u="$U" 'BEGIN {
        for (j = 0; j < u; j++) printf "%d\nz%d\n", 20000000 + 2 * j, j
        for (i = 0; i < d; i++) printf "%d\n%s%d\n", 10000000 + 2 * i, i % 1000 ? "z" : "y", i
        for (i = 0; i < d; i += 1000) printf "%d\nw%d\n", 10000000 + 2 * i, i }' |
    table "$S/perfc007.dat" || fail "cannot write perfc007.dat"
cp "$S/perfc009.dat" "$S/perfc007.dat" "$W/Windows/SysWOW64/" || fail "cannot copy the tables"
tree_state "$W" >"$TMPDIR/before"
bounded "$D indices twice: repair --dry-run" 4 1 --store "hive:$W" repair --dry-run
why="held 2 times; kept"
confirmed=$(((D + 999) / 1000))
[ "$(grep -c "^  duplicate-resolved \[009\]: Perflib\\\\009\\\\Counter: index 10[0-9]* $why \"y[0-9]*\" (the text another language has there)$" "$OUT")" -eq "$confirmed" ] &&
    [ "$(grep -c "^  duplicate-resolved \[009\]: Perflib\\\\009\\\\Counter: index 10[0-9]* $why \"x[0-9]*\" (the first; no other language decides)$" "$OUT")" -eq $((D - confirmed)) ] &&
    [ "$(grep -c "^  duplicate-resolved \[007\]: Perflib\\\\007\\\\Counter: index 10[0-9]* $why \"y[0-9]*\" (the first; no other language decides)$" "$OUT")" -eq "$confirmed" ] ||
    { grep duplicate-resolved "$OUT" | head -n 5 >&2; fail "$D indices twice: not each resolved as another language says"; }
expect_grep "index 10002000 $why \"y1000\" (the text another language has there)" "$OUT"
expect_grep "index 10002002 $why \"x1001\" (the first; no other language decides)" "$OUT"
expect_same_tree "$W" "$TMPDIR/before"

# 4b. repair --prune-orphans over 30,000 providers and tables of 120,000
# strings, half of them in no provider's range: each string is placed in
# the union of the ranges (each compared with every provider's range, it
# took 20 s).
fresh files
N=$(size 30000)
"$MKSCALE" services "$CFG/SYSTEM" "$N" || fail "mkscale services"
# Counter indices 1000000 + 2j, help 1000001 + 2j: the first 2N of each
# are the providers' (4 indices from 1000000 + 4i), the next 2N no one's.
for k in c h; do
    case $k in h) odd=1 ;; *) odd=0 ;; esac
    awk -v n="$N" -v odd="$odd" 'BEGIN {
            for (j = 0; j < 4 * n; j++) printf "%d\ns%d\n", 1000000 + odd + 2 * j, j
            printf "\n" }' |
        tr '\n' '\0' | iconv -f ASCII -t UTF-16LE >"$W/Windows/System32/perf${k}009.dat" ||
        fail "cannot write perf${k}009.dat"
done
tree_state "$W" >"$TMPDIR/before"
bounded "$N providers: repair --dry-run --prune-orphans" 8 "0 1 2" --store "hive:$W" repair --dry-run --prune-orphans
for k in Counter Help; do
    expect_grep "orphans-pruned \[009\]: Perflib\\\\009\\\\$k: $((2 * N)) strings above Base Index that no provider owns removed" "$OUT"
done
expect_same_tree "$W" "$TMPDIR/before"

# 4d. audit of 6,000 providers in 6,000 languages (empty tables): the
# union of the ranges was made again for each language and each
# provider's range looked up in each language's table, its id compared
# by name each time (8,000 of each: 8 s, review 34 F6).
languages_tree 6000
"$MKSCALE" services "$CFG/SYSTEM" "$N" || fail "mkscale services"
bounded "$N providers x $N languages: audit" 3 "1 2" --store "hive:$W" audit

# 4c. repair --from-ini over 2,000 providers whose ranges each span
# 2,000,000 indices, in 20 languages: each range's strings were looked
# for by a pass over the range and over the whole table, per provider
# and language (40 s, and SIGTERM did not end it); no INI is found.
fresh registry
N=$(size 2000)
"$MKSCALE" wideranges "$CFG/SYSTEM" "$N" || fail "mkscale wideranges"
"$MKSCALE" languages "$CFG/SOFTWARE" 20 || fail "mkscale languages"
mkdir -p "$TMPDIR/no-inis"
tree_state "$W" >"$TMPDIR/before"
bounded "$N wide ranges: repair --dry-run --from-ini" 4 "2" --store "hive:$W" repair --dry-run --from-ini "$TMPDIR/no-inis"
expect_grep "ini-not-found: $(printf 'Scale%06d' $((N - 1))): strings missing (in 009, 1000, 1001" "$OUT"
expect_same_tree "$W" "$TMPDIR/before"

# 4d. install of an INI of 1,000 languages and 200 symbols into a tree of
# 1,000 languages: each symbol's text was looked for by a pass over the
# INI's languages, three times, per symbol, language and table (19 s).
languages_tree 1000
awk -v n="$N" 'BEGIN { for (i = 0; i < 200; i++) printf "#define S%d %d\n", i, 2 * i }' >"$TMPDIR/many.h"
awk -v n="$N" 'BEGIN {
        printf "[info]\ndrivername=ManyLang\nsymbolfile=many.h\n[languages]\n009=English\n"
        for (l = 0; l < n; l++) printf "%04x=L\n", 4096 + l
        printf "[objects]\nS0_009_NAME=\n[text]\n"
        for (i = 0; i < 200; i++) {
            printf "S%d_009_NAME=N%d\nS%d_009_HELP=H%d\n", i, i, i, i
            for (l = 0; l < n; l++)
                printf "S%d_%04x_NAME=N\nS%d_%04x_HELP=H\n", i, 4096 + l, i, 4096 + l
        } }' >"$TMPDIR/many.ini"
tree_state "$W" >"$TMPDIR/before"
bounded "$N INI languages into $N: install --dry-run" 5 "0" --store "hive:$W" install --dry-run $CS "$TMPDIR/many.ini"
expect_same_tree "$W" "$TMPDIR/before"
rm -f "$TMPDIR/many.ini" "$TMPDIR/many.h"

# 5. A PerfStringBackup.INI of 10,000 [PERF_] sections, read as a store
# and restored (dry run) into a tree.
fresh files
N=$(size 10000)
PSB=$TMPDIR/many.ini
iconv -f UTF-16LE -t UTF-8 "$W/Windows/System32/PerfStringBackup.INI" | tr -d '\r' |
    awk -v n="$N" '/^\[PERF_ESENT\]/ && !done {
            for (i = 0; i < n; i++)
                printf "[PERF_Scale%06d]\nFirst Counter=%d\nFirst Help=%d\nLast Counter=%d\nLast Help=%d\n\n",
                       i, 1000000 + 4 * i, 1000001 + 4 * i, 1000002 + 4 * i, 1000003 + 4 * i
            done = 1 }
        { print }' | sed 's/$/\r/' | iconv -f UTF-8 -t UTF-16LE >"$PSB" ||
    fail "cannot write $PSB"
tree_state "$W" >"$TMPDIR/before"
bounded "$N sections: query" 4 0 --store "psb:$PSB" query
bounded "$N sections: audit" 4 "0 1 2" --store "psb:$PSB" audit
bounded "$N sections: restore --dry-run" 4 "0 1" --store "hive:$W" restore --dry-run "$PSB"
# A second section of a service is still refused at its line.
printf '[PERF_Scale000001]\r\nFirst Counter=4\r\n' | iconv -f UTF-8 -t UTF-16LE >>"$PSB"
bounded "$N sections, one twice" 4 2 --store "psb:$PSB" query
expect_grep "a second section for service 'Scale000001' (the first is on line" "$ERR"
expect_same_tree "$W" "$TMPDIR/before"
# One text line of 128 MB (16 under the sanitizers), in pieces of 1 MiB:
# each piece looked through once (review 44 R44-4: the line carried was
# scanned and moved again each piece: 8 s, 24 s at 256 MB).
LONG=$(size 128)
{ printf '[Perflib]\r\nLast Counter=4000\r\nLast Help=4001\r\n[PerfStrings_009]\r\n4000='
  head -c $((LONG * 1048576)) /dev/zero | tr '\0' A; printf '\r\n'; } >"$TMPDIR/long.ini" ||
    fail "cannot write long.ini"
bounded "a text line of $LONG MB: names" 4 0 --store "psb:$TMPDIR/long.ini" names 4000
rm -f "$TMPDIR/long.ini"

# 5b. restore of another machine's backup into a tree of 10,000
# services, each range set by it, with 600,000 strings of a language
# the tree lacks, then a name for every service's First Counter but
# each thousandth's: whether the file names a service's First Counter
# was a scan of every language's strings per service (18 s of processor
# time; lodctr /R:file is the same restore).
fresh files
P=$(size 10000) M=$(size 600000)
"$MKSCALE" services "$CFG/SYSTEM" "$P" || fail "mkscale services"
"$REGTOOL" --store "hive:$W" backup "$TMPDIR/own.ini" >/dev/null || fail "backup of $P services"
PSB=$TMPDIR/other.ini
{ iconv -f UTF-16LE -t UTF-8 "$TMPDIR/own.ini" | tr -d '\r'
  # (the backup's last line has no line break)
  printf '\n[PerfStrings_0007]\n'
  awk -v m="$M" -v p="$P" 'BEGIN {
      for (k = 0; k < m; k++) printf "%d=x\n", 3000000 + 2 * k
      for (i = 0; i < p; i++) if (i % 1000) printf "%d=S%d\n", 1000000 + 4 * i, i }'
} | sed 's/$/\r/' | iconv -f UTF-8 -t UTF-16LE >"$PSB" || fail "cannot write $PSB"
rm -f "$TMPDIR/own.ini"
tree_state "$W" >"$TMPDIR/before"
bounded "$M strings, $P services: restore --dry-run" 3 0 --store "hive:$W" restore --dry-run "$PSB"
# Only the services whose First Counter has no name are said, in order.
grep "its First Counter has no name in the file" "$ERR" >"$TMPDIR/unnamed"
awk -v p="$P" 'BEGIN { for (i = 0; i < p; i += 1000)
        printf "regtool: warning: Scale%06d: its First Counter has no name in the file (a truncated backup?)\n", i }' |
    cmp -s - "$TMPDIR/unnamed" ||
    { head -n 20 "$TMPDIR/unnamed" >&2; fail "$P services: not each thousandth said unnamed, in order"; }
expect_grep "skipped \[PerfStrings_0007\] (line [0-9]*): no such language here; not created" "$OUT"
expect_same_tree "$W" "$TMPDIR/before"
rm -f "$PSB" "$TMPDIR/unnamed"

# 6. .reg stores: a key of 40,000 values; 50,000 sections of one key.
fresh files
"$REGTOOL" --store "hive:$W" backup --format reg "$TMPDIR/full.reg" >/dev/null ||
    fail "backup --format reg"
iconv -f UTF-16 -t UTF-8 "$TMPDIR/full.reg" >"$TMPDIR/full8.reg"
N=$(size 40000)
{ cat "$TMPDIR/full8.reg"
  printf '\r\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Many\\Performance]\r\n'
  awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "\"V%06d\"=dword:%08x\r\n", i, i }'
} >"$TMPDIR/values.reg"
bounded "a key of $N values: query" 4 0 --store "reg:$TMPDIR/values.reg" query
bounded "a key of $N values: audit" 4 "0 1 2" --store "reg:$TMPDIR/values.reg" audit
N=$(size 50000)
{ cat "$TMPDIR/full8.reg"
  awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
      printf "\r\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Rep\\Performance]\r\n\"Library\"=\"r%d.dll\"\r\n", i }'
} >"$TMPDIR/sections.reg"
bounded "$N sections of one key: query" 4 0 --store "reg:$TMPDIR/sections.reg" query Rep
expect_grep "r$((N - 1))\.dll" "$OUT"
bounded "$N sections of one key: install --dry-run" 4 0 --store "reg:$TMPDIR/sections.reg" install --dry-run $CS "$INI"

# 7. perfstats of a .reg export of 40,000 stat servers, and of one server
# with 40,000 statistics, each exported twice (as T000000 and t000000):
# each key's server was found by a scan of the servers, and each
# statistic compared with every earlier one of its server (20,000 took 3
# and 4 s).
N=$(size 40000)
awk -v n="$N" 'BEGIN { printf "REGEDIT4\r\n\r\n"
    for (i = 0; i < n; i++)
        printf "[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\S%06d]\r\n\"Name\"=\"s\"\r\n\r\n", i }' \
    >"$TMPDIR/servers.reg"
bounded "$N stat servers: perfstats list" 3 0 perfstats list "$TMPDIR/servers.reg"
[ "$(grep -c '^S[0-9]' "$OUT")" -eq "$N" ] || fail "$N stat servers: not every server listed"
bounded "$N stat servers: perfstats audit" 3 1 perfstats audit "$TMPDIR/servers.reg"
expect_grep "^$N servers, 0 errors, $N warnings" "$OUT"
awk -v n="$N" 'BEGIN { printf "REGEDIT4\r\n\r\n"
    for (i = 0; i < n; i++)
        printf "[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\K\\%s%06d]\r\n\"Name\"=\"s\"\r\n\r\n", (i % 2 ? "t" : "T"), i / 2 }' \
    >"$TMPDIR/stats.reg"
bounded "$N statistics: perfstats list" 3 0 perfstats list "$TMPDIR/stats.reg"
bounded "$N statistics: perfstats audit" 3 2 perfstats audit "$TMPDIR/stats.reg"
expect_grep "^1 servers, $((N / 2)) errors, 0 warnings" "$OUT"
expect_grep "statistic K.t000001 is exported again (first at line 9)" "$OUT"

# 8. A PerfStringBackup.INI whose [PerfStrings_009] repeats index 2
# 200,000 times: restore refuses it at once (each repeat was placed by a
# walk back over the equal indices before it: 20 s), and writes nothing.
fresh files
N=$(size 200000)
PSB=$TMPDIR/repeat.ini
iconv -f UTF-16LE -t UTF-8 "$W/Windows/System32/PerfStringBackup.INI" | tr -d '\r' |
    awk -v n="$N" '{ print } /^\[PerfStrings_009\]/ && !done {
            for (i = 0; i < n; i++) print "2=x"
            done = 1 }' | sed 's/$/\r/' | iconv -f UTF-8 -t UTF-16LE >"$PSB" ||
    fail "cannot write $PSB"
tree_state "$W" >"$TMPDIR/before"
for dry in --dry-run ""; do
    # shellcheck disable=SC2086
    bounded "index 2 $N times: restore${dry:+ $dry}" 3 2 --store "hive:$W" restore $dry "$PSB"
    expect_grep "\[PerfStrings_009\] has index 2 twice: restoring it would write a table with a duplicate index; nothing was changed" "$ERR"
done
expect_same_tree "$W" "$TMPDIR/before"

# 9. rebuild (lodctr /R) of 4,000 providers whose ranges the current
# tables hold, 50 pairs at each index (200,000 pairs a table): each
# provider's range was looked for, taken and cut by a pass over the whole
# table (13 s of processor time), and its INF input found by a pass over
# every provider's.
fresh files
N=$(size 4000)
"$MKSCALE" services "$CFG/SYSTEM" "$N" || fail "mkscale services"
for k in c h; do
    t=$W/Windows/System32/perf${k}009.dat
    bytes=$(stat -c %s "$t")
    # The table without its end, then N x 50 pairs in the services'
    # ranges (mkscale: names from 1000000 + 4i, help one above).
    { head -c $((bytes - 2)) "$t"
      awk -v n="$N" -v o=$([ $k = c ] && echo 0 || echo 1) 'BEGIN {
          for (i = 0; i < n; i++) for (j = 0; j < 50; j++)
              printf "%d\nS\n", 1000000 + 4 * i + o }' |
          tr '\n' '\000' | iconv -f ASCII -t UTF-16LE
      printf '\000\000'; } >"$TMPDIR/table.dat" || fail "cannot write perf${k}009.dat"
    cp "$TMPDIR/table.dat" "$t"
    cp "$TMPDIR/table.dat" "$W/Windows/SysWOW64/perf${k}009.dat"
done
bounded "$N providers in tables of $((N * 50)) pairs: rebuild --dry-run" 3 0 \
    --store "hive:$W" rebuild --dry-run
[ "$(grep -c ': 009 from the current tables$' "$OUT")" -ge "$N" ] ||
    fail "rebuild --dry-run does not take the $N providers from the current tables"
expect_grep "^language 009: base from the tables as installed; .*, unchanged$" "$OUT"
bounded "$N providers in tables of $((N * 50)) pairs: rebuild" 3 0 \
    --store "hive:$W" rebuild
[ "$("$REGTOOL" --store "hive:$W" names | grep -c "	S$")" -eq $((N * 50)) ] ||
    fail "the rebuild did not keep the $((N * 50)) pairs of the providers"

# 10. rebuild of 1,000 providers, each with a folder in INF, on a
# machine of 300 languages: each provider's INF copy was looked for in
# every language's folder, 300,000 paths made, looked at and kept (12 s
# of processor time, most of it the system's; 2,000 providers and 2,000
# languages took 164 s and 608 MB). Only the language folders each
# provider's INF folder holds are looked in now: every tenth provider's
# copy lies in language 100A's, named in lower case, and is found there.
fresh files
N=$(size 1000)
"$MKSCALE" libraries "$CFG/SYSTEM" "$N" || fail "mkscale libraries"
"$MKSCALE" languages "$CFG/SOFTWARE" 300 || fail "mkscale languages"
for d in System32 SysWOW64; do
    "$MKSCALE" tables "$W/Windows/$d" 300 || fail "mkscale tables $d"
done
mkdir "$W/Windows/INF" && (cd "$W/Windows/INF" &&
    awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) {
            printf "Scale%06d/0009\n", i
            if (i % 10 == 0) printf "Scale%06d/100a\n", i } }' |
        xargs mkdir -p &&
    awk -v n="$N" 'BEGIN { for (i = 0; i < n; i += 10)
            printf "Scale%06d/100a/scale%06d.ini\n", i, i }' |
        xargs touch) || fail "cannot plant the INF folders"
tree_state "$W" >"$TMPDIR/before"
bounded "$N INF folders, 300 languages: rebuild --dry-run" 3 4 \
    --store "hive:$W" rebuild --dry-run
[ "$(grep -c "^  no INF copy: $W/Windows/INF/Scale[0-9]*/100a/scale[0-9]*\.ini: \[info\] has no drivername$" "$OUT")" -eq $(((N + 9) / 10)) ] ||
    fail "$N INF folders: not every copy in a language's folder found"
[ "$(grep -c "^  no INF copy: $W/Windows/INF/Scale[0-9]*/0009/scale[0-9]*\.ini: not found$" "$OUT")" -eq $((N - (N + 9) / 10)) ] ||
    fail "$N INF folders: a missing copy not named by its English path"
expect_same_tree "$W" "$TMPDIR/before"

# 11. N backups in one folder audited together (audit --stores-from): the
# disk each file lies on is looked for above it, and listing that folder
# again for each of its N files made the run quadratic (N=8,000: 93 s).
N=$(size 4000)
mkdir -p "$TMPDIR/many"
awk -v n="$N" -v d="$TMPDIR/many" 'BEGIN {
    for (i = 0; i < n; i++) {
        f = sprintf("%s/m%05d.ini", d, i)
        printf "[Perflib]\r\n" >f
        close(f)
        print "psb:" f
    } }' >"$TMPDIR/many.txt"
bounded "$N backups in one folder: audit --stores-from" 3 "0 1 2 3" audit --stores-from "$TMPDIR/many.txt"


# 12. N providers' INF copies, each a sparse 16,000,000-byte INI (within
# an INF file's cap, 16 KB on disk): rebuild read every one whole (300:
# 26 s, most of it the system's copying zeros). What rebuild reads of
# INF copies in all is bounded (256 MiB): the copies past it are named,
# not read.
fresh files
N=$(size 300)
"$MKSCALE" libraries "$CFG/SYSTEM" "$N" || fail "mkscale libraries"
i=0
while [ $i -lt "$N" ]; do
    s=$(printf %06d $i)
    d=$W/Windows/INF/Scale$s/0009
    mkdir -p "$d"
    printf '[info]\r\ndrivername=Scale%s\r\nsymbolfile=s.h\r\n[languages]\r\n009=English\r\n' "$s" >"$d/scale$s.ini"
    truncate -s 16000000 "$d/scale$s.ini"
    i=$((i + 1))
done
bounded "$N sparse INF copies of 16 MB: rebuild --dry-run" 3 "0 2" \
    --store "hive:$W" rebuild --dry-run --accept-loss
[ "$(grep -c "would take the INF copies read past the 256 MiB rebuild reads of them in all: not read" "$OUT")" -eq $((N - 16)) ] ||
    fail "$N sparse INF copies: not every copy past the bound named: $(grep -c "not read" "$OUT")"
# repair --from-ini reads the same copies (600: 148 s), within the same
# bound; INF's folder listed once, not once a service.
mkdir -p "$TMPDIR/no-inis"
bounded "$N sparse INF copies of 16 MB: repair --dry-run --from-ini" 3 "0 1 2" \
    --store "hive:$W" repair --dry-run --from-ini "$TMPDIR/no-inis"
[ "$(grep -c "skipped: its folder's 16000000 bytes would take the INF copies read past the 256 MiB read of them in all: not read" "$ERR")" -eq $((N - 16)) ] ||
    fail "$N sparse INF copies: repair --from-ini did not name every copy past the bound"

# 13. repair --from-ini of a folder of N INIs whose symbol file is not
# there by its own name: each looked for in any letter case listed the
# folder again (4,000: 18 s); the folder's listing is kept while it is
# confined, a lookup a binary search.
N=$(size 4000)
mkdir -p "$TMPDIR/inis"
awk -v n="$N" -v d="$TMPDIR/inis" 'BEGIN {
    for (i = 0; i < n; i++) {
        f = sprintf("%s/s%05d.ini", d, i)
        printf "[info]\r\ndrivername=Svc%d\r\nsymbolfile=NoSuch.h\r\n[languages]\r\n009=English\r\n", i >f
        close(f)
    } }'
fresh files
bounded "$N INIs without their symbol file: repair --dry-run --from-ini" 3 "0 1 2" \
    --store "hive:$W" repair --dry-run --from-ini "$TMPDIR/inis"
# 14. An INI of N keys that each draw a warning: a line a warning, one
# write each (a write for each character of a message cost 8 s of
# system time for 100,000), for the first 1000 of the kind; one more line
# counts the rest (each was a heap block or three: 1,000,000 took 260 MB,
# tests/cli/hostile_memory_ini.sh case 3).
N=$(size 90000)
printf '#define O0 0\n' >"$TMPDIR/w.h"
awk -v n="$N" 'BEGIN { printf "[info]\ndrivername=T\nsymbolfile=w.h\n[languages]\n009=E\n[objects]\nO0_009_NAME=\n[text]\nO0_009_NAME=a\nO0_009_HELP=b\n"
                       for (k = 0; k < n; k++) print "a" k "=" }' >"$TMPDIR/w.ini"
bounded "an INI of $N keys that each draw a warning: check-ini" 2 0 check-ini "$TMPDIR/w.ini"
[ "$(grep -c 'is not SYMBOL_LLL_NAME or SYMBOL_LLL_HELP; skipped' "$ERR")" -eq 1000 ] ||
    fail "check-ini did not warn of the first 1000 of the $N keys"
expect_grep "w\.ini:1010: warning: \.\.\. and $((N - 1000)) more warnings like this, between lines 1011 and $((N + 10)) (only the first 1000 of a kind are listed)$" "$ERR"
# 16. rebuild of 1,000 languages and 1,000 providers that each language
# lacks: a provider's sources are runs of languages, a provider's line
# says a run of more than eight once (a choice kept and printed for each
# provider and language: 2,000 of each took 262 MB and printed 41 MB).
languages_tree 1000
"$MKSCALE" services "$CFG/SYSTEM" "$N" || fail "mkscale services"
bounded "$N languages and $N providers: rebuild --dry-run" 10 "0 1 2" \
    --store "hive:$W" rebuild --dry-run --accept-loss
[ "$ASAN" = 1 ] || [ "$RSS_KB" -le $((64 * 1024)) ] ||
    fail "rebuild --dry-run of $N languages and $N providers took $RSS_KB KB"
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$OUT")
[ "$longest" -le 400 ] ||
    fail "rebuild --dry-run printed a line of $longest bytes for $N languages"
grep -q "languages) LOST" "$OUT" ||
    fail "rebuild --dry-run did not say a run of languages once"

# 15. repair --from-ini of a folder of 200 INIs that share one symbol
# file of 200,000 names (7 MB): each INI's load parses it again, so what
# the loads read is counted, each file as often as it is read, and past
# 256 MiB in all the other INIs are skipped, said (200 took 25 s).
N=$(size 200000)
mkdir -p "$TMPDIR/shared-sym"
awk -v n="$N" 'BEGIN { for (k = 0; k < n; k++) print "#define SYMBOL_NUMBER_" k " " 2 * k }' >"$TMPDIR/shared-sym/S.h"
i=0
while [ $i -lt 200 ]; do
    i=$((i + 1))
    printf '[info]\ndrivername=TransferPerf\nsymbolfile=S.h\n[languages]\n009=English\n[objects]\nSYMBOL_NUMBER_0_009_NAME=\n[text]\nSYMBOL_NUMBER_0_009_NAME=a\nSYMBOL_NUMBER_0_009_HELP=b\n' >"$TMPDIR/shared-sym/p$i.ini"
done
fresh files
bounded "200 INIs sharing a symbol file of $N names: repair --dry-run --from-ini" 10 "0 1 2" \
    --store "hive:$W" repair --dry-run --from-ini "$TMPDIR/shared-sym"
if [ "$ASAN" = 0 ]; then
    grep -q "past the 256 MiB read of them in all" "$OUT" "$ERR" ||
        fail "repair --from-ini read a shared symbol file for each of 200 INIs"
fi
# 17. A .reg file read into a tree (restore FILE.reg) that deletes what
# it set: N values each deleted ("vK"=-), N keys each deleted ([-KEY]),
# one name set and deleted N times. Each deletion moved every entry after
# it and rebuilt the key's index, and a deleted name's slots stayed in
# its probes (80,000 deletions took 124 s; 40,000 of one name 89 s).
N=$(size 80000)
fresh files
awk -v n="$N" 'BEGIN { printf "REGEDIT4\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\X]\r\n";
    for (i = 0; i < n; i++) printf "\"v%d\"=\"\"\r\n", i;
    for (i = 0; i < n; i++) printf "\"v%d\"=-\r\n", i;
    for (i = 0; i < n; i++) printf "\"z\"=\"\"\r\n\"z\"=-\r\n" }' >"$TMPDIR/deletes.reg"
bounded "$N values deleted, one name set and deleted $N times: restore --dry-run" 3 2 \
    --store "hive:$W" restore --dry-run "$TMPDIR/deletes.reg"
awk -v n="$N" 'BEGIN { printf "REGEDIT4\r\n\r\n";
    for (i = 0; i < n; i++) printf "[HKEY_LOCAL_MACHINE\\SOFTWARE\\X\\k%d]\r\n", i;
    for (i = 0; i < n; i++) printf "[-HKEY_LOCAL_MACHINE\\SOFTWARE\\X\\k%d]\r\n", i }' \
    >"$TMPDIR/deleted-keys.reg"
bounded "$N keys deleted: restore --dry-run" 3 2 \
    --store "hive:$W" restore --dry-run "$TMPDIR/deleted-keys.reg"

# 18. A symbol file whose alias chain of N names ends in a name of 4N
# references back to its start (review 34 F1): each reference met again
# the chain's start on the walk's stack and walked the whole chain, though
# every name on it was already on the cycle (80,000 and 320,000: check-ini
# 14 s; rebuild --dry-run of a tree whose INF copy has it, 15 s). The
# names already on a cycle are skipped; the cycle is described once.
N=$(size 80000)
awk -v n="$N" 'BEGIN { for (i = 0; i < n - 1; i++) printf "#define Z%d (Z%d + 2)\r\n", i, i + 1
    printf "#define Z%d (Z0", n - 1; for (j = 1; j < 4 * n; j++) printf "+Z0"; printf ")\r\n" }' \
    >"$TMPDIR/chain.h"
printf '[info]\r\ndrivername=Z\r\nsymbolfile=chain.h\r\n[languages]\r\n009=English\r\n[objects]\r\nZ0_009_NAME=O\r\n[text]\r\nZ0_009_NAME=n\r\nZ0_009_HELP=h\r\n' \
    >"$TMPDIR/chain.ini"
bounded "an alias chain of $N names met again by $((4 * N)) references: check-ini" 3 2 \
    check-ini "$TMPDIR/chain.ini"
expect_grep "/chain\.h:1: error: Z0 is in an alias cycle of $N names: Z0 -> Z1 -> Z2 -> Z3 -> \.\.\. -> Z0$" "$ERR"
fresh files
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$W" install $CS "$INI"
cat "$TMPDIR/chain.h" >>"$W/Windows/INF/Xfer/0009/o.h"
bounded "an INF copy's alias chain of $N names met again by $((4 * N)) references: rebuild --dry-run" 3 0 \
    --store "hive:$W" rebuild --dry-run
rm -f "$TMPDIR/chain.h" "$TMPDIR/chain.ini"

# 19. repair --from-ini of a provider whose INF copy's offsets were chosen
# so that the indices it restores share one tenth of the slots of the
# set that holds them under its fixed multiplier (review 35 F2: 100,000
# symbols, 10.4 s for 0.37). The set is keyed by the process's basis.
N=$(size 90000)
cat >"$TMPDIR/fixedmul.c" <<'C'
/* fixedmul FC N: an INI (stdout) and its symbol file (fixedmul.h) of N
 * counters at even offsets OFF whose (FC + OFF) * 0x9E3779B97F4A7C15 >>
 * 20 lies, cut to 2^18, in its lowest tenth. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    uint32_t fc = (uint32_t)strtoul(argv[1], NULL, 10);
    unsigned long n = strtoul(argv[2], NULL, 10), k = 0;
    FILE *h = fopen("fixedmul.h", "w");
    if (argc != 3 || !h)
        return 1;
    printf("[info]\r\ndrivername=Hashy\r\nsymbolfile=fixedmul.h\r\n[languages]\r\n"
           "009=English\r\n[objects]\r\nS0_009_NAME=O\r\n[text]\r\n");
    for (uint32_t off = 0; off < 1999998 && k < n; off += 2) {
        uint64_t x = (uint64_t)(fc + off) * 0x9E3779B97F4A7C15ull;
        if (((x >> 20) & ((1u << 18) - 1)) >= 26214)
            continue;
        fprintf(h, "#define S%lu %u\r\n", k, off);
        printf("S%lu_009_NAME=n\r\nS%lu_009_HELP=h\r\n", k, k);
        k++;
    }
    return fclose(h) != 0 || k != n;
}
C
cc -o "$TMPDIR/fixedmul" "$TMPDIR/fixedmul.c" || fail "cannot build fixedmul"
fresh files
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$W" install --dry-run $CS "$INI"
fc=$(sed -n 's/^would install Xfer: names \([0-9]*\)-.*/\1/p' "$OUT")
[ -n "$fc" ] || fail "no First Counter in the dry run"
(cd "$TMPDIR" && ./fixedmul "$fc" "$N" >fixedmul.ini) || fail "fixedmul $fc $N"
cp "$W/Windows/System32/perfc009.dat" "$W/Windows/System32/perfh009.dat" "$TMPDIR/"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$W" install $CS "$TMPDIR/fixedmul.ini"
expect_grep "^installed Hashy: names $fc-" "$OUT"
# The disk's author takes the strings out: the tables as they were.
for d in System32 SysWOW64; do
    cp "$TMPDIR/perfc009.dat" "$TMPDIR/perfh009.dat" "$W/Windows/$d/"
done
mkdir -p "$TMPDIR/noinis"
bounded "repair --from-ini of $N offsets chosen against a fixed multiplier" 3 0 \
    --store "hive:$W" repair --from-ini "$TMPDIR/noinis" --dry-run
expect_grep "Hashy: Perflib.009: $N names and $N help texts restored" "$OUT"
rm -f "$TMPDIR/fixedmul"* "$TMPDIR/perf"[ch]009.dat

# 20. rebuild of a provider whose INF copy lists 4,095 languages, English
# last, and has 40,000 counters: each symbol's text was looked for by a
# scan of the INF copy's languages (review 35 F5: 32 s for 0.2). The
# order is made once a language, through the loader's index.
N=$(size 40000)
fresh files
awk -v s="$N" 'BEGIN { printf "[info]\r\ndrivername=ManyLang\r\nsymbolfile=ml.h\r\n[languages]\r\n"
    k = 0; for (i = 1; k < 4094; i++) { if (i == 9) continue; printf "%03X=L\r\n", i; k++ }
    printf "009=English\r\n[objects]\r\nS0_009_NAME=O\r\n[text]\r\n"
    for (i = 0; i < s; i++) printf "S%d_009_NAME=n\r\nS%d_009_HELP=h\r\n", i, i }' >"$TMPDIR/ml.ini"
awk -v s="$N" 'BEGIN { for (i = 0; i < s; i++) printf "#define S%d %d\r\n", i, 2 * i }' >"$TMPDIR/ml.h"
cp "$W/Windows/System32/perfc009.dat" "$W/Windows/System32/perfh009.dat" "$TMPDIR/"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$W" install $CS "$TMPDIR/ml.ini"
for d in System32 SysWOW64; do
    cp "$TMPDIR/perfc009.dat" "$TMPDIR/perfh009.dat" "$W/Windows/$d/"
done
bounded "rebuild of an INF copy of $N counters listing 4,095 languages" 3 0 \
    --store "hive:$W" rebuild --dry-run
expect_grep "^provider ManyLang .*: 009 from the INF copy" "$OUT"
rm -f "$TMPDIR/ml.ini" "$TMPDIR/ml.h" "$TMPDIR/perf"[ch]009.dat

# 21. uninstall of a provider whose INF copy the disk's author put in each
# of 16,000 planted languages' folders: each file's removal looked for
# the file among every change made before it (review 35 F3: 5.3 s of
# processor time, quadrupling a doubling). Now among the files the
# change set held before, sorted, and each folder once.
languages_tree 16000
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$W" install $CS "$INI"
awk -v n="$N" -v d="$W/Windows/INF/Xfer" 'BEGIN { for (i = 0; i < n; i++) printf "%s/%04X\n", d, 4096 + i }' \
    >"$TMPDIR/folders"
xargs mkdir -p <"$TMPDIR/folders" || fail "cannot make the INF folders"
while read -r d; do
    printf '[info]\r\nsymbolfile=o.h\r\n' >"$d/x.ini" && : >"$d/o.h" || fail "cannot write $d"
done <"$TMPDIR/folders"
USER_CPU=1
bounded "uninstall of a provider with an INF copy in each of $N languages' folders (user time)" 2 0 \
    --store "hive:$W" uninstall --dry-run Xfer
USER_CPU=0
[ "$(grep -c "^  file INF/Xfer/[0-9A-F]*/\(x\.ini\|o\.h\): removed$" "$OUT")" -eq $((2 * N + 2)) ] ||
    fail "uninstall --dry-run does not remove every INF copy once: $(grep -c "removed" "$OUT")"
rm -f "$TMPDIR/folders"

# 22. restore of a .reg backup holding 16,000 language keys the store
# lacks, into a store of 16,000 planted languages: each store language
# was looked for by a scan of the file's keys (review 35 F7: 8.2 s of
# processor time). The file's keys are indexed by value once.
fresh files
expect_exit 0 "$REGTOOL" --store "hive:$W" backup --format reg "$TMPDIR/b0.reg"
languages_tree 16000
{ iconv -f UTF-16LE -t UTF-8 "$TMPDIR/b0.reg" | sed '1s/^\xef\xbb\xbf//' 
  awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
      printf "\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\%04X]\r\n", 40960 + i }'
} >"$TMPDIR/b.reg"
USER_CPU=1
bounded "restore of a .reg of $N languages the store of $N lacks (user time)" 2 0 \
    --store "hive:$W" restore --dry-run "$TMPDIR/b.reg"
USER_CPU=0
rm -f "$TMPDIR/b0.reg" "$TMPDIR/b.reg"

# 23. repair of 16,000 planted languages whose SysWOW64 copies differ
# from System32's tables (English cut to two pairs, so that nothing is
# filled): each kept table looked for its copy's difference by a scan of
# every difference (review 35 F6: 20 s of user time). Now by a search.
languages_tree 16000
printf '1\0001847\0002\000System\0\0' | iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/c.dat"
printf '3\000The system\0\0' | iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/h.dat"
for d in System32 SysWOW64; do
    cp "$TMPDIR/c.dat" "$W/Windows/$d/perfc009.dat"
    cp "$TMPDIR/h.dat" "$W/Windows/$d/perfh009.dat"
done
(cd "$W/Windows/SysWOW64" && truncate -s 4 perf[ch][1-4]*.dat) || fail "cannot change the copies"
USER_CPU=1
bounded "repair of $N languages whose SysWOW64 copies differ (user time)" 2 2 \
    --store "hive:$W" repair --dry-run
USER_CPU=0
[ "$(grep -c "SysWOW64.perf[ch][0-9a-f]*\.dat rewritten from System32's" "$OUT")" -eq $((2 * N)) ] ||
    fail "repair --dry-run does not rewrite every copy: $(grep -c "rewritten from" "$OUT")"
rm -f "$TMPDIR/c.dat" "$TMPDIR/h.dat"

# 24. audit of a reg: store whose CurrentLanguage Counter holds 100,000
# pairs beside 32,000 languages of one pair: CurrentLanguage was walked
# for each language it was compared with (review 35 F8: 4.4 s of user
# time at 16,000). Now each language's pairs are looked up in it.
N=$(size 32000)
fresh registry
expect_exit 0 "$REGTOOL" --store "hive:$W" backup --format reg "$TMPDIR/b0.reg"
P='[HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib'
export P
{ iconv -f UTF-16LE -t UTF-8 "$TMPDIR/b0.reg" | sed '1s/^\xef\xbb\xbf//'
  printf '\r\n%s\\CurrentLanguage]\r\n"Counter"=hex(7):' "$P"
  awk -v e=100000 'BEGIN { for (i = 1; i <= e; i++) { s = sprintf("%d", 2 * i)
      for (k = 1; k <= length(s); k++) printf "%02x,00,", 48 + substr(s, k, 1)
      printf "00,00,78,00,00,00,"; if (i % 8 == 0) printf "\\\r\n  " }
      printf "00,00\r\n" }'
  printf '"Help"=hex(7):33,00,00,00,78,00,00,00,00,00\r\n'
  awk -v n="$N" 'BEGIN { p = ENVIRON["P"]; for (i = 0; i < n; i++)
      printf "\r\n%s\\%04X]\r\n\"Counter\"=hex(7):31,00,00,00,31,00,38,00,34,00,37,00,00,00,00,00\r\n\"Help\"=hex(7):33,00,00,00,78,00,00,00,00,00\r\n", p, 4096 + i }'
} >"$TMPDIR/current.reg"
USER_CPU=1
bounded "audit of a CurrentLanguage of 100,000 pairs beside $N languages (user time)" 6 2 \
    --store "reg:$TMPDIR/current.reg" audit
USER_CPU=0
expect_grep "current-language-differs" "$OUT"
rm -f "$TMPDIR/b0.reg" "$TMPDIR/current.reg"

# 25. backup of a help text of 200,000 lines ended by VT, each a digit
# and no '=' (review 54 R54-2: each line was looked through to the
# text's CR or LF for one, 13 s for 120,000 of them, and every writer
# that keeps PerfStringBackup.INI paid it again).
N=$(size 200000)
fresh files
F=$W/Windows/System32/perfh009.dat
head -c -2 "$F" >"$F.new"
{ printf '4001\000x'
  awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "\0131" }'
  printf '\000\000'; } | iconv -f UTF-8 -t UTF-16LE >>"$F.new" || fail "iconv"
mv "$F.new" "$F"
bounded "backup of a text of $N VT-ended lines" 2 0 \
    --store "hive:$W" backup "$TMPDIR/vt.ini"
rm -f "$TMPDIR/vt.ini"

echo "hostile scale: $n runs"
[ "$n" -ge 82 ] || fail "only $n runs"
exit 0
