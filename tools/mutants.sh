#!/bin/sh
# make mutants: plants one-line bugs, one at a time, in a scratch copy of
# the tree (never in this one), runs the fastest test that must catch
# each, and prints a table. Every mutant must be caught: the script exits
# 1 if one survives, and 2 if an edit no longer applies exactly once or a
# mutant does not build (the list must not rot silently;
# tools/check-mutants.sh finds an edit that no longer applies in a moment).
#   sh tools/mutants.sh [NAME...]     only the mutants named
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$(cd "$ROOT/.." && pwd)/shared}; export SHARED
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rtmut.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT INT TERM
T=$SCRATCH/tree
. "$ROOT/tools/scratch-tree.sh"
scratch_tree "$ROOT" "$SCRATCH" ||
    { echo "mutants: cannot copy the tree" >&2; exit 2; }
JOBS=${JOBS:-2}
# Built as make check builds: a mutant that draws a warning does not build.
WERROR=1; export WERROR
ONLY="$*"
LOG=$SCRATCH/log
TABLE=$SCRATCH/table
: >"$TABLE"
status=0

# build_and_run TARGET: builds what TARGET needs in the scratch tree and
# runs it; 0 passed, 1 failed, 2 did not build.
build_and_run() {
    case "$1" in
    unit:*)
        bin=build/tests/${1#unit:}
        (cd "$T" && make -s -j"$JOBS" "$bin") >"$LOG" 2>&1 || return 2
        (cd "$T" && "./$bin") >>"$LOG" 2>&1 || return 1 ;;
    cli:*)
        # mkbench: the CLI scripts that need a large tree make it;
        # testing/regtool: the crash scripts' CLI (with the test hooks).
        (cd "$T" && make -s -j"$JOBS" build/regtool build/testing/regtool build/bench/mkbench) >"$LOG" 2>&1 || return 2
        (cd "$T" && sh tests/run-cli.sh "$T/build/regtool" "tests/cli/${1#cli:}") \
            >>"$LOG" 2>&1 || return 1 ;;
    *) echo "mutants: unknown target $1" >&2; return 2 ;;
    esac
    return 0
}

# replace FILE OLD NEW: OLD by NEW in FILE, exactly one occurrence.
replace() {
    # perl is Debian's essential perl-base: no dependency to declare.
    OLD=$2 NEW=$3 perl -e '
        my $p = $ARGV[0];
        open(my $in, "<:raw", $p) or die "$p: $!\n";
        local $/; my $s = <$in>; close $in;
        my ($old, $new) = ($ENV{OLD}, $ENV{NEW});
        my ($n, $at) = (0, -1);
        for (my $i = index($s, $old); $i >= 0; $i = index($s, $old, $i + 1)) {
            $at = $i if $n++ == 0;
        }
        die "$p: the mutant'"'"'s anchor occurs $n times, not once:\n$old\n" if $n != 1;
        substr($s, $at, length($old)) = $new;
        open(my $out, ">:raw", $p) or die "$p: $!\n";
        print $out $s; close $out or die "$p: $!\n";' "$1"
}

baseline_done=""
OLD2='' NEW2=''
# mutant NAME FILE TARGET (OLD and NEW set; OLD2 and NEW2 for a second
# edit of the same file, when one bug takes two): plants, tests, restores.
mutant() {
    name=$1 file=$2 target=$3
    if [ -n "$ONLY" ]; then
        case " $ONLY " in *" $name "*) ;; *) OLD2="" NEW2=""; return 0 ;; esac
    fi
    # The unmutated tree must pass the target first: a failing target
    # would "catch" every mutant.
    case " $baseline_done " in
    *" $target "*) ;;
    *)
        build_and_run "$target"
        r=$?
        if [ $r -ne 0 ]; then
            cat "$LOG" >&2
            echo "mutants: $target fails without any mutant" >&2
            exit 2
        fi
        baseline_done="$baseline_done $target" ;;
    esac
    cp -p "$T/$file" "$SCRATCH/orig"
    if ! replace "$T/$file" "$OLD" "$NEW" ||
       { [ -n "$OLD2" ] && ! replace "$T/$file" "$OLD2" "$NEW2"; }; then
        echo "mutants: $name: the edit does not apply to $file" >&2
        exit 2
    fi
    OLD2='' NEW2=''
    build_and_run "$target"
    r=$?
    cp "$SCRATCH/orig" "$T/$file"   # a new mtime: rebuilt next time
    case $r in
    0) result="NOT CAUGHT"; status=1 ;;
    1) result=caught
       # What failed: cmocka's failed tests, or the CLI script's FAIL line.
       by=$(sed -n 's/^\[  FAILED  \] \([A-Za-z_0-9]*\)$/\1/p' "$LOG" | sort -u | tr '\n' ' ' | sed 's/ $//')
       [ -n "$by" ] || by=$(grep -m1 '^FAIL: ' "$LOG" | cut -c7-140)
       result="caught ($by)" ;;
    *) cat "$LOG" >&2
       echo "mutants: $name does not build" >&2
       exit 2 ;;
    esac
    printf '| %s | %s | %s | %s |\n' "$name" "$file" "$target" "$result" >>"$TABLE"
    printf '%-22s %-24s %s\n' "$name" "$target" "$result" >&2
}

# --- the mutants -------------------------------------------------------
# tools/check-mutants.sh runs what lies between this line and "the
# table" below, without building, to find an edit that no longer applies.

OLD='        uint64_t first = (top + 2 + 1) & ~(uint64_t)1;   /* next even */'
NEW='        uint64_t first = top + 2;   /* next even */'
mutant first-index-odd lib/engine/engine.c unit:test_engine

OLD='        r->in_order = r->kind == REC_SIZE && r->len && (r->data[0] & SIZE_IN_ORDER);
        j->n_recs++;'
NEW='        r->in_order = r->kind == REC_SIZE && r->len && (r->data[0] & SIZE_IN_ORDER);
        if (pos == body)
            break;   /* the last record checked, then skipped */
        j->n_recs++;'
mutant journal-last-record lib/commit/journal_read.c unit:test_journal

OLD='        if (!nalloc) {'
NEW='        if (0 && !nalloc) {'
mutant cell-merge-next lib/regf/cell.c unit:test_regf_write

OLD='        if (!palloc && prev + ps == off) {'
NEW='        if (0 && !palloc && prev + ps == off) {'
mutant cell-merge-prev lib/regf/cell.c unit:test_regf_write

OLD='    snprintf(s->services, sizeof s->services, "ControlSet%03u\\Services",
             current);'
NEW='    snprintf(s->services, sizeof s->services, "ControlSet%03u\\Services",
             1u);'
mutant control-set-001 lib/store/hive_layout.c unit:test_engine_hive

OLD='                (s->syswow64 && stage_dat(p, s->syswow64, c, s->system32)))'
NEW='                (0 && s->syswow64 && stage_dat(p, s->syswow64, c, s->system32)))'
mutant syswow64-unwritten lib/store/hive_stage.c cli:install_hive.sh

OLD='        if (take_range(&w[i], 0, plan->first_counter, plan->last_counter) ||'
NEW='        if (take_range(&w[i], 0, plan->first_counter, plan->last_counter - 2) ||'
mutant uninstall-one-short lib/engine/engine.c unit:test_engine

OLD='    return get32(t + 16) == rt_crc32(0, b, *body);'
NEW='    return get32(t + 16) == get32(t + 16);'
mutant journal-crc-skipped lib/commit/journal_read.c unit:test_journal

OLD='    if (v == 0)
        return RT_MSZ_INDEX_ZERO;'
NEW='    if (v == 0 && 0)
        return RT_MSZ_INDEX_ZERO;'
mutant multi-sz-index-zero lib/model/multi_sz.c unit:test_multi_sz

OLD='           va == vb;'
NEW='           (va & 0xff) == (vb & 0xff);'
mutant lang-primary-only lib/model/lang_id.c unit:test_lang_id

OLD='    uint32_t v = held ? out->found_at : old;'
NEW='    uint32_t v = held ? last : old;'
mutant last-counter-kept-high lib/engine/engine.c unit:test_engine

OLD='    if (base > v) {'
NEW='    if (base > v && 0) {'
mutant last-below-base-index lib/engine/engine.c unit:test_engine

OLD='        uint64_t top = top_c > top_h - 1 ? top_c : top_h - 1;'
NEW='        uint64_t top = top_c;'
mutant top-ignores-last-help lib/engine/engine.c unit:test_engine

OLD='    if (c->n_intents) {
        struct rt_error e2 = {0};'
NEW='    if (0 && c->n_intents) {
        struct rt_error e2 = {0};'
mutant failed-commit-keeps-fresh lib/commit/commit_run.c unit:test_store_hive

OLD='    return regf_value_list(h, key, values, n);'
NEW='    int rc = regf_value_list(h, key, values, n);
    if (!rc && *n > 3)
        --*n;   /* the last value of a key unread */
    return rc;'
mutant reader-drops-value lib/regf/value.c unit:test_regf_referees

OLD='    while (rt_os_trylock(l->fd, shared) != 0) {'
NEW='    while (0 && rt_os_trylock(l->fd, shared) != 0) {'
mutant writers-unlocked lib/commit/writer_lock.c cli:concurrent.sh

OLD='    size_t ilen = intent_len(b, len);'
NEW='    size_t ilen = intent_len(b, len);
    if (!ilen)   /* an empty journal taken for a damaged one */
        return refuse(j->path, e, "no whole intent block");'
mutant empty-journal-refused lib/commit/journal_read.c cli:crash_sweep.sh

OLD='    if (rt_io_unlink(j->path) != 0 || rt_io_fsync_dir_of(j->path) != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", j->path,
                            rt_os_strerror(errno));
    return j->info.sealed;'
NEW='    return j->info.sealed;'
OLD2='        return -1;
    if (j->info.sealed) {
        if (apply_body(base_dir, j, e) != 0)'
NEW2='        return -1;
    /* removed before it is replayed */
    if (rt_io_unlink(j->path) != 0 || rt_io_fsync_dir_of(j->path) != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", j->path,
                            rt_os_strerror(errno));
    if (j->info.sealed) {
        if (apply_body(base_dir, j, e) != 0)'
mutant journal-removed-first lib/commit/journal_replay.c cli:crash_sweep.sh

OLD='        if (hc > top_c)
            top_c = hc;'
NEW='        if (hc > top_c && !(hc & 1))   /* odd names taken for help */
            top_c = hc;'
mutant odd-counter-index-ignored lib/engine/engine.c unit:test_engine

OLD='    for (int i = 0; i < 1 + RT_REGF_LOG_SLOTS && rc == 0; i++) {'
NEW='    for (int i = 0; i < 1 && rc == 0; i++) {   /* the logs not copied */'
mutant log-backup-skipped lib/store/hive_commit.c cli:crash_sweep.sh

OLD='        size_t end = rt_msz_pairs_end(t->v, j);'
NEW='        size_t end = rt_msz_pairs_end(t->v, j) - 2;   /* its NUL kept */'
mutant splice-cut-short lib/engine/engine.c unit:test_engine

OLD='    uint32_t keep = (uint32_t)(edits[0].at / RT_REGF_SEGMENT_MAX);'
NEW='    uint32_t keep = (uint32_t)(edits[0].at / RT_REGF_SEGMENT_MAX + 1);'
mutant splice-keeps-edited-segment lib/regf/write_value.c unit:test_regf_write

OLD='        if (rt_lang_is_current(ids[i]))
            tail.keep[RT_TABLE_COUNTER] = 0;'
NEW='        if (rt_lang_is_current(ids[i]))
            tail.keep[RT_TABLE_COUNTER] = 1;'
mutant counter-tail-with-current lib/engine/database.c unit:test_engine_hive

OLD='        int keep = p > last ||
                   (p / 64 < h->changed_words &&
                    (h->changed[p / 64] >> (p % 64) & 1));'
NEW='        int keep = p > last;'
mutant release-changed-page lib/regf/cell.c unit:test_regf_write

OLD='    if (last >= file_pages)
        last = file_pages - 1;'
NEW='    (void)file_pages;'
mutant release-growth-room lib/regf/cell.c unit:test_regf_write

OLD='        if (sv.fd >= 0)
            rt_os_saving_abandon(&sv);
        return -1;'
NEW='        if (sv.fd >= 0)
            rt_os_close(sv.fd);
        return -1;'
mutant backup-refused-leaves-part lib/ops/save_backup.c cli:backup_promises.sh

OLD='        if (rt_lang_is_current(l->id))
            continue;
        rt_progress_report("saving languages", i, db->n_langs);'
NEW='        rt_progress_report("saving languages", i, db->n_langs);'
mutant backup-stream-current-language lib/engine/backup_plan.c unit:test_backup

OLD='    if (src->n == t->n)
        return rt_pair_list_copy(dst, src);'
NEW='    if (1)
        return rt_pair_list_copy(dst, src);'
mutant backup-salvage-undecoded-empty lib/engine/backup_plan.c unit:test_backup

OLD='        rc = write_backup(s, &db, file, force, 1, 1,'
NEW='        rc = write_backup(s, &db, file, force, 0, 1,'
mutant backup-damaged-refused regtool/cli_backup.c cli:backup_promises.sh

OLD='    if (rt_repair_decoded(w, k) != 0)
        return -1;
    w->changed[k] = 1;'
NEW='    if (rt_repair_decoded(w, k) != 0)
        return -1;
    w->changed[k] = 0;'
mutant repair-change-unmarked lib/engine/repair_plan.c unit:test_repair

OLD='        if (nx == ny && (!nx || !memcmp(x->blob, y->blob, nx)))'
NEW='        if (nx == ny)'
mutant repair-mirror-by-length lib/engine/repair_fill.c unit:test_repair

OLD='    if (d == n)
        return 0;
    if (rt_repair_decoded(w, k) != 0)'
NEW='    if (d <= n)
        return 0;
    if (rt_repair_decoded(w, k) != 0)'
mutant repair-duplicates-unseen lib/engine/repair_plan.c unit:test_repair

OLD='    return at < n && ix[at] == x;'
NEW='    return at + 1 < n && ix[at] == x;'
mutant repair-fill-misses-last lib/engine/repair_plan.c unit:test_repair

OLD='                                    : w->l->tab[k].highest;'
NEW='                                    : 0;'
mutant repair-highest-of-decoded-only lib/engine/repair_emit.c unit:test_repair

OLD='        if (en && rt_repair_decoded(en, 0) != 0)'
NEW='        if (en && 0)'
mutant repair-base-index-undecoded lib/engine/repair_emit.c unit:test_repair

OLD='        int here = s && keep && !l->loaded;'
NEW='        int here = s && keep && !l->loaded && !sec;'
mutant restore-unread-language lib/engine/backup_plan.c unit:test_backup

OLD='                                     : rt_msz_pairs_end(t->v, t->n)) <= p)'
NEW='                                     : rt_msz_pairs_end(t->v, t->n)) <= p + 2)'
mutant restore-splice-past-agreement lib/engine/database.c unit:test_backup

OLD='        keep->tab[k] = read->tab[k];'
NEW='        rt_table_free(&read->tab[k]);'
mutant restore-drops-spliced-tail lib/engine/backup_plan.c cli:backup_restore.sh

OLD='            data[p + n - 1] <= 0xDB)
            n -= 2;'
NEW='            data[p + n - 1] <= 0xDB)
            n -= 0;'
mutant psb-piece-splits-pair lib/model/perf_backup.c unit:test_perf_backup

OLD='            while (whole > fresh && buf[whole - 1] != '"'"'\n'"'"')'
NEW='            while (0)'
mutant psb-piece-reads-part-line lib/model/perf_backup.c unit:test_perf_backup

OLD='    if (c == '"'"'['"'"')
        return 1;'
NEW='    if (c == '"'"'['"'"')
        return memchr(s, '"'"']'"'"', (size_t)(end - s)) != NULL;'
mutant psb-text-header-needs-bracket lib/model/perf_backup_text.c unit:test_psb_text

OLD='    if (n && text[n - 1] =='
NEW='    if (0 && n && text[n - 1] =='
mutant psb-text-trailing-lf-kept lib/model/perf_backup_text.c unit:test_psb_text

OLD='        if (r->kind == REC_SIZE && !r->in_order && r->offset > j->grow_to[k])'
NEW='        if (r->kind == REC_SIZE && r->offset > j->grow_to[k])'
mutant journal-in-order-grown-first lib/commit/journal_read.c unit:test_journal

OLD='    if (rt_target_finish(&t, e) != 0)
        goto fail;
    return rt_dir_syncs_flush(&dirs, e);'
NEW='    if (rt_target_finish(&t, e) != 0)
        goto fail;
    rt_dir_syncs_free(&dirs);
    return 0 && rt_dir_syncs_flush(&dirs, e);'
mutant journal-removals-not-durable lib/commit/journal_replay.c unit:test_journal

OLD='        if (t.fd >= 0 && sized &&'
NEW='        if (0 && t.fd >= 0 && sized &&'
mutant journal-fresh-lengthened-late lib/commit/commit_run.c unit:test_journal

# Both eight-byte steps, validating's (ascii_run) and converting's.
OLD='        memcpy(&w, u + i, 8);
        if (w & 0x8080808080808080u)'
NEW='        memcpy(&w, u + i, 8);
        if (w & 0x8080808080808000u)'
OLD2='            if (w & 0x8080808080808080u)'
NEW2='            if (w & 0x8080808080808000u)'
mutant utf8-ascii-step-blind lib/model/utf16.c unit:test_utf16

OLD='        same = !memcmp(m.data + off, data + off, k);'
NEW='        same = !memcmp(m.data + off, data + off, 0 * k);'
mutant syswow64-stale-copy-spliced lib/store/hive_commit.c cli:table_copies.sh

OLD='    return c < 0x20 || (c >= 0x7F && c <= 0x9F) ||'
NEW='    return c < 0x20 || c == 0x7F ||'
mutant c1-controls-printed lib/model/printable.c unit:test_printable

# Wine's blanks (space, tab, CR, LF, VT, FF, 0x1A), not Windows' (every
# character up to ' ').
OLD='    return c != 0 && c <= '"'"' '"'"';'
NEW='    return c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A || c == 0x0B ||
           c == 0x0C || c == 0x1A;'
mutant ini-control-not-blank lib/provider/ini_reader.c unit:test_ini_reader

OLD='        if (text_end >= even) {'
NEW='        if (0 && text_end >= even) {'
mutant salvage-keeps-cut-text lib/model/multi_sz.c unit:test_multi_sz

OLD='    rl->base_differ = b.differ;'
NEW='    rl->base_differ = 0 * b.differ;'
mutant restore-base-texts-unchecked lib/engine/backup_plan.c unit:test_backup

OLD='            if (!same_text(p, q))'
NEW='            if (0 && !same_text(p, q))'
mutant diff-other-text-unseen lib/engine/diff.c unit:test_diff

OLD='    if (lo && index <= v[lo - 1].hi)'
NEW='    if (lo && index < v[lo - 1].hi)'
mutant diff-range-end-unowned lib/engine/diff.c unit:test_diff

OLD='        at_a, at_b, (uint8_t)kind, (uint8_t)cls, index <= d->base_index};'
NEW='        at_a, at_b, (uint8_t)kind, (uint8_t)cls, index < d->base_index};'
mutant diff-base-index-extensible lib/engine/diff.c unit:test_diff

OLD='        what |= RT_DIFF_PROV_DISABLE;'
NEW='        what |= 0;'
mutant diff-disable-unseen lib/engine/diff.c unit:test_diff

OLD='        n += !d->langs[i].a || !d->langs[i].b;'
NEW='        n += 0;'
mutant diff-language-alone-unseen lib/engine/diff.c unit:test_diff

OLD='    if (has_version[0] && has_version[1])'
NEW='    if (0 && has_version[0] && has_version[1])'
mutant diff-version-unseen lib/ops/store_diff.c cli:diff.sh

OLD='    for (int k = 0; k < 2; k++) {
        const struct view *w = k ? &v->help : &v->counter;
        for (size_t i = 1; i < w->n; i++) {'
NEW='    for (int k = 0; k < 1; k++) {   /* Help tables not looked at */
        const struct view *w = k ? &v->help : &v->counter;
        for (size_t i = 1; i < w->n; i++) {'
mutant audit-duplicates-counter-only lib/engine/audit_checks.c unit:test_audit

OLD='            if (dedupe(&rp, &rp.w[i], k) != 0)'
NEW='            if (!k && dedupe(&rp, &rp.w[i], k) != 0)'
mutant repair-dedupe-counter-only lib/engine/repair_plan.c unit:test_repair

OLD='        ADD(a, "provider-strings-missing", RT_AUDIT_ERROR, a->lv[l].l->id,'
NEW='        ADD(a, "provider-strings-missing", RT_AUDIT_WARNING, a->lv[l].l->id,'
mutant audit-strings-missing-warning lib/engine/audit_providers.c unit:test_audit

OLD='            ADD(a, "perfinifile-invalid", RT_AUDIT_WARNING, NULL,'
NEW='            ADD(a, "perfinifile-invalid", RT_AUDIT_INFO, NULL,'
mutant audit-perfinifile-info lib/engine/audit_providers.c unit:test_audit

OLD='                    x > base ? RT_AUDIT_WARNING : RT_AUDIT_INFO, id,'
NEW='                    x > base ? RT_AUDIT_WARNING : RT_AUDIT_WARNING, id,'
mutant audit-parity-below-base-warning lib/engine/audit_checks.c unit:test_audit

OLD='        span <= svc->last_counter - svc->first_counter &&'
NEW='        span < svc->last_counter - svc->first_counter &&'
mutant replace-same-size-moves lib/engine/engine.c unit:test_engine

OLD='        out->first_help = svc->first_help;'
NEW='        out->first_help = svc->first_help + 2 * (span == 0);'
mutant replace-first-help-moves lib/engine/engine.c unit:test_engine

OLD='    out->perflib_last_counter = rq->last_counter > out->last_counter
                                    ? rq->last_counter
                                    : out->last_counter;'
NEW='    out->perflib_last_counter = out->last_counter;'
mutant install-last-counter-down lib/engine/engine.c unit:test_engine

OLD='    out->perflib_last_help = rq->last_help > out->last_help ? rq->last_help
                                                            : out->last_help;'
NEW='    out->perflib_last_help = out->last_help;'
mutant install-last-help-down lib/engine/engine.c unit:test_engine

OLD='                    !rt_spans_have(spans[k], n_spans[k], x)) {'
NEW='                    !rt_spans_have(spans[k], n_spans[k], x + 2)) {'
mutant prune-last-pair-orphan lib/engine/repair_plan.c unit:test_repair

OLD='                    !rt_spans_have(spans[k], n_spans[k], x)) {'
NEW='                    !rt_spans_have(spans[k], n_spans[k], x - 2)) {'
mutant prune-keeps-pair-past-range lib/engine/repair_plan.c unit:test_repair

OLD='    while (rt_os_trylock(l->fd, shared) != 0) {'
NEW='    while (rt_os_trylock(l->fd, 0) != 0) {   /* readers exclusive */'
mutant readers-lock-exclusive lib/commit/writer_lock.c cli:readers_share_lock.sh

OLD='    uint32_t seq = (s1 > s2 ? s1 : s2) + 1;'
NEW='    uint32_t seq = (s1 > s2 ? s2 : s1) + 1;   /* the lower one */'
mutant seal-from-lower-number lib/regf/handle.c unit:test_regf_write

OLD='    regf_put32(b + REGF_OFF_SEQ2, seq);
    regf_put64(b + REGF_OFF_TIMESTAMP, regf_now_filetime());'
NEW='    regf_put32(b + REGF_OFF_SEQ2, s2 + 1);
    regf_put64(b + REGF_OFF_TIMESTAMP, regf_now_filetime());'
mutant seal-secondary-own-step lib/regf/handle.c unit:test_regf_write

# --- the table ---------------------------------------------------------

for n in $ONLY; do
    grep -q "^| $n |" "$TABLE" || { echo "mutants: no mutant named $n" >&2; exit 2; }
done

echo
echo "| mutant | planted in | test | result |"
echo "|---|---|---|---|"
cat "$TABLE"
[ $status -eq 0 ] && echo "all $(wc -l <"$TABLE") mutants caught" ||
    echo "some mutants were NOT CAUGHT"
exit $status
