# regtool audit --format prometheus and --textfile (contrib/prometheus):
# - a healthy tree (init 009,007, the samples installed): promtool check
#   metrics passes; Last Counter, Last Help and the highest indices are
#   query's; no error or warning; --json and --format json agree;
# - a broken tree (Last Counter 2048 planted with hivexsh, TransferPerf
#   disabled): exit 2, the finding last-counter-below-highest counted,
#   regtool_last_index 2048, TransferPerf's regtool_provider_disabled;
# - a hostile provider name (a quote, ESC, BEL, a newline with a forged
#   sample after it, U+202E) and a store spec of invalid UTF-8 with a
#   quote and a newline: valid exposition, each escaped;
# - several stores: a store label, a store named twice given once, one
#   that cannot be opened regtool_audit_success 0 with the reason on
#   stderr;
# - --textfile: the file written whole (mode 0644 under umask 022),
#   nothing on stdout, no temporary file left; a store that cannot be
#   opened still replaces it (regtool_audit_success 0: the collector must
#   see the failure, not the last good numbers); a usage error, a folder
#   that is not there, one its user cannot write (nobody) and a full disk
#   (a small tmpfs) exit 64 or 3 with the file byte for byte as it was
#   and nothing left beside it;
# - out of memory at every 97th allocation of an audit --textfile: never
#   a crash, exit 0 to 3, the file always valid and alone;
# - the alerting rules: promtool check rules, promtool test rules with
#   contrib/prometheus/regtool.rules.test.yml, and with a test made from
#   the broken tree's own output, where the three alerts fire.
# promtool comes with Debian's prometheus package (tools/deps.sh): this
# test fails without it.
. tests/cli/lib.sh

command -v promtool >/dev/null 2>&1 ||
    fail "promtool not found: install Debian's prometheus package (sh tools/deps.sh)"
umask 022
CONTRIB=$PWD/contrib/prometheus

# check_metrics FILE WHAT: promtool's parser and linter accept FILE.
check_metrics() {
    promtool check metrics <"$1" >"$TMPDIR/lint" 2>&1 ||
        { cat "$1" "$TMPDIR/lint" >&2; fail "$2: promtool check metrics failed"; }
}
# expect_value FILE SERIES VALUE: FILE has the sample SERIES with VALUE.
expect_value() {
    # ENVIRON, not -v: awk -v would read the backslashes as escapes.
    _v=$(SERIES=$2 awk 'BEGIN { s = ENVIRON["SERIES"] }
        index($0, s " ") == 1 { print substr($0, length(s) + 2) }' "$1")
    [ "$_v" = "$3" ] || { cat "$1" >&2; fail "$2 is '$_v', want '$3'"; }
}
# without_time FILE: FILE but its timestamps.
without_time() { grep -v '^regtool_audit_timestamp_seconds' "$1"; }

D=$TMPDIR/ok
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009,007
for ini in ini-samples/replication.ini ini-samples/transfer.ini; do
    # shellcheck disable=SC2086
    expect_exit 0 "$REGTOOL" --store "hive:$D" install $CS "$ini"
done
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$D" install $CS --codepage 1251 ini-samples/sklad.cp1251.ini

before=$(date +%s)
expect_exit 0 "$REGTOOL" --store "hive:$D" audit --format prometheus
after=$(date +%s)
cp "$OUT" "$TMPDIR/ok.prom"
OK=$TMPDIR/ok.prom
check_metrics "$OK" "healthy tree"
expect_exit 0 "$REGTOOL" --store "hive:$D" query --json
lc=$(jq .last_counter "$OUT"); lh=$(jq .last_help "$OUT"); bi=$(jq .base_index "$OUT")
np=$(jq '.providers | length' "$OUT")
expect_value "$OK" 'regtool_audit_success' 1
expect_value "$OK" 'regtool_last_index{kind="counter"}' "$lc"
expect_value "$OK" 'regtool_last_index{kind="help"}' "$lh"
expect_value "$OK" 'regtool_base_index' "$bi"
expect_value "$OK" 'regtool_highest_index_in_use{kind="counter"}' "$lc"
expect_value "$OK" 'regtool_highest_index_in_use{kind="help"}' "$lh"
expect_value "$OK" 'regtool_providers_installed' "$np"
expect_value "$OK" 'regtool_providers_disabled' 0
expect_value "$OK" 'regtool_audit_findings_by_severity{severity="error"}' 0
expect_value "$OK" 'regtool_audit_findings_by_severity{severity="warning"}' 0
grep -q '^regtool_provider_disabled{' "$OK" && fail "a provider disabled in a healthy tree"
ts=$(awk '/^regtool_audit_timestamp_seconds / { print $2 }' "$OK")
[ "$ts" -ge "$before" ] && [ "$ts" -le "$after" ] ||
    fail "regtool_audit_timestamp_seconds $ts not in $before..$after"
for m in audit_success audit_timestamp_seconds audit_findings_by_severity \
         audit_findings last_index base_index highest_index_in_use \
         providers_installed providers_disabled provider_disabled; do
    grep -q "^# HELP regtool_$m " "$OK" && grep -q "^# TYPE regtool_$m gauge\$" "$OK" ||
        fail "no HELP and TYPE gauge for regtool_$m"
done
expect_exit 0 "$REGTOOL" --store "hive:$D" audit --json
cp "$OUT" "$TMPDIR/json1"
expect_exit 0 "$REGTOOL" --store "hive:$D" audit --format json
cmp -s "$OUT" "$TMPDIR/json1" || fail "--format json differs from --json"
expect_exit 0 "$REGTOOL" --store "hive:$D" audit --format text
expect_grep "^0 errors, 0 warnings, " "$OUT"

# The broken tree: Last Counter below the highest index, a provider
# disabled.
B=$TMPDIR/broken
cp -a "$D" "$B"
expect_exit 0 "$REGTOOL" --store "hive:$B" disable TransferPerf
perflib_set "$B/Windows/System32/config/SOFTWARE" "Last_Counter=2048"
expect_exit 2 "$REGTOOL" --store "hive:$B" audit --format prometheus
cp "$OUT" "$TMPDIR/broken.prom"
BAD=$TMPDIR/broken.prom
check_metrics "$BAD" "broken tree"
expect_value "$BAD" 'regtool_audit_success' 1
expect_value "$BAD" 'regtool_last_index{kind="counter"}' 2048
expect_value "$BAD" 'regtool_highest_index_in_use{kind="counter"}' "$lc"
expect_value "$BAD" 'regtool_audit_findings{id="last-counter-below-highest",severity="error",language=""}' 1
expect_value "$BAD" 'regtool_audit_findings{id="counters-disabled",severity="warning",language=""}' 1
expect_value "$BAD" 'regtool_provider_disabled{provider="TransferPerf"}' 1
expect_value "$BAD" 'regtool_providers_disabled' 1
errors=$("$REGTOOL" --store "hive:$B" audit --json | jq .summary.errors)
expect_value "$BAD" 'regtool_audit_findings_by_severity{severity="error"}' "$errors"

# A hostile provider name, disabled; a store spec of invalid UTF-8.
MKH=$TMPDIR/mkhostile
# shellcheck disable=SC2086
cc $SANFLAGS -Ilib -o "$MKH" tests/cli/mkhostile.c \
    "$(dirname "$REGTOOL")/libregtool.a" -linih || fail "cannot build mkhostile"
H=$TMPDIR/hostile
SVC=$(printf 'Ev"il\033]0;t\007\nregtool_audit_success 1\342\200\256X')
expect_exit 0 "$REGTOOL" --store "hive:$H" init --languages 009
"$MKH" "$H/Windows/System32/config/SYSTEM" "$SVC" x.dll x.ini 5000 || fail "mkhostile"
expect_exit 0 "$REGTOOL" --store "hive:$H" disable "$SVC"
NOSTORE=$(printf 'hive:%s/n\377"o\nne' "$TMPDIR")
expect_exit 2 "$REGTOOL" audit --format prometheus "hive:$H" "$NOSTORE"
cp "$OUT" "$TMPDIR/hostile.prom"
HOS=$TMPDIR/hostile.prom
check_metrics "$HOS" "hostile names"
expect_value "$HOS" "regtool_provider_disabled{store=\"hive:$H\",provider=\"Ev\\\"il\\\\x1b]0;t\\\\x07\\\\nregtool_audit_success 1\\\\u202eX\"}" 1
expect_value "$HOS" "regtool_audit_success{store=\"hive:$TMPDIR/n\\\\xff\\\"o\\\\nne\"}" 0
[ "$(grep -c '^regtool_audit_success' "$HOS")" = 2 ] || fail "a forged sample: $(cat "$HOS")"
expect_grep "audit of hive:.*No such file" "$ERR"

# Several stores: the store label; one named twice is audited once.
expect_exit 2 "$REGTOOL" audit --format prometheus "hive:$D" "hive:$B" "hive:$D"
check_metrics "$OUT" "several stores"
expect_value "$OUT" "regtool_last_index{store=\"hive:$B\",kind=\"counter\"}" 2048
expect_value "$OUT" "regtool_last_index{store=\"hive:$D\",kind=\"counter\"}" "$lc"
[ "$(grep -c '^regtool_audit_success{' "$OUT")" = 2 ] || fail "a store twice: $(cat "$OUT")"
expect_exit 64 "$REGTOOL" --store "hive:$D" audit --format yaml
expect_exit 64 "$REGTOOL" --store "hive:$D" audit --format

# --textfile: the same text, atomically.
TF=$TMPDIR/tf
mkdir "$TF"
F=$TF/regtool.prom
expect_exit 0 "$REGTOOL" --store "hive:$D" audit --textfile "$F"
[ -s "$OUT" ] && fail "--textfile wrote to stdout: $(cat "$OUT")"
check_metrics "$F" "--textfile"
without_time "$F" >"$TMPDIR/a"; without_time "$OK" >"$TMPDIR/b"
cmp -s "$TMPDIR/a" "$TMPDIR/b" || fail "--textfile differs from stdout's"
[ "$(stat -c %a "$F")" = 644 ] || fail "mode $(stat -c %a "$F"), want 644"
[ "$(ls -A "$TF")" = regtool.prom ] || fail "left beside it: $(ls -A "$TF")"
expect_exit 2 "$REGTOOL" --store "hive:$D" audit --format prometheus --textfile "$F" "hive:$B"
expect_value "$F" "regtool_last_index{store=\"hive:$B\",kind=\"counter\"}" 2048
# A store that cannot be opened replaces it with regtool_audit_success 0.
expect_exit 2 "$REGTOOL" --store "hive:$TMPDIR/none" audit --textfile "$F"
check_metrics "$F" "an unreadable store's textfile"
expect_value "$F" 'regtool_audit_success' 0
expect_value "$F" 'regtool_audit_findings{id="store-unreadable",severity="error",language=""}' 1
grep -q '^regtool_last_index' "$F" && fail "an unreadable store has a Last Counter"
expect_grep "audit of hive:$TMPDIR/none: " "$ERR"
# Failures leave it as it was, and nothing beside it.
expect_exit 0 "$REGTOOL" --store "hive:$D" audit --textfile "$F"
cp "$F" "$TMPDIR/kept"
expect_exit 64 "$REGTOOL" --store "hive:$D" audit --format json --textfile "$F"
expect_exit 64 "$REGTOOL" --store "hive:$D" audit --textfile
expect_exit 3 "$REGTOOL" --store "hive:$D" audit --textfile "$TF/none/regtool.prom"
expect_grep "textfile .*none/regtool.prom: cannot write it" "$ERR"
[ -e "$TF/none" ] && fail "--textfile made a folder"
chmod 755 "$TMPDIR" "$TF"
expect_exit 3 setpriv --reuid=nobody --regid=nogroup --clear-groups \
    "$REGTOOL" --store "hive:$TMPDIR/none" audit --textfile "$F"
expect_grep "cannot write it" "$ERR"
cmp -s "$F" "$TMPDIR/kept" || fail "an unwritable folder's textfile changed"
[ "$(ls -A "$TF")" = regtool.prom ] || fail "left beside it: $(ls -A "$TF")"
# Out of memory at every 97th allocation after SOFTWARE is opened
# (fail_alloc.c, preloaded; not under AddressSanitizer, whose allocator
# it would bypass): never a crash, exit 0 to 3; the textfile always a
# valid one (the old or a new one) and nothing left beside it.
if ! nm -D "$REGTOOL" 2>/dev/null | grep -q __asan_init; then
    SO=$TMPDIR/fail_alloc.so
    cc -shared -fPIC -o "$SO" tests/cli/fail_alloc.c -ldl || fail "cannot build fail_alloc.so"
    k=1
    while :; do
        rm -f "$TMPDIR/fired"
        FAIL_ALLOC_FIRED=$TMPDIR/fired FAIL_ALLOC_MATCH=SOFTWARE FAIL_ALLOC_AT=$k \
            LD_PRELOAD=$SO "$REGTOOL" --store "hive:$B" audit --textfile "$F" \
            >"$OUT" 2>"$ERR"
        rc=$?
        [ -f "$TMPDIR/fired" ] || break
        [ "$rc" -le 3 ] || { cat "$ERR" >&2; fail "allocation $k failing: exit $rc"; }
        [ "$rc" -lt 3 ] || [ -s "$ERR" ] || fail "allocation $k failing: exit 3 without a word"
        check_metrics "$F" "allocation $k failing"
        [ "$(ls -A "$TF")" = regtool.prom ] || fail "allocation $k failing left $(ls -A "$TF")"
        k=$((k + 97))
    done
    [ "$k" -gt 1000 ] || fail "only $k allocations: the sweep did not reach the audit"
fi

MNT=$TMPDIR/mnt
mkdir "$MNT"
trap 'umount "$MNT" 2>/dev/null' EXIT
mount -t tmpfs -o size=64k tmpfs "$MNT" || fail "cannot mount a tmpfs"
cp "$TMPDIR/kept" "$MNT/regtool.prom"
dd if=/dev/zero of="$MNT/fill" bs=1k 2>/dev/null
expect_exit 3 "$REGTOOL" --store "hive:$D" audit --textfile "$MNT/regtool.prom"
expect_grep "No space left" "$ERR"
cmp -s "$MNT/regtool.prom" "$TMPDIR/kept" || fail "a full disk's textfile changed"
[ "$(ls -A "$MNT" | tr '\n' ' ')" = "fill regtool.prom " ] ||
    fail "left on the full disk: $(ls -A "$MNT")"
umount "$MNT"

# The rules: their own test, and one made from the broken tree's output
# (each sample held for 200 minutes on instance "bad"), where the three
# alerts fire.
expect_exit 0 promtool check rules "$CONTRIB/regtool.rules.yml"
(cd "$CONTRIB" && promtool test rules regtool.rules.test.yml) >"$OUT" 2>&1 ||
    { cat "$OUT" >&2; fail "promtool test rules regtool.rules.test.yml"; }
{
    printf 'rule_files:\n  - %s/regtool.rules.yml\nevaluation_interval: 1m\n' "$CONTRIB"
    printf 'tests:\n  - interval: 1m\n    input_series:\n'
    awk '/^regtool_/ && !/^regtool_audit_timestamp_seconds/ {
             v = $NF; sub(/ [^ ]*$/, "")
             s = $0; sub(/}$/, ",instance=\"bad\"}", s)
             if (s == $0) s = $0 "{instance=\"bad\"}"
             gsub(/\x27/, "\x27\x27", s)
             printf "      - series: \x27%s\x27\n        values: \x27%sx200\x27\n", s, v }' "$BAD"
    cat <<'EOF'
    alert_rule_test:
      - eval_time: 3h
        alertname: RegtoolLastCounterBelowHighestIndex
        exp_alerts:
          - exp_labels: {severity: critical, instance: bad, kind: counter}
            exp_annotations:
              summary: "Perflib's last counter index on bad is below the highest in use"
              description: "The next provider installed would get indices already in use, and its names would overwrite others: run `regtool repair`."
      - eval_time: 3h
        alertname: RegtoolProviderDisabled
        exp_alerts:
          - exp_labels: {severity: warning, instance: bad, provider: TransferPerf}
            exp_annotations:
              summary: "Performance counters of TransferPerf are disabled on bad"
              description: "Disable Performance Counters is set: Perflib does not load the provider. `regtool enable` (lodctr /E) turns it back on when that was not meant."
      - eval_time: 3h
        alertname: RegtoolAuditFailed
        exp_alerts: []
EOF
    printf '      - eval_time: 3h\n        alertname: RegtoolNameDatabaseBroken\n'
    printf '        exp_alerts:\n          - exp_labels: {severity: critical, instance: bad}\n'
    printf '            exp_annotations:\n              summary: "The performance counter name database on bad is broken: %s error findings"\n' "$errors"
    grep -A0 'description: "regtool audit reports errors' "$CONTRIB/regtool.rules.yml" |
        sed 's/^ */              /'
} >"$TMPDIR/from-output.test.yml"
promtool test rules "$TMPDIR/from-output.test.yml" >"$OUT" 2>&1 ||
    { cat "$TMPDIR/from-output.test.yml" "$OUT" >&2; fail "promtool test rules on regtool's output"; }
echo "prometheus: ok"
