/* Engine layer: audit of the name database. Pure: from a loaded database
 * (engine/database.h) to a list of findings, each with a stable id, a
 * severity, the language and indices involved, what it means for the
 * programs that read performance data (the symptom they show) and the
 * regtool command that fixes it. What is normal on real machines (gaps
 * below Base Index, Last Counter far above the highest index, localized
 * tables smaller than English: docs/design.md, "What real machines look
 * like") is info at most. */
#ifndef RT_AUDIT_H
#define RT_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/database.h"
#include "model/str_pool.h"

enum rt_audit_severity {
    RT_AUDIT_ERROR,
    RT_AUDIT_WARNING,
    RT_AUDIT_INFO,
};

/* The indices a finding is about, and the texts of the first N_TEXTS of
 * them (a finding's evidence). */
struct rt_evidence {
    size_t n_indices, n_texts;
    uint32_t *indices;
    const char **texts;
};

/* What a finding is, shared by every finding of that id, severity,
 * symptom and fix (struct rt_findings keeps each once, by hash). */
struct rt_finding_kind {
    const char *id;                 /* stable, e.g. "duplicate-index" */
    const char *symptom;            /* what consumers show, or NULL */
    const char *fix;                /* the regtool command, or NULL */
    enum rt_audit_severity severity;
};

/* A finding's texts and evidence are kept in its list's pool (struct
 * rt_findings): valid until the list is freed. Its message is read
 * through rt_finding_message: SAID holds it with each place the
 * language's id stands in it marked, so that the same words about
 * thousands of languages are kept once (32 bytes a finding, not its
 * message's bytes and 56). */
struct rt_finding {
    const struct rt_finding_kind *kind;
    const char *language;           /* NULL when not about one language */
    const char *said;               /* the message (rt_finding_message) */
    const struct rt_evidence *evidence; /* NULL when it has none */
};

static inline const char *rt_finding_id(const struct rt_finding *x)
{
    return x->kind->id;
}
static inline enum rt_audit_severity
rt_finding_severity(const struct rt_finding *x)
{
    return x->kind->severity;
}
static inline const char *rt_finding_symptom(const struct rt_finding *x)
{
    return x->kind->symptom;
}
static inline const char *rt_finding_fix(const struct rt_finding *x)
{
    return x->kind->fix;
}

/* What was found, with the evidence: a new string, NULL when out of
 * memory. */
char *rt_finding_message(const struct rt_finding *x);
/* The message when it is kept whole (always after
 * rt_findings_spell_out), else NULL. */
const char *rt_finding_message_kept(const struct rt_finding *x);

static inline size_t rt_finding_n_indices(const struct rt_finding *x)
{
    return x->evidence ? x->evidence->n_indices : 0;
}
static inline uint32_t rt_finding_index(const struct rt_finding *x, size_t k)
{
    return x->evidence->indices[k];
}
static inline size_t rt_finding_n_texts(const struct rt_finding *x)
{
    return x->evidence ? x->evidence->n_texts : 0;
}
static inline const char *rt_finding_text(const struct rt_finding *x,
                                          size_t k)
{
    return x->evidence->texts[k];
}

/* An audit of a hostile tree may find hundreds of thousands of things (two
 * in each of 65536 languages): each finding costs its record (32 bytes)
 * and, unless its words are the same as an earlier finding's but for the
 * language, its message's bytes. Messages and evidence are kept in one
 * pool, not a heap block each; a language or kind repeated from finding
 * to finding is kept once (RECENT: the last text kept in each of a few
 * slots, by hash; KINDS likewise), and so are each fix text and the
 * words of a message with its language marked (in TEXTS, below).
 *
 * Evidence is what grows with the tree: 3,000 languages each lacking
 * English's thousand names are three million indices and texts. The last
 * finding's evidence grows in OPEN (heap arrays reused from finding to
 * finding); the next finding, a sort or the end seals it into the pool at
 * its exact size, or shares an identical list sealed before (SEALED, by
 * hash), and each evidence text is kept once (TEXTS, by hash). */
struct rt_findings_open {
    uint32_t *indices;
    const char **texts;
    size_t cap_indices, cap_texts;
    size_t at;                      /* 1 + the finding whose evidence is
                                       open here, or 0 */
    struct rt_evidence *spare;      /* a record a shared list left free */
};
struct rt_findings_set {
    const void **slot;              /* NULL: empty */
    size_t n, cap;                  /* cap: 0 or a power of two */
};
#define RT_FINDINGS_RECENT 32
struct rt_findings {
    struct rt_finding *v;
    size_t n, cap;
    size_t errors, warnings, infos;
    struct rt_str_pool pool;
    const char *recent[RT_FINDINGS_RECENT];
    const struct rt_finding_kind *kinds[RT_FINDINGS_RECENT];
    struct rt_findings_open open;
    struct rt_findings_set texts, sealed;
};

struct rt_audit_options {
    const char *language;           /* only this language's findings */
};

/* Appends every finding about DB to OUT. Returns 0, or -1 when out of
 * memory (OUT keeps what was found). */
int rt_audit(const struct rt_database *db, const struct rt_audit_options *opt,
             struct rt_findings *out);

/* What audit --libraries knows of the Windows tree the database belongs
 * to. The engine does no I/O, so the caller answers its questions: the
 * checks stay pure and testable with a table of paths, and the caller
 * (the CLI, which got the tree's Windows directory from the store)
 * decides how to look, e.g. case-insensitively on a Linux copy. */
struct rt_audit_env;
struct rt_audit_tree {
    /* 1 when PATH is a file of the tree, 2 a folder, 0 neither, -1
     * when a link or special file stands on its way (not followed), -3
     * when a folder on its way holds two entries whose names differ only
     * in letter case (Windows sees one name there, and which of the two
     * is not known), -2 when memory ran out looking (the audit then
     * fails). PATH is relative to the
     * drive's root, '\'-separated, in any case ("Windows\System32\
     * perfos.dll", "Program Files\X\x.dll"). */
    int (*exists)(void *ctx, const char *path);
    void *ctx;
    const char *windows_dir;   /* its name below the root: "Windows" */
    /* Calls EACH with the name of every entry of the folder DIR (as for
     * exists; "" is the root), for 8.3 short names; -1 when DIR is not
     * there. NULL: the tree cannot list folders. */
    int (*list)(void *ctx, const char *dir,
                void (*each)(void *arg, const char *name), void *arg);
    /* NULL when the drive's root is part of the tree the store holds.
     * Otherwise why it is not (the tree was opened from its Windows
     * directory alone, whose parent nobody confined: "the volume's root
     * above WINNT is not part of the tree opened"): EXISTS and LIST are
     * asked of nothing outside the Windows directory, and a Library
     * elsewhere on the drive is library-unchecked, with these words. */
    const char *root_unheld;
    /* The environment strings the machine defines itself, where the
     * store tells them (N_ENV 0: Windows setup's own are taken). */
    const struct rt_audit_env *env;
    size_t n_env;
};

/* The VAR of setup's record of the Windows directory (SOFTWARE's
 * Microsoft\Windows NT\CurrentVersion\SystemRoot): no environment
 * string, its drive letter the one setup gave the system drive. */
#define RT_AUDIT_SETUP_ROOT "(setup's SystemRoot)"

/* One environment string as the machine's registry defines it. */
struct rt_audit_env {
    const char *var;     /* "%ProgramFiles%", in any letter case */
    /* The value as the registry holds it (%SystemRoot% and %SystemDrive%
     * in it are expanded as setup's, any other variable makes the value
     * one not judged), or NULL with PROBLEM. */
    const char *value;
    int typed;           /* REG_SZ: Windows expands nothing in VALUE */
    const char *where;   /* the value's key and name, for the words said */
    /* NULL, or why a value the machine holds cannot be judged ("is
     * empty"): a Library using VAR is then said, not judged. */
    const char *problem;
};

/* Whether a value is missing or holds only blanks and tabs. */
int rt_audit_blank(const char *v);

/* Appends the findings about who gets loaded: each provider's Library,
 * Open, Collect and Close (missing, empty, wrong type), where the DLL is
 * (user-writable places, relative names the DLL search order resolves,
 * outside the Windows directory and Program Files), built-in system
 * objects served by a DLL not Windows' own, one DLL shared with different
 * procedures, and, with TREE (NULL: no files to look at), whether the
 * DLL exists, in System32, SysWOW64 or both. Warnings and info only.
 * Returns 0, or -1 when out of memory. */
int rt_audit_libraries(const struct rt_database *db,
                       const struct rt_audit_tree *tree,
                       struct rt_findings *out);

/* The DLL of Windows' own, in System32, that serves SERVICE when SERVICE
 * is one of Windows' built-in providers (PerfOS, PerfProc, PerfDisk,
 * PerfNet, Tcpip, Spooler, Lsa; matched without regard to case), else
 * NULL. Their objects have indices of the base range. */
const char *rt_audit_system_dll(const char *service);

/* Appends an error for each key of the store's registry that a plain
 * read misses (store.h, struct rt_key_anomaly): a link key among
 * Services or Perflib's subkeys (service-key-is-link, perflib-key-is-link:
 * Windows reads the key it points to, which no check here sees) and two
 * keys whose names differ only in case (service-keys-differ-in-case,
 * perflib-keys-differ-in-case: Windows reads one of them by either name).
 * Returns 0, or -1 when out of memory. */
int rt_audit_key_anomalies(const struct rt_key_anomaly *v, size_t n,
                           struct rt_findings *out);

/* Refuses a write to a store with key anomalies (N > 0): E names them
 * (the first few) and says nothing was written; returns -1. 0 when N is
 * 0. */
int rt_refuse_key_anomalies(const struct rt_key_anomaly *v, size_t n,
                            struct rt_error *e);

/* Adds one finding (used by rt_audit, and by callers that report what
 * they found around the database, such as a store that cannot be opened).
 * LANGUAGE may be NULL; MESSAGE is printf-style. Returns 0 or -1. */
int rt_findings_add(struct rt_findings *f, const char *id,
                    enum rt_audit_severity severity, const char *language,
                    const char *symptom, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* Attaches an index and its text (TEXT may be NULL) to the last finding. */
int rt_findings_evidence(struct rt_findings *f, uint32_t index,
                         const char *text);

/* Seals the last finding's evidence (see struct rt_findings); the next
 * add, the sort and the free do it too. Returns 0, or -1 when out of
 * memory (the evidence stays where it is, readable). */
int rt_findings_seal(struct rt_findings *f);

/* Keeps every message of F whole, for callers that hand out its text
 * (rt_finding_message_kept): 0, or -1 when out of memory. */
int rt_findings_spell_out(struct rt_findings *f);

/* Drops the findings of F from the FROM-th on that are about another
 * language than LANG (those about no one language, which concern every
 * language, stay): audit --lang's, for checks that find across
 * languages. 0, or -1 when out of memory (F as
 * it was). */
int rt_findings_keep_language(struct rt_findings *f, size_t from,
                              const char *lang);

/* Most severe first, then by id, language and first index: a stable order
 * for people and for machines. */
void rt_findings_sort(struct rt_findings *f);
void rt_findings_free(struct rt_findings *f);

const char *rt_audit_severity_name(enum rt_audit_severity s);

#endif
