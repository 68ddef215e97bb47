/* util.c - error messages, paths and the output-writability check used by
 * several subcommands. */
#include "cli/cli.h"
#include "common/config.h"
#include "common/escape.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The message is escaped whole (common/escape.h): it quotes paths,
 * arguments, configuration values and what a process or the agent said,
 * any of which could otherwise drive the terminal or forge a second line.
 * One fprintf, so one write on the unbuffered stderr. */
void cli_error(const char *fmt, ...)
{
    char *msg = NULL, *esc;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    esc = n < 0 ? NULL : esc_dup(msg);
    fprintf(stderr, "clrprobe: %s\n", esc ? esc : "out of memory");
    free(esc);
    if (n >= 0)
        free(msg);
}

void cli_option_error(const char *cmd, char **argv, int optind, int optopt)
{
    if (optopt)
        cli_error("%s: option '-%c' needs a value or is unknown (see clrprobe %s --help)", cmd, optopt, cmd);
    else
        cli_error("%s: unknown option '%s' (see clrprobe %s --help)", cmd, argv[optind - 1], cmd);
}

int cli_agent_option(int c, const char *optarg, cp_config *cfg)
{
    char err[512];
    int rc;

    if (c == 'c')
        rc = cp_collect_parse(optarg, &cfg->collect, err, sizeof(err));
    else if (c == 'r')
        rc = cp_rate_parse(optarg, &cfg->rate, err, sizeof(err));
    else
        return 0;
    if (rc < 0) {
        cli_error("%s", err);
        return -1;
    }
    return 1;
}

void cli_remove_if_empty(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
        unlink(path);
}

int cli_find_agent(char *buf, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash;

    if (n < 0) {
        cli_error("cannot find where clrprobe is installed (/proc/self/exe: %s)", strerror(errno));
        return -1;
    }
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    if ((size_t)snprintf(buf, len, "%s/libclrprobe.so", exe) >= len) {
        cli_error("installation path is too long");
        return -1;
    }
    if (access(buf, R_OK) != 0) {
        cli_error("the agent %s was not found beside the clrprobe command (%s); "
                  "rebuild with 'make' or reinstall clrprobe and libclrprobe.so together",
                  buf, strerror(errno));
        return -1;
    }
    return 0;
}

int cli_absolute_path(const char *path, char *buf, size_t len)
{
    char cwd[PATH_MAX];
    if (path[0] == '/') {
        if ((size_t)snprintf(buf, len, "%s", path) >= len)
            return -1;
        return 0;
    }
    if (!getcwd(cwd, sizeof(cwd)))
        return -1;
    if ((size_t)snprintf(buf, len, "%s/%s", cwd, path) >= len)
        return -1;
    return 0;
}

int cli_check_writable(const char *path, const char *what, int truncate)
{
    struct stat st;
    int fd;

    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("cannot write %s %s: it is a directory; give a file name", what, path);
        return -1;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0), 0644);
    if (fd < 0) {
        cli_error("cannot write %s %s: %s; choose another path with -o", what, path, strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}
