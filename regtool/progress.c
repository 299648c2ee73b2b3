/* The progress line of a long verb: on stderr, only when it is a
 * terminal, rewritten in place at most ten times a second and erased when
 * the verb ends, so that what the verb prints after it stands alone. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "platform/os.h"
#include "platform/progress.h"

struct progress_line {
    const char *verb;
    uint64_t last_ms;
    size_t shown;            /* the width of what is on the line now */
    int printed;
};

static struct progress_line line;

static void show(void *ctx, const char *stage, size_t done, size_t total)
{
    struct progress_line *p = ctx;
    uint64_t now = rt_os_monotonic_ms();
    if (p->printed && now - p->last_ms < 100)
        return;
    char text[200];
    /* DONE steps are behind: the one under way is the next. */
    int n = total ? snprintf(text, sizeof text, "%s: %s: %s %zu of %zu",
                             rt_cli_program(), p->verb, stage,
                             done < total ? done + 1 : total, total)
                  : snprintf(text, sizeof text, "%s: %s: %s",
                             rt_cli_program(), p->verb, stage);
    if (n < 0)
        return;
    size_t len = strlen(text);
    /* Spaces over what is left of a longer line before: no terminal
     * control sequence, which not every console reads. */
    fprintf(stderr, "\r%s%*s", text,
            p->shown > len ? (int)(p->shown - len) : 0, "");
    fflush(stderr);
    p->shown = len > p->shown ? len : p->shown;
    p->last_ms = now;
    p->printed = 1;
}

void rt_cli_progress_begin(const char *verb)
{
    if (!rt_progress_stderr_is_terminal())
        return;
    memset(&line, 0, sizeof line);
    line.verb = verb;
    rt_progress_listen(show, &line);
}

void rt_cli_progress_clear(void)
{
    if (line.printed)
        fprintf(stderr, "\r%*s\r", (int)line.shown, "");
    line.printed = 0;
    line.shown = 0;
}

void rt_cli_progress_end(void)
{
    rt_progress_listen(NULL, NULL);
    rt_cli_progress_clear();
    memset(&line, 0, sizeof line);
}
