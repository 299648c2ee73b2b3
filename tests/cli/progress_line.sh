# A long verb shows where it is on a terminal, never elsewhere (issue 44):
# backup, restore, rebuild and repair print a progress line on stderr when
# it is a terminal (script(1) gives them one), rewritten in place with CR
# and erased before the verb's own lines, so that those stand alone; with
# stderr a file or a pipe, not a byte of it.
. tests/cli/lib.sh

command -v script >/dev/null || fail "script (bsdutils, essential) is missing"
D=$TMPDIR/w
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009,007,00C
CR=$(printf '\r')

# on_terminal NAME ARGS...: regtool ARGS with a terminal as stdout and
# stderr, everything it wrote in $TMPDIR/NAME.tty.
on_terminal() {
    name=$1; shift
    cmd="$REGTOOL --store hive:$D $*"
    script -qec "$cmd" /dev/null >"$TMPDIR/$name.tty" </dev/null ||
        fail "$name on a terminal failed: $(cat "$TMPDIR/$name.tty")"
}
# The screen NAME leaves: each line as a terminal shows it, every piece
# after a CR written over the line from its start.
screen() {
    awk -v RS='\n' '{
        sub(/\r$/, "")
        n = split($0, part, "\r"); shown = ""
        for (i = 1; i <= n; i++)
            shown = part[i] substr(shown, length(part[i]) + 1)
        sub(/ +$/, "", shown); print shown
    }' "$TMPDIR/$1.tty"
}
# shows NAME VERB LAST: a line "regtool: VERB: STAGE N of M" was written
# (the first report is; later ones at most ten a second), none is left
# on the screen, and a line of the screen is LAST (a pattern of a whole
# line: nothing of the progress line left beside it).
shows() {
    grep -q "regtool: $2: [a-zA-Z ]* [0-9]* of [0-9]*" "$TMPDIR/$1.tty" ||
        { od -c "$TMPDIR/$1.tty" | head -20 >&2; fail "$1: no progress line for $2"; }
    screen "$1" >"$TMPDIR/$1.screen"
    if grep -q "regtool: $2: [a-zA-Z ]* [0-9]* of" "$TMPDIR/$1.screen"; then
        cat "$TMPDIR/$1.screen" >&2
        fail "$1: a progress line left on the screen"
    fi
    grep -q "^$3\$" "$TMPDIR/$1.screen" ||
        { cat "$TMPDIR/$1.screen" >&2; fail "$1: no line '$3' alone on the screen"; }
}
on_terminal backup backup "$TMPDIR/b.ini"
shows backup backup "regtool: saved 3 languages and 4 services to .*b\\.ini ([0-9]* bytes)"
on_terminal restore restore --dry-run "$TMPDIR/b.ini"
shows restore restore "regtool: would restore from .*: 0 changes"
on_terminal rebuild rebuild --dry-run
shows rebuild rebuild "language 007: base from the tables as installed; .*, unchanged"
on_terminal repair repair --dry-run
shows repair repair "nothing to repair"

# Not a terminal: no progress line, on stderr or anywhere.
for v in "backup --force $TMPDIR/b.ini" "restore --dry-run $TMPDIR/b.ini" \
    "rebuild --dry-run" "repair --dry-run"; do
    # shellcheck disable=SC2086
    "$REGTOOL" --store "hive:$D" $v >"$OUT" 2>"$ERR" || true
    if grep -q "of [0-9]" "$ERR" || LC_ALL=C grep -q "$CR" "$ERR" "$OUT"; then
        cat "$ERR" >&2
        fail "$v: a progress line where stderr is no terminal"
    fi
done
echo "progress_line: ok"
