/* The side files an operation keeps in the same change set as the
 * database (engine/side_files.h), on the in-memory store: install copies
 * the INI and its symbol file to INF/<driver>/0009 byte for byte,
 * uninstall removes both, and after each PerfStringBackup.INI holds the
 * backup of the new state (where the store had one); a store without one
 * gets none; the INF folder of a language id; the characters a side
 * file's name may hold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ops/ops.h"
#include "engine/side_files.h"
#include "model/base_tables.h"
#include "platform/os.h"

static struct rt_store *machine(int with_psb)
{
    struct rt_store *s = rt_store_mem_new();
    struct rt_name_table t;
    uint8_t *c, *h;
    size_t cl, hl;
    assert_int_equal(rt_base_tables_generate("009", &t), 0);
    assert_int_equal(rt_pair_list_encode(&t.counter, &c, &cl), 0);
    assert_int_equal(rt_pair_list_encode(&t.help, &h, &hl), 0);
    rt_name_table_free(&t);
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_COUNTER, c, cl), 0);
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_HELP, h, hl), 0);
    free(c);
    free(h);
    struct rt_value v;
    assert_int_equal(rt_value_from_dword(&v, rt_base_last_counter()), 0);
    assert_int_equal(rt_store_mem_put_perflib(s, "Last Counter", &v), 0);
    rt_value_free(&v);
    assert_int_equal(rt_value_from_dword(&v, rt_base_last_help()), 0);
    assert_int_equal(rt_store_mem_put_perflib(s, "Last Help", &v), 0);
    rt_value_free(&v);
    assert_int_equal(rt_store_mem_put_service(s, "TransferPerf", 1), 0);
    if (with_psb)
        assert_int_equal(rt_store_mem_put_file(s, RT_PSB_REL,
                                               (const uint8_t *)"old", 3), 0);
    return s;
}

/* The store's file REL, or NULL. */
static struct rt_value *file(struct rt_store *s, const char *rel)
{
    static struct rt_value v;
    int present;
    struct rt_error e = {0};
    rt_value_free(&v);
    assert_int_equal(s->ops->read_win_file(s, rel, &v, &present, &e), 0);
    return present ? &v : NULL;
}

/* PerfStringBackup.INI is exactly what a backup of the store saves. */
static void psb_is_current(struct rt_store *s)
{
    struct rt_database db;
    struct rt_psb psb;
    struct rt_error e = {0};
    uint8_t *bytes;
    size_t len;
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    assert_int_equal(rt_engine_backup(&db, &psb, &e), 0);
    assert_int_equal(rt_psb_write(&psb, &bytes, &len), 0);
    const struct rt_value *f = file(s, RT_PSB_REL);
    assert_non_null(f);
    assert_int_equal(f->len, len);
    assert_memory_equal(f->data, bytes, len);
    free(bytes);
    rt_psb_free(&psb);
    rt_database_free(&db);
}

static void install_copies_uninstall_removes(void **state)
{
    (void)state;
    struct rt_store *s = machine(1);
    struct rt_provider_spec spec;
    struct rt_diags d = {0};
    struct rt_inf_files inf;
    assert_int_equal(rt_provider_spec_load_files("ini-samples/transfer.ini",
                                                 NULL, NULL, &spec, &inf, &d),
                     0);
    rt_diags_free(&d);
    assert_string_equal(inf.ini_name, "transfer.ini");
    assert_string_equal(inf.sym_name, "CounterOffsets.h");
    struct rt_install_options opt = {0};
    opt.inf = &inf;
    struct rt_change_set cs;
    struct rt_install_plan plan;
    struct rt_error e = {0};
    assert_int_equal(rt_op_install(s, &spec, &opt, 0, &cs, &plan, &e), 0);
    rt_change_set_free(&cs);
    rt_install_plan_free(&plan);
    /* The plan gave up the files' buffers once its change set held them. */
    assert_null(inf.ini);
    assert_null(inf.sym);
    rt_inf_files_free(&inf);
    /* The INF copy holds the files as they are. */
    uint8_t *ini, *sym;
    size_t ini_len, sym_len;
    assert_int_equal(rt_os_read_file("ini-samples/transfer.ini", &ini,
                                     &ini_len), 0);
    assert_int_equal(rt_os_read_file("ini-samples/CounterOffsets.h", &sym,
                                     &sym_len), 0);
    const struct rt_value *f = file(s, "INF/TransferPerf/0009/transfer.ini");
    assert_non_null(f);
    assert_int_equal(f->len, ini_len);
    assert_memory_equal(f->data, ini, ini_len);
    f = file(s, "INF/TransferPerf/0009/CounterOffsets.h");
    assert_non_null(f);
    assert_int_equal(f->len, sym_len);
    assert_memory_equal(f->data, sym, sym_len);
    free(ini);
    free(sym);
    psb_is_current(s);

    struct rt_uninstall_plan up;
    assert_int_equal(rt_op_uninstall(s, "TransferPerf", 0, 0, &cs, &up, &e), 0);
    rt_change_set_free(&cs);
    assert_null(file(s, "INF/TransferPerf/0009/transfer.ini"));
    assert_null(file(s, "INF/TransferPerf/0009/CounterOffsets.h"));
    psb_is_current(s);
    rt_inf_files_free(&inf);
    file(s, "none");
    rt_provider_spec_free(&spec);
    s->ops->close(s);
}

/* Without a PerfStringBackup.INI none is made (an install writes no file
 * Windows did not have but its INF copy). */
static void no_backup_file_none_made(void **state)
{
    (void)state;
    struct rt_store *s = machine(0);
    assert_int_equal(rt_op_set_disabled(s, "TransferPerf", 1, &(struct rt_error){0}), 0);
    assert_null(file(s, RT_PSB_REL));
    s->ops->close(s);
    s = machine(1);
    assert_int_equal(rt_op_set_disabled(s, "TransferPerf", 1, &(struct rt_error){0}), 0);
    psb_is_current(s);
    file(s, "none");
    s->ops->close(s);
}

static void inf_folders(void **state)
{
    (void)state;
    char f[8];
    assert_int_equal(rt_inf_folder("009", f), 0);
    assert_string_equal(f, "0009");
    assert_int_equal(rt_inf_folder("804", f), 0);
    assert_string_equal(f, "0804");
    assert_int_equal(rt_inf_folder("0804", f), 0);
    assert_string_equal(f, "0804");
    assert_int_equal(rt_inf_folder("00c", f), 0);
    assert_string_equal(f, "000C");
    assert_int_equal(rt_inf_folder("CurrentLanguage", f), -1);
}

/* A side file's name holds no control character (C0 or DEL) and none of
 * the characters Windows refuses in a file name; every other ASCII
 * character, a tilde included (in a name longer than a short one), is a
 * name's as it is. */
static void side_names_by_ascii_character(void **state)
{
    (void)state;
    for (unsigned c = 1; c < 0x80; c++) {
        char name[] = "provider?name.ini";
        name[8] = (char)c;
        const char *why = rt_win_name_problem(name);
        if (c < 0x20 || c == 0x7f) {
            assert_non_null(why);
            assert_non_null(strstr(why, "control character"));
        } else if (strchr("\\/:<>\"|?*", (int)c)) {
            assert_non_null(why);
        } else {
            if (why)
                print_message("refused: 0x%02x: %s\n", c, why);
            assert_null(why);
        }
    }
}

/* A name with the shape of a short (8.3) name holding '~' may be what
 * Windows calls another file of the folder (TRANSF~1 for TransferPerf,
 * Wine's TRAN~XYZ): an INI's drivername or symbol file, or a journal's
 * INF record, so named would write another provider's INF copy (review
 * 43 R43-5, R43-8, R43-9). Longer names with '~' are names. */
static void short_name_shapes_refused(void **state)
{
    (void)state;
    static const char *const refused[] = {"TRANSF~1", "transf~1.ini",
                                          "TRAN~XYZ", "a~b.h", "~1",
                                          "COUNTE~1.H", "x~"};
    static const char *const names[] = {"Transfer~Perf", "TransferPerf",
                                        "my~prov.ini.bak", "x~y.long",
                                        "counteroffsets~.h", "abcdefgh.ini"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        const char *why = rt_win_name_problem(refused[i]);
        if (!why || !strstr(why, "short (8.3) name"))
            fail_msg("'%s' taken as a name", refused[i]);
    }
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (rt_win_name_problem(names[i]))
            fail_msg("'%s' refused: %s", names[i],
                     rt_win_name_problem(names[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(install_copies_uninstall_removes),
        cmocka_unit_test(no_backup_file_none_made),
        cmocka_unit_test(inf_folders),
        cmocka_unit_test(side_names_by_ascii_character),
        cmocka_unit_test(short_name_shapes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
