/* Model layer: names that can be one file of one folder on Windows
 * (file_name.h). */
#include "model/file_name.h"
#include "model/utf16.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

/* Whether NAME has the shape of a short name: a stem of one to eight
 * characters holding '~', and at most one dot, followed by at most three
 * characters. Windows makes such names for long ones (TRANSF~1 for
 * TransferPerf, Wine TRAN~XYZ); one named so may open another file than
 * the one spelled, whose long name is nothing like it. */
static int short_name_shape(const char *name)
{
    const char *dot = strchr(name, '.');
    size_t stem = dot ? (size_t)(dot - name) : strlen(name);
    if (stem == 0 || stem > 8 || !memchr(name, '~', stem))
        return 0;
    return !dot || (!strchr(dot + 1, '.') && strlen(dot + 1) <= 3);
}

const char *rt_win_name_problem(const char *name)
{
    if (!name || !*name)
        return "it is empty";
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return "it is a path step";
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            return "it holds a control character";
        if (*p == '\\' || *p == '/')
            return "it holds a path separator";
        if (*p == ':')
            return "it holds ':' (a drive letter or a stream)";
        if (strchr("<>\"|?*", *p))
            return "it holds a character Windows forbids in file names";
    }
    char last = name[strlen(name) - 1];
    if (last == '.' || last == ' ')
        return "it ends in a dot or a blank, which Windows drops (it would "
               "name another file)";
    if (rt_utf8_utf16_units(name) > 255)
        return "it is longer than 255 characters";
    /* A Linux file system's name holds 255 bytes (ext4, xfs, tmpfs): a
     * folder or file named so is refused before a commit, never failed
     * past its point (review 55 R55-2: 86 CJK characters). */
    if (strlen(name) > 255)
        return "it is longer than 255 bytes of UTF-8, more than a Linux "
               "file system holds in a name";
    /* Windows opens a device for these, whatever the extension: the
     * reserved names of Microsoft's "Naming Files, Paths, and
     * Namespaces", with COM and LPT numbered 0 to 9 or by a superscript
     * one, two or three (U+00B9, U+00B2, U+00B3: review 42 R42-11). */
    static const char *const devices[] = {"CON", "PRN", "AUX", "NUL",
                                          "CONIN$", "CONOUT$"};
    size_t stem = strcspn(name, ".");
    while (stem && name[stem - 1] == ' ')
        stem--;
    int device = 0;
    for (size_t i = 0; i < sizeof devices / sizeof *devices; i++)
        device |= stem == strlen(devices[i]) &&
                  !strncasecmp(name, devices[i], stem);
    if ((stem == 4 || stem == 5) && (!strncasecmp(name, "COM", 3) ||
                                     !strncasecmp(name, "LPT", 3)))
        device |= stem == 4 ? name[3] >= '0' && name[3] <= '9'
                            : (unsigned char)name[3] == 0xc2 &&
                              strchr("\xb9\xb2\xb3", name[4]);
    if (device)
        return "it is a device name (CON, PRN, AUX, NUL, CONIN$, CONOUT$, "
               "COM and LPT numbered 0-9 or by a superscript 1-3)";
    if (short_name_shape(name))
        return "it has the shape of a short (8.3) name, which Windows may "
               "give another file of the folder (TRANSF~1 for TransferPerf)";
    return NULL;
}

