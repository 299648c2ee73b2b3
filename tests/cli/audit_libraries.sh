# regtool audit --libraries on the SYSTEM hive Windows 7 wrote (shared
# samples) with a SOFTWARE hive from init. Its 35 providers give no
# warning. What is true of that hive and said as info: without the
# system's files in the tree, 21 providers name their DLL by a bare name
# (one info) and existence is not checked (one info); with the files
# (empty ones made here, named after each Library), Outlook's Library is
# an 8.3 short name (C:\PROGRA~1\MICROS~2\...) that cannot be resolved
# offline (one info), and nothing else. Then, each edited with hivexsh or
# in the tree: PerfOS redirected to C:\Users\Public\p.dll, a Library
# missing from the tree, and a relative Library name give their findings,
# in text and in JSON; the default audit has the same section; --lang
# leaves it out.
. tests/cli/lib.sh

S=$SHARED/samples/SYSTEM.xz
[ -r "$S" ] || fail "missing sample $S"
D=$TMPDIR/win
SY=$D/Windows/System32/config/SYSTEM
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009 --layout registry
xz -dc "$S" >"$SY"

# No system files in the tree: info only, exit 0.
expect_exit 0 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '.summary.errors == 0 and .summary.warnings == 0 and .summary.info == 2 and
       ([.findings[].id] | sort) == ["library-files-unchecked", "library-relative"] and
       (.findings[] | select(.id == "library-relative") | .message | startswith("21 providers"))' \
    "$OUT" >/dev/null || fail "sample without files: $(cat "$OUT")"

# The tree with the files each Library names (and ntdll.dll: a tree with
# system files).
expect_exit 0 "$REGTOOL" --store "hive:$D" query --json
jq -r '.providers[].library' "$OUT" | grep -v '~' | sed 's/.*\\//' | sort -uf >"$TMPDIR/dlls"
[ "$(wc -l <"$TMPDIR/dlls")" -ge 15 ] || fail "few DLL names: $(cat "$TMPDIR/dlls")"
while read -r f; do : >"$D/Windows/System32/$f"; done <"$TMPDIR/dlls"
: >"$D/Windows/System32/ntdll.dll"
mkdir "$D/Windows/System32/wbem"
mv "$D/Windows/System32/wmiaprpl.dll" "$D/Windows/System32/wbem/"
expect_exit 0 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '.summary.warnings == 0 and .summary.errors == 0 and .summary.info == 1 and
       .findings[0].id == "library-unchecked" and (.findings[0].message | startswith("Outlook:"))' \
    "$OUT" >/dev/null || fail "sample with files: $(cat "$OUT")"
expect_exit 0 "$REGTOOL" --store "hive:$D" audit --libraries
expect_grep "^0 errors, 0 warnings, 1 info$" "$OUT"

# The default audit has the section; --lang leaves it out.
# (The database section's own findings on this pair of hives, whose
# SOFTWARE is not the one Windows wrote, are not the subject here.)
"$REGTOOL" --store "hive:$D" audit --json >"$TMPDIR/full" || :
jq -e '[.findings[].id] | index("library-unchecked") != null' "$TMPDIR/full" >/dev/null ||
    fail "default audit lacks the library section: $(head -c 2000 "$TMPDIR/full")"
"$REGTOOL" --store "hive:$D" audit --json --lang 009 >"$TMPDIR/full" || :
jq -e '[.findings[].id | select(startswith("library"))] | length == 0' "$TMPDIR/full" >/dev/null ||
    fail "--lang: $(head -c 2000 "$TMPDIR/full")"

# perf_set SERVICE LIBRARY: SERVICE's Performance values become LIBRARY
# and its procedures (hivexsh's setval replaces all of a key's values).
perf_set() {
    _k="/ControlSet001/services/$1/Performance"
    _proc() { reglookup -H -p "$_k/$1" "$SY" | awk -F, 'NR == 1 { print $3 }'; }
    printf '%s\n' "cd \\ControlSet001\\services\\$1\\Performance" "setval 4" \
        Library "expandstring:$2" Open "string:$(_proc Open)" \
        Collect "string:$(_proc Collect)" Close "string:$(_proc Close)" \
        commit >"$TMPDIR/hivexsh.in"
    hivexsh -w "$SY" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not set $1's Library"
}

# PerfOS served from a user-writable place: two warnings.
cp "$SY" "$TMPDIR/SYSTEM.orig"
perf_set PerfOS 'C:\Users\Public\p.dll'
expect_exit 0 "$REGTOOL" --store "hive:$D" query --json
jq -e '.providers[] | select(.name == "PerfOS") | .library == "C:\\Users\\Public\\p.dll" and .open == "OpenOSObject"' \
    "$OUT" >/dev/null || fail "hivexsh edit: $(cat "$OUT")"
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
for id in library-user-writable system-library-replaced library-not-found; do
    jq -e --arg id "$id" '.findings[] | select(.id == $id and .severity == "warning" and
            (.message | startswith("PerfOS")) and .symptom != null and .fix != null)' \
        "$OUT" >/dev/null || fail "PerfOS in Users: no $id: $(cat "$OUT")"
done
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries
expect_grep '^warning library-user-writable: PerfOS: Library C:\\Users\\Public\\p.dll is in a place users can write to' "$OUT"
cp "$TMPDIR/SYSTEM.orig" "$SY"

# A Library missing from the tree.
rm "$D/Windows/System32/perfdisk.dll"
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '.summary.warnings == 1 and (.findings[0] | .id == "library-not-found" and
       (.message | test("^PerfDisk: .*Windows.System32.perfdisk.dll is not in the tree")))' \
    "$OUT" >/dev/null || fail "missing perfdisk.dll: $(cat "$OUT")"
: >"$D/Windows/System32/perfdisk.dll"

# A folder where the Library is: not a DLL Windows can load (review 43
# R43-11: judged present, no finding).
rm "$D/Windows/System32/perfdisk.dll"
mkdir "$D/Windows/System32/perfdisk.dll"
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '.summary.warnings == 1 and (.findings[0] | .id == "library-not-found" and
       (.message | test("^PerfDisk: .*perfdisk.dll is not in the tree \\(a folder of that name is, which Windows cannot load as a DLL\\)")))' \
    "$OUT" >/dev/null || fail "perfdisk.dll a folder: $(cat "$OUT")"
rmdir "$D/Windows/System32/perfdisk.dll"

# Two folders, or a file and a folder, whose names differ only in case
# where the Library is: which Windows uses is not known, so neither is
# judged, and a warning (review 44 R44-6: the two folders were taken
# for the DLL, no finding; the file beside a folder hid it).
for second in dir file; do
    mkdir "$D/Windows/System32/perfdisk.dll"
    if [ $second = dir ]; then mkdir "$D/Windows/System32/PERFDISK.DLL"
    else : >"$D/Windows/System32/PERFDISK.DLL"; fi
    expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
    jq -e '.summary.warnings == 1 and (.findings[0] | .id == "library-name-ambiguous" and
           (.message | test("^PerfDisk: .*on the way to Windows.System32.perfdisk.dll in the tree holds two entries whose names differ only in letter case")))' \
        "$OUT" >/dev/null || fail "perfdisk.dll twice ($second): $(cat "$OUT")"
    rm -r "$D/Windows/System32/perfdisk.dll" "$D/Windows/System32/PERFDISK.DLL"
done
: >"$D/Windows/System32/perfdisk.dll"

# A link where a Library is, or on the folders leading to it: not
# followed (it may lead anywhere on this machine), so the DLL is neither
# found nor missing but library-through-link, a warning (Windows follows
# it wherever the disk's author led it: review 50 R50-7), the path said.
rm "$D/Windows/System32/perfdisk.dll"
ln -s /etc/passwd "$D/Windows/System32/perfdisk.dll"
mkdir "$TMPDIR/hostwbem"
mv "$D/Windows/System32/wbem/wmiaprpl.dll" "$TMPDIR/hostwbem/"
rmdir "$D/Windows/System32/wbem"
ln -s "$TMPDIR/hostwbem" "$D/Windows/System32/wbem"
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '.summary.warnings == 2 and
       ([.findings[] | select(.id == "library-through-link" and .severity == "warning") |
         .message | select(test("a link or special file stands on the way to .*(perfdisk.dll|wbem.wmiaprpl.dll) in the tree"))] | length) == 2' \
    "$OUT" >/dev/null || fail "links on a Library's way: $(cat "$OUT")"
rm "$D/Windows/System32/perfdisk.dll" "$D/Windows/System32/wbem"
mkdir "$D/Windows/System32/wbem"
mv "$TMPDIR/hostwbem/wmiaprpl.dll" "$D/Windows/System32/wbem/"
: >"$D/Windows/System32/perfdisk.dll"

# A relative Library name.
perf_set TapiSrv 'bin\tapiperf.dll'
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '.summary.warnings == 1 and (.findings[0] | .id == "library-relative" and
       (.message | startswith("TapiSrv: Library bin\\tapiperf.dll is a relative path")))' \
    "$OUT" >/dev/null || fail "relative Library: $(cat "$OUT")"
# Environment strings as the machine defines them (review 46 R46-4: the
# disk's ProgramFilesDir set to its Windows\Temp, windir to Users\Public,
# had each Library judged where setup puts them, no finding): judged
# where the machine's values lead.
perf_set TapiSrv '%ProgramFiles%\Vendor\t.dll'
mkdir -p "$D/Program Files/Vendor"
: >"$D/Program Files/Vendor/t.dll"
# A machine's SYSTEM (its Session Manager there) beside a SOFTWARE that
# holds no CurrentVersion: Windows leaves %ProgramFiles% unexpanded, not
# judged at setup's place (review 52 R52-1).
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '.summary.warnings == 1 and ([.findings[] | select(.id == "library-variable-unjudged") |
        .message | select(test("^TapiSrv: .*ProgramFilesDir. is not set, and its key is not there"))] |
        length == 1)' "$OUT" >/dev/null || fail "%ProgramFiles% without CurrentVersion: $(cat "$OUT")"
SW=$D/Windows/System32/config/SOFTWARE
printf '%s\n' 'cd \Microsoft' 'add Windows' 'cd Windows' 'add CurrentVersion' \
    'cd CurrentVersion' 'setval 1' ProgramFilesDir 'string:C:\Windows\Temp' commit \
    >"$TMPDIR/hivexsh.in"
hivexsh -w "$SW" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not set ProgramFilesDir"
printf '%s\n' 'cd \ControlSet001\Control\Session Manager\Environment' 'setval 1' windir \
    'expandstring:%SystemDrive%\Users\Public' commit >"$TMPDIR/hivexsh.in"
hivexsh -w "$SY" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not set windir"
perf_set PerfOS '%windir%\System32\perfos.dll'
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '[.findings[] | select(.id == "library-user-writable") | .message |
        select(test("^TapiSrv: .*C:.Windows.Temp.Vendor.t.dll") or
               test("^PerfOS: .*C:.Users.Public.System32.perfos.dll"))] | length == 2' \
    "$OUT" >/dev/null || fail "the machine's own environment strings: $(cat "$OUT")"
# A system variable of Session Manager\Environment is read (review 47
# R47-5: ProgramFiles there was not); a 32-bit reader's %ProgramFiles% is
# ProgramFilesDir (x86) (R47-3: not judged); a value the machine holds
# but the audit cannot take (an empty windir: R47-2, taken for
# C:\Windows) is said, not judged.
printf '%s\n' 'cd \ControlSet001\Control\Session Manager\Environment' 'setval 2' \
    windir 'string:' ProgramFiles 'expandstring:%SystemDrive%\Users\Public' commit \
    >"$TMPDIR/hivexsh.in"
hivexsh -w "$SY" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not set Environment"
# program_files N VALUES...: CurrentVersion's values replaced by the N
# name and value pairs given (hivexsh's words).
program_files() {
    { printf '%s\n' 'cd \Microsoft\Windows\CurrentVersion' "setval $1"; shift
      printf '%s\n' "$@" commit; } >"$TMPDIR/hivexsh.in"
    hivexsh -w "$SW" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not set CurrentVersion"
}
program_files 2 ProgramFilesDir 'expandstring:%SystemDrive%\Users\Public' \
    'ProgramFilesDir (x86)' 'string:C:\Windows\Temp'
mkdir -p "$D/Windows/SysWOW64"   # a 64-bit Windows: 32-bit readers
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '[.findings[] | .id + " " + .message |
        select(test("^library-user-writable TapiSrv: .*C:.Users.Public.Vendor.t.dll") or
               test("^library-user-writable TapiSrv: .*C:.Windows.Temp.Vendor.t.dll") or
               test("^library-variable-unjudged PerfOS: .*%windir%, whose value .*Environment.windir. is empty"))] |
        length == 3' "$OUT" >/dev/null ||
    fail "Environment's values, (x86) values, an empty windir: $(cat "$OUT")"
# Two places that set it differently, the Environment key's ProgramFiles
# and SOFTWARE's ProgramFilesDir, or ProgramFilesDir and a 64-bit
# machine's ProgramW6432Dir (review 50 R50-4, R50-5: one taken, where
# which one a reading process gets is not settled): not judged.
for other in ProgramFilesDir ProgramW6432Dir; do
    if [ $other = ProgramFilesDir ]; then
        program_files 1 ProgramFilesDir 'string:C:\Program Files'
    else
        program_files 2 ProgramFilesDir 'expandstring:%SystemDrive%\Users\Public' \
            ProgramW6432Dir 'string:C:\Program Files'
    fi
    expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
    jq -e --arg o "$other" '[.findings[] | .id + " " + .message |
            select(test("^library-variable-unjudged TapiSrv: .*%programfiles%, whose value .* is not what .*CurrentVersion." + $o + " sets"))] |
            length == 1' "$OUT" >/dev/null ||
        fail "%ProgramFiles% set differently by $other: $(cat "$OUT")"
done
# A .reg store of the machine holds its own definitions too (review 47
# R47-6: its windir was not read): a .reg of this database with
# Session Manager\Environment's windir set to Users\Public.
# reg_windir FROM TO SET VALUE ID PATTERN WHAT [NAME]: TO is the .reg
# FROM with windir (or NAME) set to VALUE (as a .reg spells it) in SET's
# Session Manager\Environment; its audit --libraries holds one finding
# ID whose message matches PATTERN.
reg_windir() {
    cat "$1" >"$2"
    printf '\n[%s]\n"%s"="%s"\n' \
        "HKEY_LOCAL_MACHINE\\SYSTEM\\$3\\Control\\Session Manager\\Environment" \
        "${8:-windir}" "$4" >>"$2"
    expect_exit 1 "$REGTOOL" --store "reg:$2" audit --libraries --json
    jq -e --arg id "$5" --arg re "$6" '[.findings[] | select(.id == $id) |
            .message | select(test($re))] | length == 1' "$OUT" >/dev/null ||
        fail "$7: $(cat "$OUT")"
}
expect_exit 0 "$REGTOOL" --store "hive:$D" backup --format reg "$TMPDIR/m.reg"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/m.reg" | tr -d '\r' >"$TMPDIR/m0.reg"
# A store with no tree beside it (a .reg file, a hive pair copied out of
# one) says that no Library file was looked for (review 53 R53-7: a
# clean audit of uploaded hives said nothing).
mkdir "$TMPDIR/pair"
cp "$D/Windows/System32/config/SOFTWARE" "$D/Windows/System32/config/SYSTEM" \
    "$TMPDIR/pair/"
for st in "0 reg:$TMPDIR/m0.reg" \
          "1 hive:$TMPDIR/pair/SOFTWARE,$TMPDIR/pair/SYSTEM"; do
    expect_exit "${st%% *}" "$REGTOOL" --store "${st#* }" audit --libraries
    expect_grep "^info  *library-files-unchecked: the store has no Windows tree beside it: whether each Library exists" "$OUT"
done
reg_windir "$TMPDIR/m0.reg" "$TMPDIR/m8.reg" CurrentControlSet 'C:\\Users\\Public' \
    library-user-writable '^PerfOS: .*C:.Users.Public.System32.perfos.dll' \
    "a .reg store's windir"
# The same under ControlSet001, where reg import writes a machine's
# control set (review 48 R48-4: passed over, setup's taken): not judged.
reg_windir "$TMPDIR/m0.reg" "$TMPDIR/m9.reg" ControlSet001 'C:\\Users\\Public' \
    library-variable-unjudged '^PerfOS: .*could not be read .*ControlSet001' \
    "a .reg store's windir under ControlSet001"
# ... and where CurrentControlSet sets it too (R49-3: reg import writes
# both into one key, the later winning).
reg_windir "$TMPDIR/m8.reg" "$TMPDIR/m10.reg" ControlSet001 'C:\\Windows' \
    library-variable-unjudged '^PerfOS: .*could not be read .*ControlSet001' \
    "a .reg store's windir in both control sets"
# An Environment key without windir: Windows leaves %windir% unexpanded,
# not judged at setup's C:\Windows (R49-11).
reg_windir "$TMPDIR/m0.reg" "$TMPDIR/m11.reg" CurrentControlSet 'C:\\Temp' \
    library-variable-unjudged '^PerfOS: .*%windir%, whose value .*windir. is not set' \
    "a .reg store's Environment key without windir" TEMP
# ... under ControlSet001, where reg import writes it (review 51 R51-5).
reg_windir "$TMPDIR/m0.reg" "$TMPDIR/m12.reg" ControlSet001 'C:\\Temp' \
    library-variable-unjudged '^PerfOS: .*%windir%, whose value .*windir. is not set' \
    "a .reg store's ControlSet001 Environment key without windir" TEMP
# windir in two letter cases (R48-2: the first judged, where Windows'
# session manager, setting each in turn, ends with the last), and a
# Library through a variable regtool does not know, which the machine's
# Environment may define (R48-5: a folder of the tree named %X% judged):
# neither judged.
printf '%s\n' 'cd \ControlSet001\Control\Session Manager\Environment' 'setval 2' \
    WINDIR 'expandstring:C:\Windows' windir 'expandstring:C:\Windows\Temp' commit \
    >"$TMPDIR/hivexsh.in"
hivexsh -w "$SY" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not set windir twice"
perf_set TapiSrv '%SystemRoot%\%X%\tapiperf.dll'
mkdir -p "$D/Windows/%X%"
: >"$D/Windows/%X%/tapiperf.dll"
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '[.findings[] | select(.id == "library-variable-unjudged") | .message |
        select(test("^PerfOS: .*could not be read .*2 values named windir") or
               test("^TapiSrv: .*uses %X%, an environment string regtool does not know"))] |
        length == 2' "$OUT" >/dev/null ||
    fail "windir in two letter cases, an unknown variable: $(cat "$OUT")"
# SystemRoot set by the Environment key, which replaces the system's
# own (review 49 R49-8: not read). The key now holds SystemRoot alone
# (setval replaces its values): windir, which Windows then leaves
# unexpanded, is not judged at setup's C:\Windows (R49-11).
printf '%s\n' 'cd \ControlSet001\Control\Session Manager\Environment' 'setval 1' \
    SystemRoot 'string:C:\Windows\Temp' commit >"$TMPDIR/hivexsh.in"
hivexsh -w "$SY" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not set SystemRoot"
perf_set TapiSrv '%SystemRoot%\System32\tapiperf.dll'
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '[.findings[] | .id + " " + .message |
        select(test("^library-user-writable TapiSrv: .*C:.Windows.Temp.System32.tapiperf.dll") or
               test("^library-variable-unjudged PerfOS: .*%windir%, whose value .*Environment.windir. is not set"))] |
        length == 2' "$OUT" >/dev/null ||
    fail "the Environment key's SystemRoot, no windir: $(cat "$OUT")"
# Setup's SystemRoot on another drive (D:\Windows): a drive letter a
# Library names is not known there (review 51 R51-1), setup's places
# stay the tree's.
printf '%s\n' 'cd \Microsoft\Windows NT\CurrentVersion' 'setval 1' \
    SystemRoot 'string:D:\Windows' commit >"$TMPDIR/hivexsh.in"
hivexsh -w "$SW" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not set SystemRoot"
perf_set TapiSrv 'C:\Windows\System32\tapiperf.dll'
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '[.findings[] | select(.id == "library-variable-unjudged") | .message |
        select(test("^TapiSrv: .*system drive is not C: .*CurrentVersion.SystemRoot is D:.Windows"))] |
        length == 1' "$OUT" >/dev/null ||
    fail "setup's SystemRoot on D:: $(cat "$OUT")"
# The Environment key taken away where Session Manager is there, a real
# machine's (review 51 R51-2: %windir% judged at setup's C:\Windows).
printf '%s\n' 'cd \ControlSet001\Control\Session Manager\Environment' 'del' commit \
    >"$TMPDIR/hivexsh.in"
hivexsh -w "$SY" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not delete Environment"
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '[.findings[] | select(.id == "library-variable-unjudged") | .message |
        select(test("^PerfOS: .*%windir%, whose value .* is not set, and its key is not there though the machine.s Session Manager is"))] |
        length == 1' "$OUT" >/dev/null ||
    fail "Session Manager without Environment: $(cat "$OUT")"
# ... and SOFTWARE without Microsoft\Windows at all (review 52 R52-1:
# the nearest parent was asked, and it had gone too).
printf '%s\n' 'cd \Microsoft\Windows' 'del' commit >"$TMPDIR/hivexsh.in"
hivexsh -w "$SW" <"$TMPDIR/hivexsh.in" || fail "hivexsh could not delete Microsoft\\Windows"
perf_set TapiSrv '%ProgramFiles%\Vendor\t.dll'
expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries --json
jq -e '[.findings[] | select(.id == "library-variable-unjudged") | .message |
        select(test("^TapiSrv: .*%programfiles%, whose value .*ProgramFilesDir. is not set, and its key is not there"))] |
        length == 1' "$OUT" >/dev/null ||
    fail "SOFTWARE without Microsoft\\Windows: $(cat "$OUT")"
echo "audit_libraries: ok"
