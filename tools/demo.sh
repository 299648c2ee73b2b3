#!/bin/sh
# make demo: an offline Windows tree with three languages, two providers
# installed from ini-samples/, looked up in English and Russian, one
# removed, and the tables shown to be byte-for-byte what they were.
#   sh tools/demo.sh REGTOOL [DIR]   (DIR: build/demo)
set -eu
RT=$1
D=${2:-build/demo}
rm -rf "$D"
export REGTOOL_STORE="hive:$D"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
tables() { (cd "$D/Windows" && sha256sum System32/*.dat SysWOW64/*.dat); }
service="--create-service --library %SystemRoot%\\System32\\xferperf.dll --open OpenPerf --collect CollectPerf --close ClosePerf"

step "regtool init: a Windows tree with languages 009, 019, 00C (tables in .dat files)"
"$RT" init --languages 009,019,00C
ls -l "$D/Windows/System32" | sed -n '2,$p'

step "install ini-samples/replication.ini (4 languages; 404 is not on this machine)"
# shellcheck disable=SC2086
"$RT" install $service ini-samples/replication.ini
tables >"$D/tables.before"

step "install ini-samples/transfer.ini (UTF-16LE, English only: 019 and 00C get English)"
# shellcheck disable=SC2086
"$RT" install $service ini-samples/transfer.ini | tee "$D/transfer.out"
first=$(sed -n 's/.*names \([0-9]*\)-\([0-9]*\),.*/\1/p' "$D/transfer.out")
last=$(sed -n 's/.*names \([0-9]*\)-\([0-9]*\),.*/\2/p' "$D/transfer.out")

step "query (lodctr /Q) for both providers"
"$RT" query ReplicationPerf
"$RT" query TransferPerf

step "names: the Replication provider in English and in Russian"
rfirst=$("$RT" query --json ReplicationPerf | sed -n 's/.*"first_counter":\([0-9]*\).*/\1/p')
"$RT" names --lang 009 "$rfirst" $((rfirst + 2)) $((rfirst + 4))
"$RT" names --lang 019 "$rfirst" $((rfirst + 2)) $((rfirst + 4))
step "names: look up by name, and Transfer's names in Russian (English text)"
"$RT" names "Bytes Sent"
i=$first
set --
while [ "$i" -le "$last" ]; do set -- "$@" "$i"; i=$((i + 2)); done
"$RT" names --lang 019 "$@"

step "uninstall TransferPerf (unlodctr)"
"$RT" --verbose uninstall TransferPerf
tables >"$D/tables.after"
if cmp -s "$D/tables.before" "$D/tables.after"; then
    echo "every .dat table (System32 and SysWOW64) is byte-for-byte as before TransferPerf was installed:"
    sed 's/^/  /' "$D/tables.after"
else
    diff "$D/tables.before" "$D/tables.after"
    echo "demo: tables differ after uninstall" >&2
    exit 1
fi
"$RT" query | sed -n '1,5p'
