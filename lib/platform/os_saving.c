/* Platform layer: files saved whole or not at all (os.h's savings): a
 * temporary file beside the name, written, synced and renamed to it, or
 * removed. Written once on top of os_posix.c's and os_win32.c's calls. */
#include "platform/os.h"
#include "platform/compat.h"
#include "platform/os_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How many bytes a file being saved gets ahead of the disk before they
 * are sent to it (rt_os_start_writeback). */
#define RT_OS_WRITEBACK_STEP ((uint64_t)8 << 20)

int rt_os_write_new_file(const char *path, const void *data, size_t len)
{
    int fd = rt_os_open(path, RT_OS_WRITE_NEW);
    if (fd < 0)
        return -1;
    if (rt_os_pwrite(fd, data, len, 0) != 0 || rt_os_fsync(fd) != 0) {
        int err = errno;
        rt_os_close(fd);
        rt_os_unlink(path);
        errno = err;
        return -1;
    }
    return rt_os_close(fd);
}

int rt_os_save_numbered(const char *path, const void *data, size_t len,
                        int force, char **used)
{
    struct rt_os_saving sv;
    if (rt_os_saving_open(&sv, path,
                          force ? RT_OS_SAVE_REPLACE : RT_OS_SAVE_NUMBERED,
                          0644, used) != 0)
        return -1;
    if (rt_os_saving_write(&sv, data, len) != 0)
        return -1;
    return rt_os_saving_finish(&sv);
}

/* Creates a temporary file beside PATH (a name of our own: WRITE_NEW
 * never takes over another's): its descriptor, and its name in *TMP (a
 * new string); -1 with errno. The name's 16 hex digits are fresh random
 * bytes, each name's its own: no one else can tell them in advance
 * (review 41 R41-4: from the time and a count, names a local user made
 * first in a shared folder failed every save; review 42 R42-10: from the
 * hash basis and a count, one name shown gave away the run's later ones
 * and the basis keying its tables). */
static int open_temporary(const char *path, char **tmp)
{
    size_t plen = strlen(path);
    *tmp = malloc(plen + 32);
    if (!*tmp) {
        errno = ENOMEM;
        return -1;
    }
    int fd = -1;
    rt_os_interrupts_held(1);
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        snprintf(*tmp, plen + 32, "%s.tmp.%016llx", path,
                 (unsigned long long)rt_os_random64());
        fd = rt_os_open(*tmp, RT_OS_WRITE_NEW);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd >= 0)
        rt_os_temporary_made(*tmp, fd);
    rt_os_interrupts_held(0);
    if (fd < 0 && errno == EEXIST)
        rt_os_refuse(EBUSY, "no temporary file could be made beside %s "
                     "(each of the 100 names tried was taken)", path);
    if (fd < 0) {
        int err = errno;
        free(*tmp);
        *tmp = NULL;
        errno = err;
    }
    return fd;
}

/* SV given up before its file was made, and ON_DISK freed: R. */
static int abandoned(struct rt_os_saving *sv, char *on_disk, int r)
{
    int err = errno;
    rt_os_saving_abandon(sv);
    free(on_disk);
    errno = err;
    return r;
}

/* Whether PATH's name ends in a dot or a blank, which Windows' file
 * layer drops (review 50 R50-3: "SOFTWARE " written beside SOFTWARE, a
 * second entry of one name to Windows): -1 with errno EPERM, else 0. */
static int drops_ending(const char *path)
{
    const char *slash = rt_os_last_separator(path);
    const char *name = slash ? slash + 1 : path;
    size_t len = strlen(name);
    if (!len || (name[len - 1] != ' ' && name[len - 1] != '.') ||
        !strcmp(name, ".") || !strcmp(name, ".."))
        return 0;
    return rt_os_refuse(EPERM, "%s: its name ends in a dot or a blank, "
                               "which Windows drops: it would be a second "
                               "entry of the name without them", path);
}

/* Whether PATH, beneath a tree, names an entry its folder holds in
 * another letter case, or in two (Windows sees one name there: review 49
 * R49-6, an output named Windows/system32 was written beside System32,
 * and the tree then refused as holding both). 0, or -1 with errno. */
static int names_a_twin(const char *path)
{
#ifdef _WIN32
    /* Windows' own file system finds the entry in any letter case: the
     * name replaces it, no second one is made. */
    (void)path;
    return 0;
#else
    const char *slash = rt_os_last_separator(path);
    const char *name = slash ? slash + 1 : path;
    char *dir = rt_os_folder_of(path);
    if (!dir)
        return errno = ENOMEM, -1;
    char *found = rt_os_path_ci(dir, name, 1);
    int err = errno;
    free(dir);
    if (!found && err != EEXIST)
        return 0;       /* not there in any case: a new name */
    int had = found != NULL;
    const char *at = had ? rt_os_last_separator(found) : NULL;
    int other = had && strcmp(at ? at + 1 : found, name) != 0;
    free(found);
    if (had && !other)
        return 0;
    return rt_os_refuse(EPERM, "%s: its folder holds %s, which Windows "
                                "sees as the same name: writing it would "
                                "make a second entry of one name",
                        path, had ? "that name in another letter case"
                                  : "that name twice");
#endif
}

/* Whether PATH is taken for a new file: there, or beneath a tree there
 * in another letter case (names_a_twin: review 50 R50-2, b.ini_001
 * written beside B.INI_001), as Windows' file system finds it. 1, 0, or
 * -1 with errno (a name Windows drops part of, memory). */
static int name_taken(const char *path)
{
    if (rt_os_exists(path))
        return 1;
    if (!rt_os_is_confined(path) || names_a_twin(path) == 0)
        return 0;
    return errno == EPERM ? 1 : -1;
}

/* rt_os_saving_open_via up to the file itself: the name checked and
 * chosen (*USED), *MODE a replacement's, nothing made; *ON_DISK the path
 * on a held disk (freed by the caller). 0, or -1 with errno (SV
 * abandoned). */
static int saving_name(struct rt_os_saving *sv, const char *path,
                       enum rt_os_saving_rule rule, unsigned *mode,
                       const struct rt_os_write_calls *c, char **used,
                       char **on_disk)
{
    memset(sv, 0, sizeof *sv);
    sv->fd = -1;
    sv->calls = c;
    sv->rule = rule;
    *used = NULL;
    *on_disk = NULL;
    /* A file named on another machine's disk (its Windows\Temp) is
     * written with the tree's rules: no link planted there is followed,
     * however the path to the disk was spelled (it is written by the
     * disk's canonical form, and said so in *USED). */
    if (rt_os_hold_disk_of(path, &sv->disk, on_disk) != 0)
        return -1;
    if (*on_disk)
        path = *on_disk;
    /* What the name is now must be a file, or nothing: the file is put in
     * place by a rename, which would replace a FIFO, a device, a link
     * (the user's /dev/stdout, whatever it leads to) with a file, and a
     * numbered name beside it would be written in /dev. Beneath a tree
     * or a disk the stat does not follow the name, a link there being
     * what it is (review 44 R44-5: one planted as the output's name was
     * replaced, where the same outside is refused). */
    struct rt_os_stat now;
    int link = !rt_os_is_confined(path) && rt_os_is_link(path);
    if (link)
        return abandoned(sv, NULL,
                         rt_os_refuse(ELOOP,
                                      "%s is a symbolic link: regtool writes "
                                      "a file whole, then puts it in place of "
                                      "the name, which would replace the "
                                      "link; name the file it leads to",
                                      path));
    if (rt_os_stat(path, &now) == 0 && now.kind != RT_OS_ABSENT &&
        now.kind != RT_OS_FILE) {
        int r = rt_os_refuse(now.kind == RT_OS_DIR ? EISDIR : ENODEV,
                             "%s is %s, not a file: regtool writes a file "
                             "whole, then puts it in place of the name",
                             path, now.what);
        return abandoned(sv, NULL, r);
    }
    if (rt_os_is_confined(path) &&
        (drops_ending(path) != 0 ||
         (rule == RT_OS_SAVE_REPLACE && names_a_twin(path) != 0)))
        return abandoned(sv, NULL, -1);
    size_t n = strlen(path);
    if (!(*used = malloc(n + 8))) {
        rt_os_saving_abandon(sv);
        errno = ENOMEM;
        return -1;
    }
    memcpy(*used, path, n + 1);
    if (rule == RT_OS_SAVE_REPLACE) {
        if (!(sv->final = strdup(path))) {
            rt_os_saving_abandon(sv);
            errno = ENOMEM;
            return -1;
        }
        /* A file replaced keeps its owner, its group and their
         * permission bits (a backup of 0600 stays 0600, a textfile a
         * monitoring group reads or a .reg file a team writes, 0640 or
         * 0660, stays its group's); what others may do, as the umask
         * leaves a new file's (never a hostile tree's 0666), and never
         * set-user-ID. A new file gets MODE as the umask leaves it. */
        struct rt_os_stat was;
        int file = rt_os_stat(path, &was) == 0 && was.kind == RT_OS_FILE;
        /* What would refuse the rename is refused now, before anything
         * is written (review 46 R46-2). */
        if (file && rt_os_name_replaceable(path) != 0)
            return abandoned(sv, NULL, -1);
        if (file) {
            *mode = (was.mode & 0770) | (rt_os_creation_mode(was.mode) & 07);
            sv->keep_owner = 1;
            sv->uid = was.uid;
            sv->gid = was.gid;
        } else {
            *mode = rt_os_creation_mode(*mode);
        }
    } else {
        /* The name is taken when the file is whole (finish); a name in
         * use now is refused, or passed over, before anything is
         * written. */
        unsigned i = 0;
        for (int taken; (taken = name_taken(*used)) != 0;) {
            if (taken < 0)
                return abandoned(sv, NULL, -1);
            if (rule == RT_OS_SAVE_NEW || ++i > 999) {
                rt_os_saving_abandon(sv);
                errno = EEXIST;
                return -1;
            }
            snprintf(*used + n, 8, "_%03u", i);
        }
        sv->name = *used;
        sv->name_len = n;
    }
    return 0;
}

int rt_os_saving_open_via(struct rt_os_saving *sv, const char *path,
                          enum rt_os_saving_rule rule, unsigned mode,
                          const struct rt_os_write_calls *c, char **used)
{
    char *on_disk;
    if (saving_name(sv, path, rule, &mode, c, used, &on_disk) != 0) {
        free(on_disk);
        return -1;
    }
    free(on_disk);
    /* The owner first: a change of owner may take set-id bits away. */
    if ((sv->fd = open_temporary(*used, &sv->path)) >= 0 && sv->keep_owner)
        rt_os_keep_owner(sv->fd, sv->uid, sv->gid);
    if (sv->fd < 0 ||
        (rule == RT_OS_SAVE_REPLACE && rt_os_set_mode(sv->fd, mode) != 0)) {
        int err = errno;
        rt_os_saving_abandon(sv);
        errno = err;
        return -1;
    }
    return 0;
}

int rt_os_saving_check(const char *path, enum rt_os_saving_rule rule)
{
    struct rt_os_saving sv;
    char *used, *on_disk;
    unsigned mode = 0644;
    /* No name is no file to open, as the saving finds (review 40 R40-7). */
    if (!*path) {
        errno = ENOENT;
        return -1;
    }
    int r = saving_name(&sv, path, rule, &mode, NULL, &used, &on_disk);
    if (r == 0) {
        /* The temporary goes beside the name: its folder must be one,
         * reached as the saving reaches it (a link or ".." on the way in
         * a tree refused in the same words: review 40 R40-4). */
        char *dir = rt_os_folder_of(used);
        struct rt_os_stat st;
        if (!dir) {
            r = -1;
        } else if (rt_os_stat(dir, &st) != 0) {
            r = -1;
        } else if (st.kind == RT_OS_DIR) {
            /* One that cannot take the temporary (a read-only mount,
             * /proc: review 45 R45-4, refused only after the change). */
            r = rt_os_folder_takes_files(dir);
        } else {
            /* A name beneath it is refused for what it is (a link in a
             * tree, in the walk's words), as the temporary's open is. */
            char *probe = NULL;
            struct rt_os_stat in;
            int said = asprintf(&probe, "%s/x", dir) >= 0 &&
                       rt_os_stat(probe, &in) != 0;
            free(probe);
            if (!said)
                errno = st.kind == RT_OS_ABSENT ? ENOENT : ENOTDIR;
            r = -1;
        }
        free(dir);
    }
    int err = errno;
    rt_os_saving_abandon(&sv);
    free(used);
    free(on_disk);
    errno = err;
    return r;
}

int rt_os_saving_open(struct rt_os_saving *sv, const char *path,
                      enum rt_os_saving_rule rule, unsigned mode,
                      char **used)
{
    return rt_os_saving_open_via(sv, path, rule, mode, NULL, used);
}

int rt_os_saving_write(struct rt_os_saving *sv, const void *data, size_t len)
{
    const struct rt_os_write_calls *c = sv->calls;
    if ((c && c->pwrite ? c->pwrite : rt_os_pwrite)(sv->fd, data, len,
                                                    sv->written) != 0) {
        int err = errno;
        rt_os_saving_abandon(sv);
        errno = err;
        return -1;
    }
    sv->written += len;
    /* A large file goes to the disk while the caller makes the rest of
     * it: the fsync that finishes it waits for its last part only. */
    if (sv->written - sv->sent >= RT_OS_WRITEBACK_STEP) {
        rt_os_start_writeback(sv->fd, sv->sent, sv->written - sv->sent);
        sv->sent = sv->written;
    }
    return 0;
}

/* NEW and NUMBERED: claims SV's name (or, NUMBERED, the next free one)
 * by creating it empty, for the rename to replace at once: a rename
 * alone would replace a file another process made there meanwhile. A
 * crash between the two leaves the name empty, which no reader takes
 * for a whole file. 0, or -1 with errno (EEXIST when no name is left). */
static int claim_name(struct rt_os_saving *sv)
{
    unsigned i = 0;
    if (sv->name[sv->name_len])
        i = (unsigned)strtoul(sv->name + sv->name_len + 1, NULL, 10);
    for (;;) {
        if (rt_os_temporary_claim(sv->path, sv->name) == 0)
            return 0;
        if (errno != EEXIST || sv->rule == RT_OS_SAVE_NEW || ++i > 999)
            return -1;
        snprintf(sv->name + sv->name_len, 8, "_%03u", i);
    }
}

int rt_os_saving_finish(struct rt_os_saving *sv)
{
    const struct rt_os_write_calls *c = sv->calls;
    int r = (c && c->fsync ? c->fsync : rt_os_fsync)(sv->fd);
    if (rt_os_close(sv->fd) != 0)
        r = -1;
    sv->fd = -1;
    const char *to = sv->final ? sv->final : sv->name;
    int claimed = 0;
    if (r == 0 && !sv->final) {
        r = claim_name(sv);
        claimed = r == 0;
    }
    if (r == 0) {
        r = c && c->rename ? c->rename(sv->path, to)
                           : rt_os_temporary_rename(sv->path, to);
        if (r == 0)
            rt_os_temporary_gone(sv->path);
        /* The rename itself must reach the disk too. */
        if (r == 0)
            (c && c->fsync_dir_of ? c->fsync_dir_of
                                  : rt_os_fsync_dir_of)(to);
    }
    if (r != 0) {
        int err = errno;
        if (claimed)
            rt_os_temporary_unclaim(sv->path, to);
        rt_os_saving_abandon(sv);
        errno = err;
        return -1;
    }
    free(sv->path);
    free(sv->final);
    rt_os_release_disk(sv->disk);
    memset(sv, 0, sizeof *sv);
    sv->fd = -1;
    return 0;
}

void rt_os_saving_abandon(struct rt_os_saving *sv)
{
    if (sv->fd >= 0)
        rt_os_close(sv->fd);
    if (sv->path)
        rt_os_temporary_remove(sv->path);
    free(sv->path);
    free(sv->final);
    rt_os_release_disk(sv->disk);
    memset(sv, 0, sizeof *sv);
    sv->fd = -1;
}

int rt_os_replace_file(const char *path, const void *data, size_t len,
                       unsigned mode)
{
    return rt_os_replace_file_via(path, data, len, mode, NULL);
}

int rt_os_replace_file_via(const char *path, const void *data, size_t len,
                           unsigned mode, const struct rt_os_write_calls *c)
{
    struct rt_os_saving sv;
    char *used;
    int r = rt_os_saving_open_via(&sv, path, RT_OS_SAVE_REPLACE, mode, c,
                                  &used);
    if (r == 0)
        r = rt_os_saving_write(&sv, data, len) || rt_os_saving_finish(&sv)
                ? -1 : 0;
    int err = errno;
    free(used);
    errno = err;
    return r;
}
