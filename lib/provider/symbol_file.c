/* INI layer: parsing of lodctr symbol files (#define NAME value) and
 * resolution of their values (see symbol_file.h). */
#include "provider/symbol_file.h"
#include "platform/compat.h"
#include "platform/os.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/size_caps.h"
#include "model/utf16.h"
#include "provider/pos_index.h"
#include "provider/text_encoding.h"

#define MAX_SYMBOL_FILE_BYTES ((unsigned)RT_PROVIDER_FILE_MAX)
/* Deeper parentheses than this are not a counter header; the limit keeps
 * the recursion bounded. */
#define MAX_DEPTH 256
/* Offsets index DWORD tables. */
#define MAX_MAGNITUDE 0xFFFFFFFFLL

/* What is wrong with a definition (rt_symbol_def's WHY; its REF says
 * more): WHY_VIA, another's trouble (REF: the definition it starts at);
 * WHY_CYCLE, on a cycle of aliases (REF: the table's cycle); WHY_UNDEFINED
 * (REF: the undefined name's offset in its value); the others its own. */
enum {
    WHY_NONE, WHY_TWICE, WHY_EMPTY, WHY_NAN, WHY_RANGE, WHY_DEPTH,
    WHY_UNDEFINED, WHY_CYCLE, WHY_VIA
};

/* The copies and messages below are NULL when memory runs out, and set
 * *OOM then: the parse stops there and fails as out of memory. */
static char *oom_strndup(bool *oom, const char *s, size_t n)
{
    char *r = strndup(s, n);
    if (!r)
        *oom = true;
    return r;
}

static char *oom_asprintf(bool *oom, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static char *oom_asprintf(bool *oom, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) {
        s = NULL;
        *oom = true;
    }
    va_end(ap);
    return s;
}

/* A name or value as a message shows it: its first SHOWN bytes, and
 * "..." when there is more ("%.*s%s", shown(s), s, more(s)). A message
 * about one definition is copied to every definition that leads to it:
 * what it quotes must not grow with the file (50,000 aliases of one
 * broken value of a megabyte would hold 50 GB). */
#define SHOWN 64
static int shown(const char *s)
{
    return (int)strnlen(s, SHOWN);
}

static const char *more(const char *s)
{
    return strnlen(s, SHOWN + 1) > SHOWN ? "..." : "";
}

static unsigned line_at(const char *s, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i < off; i++)
        if (s[i] == '\n')
            line++;
    return line;
}

/* Replaces comments by spaces, keeping newlines so that line numbers stay
 * true. String and character literals are skipped over, so that "//" or
 * "/ *" inside an #include or #pragma line start nothing. */
static int strip_comments(char *s, size_t len, const char *path,
                          struct rt_diags *d)
{
    size_t i = 0;
    while (i < len) {
        char c = s[i];
        if (c == '"' || c == '\'') {
            i++;
            while (i < len && s[i] != c && s[i] != '\n') {
                if (s[i] == '\\' && i + 1 < len && s[i + 1] != '\n')
                    i++;
                i++;
            }
            if (i < len && s[i] == c)
                i++;
        } else if (c == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i < len && s[i] != '\n')
                s[i++] = ' ';
        } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            size_t start = i;
            s[i++] = ' ';
            s[i++] = ' ';
            while (i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/')) {
                if (s[i] != '\n')
                    s[i] = ' ';
                i++;
            }
            if (i >= len) {
                rt_diags_add(d, RT_ERROR, path, line_at(s, start), NULL,
                             "comment is never closed");
                return -1;
            }
            s[i++] = ' ';
            s[i++] = ' ';
        } else {
            i++;
        }
    }
    return 0;
}

static bool is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* NAME (NLEN bytes) and, after its NUL, the value S with whitespace runs
 * collapsed, as C compares the values of a macro defined twice: one
 * allocation, as a header of many thousands of #defines has as many of
 * each. NULL out of memory. */
static char *name_and_value(const char *name, size_t nlen, const char *s)
{
    size_t n = strlen(s);
    char *r = malloc(nlen + 1 + n + 1);
    if (!r)
        return NULL;
    memcpy(r, name, nlen);
    r[nlen] = '\0';
    r += nlen + 1;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (isspace((unsigned char)s[i])) {
            if (o && r[o - 1] != ' ')
                r[o++] = ' ';
        } else {
            r[o++] = s[i];
        }
    }
    while (o && r[o - 1] == ' ')
        o--;
    r[o] = '\0';
    return r - nlen - 1;
}

/* Headers with many thousands of #defines exist (generated ones): names
 * are found through hash indexes, by exact name and by name folded to
 * one case. */
static struct rt_symbol_def *find_exact(const struct rt_symbol_table *t,
                                        const char *name)
{
    size_t cursor = 0, pos1;
    size_t h = rt_hash_exact(name);
    while ((pos1 = rt_pos_index_next(&t->exact, h, &cursor)))
        if (!strcmp(t->v[pos1 - 1].name, name))
            return &t->v[pos1 - 1];
    return NULL;
}

/* The first definition of the names equal to NAME but for ASCII case
 * (it counts them in FOLD_COUNT), or NULL. */
static struct rt_symbol_def *find_folded(const struct rt_symbol_table *t,
                                         const char *name)
{
    size_t cursor = 0, pos1;
    size_t h = rt_hash_ci(name);
    while ((pos1 = rt_pos_index_next(&t->folded, h, &cursor)))
        if (!strcasecmp(t->v[pos1 - 1].name, name))
            return &t->v[pos1 - 1];
    return NULL;
}

/* 0, or -1 out of memory. */
static int add_define(struct rt_symbol_table *t, const char *name,
                      size_t nlen, const char *expr, unsigned line)
{
    char *nm = name_and_value(name, nlen, expr);
    if (!nm)
        return -1;
    char *ex = nm + nlen + 1;
    struct rt_symbol_def *old = find_exact(t, nm);
    if (old) {
        if (strcmp(old->expr, ex) && old->why == WHY_NONE) {
            old->why = WHY_TWICE;
            old->problem_line = line;
        }
        free(nm);
        return 0;
    }
    if (t->n == t->cap) {
        /* Half as much again: never twice what a big header needs. */
        size_t cap = t->cap ? t->cap + t->cap / 2 : 16;
        struct rt_symbol_def *v = realloc(t->v, cap * sizeof *v);
        if (!v) {
            free(nm);
            return -1;
        }
        t->v = v;
        t->cap = cap;
    }
    /* Only the first of names equal but for case enters the folded
     * index, so that a lookup there costs the same however many such
     * names a header has. A table whose index failed half-way is freed
     * by the caller, never looked up. */
    struct rt_symbol_def *twin = find_folded(t, nm);
    if ((!twin && rt_pos_index_add(&t->folded, rt_hash_ci(nm), t->n)) ||
        rt_pos_index_add(&t->exact, rt_hash_exact(nm), t->n)) {
        free(nm);
        return -1;
    }
    if (twin)
        twin->fold_count++;
    struct rt_symbol_def *def = &t->v[t->n++];
    memset(def, 0, sizeof *def);
    def->name = nm;
    def->expr = ex;
    def->line = line;
    def->fold_count = 1;
    return 0;
}

/* One logical line (continuations joined, comments gone); 0, or -1 out
 * of memory. */
static int parse_logical_line(struct rt_symbol_table *t, const char *s,
                              unsigned line)
{
    while (isspace((unsigned char)*s))
        s++;
    if (*s != '#')
        return 0;
    s++;
    while (*s == ' ' || *s == '\t')
        s++;
    if (strncmp(s, "define", 6) || is_ident_char(s[6]))
        return 0;
    s += 6;
    if (*s != ' ' && *s != '\t')
        return 0;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!is_ident_start(*s))
        return 0;
    const char *name = s;
    while (is_ident_char(*s))
        s++;
    /* A function-like macro is never an offset. */
    if (*s == '(')
        return 0;
    return add_define(t, name, (size_t)(s - name), s, line);
}

/* ---- value resolution ----
 *
 * Definitions are visited depth-first with an explicit stack, so that an
 * alias chain of any length costs no recursion, and each one is evaluated
 * once everything it names is settled (or found to be on a cycle). What
 * is wrong with a definition is kept as its WHY and REF, a few bytes:
 * its message is made only when it is reported (rt_symbol_problem). */

enum { UNSEEN, ACTIVE, DONE };

struct resolver {
    struct rt_symbol_table *t;
    unsigned char *state;
    size_t *stack;          /* indices of the definitions being visited */
    const char **pos;       /* per stack entry: where to look for the next
                               name in its value */
    size_t depth;
    size_t *at;             /* per definition: its place on the stack while
                               ACTIVE */
    /* The cycles found (in T) are pointed at by their members (CYCLE_OF,
     * one more than the index; 0: none, and so not on a cycle), so that
     * a cycle of thousands of names is described once, not once a
     * member. */
    size_t cycles_cap;
    size_t *cycle_of;
    /* Per stack entry K on a cycle: a depth D <= K such that the entries
     * D..K are all on one (those below K never leave the stack before
     * K): a walk down the stack for entries not on a cycle skips them. */
    size_t *low;
    bool oom;               /* memory ran out: resolution stops */
};

struct expr {
    struct resolver *r;
    size_t self;
    const char *p;
    int depth;
    unsigned char why;      /* the first failure: what (WHY_NONE: none) */
    size_t ref;             /* and its REF */
};

static int eval_sum(struct expr *e, long long *v);

static void skip_ws(struct expr *e)
{
    while (isspace((unsigned char)*e->p))
        e->p++;
}

static int fail(struct expr *e, unsigned char why, size_t ref)
{
    if (e->why == WHY_NONE) {
        e->why = why;
        e->ref = ref;
    }
    return -1;
}

static int eval_number(struct expr *e, long long *v)
{
    const char *p = e->p;
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
        if (!isxdigit((unsigned char)*p))
            return -2;
    } else if (p[0] == '0') {
        base = 8;
    }
    long long acc = 0;
    for (;; p++) {
        int digit;
        char c = *p;
        if (isdigit((unsigned char)c))
            digit = c - '0';
        else if (base == 16 && isxdigit((unsigned char)c))
            digit = tolower((unsigned char)c) - 'a' + 10;
        else
            break;
        if (digit >= base)
            return -2;
        acc = acc * base + digit;
        if (acc > MAX_MAGNITUDE)
            return fail(e, WHY_RANGE, 0);
    }
    for (int k = 0; k < 3 && *p && strchr("uUlL", *p); k++)
        p++;
    if (is_ident_char(*p))
        return -2;
    e->p = p;
    *v = acc;
    return 0;
}

/* The definition where the trouble of definition J (settled, !ok)
 * starts: itself, or the one it leads to. */
static size_t root_of(const struct rt_symbol_table *t, size_t j)
{
    return t->v[j].why == WHY_VIA ? t->v[j].ref : j;
}

static int eval_name(struct expr *e, long long *v)
{
    const char *name = e->p;
    while (is_ident_char(*e->p))
        e->p++;
    struct resolver *r = e->r;
    char *nm = oom_strndup(&r->oom, name, (size_t)(e->p - name));
    if (!nm)
        return -1;
    struct rt_symbol_def *ref = find_exact(r->t, nm);
    free(nm);
    if (!ref)
        return fail(e, WHY_UNDEFINED,
                    (size_t)(name - r->t->v[e->self].expr));
    size_t j = (size_t)(ref - r->t->v);
    /* Members of a cycle all report the cycle itself; a definition
     * leading into one names where the trouble starts. */
    if (r->state[j] == ACTIVE || (!ref->ok && r->cycle_of[j] &&
                                  r->cycle_of[e->self]))
        return fail(e, WHY_CYCLE, r->cycle_of[e->self] - 1);
    if (!ref->ok)
        return fail(e, WHY_VIA, root_of(r->t, j));
    *v = ref->value;
    return 0;
}

static int eval_primary(struct expr *e, long long *v)
{
    skip_ws(e);
    char c = *e->p;
    if (c == '(' || c == '+' || c == '-') {
        if (++e->depth > MAX_DEPTH)
            return fail(e, WHY_DEPTH, 0);
        e->p++;
        int rc = c == '(' ? eval_sum(e, v) : eval_primary(e, v);
        if (rc)
            return rc;
        e->depth--;
        if (c == '(') {
            skip_ws(e);
            if (*e->p != ')')
                return -2;
            e->p++;
        } else if (c == '-') {
            *v = -*v;
        }
        return 0;
    }
    if (isdigit((unsigned char)c))
        return eval_number(e, v);
    if (is_ident_start(c))
        return eval_name(e, v);
    return -2;
}

static int eval_sum(struct expr *e, long long *v)
{
    int rc = eval_primary(e, v);
    if (rc)
        return rc;
    for (;;) {
        skip_ws(e);
        char op = *e->p;
        if (op != '+' && op != '-')
            return 0;
        e->p++;
        long long rhs;
        rc = eval_primary(e, &rhs);
        if (rc)
            return rc;
        *v = op == '+' ? *v + rhs : *v - rhs;
        if (*v > MAX_MAGNITUDE || *v < -MAX_MAGNITUDE)
            return fail(e, WHY_RANGE, 0);
    }
}

/* Evaluates definition I, everything it names being settled. Out of
 * memory sets R->oom; the table is then freed, never used. */
static void evaluate(struct resolver *r, size_t i)
{
    struct rt_symbol_def *def = &r->t->v[i];
    if (def->why == WHY_TWICE)  /* defined twice: no value to trust */
        return;
    if (!def->expr[0]) {
        def->why = WHY_EMPTY;
        def->problem_line = def->line;
        return;
    }
    struct expr e = {.r = r, .self = i, .p = def->expr};
    long long v = 0;
    int rc = eval_sum(&e, &v);
    if (!rc) {
        skip_ws(&e);
        /* .NET writes "#define OBJECT_1 0;", which lodctr reads as 0. */
        if (*e.p == ';') {
            e.p++;
            skip_ws(&e);
        }
        if (*e.p)
            rc = -2;
    }
    if (r->oom)
        return;
    if (!rc) {
        def->ok = true;
        def->value = v;
        return;
    }
    def->why = e.why == WHY_NONE ? WHY_NAN : e.why;
    def->ref = e.ref;
    def->problem_line = def->line;
}

/* The next name in a value from *POS on, skipping numbers (with their
 * suffixes) and punctuation; NULL at the end. */
static const char *next_name(const char **pos, size_t *len)
{
    const char *p = *pos;
    while (*p) {
        if (is_ident_start(*p)) {
            const char *start = p;
            while (is_ident_char(*p))
                p++;
            *len = (size_t)(p - start);
            *pos = p;
            return start;
        }
        if (isdigit((unsigned char)*p)) {
            while (is_ident_char(*p))
                p++;
        } else {
            p++;
        }
    }
    *pos = p;
    return NULL;
}

/* Appends to O at LEN (only counts when O is NULL); the new length. */
static size_t put(char *o, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static size_t put(char *o, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = o ? vsprintf(o + len, fmt, ap) : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    return len + (k > 0 ? (size_t)k : 0);
}

/* A cycle's chain of names, "alias cycle A -> B -> A", or "alias cycle
 * of N names: A -> B -> C -> D -> ... -> A" for more than eight, written
 * to O when it is not NULL; its length. */
static size_t write_chain(const struct resolver *r, size_t from, size_t j,
                          char *o)
{
    size_t n = r->depth - from, listed = n <= 8 ? n : 4, len = 0;
    if (n <= 8)
        len = put(o, len, "alias cycle ");
    else
        len = put(o, len, "alias cycle of %zu names: ", n);
    for (size_t k = from; k < from + listed; k++) {
        const char *name = r->t->v[r->stack[k]].name;
        len = put(o, len, "%.*s%s -> ", shown(name), name, more(name));
    }
    if (listed < n)
        len = put(o, len, "... -> ");
    const char *name = r->t->v[j].name;
    return put(o, len, "%.*s%s", shown(name), name, more(name));
}

/* The depth D <= H such that the stack entry D - 1 is the highest one
 * below H on no cycle (0: none); the runs skipped on the way are made to
 * point at D, so that a run is walked over about once, however often
 * the stack below it is met again. */
static size_t unmarked_below(struct resolver *r, size_t h)
{
    size_t d = h;
    while (d && r->cycle_of[r->stack[d - 1]])
        d = r->low[d - 1];
    while (h > d) {
        size_t next = r->low[h - 1];
        r->low[h - 1] = d;
        h = next;
    }
    return d;
}

/* Definition J, on the stack, is met again: the stack from J on is a
 * cycle. Its members not yet on one are put on it, described once: all
 * its names when they are eight or fewer, else the first four. The
 * entries on no cycle are each put on this one; the runs of entries
 * already on one are skipped (unmarked_below), so a chain met again by
 * thousands of names is walked about once, not once a name (review 34
 * F1: K references back under a chain of D names took K x D steps). */
static void mark_cycle(struct resolver *r, size_t j)
{
    size_t from = r->at[j];
    size_t h = unmarked_below(r, r->depth);
    if (h <= from)
        return;     /* each member already names a cycle it is in */
    struct rt_symbol_table *t = r->t;
    if (t->n_cycles == r->cycles_cap) {
        /* At most one new cycle a definition: never more than T->n. */
        size_t cap = r->cycles_cap ? r->cycles_cap + r->cycles_cap / 2 : 16;
        struct rt_symbol_cycle *v = realloc(t->cycles, cap * sizeof *v);
        if (!v) {
            r->oom = true;
            return;
        }
        t->cycles = v;
        r->cycles_cap = cap;
    }
    /* Sized by the names as shown: a cycle of two short names holds a
     * few dozen bytes, not room for two of 64. */
    size_t len = write_chain(r, from, j, NULL);
    char *chain = malloc(len + 1);
    if (!chain) {
        r->oom = true;
        return;
    }
    write_chain(r, from, j, chain);
    struct rt_symbol_cycle *c = &t->cycles[t->n_cycles++];
    c->first = j;
    c->n = r->depth - from;
    c->chain = chain;
    while (h > from) {
        size_t k = h - 1;
        r->cycle_of[r->stack[k]] = t->n_cycles;
        r->low[k] = k;
        h = unmarked_below(r, k);
    }
}

static void visit(struct resolver *r, size_t i)
{
    r->state[i] = ACTIVE;
    r->at[i] = 0;
    r->stack[0] = i;
    r->pos[0] = r->t->v[i].expr;
    r->depth = 1;
    while (r->depth && !r->oom) {
        size_t top = r->stack[r->depth - 1];
        size_t len = 0;
        const char *name = next_name(&r->pos[r->depth - 1], &len);
        if (!name) {
            evaluate(r, top);
            r->state[top] = DONE;
            r->depth--;
            continue;
        }
        char *nm = oom_strndup(&r->oom, name, len);
        if (!nm)
            break;
        struct rt_symbol_def *ref = find_exact(r->t, nm);
        free(nm);
        if (!ref)
            continue;
        size_t j = (size_t)(ref - r->t->v);
        if (r->state[j] == ACTIVE) {
            mark_cycle(r, j);
        } else if (r->state[j] == UNSEEN) {
            r->state[j] = ACTIVE;
            r->at[j] = r->depth;
            r->stack[r->depth] = j;
            r->pos[r->depth] = ref->expr;
            r->depth++;
        }
    }
}

/* 0, or -1 out of memory. */
static int resolve_all(struct rt_symbol_table *t)
{
    struct resolver r = {.t = t};
    size_t n = t->n ? t->n : 1;
    r.state = calloc(n, 1);
    r.stack = calloc(n, sizeof *r.stack);
    r.pos = calloc(n, sizeof *r.pos);
    r.at = calloc(n, sizeof *r.at);
    r.cycle_of = calloc(n, sizeof *r.cycle_of);
    r.low = calloc(n, sizeof *r.low);
    r.oom = !r.state || !r.stack || !r.pos || !r.at || !r.cycle_of || !r.low;
    for (size_t i = 0; i < t->n && !r.oom; i++)
        if (r.state[i] == UNSEEN)
            visit(&r, i);
    if (!t->n_cycles) {
        free(t->cycles);
        t->cycles = NULL;
    } else if (t->n_cycles < r.cycles_cap) {
        /* What is kept is what was found. */
        struct rt_symbol_cycle *v =
            realloc(t->cycles, t->n_cycles * sizeof *v);
        if (v)
            t->cycles = v;
    }
    free(r.state);
    free(r.stack);
    free(r.pos);
    free(r.at);
    free(r.cycle_of);
    free(r.low);
    return r.oom ? -1 : 0;
}

/* What definition I, whose own value is at fault (root_of(I) is I), says
 * of it; a new string, NULL out of memory. On a cycle: the cycle's names
 * when they are few, or for the definition the walk met it by; else how
 * many and where that one is (a line of bounded length for each
 * member). */
static char *root_detail(const struct rt_symbol_table *t, size_t i)
{
    const struct rt_symbol_def *def = &t->v[i];
    bool oom = false;
    switch (def->why) {
    case WHY_TWICE:
        return strdup("defined twice with different values");
    case WHY_EMPTY:
        return strdup("defined without a value");
    case WHY_RANGE:
        return strdup("value out of range");
    case WHY_DEPTH:
        return strdup("value nested too deeply");
    case WHY_UNDEFINED: {
        const char *nm = def->expr + def->ref;
        size_t len = 0;
        while (is_ident_char(nm[len]))
            len++;
        return oom_asprintf(&oom, "'%.*s%s' is not defined",
                            len < SHOWN ? (int)len : SHOWN, nm,
                            len > SHOWN ? "..." : "");
    }
    case WHY_CYCLE: {
        const struct rt_symbol_cycle *c = &t->cycles[def->ref];
        if (c->n <= 8 || c->first == i)
            return strdup(c->chain);
        const struct rt_symbol_def *f = &t->v[c->first];
        return oom_asprintf(&oom, "alias cycle of %zu names with %.*s%s "
                            "(line %u)", c->n, shown(f->name), f->name,
                            more(f->name), f->line);
    }
    default:
        return oom_asprintf(&oom, "value '%.*s%s' is not a number",
                            shown(def->expr), def->expr, more(def->expr));
    }
}

char *rt_symbol_problem(const struct rt_symbol_table *t,
                        const struct rt_symbol_def *def)
{
    size_t i = (size_t)(def - t->v);
    bool oom = false;
    if (def->why == WHY_TWICE)
        return oom_asprintf(&oom, "%s is defined again at line %u with a "
                            "different value (first at line %u)", def->name,
                            def->problem_line, def->line);
    if (def->why == WHY_EMPTY)
        return oom_asprintf(&oom, "%s is defined without a value",
                            def->name);
    size_t root = root_of(t, i);
    char *detail = root_detail(t, root);
    if (!detail)
        return NULL;
    const struct rt_symbol_def *rd = &t->v[root];
    char *s;
    if (def->why == WHY_CYCLE)
        s = oom_asprintf(&oom, "%s is in an %s", def->name, detail);
    else if (root == i)
        s = oom_asprintf(&oom, "%s: %s", def->name, detail);
    else
        s = oom_asprintf(&oom, "%s: %.*s%s (line %u): %s", def->name,
                         shown(rd->name), rd->name, more(rd->name), rd->line,
                         detail);
    free(detail);
    return s;
}

/* The text of LEN bytes of a symbol file at DATA, NUL-terminated, in
 * *TEXT (*TLEN bytes before the NUL). OWNED: DATA is a malloc'd buffer
 * given up to this call, which an 8-bit file becomes in place (a big
 * header is then held once, not twice). 0, or -1 with errors in D. */
static int symbol_text(const char *path, void *data, size_t len, int owned,
                       char **text, size_t *tlen, struct rt_diags *d)
{
    unsigned char *p = data;
    int rc = -1;
    bool bom16 = len >= 2 && p[0] == 0xFF && p[1] == 0xFE;
    bool bom8 = len >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF;
    enum rt_text_encoding enc = bom16 ? RT_TEXT_UTF16LE
                                : bom8 ? RT_TEXT_8BIT : rt_text_sniff(p, len);
    if (enc == RT_TEXT_UTF16BE || (len >= 2 && p[0] == 0xFE && p[1] == 0xFF)) {
        rt_diags_add(d, RT_ERROR, path, 0, NULL,
                     "symbol file is UTF-16 big-endian; save it as UTF-16LE "
                     "or ASCII");
    } else if (enc == RT_TEXT_AMBIGUOUS) {
        rt_diags_add(d, RT_ERROR, path, 1, NULL, "%s", RT_TEXT_AMBIGUOUS_MSG);
    } else if (enc == RT_TEXT_UTF16LE) {
        /* With a mark, or without one as rt_text_sniff tells. */
        size_t skip = bom16 ? 2 : 0, off = 0;
        size_t blen = len - skip;
        int r = -1;
        if (blen % 2 == 0) {
            blen = rt_text_strip_dos_eof(p + skip, blen, 1);
            r = rt_utf16le_to_utf8(p + skip, blen, text, tlen, &off);
        }
        if (r == -2)
            rt_diags_nomem(d);
        else if (r)
            rt_diags_add(d, RT_ERROR, path, 0, NULL,
                         "invalid UTF-16LE symbol file");
        else
            rc = 0;
    } else {
        size_t skip = bom8 ? 3 : 0;
        /* Only ASCII matters here: names and numbers. Comments may be in
         * any code page, so no decoding is attempted. */
        *tlen = rt_text_strip_dos_eof(p + skip, len - skip, 0);
        if (owned) {
            memmove(p, p + skip, *tlen);
            *text = realloc(p, *tlen + 1);
            if (*text)
                owned = 0;      /* it is *TEXT now */
        } else {
            *text = malloc(*tlen + 1);
            if (*text)
                memcpy(*text, p + skip, *tlen);
        }
        if (*text) {
            (*text)[*tlen] = '\0';
            rc = 0;
        } else {
            rt_diags_nomem(d);
        }
    }
    if (owned)
        free(data);
    return rc;
}

/* Parses TEXT (TLEN bytes, NUL-terminated, freed here) into T. */
static int parse_text(const char *path, char *text, size_t tlen,
                      struct rt_symbol_table *t, struct rt_diags *d)
{
    const char *nul = memchr(text, 0, tlen);
    if (nul) {
        rt_diags_add(d, RT_ERROR, path, line_at(text, (size_t)(nul - text)),
                     NULL, "NUL byte in the symbol file");
        free(text);
        return -1;
    }
    if (strip_comments(text, tlen, path, d)) {
        free(text);
        return -1;
    }
    t->path = strdup(path);
    bool oom = !t->path;
    /* Each logical line is joined in place, behind where it is read
     * from: joining only drops bytes, so it never overtakes the text. */
    unsigned line = 1;
    size_t i = 0;
    while (i < tlen && !oom) {
        /* Joins lines ending in a backslash, as the preprocessor does. */
        unsigned first = line;
        char *logical = text + i;
        size_t o = 0;
        while (i < tlen) {
            size_t e = i;
            while (e < tlen && text[e] != '\n')
                e++;
            size_t end = e;
            if (end > i && text[end - 1] == '\r')
                end--;
            bool cont = end > i && text[end - 1] == '\\';
            memmove(logical + o, text + i, end - i - cont);
            o += end - i - cont;
            i = e < tlen ? e + 1 : e;
            if (e < tlen)
                line++;
            if (!cont)
                break;
        }
        logical[o] = '\0';
        oom = parse_logical_line(t, logical, first) != 0;
    }
    free(text);
    if (oom || resolve_all(t) != 0) {
        rt_symbol_table_free(t);
        rt_diags_nomem(d);
        return -1;
    }
    return 0;
}

int rt_symbol_file_parse(const char *path, const void *data, size_t len,
                         struct rt_symbol_table *t, struct rt_diags *d)
{
    char *text;
    size_t tlen;
    memset(t, 0, sizeof *t);
    if (symbol_text(path, (void *)data, len, 0, &text, &tlen, d) != 0)
        return -1;
    return parse_text(path, text, tlen, t, d);
}

int rt_symbol_file_load(const char *path, struct rt_symbol_table *t,
                        struct rt_diags *d)
{
    return rt_symbol_file_load_kept(path, t, NULL, NULL, d);
}

int rt_symbol_file_load_kept(const char *path, struct rt_symbol_table *t,
                             uint8_t **raw, size_t *raw_len,
                             struct rt_diags *d)
{
    memset(t, 0, sizeof *t);
    uint8_t *data;
    size_t len;
    /* Beneath its folder: a link as its own name is refused when it is
     * read, whatever was there when the INI named it. */
    int rc = rt_os_read_file_beneath(path, MAX_SYMBOL_FILE_BYTES, &data,
                                     &len);
    if (rc == 0)
        d->bytes_read += len;
    if (rc != 0 && errno == ENOMEM)
        rt_diags_nomem(d);
    else if (rc == -2 && errno == EFBIG)
        rt_diags_add(d, RT_ERROR, path, 0, NULL,
                     "symbol file is larger than %u MiB",
                     MAX_SYMBOL_FILE_BYTES >> 20);
    else if (rc != 0)
        rt_diags_add(d, RT_ERROR, path, 0, NULL, "cannot %s: %s",
                     rc == -1 ? "open" : "read", rt_os_strerror(errno));
    if (rc != 0)
        return -1;
    char *text;
    size_t tlen;
    if (symbol_text(path, data, len, raw == NULL, &text, &tlen, d) != 0) {
        if (raw)
            free(data);
        return -1;
    }
    if (parse_text(path, text, tlen, t, d) != 0) {
        if (raw)
            free(data);
        return -1;
    }
    if (raw) {
        *raw = data;
        *raw_len = len;
    }
    return 0;
}

const struct rt_symbol_def *rt_symbol_find(const struct rt_symbol_table *t,
                                           const char *name)
{
    const struct rt_symbol_def *exact = find_exact(t, name);
    if (exact)
        return exact;
    const struct rt_symbol_def *first = find_folded(t, name);
    if (first && first->fold_count > 1)
        return NULL;            /* ambiguous */
    return first;
}

void rt_symbol_table_free(struct rt_symbol_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].name);     /* and its expr, in the same block */
    }
    for (size_t i = 0; i < t->n_cycles; i++)
        free(t->cycles[i].chain);
    free(t->cycles);
    free(t->v);
    rt_pos_index_free(&t->exact);
    rt_pos_index_free(&t->folded);
    free(t->path);
    memset(t, 0, sizeof *t);
}
