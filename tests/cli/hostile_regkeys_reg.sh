#!/bin/sh
# The registry keys of hostile_regkeys.sh in a .reg store (issue 37).
# - Two sections whose key names differ only in case are one key, as
#   reg import makes them: merged in the order written, the later value
#   winning, so audit sees what Windows would hold (PerfOS's Library
#   replaced through [...\services\PERFOS\Performance] is reported), and a
#   write leaves one section.
# - A SymbolicLinkValue of type REG_LINK on a subkey of Services, a
#   service's Performance key or a subkey of Perflib is reported as the
#   hive store reports a link key (service-key-is-link,
#   perflib-key-is-link: audit exits 2 naming the file, the line, the key
#   and its target); every writer refuses (exit 2, nothing written: the
#   file keeps every byte) and query warns. A SymbolicLinkValue that is no
#   REG_LINK, or one a later section replaces, is no link.
# - A key path deeper than the registry allows (200,000 levels in a
#   400 KB line: every writer died of a stack overflow, SIGSEGV, copying
#   the tree) is refused by every verb with its line, exit 2, the file
#   untouched; the 512 levels Windows allows below a hive's key are read
#   and written.
. tests/cli/lib.sh

SVCS='HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Services'
PERFLIB='HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib'
INI=ini-samples/transfer.ini
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/tree" init
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/tree" install $CS "$INI"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/tree" backup --format reg "$TMPDIR/full.reg"
iconv -f UTF-16 -t UTF-8 "$TMPDIR/full.reg" | tr -d '\r' >"$TMPDIR/base.reg" ||
    fail "cannot convert the export"
F=$TMPDIR/store.reg
# hex6 TEXT: TEXT in UTF-16LE as a .reg file's hex bytes.
hex6() { printf '%s' "$1" | iconv -t UTF-16LE | od -An -tx1 | tr -s ' \n' ',' | sed 's/^,//;s/,$//'; }
TARGET='\REGISTRY\MACHINE\SYSTEM\ControlSet002\Hidden'
# with SECTION...: the store is the export with these lines appended.
with() { { cat "$TMPDIR/base.reg"; printf '\n'; printf '%s\n' "$@"; } >"$F"; }
# line_of TEXT: the line of the store that holds TEXT (the last one).
line_of() { grep -niF -- "$1" "$F" | tail -1 | cut -d: -f1; }

# --- case twins: one key, merged in order -------------------------------
with '[HKEY_LOCAL_MACHINE\system\currentcontrolset\services\PERFOS\performance]' \
     '"Library"="C:\\Users\\Public\\evil.dll"'
expect_exit 0 "$REGTOOL" --store "reg:$F" query PerfOS
expect_grep 'C:\\Users\\Public\\evil.dll' "$OUT"
expect_exit 1 "$REGTOOL" --store "reg:$F" audit --libraries
expect_grep '^warning library-user-writable: PerfOS: Library C:\\Users\\Public\\evil.dll' "$OUT"
# A write keeps the merged key, in one section, under its first name.
expect_exit 0 "$REGTOOL" --store "reg:$F" disable TransferPerf
# (The store keeps the file's format: UTF-8 here, CR LF line ends.)
n=$(tr -d '\r' <"$F" | grep -ci '^\[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\PerfOS\\Performance\]$')
[ "$n" -eq 1 ] || fail "the rewritten file holds $n PerfOS Performance sections, want 1"
expect_exit 0 "$REGTOOL" --store "reg:$F" query PerfOS
expect_grep 'C:\\Users\\Public\\evil.dll' "$OUT"
echo "case twins: merged as reg import merges them"

# --- link values --------------------------------------------------------
# linked ID KEY: audit (and --libraries) exit 2 with error ID naming the
# file and line of the link value, KEY and the target; every writer
# refuses naming the same, the file unchanged; query warns.
linked() {
    id=$1 key=$2 line=$(line_of SymbolicLinkValue)
    for a in audit "audit --libraries"; do
        # shellcheck disable=SC2086
        "$REGTOOL" --store "reg:$F" $a >"$OUT" 2>"$ERR"
        got=$?
        [ "$got" -eq 2 ] || { cat "$OUT" "$ERR" >&2; fail "$a: exit $got, want 2 ($id)"; }
        expect_grep "^error *$id: " "$OUT"
        l=$(grep "^error *$id: " "$OUT")
        for t in "$F:$line: $key is a symbolic link key" "$TARGET"; do
            printf '%s\n' "$l" | grep -qF -- "$t" ||
                { cat "$OUT" >&2; fail "$a: $id does not name $t"; }
        done
    done
    cp "$F" "$TMPDIR/before.reg"
    for w in "disable TransferPerf" "enable PerfOS" "uninstall TransferPerf" \
             "install $CS $INI" "install --dry-run $CS $INI" repair rebuild; do
        # shellcheck disable=SC2086
        "$REGTOOL" --store "reg:$F" $w >"$OUT" 2>"$ERR"
        got=$?
        [ "$got" -eq 2 ] || { cat "$OUT" "$ERR" >&2; fail "$w: exit $got, want 2 ($id)"; }
        grep -qF -- "$F:$line: $key is a symbolic link key" "$ERR" ||
            { cat "$ERR" >&2; fail "$w: the refusal does not name the link"; }
        expect_grep "nothing was written" "$ERR"
        cmp -s "$F" "$TMPDIR/before.reg" || fail "$w wrote to the store ($id)"
    done
    expect_exit 0 "$REGTOOL" --store "reg:$F" query
    expect_grep "warning: .*$id" "$ERR"
    printf '%s: %s, writers refused\n' "$key" "$id"
}
with "[$SVCS\\Linky]" "\"SymbolicLinkValue\"=hex(6):$(hex6 "$TARGET")"
linked service-key-is-link "$SVCS\\Linky"
with "[$SVCS\\Sneaky\\Performance]" "\"symboliclinkvalue\"=hex(6):$(hex6 "$TARGET")"
linked service-key-is-link "$SVCS\\Sneaky\\Performance"
with "[$PERFLIB\\00A]" "\"SymbolicLinkValue\"=hex(6):$(hex6 "$TARGET")"
linked perflib-key-is-link "$PERFLIB\\00A"

# No link: a SymbolicLinkValue of another type, one a later section
# replaces, one below a service's other keys.
for v in '"SymbolicLinkValue"="\\REGISTRY\\MACHINE\\X"' \
         "\"SymbolicLinkValue\"=hex(6):$(hex6 "$TARGET")
[$SVCS\\LINKY]
\"SymbolicLinkValue\"=dword:00000001"; do
    with "[$SVCS\\Linky]" "$v"
    expect_exit 0 "$REGTOOL" --store "reg:$F" audit
    ! grep -q 'is-link' "$OUT" || { cat "$OUT" >&2; fail "a link reported where there is none"; }
done
with "[$SVCS\\PerfOS\\Parameters]" "\"SymbolicLinkValue\"=hex(6):$(hex6 "$TARGET")"
expect_exit 0 "$REGTOOL" --store "reg:$F" audit
echo "no link where the value is no REG_LINK, replaced, or elsewhere"

# --- key paths deeper than the registry's 512 levels ------------------
# deep N: a section whose key is N levels below HKLM\SOFTWARE.
deep() { printf '[HKEY_LOCAL_MACHINE\\SOFTWARE'; yes '\a' | head -n "$1" | tr -d '\n'; printf ']\n"v"="x"\n'; }
{ cat "$TMPDIR/base.reg"; deep 200000; } >"$F"
line=$(wc -l <"$F")
line=$((line - 1))
cp "$F" "$TMPDIR/before.reg"
for v in query audit "backup --force $TMPDIR/deep.ini" "disable TransferPerf" \
         "install --replace $INI" repair; do
    # shellcheck disable=SC2086
    "$REGTOOL" --store "reg:$F" $v >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq 2 ] || { head -c 2000 "$ERR" >&2; fail "deep key path, $v: exit $got, want 2"; }
    # (audit names it as an error of its report, store-unreadable)
    cat "$OUT" "$ERR" >"$TMPDIR/said"
    grep -q "$F:$line: key path 'HKEY_LOCAL_MACHINE.* is more than 513 keys deep" "$TMPDIR/said" ||
        { head -c 2000 "$TMPDIR/said" >&2; fail "deep key path, $v: the message does not name the line"; }
    [ "$(wc -c <"$TMPDIR/said")" -lt 1000 ] || fail "deep key path, $v: the message holds the whole path"
    cmp -s "$F" "$TMPDIR/before.reg" || fail "deep key path, $v wrote to the store"
done
{ cat "$TMPDIR/base.reg"; deep 512; } >"$F"
expect_exit 0 "$REGTOOL" --store "reg:$F" disable TransferPerf
expect_exit 0 "$REGTOOL" --store "reg:$F" query
echo "a key path over 512 levels refused by every verb with its line, 512 levels kept"

echo ".reg store: case twins merged as reg import does, link values reported and refused"
