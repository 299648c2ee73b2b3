#!/bin/sh
# The bad-input catalog (tests/bad/catalog.tsv, whose header says the
# format): each entry on a fresh store, in the layouts it names, through
# the real binary. For each: the exit status docs/reference.md documents, the message
# (naming the file and line, or the key and byte offset, or the hive file
# and file offset), and every file of the store's tree and of the input
# directory byte-identical afterwards, none added or removed.
#
# The store is `regtool init`'s with its lock file already there (a writer
# that ran before leaves config/regtool.lock, empty): a writer refused on
# a store that never had one would create it, and that file is the lock,
# not a change. Everything else counts.
#
# CATALOG_ONLY=ID... runs only the entries named; CATALOG_KEEP_GOING=1
# reports every entry that fails, not only the first.
. tests/cli/lib.sh

BAD=$(pwd)/tests/bad
CS="--create-service --library x.dll --open O --collect C --close X"
MKBAD=$TMPDIR/mkbad
cc -o "$MKBAD" "$BAD/mkbad.c" || fail "cannot build mkbad"
MKDIRTY=$TMPDIR/mkdirty
cc -Ilib -o "$MKDIRTY" tests/cli/mkdirty.c lib/regf/marvin32.c \
    lib/regf/base_block.c || fail "cannot build mkdirty"

# Helpers the entries' setup uses.
mkbad() { "$MKBAD" "$@"; }
dirty() { "$MKDIRTY" "$CFG/SOFTWARE" || fail "$id: mkdirty failed"; }
symini() { sed "s/@SYM@/$1/" "$BAD/sym/_p.ini" >"$D/p.ini"; }
at16() {
    _at=$("$MKBAD" find16 "$1" "$2") || fail "$id: no '$2' in $1"
    "$MKBAD" patch "$1" $((_at + $3)) "$4"
}

for layout in files registry; do
    expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine-$layout" init --layout $layout
    # The lock file, as any writer leaves it.
    expect_exit 4 "$REGTOOL" --store "hive:$TMPDIR/pristine-$layout" disable NoSuchService
    [ -f "$TMPDIR/pristine-$layout/Windows/System32/config/regtool.lock" ] ||
        fail "no lock file after a writer"
done

failed=0
# miss MESSAGE: an entry failed; the run stops unless CATALOG_KEEP_GOING.
miss() {
    [ -n "${CATALOG_KEEP_GOING:-}" ] || fail "$@"
    echo "FAIL: $*" >&2
    failed=$((failed + 1))
}
CASE=$TMPDIR/case
n=0
kinds=""
# One entry: its fields are the variables of the loop below.
run_entry() {
    rm -rf "$CASE"
    mkdir -p "$CASE/in"
    cp -a "$TMPDIR/pristine-$1" "$CASE/w"
    W=$CASE/w CFG=$CASE/w/Windows/System32/config
    S32=$CASE/w/Windows/System32 WOW=$CASE/w/Windows/SysWOW64 D=$CASE/in
    X=$D/x.ini IN=-
    cp "$BAD"/common/* "$D/"
    if [ "$input" != - ]; then
        IN=$D/$(basename "$input")
        cp "$BAD/$input" "$IN" || fail "$id: no input $input"
    fi
    if [ "$setup" != - ]; then
        (cd "$D" && eval "$setup") || fail "$id: setup failed: $setup"
    fi
    # A .reg store's lock file, as a writer before leaves it (FILE.lock,
    # empty: the .reg store's counterpart of config/regtool.lock).
    for f in "$D"/*.reg; do
        [ -f "$f" ] && : >>"$f.lock"
    done
    tree_state "$CASE" >"$TMPDIR/before"
    (cd "$D" && eval "\"\$REGTOOL\" $command") </dev/null >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq "$code" ] || {
        cat "$OUT" "$ERR" >&2
        miss "$id ($1): exit $got, want $code"
        return
    }
    re=$(printf '%s\n' "$message" |
         sed -e "s|@IN@|$IN|g" -e "s|@D@|$D|g" -e "s|@W@|$W|g")
    cat "$OUT" "$ERR" | LC_ALL=C grep -Eaq -- "$re" || {
        cat "$OUT" "$ERR" >&2
        miss "$id ($1): no line matches $re"
        return
    }
    tree_state "$CASE" | diff "$TMPDIR/before" - >&2 ||
        { miss "$id ($1): the store or the input changed (diff above)"; return; }
    n=$((n + 1))
}

TAB=$(printf '\t')
while IFS=$TAB read -r id kind layout input setup command code message; do
    case $id in ''|'#'*) continue ;; esac
    if [ -n "${CATALOG_ONLY:-}" ]; then
        case " $CATALOG_ONLY " in *" $id "*) ;; *) continue ;; esac
    fi
    [ -n "$message" ] || fail "$id: fewer than eight fields"
    case $layout in
    both) run_entry files; run_entry registry ;;
    files|registry) run_entry $layout ;;
    *) fail "$id: layout '$layout'" ;;
    esac
    kinds="$kinds
$kind"
done <"$BAD/catalog.tsv"

[ "$failed" -eq 0 ] || fail "$failed entries failed"
echo "catalog: $n runs"
printf '%s\n' "$kinds" | sed '/^$/d' | sort | uniq -c
if [ -z "${CATALOG_ONLY:-}" ]; then
    entries=$(printf '%s\n' "$kinds" | sed '/^$/d' | wc -l)
    [ "$entries" -ge 80 ] || fail "only $entries entries"
    for k in ini sym blob hive log dat psb reg; do
        printf '%s\n' "$kinds" | grep -qx "$k" || fail "no entry of kind $k"
    done
fi
exit 0
