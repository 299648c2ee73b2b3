/* The regtool CLI: one file per subcommand, dispatched from main.c. */
#ifndef REGTOOL_CLI_H
#define REGTOOL_CLI_H

/* Exit codes, documented in README.md. */
#define RT_EXIT_OK       0  /* success */
#define RT_EXIT_WARN     1  /* warnings only (with --strict), not found, dirty */
#define RT_EXIT_INVALID  2  /* invalid input or structural errors; nothing written */
#define RT_EXIT_FAILURE  3  /* I/O or system failure */
#define RT_EXIT_USAGE    64 /* bad command line */

struct rt_command {
    const char *name;
    int (*run)(int argc, char **argv);  /* argv[0] is the command name */
    const char *usage;                  /* one line, after "regtool " */
};

#define RT_VERSION "0.1"

int cmd_version(int argc, char **argv);
int cmd_hive(int argc, char **argv);
int hive_recover_main(int argc, char **argv);
int cmd_check_ini(int argc, char **argv);

/* Prints "regtool: " and the message to stderr. */
void rt_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
