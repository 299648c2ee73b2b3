/* Platform layer: every call regtool makes to the operating system's file
 * system, behind one small interface, so that the layers above build for
 * Linux and natively for Windows alike. os_posix*.c implement it with
 * POSIX calls, os_win32*.c with Win32 (paths are UTF-8 on both; the Win32
 * side converts them to UTF-16); os_common.c holds what both share.
 * Nothing outside this folder includes <unistd.h>, <fcntl.h>, <dirent.h>
 * or <sys/...> (tools/check-layers.sh); only the win32 store talks to the
 * Windows registry itself.
 *
 * Files are plain int descriptors (CRT descriptors on Windows, always in
 * binary mode). Every call returns 0 (or a count) on success and -1 with
 * errno set on failure, unless it says otherwise. */
#ifndef RT_PLATFORM_OS_H
#define RT_PLATFORM_OS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Which implementation is built: Win32 for a native Windows build; POSIX
 * elsewhere, Winelib builds included (winegcc defines _WIN32 but links
 * the Unix C library, so they take their files from Linux). */
#if defined(_WIN32) && !defined(__WINE__)
#define RT_OS_WIN32 1
#else
#define RT_OS_POSIX 1
#endif

/* How rt_os_open opens a file. */
enum rt_os_open_mode {
    RT_OS_READ,          /* read only; the file must exist */
    RT_OS_WRITE,         /* read and write; the file must exist */
    RT_OS_WRITE_CREATE,  /* read and write; created when missing */
    RT_OS_WRITE_TRUNC,   /* read and write; created, or emptied */
    RT_OS_WRITE_NEW,     /* read and write; fails with EEXIST if it exists */
    /* Read only, refused wherever RT_OS_WRITE would be (a file of
     * several names beneath a tree): what a dry run opens to find what
     * its commit's opens would refuse, without writing. */
    RT_OS_READ_AS_WRITE,
};

int rt_os_open(const char *path, enum rt_os_open_mode mode);
int rt_os_close(int fd);
/* Reads up to LEN bytes at OFF; returns the count (0 at the end), -1. */
long long rt_os_pread(int fd, void *buf, size_t len, uint64_t off);
/* Writes all LEN bytes at OFF. */
int rt_os_pwrite(int fd, const void *buf, size_t len, uint64_t off);
/* Makes the file's data and size durable (fsync, FlushFileBuffers). */
int rt_os_fsync(int fd);
/* Asks the system to start writing the LEN bytes at OFF to the disk now,
 * so that a later rt_os_fsync has less left to wait for: a hint, which
 * fails silently (Linux: sync_file_range; elsewhere nothing). */
void rt_os_start_writeback(int fd, uint64_t off, uint64_t len);
int rt_os_ftruncate(int fd, uint64_t size);
int rt_os_fsize(int fd, uint64_t *size);
/* Takes an exclusive lock on the whole file, waiting while another
 * process holds it; the lock goes with the descriptor's close. */
int rt_os_lock(int fd);
/* Takes the lock (SHARED: a shared one, else exclusive) without waiting:
 * -1 with errno EWOULDBLOCK while another process holds a lock that
 * conflicts. The file's bytes stay readable and writable by others (on
 * Windows the lock covers a byte far past any content). */
int rt_os_trylock(int fd, int shared);

/* Makes sure the file can grow to SIZE bytes without running out of
 * space, without changing its size (space is reserved where the file
 * system can, else the free space is checked): -1 with ENOSPC when it
 * cannot. */
int rt_os_reserve(int fd, uint64_t size);
/* Gives back what rt_os_reserve reserved past the file's end, its size,
 * bytes and modification time unchanged: a change refused after its
 * reservation leaves the disk's free space as it found it. */
int rt_os_unreserve(int fd);
/* The bytes free for an unprivileged user on the file system of directory
 * PATH (beneath a confined directory, a link as PATH is refused). */
int rt_os_free_space(const char *path, uint64_t *bytes);
/* Files and folders that can still be made on directory PATH's file
 * system (its free inodes, opened as rt_os_free_space opens it): 0, or
 * -1 with errno (ENOSYS where the file system has no such count). */
int rt_os_free_inodes(const char *path, uint64_t *inodes);
/* Whether folder DIR can take a new file, as far as can be told without
 * making one: not on a read-only file system (EROFS), not on the
 * kernel's proc or sysfs (EACCES: no file of one's own is made there),
 * this process allowed to write it, not immutable nor append-only (EPERM:
 * no entry of it renamed). 0, or -1 with errno (rt_os_strerror
 * names DIR). */
int rt_os_folder_takes_files(const char *dir);
/* Of rt_os_folder_takes_files' tests the immutable and append-only one
 * alone (EPERM), which no user can get past; -1 with errno ENOENT when
 * DIR is not there. Beneath a confined tree DIR is opened there, as
 * rt_os_folder_takes_files opens it, never looked at by its path. */
int rt_os_folder_flags_ok(const char *dir);
/* Whether the file PATH (which exists) can be replaced by a rename, as
 * far as can be told without making one: not immutable nor append-only
 * (EPERM), not a mount point (EBUSY: a file bind-mounted there). 0, or
 * -1 with errno (rt_os_strerror names PATH). */
int rt_os_name_replaceable(const char *path);
/* The same of the file FD has open (PATH names it in the message): its
 * immutable and append-only flags alone. */
int rt_os_fd_replaceable(int fd, const char *path);
/* Sleeps for MS milliseconds. */
void rt_os_sleep_ms(unsigned ms);
/* Milliseconds on a clock that only goes forward, for measuring waits:
 * the wall clock's whole seconds would cut a 2 s wait to 1.01 s. */
uint64_t rt_os_monotonic_ms(void);
/* This process's id. */
long rt_os_getpid(void);

/* Interrupts (SIGINT, Ctrl-C; SIGTERM; on POSIX SIGHUP): after
 * rt_os_catch_interrupts, they no longer end the process but are noted,
 * and rt_os_interrupted says which came first (RT_OS_SIGINT,
 * RT_OS_SIGTERM, RT_OS_SIGHUP) or 0. Callers check
 * it where stopping is safe. On POSIX a call blocked in the kernel (an
 * open or read that waits for a FIFO's other end, a stalled device) is
 * not restarted after one: it fails with EINTR, and this layer's reads
 * and writes give up with EINTR once an interrupt is noted, so that a
 * blocked regtool still ends. */
#define RT_OS_SIGHUP  1     /* POSIX: a closed terminal or session */
#define RT_OS_SIGINT  2
#define RT_OS_SIGTERM 15
void rt_os_catch_interrupts(void);
int rt_os_interrupted(void);
/* Before rt_os_catch_interrupts, for what changes nothing (a reader
 * waiting for the lock, or blocked on a file): an interrupt removes the
 * temporary of a file being saved, prints MESSAGE on stderr, or SAVING_LEFT
 * when it removed one (the file left as it was), or SAVING_PLACED when
 * the temporary had just been renamed into place (the file replaced,
 * whole), and ends the process at once with 128 + the signal's number
 * (130 for SIGINT, 143 for SIGTERM). The strings are kept, not copied. */
void rt_os_end_on_interrupts(const char *message, const char *saving_left,
                             const char *saving_placed);
/* Sends SIG to this process (a test hook's way to interrupt a commit at
 * a chosen point). */
void rt_os_raise(int sig);

/* Makes a rename or removal in the directory holding PATH durable (fsync
 * of the directory on POSIX; on Windows a rename is made write-through
 * and this does nothing). */
int rt_os_fsync_dir_of(const char *path);
/* Renames FROM to TO, replacing TO atomically when it exists. */
int rt_os_rename(const char *from, const char *to);
int rt_os_unlink(const char *path);
/* Removes the empty directory PATH. */
int rt_os_rmdir(const char *path);
/* Creates directory PATH (its parent exists); then with its missing
 * parents. An existing directory is no error for rt_os_mkdirs; anything
 * else of that name (a file, or beneath a confined directory a link) is
 * refused with ENOTDIR, rt_os_strerror naming it and what it is. */
int rt_os_mkdir(const char *path);
int rt_os_mkdirs(const char *path);
/* rt_os_mkdirs, noting the directories it made: each new one's path is
 * appended to the list *MADE of *N_MADE new strings (NULL and 0 to begin
 * with; rt_os_free_list), parents first, on failure too, so that a
 * caller undoing its work removes those, deepest first, and nothing that
 * was there before. */
int rt_os_mkdirs_noting(const char *path, char ***made, size_t *n_made);
/* Sets the permission bits of an open file to MODE's (0777: never
 * set-user-ID, set-group-ID or sticky, whatever a tree's file had), as
 * they are (nothing on Windows). */
int rt_os_set_mode(int fd, unsigned mode);
/* Gives the open file FD owner UID and group GID, as far as this process
 * may (root: both; another user: a group it is in), so that a file put in
 * place of another is still its owner's; does nothing on Windows. A
 * refusal is no failure: the file stays this process's. */
void rt_os_keep_owner(int fd, unsigned uid, unsigned gid);
/* MODE as a file created now gets it: without the bits the process's
 * umask takes away (MODE itself on Windows). */
unsigned rt_os_creation_mode(unsigned mode);

enum rt_os_kind { RT_OS_ABSENT, RT_OS_FILE, RT_OS_DIR, RT_OS_OTHER };
struct rt_os_stat {
    enum rt_os_kind kind;
    uint64_t size;
    /* The file's identity: equal for two names of one file. */
    uint64_t dev, ino;
    /* How many names the file has (0 or 1 where the system cannot tell): a
     * file of a tree that another name shares may be a host file. */
    uint64_t links;
    unsigned mode;       /* permission bits (0666 where there are none) */
    unsigned uid, gid;   /* owner and group (0 where there are none) */
    /* Last modification, in nanoseconds since the system's epoch: with
     * the size and identity, tells whether a file was written since it
     * was last looked at (a write within the file system's timestamp
     * granularity may not change it, so callers check content too). */
    uint64_t mtime_ns;
    /* What it is, in words for a message: "a regular file", "a folder",
     * "a symbolic link", "a FIFO", "a socket", "a character device", "a
     * block device", "a device"; NULL when ABSENT. */
    const char *what;
};
/* Stats PATH; a missing PATH is RT_OS_ABSENT and returns 0. */
int rt_os_stat(const char *path, struct rt_os_stat *st);
/* Stats the open file FD: what was opened, whatever its name names by
 * now (a file checked by name may be swapped for a link or a FIFO before
 * it is opened). */
int rt_os_fstat(int fd, struct rt_os_stat *st);
/* 1 when PATH names anything, else 0. */
int rt_os_exists(const char *path);
/* 1 when PATH itself is a symbolic link (a reparse point on Windows),
 * else 0: what a rename into PATH would replace. */
int rt_os_is_link(const char *path);
int rt_os_is_dir(const char *path);
/* Whether paths A and B name the same existing file: 1, 0. */
int rt_os_same_file(const char *a, const char *b);

/* The bytes of DIR's regular files in all (its folders and other
 * entries not counted): what reading every file there would read, known
 * before any is (an INF copy's folder: its INI and symbol file). 0 when
 * DIR cannot be listed. */
uint64_t rt_os_folder_file_bytes(const char *dir);
/* The entries of directory DIR, without "." and "..", in the order the
 * system gives them: a new array of new strings (rt_os_free_list). */
int rt_os_list_dir(const char *dir, char ***names, size_t *n);
void rt_os_free_list(char **names, size_t n);

/* A tree that someone else wrote (a disk regtool repairs, as root): after
 * rt_os_confine(DIR), every call of this layer on a path beneath DIR
 * resolves it from one handle of DIR, component by component: a symbolic
 * link or junction anywhere beneath DIR is refused (ELOOP), and so is a
 * "." or ".." component (EXDEV), so no path built from names read in the
 * tree reaches outside it, whatever the tree holds or a racing writer
 * plants meanwhile. DIR itself is the caller's: links in it are followed
 * once, here, a "." in it names the folder before it (POSIX: dropped,
 * beneath a confined directory too, as by rt_os_hold_disk_of), and its
 * canonical form (what the caller builds its paths on) goes to
 * *CANONICAL (a new string; NULL allowed). Confinements
 * nest and count: each rt_os_confine is undone by one rt_os_unconfine of
 * the canonical form. Thread-safe. */
int rt_os_confine(const char *dir, char **canonical);
/* rt_os_confine of a folder of the user's own input (an INI's, a
 * backup's), not a tree: the same confinement, but a file there that has
 * other names is read (the user named it; a hard link beneath a tree is
 * read only where its other name cannot be a host file). Beneath a tree
 * already confined, the tree's rules hold. */
int rt_os_confine_input(const char *dir, char **canonical);
/* rt_os_confine of DIR as a tree (a file of several names there is
 * refused), with the disk it lies on held as rt_os_confine_input holds
 * it: for the folder of a store kept in one file, which may lie on
 * another machine's disk (a psb: store in its System32, a reg: store in
 * its Users) whose links on the way must stay refused. */
int rt_os_confine_on_disk(const char *dir, char **canonical);
void rt_os_unconfine(const char *canonical);
/* rt_os_confine_input of the folder FILE lies in (the user's: "." when FILE
 * names none), and FILE on that folder's canonical form, a new string;
 * the folder's canonical form goes to *ROOT for rt_os_unconfine. FILE's
 * own name is not resolved: a link there is refused when it is opened.
 * NULL with errno, and nothing confined, on failure. */
char *rt_os_confine_folder_of(const char *file, char **root);
/* The same with rt_os_confine, as a tree: for a store kept in one file
 * (reg:, psb:), whose folder is as hostile as a tree's (a fleet's
 * uploads, another disk's backup): a file there of several names, the
 * store's own included, is refused. */
char *rt_os_confine_store_folder_of(const char *file, char **root);
/* Whether C separates a path's parts: '/', and on Windows '\\' too. */
int rt_os_is_separator(char c);
/* The last separator of PATH ('/', and on Windows '\\' too), or NULL. */
const char *rt_os_last_separator(const char *path);
/* The length of PATH's folder, whose last separator is SLASH: the
 * separator itself when the folder is a root ("/", and Windows' "C:\\",
 * as "C:" alone is the drive's current folder). */
size_t rt_os_folder_length(const char *path, const char *slash);
/* PATH's folder, a new string: its part before the last separator
 * (rt_os_folder_length), "." for a bare name; NULL with errno ENOMEM. */
char *rt_os_folder_of(const char *path);
/* Which of SUFFIXES (NULL-ended; "" for FILE itself) PATH names after
 * FILE's name: the same folder (the same file, reached by whatever way
 * PATH takes) and the same name in any letter case, as Windows sees one
 * name where Linux sees two; or, spelled otherwise, one of those files
 * that exists (a short name on Windows, a second link). The suffix's
 * position, or -1 for none (or when PATH's folder is not there, or
 * memory ran out). */
int rt_os_names_file(const char *path, const char *file,
                     const char *const *suffixes);
/* PATH without its "." steps ("a/./b" is "a/b", "a/." is "a", "." is
 * "."), and with one separator where several follow each other but at
 * its start ("a//b" is "a/b"), as the user's paths are written: a new
 * string, or NULL with errno ENOMEM. */
char *rt_os_without_dot_steps(const char *path);
/* The disk PATH lies on (the nearest of its folders holding
 * Windows/System32 or System32/config, in any letter case: another
 * machine's, whoever wrote it) confined as a tree, so that a file the
 * user names there is read and written with the tree's rules: its
 * canonical form to *HELD for rt_os_release_disk, and (CANON not NULL)
 * PATH spelled on it to *CANON, a new string, as the tree's rules see it
 * whatever links of the user's or "//" led there; both NULL when PATH is
 * on no such disk, or (Windows) always. 0, or -1 with errno (nothing
 * held). */
int rt_os_hold_disk_of(const char *path, char **held, char **canon);
void rt_os_release_disk(char *held);
/* Whether PATH lies beneath a confined directory: 1, 0. */
int rt_os_is_confined(const char *path);

/* Files, wherever they are, are opened only when they are regular files:
 * a FIFO, socket or device is refused before a byte is read (ENODEV; the
 * open never blocks), a directory with EISDIR; a file beneath a confined
 * directory opened for writing must have one name (a hard link is
 * refused, ENODEV), and one opened for reading too where its other name
 * may be a host file: beneath a tree (rt_os_confine), when its owner is
 * not the tree's or it lies on the file system of /. strerror's words for these refusals say nothing of
 * which path and why: rt_os_strerror(ERR) gives the reason this layer
 * last refused a path for (naming the link, the "..", the kind of file),
 * and strerror(ERR) for anything else. */
const char *rt_os_strerror(int err);
/* vsnprintf into BUF of SIZE bytes, but a text that does not fit keeps
 * its start and its end, " ... " between (each cut between UTF-8
 * characters): a message names paths first and says why last, and a
 * long path (a disk mounted deep, a tree's own long names) must not push
 * the reason out. The end gets three quarters. */
void rt_os_format_cut(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* 1 when rt_os_strerror(ERR) gives the words of such a refusal, which name
 * the path; 0 when it gives strerror's (EISDIR from an open says only "Is
 * a directory": the caller names the path). */
int rt_os_refusal_named(int err);

/* DIR/REL ('/' between REL's parts) with each part matched without
 * regard to case against what its directory holds (a disk copied from
 * Windows keeps whatever case Windows used). With MUST_EXIST, NULL when a
 * part is not there (errno ENOENT); otherwise the parts from the first
 * missing one on are taken as given (where a file is to be written). A
 * folder holding two entries that differ only in case where a part is
 * looked for (perfc009.dat and PERFC009.DAT) is ambiguous, since Windows
 * sees one name there: NULL with errno EEXIST, rt_os_strerror naming
 * both, whatever MUST_EXIST. While a directory is confined
 * (rt_os_confine), each folder is listed once and its names kept sorted
 * without regard to case, so a part costs a binary search, not a pass
 * over a folder of thousands of entries; what is kept is forgotten when
 * this layer creates, renames or removes anything, takes a lock
 * (rt_os_lock, rt_os_trylock: another process's changes are seen from
 * then on), or confines or unconfines a directory. Without a confined
 * directory each part costs one pass over its folder. A new string, or
 * NULL with errno (ENOMEM when out of memory). */
char *rt_os_path_ci(const char *dir, const char *rel, int must_exist);
/* Opens (DELTA +1) or closes (-1) a scope in which rt_os_path_ci keeps
 * each folder's listing as it does while a directory is confined: for a
 * batch of look-ups in folders that nothing changes meanwhile (every
 * spelling of a tree's layout tried, each a listing of the same folders:
 * review 46 R46-7). Opening or closing the last one forgets them. Keeps
 * errno. */
void rt_os_listings_scope(int delta);

/* A hash of PATH's bytes (64-bit FNV-1a from a basis random to each
 * process, so that a tree cannot choose names that collide), for the
 * tables that find a file or folder by its path in one step: this
 * layer's kept listings, the commit's and a journal's files, the hive
 * store's .dat tables. */
uint64_t rt_os_path_hash(const char *path);
/* That hash's basis, for the other tables of names or numbers someone
 * else chose (an INI's and a symbol file's names, a tree's Library
 * folders, audit's texts and indices): FNV-1a from it, then
 * rt_os_hash_mix, which spreads the bits so that the low ones, which
 * pick a slot, depend on all the input (FNV's own depend on the input's
 * low bits alone). Never 0. */
uint64_t rt_os_hash_basis(void);
uint64_t rt_os_hash_mix(uint64_t h);
/* Eight fresh random bytes each call (getrandom, rand_s), for names no
 * one may tell in advance, each on its own: a temporary's. Never the
 * hash basis, which one shown name would give away (rt_os_hash_mix is
 * invertible). */
uint64_t rt_os_random64(void);

/* The absolute, canonical form of PATH (which must exist) in BUF, with
 * '/' between its parts on every system ("C:/Windows" on Windows). */
int rt_os_realpath(const char *path, char *buf, size_t size);

/* Reads a whole file of at most MAX bytes into a new buffer (never NULL,
 * even for an empty file). Returns 0; -1 when it cannot be opened, -2
 * when it cannot be read; errno says why (EISDIR for a directory, EFBIG
 * when it holds more than MAX bytes). Every file regtool reads whole goes
 * through here. */
int rt_os_read_file_max(const char *path, size_t max, uint8_t **data,
                        size_t *len);
/* rt_os_read_file_max without a limit; -1 with errno on any failure. */
int rt_os_read_file(const char *path, uint8_t **data, size_t *len);
/* A file named to regtool (SHOWN, INSIDE beneath its held folder) that
 * could not be read for ERR: when its own name is a link, the refusal
 * says so (the walk's words are a tree's, and the folder may be the
 * user's own): an input is read by its own name, never through a link.
 * errno is ERR after. */
void rt_os_named_link_said(int err, const char *inside, const char *shown);
/* rt_os_read_file_max of PATH beneath its folder, confined for the read
 * (rt_os_confine_folder_of): for a file the user names that may lie in a
 * tree someone else wrote (an INF copy's INI): a link
 * as its own name is refused (ELOOP), where the folders of the path
 * given are the user's and followed. Returns as rt_os_read_file_max;
 * -1 with errno when the folder cannot be confined. */
int rt_os_read_file_beneath(const char *path, size_t max, uint8_t **data,
                            size_t *len);

/* A file's path as a user or a program gave it (a command-line argument),
 * in the form this layer's calls take, as a new string (NULL when out of
 * memory): on Windows, '\\' separators become '/', as the library's own
 * paths have them; in a Winelib build, a Windows path (C:\\dir\\x.ini,
 * \\\\server\\share) becomes the Unix path Wine maps it to, and a
 * relative one gets '/' separators; anywhere else, a copy. */
char *rt_os_user_path(const char *arg);
/* The command line's arguments in UTF-8, the encoding of the library's
 * paths and texts: on Windows, from the command line as Windows keeps it
 * (UTF-16, CommandLineToArgvW) in place of the C runtime's *ARGV, which
 * holds them in the ANSI code page ("?" for each character it lacks: a
 * Cyrillic provider name or path lost); elsewhere *ARGV is left as it is.
 * The new array lives as long as the process. 0, or -1 (out of memory:
 * *ARGV left). */
int rt_os_args_utf8(int *argc, char ***argv);

/* Creates PATH, which must not exist, with LEN bytes of DATA, durably. */
int rt_os_write_new_file(const char *path, const void *data, size_t len);
/* Replaces PATH (or creates it) with LEN bytes of DATA through a
 * temporary file in the same directory, synced before the rename, so
 * PATH is never seen half-written. MODE: the permission bits on POSIX. */
int rt_os_replace_file(const char *path, const void *data, size_t len,
                       unsigned mode);
/* The calls rt_os_replace_file writes through, for a caller that counts
 * or stops its writes (commit/io.c); NULL members are this layer's own. */
struct rt_os_write_calls {
    int (*pwrite)(int fd, const void *buf, size_t len, uint64_t off);
    int (*fsync)(int fd);
    int (*rename)(const char *from, const char *to);
    int (*fsync_dir_of)(const char *path);
};
int rt_os_replace_file_via(const char *path, const void *data, size_t len,
                           unsigned mode, const struct rt_os_write_calls *c);

/* lodctr /S's rule for a backup file: creates PATH, or when it exists the
 * first of PATH_001 ... PATH_999 that does not (with FORCE, replaces PATH
 * as rt_os_replace_file). The name used goes to *USED (a new string, also
 * on failure when it could be made). Returns 0, or -1 with errno (EEXIST:
 * PATH and all 999 others exist). */
int rt_os_save_numbered(const char *path, const void *data, size_t len,
                        int force, char **used);

/* A file written in parts, for data too large to hold whole (a backup of
 * every language's tables): opened by one of the rules above, written
 * part after part into a temporary file beside PATH, then finished
 * (synced and renamed to its name) or abandoned (removed: nothing is
 * left). Until it is finished nothing is seen under its name, so that a
 * file cut short by a crash or an interrupt is never taken for a whole
 * one; a crash leaves at most the temporary file (PATH.tmp.*). */
enum rt_os_saving_rule {
    RT_OS_SAVE_NEW,       /* PATH must not exist (rt_os_write_new_file) */
    RT_OS_SAVE_NUMBERED,  /* lodctr /S's rule (rt_os_save_numbered) */
    RT_OS_SAVE_REPLACE,   /* replaces PATH (rt_os_replace_file) */
};
struct rt_os_saving {
    int fd;
    char *path;           /* the temporary file written */
    char *final;          /* REPLACE: PATH, renamed to */
    char *name;           /* NEW, NUMBERED: the caller's *USED (PATH or
                             PATH_NNN), taken only when finished */
    size_t name_len;      /* PATH's length, where _NNN goes */
    enum rt_os_saving_rule rule;
    uint64_t written;
    uint64_t sent;        /* bytes handed to rt_os_start_writeback */
    const struct rt_os_write_calls *calls;  /* NULL: this layer's own */
    char *disk;           /* rt_os_hold_disk_of(PATH) while it is open */
    int keep_owner;       /* REPLACE of a file: its UID and GID kept */
    unsigned uid, gid;
};
/* Opens PATH by RULE (MODE: the permission bits of a replacement, on
 * POSIX). The name the data is meant for (PATH or PATH_NNN, the first
 * free one now) goes to *USED as rt_os_save_numbered gives it; with
 * NUMBERED, finishing moves on to the next free name when another
 * process took it meanwhile, and updates *USED (which must live until
 * then). 0, or -1 with errno (EEXIST as there, found at once). */
int rt_os_saving_open(struct rt_os_saving *sv, const char *path,
                      enum rt_os_saving_rule rule, unsigned mode,
                      char **used);
/* The same, writing through C's calls (NULL members: this layer's own),
 * for a caller that counts or stops its writes (commit/io.c). */
int rt_os_saving_open_via(struct rt_os_saving *sv, const char *path,
                          enum rt_os_saving_rule rule, unsigned mode,
                          const struct rt_os_write_calls *c, char **used);
/* What rt_os_saving_open would refuse PATH for by RULE, found with
 * nothing made (a dry run's look at where it would save): the name a
 * link, a folder, a FIFO or a device, every numbered name taken, no
 * folder to put it in. 0, or -1 with errno (rt_os_strerror's words). */
int rt_os_saving_check(const char *path, enum rt_os_saving_rule rule);
/* Appends LEN bytes. 0, or -1 with errno (the file is then abandoned). */
int rt_os_saving_write(struct rt_os_saving *sv, const void *data,
                       size_t len);
/* Syncs, closes and renames to its name. 0, or -1 with errno (the file
 * is then abandoned; EEXIST: NEW's PATH, or every numbered name, was
 * taken meanwhile). */
int rt_os_saving_finish(struct rt_os_saving *sv);
/* Closes and removes the file: nothing of it is left. */
void rt_os_saving_abandon(struct rt_os_saving *sv);

/* A read-only view of a whole file, mapped where the system can; a file
 * of 64 KB or less is read into the heap instead (its DATA is as good). */
struct rt_os_map {
    const uint8_t *data;
    size_t len;
    void *priv;          /* what rt_os_unmap needs */
    size_t span;         /* bytes mapped, when more than LEN */
    int heap;            /* DATA read into the heap, not mapped */
};
int rt_os_map_file(const char *path, struct rt_os_map *m);
void rt_os_unmap_file(struct rt_os_map *m);

/* A private, writable view of the first LEN bytes of PATH (a multiple of
 * 4096, no more than the file holds) followed by SPARE bytes of zeros, in
 * one range: writes stay in this process (copy on write), pages never
 * touched are never read, and the data can grow into the zeros without
 * moving. Whoever maps a file this way must keep other writers out of it
 * while the view lives (the hive store's locks do). Freed with
 * rt_os_unmap_file. -1 with errno set; ENOSYS where the system cannot
 * (Windows: a file with a view cannot be extended, and hive commits
 * extend it), and the caller reads the file instead. */
int rt_os_map_cow(const char *path, size_t len, size_t spare,
                  struct rt_os_map *m);

/* Gives back the memory of the pages of view M that bytes [OFF, OFF+LEN)
 * lie on: touched again, they are read from the file again. For data
 * copied out of a view and not needed there any more (a whole table read
 * out of a hive), so that it is not held twice. Only for pages never
 * written through the view: a copy-on-write page would lose its writes.
 * (Windows: the pages leave the working set, which is what it offers.) */
void rt_os_map_release(const struct rt_os_map *m, size_t off, size_t len);

/* A buffer of N bytes that free() releases, for data about to be filled
 * whole (a table read out of a hive): where the system has transparent
 * huge pages (Linux), a large one is aligned and advised for them, so
 * filling it takes one fault per 2 MB instead of one per 4 KB page.
 * NULL when out of memory. */
void *rt_os_alloc_bulk(size_t n);

/* A page of a mapped file that cannot be read (a disk's I/O error, or
 * another program cutting the file short) stops the process with a
 * signal instead of an error code. After this call such a fault prints
 * MESSAGE (kept, not copied) on stderr and ends the process with EXIT
 * CODE, rather than dying without a word; nothing else can be done
 * safely at that point. No-op where files are not mapped (Windows). */
void rt_os_report_map_faults(const char *message, int exit_code);

/* Text in a Windows ANSI code page. CODEPAGE is its number ("1252",
 * "932") or a name with the number at its end ("windows-1251", "CP1250").
 * rt_os_codepage_to_utf8 converts LEN bytes to UTF-8 in a new
 * NUL-terminated buffer, rt_os_utf8_to_codepage the reverse (no
 * terminator added). iconv on POSIX, MultiByteToWideChar on Windows: the
 * conversion needs the system's tables; where iconv converts, a name
 * without a number ("ASCII", "KOI8-R") is taken too. Return 0; -1 with
 * *ERR_OFF at the first input byte that does not convert; -2 out of
 * memory; -3 a code page the system does not know; -4 the input ends
 * inside a multibyte character (iconv tells; Windows gives -1). */
int rt_os_codepage_to_utf8(const char *codepage, const uint8_t *in,
                           size_t len, char **out, size_t *out_len,
                           size_t *err_off);
int rt_os_utf8_to_codepage(const char *codepage, const char *in, size_t len,
                           uint8_t **out, size_t *out_len, size_t *err_off);

/* The current time as a Windows FILETIME (100 ns since 1601, UTC). */
uint64_t rt_os_filetime_now(void);

/* Independent jobs run in worker processes. The library
 * keeps process-wide state (the interrupt flag, confinements, kept
 * listings, allocation hooks), so jobs that must not disturb each other
 * run in processes, not threads: on POSIX each job in a child forked for
 * it (at most WORKERS at a time), its result written to a pipe the
 * parent reads; a child that dies (a crash, a kill, memory exhausted)
 * loses its own job only. A native Windows build has no fork: the jobs
 * run one after the other in this process, each result written to a
 * temporary file and read back, so a crash there ends the run. */

/* Runs job JOB, writing its result to OUT; returns 0, or a status the
 * parent sees as the job having exited with it. Runs in a child process
 * on POSIX: what it changes in memory is gone when it returns. */
typedef int (*rt_jobs_work_fn)(void *ctx, size_t job, FILE *out);
/* In the calling process, as each job ends (in the order they end): the
 * bytes its WORK wrote (LEN of them at DATA, NUL-terminated), and how it
 * ended: 0 when WORK returned 0; a signal's number when the worker was
 * killed by it; -STATUS when it exited with STATUS (WORK's non-zero
 * return, or the worker's own failure); -1000 - errno when no worker
 * could be started for it. */
typedef void (*rt_jobs_done_fn)(void *ctx, size_t job, const char *data,
                                size_t len, int ended);

/* Runs jobs 0 .. N-1, started in that order, WORKERS at a time (at least
 * one). Returns 0 when every job has ended (DONE called for each), -1
 * with errno when the pool itself failed (no pipe, out of memory), or
 * RT_OS_SIGINT / RT_OS_SIGTERM / RT_OS_SIGHUP when an interrupt came (the caller set
 * rt_os_catch_interrupts): the running workers are then ended with
 * SIGTERM and waited for, and no further job is started; DONE is not
 * called for the jobs cut short. Standard output and error are flushed
 * before each worker starts. */
int rt_os_run_jobs(size_t n, unsigned workers, rt_jobs_work_fn work,
                   rt_jobs_done_fn done, void *ctx);

/* The number of processors online (at least 1). */
unsigned rt_os_cpu_count(void);
/* 1 when standard error is a terminal (a person watching), else 0. */
int rt_os_stderr_is_terminal(void);

#endif
