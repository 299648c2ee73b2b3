/* mkregistry SOFTWARE COUNTER HELP OUT: the SOFTWARE hive of a tree with
 * .dat tables turned into one with the tables as values (the layout of NT
 * 4 to Server 2003 and Wine): Perflib\009 and Perflib\CurrentLanguage,
 * predefined-handle keys there, made anew as plain keys holding COUNTER
 * and HELP (the bytes of perfc009.dat and perfh009.dat) as their Counter
 * and Help values (CurrentLanguage mirrors English), written to OUT.
 *
 * For the seeds of fuzz_tree (tests/fuzz/seeds.sh): `regtool init
 * --layout registry` writes the base tables into SOFTWARE, and a hive
 * never shrinks, so even with the tables cut short afterwards (a restore)
 * its file stays 1.5 MB, which would make every fuzz input that large.
 * Built by seeds.sh against build/libregtool.a. */
#include <stdio.h>
#include <stdlib.h>

#include "platform/os.h"
#include "model/reg_types.h"
#include "regf/regf.h"

#define PERFLIB "Microsoft\\Windows NT\\CurrentVersion\\Perflib"

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "mkregistry: %s: %s\n", what, detail);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return fail("usage", "mkregistry SOFTWARE COUNTER HELP OUT");
    uint8_t *counter, *help;
    size_t counter_len, help_len;
    if (rt_os_read_file(argv[2], &counter, &counter_len) != 0)
        return fail(argv[2], "cannot read it");
    if (rt_os_read_file(argv[3], &help, &help_len) != 0)
        return fail(argv[3], "cannot read it");
    struct rt_regf *h;
    char err[256];
    if (rt_regf_open(argv[1], RT_REGF_WRITE, &h, err, sizeof err) != 0)
        return fail(argv[1], err);
    static const char *const langs[] = {"009", "CurrentLanguage"};
    uint32_t perflib, lang;
    int rc = rt_regf_lookup(h, rt_regf_root(h), PERFLIB, &perflib) != 0;
    for (size_t i = 0; i < 2 && !rc; i++)
        rc = rt_regf_lookup(h, perflib, langs[i], &lang) != 0 ||
             rt_regf_key_delete(h, lang, 0) != 0 ||
             rt_regf_key_create(h, perflib, langs[i], &lang) != 0 ||
             rt_regf_value_set(h, lang, "Counter", RT_REG_MULTI_SZ, counter,
                               counter_len) != 0 ||
             rt_regf_value_set(h, lang, "Help", RT_REG_MULTI_SZ, help,
                               help_len) != 0;
    if (!rc)
        rc = rt_regf_save_as(h, argv[4]) != 0;
    if (rc)
        fail(argv[1], rt_regf_errmsg(h));
    rt_regf_close(h);
    free(counter);
    free(help);
    return rc;
}
