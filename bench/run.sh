#!/bin/sh
# The install benchmark: a 79 MB SOFTWARE hive with twelve languages'
# tables as values (bench/mkbench.c), a provider of 200 counters (400
# index/text pairs per language, text in 009, 007, 019), installed with
# --create-service and uninstalled again. Prints bytes written, writes and
# fsyncs (from --verbose), wall time and the SOFTWARE file's size. Times
# are only reported; tests/cli/bench_bytes.sh asserts the bytes.
#   sh bench/run.sh REGTOOL MKBENCH [SYMBOLS]
set -eu
REGTOOL=$1 MKBENCH=$2 SYMBOLS=${3:-200}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
CS="--create-service --library %SystemRoot%\\System32\\perfbench.dll --open Open --collect Collect --close Close"
SW=$W/tree/Windows/System32/config/SOFTWARE

now() { date +%s.%N; }
step() {   # step LABEL CMD...: runs CMD, prints its --verbose line and time
    label=$1; shift
    t0=$(now)
    "$@" >"$W/out" 2>"$W/err" || { cat "$W/out" "$W/err" >&2; exit 1; }
    t1=$(now)
    stats=$(sed -n 's/^regtool: //p' "$W/err")
    printf '%-10s %6.2f s  %s\n' "$label" "$(awk "BEGIN{print $t1 - $t0}")" "${stats:-}"
}
size() { printf 'SOFTWARE %s bytes (%s MB)\n' "$(stat -c %s "$SW")" \
    "$(awk "BEGIN{printf \"%.1f\", $(stat -c %s "$SW") / 1048576}")"; }

step generate "$MKBENCH" hives "$W/tree"
cat "$W/out"
"$MKBENCH" provider "$W/prov" --symbols "$SYMBOLS"
size
# shellcheck disable=SC2086
step install "$REGTOOL" --verbose --store "hive:$W/tree" install $CS "$W/prov/bench.ini"
size
step uninstall "$REGTOOL" --verbose --store "hive:$W/tree" uninstall BenchPerf
size
# Installing again reuses the space the uninstall freed.
step reinstall "$REGTOOL" --verbose --store "hive:$W/tree" install "$W/prov/bench.ini"
size
