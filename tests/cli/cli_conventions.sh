# The CLI is consistent: --version, global options before or after the
# command, every command's --help describing each of its options, one exit
# code for a missing service or provider everywhere, --verbose on every
# writing command and no "0 writes" line after a failure, an operand too
# many refused with the usage, and --dry-run folding text longer than a
# line.
. tests/cli/lib.sh

expect_exit 0 "$REGTOOL" --version
expect_grep "^regtool [0-9]" "$OUT"
expect_exit 0 "$REGTOOL" --help
for o in --store --tables --verbose --force-dirty "Exit status"; do
    expect_grep "$o" "$OUT"
done

# Each command's --help names every option its usage line shows.
for c in init install uninstall names query enable disable backup restore check-ini diff; do
    expect_exit 0 "$REGTOOL" $c --help
    usage=$(head -n 3 "$OUT")
    for o in $(printf '%s\n' "$usage" | grep -o -- '--[a-z-]*' | sort -u); do
        [ "$o" = "--store" ] && continue
        n=$(grep -c -- "$o" "$OUT")
        [ "$n" -ge 2 ] || fail "$c --help: $o appears in the usage but is not described"
    done
done

D=$TMPDIR/win
expect_exit 0 "$REGTOOL" init --languages 009 --store "hive:$D"
# Global options after the command, and as --store=SPEC.
expect_exit 0 "$REGTOOL" query --json --store "hive:$D"
expect_grep '"base_index":1847' "$OUT"
expect_exit 0 "$REGTOOL" names 1 "--store=hive:$D"
expect_grep "^1	1847$" "$OUT"
export REGTOOL_STORE="hive:$D"

# A missing service: 4 from every command that names one.
expect_exit 4 "$REGTOOL" query NoSuch
expect_exit 4 "$REGTOOL" uninstall NoSuch
expect_exit 4 "$REGTOOL" enable NoSuch
expect_exit 4 "$REGTOOL" disable NoSuch
expect_exit 4 "$REGTOOL" --store "hive:$TMPDIR/nothing" query

# One operand too many: the usage and exit 64, whatever the first one
# would have done, the store untouched (restore restored the first file
# and took no notice of the second).
expect_exit 0 "$REGTOOL" backup "$TMPDIR/b.ini"
tree_state "$D" >"$TMPDIR/before"
for args in "restore $TMPDIR/b.ini $TMPDIR/b.ini" "backup $TMPDIR/b2.ini $TMPDIR/b3.ini" \
            "install ini-samples/replication.ini ini-samples/replication.ini" \
            "uninstall ESENT ESENT" "enable ESENT ESENT" "disable ESENT ESENT" \
            "repair extra" "rebuild extra"; do
    # shellcheck disable=SC2086
    expect_exit 64 "$REGTOOL" $args
    expect_grep "^Usage: regtool .*${args%% *}" "$ERR"
done
expect_same_tree "$D" "$TMPDIR/before" "a command given an operand too many changed the store"
# An empty operand is no file: the usage and exit 64, not a failure to
# write or read "" (planted set 32: backup "" said "cannot write",
# install "" "cannot read: Is a directory", exit 3). An empty service
# name is refused as the name it is not (hostile_inputs.sh): exit 2.
for verb in backup restore install; do
    expect_exit 64 "$REGTOOL" $verb ""
    expect_grep "^Usage: regtool .*$verb" "$ERR"
done
for verb in uninstall enable disable; do
    expect_exit 2 "$REGTOOL" $verb ""
    expect_grep "is not a service name (a subkey of Services): it is empty; nothing was written" "$ERR"
done
# An option whose value names a file or a folder, given an empty one, is
# a usage error for every verb alike, dry run or not (review 40 R40-7:
# exit 0, 2, 3 or 4 by verb, the working directory read for some); so
# is a store spec that names nothing, and hive check "".
CS="--create-service --library x.dll --open O --collect C --close X"
for args in "repair --dry-run --backup" "repair --backup" "repair --emit-reg" \
    "repair --from-ini" "rebuild --dry-run --from" "audit --textfile" \
    "audit --stores-from" "audit --fleet" "install --dry-run $CS ini-samples/transfer.ini --emit-reg" \
    "uninstall --dry-run ESENT --emit-reg" "restore --dry-run x.ini --emit-reg" \
    "--tables"; do
    # shellcheck disable=SC2086
    expect_exit 64 "$REGTOOL" $args ""
    expect_grep "^regtool: ${args##* } names no file or folder: give one$" "$ERR"
done
expect_exit 64 "$REGTOOL" --store= query
expect_exit 64 "$REGTOOL" --store "" query
for spec in hive: reg: psb:; do
    expect_exit 64 "$REGTOOL" --store "$spec" query
    expect_grep "unknown store '$spec'" "$ERR"
done
# --wait takes 0 to 86400 seconds, both ends (planted set 34: 86400
# refused), nothing past them.
expect_exit 0 "$REGTOOL" --wait 86400 --store "hive:$D" query
expect_exit 0 "$REGTOOL" --wait 0 --store "hive:$D" query
for w in 86401 -1 x ""; do
    expect_exit 64 "$REGTOOL" --wait "$w" --store "hive:$D" query
    expect_grep "give the seconds to wait for another regtool, 0 to 86400" "$ERR"
done
expect_exit 64 "$REGTOOL" hive check ""
expect_exit 64 "$REGTOOL" hive recover "$D/Windows/System32/config/SOFTWARE" -o ""
# An empty FILE operand alike, and a hive:SOFTWARE,SYSTEM spec with one
# half empty (review 41 R41-3: the working directory read, exit 3 or 2,
# or "SYSTEM hive : not a file", exit 4).
expect_exit 64 "$REGTOOL" hive recover "" -o "$TMPDIR/rec.hive"
expect_grep "FILE is empty" "$ERR"
for args in "perfstats list" "perfstats audit" "perfstats remove SRV" \
    "check-ini"; do
    # shellcheck disable=SC2086
    expect_exit 64 "$REGTOOL" $args ""
done
expect_exit 64 "$REGTOOL" perfstats remove "" "$TMPDIR/x.reg"
SW=$D/Windows/System32/config
for spec in "hive:$SW/SOFTWARE," "hive:,$SW/SYSTEM"; do
    expect_exit 64 "$REGTOOL" --store "$spec" query
    expect_grep "unknown store" "$ERR"
done
# audit's STORE operands alike, one beside a good one too, and install's
# --create-service values (review 42 R42-8: a store-unreadable finding,
# exit 2; a provider whose Library is empty installed).
for spec in "" hive: reg: psb: "hive:$SW/SOFTWARE,"; do
    expect_exit 64 "$REGTOOL" audit "hive:$D" "$spec"
    expect_grep "unknown store '$spec'" "$ERR"
done
for o in --library --open --collect --close; do
    # shellcheck disable=SC2086
    expect_exit 2 "$REGTOOL" --store "hive:$D" install $CS "$o" "" ini-samples/transfer.ini
    expect_grep "none of them empty" "$ERR"
done
ln -s "$REGTOOL" "$TMPDIR/lodctr"
REGTOOL_STORE="hive:$D" expect_exit 87 "$TMPDIR/lodctr" ""
expect_grep "the INI file is empty" "$ERR"
expect_same_tree "$D" "$TMPDIR/before" "a command given an empty operand changed the store"
[ ! -e "$TMPDIR/b2.ini" ] && [ ! -e "$TMPDIR/b3.ini" ] || fail "backup of two operands saved a file"

# --verbose: a line after a change; none after a failure that wrote nothing.
expect_exit 0 "$REGTOOL" disable ESENT --verbose
expect_grep "bytes written in [1-9][0-9]* writes" "$ERR"
expect_exit 4 "$REGTOOL" --verbose uninstall NoSuch
grep -q "written in" "$ERR" && fail "a failure printed a writes line: $(cat "$ERR")"

# --dry-run folds long help texts under their first character.
CS="--create-service --library x.dll --open O --collect C --close X"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" install --dry-run $CS ini-samples/replication.ini
awk 'length($0) > 79 && $0 ~ /^      [+-] / { bad = 1 } END { exit bad }' "$OUT" ||
    fail "--dry-run prints a pair line longer than 79 columns"
expect_grep "^             describe the replication of rows" "$OUT"
# A message is written a buffer of 1024 bytes at a time: lines of every
# length around the buffer's (a path of 960 to 996 bytes in "regtool:
# PATH: No such file or directory") come out whole, each one byte longer
# than the last, nothing of an earlier piece repeated (a message is
# itself at most 1023 bytes: the path's longest here).
seg=$(printf '%0200d' 0)
base=$TMPDIR/nosuch/$seg/$seg/$seg/$seg/
len=960
while [ $len -le 996 ]; do
    path=$base$(printf '%0*d' $((len - ${#base})) 0)
    [ ${#path} -eq $len ] || fail "the test's path is ${#path} bytes, not $len"
    "$REGTOOL" --store "hive:$path" query >"$OUT" 2>"$ERR"
    [ "$(wc -l <"$ERR")" -eq 1 ] || fail "a message about a path of $len bytes is not one line: $(cat "$ERR")"
    [ "$(head -n 1 "$ERR")" = "regtool: $path: No such file or directory" ] ||
        fail "a message about a path of $len bytes came out as $(head -c 80 "$ERR")...$(tail -c 60 "$ERR")"
    len=$((len + 1))
done
echo "cli conventions: ok"
