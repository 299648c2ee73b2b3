# audit --libraries of a tree opened from its Windows folder alone: a
# disk whose Windows folder has another name (hive:D/WINNT), and a
# machine's Windows folder uploaded on its own (hive:up/m1). The folder
# above it is not part of the tree the store holds, so a "C:\..."
# Library outside the Windows folder is not looked up there: the
# disk's link D/Vendor to a host folder is neither followed nor listed,
# no name of a host file is printed (the 8.3 name C:\Vendor\TOPSEC~1.TXT
# stays as written), whether a host file exists changes nothing, and
# each such Library is library-unchecked, saying why. Paths beneath the
# Windows folder are judged as before, and the same disk with its folder
# named Windows (hive:D) refuses the link as it did.
. tests/cli/lib.sh

H=$TMPDIR/host
mkdir "$H"
chmod 700 "$H"
echo secret >"$H/topsecretplan.txt"
: >"$H/exists.dll"
chmod 600 "$H/topsecretplan.txt" "$H/exists.dll"
snap() { stat -c "%n %a %s %Y" "$H" "$H"/*; }   # the host folder as it stands
snap >"$TMPDIR/host.before"

D=$TMPDIR/D
expect_exit 0 "$REGTOOL" --store "hive:$D" init
expect_exit 0 "$REGTOOL" --store "hive:$D" install --create-service \
    --library 'C:\Vendor\TOPSEC~1.TXT' --open Open --collect Collect \
    --close Close ini-samples/replication.ini
expect_exit 0 "$REGTOOL" --store "hive:$D" install --create-service \
    --library 'C:\Vendor\exists.dll' --open OpenTransfer \
    --collect CollectTransfer --close CloseTransfer ini-samples/transfer.ini
: >"$D/Windows/System32/ntdll.dll"
: >"$D/Windows/System32/kernel32.dll"
ln -s "$H" "$D/Vendor"   # planted by the disk's author

no_host() {   # FILE: nothing of the host folder in it
    ! grep -q "topsecretplan\|$H" "$1" || { cat "$1" >&2; fail "$2: the host folder shows in the report"; }
}

# The disk as it is laid out: the link is the tree's, refused.
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
no_host "$OUT" "hive:D"
jq -e '[.findings[] | select(.id == "library-through-link")] | length == 1 and
       any(.[]; .message | contains("a link or special file stands on the way to C:\\Vendor\\exists.dll"))' \
    "$OUT" >/dev/null || fail "hive:D: the link not refused: $(cat "$OUT")"

# The same disk with its Windows folder named WINNT: nothing above WINNT
# is looked at. The report is the same whether the host file exists.
mv "$D/Windows" "$D/WINNT"
audit_winnt() {   # STORE WINDOWS-FOLDER-NAME
    expect_exit 1 "$REGTOOL" --store "$1" audit --libraries --json
    no_host "$OUT" "$1"
    jq -e --arg w "$2" '
        [.findings[] | select(.id == "library-unchecked" and
            (.message | contains("the volume'"'"'s root above " + $w +
                                 " is not part of the tree opened")))] |
        length == 2 and (map(.message) | any(contains("C:\\Vendor\\TOPSEC~1.TXT"))) and
        (map(.message) | any(contains("C:\\Vendor\\exists.dll")))' "$OUT" >/dev/null ||
        fail "$1: the Libraries outside $2 are not said unchecked: $(cat "$OUT")"
    jq -e '[.findings[] | select(.id == "library-not-found" and (.message | contains("Vendor")))] |
            length == 0' \
        "$OUT" >/dev/null || fail "$1: a Library outside the tree judged: $(cat "$OUT")"
}
audit_winnt "hive:$D/WINNT" WINNT
cp "$OUT" "$TMPDIR/with-file"
rm "$H/exists.dll"
audit_winnt "hive:$D/WINNT" WINNT
cmp -s "$OUT" "$TMPDIR/with-file" || fail "hive:D/WINNT: the report tells whether a host file exists"
: >"$H/exists.dll"
chmod 600 "$H/exists.dll"
snap >"$TMPDIR/host.before"

# Paths beneath the Windows folder are still looked up there.
expect_exit 0 "$REGTOOL" --store "hive:$D/WINNT" install --replace --create-service --force \
    --library '%SystemRoot%\System32\missing.dll' --open OpenTransfer \
    --collect CollectTransfer --close CloseTransfer ini-samples/transfer.ini
expect_exit 1 "$REGTOOL" --store "hive:$D/WINNT" audit --libraries --json
jq -e '[.findings[] | select(.id == "library-not-found" and
                             (.message | contains("WINNT\\System32\\missing.dll is not in the tree")))] |
       length == 1' "$OUT" >/dev/null ||
    fail "hive:D/WINNT: a Library beneath WINNT not judged: $(cat "$OUT")"

# A machine's Windows folder uploaded alone: C:\ would be the uploads
# folder, where another upload planted its link.
U=$TMPDIR/up
mkdir "$U"
cp -R "$D/WINNT" "$U/m1"
ln -s "$H" "$U/Vendor"
expect_exit 0 "$REGTOOL" --store "hive:$U/m1" install --replace --create-service --force \
    --library 'C:\Vendor\exists.dll' --open OpenTransfer \
    --collect CollectTransfer --close CloseTransfer ini-samples/transfer.ini
audit_winnt "hive:$U/m1" m1

# Under strace when there is one: the host folder never reached, and the
# audit looks at nothing above WINNT that opening the store does not (the
# store's open looks at D for the marks of a disk, not inside it).
above() {   # TRACE: the calls on D and what lies in it beside WINNT
    grep -F "\"$D" "$1" | grep -vF "\"$D/WINNT"
}
if command -v strace >/dev/null 2>&1 &&
    strace -f -o "$TMPDIR/trace" true 2>/dev/null; then
    for c in query "audit --libraries"; do
        # shellcheck disable=SC2086
        strace -f -e trace=file,getdents64 -o "$TMPDIR/trace" \
            "$REGTOOL" --store "hive:$D/WINNT" $c >/dev/null 2>&1
        above "$TMPDIR/trace" >"$TMPDIR/above.${c%% *}"
    done
    ! grep -q "$H\|$D/Vendor" "$TMPDIR/trace" ||
        { grep "$H\\|$D/Vendor" "$TMPDIR/trace" >&2; fail "hive:D/WINNT: the link above WINNT was followed"; }
    [ "$(wc -l <"$TMPDIR/above.audit")" -le "$(wc -l <"$TMPDIR/above.query")" ] ||
        { cat "$TMPDIR/above.audit" >&2; fail "hive:D/WINNT: audit looked at the folder above WINNT"; }
fi
snap >"$TMPDIR/host.after"
cmp -s "$TMPDIR/host.before" "$TMPDIR/host.after" || fail "the host folder changed"
exit 0
