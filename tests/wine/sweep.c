/* Crash-sweep helper for the win32 store under Wine: one step of the sweep
 * per process, so that REGTOOL_FAULT_AFTER_WRITES ends a real process
 * mid-commit and the next process finds what it left.
 *
 *   sweep reset   wipe the test areas, commit the base database
 *   sweep apply   commit the change (several languages, Perflib values,
 *                 one new and one existing service); print "writes N",
 *                 the writes counted in this process
 *   sweep dump    open the store (rolling back a crashed commit), check
 *                 that no journal is left, print the canonical dump
 *
 * It works on the real Perflib and Services keys. Wine keeps Perflib\009
 * as a predefined-handle key that cannot be written (win32_plan.c), so
 * the languages written are 007, 019, CurrentLanguage and a new 00C.
 *
 * Exit status: 0 done, 1 failure (message on stderr); a process ended by
 * the fault hook exits with 99. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>

#include "commit/io.h"
#include "store/store_win32.h"
#include "win32_fixture.h"

static const char *const services[] = {"SweepOld", "SweepNew"};
#define N_SERVICES 2

static const char16_t counter_cur[] = u"1\0" "1847\0" "2\0System\0"
                                        "4\0Memory\0";
static const char16_t help_cur[] = u"3\0The System object.\0"
                                   "5\0The Memory object.\0";
static const char16_t counter007[] = u"1\0" "1847\0" "2\0System\0"
                                     "4\0Speicher\0";
static const char16_t counter019[] = u"1\0" "1847\0" "2\0Система\0";

static const char16_t new_counter_cur[] = u"1\0" "1847\0" "2\0System\0"
                                            "4\0Memory\0" "1850\0Sweep\0"
                                            "1852\0Sweep Rate\0";
static const char16_t new_help_cur[] = u"3\0The System object.\0"
                                       "5\0The Memory object.\0"
                                       "1851\0Sweep help.\0"
                                       "1853\0Sweeps per second.\0";
static const char16_t new_counter007[] = u"1\0" "1847\0" "2\0System\0"
                                         "4\0Speicher\0" "1850\0Kehren\0"
                                         "1852\0Kehrrate\0";
static const char16_t new_counter019[] = u"1\0" "1847\0" "2\0Система\0"
                                         "1850\0Развёртка\0"
                                         "1852\0Скорость\0";
static const char16_t new_counter00c[] = u"1850\0Balayage\0"
                                         "1852\0Taux\0";

static int die(const char *what, const struct rt_error *e)
{
    fprintf(stderr, "sweep: %s: %s\n", what, e ? e->message : "failed");
    return 1;
}

#define TABLE(cs, lang, kind, blob)                                        \
    rt_change_set_table(cs, lang, kind, (const uint8_t *)(blob),          \
                        sizeof(blob), NULL, NULL)

static int base_set(struct rt_change_set *cs)
{
    int r = 0;
    r |= rt_change_set_create_language(cs, "CurrentLanguage");
    r |= TABLE(cs, "CurrentLanguage", RT_TABLE_COUNTER, counter_cur);
    r |= TABLE(cs, "CurrentLanguage", RT_TABLE_HELP, help_cur);
    r |= TABLE(cs, "007", RT_TABLE_COUNTER, counter007);
    r |= TABLE(cs, "019", RT_TABLE_COUNTER, counter019);
    r |= rt_change_set_dword(cs, NULL, "Last Counter", 1847);
    r |= rt_change_set_dword(cs, NULL, "Last Help", 1848);
    r |= rt_change_set_dword(cs, NULL, "Base Index", 1847);
    r |= rt_change_set_create_perf_key(cs, "SweepOld");
    r |= rt_change_set_string(cs, "SweepOld", "Library", RT_REG_EXPAND_SZ,
                    "%SystemRoot%\\system32\\sweepold.dll");
    r |= rt_change_set_string(cs, "SweepOld", "Open", RT_REG_SZ, "OpenOld");
    r |= rt_change_set_dword(cs, "SweepOld", "Disable Performance Counters", 1);
    return r;
}

/* An install touching four languages (one of them new), Perflib, a new
 * service, and an existing service's values (one set, one deleted). */
static int change_set(struct rt_change_set *cs)
{
    int r = 0;
    r |= TABLE(cs, "CurrentLanguage", RT_TABLE_COUNTER, new_counter_cur);
    r |= TABLE(cs, "CurrentLanguage", RT_TABLE_HELP, new_help_cur);
    r |= TABLE(cs, "007", RT_TABLE_COUNTER, new_counter007);
    r |= TABLE(cs, "019", RT_TABLE_COUNTER, new_counter019);
    r |= rt_change_set_create_language(cs, "00C");
    r |= TABLE(cs, "00C", RT_TABLE_COUNTER, new_counter00c);
    r |= rt_change_set_dword(cs, NULL, "Last Counter", 1852);
    r |= rt_change_set_dword(cs, NULL, "Last Help", 1853);
    r |= rt_change_set_create_perf_key(cs, "SweepNew");
    r |= rt_change_set_string(cs, "SweepNew", "Library", RT_REG_SZ, "sweepnew.dll");
    r |= rt_change_set_dword(cs, "SweepNew", "First Counter", 1850);
    r |= rt_change_set_dword(cs, "SweepNew", "Last Counter", 1852);
    r |= rt_change_set_dword(cs, "SweepNew", "First Help", 1851);
    r |= rt_change_set_dword(cs, "SweepNew", "Last Help", 1853);
    r |= rt_change_set_dword(cs, "SweepOld", "First Counter", 1850);
    r |= rt_change_set_delete_service(cs, "SweepOld",
                                      "Disable Performance Counters");
    return r;
}

static int commit(struct rt_store *s, int (*build)(struct rt_change_set *))
{
    struct rt_change_set cs = {0};
    struct rt_error e = {0};
    if (build(&cs) != 0) {
        rt_change_set_free(&cs);
        return die("building the change set", NULL);
    }
    int r = 0;
    if (s->ops->begin(s, &e) != 0)
        r = die("begin", &e);
    else if (s->ops->apply(s, &cs, &e) != 0)
        r = die("apply", &e);
    s->ops->end(s);
    rt_change_set_free(&cs);
    return r;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sweep reset|apply|dump\n");
        return 64;
    }
    struct rt_error e = {0};
    struct rt_store *s = rt_store_win32_open(NULL, &e);
    if (!s)
        return die("open", &e);
    int r = 0;
    if (!strcmp(argv[1], "reset")) {
        r = wt_wipe(NULL, services, N_SERVICES) != 0 ? 1 : commit(s, base_set);
    } else if (!strcmp(argv[1], "apply")) {
        r = commit(s, change_set);
        if (r == 0)
            printf("writes %u\n", rt_io_totals.writes);
    } else if (!strcmp(argv[1], "dump")) {
        char *d = rt_store_win32_dump(s, services, N_SERVICES, &e);
        if (!d)
            r = die("dump", &e);
        else if (wt_file_exists(rt_store_win32_journal_path(s)))
            r = die("a journal is left after open", NULL);
        else
            fputs(d, stdout);
        free(d);
    } else {
        fprintf(stderr, "sweep: unknown step '%s'\n", argv[1]);
        r = 64;
    }
    s->ops->close(s);
    return r;
}
