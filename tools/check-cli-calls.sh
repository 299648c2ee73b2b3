#!/bin/sh
# Checks that the CLI (regtool/) runs on the operations layer alone: of
# the library's layers below lib/ops (and the public API), the CLI's
# objects may call only the functions listed here, which read, print,
# compare or free what an operation handed back; every operation (open,
# load, plan, apply, audit, save) goes through lib/ops. check-layers.sh
# holds the includes; this holds the calls, from the built objects (nm).
# Prints each call outside the list as OBJECT: calls NAME (LAYER) and
# exits 1 when there is one.
#   sh tools/check-cli-calls.sh OBJDIR   (OBJDIR: build/obj, as make builds)
set -eu
obj=${1:?usage: check-cli-calls.sh OBJDIR}
[ -d "$obj/regtool" ] && [ -d "$obj/lib/ops" ] ||
    { echo "check-cli-calls: no objects in $obj (make all first)" >&2; exit 2; }

# What the CLI may use of the layers below ops: accessors, printers and
# frees of the types the operations return.
ALLOWED="
rt_audit_severity_name rt_finding_message rt_finding_message_kept
rt_findings_free rt_change_set_free rt_database_free rt_database_language
rt_database_service rt_diag_format rt_diags_free rt_diags_sort
rt_error_code_for_errno rt_inf_files_free rt_install_plan_free
rt_lang_is_current rt_lang_is_id rt_msz_strerror rt_name_casecmp
rt_pair_list_find rt_printable_char rt_printable_unsafe
rt_provider_spec_free rt_rebuild_plan_free rt_rebuild_source_name
rt_rebuild_sources_free rt_repair_report_free rt_restore_plan_free
rt_strings_free rt_text_is_printable rt_text_printable_dup rt_utf8_casecmp
rt_diff_same rt_diff_languages_alone
rt_name_index_find rt_name_index_free rt_name_match rt_name_match_word
rt_provider_names_free
"
list=${TMPDIR:-/tmp}/check-cli-calls.$$
trap 'rm -f "$list" "$list.def"' EXIT
# Every function the layers below ops define: NAME LAYER.
for o in "$obj"/lib/*/*.o; do
    layer=$(basename "$(dirname "$o")")
    case $layer in ops | platform | api) continue ;; esac
    nm --defined-only "$o" | awk -v l="$layer" '$2 == "T" { print $3, l }'
done | LC_ALL=C sort -u >"$list.def"
bad=0
for o in "$obj"/regtool/*.o; do
    nm -u "$o" | awk '{ print $NF }' | LC_ALL=C sort -u |
        LC_ALL=C join - "$list.def" >"$list" || true
    while read -r name layer; do
        case " $(echo $ALLOWED) " in
        *" $name "*) ;;
        *) echo "$o: calls $name ($layer): the CLI calls operations (lib/ops/ops.h), not the $layer layer"
           bad=1 ;;
        esac
    done <"$list"
done
[ "$bad" -eq 0 ] && echo "cli calls: only operations, and the listed readers of their results"
exit "$bad"
