/* The install/uninstall suite on the in-memory store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine_suite.h"
#include "engine/audit.h"
#include "engine/change_budget.h"
#include "engine/overlay.h"
#include "engine/side_files.h"

static struct rt_store *mem_open(void *ctx)
{
    (void)ctx;
    return rt_store_mem_new();
}

static char *mem_exact(struct rt_store *s, void *ctx)
{
    (void)ctx;
    return rt_store_mem_dump(s);
}

static int has_finding(const struct rt_findings *f, const char *id,
                       const char *lang)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(rt_finding_id(&f->v[i]), id) &&
            (!lang || (f->v[i].language && !strcmp(f->v[i].language, lang))))
            return 1;
    return 0;
}

/* A language the store serves fixed (Wine's Perflib\009 stub) is left
 * alone by install and uninstall, which write every other language and
 * say why that one was not; audit says so once (info) instead of taking
 * its missing strings for damage. */
static void fixed_language_is_left_alone(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    rt_store_mem_set_fixed(s, "009");
    struct rt_database db = load(s);
    const struct rt_db_language *en = rt_database_language(&db, "009");
    assert_true(en->fixed);
    assert_non_null(strstr(en->fixed_why, "served fixed"));
    size_t en_counter = en->tab[0].len, en_help = en->tab[1].len;
    rt_database_free(&db);
    char *before = snapshot_content(s);

    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 3);
    struct rt_install_plan plan;
    struct rt_error e = {0};
    assert_int_equal(install(s, sp, 0, &plan, &e), 0);
    int seen_fixed = 0, seen_ru = 0;
    for (size_t i = 0; i < plan.n_langs; i++) {
        if (!strcmp(plan.langs[i].lang, "009")) {
            assert_non_null(strstr(plan.langs[i].fixed, "served fixed"));
            seen_fixed = 1;
        } else {
            assert_string_equal(plan.langs[i].fixed, "");
            seen_ru |= !strcmp(plan.langs[i].lang, "019");
        }
    }
    assert_true(seen_fixed && seen_ru);
    db = load(s);
    en = rt_database_language(&db, "009");
    assert_int_equal(en->tab[0].len, en_counter);
    assert_int_equal(en->tab[1].len, en_help);
    assert_null(rt_pair_list_find(&en->table.counter, plan.first_counter));
    assert_non_null(rt_pair_list_find(
        &rt_database_language(&db, "019")->table.counter, plan.first_counter));
    struct rt_findings f = {0};
    assert_int_equal(rt_audit(&db, NULL, &f), 0);
    assert_true(has_finding(&f, "language-fixed", "009"));
    assert_false(has_finding(&f, "english-missing", NULL));
    assert_false(has_finding(&f, "provider-strings-missing", NULL));
    assert_int_equal(f.errors, 0);
    rt_findings_free(&f);
    rt_database_free(&db);
    rt_install_plan_free(&plan);

    assert_int_equal(uninstall(s, "Transfer", 0, &e), 0);
    char *after = snapshot_content(s);
    assert_string_equal(before, after);
    free(before);
    free(after);
    free_spec(sp);
    s->ops->close(s);
}

static void put_string(struct rt_store *s, const char *svc, const char *name,
                       const char *text)
{
    struct rt_value v;
    rt_value_from_string(&v, RT_REG_SZ, text);
    put_service_value(s, svc, name, &v);
    rt_value_free(&v);
}

/* rt_op_install with the options install's trust checks read. */
static int install_opt(struct rt_store *s, const char *driver, int replace,
                       int force, const char *create_library,
                       struct rt_error *e)
{
    struct rt_provider_spec *sp = make_spec(driver, en_ru, 2, 3);
    struct rt_install_options opt = {.replace = replace, .force = force};
    if (create_library) {
        opt.create_service = 1;
        opt.library = create_library;
        opt.open = "O";
        opt.collect = "C";
        opt.close = "X";
    }
    struct rt_change_set cs;
    struct rt_install_plan plan;
    int r = rt_op_install(s, sp, &opt, 0, &cs, &plan, e);
    if (r == 0) {
        rt_change_set_free(&cs);
        rt_install_plan_free(&plan);
    }
    free_spec(sp);
    return r;
}

/* Refused with CODE, the message holding WANT, the store unchanged. */
static void expect_refused(struct rt_store *s, const char *driver,
                           int replace, const char *create_library, int code,
                           const char *want)
{
    char *before = snapshot_exact(s);
    struct rt_error e = {0};
    assert_int_equal(install_opt(s, driver, replace, 0, create_library, &e),
                     -1);
    if (e.code != code || !strstr(e.message, want))
        print_message("%s: %d %s\n", driver, e.code, e.message);
    assert_int_equal(e.code, code);
    assert_non_null(strstr(e.message, want));
    char *after = snapshot_exact(s);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

/* An INI onto one of the system's providers is refused without --force,
 * whatever the case of its drivername; a third-party service whose
 * installer wrote the Library first (the usual order) installs as ever. */
static void system_providers_are_refused(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    put_service(s, "PerfOS");
    put_string(s, "PerfOS", "Object List", "2 4 86 238");
    put_service(s, "Vendor");
    put_string(s, "Vendor", "Object List", "238");   /* base objects */
    put_service(s, "Low");
    put_range(s, "Low", 100, 104, 101, 105);
    put_service(s, "Spooler");                         /* by its name */
    expect_refused(s, "PerfOS", 0, NULL, RT_ERR_ALREADY_EXISTS,
                   "one of Windows' built-in providers");
    expect_refused(s, "perfos", 0, NULL, RT_ERR_ALREADY_EXISTS,
                   "onto service 'PerfOS' (the INI's drivername 'perfos'");
    expect_refused(s, "PERFOS", 0, "C:\\Users\\Public\\evil.dll",
                   RT_ERR_ALREADY_EXISTS, "would replace its Library");
    expect_refused(s, "Vendor", 0, NULL, RT_ERR_ALREADY_EXISTS,
                   "Object List (238) names objects of the system's base");
    expect_refused(s, "low", 1, NULL, RT_ERR_ALREADY_EXISTS,
                   "lies in the system's base range");
    expect_refused(s, "Spooler", 0, NULL, RT_ERR_ALREADY_EXISTS, "--force");
    struct rt_error e = {0};
    assert_int_equal(install_opt(s, "Transfer", 0, 0, NULL, &e), 0);
    /* --force installs onto it; a second install still needs it. */
    assert_int_equal(install_opt(s, "PerfOS", 0, 1, NULL, &e), 0);
    expect_refused(s, "PerfOS", 1, NULL, RT_ERR_ALREADY_EXISTS,
                   "with a range lodctr gave it");
    assert_int_equal(install_opt(s, "PerfOS", 1, 1, NULL, &e), 0);
    s->ops->close(s);
}

/* --create-service never replaces a service's Library without --force. */
static void create_service_keeps_a_library(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    expect_refused(s, "Transfer", 0, "C:\\Users\\Public\\evil.dll",
                   RT_ERR_ALREADY_EXISTS,
                   "already has a Library (%SystemRoot%\\prov.dll)");
    struct rt_error e = {0};
    /* The same DLL (names ignore case) is no replacement. */
    assert_int_equal(
        install_opt(s, "Transfer", 0, 0, "%systemroot%\\PROV.DLL", &e), 0);
    assert_int_equal(
        install_opt(s, "Transfer", 1, 1, "C:\\Vendor\\new.dll", &e), 0);
    struct rt_service_info si;
    assert_int_equal(rt_service_load(s, "Transfer", &si, &e), 0);
    assert_string_equal(si.library, "C:\\Vendor\\new.dll");
    rt_service_info_free(&si);
    /* A new service gets its Library with nothing to ask. */
    assert_int_equal(install_opt(s, "Fresh", 0, 0, "fresh.dll", &e), 0);
    s->ops->close(s);
}

/* A drivername that cannot name the INF folder is refused as input,
 * even with --force. */
static void names_that_become_paths(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    expect_refused(s, "a:b", 0, "x.dll", RT_ERR_INVALID_DATA,
                   "drivername 'a:b' cannot name the INF folder");
    expect_refused(s, "Transfer.", 0, "x.dll", RT_ERR_INVALID_DATA,
                   "ends in a dot or a blank");
    struct rt_error e = {0};
    assert_int_equal(install_opt(s, "CON", 0, 1, "x.dll", &e), -1);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    assert_non_null(strstr(e.message, "device name"));
    s->ops->close(s);

    static const char *const bad[] = {
        "", ".", "..", "a/b.ini", "a\\b.ini", "C:x.ini", "x:stream",
        "a\x01.ini", "x.ini.", "x.ini ", "NUL", "nul.ini", "COM1.ini",
        "lpt9", "a|b.ini", "a?.ini", "a*.ini", "a<b", "\"a\"",
        /* Reserved too (review 42 R42-11): 0, the superscripts, the
         * console's own. */
        "COM0.ini", "lpt0", "COM\xc2\xb9", "LPT\xc2\xb3.ini",
        "com\xc2\xb2 .x", "CONIN$", "conout$.ini",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (!rt_win_name_problem(bad[i]))
            print_message("accepted: '%s'\n", bad[i]);
        assert_non_null(rt_win_name_problem(bad[i]));
    }
    static const char *const good[] = {
        "acme.ini", "Acme Perf.INI", "...x", "CONSOLE.ini", "COM10.ini",
        "nul2.ini", "COM\xc2\xb4.ini", "LPT\xc2\xb9x", "CONIN", "CONOUT$x",
        "\xd0\xbf\xd1\x80\xd0\xbe.ini",
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        if (rt_win_name_problem(good[i]))
            print_message("refused: '%s'\n", good[i]);
        assert_null(rt_win_name_problem(good[i]));
    }
    char longest[300];
    memset(longest, 'a', 255);
    longest[255] = '\0';
    assert_null(rt_win_name_problem(longest));
    strcat(longest, "b");
    assert_non_null(rt_win_name_problem(longest));
    char shown[32];
    rt_side_name_shown("a\x1b[31m'.ini", shown, sizeof shown);
    assert_string_equal(shown, "a\\x1b[31m\\x27.ini");
    rt_side_name_shown("abcdefghijklmnopqrstuvwxyz0123456789", shown,
                       sizeof shown);
    assert_int_equal(strlen(shown), sizeof shown - 1);
    assert_string_equal(shown + strlen(shown) - 4, "1...");
}

/* A PerfIniFile that is not one file name does not stop uninstall: the
 * ranges and values go, and the plan says which INF copy was not looked
 * for. */
static void uninstall_goes_on_past_a_bad_perfinifile(void **state)
{
    (void)state;
    static const char *const bad[] = {"..", ".", "C:\\x.ini", "a\x1b.ini"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct rt_store *s = base_store();
        struct rt_error e = {0};
        assert_int_equal(install_opt(s, "Transfer", 0, 0, NULL, &e), 0);
        put_string(s, "Transfer", "PerfIniFile", bad[i]);
        struct rt_uninstall_plan p;
        assert_int_equal(uninstall_plan(s, "Transfer", 0, 0, &p, &e), 0);
        print_message("%s\n", p.side_skipped);
        assert_non_null(strstr(p.side_skipped, "PerfIniFile '"));
        assert_non_null(strstr(p.side_skipped, "INF\\Transfer\\"));
        assert_null(strchr(p.side_skipped, '\x1b'));
        struct rt_service_info si;
        assert_int_equal(rt_service_load(s, "Transfer", &si, &e), 0);
        assert_false(si.has_range);
        assert_null(si.ini_file);
        rt_service_info_free(&si);
        s->ops->close(s);
    }
    struct rt_store *s = base_store();
    struct rt_error e = {0};
    assert_int_equal(install_opt(s, "Transfer", 0, 0, NULL, &e), 0);
    struct rt_uninstall_plan p;
    assert_int_equal(uninstall_plan(s, "Transfer", 0, 0, &p, &e), 0);
    assert_string_equal(p.side_skipped, "");
    s->ops->close(s);
}

/* A range that starts at index 1 (damaged: it lies on the base range;
 * only --force removes it) has no "First Counter - 2" to go back to:
 * Last Counter, which it held, goes to the highest name left, never past
 * the index space's end. */
static void uninstall_of_a_range_from_index_1(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    put_range(s, "Transfer", 1, 3, 2, 4);
    put_dword(s, "Last Counter", 3);
    put_dword(s, "Last Help", 4);
    struct rt_error e = {0};
    struct rt_uninstall_plan p;
    assert_int_equal(uninstall_plan(s, "Transfer", 1, 1, &p, &e), 0);
    assert_true(p.counter.on_top);
    assert_int_equal(p.counter.found_at, 0);
    assert_int_equal(p.counter.rule, RT_LAST_HIGHEST);
    assert_int_equal(p.counter.new_value, 1846);
    assert_int_equal(p.help.found_at, 0);
    assert_int_equal(p.help.new_value, 1847);
    assert_non_null(strstr(p.counter.why, "Last Counter 3 -> 1846"));
    s->ops->close(s);
}

/* A store with provider SVC of the range FC-LC, FH-LH, and Perflib's
 * Last Counter and Last Help at LAST and LAST + 1. */
static struct rt_store *with_provider(const char *svc, uint32_t fc,
                                      uint32_t lc, uint32_t fh, uint32_t lh,
                                      uint32_t last)
{
    struct rt_store *s = base_store();
    put_service(s, svc);
    put_range(s, svc, fc, lc, fh, lh);
    put_dword(s, "Last Counter", last);
    put_dword(s, "Last Help", last + 1);
    return s;
}

/* A provider of one counter on top: Last Counter and Last Help are its
 * first (and last) indices, within its range, so it is on top and they
 * go down to what lies below it. */
static void uninstall_of_a_one_counter_provider_on_top(void **state)
{
    (void)state;
    struct rt_store *s = with_provider("One", 3992, 3992, 3993, 3993, 3992);
    struct rt_error e = {0};
    struct rt_uninstall_plan p;
    assert_int_equal(uninstall_plan(s, "One", 1, 1, &p, &e), 0);
    assert_true(p.counter.on_top);
    assert_true(p.help.on_top);
    assert_int_equal(p.counter.found_at, 3990);
    assert_int_equal(p.counter.new_value, 3990);
    assert_int_equal(p.help.new_value, 3991);
    assert_non_null(strstr(p.counter.why, "was on top"));
    s->ops->close(s);
}

/* A range above Last Counter and Last Help, the highest of all (a
 * provider planted near 2^32): on top, but the values stay where they
 * lie, never raised to First - 2 (which would leave no room for any
 * install); another provider's range above them still raises them. */
static void uninstall_never_raises_a_value_that_lies_low(void **state)
{
    (void)state;
    struct rt_store *s = with_provider("Hi", 4294967290u, 4294967292u,
                                       4294967291u, 4294967293u, 3990);
    struct rt_error e = {0};
    struct rt_uninstall_plan p;
    assert_int_equal(uninstall_plan(s, "Hi", 1, 1, &p, &e), 0);
    assert_true(p.counter.on_top);
    assert_int_equal(p.counter.rule, RT_LAST_KEPT);
    assert_int_equal(p.counter.new_value, 3990);
    assert_int_equal(p.help.new_value, 3991);
    assert_non_null(strstr(p.counter.why, "Last Counter 3990 unchanged"));
    assert_non_null(strstr(p.counter.why, "never raises it"));
    s->ops->close(s);

    /* Another provider also above the values (planted, or left by a
     * broken tool: an error audit says) is no floor either. */
    s = with_provider("Hi", 5000, 5002, 5001, 5003, 3990);
    put_service(s, "Mid");
    put_range(s, "Mid", 4000, 4002, 4001, 4003);
    assert_int_equal(uninstall_plan(s, "Hi", 1, 1, &p, &e), 0);
    assert_int_equal(p.counter.rule, RT_LAST_KEPT);
    assert_int_equal(p.counter.new_value, 3990);
    assert_int_equal(p.help.new_value, 3991);
    s->ops->close(s);
}

/* A provider planted above Last Counter (at 2,000,000,000, and near
 * 2^32): an install goes above Last Counter, and its uninstall gives
 * Last Counter and Last Help back exactly, never raised to the planted
 * range's end (review 34 F4: no install found room after). */
static void install_and_uninstall_beside_a_planted_range(void **state)
{
    (void)state;
    static const uint32_t planted[] = {2000000000u, 4294967290u};
    for (size_t i = 0; i < 2; i++) {
        struct rt_store *s = base_store();
        put_service(s, "Hi");
        put_range(s, "Hi", planted[i], planted[i] + 2, planted[i] + 1,
                  planted[i] + 3);
        struct rt_database db = load(s);
        uint32_t lc = db.last_counter, lh = db.last_help;
        rt_database_free(&db);
        struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 3);
        struct rt_error e = {0};
        assert_int_equal(install(s, sp, 0, NULL, &e), 0);
        assert_int_equal(uninstall(s, "Transfer", 0, &e), 0);
        db = load(s);
        assert_int_equal(db.last_counter, lc);
        assert_int_equal(db.last_help, lh);
        rt_database_free(&db);
        free_spec(sp);
        s->ops->close(s);
    }
}

/* The index allocation of an install, on its own (docs/design.md,
 * "Allocating indices"). */
static struct rt_index_allocation allocate(uint32_t last_counter,
                                           uint32_t last_help,
                                           uint32_t highest_counter,
                                           uint32_t highest_help,
                                           const struct rt_service_info *old,
                                           uint32_t span)
{
    struct rt_index_request rq = {last_counter, last_help, highest_counter,
                                  highest_help, old, span + 1, span};
    struct rt_index_allocation at;
    struct rt_error e = {0};
    assert_int_equal(rt_engine_allocate_indices(&rq, &at, &e), 0);
    assert_int_equal(e.code, 0);
    return at;
}

/* A fresh install takes the first even index above Last Counter, Last
 * Help - 1 and every table's highest index, whichever is highest; its
 * help index is the next one; Perflib's values rise to its range. */
static void allocation_takes_a_fresh_range_on_top(void **state)
{
    (void)state;
    struct rt_index_allocation at = allocate(1846, 1847, 1846, 1847, NULL, 4);
    assert_int_equal(at.first_counter, 1848);
    assert_int_equal(at.first_help, 1849);
    assert_int_equal(at.last_counter, 1852);
    assert_int_equal(at.last_help, 1853);
    assert_int_equal(at.kept_position, 0);
    assert_int_equal(at.perflib_last_counter, 1852);
    assert_int_equal(at.perflib_last_help, 1853);
    /* A table holding more than Last Counter says: the table counts. */
    at = allocate(1846, 1847, 2000, 1847, NULL, 0);
    assert_int_equal(at.first_counter, 2002);
    assert_int_equal(at.last_counter, 2002);
    assert_int_equal(at.perflib_last_counter, 2002);
    /* Last Help above Last Counter: the range starts above it. */
    at = allocate(1846, 2101, 1846, 1847, NULL, 2);
    assert_int_equal(at.first_counter, 2102);
    assert_int_equal(at.first_help, 2103);
    assert_int_equal(at.perflib_last_help, 2105);
}

/* Whatever the highest index, odd (a counter some tool gave an odd
 * index) or even, the range starts on an even counter index with its
 * help right above, and above every index in use. */
static void allocation_pairs_even_counters_with_odd_helps(void **state)
{
    (void)state;
    for (uint32_t top = 1840; top < 1860; top++) {
        struct rt_index_allocation at = allocate(1700, 1701, top, 1701,
                                                 NULL, 6);
        assert_int_equal(at.first_counter % 2, 0);
        assert_int_equal(at.first_help, at.first_counter + 1);
        assert_true(at.first_counter > top);
        assert_true(at.first_counter <= top + 3);
        at = allocate(1700, 1701, 1700, top, NULL, 6);
        assert_int_equal(at.first_counter % 2, 0);
        assert_true(at.first_help > top);
    }
}

/* The kept position's ranges of AT (first and last counter; the help
 * indices are the next ones) and Perflib's Last Counter after it. */
static void expect_kept(const struct rt_index_allocation *at, uint32_t first,
                        uint32_t last, uint32_t perflib_last)
{
    assert_int_equal(at->kept_position, 1);
    assert_int_equal(at->first_counter, first);
    assert_int_equal(at->first_help, first + 1);
    assert_int_equal(at->last_counter, last);
    assert_int_equal(at->last_help, last + 1);
    assert_int_equal(at->perflib_last_counter, perflib_last);
    assert_int_equal(at->perflib_last_help, perflib_last + 1);
}

/* --replace keeps the first indices when the new range fits in the old
 * one (as long, or shorter), and never lowers Perflib's values, which
 * stay above a range kept below them. */
static void allocation_keeps_a_replaced_range_that_fits(void **state)
{
    (void)state;
    struct rt_service_info old = {.first_counter = 2000, .last_counter = 2010,
                                  .first_help = 2001, .last_help = 2011};
    struct rt_index_allocation at = allocate(3000, 3001, 2998, 2999, &old, 10);
    expect_kept(&at, 2000, 2010, 3000);
    /* Shorter, down to one counter. */
    at = allocate(3000, 3001, 2998, 2999, &old, 0);
    expect_kept(&at, 2000, 2000, 3000);
    /* Longer: a fresh range on top, Perflib's values raised to it. */
    at = allocate(3000, 3001, 2998, 2999, &old, 12);
    assert_int_equal(at.kept_position, 0);
    assert_int_equal(at.first_counter, 3002);
    assert_int_equal(at.last_counter, 3014);
    assert_int_equal(at.perflib_last_counter, 3014);
    assert_int_equal(at.perflib_last_help, 3015);
}

/* A replaced service whose First Counter is above its Last Counter, even
 * by one (a damaged entry), has no range to keep: the new one goes on
 * top, never at its First Counter. */
static void allocation_does_not_keep_an_inverted_range(void **state)
{
    (void)state;
    struct rt_service_info old = {.first_counter = 2012, .last_counter = 2011,
                                  .first_help = 2013, .last_help = 2021};
    struct rt_index_allocation at = allocate(3000, 3001, 2998, 2999, &old, 2);
    assert_int_equal(at.kept_position, 0);
    assert_int_equal(at.first_counter, 3002);
    assert_int_equal(at.first_help, 3003);
}

/* A range whose last help index would pass RT_INDEX_MAX is refused,
 * naming how many counters and the index they would go above; one
 * ending at it is taken. */
static void allocation_refuses_a_range_past_the_index_limit(void **state)
{
    (void)state;
    struct rt_index_request rq = {RT_INDEX_MAX - 8, RT_INDEX_MAX - 7,
                                  RT_INDEX_MAX - 8, RT_INDEX_MAX - 7, NULL,
                                  7, 6};
    struct rt_index_allocation at;
    struct rt_error e = {0};
    assert_int_equal(rt_engine_allocate_indices(&rq, &at, &e), -1);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    assert_non_null(strstr(e.message, "no room for 7 counters above index "
                                      "2147483640"));
    rq.span = 5;
    assert_int_equal(rt_engine_allocate_indices(&rq, &at, &e), 0);
    assert_int_equal(at.first_counter, RT_INDEX_MAX - 6);
    assert_int_equal(at.last_help, RT_INDEX_MAX);
}

/* A language is found by its subkey's name or, spelled otherwise, by its
 * value: 404 finds the subkey 0404 and 0804 finds 804 (a real Chinese
 * machine has four-digit subkeys; an INI or a user says 404), the
 * lowest and the highest value of the store included; a value no subkey
 * has finds nothing, nor does its neighbour. With a subkey of each
 * spelling, the one of that very name. */
/* CurrentLanguage gets the texts of the language it mirrors: the one
 * whose Counter agrees with it at its lowest index past 1, the first pair
 * of that index in table order when a hostile table holds it twice (a
 * mutation-score survivor: the last one taken, a duplicate with English's
 * text made a Russian machine's CurrentLanguage English). */
static void current_language_mirrors_by_its_first_lowest_pair(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_database db = load(s);
    const struct rt_db_language *ru = rt_database_language(&db, "019");
    const struct rt_db_language *en = rt_database_language(&db, "009");
    const struct rt_pair *en2 = rt_pair_list_find(&en->table.counter, 2);
    const struct rt_pair *ru2 = rt_pair_list_find(&ru->table.counter, 2);
    assert_non_null(en2);
    assert_non_null(ru2);
    assert_string_not_equal(en2->text, ru2->text);
    struct rt_pair_list c = {0};
    assert_int_equal(rt_pair_list_copy(&c, &ru->table.counter), 0);
    assert_int_equal(rt_pair_list_append(&c, 2, en2->text), 0);
    uint8_t *cb, *hb;
    size_t clen, hlen;
    assert_int_equal(rt_pair_list_encode(&c, &cb, &clen), 0);
    assert_int_equal(rt_pair_list_encode(&ru->table.help, &hb, &hlen), 0);
    put_tables(s, "CurrentLanguage", cb, clen, hb, hlen);
    free(cb);
    free(hb);
    rt_pair_list_free(&c);
    rt_database_free(&db);

    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 1);
    struct rt_install_plan plan;
    struct rt_error e = {0};
    assert_int_equal(install(s, sp, 0, &plan, &e), 0);
    db = load(s);
    const struct rt_pair *got = rt_pair_list_find(
        &rt_database_language(&db, "CurrentLanguage")->table.counter,
        plan.first_counter);
    assert_non_null(got);
    assert_string_equal(got->text, "Transfer 019 name 0");
    rt_database_free(&db);
    rt_install_plan_free(&plan);
    free_spec(sp);
    s->ops->close(s);
}

static void language_found_by_value_in_another_spelling(void **state)
{
    (void)state;
    struct rt_store *s = efx.open_empty(efx.ctx);
    const char *const have[] = {"009", "0404", "804", "0C0A"};
    for (size_t i = 0; i < sizeof have / sizeof *have; i++)
        put_language(s, have[i]);
    struct rt_database db = load(s);
    static const struct {
        const char *asked, *found;
    } cases[] = {
        {"009", "009"},   {"0009", "009"},
        {"404", "0404"},  {"0404", "0404"}, {"0804", "804"},
        {"804", "804"},   {"C0A", "0C0A"},  {"c0a", "0C0A"},
        {"405", NULL},    {"403", NULL},    {"0805", NULL},
        {"008", NULL},    {"C0B", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct rt_db_language *l =
            rt_database_language(&db, cases[i].asked);
        if (!cases[i].found) {
            if (l)
                fail_msg("%s found %s", cases[i].asked, l->id);
        } else if (!l || strcmp(l->id, cases[i].found)) {
            fail_msg("%s found %s, not %s", cases[i].asked,
                     l ? l->id : "nothing", cases[i].found);
        }
    }
    rt_database_free(&db);
    /* Both spellings present: each name finds its own subkey. */
    put_language(s, "0804");
    db = load(s);
    assert_string_equal(rt_database_language(&db, "0804")->id, "0804");
    assert_string_equal(rt_database_language(&db, "804")->id, "804");
    rt_database_free(&db);
    s->ops->close(s);
}

/* The view of a store after a change set (what PerfStringBackup.INI is
 * written from in the same commit) lists the store's languages, then
 * each language the change set adds once, in the order of its first
 * change (not by name): a later change to one of them, or a change to a
 * language the store has, moves nothing. */
static void overlay_lists_added_languages_in_change_order(void **state)
{
    (void)state;
    struct rt_store *s = efx.open_empty(efx.ctx);
    put_language(s, "019");
    put_language(s, "009");
    struct rt_error e = {0};
    char **under;
    size_t n_under;
    assert_int_equal(s->ops->list_languages(s, &under, &n_under, &e), 0);
    assert_int_equal(n_under, 2);

    struct rt_change_set cs = {0};
    static const char16_t text[] = u"1\0Top\0\0";
    assert_int_equal(rt_change_set_create_language(&cs, "0C0A"), 0);
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER, (const uint8_t *)text,
                                         sizeof text, NULL, NULL), 0);
    assert_int_equal(rt_change_set_table(&cs, "407", RT_TABLE_COUNTER, (const uint8_t *)text,
                                         sizeof text, NULL, NULL), 0);
    assert_int_equal(rt_change_set_create_language(&cs, "00A"), 0);
    assert_int_equal(rt_change_set_table(&cs, "0C0A", RT_TABLE_HELP, (const uint8_t *)text,
                                         sizeof text, NULL, NULL), 0);
    assert_int_equal(rt_change_set_create_language(&cs, "019"), 0);
    assert_int_equal(rt_change_set_create_language(&cs, "007"), 0);
    assert_int_equal(rt_change_set_create_language(&cs, "407"), 0);
    struct rt_store *view = rt_overlay_new(s, &cs);
    assert_non_null(view);
    char **langs;
    size_t n;
    assert_int_equal(view->ops->list_languages(view, &langs, &n, &e), 0);
    const char *const added[] = {"0C0A", "407", "00A", "007"};
    assert_int_equal(n, n_under + 4);
    for (size_t i = 0; i < n_under; i++)
        assert_string_equal(langs[i], under[i]);
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(langs[n_under + i], added[i]);
    rt_strings_free(langs, n);
    rt_strings_free(under, n_under);
    view->ops->close(view);
    rt_change_set_free(&cs);
    s->ops->close(s);
}

/* The store's services cannot be listed (a hive that cannot be read
 * there): the view after a change set says so, with the store's error,
 * rather than listing only the services the change set creates (a
 * PerfStringBackup.INI written from that would lose every other one). */
static int services_unreadable(struct rt_store *s, char ***names, size_t *n,
                               struct rt_error *e)
{
    (void)s;
    *names = NULL;
    *n = 0;
    return rt_error_set(e, RT_ERR_BADDB, "Services: cannot be read");
}

static void overlay_passes_on_a_store_that_cannot_list_services(void **state)
{
    (void)state;
    struct rt_store *s = efx.open_empty(efx.ctx);
    put_service(s, "Transfer");
    const struct rt_store_ops *ops = s->ops;
    struct rt_store_ops failing = *ops;
    failing.list_perf_services = services_unreadable;
    failing.list_perf_services_into = NULL;
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_create_perf_key(&cs, "Peer"), 0);
    struct rt_store *view = rt_overlay_new(s, &cs);
    assert_non_null(view);
    struct rt_error e = {0};
    char **names;
    size_t n;
    assert_int_equal(view->ops->list_perf_services(view, &names, &n, &e), 0);
    assert_int_equal(n, 2);
    rt_strings_free(names, n);
    s->ops = &failing;
    names = (void *)1;
    n = 9;
    assert_int_equal(view->ops->list_perf_services(view, &names, &n, &e), -1);
    assert_int_equal(e.code, RT_ERR_BADDB);
    assert_string_equal(e.message, "Services: cannot be read");
    s->ops = ops;
    view->ops->close(view);
    rt_change_set_free(&cs);
    s->ops->close(s);
}

/* The invariant of a whole-table change gives the same verdicts and the
 * same messages whether it scans the stored table or uses the index the
 * database loaded of the same bytes (and scans when the index is of
 * other bytes): a right change passes, a removed pair the table lacks,
 * a pair left out and a pair too many are each refused, as is a
 * removed pair whose text only begins with the stored one's. The removed
 * pair 4 "c" sorts after every stored pair: its search ends one past
 * the table, on the slot of the count of pairs taken that the table
 * keeps for that end (a count one short is a read past it, which only
 * the sanitizer build sees: the verdict is the same whatever it reads). */
static void whole_table_invariant_same_with_the_loaded_index(void **state)
{
    (void)state;
    static const char16_t stored[] = u"2\0a\0" u"4\0b\0" u"2\0a\0";
    static const char16_t after[] = u"2\0a\0" u"4\0b\0";
    struct rt_value before = {RT_REG_MULTI_SZ, (uint8_t *)stored,
                              sizeof stored};
    struct rt_table same = {0}, other = {0};
    struct rt_msz_error me;
    uint8_t *copy = malloc(sizeof stored), *copy2 = malloc(sizeof after);
    assert_non_null(copy);
    assert_non_null(copy2);
    memcpy(copy, stored, sizeof stored);
    memcpy(copy2, after, sizeof after);
    assert_int_equal(rt_table_load(&same, copy, sizeof stored, &me), 0);
    assert_int_equal(rt_table_load(&other, copy2, sizeof after, &me), 0);
    struct {
        uint32_t index[2];
        const char *text[2];
        size_t n;
        const char *says;    /* NULL: passes */
    } cases[] = {
        {{2}, {"a"}, 1, NULL},
        {{4}, {"c"}, 1, "removes pair 4 from Perflib\\009\\Counter, which the table as stored"},
        /* A text one character longer than the stored one's: not it. */
        {{2}, {"ab"}, 1, "removes pair 2 from Perflib\\009\\Counter, which the table as stored"},
        {{0}, {NULL}, 0, "first difference at index 2, a pair it should hold"},
        {{2, 2}, {"a", "a"}, 2, "first difference at index 2, a pair it should not hold"},
    };
    const struct rt_table *known[] = {NULL, &same, &other};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char first[1024] = "";
        for (size_t k = 0; k < 3; k++) {
            struct rt_change c = {0};
            c.op = RT_CHANGE_SET_TABLE;
            c.lang = (char *)"009";
            c.table = RT_TABLE_COUNTER;
            c.value = (struct rt_value){RT_REG_MULTI_SZ, (uint8_t *)after,
                                        sizeof after};
            for (size_t j = 0; j < cases[i].n; j++)
                assert_int_equal(rt_pair_list_append(&c.removed,
                                                     cases[i].index[j],
                                                     cases[i].text[j]), 0);
            struct rt_error e = {0};
            int rc = rt_engine_check_table_change_known(&c, &before, 1,
                                                        known[k], &e);
            rt_pair_list_free(&c.removed);
            if (!cases[i].says) {
                assert_int_equal(rc, 0);
                continue;
            }
            assert_int_equal(rc, -1);
            assert_int_equal(e.code, RT_ERR_INTERNAL_ERROR);
            if (!strstr(e.message, cases[i].says))
                fail_msg("case %zu, index %zu: \"%s\" does not say \"%s\"",
                         i, k, e.message, cases[i].says);
            if (k == 0)
                snprintf(first, sizeof first, "%s", e.message);
            else
                assert_string_equal(e.message, first);
        }
    }
    rt_table_free(&same);
    rt_table_free(&other);
}

/* A service value the store cannot read (a damaged hive cell): loading the
 * service fails with the store's error, never gives a service that looks
 * as if it had no counters (an install would then take its range again). */
static const struct rt_store_ops *readable_ops;

static int last_counter_unreadable(struct rt_store *s, const char *svc,
                                   const char *name, struct rt_value *out,
                                   int *present, struct rt_error *e)
{
    if (!strcmp(name, "Last Counter")) {
        memset(out, 0, sizeof *out);
        *present = 0;
        return rt_error_set(e, RT_ERR_BADDB, "%s: Last Counter: cannot be "
                            "read", svc);
    }
    return readable_ops->read_service(s, svc, name, out, present, e);
}

/* A service name is counted in characters, not bytes: 255 characters of
 * two bytes each (U+00E9, whose second byte is 0xA9) are a name, 256 are
 * one too many. */
static void service_name_counted_in_characters(void **state)
{
    (void)state;
    char name[2 * 256 + 1];
    for (size_t i = 0; i < 256; i++)
        memcpy(name + 2 * i, "\xc3\xa9", 2);
    name[2 * 255] = '\0';
    struct rt_error e = {0};
    assert_int_equal(rt_service_name_check(name, &e), 0);
    memcpy(name + 2 * 255, "\xc3\xa9", 3);
    assert_int_equal(rt_service_name_check(name, &e), -1);
    assert_non_null(strstr(e.message, "is longer than 255 characters"));
}

static void service_load_fails_on_a_value_it_cannot_read(void **state)
{
    (void)state;
    struct rt_store *s = efx.open_empty(efx.ctx);
    put_service(s, "Transfer");
    put_range(s, "Transfer", 2000, 2002, 2001, 2003);
    struct rt_error e = {0};
    struct rt_service_info si;
    assert_int_equal(rt_service_load(s, "Transfer", &si, &e), 0);
    assert_true(si.has_range);
    assert_int_equal(si.last_counter, 2002);
    rt_service_info_free(&si);
    readable_ops = s->ops;
    struct rt_store_ops failing = *s->ops;
    failing.read_service = last_counter_unreadable;
    s->ops = &failing;
    assert_int_equal(rt_service_load(s, "Transfer", &si, &e), -1);
    assert_int_equal(e.code, RT_ERR_BADDB);
    assert_string_equal(e.message, "Transfer: Last Counter: cannot be read");
    s->ops = readable_ops;
    s->ops->close(s);
}

/* A pair counts as its table holds it: the index's digits, a UTF-16 unit
 * for each character (é one, U+1F600 two: a surrogate pair), two NULs;
 * over the bound only past it, and for good once over. */
static void change_budget_counts_as_a_table_holds_pairs(void **state)
{
    (void)state;
    struct rt_change_budget b = {.max = 16};
    assert_int_equal(rt_change_budget_add(&b, 7, "ab"), 0);      /* 1+2+2 */
    assert_int_equal(b.bytes, 10);
    assert_int_equal(rt_change_budget_add(&b, 10, ""), 1);       /* 2+0+2 */
    assert_int_equal(b.bytes, 18);
    assert_int_equal(rt_change_budget_add(&b, 2, ""), 1);
    b = (struct rt_change_budget){.max = 26};
    assert_int_equal(rt_change_budget_add(&b, 4294967295u, "\xc3\xa9"), 0);
    assert_int_equal(b.bytes, 2 * (10 + 1 + 2));
    b = (struct rt_change_budget){.max = 10};
    assert_int_equal(rt_change_budget_add(&b, 1, "\xf0\x9f\x98\x80"), 0);
    assert_int_equal(b.bytes, 10);      /* a surrogate pair: two units */
    assert_int_equal(rt_change_budget_add(&b, 1, ""), 1);
    b = (struct rt_change_budget){0};                   /* no bound */
    assert_int_equal(rt_change_budget_add(&b, 1, "x"), 0);
    assert_int_equal(b.bytes, 0);
}

/* An install whose new pairs come to more than one change of the store
 * may write is refused before they are made, its dry run too, the store
 * unchanged; at the bound exactly it goes ahead. base_store's three
 * languages get two names and two helps each (00C English's): twelve
 * pairs of a 4-digit index, 19 characters and two NULs, 600 bytes. */
static void install_bounded_by_what_the_store_may_write(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 2);
    struct rt_install_options opt = {0};
    struct rt_change_set cs;
    struct rt_install_plan plan;
    struct rt_error e = {0};
    rt_store_mem_set_change_max(s, 599);
    char *before = snapshot_exact(s);
    for (int flags = RT_OP_DRY_RUN;; flags = 0) {
        assert_int_equal(rt_op_install(s, sp, &opt, flags, &cs, &plan, &e),
                         -1);
        assert_int_equal(e.code, RT_ERR_INVALID_DATA);
        assert_non_null(strstr(e.message, "too large for the store: the "
                                          "install of 'Transfer' would write "
                                          "over 599 bytes"));
        assert_non_null(strstr(e.message, "tables of its 3 languages"));
        char *after = snapshot_exact(s);
        assert_string_equal(before, after);
        free(after);
        if (!flags)
            break;
    }
    free(before);
    rt_store_mem_set_change_max(s, 600);
    assert_int_equal(rt_op_install(s, sp, &opt, 0, &cs, &plan, &e), 0);
    assert_int_equal(plan.first_counter, 1848);
    rt_change_set_free(&cs);
    rt_install_plan_free(&plan);
    free_spec(sp);
    s->ops->close(s);
}

int main(void)
{
    efx = (struct engine_fixture){mem_open, mem_exact, 1, NULL, 0};
    const struct CMUnitTest tests[] = {ENGINE_SUITE_TESTS
        cmocka_unit_test(whole_table_invariant_same_with_the_loaded_index),
        cmocka_unit_test(fixed_language_is_left_alone),
        cmocka_unit_test(system_providers_are_refused),
        cmocka_unit_test(create_service_keeps_a_library),
        cmocka_unit_test(names_that_become_paths),
        cmocka_unit_test(uninstall_goes_on_past_a_bad_perfinifile),
        cmocka_unit_test(uninstall_of_a_range_from_index_1),
        cmocka_unit_test(uninstall_of_a_one_counter_provider_on_top),
        cmocka_unit_test(uninstall_never_raises_a_value_that_lies_low),
        cmocka_unit_test(install_and_uninstall_beside_a_planted_range),
        cmocka_unit_test(allocation_takes_a_fresh_range_on_top),
        cmocka_unit_test(allocation_pairs_even_counters_with_odd_helps),
        cmocka_unit_test(allocation_keeps_a_replaced_range_that_fits),
        cmocka_unit_test(allocation_does_not_keep_an_inverted_range),
        cmocka_unit_test(allocation_refuses_a_range_past_the_index_limit),
        cmocka_unit_test(language_found_by_value_in_another_spelling),
        cmocka_unit_test(current_language_mirrors_by_its_first_lowest_pair),
        cmocka_unit_test(overlay_lists_added_languages_in_change_order),
        cmocka_unit_test(overlay_passes_on_a_store_that_cannot_list_services),
        cmocka_unit_test(service_load_fails_on_a_value_it_cannot_read),
        cmocka_unit_test(service_name_counted_in_characters),
        cmocka_unit_test(change_budget_counts_as_a_table_holds_pairs),
        cmocka_unit_test(install_bounded_by_what_the_store_may_write),
    };
    return cmocka_run_group_tests_name("engine (mem store)", tests, NULL, NULL);
}
