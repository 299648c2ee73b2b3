# regtool repair through the binary, on a tree in the files layout whose
# 019 Counter .dat was cut short, whose Last Counter was set below the
# highest index and with a provider disabled: audit finds it; --dry-run
# writes nothing; repair saves a backup first (readable as a psb: store),
# fixes what needs no guessing in both System32 and SysWOW64, says what it
# left; audit is then clean of it; a second repair changes nothing.
. tests/cli/lib.sh

D=$TMPDIR/win
S="--store hive:$D"
SW=$D/Windows/System32/config/SOFTWARE
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" $S init --languages 009,019 --layout files
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/replication.ini
expect_exit 0 "$REGTOOL" $S names --lang 019 --json
cp "$OUT" "$TMPDIR/names019"
# A healthy tree has no orphan: Windows' own texts up to Base Index (help
# 1847, "End Marker") are nobody's range and everyone's.
expect_exit 0 "$REGTOOL" $S repair --prune-orphans --dry-run
expect_grep "^nothing to repair" "$OUT"
# The damage.
for d in System32 SysWOW64; do
    f=$D/Windows/$d/perfc019.dat
    truncate -s "$(( $(stat -c %s "$f") - 3 ))" "$f"
done
perflib_set "$SW" "Last_Counter=3000"
expect_exit 0 "$REGTOOL" $S disable ReplicationPerf
expect_exit 2 "$REGTOOL" $S audit --json
for id in blob-no-terminator last-counter-below-highest counters-disabled; do
    jq -e --arg id "$id" '[.findings[].id] | index($id) != null' "$OUT" >/dev/null ||
        fail "audit does not find $id: $(cat "$OUT")"
done

SRC=$(pwd)
cd "$TMPDIR" || exit 1
tree_state "$D" >"$TMPDIR/before"
expect_exit 1 "$REGTOOL" $S repair --dry-run
expect_grep "^would repair" "$OUT"
expect_grep "blob-salvaged \[019\]" "$OUT"
expect_grep "^left:" "$OUT"
expect_grep "counters-disabled" "$OUT"
expect_same_tree "$D" "$TMPDIR/before"
[ ! -e regtool-repair-backup.ini ] || fail "--dry-run saved a backup"
expect_grep "^would save the database to regtool-repair-backup.ini first" "$OUT"
# Where the backup would go is looked at as the repair saves it: a folder
# or a FIFO there, or no such folder, refused by the dry run as by the
# repair (exit 3, its words), nothing made (review 39 F4: dry run 0).
mkdir -p "$TMPDIR/bk/dir.ini"
mkfifo "$TMPDIR/bk/fifo.ini"
# (a FIFO is a POSIX file: the Windows build under Wine sees another)
fifo="$TMPDIR/bk/fifo.ini"
[ "${REGTOOL_WINDOWS:-}" != 1 ] || fifo=
# The same for a link in the tree on the way (named as the repair names
# it) and every numbered name taken; and a dry run so refused writes no
# --emit-reg patch (review 40 R40-1, R40-2, R40-4: the patch was
# written; "No such file or directory" for the link; "File exists"
# against the repair's words). An empty name is a usage error
# (cli_conventions.sh).
mkdir -p "$TMPDIR/bk/full" "$TMPDIR/bk/real"
: >"$TMPDIR/bk/full/b.ini"
i=1
while [ $i -le 999 ]; do : >"$TMPDIR/bk/full/b.ini_$(printf %03d $i)"; i=$((i + 1)); done
# (a link is a POSIX one too: Wine shows the Windows build the folder)
linked=
if [ "${REGTOOL_WINDOWS:-}" != 1 ]; then
    ln -s "$TMPDIR/bk/real" "$D/Windows/Temp"
    linked="$D/Windows/Temp/b.ini"
fi
tree_state "$D" >"$TMPDIR/before"
for b in "$TMPDIR/bk/dir.ini" $fifo "$TMPDIR/bk/none/b.ini" $linked \
    "$TMPDIR/bk/full/b.ini"; do
    expect_exit 3 "$REGTOOL" $S repair --dry-run --backup "$b" --emit-reg "$TMPDIR/bk/p.reg"
    head -n 1 "$ERR" >"$TMPDIR/dry_said"
    expect_grep "; nothing was saved$" "$ERR"
    [ ! -e "$TMPDIR/bk/p.reg" ] || fail "--backup '$b' refused: the dry run wrote its patch"
    grep -q "^would" "$OUT" && fail "--backup '$b' refused: the dry run said what it would do"
    expect_exit 3 "$REGTOOL" $S repair --backup "$b"
    head -n 1 "$ERR" | sed "s|$D|D|g; s|$TMPDIR|T|g" >"$TMPDIR/real_said"
    sed "s|$D|D|g; s|$TMPDIR|T|g" "$TMPDIR/dry_said" | cmp -s - "$TMPDIR/real_said" ||
        fail "--backup '$b': the dry run said '$(cat "$TMPDIR/dry_said")', the repair '$(head -n 1 "$ERR")'"
    expect_same_tree "$D" "$TMPDIR/before"
    case $b in
    */Temp/b.ini) expect_grep "Temp is a symbolic link" "$TMPDIR/dry_said" ;;
    */full/b.ini) expect_grep "b.ini_999 all exist; nothing was saved$" "$TMPDIR/dry_said" ;;
    esac
done
rm -f "$D/Windows/Temp"
rm -rf "$TMPDIR/bk/full"
tree_state "$D" >"$TMPDIR/before"
[ -z "$(find "$TMPDIR/bk" -name '*.tmp.*')" ] || fail "a temporary left beside a refused backup"

expect_exit 1 "$REGTOOL" $S repair
expect_grep "saved 2 languages and [0-9]* services to regtool-repair-backup.ini" "$OUT"
expect_grep "^repaired" "$OUT"
expect_grep "last-index-raised" "$OUT"
expect_exit 0 "$REGTOOL" --store psb:regtool-repair-backup.ini query --json ReplicationPerf
expect_grep '"first_counter":' "$OUT"
# Both copies of the table are whole again, and equal.
cmp -s "$D/Windows/System32/perfc019.dat" "$D/Windows/SysWOW64/perfc019.dat" ||
    fail "System32 and SysWOW64 differ after repair"
expect_exit 1 "$REGTOOL" $S audit --json
jq -e '.summary.errors == 0 and ([.findings[].id] | index("counters-disabled")) != null' \
    "$OUT" >/dev/null || fail "after repair: $(cat "$OUT")"
# Every name the damage left readable is there.
expect_exit 0 "$REGTOOL" $S names --lang 019 --json
jq -e --slurpfile b "$TMPDIR/names019" '[.[].index] as $now | [$b[0][].index | select(. as $i | $now | index($i) == null)] | length <= 1' \
    "$OUT" >/dev/null || fail "019 lost more than the cut name: $(cat "$OUT")"

# Again: nothing; then the provider enabled on request.
expect_exit 1 "$REGTOOL" $S repair
expect_grep "^nothing to repair" "$OUT"
[ ! -e regtool-repair-backup.ini_001 ] || fail "a repair with nothing to do saved a backup"
expect_exit 0 "$REGTOOL" $S repair --enable-disabled --backup "$TMPDIR/b2.ini"
expect_grep "provider-enabled" "$OUT"
expect_exit 0 "$REGTOOL" $S audit
expect_exit 0 "$REGTOOL" $S repair
expect_grep "^nothing to repair" "$OUT"

# A Help table cut short in the middle of a text (perfh00C.dat cut at half
# its length plus one, in both folders): repair drops what is left of the
# cut text and names its index, English's text takes its place, and the
# tables read back by iconv (not regtool) hold no trace of the cut text.
C=$TMPDIR/cut
expect_exit 0 "$REGTOOL" --store "hive:$C" init --languages 009,00C --layout files
strings_of() { iconv -f UTF-16LE -t UTF-8 "$1" | tr '\000' '\n'; }
h=$C/Windows/System32/perfh00C.dat
half=$(( $(stat -c %s "$h") / 2 + 1 ))
for d in System32 SysWOW64; do
    truncate -s "$half" "$C/Windows/$d/perfh00C.dat"
done
# The cut string is the last of the cut file, its index the one before.
strings_of "$h" >"$TMPDIR/cut.strings" 2>/dev/null
cut_text=$(tail -n 1 "$TMPDIR/cut.strings")
cut_index=$(tail -n 2 "$TMPDIR/cut.strings" | head -n 1)
case $cut_index in ''|*[!0-9]*) fail "the cut fell outside a text: '$(printf %.40s "$cut_index")'" ;; esac
[ -n "$cut_text" ] || fail "the cut left no text of index $cut_index"
expect_exit 0 "$REGTOOL" --store "hive:$C" repair --backup "$TMPDIR/cut-backup.ini"
expect_grep "blob-salvaged \[00C\]: Perflib\\\\00C\\\\Help: .* 2 unreadable strings dropped, among them index $cut_index, whose text the damage cut: English's text takes its place" "$OUT"
for d in System32 SysWOW64; do
    strings_of "$C/Windows/$d/perfh00C.dat" >"$TMPDIR/after.strings"
    strings_of "$C/Windows/$d/perfh009.dat" >"$TMPDIR/en.strings"
    ! grep -qxF -- "$cut_text" "$TMPDIR/after.strings" ||
        fail "$d/perfh00C.dat still holds the cut text of index $cut_index"
    now=$(awk -v i="$cut_index" 'NR % 2 == 1 && $0 == i { getline; print; exit }' "$TMPDIR/after.strings")
    en=$(awk -v i="$cut_index" 'NR % 2 == 1 && $0 == i { getline; print; exit }' "$TMPDIR/en.strings")
    [ -n "$en" ] && [ "$now" = "$en" ] ||
        fail "$d/perfh00C.dat: index $cut_index is '$now', not English's '$en'"
done

# The same cut in a registry-layout tree: Perflib\00C's Help value itself
# cut at half its length plus one (written with hivexregedit, read back
# with hivexget).
G=$TMPDIR/cutreg
expect_exit 0 "$REGTOOL" --store "hive:$G" init --languages 009,00C --layout registry
GS=$G/Windows/System32/config/SOFTWARE
PL='\Microsoft\Windows NT\CurrentVersion\Perflib'
help_of() { hivexget "$GS" "$PL\\$1" Help; }
# The value's bytes: its strings, each with its NUL, and the list's NUL.
{ help_of 00C | tr '\n' '\000'; printf '\000'; } | iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/h00C.bin"
half=$(( $(stat -c %s "$TMPDIR/h00C.bin") / 2 + 1 ))
head -c "$half" "$TMPDIR/h00C.bin" >"$TMPDIR/h00C.cut"
iconv -f UTF-16LE -t UTF-8 <"$TMPDIR/h00C.cut" 2>/dev/null | tr '\000' '\n' >"$TMPDIR/cut.strings"
cut_text=$(tail -n 1 "$TMPDIR/cut.strings")
cut_index=$(tail -n 2 "$TMPDIR/cut.strings" | head -n 1)
case $cut_index in ''|*[!0-9]*) fail "the value's cut fell outside a text: '$(printf %.40s "$cut_index")'" ;; esac
{ printf 'Windows Registry Editor Version 5.00\n\n[%s\\00C]\n"Help"=hex(7):' "$PL"
  od -An -v -tx1 "$TMPDIR/h00C.cut" | tr -s ' \n' ',,' | sed 's/^,//; s/,$//'
  printf '\n'; } >"$TMPDIR/cut.reg"
hivexregedit --merge --prefix 'HKEY_LOCAL_MACHINE\SOFTWARE' "$GS" "$TMPDIR/cut.reg" ||
    fail "hivexregedit could not cut 00C's Help"
expect_exit 0 "$REGTOOL" --store "hive:$G" repair --backup "$TMPDIR/cutreg-backup.ini"
expect_grep "blob-salvaged \[00C\]: .* 2 unreadable strings dropped, among them index $cut_index, whose text the damage cut: English's text takes its place" "$OUT"
help_of 00C >"$TMPDIR/after.strings"
help_of 009 >"$TMPDIR/en.strings"
! grep -qxF -- "$cut_text" "$TMPDIR/after.strings" || fail "00C's Help still holds the cut text of index $cut_index"
now=$(awk -v i="$cut_index" 'NR % 2 == 1 && $0 == i { getline; print; exit }' "$TMPDIR/after.strings")
en=$(awk -v i="$cut_index" 'NR % 2 == 1 && $0 == i { getline; print; exit }' "$TMPDIR/en.strings")
[ -n "$en" ] && [ "$now" = "$en" ] || fail "00C's Help: index $cut_index is '$now', not English's '$en'"
# Last Counter past the highest index a table may hold (0xffffffff, set
# with hivexregedit): audit's error, no install possible; repair lowers
# it to the highest index in use, a provider's range included (read back
# with hivexget), and the audit is clean.
L=$TMPDIR/lastmax
expect_exit 0 "$REGTOOL" --store "hive:$L" init --layout registry
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" --store "hive:$L" install $CS "$SRC/ini-samples/transfer.ini"
LS=$L/Windows/System32/config/SOFTWARE
printf 'Windows Registry Editor Version 5.00\n\n[%s]\n"Last Counter"=dword:ffffffff\n' \
    "$PL" >"$TMPDIR/lastmax.reg"
hivexregedit --merge --prefix 'HKEY_LOCAL_MACHINE\SOFTWARE' "$LS" "$TMPDIR/lastmax.reg" ||
    fail "hivexregedit could not set Last Counter"
expect_exit 2 "$REGTOOL" --store "hive:$L" audit
expect_grep "^error   last-counter-out-of-range: Last Counter is 4294967295, past 2147483648" "$OUT"
expect_exit 2 "$REGTOOL" --store "hive:$L" install $CS "$SRC/ini-samples/replication.ini"
expect_exit 0 "$REGTOOL" --store "hive:$L" repair --backup "$TMPDIR/lastmax-backup.ini"
expect_grep "last-index-lowered: Last Counter: 4294967295 -> 4004, the highest index in use" "$OUT"
[ "$(hivexget "$LS" "$PL" "Last Counter")" = 4004 ] ||
    fail "Last Counter is $(hivexget "$LS" "$PL" "Last Counter") after repair, not 4004"
expect_exit 0 "$REGTOOL" --store "hive:$L" audit
echo "repair: ok"
