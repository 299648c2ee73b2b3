/* lib/regtool.h compiles as C89 and as C++98 (tests/cli/api_library.sh
 * builds this file both ways with -pedantic and links it against the
 * library, which fails when a declaration lacks extern "C"). Every
 * function is referenced, so each declaration is compiled and linked. */
#include <stdio.h>
#include <string.h>

#include <regtool.h>

int main(void)
{
    regtool *rt = 0;
    regtool_error err;
    regtool_findings *f = 0;
    int rc;
    /* Each public function, by its exact type. */
    struct api {
        const char *(*version)(void);
        int (*open)(const char *, const regtool_open_options *, regtool **,
                    regtool_error *);
        void (*set_output)(regtool *, regtool_line_fn, void *);
        void (*close)(regtool *);
        int (*install)(regtool *, const char *,
                       const regtool_install_options *, regtool_ranges *,
                       regtool_error *);
        int (*uninstall)(regtool *, const char *, int, regtool_ranges *,
                         regtool_error *);
        int (*query)(regtool *, const char *, regtool_ranges *,
                     regtool_error *);
        int (*audit)(regtool *, regtool_findings **, regtool_error *);
        size_t (*count)(const regtool_findings *);
        const char *(*id)(const regtool_findings *, size_t);
        int (*severity)(const regtool_findings *, size_t);
        const char *(*language)(const regtool_findings *, size_t);
        const char *(*message)(const regtool_findings *, size_t);
        const char *(*symptom)(const regtool_findings *, size_t);
        const char *(*fix)(const regtool_findings *, size_t);
        void (*findings_free)(regtool_findings *);
        int (*backup)(regtool *, const char *, int, regtool_error *);
        int (*restore)(regtool *, const char *, int, regtool_error *);
    } api = {regtool_version, regtool_open, regtool_set_output,
             regtool_close, regtool_install, regtool_uninstall,
             regtool_query, regtool_audit, regtool_findings_count,
             regtool_finding_id, regtool_finding_severity,
             regtool_finding_language, regtool_finding_message,
             regtool_finding_symptom, regtool_finding_fix,
             regtool_findings_free, regtool_backup, regtool_restore};

    if (strcmp(api.version(), REGTOOL_VERSION) != 0) {
        printf("version %s, header %s\n", api.version(), REGTOOL_VERSION);
        return 1;
    }
    /* Calls that need no store: their errors. */
    rc = api.open("nowhere:x", 0, &rt, &err);
    if (rc != REGTOOL_ERR_INVALID_PARAMETER || rt || err.code != rc) {
        printf("open nowhere:x: %d (%s)\n", rc, err.message);
        return 1;
    }
    printf("%s\n", err.message);
    rc = api.audit(0, &f, &err);
    if (rc != REGTOOL_ERR_INVALID_PARAMETER || api.count(f) != 0 ||
        api.id(f, 0) != 0) {
        printf("audit without a handle: %d\n", rc);
        return 1;
    }
    api.close(0);
    printf("header ok (%s)\n", api.version());
    return 0;
}
