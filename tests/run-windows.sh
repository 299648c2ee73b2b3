#!/bin/sh
# Runs the native Windows build under wine64 (make windows-check): each
# unit test program given, then CLI tests through regtool.exe (those
# that read INIs when it has inih), in a throwaway Wine prefix.
#   sh tests/run-windows.sh BUILD_DIR TEST...   (BUILD_DIR: build/windows)
set -eu
build=$(cd "$1" && pwd); shift
PREFIX_DIR=$build/prefix
. tests/wine/prefix.sh

passed=0; failed=0; failures=""
for t in "$@"; do
    if "$WINE64" "$build/tests/$t.exe"; then passed=$((passed + 1)); else
        failed=$((failed + 1)); failures="$failures $t"
    fi
done
echo "windows unit test programs: $passed passed, $failed failed"

# regtool.exe as the CLI tests call it: its output without the CR that
# the C runtime's text mode adds, and its exit status. Called by a link
# named lodctr or unlodctr (any case, .exe or not), it runs the copy of
# regtool.exe of that name, which answers as lodctr does by its name.
wrapper=$build/regtool-wine
cat >"$wrapper" <<WRAP
#!/bin/sh
name=\$(basename "\$0" | tr 'A-Z' 'a-z'); name=\${name%.exe}
case \$name in lodctr | unlodctr) ;; *) name=regtool ;; esac
out=\$(mktemp); err=\$(mktemp)
# regtool never fails without saying why, so a failure with no output at
# all is Wine's (a loaded machine once gave exit 1 and nothing, once in
# thousands of runs), and so is one whose only words are Wine's client
# losing its server ("wine client error:0: recvmsg: Connection reset by
# peer"): run again, at most twice, and count it.
tries=0
while :; do
    "$WINE64" "$build/\$name.exe" "\$@" >"\$out" 2>"\$err"; rc=\$?
    [ "\$rc" -ne 0 ] && [ ! -s "\$out" ] &&
        ! grep -qv '^wine client error:' "\$err" &&
        [ "\$tries" -lt 2 ] || break
    tries=\$((tries + 1))
    echo "\$name.exe \$*: exit \$rc, no output but Wine's: \$(head -c 200 "\$err")" >>"$build/wine-retries.log"
done
tr -d '\r' <"\$out"; tr -d '\r' <"\$err" >&2
rm -f "\$out" "\$err"
exit \$rc
WRAP
chmod +x "$wrapper"
rm -f "$build/wine-retries.log"
status=0
# The scripts that read INIs run when regtool.exe has inih (every build
# but INIH=none): the samples good and broken, the real producers' INIs
# (an INI must parse as the Linux build parses it), install on a hive tree,
# lodctr.exe and unlodctr.exe as lodctr's users call them, and the verbs
# after an install: uninstall's Last Counter, names and query, audit's
# findings, rebuild (and lodctr /R) and its preview, repair (and from the
# INIs and INF copies, a Cyrillic name given on the command line),
# backup and restore of texts with line breaks. backup_restore_real.sh
# passes too, in three minutes under Wine: left to the Linux suites.
INI_SCRIPTS="tests/cli/check_ini_real.sh tests/cli/check_ini_samples.sh
    tests/cli/check_ini_broken.sh tests/cli/install_hive.sh
    tests/cli/ini_lodctr_loads.sh tests/cli/lodctr_speech.sh tests/cli/dropin.sh
    tests/cli/uninstall_last_counter.sh tests/cli/names_query_dryrun.sh
    tests/cli/audit.sh tests/cli/rebuild_preview.sh tests/cli/rebuild.sh
    tests/cli/repair.sh tests/cli/repair_from_ini.sh
    tests/cli/backup_line_breaks.sh"
"$WINE64" "$build/regtool.exe" version | grep -q 'without inih' && INI_SCRIPTS=
SCRIPTS="tests/cli/noini_verbs.sh tests/cli/hive_check.sh
    tests/cli/hive_recover.sh $INI_SCRIPTS"
# WINDOWS_CLI_SCRIPTS: only these (a developer's run of one script).
# shellcheck disable=SC2086
REGTOOL_WINDOWS=1 sh tests/run-cli.sh "$wrapper" \
    ${WINDOWS_CLI_SCRIPTS:-$SCRIPTS} || status=1
if [ -s "$build/wine-retries.log" ]; then
    echo "regtool.exe: $(wc -l <"$build/wine-retries.log") runs again after Wine ended them with no output of regtool's:"
    cat "$build/wine-retries.log"
fi
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
exit "$status"
