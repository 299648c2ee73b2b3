#!/bin/sh
# Registry keys a plain listing misreads (issue 37): a symbolic link key
# among Services (KEY_SYM_LINK with a SymbolicLinkValue: Windows reads the
# key it names, regtool never follows it) or a service's Performance key
# that is one, and two Services or Perflib subkeys whose names differ only
# in letter case (Windows reads one of them by either name). Planted with
# regtool's own hive writer and a patch of the key node (tests/cli/
# mkregkeys.c); reglookup, an independent reader, sees each. hive check
# warns of each, naming the key (and the link's target); audit and audit
# --libraries report each as an error (exit 2), never clean; every writer
# (install, uninstall, enable, disable, repair, restore, rebuild, dry runs
# too) refuses with exit 2 naming the keys, and the tree keeps every byte;
# query says so on stderr.
. tests/cli/lib.sh

MKR=$TMPDIR/mkregkeys
# shellcheck disable=SC2086
cc $SANFLAGS -Ilib -o "$MKR" tests/cli/mkregkeys.c \
    "$(dirname "$REGTOOL")/libregtool.a" -linih || fail "cannot build mkregkeys"

T=$TMPDIR/t
W=$T/Windows
C=$W/System32/config
SVCS='ControlSet001\Services'
PERFLIB='Microsoft\Windows NT\CurrentVersion\Perflib'
EVIL='C:\Users\Public\evil.dll'
INI=ini-samples/transfer.ini
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine" init
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine" install $CS "$INI"
fresh() { rm -rf "$T"; cp -a "$TMPDIR/pristine" "$T"; }

# audited ID TEXT...: audit and audit --libraries exit 2 with an error
# ID whose line holds every TEXT.
audited() {
    id=$1
    shift
    for a in audit "audit --libraries"; do
        # shellcheck disable=SC2086
        timeout 20 "$REGTOOL" --store "hive:$T" $a >"$OUT" 2>"$ERR"
        got=$?
        [ "$got" -eq 2 ] || { cat "$OUT" "$ERR" >&2; fail "$a: exit $got, want 2 ($id)"; }
        line=$(grep "^error *$id: " "$OUT") ||
            { cat "$OUT" >&2; fail "$a: no error $id"; }
        for t in "$@"; do
            printf '%s\n' "$line" | grep -qF -- "$t" ||
                { cat "$OUT" >&2; fail "$a: $id does not name $t"; }
        done
    done
    echo "audit: error $id"
}
# refused LABEL TEXT VERB...: VERB exits 2 naming TEXT, the tree as it was.
refused() {
    label=$1 text=$2
    shift 2
    tree_state "$T" >"$TMPDIR/before"
    timeout 20 "$REGTOOL" --store "hive:$T" "$@" >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq 2 ] || { cat "$OUT" "$ERR" >&2; fail "$label: exit $got, want 2"; }
    grep -qF -- "$text" "$ERR" ||
        { cat "$ERR" >&2; fail "$label: the refusal does not name $text"; }
    grep -q "nothing was written" "$ERR" ||
        { cat "$ERR" >&2; fail "$label: the refusal does not say nothing was written"; }
    expect_same_tree "$T" "$TMPDIR/before" "$label wrote to the tree"
    echo "$label: exit 2, refused"
}
# writers_refused TEXT: every writer refuses the tree, naming TEXT.
writers_refused() {
    # shellcheck disable=SC2086
    refused "install" "$1" install $CS "$INI"
    # shellcheck disable=SC2086
    refused "install --dry-run" "$1" install --dry-run $CS "$INI"
    refused "uninstall" "$1" uninstall TransferPerf
    refused "disable" "$1" disable TransferPerf
    refused "enable" "$1" enable PerfOS
    refused "repair" "$1" repair
    refused "rebuild" "$1" rebuild
}

# A link key among Services, to a provider key outside them whose Library
# is in a folder users can write to.
fresh
"$MKR" "$C/SYSTEM" link "$SVCS" Linky \
    '\REGISTRY\MACHINE\SYSTEM\ControlSet002\Hidden' || fail "mkregkeys link"
reglookup -H -p /ControlSet001/Services/Linky "$C/SYSTEM" |
    grep -q '^/ControlSet001/Services/Linky/SymbolicLinkValue,LINK,' ||
    fail "reglookup does not see Linky's SymbolicLinkValue"
expect_exit 1 "$REGTOOL" hive check "$C/SYSTEM"
expect_grep 'key ControlSet001\\Services\\Linky is a symbolic link (KEY_SYM_LINK) to \\REGISTRY\\MACHINE\\SYSTEM\\ControlSet002\\Hidden' "$OUT"
audited service-key-is-link 'SYSTEM\ControlSet001\Services\Linky' \
    '\REGISTRY\MACHINE\SYSTEM\ControlSet002\Hidden'
writers_refused 'SYSTEM\ControlSet001\Services\Linky is a symbolic link key'
# query lists what it can, and says what it cannot show.
expect_exit 0 "$REGTOOL" --store "hive:$T" query
expect_grep 'warning: SYSTEM\\ControlSet001\\Services\\Linky is a symbolic link key' "$ERR"

# A service's Performance key that is a link: the Performance key
# Windows reads is elsewhere.
fresh
printf 'cd \\ControlSet001\\Services\nadd Sneaky\ncommit\n' |
    hivexsh -w "$C/SYSTEM" || fail "hivexsh add Sneaky"
"$MKR" "$C/SYSTEM" link "$SVCS\\Sneaky" Performance \
    '\REGISTRY\MACHINE\SYSTEM\ControlSet002\Hidden\Performance' ||
    fail "mkregkeys link Performance"
audited service-key-is-link 'SYSTEM\ControlSet001\Services\Sneaky\Performance' \
    '\REGISTRY\MACHINE\SYSTEM\ControlSet002\Hidden\Performance'
refused "disable, Performance a link" 'Sneaky\Performance is a symbolic link key' \
    disable TransferPerf

# PerfOS beside the system's PerfOS, its Library in C:\Users\Public.
fresh
"$MKR" "$C/SYSTEM" twin "$SVCS" PerfOS "$EVIL" || fail "mkregkeys twin"
reglookup -H -p /ControlSet001/Services "$C/SYSTEM" |
    grep -qF '/ControlSet001/Services/pERFos/Performance/Library,EXPAND_SZ,C:\Users\Public\evil.dll' ||
    fail "reglookup does not see pERFos's Library"
expect_exit 1 "$REGTOOL" hive check "$C/SYSTEM"
expect_grep 'key ControlSet001\\Services holds both PerfOS and pERFos' "$OUT"
audited service-keys-differ-in-case 'SYSTEM\ControlSet001\Services\PerfOS' \
    'SYSTEM\ControlSet001\Services\pERFos'
writers_refused 'SYSTEM\ControlSet001\Services\PerfOS and SYSTEM\ControlSet001\Services\pERFos differ only in letter case'
# A restore is a writer too.
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine" backup --force "$TMPDIR/good.ini"
refused "restore" 'differ only in letter case' restore "$TMPDIR/good.ini"

# CurrentLanguage twice in Perflib, the second's tables unseen.
fresh
"$MKR" "$W/System32/config/SOFTWARE" twin "$PERFLIB" CurrentLanguage "$EVIL" ||
    fail "mkregkeys twin (Perflib)"
audited perflib-keys-differ-in-case "Perflib\\CurrentLanguage" "Perflib\\cURRENTlANGUAGE"
# shellcheck disable=SC2086
refused "install, Perflib twins" "differ only in letter case" install $CS "$INI"


# Select's Default names another control set than Current: the next boot
# loads ControlSet002 (a provider's Library replaced there, set so to hide
# it), regtool reads and writes ControlSet001. Said by query, an error of
# audit, and every writer refuses.
fresh
printf '%s\n' 'cd \Select' 'setval 4' Current dword:1 Default dword:2 Failed dword:0 \
    LastKnownGood dword:2 commit | hivexsh -w "$C/SYSTEM" || fail "hivexsh Select"
reglookup -H -p /Select/Default "$C/SYSTEM" | grep -q '^/Select/Default,DWORD,0x00000002,' ||
    fail "reglookup does not see Select\\Default 2"
audited control-sets-differ 'SYSTEM\Select\Current (ControlSet001)' \
    'SYSTEM\Select\Default (ControlSet002)'
writers_refused 'SYSTEM\Select\Current (ControlSet001) is the control set regtool reads and writes, but SYSTEM\Select\Default (ControlSet002) is the one the next boot uses'
expect_exit 0 "$REGTOOL" --store "hive:$T" query
expect_grep 'warning: SYSTEM\\Select\\Current (ControlSet001) is the control set regtool reads and writes' "$ERR"
# A Default there but no 4-byte REG_DWORD (REG_BINARY 02 00 00 00, which
# a loader may read as 2): which set boots is not known, said the same.
fresh
printf '%s\n' 'cd \Select' 'setval 4' Current dword:1 Default hex:3:02,00,00,00 Failed dword:0 \
    LastKnownGood dword:2 commit | hivexsh -w "$C/SYSTEM" || fail "hivexsh Select binary"
audited control-sets-differ 'SYSTEM\Select\Default (no 4-byte REG_DWORD'
refused "disable, Default of another type" "no 4-byte REG_DWORD" disable PerfOS

# Twins on the way to the services and to Perflib (a second Services, a
# second Perflib, a second Performance key of a service: each could hold
# the Library Windows loads) are anomalies as the services' own are.
for spec in "SYSTEM|ControlSet001|Services|SYSTEM\\ControlSet001\\sERVICES" \
    "SYSTEM|$SVCS\\PerfOS|Performance|SYSTEM\\$SVCS\\PerfOS\\pERFORMANCE" \
    "SOFTWARE|Microsoft\\Windows NT\\CurrentVersion|Perflib|SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\pERFLIB"; do
    hive=${spec%%|*} rest=${spec#*|}
    parent=${rest%%|*} rest=${rest#*|}
    name=${rest%%|*} twin=${rest#*|}
    fresh
    "$MKR" "$C/$hive" twin "$parent" "$name" "$EVIL" || fail "mkregkeys twin $parent\\$name"
    id=service-keys-differ-in-case
    [ "$hive" = SOFTWARE ] && id=perflib-keys-differ-in-case
    audited "$id" "$twin"
    refused "disable, a twin of $name" "differ only in letter case" disable PerfOS
done
echo "hostile registry keys: each reported by hive check and audit, every writer refused, nothing written"
