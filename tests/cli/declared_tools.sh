# make check runs on a fresh Debian with only what tools/deps.sh installs
# (and Debian's essential packages, perl-base among them): a script that
# calls a tool nobody declared passes here and fails there. Python is
# the one that has slipped in; awk, iconv and perl do its jobs.
. tests/cli/lib.sh

found=$(grep -rlE '(^|[^[:alnum:]_.-])python3?([^[:alnum:]_.-]|$)' \
    Makefile ./*.mk tests tools bench wine-tests .ci contrib 2>/dev/null |
    grep -v '^tests/cli/declared_tools\.sh$' || true)
[ -z "$found" ] || fail "these call python, which tools/deps.sh does not install: $found"
echo "declared_tools: ok"
