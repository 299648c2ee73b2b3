# The include-direction check passes on the tree and catches an include
# that points up, one that points sideways (regf and provider share a
# rank), a directory that is no layer, and OS headers outside lib/platform.
. tests/cli/lib.sh

expect_exit 0 sh tools/check-layers.sh .
expect_grep "every include points down" "$OUT"

copy() {
    rm -rf "$TMPDIR/tree"; mkdir -p "$TMPDIR/tree"
    cp -r lib regtool tools "$TMPDIR/tree/"
}

# model/utf16.c reaching up into the engine, on a new line 2.
copy
sed -i '1a #include "engine/engine.h"' "$TMPDIR/tree/lib/model/utf16.c"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep 'lib/model/utf16.c:2: model (rank 1) includes "engine/engine.h" from engine (rank 5)' "$OUT"

# regf using the INI reader: same rank, other layer.
copy
printf '#include "provider/ini_reader.h"\n' >>"$TMPDIR/tree/lib/regf/check.c"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep 'lib/regf/check.c:[0-9]*: regf (rank 3) includes "provider/ini_reader.h" from provider' "$OUT"

# A directory under lib/ that is no layer.
copy
mkdir "$TMPDIR/tree/lib/misc"
printf '#include "model/error.h"\n' >"$TMPDIR/tree/lib/misc/x.c"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep "lib/misc/x.c: directory 'misc' is not a known layer" "$OUT"
# An OS call outside the platform layer.
copy
sed -i '1a #include <unistd.h>' "$TMPDIR/tree/lib/store/store_hive.c"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep 'lib/store/store_hive.c:2: includes <unistd.h>: calls to the operating system belong in lib/platform/' "$OUT"
copy
sed -i '1a #include <windows.h>' "$TMPDIR/tree/regtool/init.c"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep 'regtool/init.c:2: includes <windows.h>' "$OUT"
# The engine calling up into the operations, and those into the API.
copy
sed -i '1a #include "ops/ops.h"' "$TMPDIR/tree/lib/engine/engine.c"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep 'lib/engine/engine.c:2: engine (rank 5) includes "ops/ops.h" from ops (rank 6)' "$OUT"
copy
sed -i '1a #include "api/api.h"' "$TMPDIR/tree/lib/ops/transaction.c"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep 'lib/ops/transaction.c:2: ops (rank 6) includes "api/api.h" from api (rank 7)' "$OUT"
# The public header showing an internal one.
copy
sed -i '/#include <stddef.h>/a #include "model/error.h"' "$TMPDIR/tree/lib/regtool.h"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep 'lib/regtool.h:[0-9]*: the public header includes "model/error.h"' "$OUT"
# A verb file calling another verb file's function: the circle among the
# CLI's files that lodctr.c once made through backup.c, restore.c and
# rebuild.c (the tree before the shared parts moved to regtool/cli_*.c
# fails here).
copy
printf 'int verify_restores(void)\n{\n    return cmd_restore(0, 0);\n}\n' >>"$TMPDIR/tree/regtool/verify.c"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep 'regtool/verify.c:[0-9]*: uses cmd_restore(), which the verb file regtool/restore.c defines' "$OUT"
# ... or takes it as a pointer, as lodctr.c once ran regtool enable.
copy
printf 'int (*verify_runs)(int, char **) = cmd_enable;\n' >>"$TMPDIR/tree/regtool/verify.c"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep 'regtool/verify.c:[0-9]*: uses cmd_enable(), which the verb file regtool/enable.c defines' "$OUT"
# The CLI past the operations layer: an engine header, and a call through
# the store's function table.
copy
sed -i '1a #include "engine/database.h"' "$TMPDIR/tree/regtool/query.c"
printf 'void query_close(struct rt_store *s)\n{\n    s->ops->close(s);\n}\n' >>"$TMPDIR/tree/regtool/query.c"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
expect_grep 'regtool/query.c:2: the CLI includes "engine/database.h": regtool/ includes only' "$OUT"
expect_grep "regtool/query.c:[0-9]*: the CLI calls a store's function table" "$OUT"
# An ops header that gives the CLI only the operations' own types
# (OPS_OWN_TYPES) showing a lower layer through: the hive layer's header
# hive_files.h once re-exported, ops.h (which still does), a library's
# header; the public header, a platform header, another header of the
# list (bare or as ops/) and the C library's stay allowed.
copy
sed -i '/#include <stdint.h>/a #include "regf/log.h"\n#include "ops/ops.h"\n#include <ini.h>\n#include "perfstats_reg.h"\n#include "ops/perfstats_reg.h"\n#include "platform/os.h"\n#include <regtool.h>\n#include <stdio.h>' \
    "$TMPDIR/tree/lib/ops/hive_files.h"
expect_exit 1 sh tools/check-layers.sh "$TMPDIR/tree"
line=$(grep -n '^#include "regf/log.h"' "$TMPDIR/tree/lib/ops/hive_files.h" | cut -d: -f1)
expect_grep "lib/ops/hive_files.h:$line: includes \"regf/log.h\": an ops header of OPS_OWN_TYPES gives the CLI only the operations' own types" "$OUT"
expect_grep "lib/ops/hive_files.h:$((line + 1)): includes \"ops/ops.h\"" "$OUT"
expect_grep "lib/ops/hive_files.h:$((line + 2)): includes <ini.h>" "$OUT"
[ "$(grep -c 'OPS_OWN_TYPES' "$OUT")" -eq 3 ] || fail "an allowed include was refused, or one too many: $(cat "$OUT")"
# The calls: the CLI's objects call the layers below ops only to read,
# print and free what operations return (tools/check-cli-calls.sh); one
# that loads the database itself is named.
OBJ=$(dirname "$REGTOOL")/obj
expect_exit 0 sh tools/check-cli-calls.sh "$OBJ"
expect_grep "only operations" "$OUT"
rm -rf "$TMPDIR/obj" && mkdir -p "$TMPDIR/obj/lib" && cp -r "$OBJ/regtool" "$TMPDIR/obj/" &&
    cp -r "$OBJ"/lib/* "$TMPDIR/obj/lib/" || fail "cannot copy $OBJ"
printf 'int rt_database_load();\nint cli_loads(void) { return rt_database_load(0, 0, 0); }\n' >"$TMPDIR/loads.c"
cc -c -o "$TMPDIR/obj/regtool/loads.o" "$TMPDIR/loads.c" || fail "cannot build loads.o"
expect_exit 1 sh tools/check-cli-calls.sh "$TMPDIR/obj"
expect_grep "regtool/loads.o: calls rt_database_load (engine): the CLI calls operations" "$OUT"
echo "layers: ok"
