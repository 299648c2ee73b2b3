# regtool audit --fleet DIR: a fleet of 22 machines made with regtool
# (backups of one init tree with the samples installed, a .reg export, a
# Windows tree) with corruptions planted on some (a duplicated index line,
# a provider's section removed, a help text removed) and entries that
# cannot be read (text, a truncated backup, a symbolic link, a FIFO, a
# folder holding nothing to audit, one whose PerfStringBackup.INI is a
# link, one with two candidates, a file that is no backup). The table
# counts each finding class's machines exactly; --json gives one line
# per machine and a summary line; the output is the same with one worker
# and with four; the exit status is the worst; a worker killed mid-audit
# loses its machine alone; SIGTERM stops the workers; the progress line
# is drawn on a terminal only.
. tests/cli/lib.sh

CS="--create-service --library x.dll --open O --collect C --close X"
W=$TMPDIR/w
expect_exit 0 "$REGTOOL" --store "hive:$W" init --languages 009,007
for ini in ini-samples/transfer.ini ini-samples/replication.ini; do
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" --store "hive:$W" install $CS "$ini"
done
expect_exit 0 "$REGTOOL" --store "hive:$W" backup "$TMPDIR/base.ini"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/base.ini" >"$TMPDIR/base.txt" ||
    fail "cannot read the backup back"
# plant NAME AWK-PROGRAM: the backup through AWK as machine NAME.
plant() {
    awk "$2" "$TMPDIR/base.txt" | iconv -f UTF-8 -t UTF-16LE >"$F/$1" ||
        fail "cannot plant $1"
}
DUP='{ print } /^\[PerfStrings_009\]/ { s = 1; next } s && /^4=/ { print; s = 0 }'
ORPHAN='/^\[PERF_TransferPerf\]/ { skip = 1; next } /^\[/ { skip = 0 } !skip'
NOHELP='/^\[PerfStrings_009\]/ { s = 1 } s && /^1849=/ { next } { print }'

F=$TMPDIR/fleet
mkdir -p "$F/pc-folder" "$F/pc-tree" "$F/pc-nothing" "$F/.git"
for i in 01 02 03 04 05; do cp "$TMPDIR/base.ini" "$F/pc-clean-$i.ini"; done
for i in 01 02 03; do plant "pc-dup-$i.ini" "$DUP"; done
plant pc-folder/PerfStringBackup.INI "$DUP"
for i in 01 02; do plant "pc-orphan-$i.ini" "$ORPHAN"; done
plant pc-nohelp.INI "$NOHELP"
expect_exit 0 "$REGTOOL" --store "hive:$W" backup --format reg "$F/pc-export.reg"
cp -R "$W/Windows" "$F/pc-tree/"
echo "not a backup" >"$F/pc-junk.ini"
head -c 1000 "$TMPDIR/base.ini" >"$F/pc-truncated.ini"
ln -s ../base.ini "$F/pc-link.ini"
mkfifo "$F/pc-fifo.reg"
# Folders: a link as its PerfStringBackup.INI; two candidates and no
# PerfStringBackup.INI.
mkdir "$F/pc-linkdir" "$F/pc-two"
ln -s ../../base.ini "$F/pc-linkdir/PerfStringBackup.INI"
cp "$F/pc-clean-01.ini" "$F/pc-two/a.ini"
cp "$F/pc-export.reg" "$F/pc-two/b.reg"
echo "notes" >"$F/notes.txt"
echo "ignored" >"$F/.git/config"

table() { awk '/^finding /, /^could not/' "$OUT"; }
expect_exit 3 "$REGTOOL" audit --fleet "$F" --jobs 1
cp "$OUT" "$TMPDIR/one"
expect_grep "^$F: 22 machines: 7 clean, 3 with warnings, 4 with errors, 8 could not be read$" "$OUT"
# Every class with its machines and findings, most machines first.
table | awk '{ print $1, $2, $3, $4 }' >"$TMPDIR/table"
cat >"$TMPDIR/want" <<'EOF'
finding severity machines findings
duplicate-index error 4 4
library-files-unchecked info 2 2
library-relative info 2 2
orphan-strings warning 2 8
name-without-help warning 1 1
could not be read:
EOF
diff "$TMPDIR/want" "$TMPDIR/table" >&2 || fail "the table of finding classes differs"
for why in "pc-fifo.reg: a FIFO" "pc-link.ini: a symbolic link" \
           "pc-junk.ini: .*pc-junk.ini:1: text before the first section" \
           "pc-truncated.ini: .*pc-truncated.ini:" \
           "pc-nothing: a folder holding no Windows tree" \
           "pc-linkdir: PerfStringBackup.INI: a symbolic link" \
           "pc-two: a folder holding several .ini and .reg files" \
           "notes.txt: neither a PerfStringBackup .ini"; do
    expect_grep "^  $why" "$OUT"
done
grep -q "^  pc-tree:" "$OUT" && fail "the Windows tree pc-tree was not audited"
grep -q "git" "$OUT" && fail "a dot entry was taken for a machine"
[ -s "$ERR" ] && fail "stderr not empty when redirected: $(od -c "$ERR" | head)"

# The same with four workers, byte for byte.
expect_exit 3 "$REGTOOL" audit --fleet "$F" --jobs 4
cmp "$TMPDIR/one" "$OUT" || fail "--jobs 4 printed otherwise than --jobs 1"

# --json: one line per machine, in name order, and the summary.
expect_exit 3 "$REGTOOL" audit --fleet "$F" --json --jobs 3
[ "$(wc -l <"$OUT")" -eq 23 ] || fail "--json: $(wc -l <"$OUT") lines, want 23"
jq -e -s '
    (.[0:22] | map(.machine)) == (.[0:22] | map(.machine) | sort) and
    ([.[0:22][] | select(.error)] | length) == 8 and
    ([.[0:22][] | select(.findings and .summary.errors > 0)] | length) == 4 and
    (.[] | select(.machine == "pc-folder") | .findings[0].id) == "duplicate-index" and
    (.[] | select(.machine == "pc-link.ini") | .error) == "a symbolic link" and
    (.[] | select(.machine == "pc-tree") | .store | startswith("hive:")) and
    (.[] | select(.machine == "pc-export.reg") | .store | startswith("reg:")) and
    .[22].machines == 22 and .[22].clean == 7 and .[22].unreadable == 8 and
    .[22].findings[0] == {"id":"duplicate-index","severity":"error","machines":4,"findings":4}
' "$OUT" >/dev/null || fail "--json: $(cut -c1-200 "$OUT")"
cp "$OUT" "$TMPDIR/json1"
expect_exit 3 "$REGTOOL" audit --fleet "$F" --json --jobs 1
cmp "$TMPDIR/json1" "$OUT" || fail "--json differs between --jobs 3 and 1"

# The exit status is the worst machine's: 0, 1, 2, 3.
G=$TMPDIR/g
mkdir "$G"
cp "$F/pc-clean-01.ini" "$F/pc-clean-02.ini" "$F/pc-export.reg" "$G/"
expect_exit 0 "$REGTOOL" audit --fleet "$G"
cp "$F/pc-orphan-01.ini" "$G/"
expect_exit 1 "$REGTOOL" audit --fleet "$G"
cp "$F/pc-dup-01.ini" "$G/"
expect_exit 2 "$REGTOOL" audit --fleet "$G"
expect_grep "^$G: 5 machines: 3 clean, 1 with warnings, 1 with errors, 0 could not be read$" "$OUT"
# A machine with errors and warnings is one with errors.
awk "$DUP" "$TMPDIR/base.txt" | awk "$ORPHAN" | iconv -f UTF-8 -t UTF-16LE >"$G/pc-both.ini" ||
    fail "cannot plant pc-both.ini"
expect_exit 2 "$REGTOOL" audit --fleet "$G"
expect_grep "^$G: 6 machines: 3 clean, 1 with warnings, 2 with errors, 0 could not be read$" "$OUT"
cp "$F/pc-junk.ini" "$G/"
expect_exit 3 "$REGTOOL" audit --fleet "$G"
expect_exit 3 "$REGTOOL" audit --fleet "$TMPDIR/none"
expect_exit 64 "$REGTOOL" audit --fleet "$G" hive:"$W"
expect_exit 64 "$REGTOOL" audit --jobs 2 hive:"$W"
expect_exit 64 "$REGTOOL" audit --fleet "$G" --jobs 0

# children PID: the processes whose parent is PID (from /proc: no procps).
children() {
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$1" '$4 == p { print $1 }'
}
# A worker killed mid-audit: its machine could not be read, said why;
# the others are audited. A worker killed after it sent its machine's
# whole report (while it exits: long under the sanitizers' leak check)
# lost nothing, and nothing is said: the kill is tried again, up to five
# audits.
tries=0
while :; do
    tries=$((tries + 1))
    "$REGTOOL" audit --fleet "$F" --jobs 1 >"$OUT" 2>"$ERR" &
    pid=$!
    killed=
    for _ in $(seq 200); do
        for c in $(children "$pid"); do kill -KILL "$c" 2>/dev/null && killed=1 && break; done
        [ -n "$killed" ] && break
        sleep 0.02
    done
    wait "$pid"; rc=$?
    [ -n "$killed" ] || fail "no worker of the fleet audit was seen to kill"
    expect_grep "^$F: 22 machines: " "$OUT"
    grep -q "^  [^ ]*: the audit ended on signal 9$" "$OUT" && break
    [ "$tries" -lt 5 ] || fail "five workers killed, none said lost: $(cat "$OUT")"
done
[ "$rc" -eq 3 ] || fail "with a worker killed, exit $rc, want 3"
[ "$(grep -c "ended on signal" "$OUT")" -eq 1 ] || fail "more than the killed machine lost: $(cat "$OUT")"

# SIGTERM to the audit: its workers are ended and waited for, 143.
"$REGTOOL" audit --fleet "$F" --jobs 2 >"$OUT" 2>"$ERR" &
pid=$!
for _ in $(seq 200); do [ -n "$(children "$pid")" ] && break; sleep 0.02; done
kill -TERM "$pid"
wait "$pid"; rc=$?
[ "$rc" -eq 143 ] || fail "SIGTERM: exit $rc, want 143"
expect_grep "interrupted after" "$ERR"
[ -z "$(children "$pid")" ] || fail "workers outlived the audit"

# On a terminal, a progress line on stderr, cleared at the end.
if script -qec "true" /dev/null >/dev/null 2>&1; then
    script -qec "'$REGTOOL' audit --fleet '$G' 2>&1 >/dev/null" /dev/null >"$TMPDIR/tty" 2>&1
    grep -q "audited 7/7 machines.*\[K" "$TMPDIR/tty" ||
        fail "no progress line on a terminal: $(od -c "$TMPDIR/tty" | head)"
fi
# A Windows tree whose folder name holds a comma: hive:DIR/m,SYSTEM would
# be read as two hives, the second SYSTEM from the working directory (a
# file outside the fleet). Listed as unreadable, nothing else opened.
K=$TMPDIR/comma
mkdir -p "$K" "$TMPDIR/cwd"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/plain" init --languages 009
cp -a "$TMPDIR/plain" "$K/m,SYSTEM"
cp "$TMPDIR/plain/Windows/System32/config/SYSTEM" "$TMPDIR/cwd/SYSTEM"
(cd "$TMPDIR/cwd" && exec "$REGTOOL" audit --fleet "$K") >"$OUT" 2>"$ERR"
[ $? -eq 3 ] || fail "a tree named with a comma: not exit 3"
expect_grep "m,SYSTEM: a Windows tree whose path holds a comma, which a hive: store reads as SOFTWARE,SYSTEM: rename it" "$OUT"
# An empty fleet folder: no machines, exit 0 (no sort of a null list).
mkdir -p "$TMPDIR/empty"
expect_exit 0 "$REGTOOL" audit --fleet "$TMPDIR/empty"
expect_grep "0 machines: 0 clean" "$OUT"
echo "audit_fleet: ok"
