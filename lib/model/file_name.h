/* Model layer: whether a name read from a tree or an INI can be one
 * file of one folder on Windows, where it becomes a path (an INF copy's
 * folder and files, a PerfIniFile, a journal's INF records). Pure: no
 * I/O. */
#ifndef RT_MODEL_FILE_NAME_H
#define RT_MODEL_FILE_NAME_H

/* Why NAME (a PerfIniFile value, a service name that becomes an INF
 * folder, an INF copy's symbolfile=, a part of a journal's INF record)
 * cannot be one file of one folder, or NULL when it can: empty, "." or
 * "..", a separator, a drive letter or stream (':'), a control character
 * or another character Windows forbids in file names, a trailing dot or
 * blank (Windows drops them: another file), a device name (CON, NUL,
 * COM1, ...), the shape of a short 8.3 name holding '~' (Windows may
 * give it to another file: TRANSF~1 is TransferPerf's folder), or longer
 * than 255 characters. A static string. */
const char *rt_win_name_problem(const char *name);

#endif
