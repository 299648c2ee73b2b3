# Sixteen writers on one hive store at once, installing distinct
# providers, then sixteen uninstalling them (and sixteen installing into a
# .reg store, eight): each waits its turn, none is lost, audit is clean after each wave, and no index is shared, as
# reglookup (not regtool) reads the hives. A reader runs during all of
# it, taking snapshots (regtool backup, which reads the whole database
# under the readers' lock, and regtool audit): every snapshot must be a
# database some sequence of whole commits gives, never a mixed state.
. tests/cli/lib.sh

N=16
D=$TMPDIR/win
expect_exit 0 $REGTOOL --store "hive:$D" init --languages 009,019 --layout registry
i=1
while [ $i -le $N ]; do
    P=$TMPDIR/p$i
    mkdir -p "$P"
    printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
    printf '[info]\ndrivername=Prov%s\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Prov%s\nOBJ_009_HELP=P.\nCNT_009_NAME=Count%s\nCNT_009_HELP=C.\n' "$i" "$i" "$i" >"$P/p.ini"
    i=$((i + 1))
done

# check_snapshot FILE: a backup (UTF-16LE) is a consistent database: Last
# Counter/Last Help at or above every index present, every string above
# Base Index in some provider's range, each provider's names and help all
# there in every language, no two ranges sharing an index.
check_snapshot() {
    iconv -f UTF-16LE -t UTF-8 "$1" | tr -d '\r' | awk '
        /^\[/ { sec = $0; next }
        !/=/ { next }
        { k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1) }
        sec == "[Perflib]" { pl[k] = v + 0; next }
        sec ~ /^\[PERF_/ { s = substr(sec, 7, length(sec) - 7); svc[s] = 1; r[s, k] = v + 0; next }
        sec ~ /^\[PerfStrings_/ { l = substr(sec, 14, length(sec) - 14); lang[l] = 1
            have[l, k + 0] = 1; idx[++m] = k + 0; il[m] = l }
        END {
            for (j = 1; j <= m; j++) {
                x = idx[j]
                if (x > 1 && x % 2 == 0 && x > pl["Last Counter"]) { print "name " x " above Last Counter " pl["Last Counter"]; bad = 1 }
                if (x % 2 == 1 && x > pl["Last Help"]) { print "help " x " above Last Help " pl["Last Help"]; bad = 1 }
                if (x <= pl["Base Index"]) continue
                own = 0
                for (s in svc)
                    if ((x >= r[s, "First Counter"] && x <= r[s, "Last Counter"]) ||
                        (x >= r[s, "First Help"] && x <= r[s, "Last Help"])) own = 1
                if (!own) { print il[j] ": " x " in no provider range"; bad = 1 }
            }
            for (s in svc) {
                for (l in lang)
                    for (x = r[s, "First Counter"]; x <= r[s, "Last Help"]; x++)
                        if (((x % 2 == 0 && x <= r[s, "Last Counter"]) ||
                             (x % 2 == 1 && x >= r[s, "First Help"])) && !have[l, x]) {
                            print s ": " l " lacks " x; bad = 1 }
                for (t in svc)
                    if (s < t && r[s, "First Counter"] <= r[t, "Last Help"] &&
                        r[t, "First Counter"] <= r[s, "Last Help"]) {
                        print s " and " t " share indices"; bad = 1 }
            }
            exit bad }'
}

# The reader: snapshots until told to stop, each checked; counts them.
reader() {
    n=0
    while [ ! -e "$TMPDIR/stop" ]; do
        $REGTOOL --store "hive:$D" backup --force "$TMPDIR/snap.ini" >/dev/null 2>"$TMPDIR/r.err" ||
            { echo "backup failed: $(cat "$TMPDIR/r.err")"; return 1; }
        check_snapshot "$TMPDIR/snap.ini" >"$TMPDIR/r.bad" ||
            { echo "mixed state in snapshot $n:"; cat "$TMPDIR/r.bad"; return 1; }
        $REGTOOL --store "hive:$D" audit --json >"$TMPDIR/r.audit" 2>"$TMPDIR/r.err"
        jq -e '.summary.errors == 0 and .summary.warnings == 0' "$TMPDIR/r.audit" >/dev/null ||
            { echo "audit of snapshot $n: $(cat "$TMPDIR/r.audit" "$TMPDIR/r.err")"; return 1; }
        n=$((n + 1))
        # Renamed into place: a reader of the count never sees it empty
        # (written in place, it is truncated first).
        echo "$n" >"$TMPDIR/snapshots.new" && mv "$TMPDIR/snapshots.new" "$TMPDIR/snapshots"
        sleep 0.02
    done
}
reader >"$TMPDIR/reader.out" 2>&1 &
rpid=$!

# wait_snapshots N: until the reader has taken more than N snapshots (60 s
# at most, or until it stops). A reader's lock has no priority over the
# writers', so a wave can run start to end without one; the reader keeps
# taking them throughout, and these waits make sure it has taken one
# before each wave starts and one after it ends, whatever the timing.
wait_snapshots() {
    t=0
    while [ "$(cat "$TMPDIR/snapshots" 2>/dev/null || echo 0)" -le "$1" ] &&
          [ "$t" -lt 600 ] && kill -0 "$rpid" 2>/dev/null; do
        sleep 0.1
        t=$((t + 1))
    done
}

# wave VERB: N writers at once, each of which must succeed.
wave() {
    pids=""
    i=1
    while [ $i -le $N ]; do
        if [ "$1" = install ]; then
            $REGTOOL --store "hive:$D" install --create-service --library x.dll \
                --open O --collect C --close X "$TMPDIR/p$i/p.ini" >"$TMPDIR/out$i" 2>&1 &
        else
            $REGTOOL --store "hive:$D" uninstall "Prov$i" >"$TMPDIR/out$i" 2>&1 &
        fi
        pids="$pids $!"
        i=$((i + 1))
    done
    rc=0
    for p in $pids; do wait "$p" || rc=1; done
    [ "$rc" -eq 0 ] || { cat "$TMPDIR"/out*; fail "a writer of the $1 wave failed"; }
    i=1
    while [ $i -le $N ]; do
        grep -q "^${1}ed Prov$i" "$TMPDIR/out$i" || { cat "$TMPDIR/out$i"; fail "Prov$i: not ${1}ed"; }
        i=$((i + 1))
    done
    expect_exit 0 $REGTOOL --store "hive:$D" audit --json
    jq -e '.summary.errors == 0 and .summary.warnings == 0' "$OUT" >/dev/null ||
        fail "audit after the $1 wave: $(cat "$OUT")"
}

wait_snapshots 0
wave install
i=1
while [ $i -le $N ]; do
    expect_exit 0 $REGTOOL --store "hive:$D" names "Prov$i" "Count$i"
    i=$((i + 1))
done
# N distinct ranges, no index twice, as an independent reader sees them:
# every provider's four values in SYSTEM, no two ranges overlapping,
# Perflib's Last Counter and Last Help at or above every provider's, and
# each provider's names at its indexes in the 009 Counter table.
C=$D/Windows/System32/config
reglookup -H -p /ControlSet001/Services "$C/SYSTEM" >"$TMPDIR/system" 2>"$TMPDIR/rl.err" ||
    fail "reglookup SYSTEM: $(cat "$TMPDIR/rl.err")"
[ ! -s "$TMPDIR/rl.err" ] || fail "reglookup warned on SYSTEM: $(cat "$TMPDIR/rl.err")"
reglookup -H -p "/Microsoft/Windows NT/CurrentVersion/Perflib" "$C/SOFTWARE" \
    >"$TMPDIR/software" 2>"$TMPDIR/rl.err" || fail "reglookup SOFTWARE: $(cat "$TMPDIR/rl.err")"
# Its known complaints only: 019's text is not ASCII, Help is over 1 MiB.
grep -v -e 'quoting raw buffer' -e 'larger than 1048576, truncating' \
    -e 'Left over chunks detected' "$TMPDIR/rl.err" >"$TMPDIR/rl.other"
[ ! -s "$TMPDIR/rl.other" ] || fail "reglookup warned on SOFTWARE: $(cat "$TMPDIR/rl.other")"
awk -F, -v n=$N '
    function hex(s,   x, i) {
        x = 0; s = toupper(substr(s, 3))
        for (i = 1; i <= length(s); i++) x = x * 16 + index("0123456789ABCDEF", substr(s, i, 1)) - 1
        return x }
    FNR == NR {
        k = split($1, p, "/")
        if (p[2] == "ControlSet001" && p[5] == "Performance" && $2 == "DWORD" &&
            p[6] ~ /^(First|Last) (Counter|Help)$/) {
            v[p[4], p[6]] = hex($3); prov[p[4]] = 1 }
        next }
    $1 ~ /\/Perflib\/Last (Counter|Help)$/ { sub(/.*\//, "", $1); top[$1] = hex($3) }
    $1 ~ /\/Perflib\/009\/Counter$/ {
        k = split($3, t, "|")
        for (i = 1; i + 1 <= k; i += 2) name[t[i]] = t[i + 1] }
    END {
        for (i = 1; i <= n; i++) {
            s = "Prov" i
            if (!(s in prov)) { print "missing " s; bad = 1; continue }
            fc = v[s, "First Counter"]; lc = v[s, "Last Counter"]
            fh = v[s, "First Help"]; lh = v[s, "Last Help"]
            if (!fc || lc != fc + 2 || fh != fc + 1 || lh != lc + 1) {
                print s ": range " fc "-" lc ", help " fh "-" lh; bad = 1 }
            if (lc > top["Last Counter"] || lh > top["Last Help"]) {
                print s ": " lc "/" lh " above Perflib Last Counter/Help " \
                    top["Last Counter"] "/" top["Last Help"]; bad = 1 }
            if (name[fc] != s || name[fc + 2] != "Count" i) {
                print s ": 009 Counter has " name[fc] ", " name[fc + 2]; bad = 1 }
            lo[i] = fc; hi[i] = lh
        }
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
            if (lo[i] <= hi[j] && lo[j] <= hi[i]) {
                print "Prov" i " " lo[i] "-" hi[i] " overlaps Prov" j " " lo[j] "-" hi[j]; bad = 1 }
        exit bad }
' "$TMPDIR/system" "$TMPDIR/software" >"$TMPDIR/ranges" ||
    fail "the ranges as reglookup reads them: $(cat "$TMPDIR/ranges")"
expect_exit 0 $REGTOOL --store "hive:$D" query --json
n=$(grep -o '"first_counter":[0-9]*' "$OUT" | sort | uniq -d | wc -l)
[ "$n" -eq 0 ] || fail "two providers share a First Counter"
before=$(cat "$TMPDIR/snapshots" 2>/dev/null || echo 0)
wait_snapshots "$before"
mid=$(cat "$TMPDIR/snapshots" 2>/dev/null || echo 0)
# The checker tells a mixed state: one name of Prov1 missing from 019
# (half an install), or Last Counter lowered below its range.
expect_exit 0 $REGTOOL --store "hive:$D" backup "$TMPDIR/whole.ini"
check_snapshot "$TMPDIR/whole.ini" >/dev/null || fail "the checker rejects a whole snapshot"
fc=$(awk -F, '$1 == "/ControlSet001/Services/Prov1/Performance/First Counter" { print $3 }' \
    "$TMPDIR/system")
fc=$(printf '%d' "$fc")
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/whole.ini" | tr -d '\r' >"$TMPDIR/whole.txt"
awk -v x="$fc" '/^\[/ { sec = $0 } !(sec == "[PerfStrings_019]" && $0 ~ "^" x "=")' \
    "$TMPDIR/whole.txt" | iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/mixed.ini"
check_snapshot "$TMPDIR/mixed.ini" >/dev/null && fail "the checker misses half an install"
awk '/^\[/ { sec = $0 } sec == "[Perflib]" && /^Last Counter=/ { $0 = "Last Counter=3990" } { print }' \
    "$TMPDIR/whole.txt" |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/mixed.ini"
check_snapshot "$TMPDIR/mixed.ini" >/dev/null && fail "the checker misses a low Last Counter"

wave uninstall
# Gone, as reglookup reads the hives: no Prov service keeps a range, and
# no ProvN or CountN name is left in 009.
reglookup -H -p /ControlSet001/Services "$C/SYSTEM" >"$TMPDIR/system" 2>/dev/null ||
    fail "reglookup SYSTEM"
! grep -q '^/ControlSet001/Services/Prov[0-9]*/Performance/First Counter,' "$TMPDIR/system" ||
    fail "a Prov provider keeps its First Counter: $(grep 'Prov.*First Counter' "$TMPDIR/system")"
reglookup -H -p "/Microsoft/Windows NT/CurrentVersion/Perflib/009" "$C/SOFTWARE" \
    >"$TMPDIR/software" 2>/dev/null || fail "reglookup SOFTWARE"
! grep -q '|Prov[0-9]*|\||Count[0-9]*|' "$TMPDIR/software" || fail "a Prov name is left in 009"

# The .reg store: eight writers on one file at once, each waiting for
# the file's lock and working on what the one before wrote; none is lost
# (before the lock, two that read the same file could both replace it).
# (English only: every writer reads and writes the whole file.)
expect_exit 0 $REGTOOL --store "hive:$TMPDIR/r" init --languages 009 --layout registry
expect_exit 0 $REGTOOL --store "hive:$TMPDIR/r" backup --format reg "$TMPDIR/s.reg"
NR=8
pids=""
i=1
while [ $i -le $NR ]; do
    $REGTOOL --store "reg:$TMPDIR/s.reg" install --create-service --library x.dll \
        --open O --collect C --close X "$TMPDIR/p$i/p.ini" >"$TMPDIR/out$i" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
[ "$rc" -eq 0 ] || { cat "$TMPDIR"/out*; fail "a writer of the .reg store failed"; }
expect_exit 0 $REGTOOL --store "reg:$TMPDIR/s.reg" query --json
i=1
while [ $i -le $NR ]; do
    expect_grep "\"name\":\"Prov$i\"" "$OUT"
    i=$((i + 1))
done
n=$(grep -o '"first_counter":[0-9]*' "$OUT" | sort | uniq -d | wc -l)
[ "$n" -eq 0 ] || fail ".reg store: two providers share a First Counter"
expect_exit 0 $REGTOOL --store "reg:$TMPDIR/s.reg" audit --json
jq -e '.summary.errors == 0 and .summary.warnings == 0' "$OUT" >/dev/null ||
    fail ".reg store: audit after the installs: $(cat "$OUT")"

wait_snapshots "$mid"
touch "$TMPDIR/stop"
wait "$rpid" || fail "the reader saw a mixed state: $(cat "$TMPDIR/reader.out")"
snaps=$(cat "$TMPDIR/snapshots" 2>/dev/null || echo 0)
# The reader ran before, during and after each wave.
[ "$mid" -ge 2 ] && [ "$snaps" -gt "$mid" ] ||
    fail "the reader took too few snapshots ($mid, then $snaps)"
echo "concurrent: $N installs, then $N uninstalls; the reader checked $snaps snapshots ($mid by the end of the installs)"
