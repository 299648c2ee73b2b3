/* Registers a performance-counter provider with libregtool, reads back
 * its indices and removes it again: what an installer and its
 * uninstaller do. Built against an installed library:
 *     cc api_example.c $(pkg-config --cflags --libs regtool)
 * Usage: api_example STORE INI DRIVER LIBRARY  (exit status: 0, or the
 * Win32 error code of the step that failed). */
#include <stdio.h>
#include <string.h>

#include <regtool.h>

/* What the library reports, printed as the regtool command prints it. */
static void print_line(void *ctx, int kind, const char *line)
{
    (void)ctx;
    if (kind == REGTOOL_LINE_REPORT)
        printf("%s\n", line);
    else
        fprintf(stderr, "%s\n", line);
}

int main(int argc, char **argv)
{
    regtool *rt;
    regtool_error err;
    regtool_install_options opt;
    regtool_ranges got;
    int rc;

    if (argc != 5) {
        fprintf(stderr, "usage: api_example STORE INI DRIVER LIBRARY\n");
        return 2;
    }
    if (strcmp(regtool_version(), REGTOOL_VERSION) != 0)
        fprintf(stderr, "note: library %s, header %s\n", regtool_version(),
                REGTOOL_VERSION);
    rc = regtool_open(argv[1], NULL, &rt, &err);
    if (rc) {
        fprintf(stderr, "error %d: %s\n", rc, err.message);
        return rc;
    }
    regtool_set_output(rt, print_line, NULL);

    /* The service's Performance key is the installer's to make: here the
     * library makes it, as regtool install --create-service does. */
    memset(&opt, 0, sizeof opt);
    opt.create_service = 1;
    opt.library = argv[4];
    opt.open = "OpenTransfer";
    opt.collect = "CollectTransfer";
    opt.close = "CloseTransfer";
    rc = regtool_install(rt, argv[2], &opt, NULL, &err);
    if (rc == 0)
        rc = regtool_query(rt, argv[3], &got, &err);
    if (rc == 0) {
        printf("query %s: names %lu-%lu, help %lu-%lu\n", argv[3],
               got.first_counter, got.last_counter, got.first_help,
               got.last_help);
        rc = regtool_uninstall(rt, argv[3], 0, NULL, &err);
    }
    if (rc == 0 && regtool_query(rt, argv[3], &got, &err) !=
                       REGTOOL_ERR_FILE_NOT_FOUND) {
        fprintf(stderr, "error: %s still installed\n", argv[3]);
        rc = REGTOOL_ERR_INTERNAL_ERROR;
    } else if (rc) {
        fprintf(stderr, "error %d: %s\n", rc, err.message);
    }
    regtool_close(rt);
    return rc;
}
