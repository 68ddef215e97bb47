/* util.c - error messages, paths, and what a recorded trace says about
 * itself: pieces several subcommands share. */
#include "cli/cli.h"
#include "common/config.h"
#include "common/duration.h"
#include "common/method_pattern.h"
#include "trace/format.h"
#include "trace/reader.h"
#include "common/escape.h"
#include "common/files.h"
#include "ipc/ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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
    else if (c == 'S')
        rc = cp_sampler_parse(optarg, &cfg->sampler, err, sizeof(err));
    else if (c == 'H') {
        double s;
        rc = cp_duration_parse("--heap-every", optarg, CP_HEAP_EVERY_MIN_MS / 1000.0,
                               CP_HEAP_EVERY_MAX_MS / 1000.0, &s, err, sizeof(err));
        if (rc == 0)
            cfg->heap_every_ms = (long)(s * 1000 + 0.5);
    } else if (c == 'T') {
        mp_list l;
        rc = mp_parse(optarg, &l, err, sizeof(err));
        if (rc == 0)
            snprintf(cfg->trace, sizeof(cfg->trace), "%s", optarg);
    } else if (c == 'C') {
        char *end;
        long v = CP_TRACE_CALLS_DEFAULT;
        rc = 0;
        if (optarg) {
            errno = 0;
            v = strtol(optarg, &end, 10);
            if (optarg[0] < '1' || optarg[0] > '9' || *end || errno || v > CP_TRACE_CALLS_MAX) {
                snprintf(err, sizeof(err), "--trace-calls: '%s' is not a number of calls (1..%ld)", optarg,
                         CP_TRACE_CALLS_MAX);
                rc = -1;
            }
        }
        cfg->trace_calls = v;
    } else
        return 0;
    if (rc < 0) {
        cli_error("%s", err);
        return -1;
    }
    return 1;
}

int cli_agent_options_check(const char *cmd, const cp_config *cfg)
{
    if (cfg->trace_calls && !cfg->trace[0]) {
        cli_error("%s: --trace-calls needs --trace PATTERNS (the methods to trace)", cmd);
        return -1;
    }
    return 0;
}

#define BY_NAME_TIMEOUT_MS 1000      /* per process, as for ps */

int cli_pid_by_name(const char *cmd, const char *name)
{
    ipc_named_process_t *v = NULL;
    size_t n = 0;
    int denied = 0, pid;
    char err[512], others[160] = "";

    if (ipc_find_by_name(name, BY_NAME_TIMEOUT_MS, &v, &n, &denied, err, sizeof(err)) != IPC_OK) {
        cli_error("%s: cannot look for processes named '%s': %s", cmd, name, err);
        return -1;
    }
    if (denied)
        snprintf(others, sizeof(others), "; %d process%s of that name of other users %s left out (run clrprobe as "
                 "their user, or as root)", denied, denied == 1 ? "" : "es", denied == 1 ? "is" : "are");
    if (n == 0) {
        cli_error("%s: no .NET process is named '%s' (matched, ignoring case, against the NAME 'clrprobe ps' "
                  "shows and the main assembly's name, e.g. 'app' for 'dotnet app.dll')%s", cmd, name, others);
        return -1;
    }
    if (n > 1) {
        cli_error("%s: %zu .NET processes are named '%s'; choose one with -p PID%s:", cmd, n, name, others);
        for (size_t i = 0; i < n; i++) {
            char *line = NULL;
            if (asprintf(&line, "%d %s%s%s%s %s", v[i].pid, v[i].name, v[i].by_assembly ? " (assembly " : "",
                         v[i].by_assembly ? v[i].assembly : "", v[i].by_assembly ? ")" : "",
                         v[i].command_line ? v[i].command_line : "?") >= 0) {
                char *shown = esc_dup(line);
                fprintf(stderr, "  %s\n", shown ? shown : "?");
                free(shown);
                free(line);
            }
        }
        ipc_named_processes_free(v, n);
        return -1;
    }
    pid = v[0].pid;
    cli_error("%s: '%s' is process %d: %s", cmd, name, pid, v[0].command_line ? v[0].command_line : "?");
    ipc_named_processes_free(v, n);
    return pid;
}

/* Where the agent is, from where the command is: beside it (the build tree,
 * build/), or in the installed layout, PREFIX/bin/clrprobe and
 * PREFIX/lib/clrprobe/libclrprobe.so (make install, the Debian package). */
int cli_find_agent(char *buf, size_t len)
{
    static const char *const beside[] = {"libclrprobe.so", "../lib/clrprobe/libclrprobe.so"};
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
    for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
        if ((size_t)snprintf(buf, len, "%s/%s", exe, beside[i]) >= len) {
            cli_error("installation path is too long");
            return -1;
        }
        if (access(buf, R_OK) == 0) {
            char *real = realpath(buf, NULL); /* the target opens it by this name: no "..", no link */
            if (real && strlen(real) < len)
                strcpy(buf, real);
            free(real);
            return 0;
        }
    }
    cli_error("the agent libclrprobe.so is neither beside the clrprobe command (%s) nor in %s/../lib/clrprobe/; "
              "rebuild with 'make' or reinstall clrprobe and libclrprobe.so together",
              exe, exe);
    return -1;
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

int cli_trace_outcome(const char *path, char *why, size_t whylen)
{
    trace_file tf;
    trace_scan sc;
    trace_chunk c;
    char err[256];
    int complete = 0, stopped = 0;

    why[0] = '\0';
    if (trace_open(path, &tf, err, sizeof(err)) != TRACE_OK) {
        snprintf(why, whylen, "%s", err);
        return CLI_TRACE_UNREADABLE;
    }
    trace_scan_init(&tf, &sc);
    while (trace_next_chunk(&tf, &sc, &c)) {
        trace_record r;
        size_t off = 0;
        while (trace_next_record(&c, &off, &r) == 1) {
            if (r.kind == TK_TRACE_END)
                complete = 1;
            if (r.kind == TK_NOTE && !stopped) {
                trace_fields f;
                size_t n;
                const char *text;
                trace_fields_init(&f, &r);
                text = trace_field_str(&f, &n);
                if (n > TRACE_STOP_NOTE_LEN && memcmp(text, TRACE_STOP_NOTE, TRACE_STOP_NOTE_LEN) == 0) {
                    stopped = 1;
                    snprintf(why, whylen, "%.*s", (int)(n - TRACE_STOP_NOTE_LEN), text + TRACE_STOP_NOTE_LEN);
                }
            }
        }
    }
    trace_close(&tf);
    if (stopped)
        return CLI_TRACE_STOPPED;
    return complete ? CLI_TRACE_COMPLETE : CLI_TRACE_CUT_SHORT;
}

/* The socket is made 0600 (the umask is ours alone: the command is one
 * thread), so that only its owner may connect; the directory, 0700 and
 * ours, is kept open (*dirfd) so that what is given away and removed later
 * is reached through it, never by a path someone else could change. */
int cli_listen_private(const char *kind, const char *name, int backlog, int *dirfd, char *dir, size_t dirlen,
                       char *path, size_t pathlen, char *err, size_t errlen)
{
    struct sockaddr_un addr;
    mode_t old_mask;
    int fd = -1, r;

    path[0] = '\0';
    *dirfd = -1;
    if ((size_t)snprintf(dir, dirlen, "/tmp/clrprobe-%s-XXXXXX", kind) >= dirlen || !mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a directory in /tmp: %s", strerror(errno));
        dir[0] = '\0';
        return -1;
    }
    *dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*dirfd < 0) {
        snprintf(err, errlen, "cannot open the directory it made in /tmp: %s", strerror(errno));
        rmdir(dir);              /* (just made by us in sticky /tmp: nobody else can have replaced it) */
        dir[0] = '\0';
        return -1;
    }
    if ((size_t)snprintf(path, pathlen, "%s/%s", dir, name) >= pathlen || strlen(path) >= sizeof(addr.sun_path)) {
        snprintf(err, errlen, "cannot create a socket in %s: the path is too long", dir);
        path[0] = '\0';
        cli_unlisten_private(&fd, dirfd, dir, path);
        return -1;
    }
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    old_mask = umask(0177);
    r = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&addr, sizeof(addr));
    umask(old_mask);
    if (r < 0 || listen(fd, backlog) < 0) {
        snprintf(err, errlen, "cannot create the socket %s: %s", path, strerror(errno));
        cli_unlisten_private(&fd, dirfd, dir, path);
        return -1;
    }
    return fd;
}

int cli_private_give(int dirfd, const char *name, uid_t uid)
{
    struct stat st;

    /* Made as that user already (inside a container's namespaces, as its
     * process's user: ipc/nsjoin.c): the socket is the user's, and the
     * directory too, so nothing in it is ours to chown. */
    if (fstat(dirfd, &st) < 0)
        return -1;
    if (st.st_uid == uid)
        return 0;
    /* The directory stays ours (0711: the user may pass through it, not
     * list or change it), so name is still our socket here; and even a
     * link put in its place would not be followed. */
    if (fchmod(dirfd, 0711) < 0)
        return -1;
    return fchownat(dirfd, name, uid, (gid_t)-1, AT_SYMLINK_NOFOLLOW);
}

/* The socket is removed by its name in the directory's descriptor; the
 * directory by its path only while that path is still the directory made
 * (same device and inode, not a link). */
void cli_unlisten_private(int *fd, int *dirfd, char *dir, char *path)
{
    struct stat mine, now;
    const char *name = strrchr(path, '/');

    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    if (*dirfd >= 0) {
        if (name)
            unlinkat(*dirfd, name + 1, 0);
        if (dir[0] && fstat(*dirfd, &mine) == 0 && fstatat(AT_FDCWD, dir, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(now.st_mode) && now.st_dev == mine.st_dev && now.st_ino == mine.st_ino)
            unlinkat(AT_FDCWD, dir, AT_REMOVEDIR);
        close(*dirfd);
        *dirfd = -1;
    }
    path[0] = dir[0] = '\0';
}

int cli_handover_open(int dirfd, uid_t uid)
{
    char name[] = "clrprobe-handover-XXXXXX";
    int fd, e;

    /* O_EXCL: a file that can never be linked into a directory, even by
     * the user it is given to. */
    fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        fd = cp_file_create_temp_at(dirfd, name);     /* (a file system without O_TMPFILE) */
        if (fd >= 0 && unlinkat(dirfd, name, 0) < 0) {
            e = errno;
            close(fd);
            errno = e;
            return -1;
        }
    }
    if (fd >= 0 && fchown(fd, uid, (gid_t)-1) < 0) {
        e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Copies up to n bytes from *in to *out with pread and pwrite, for file
 * systems copy_file_range does not serve. */
static ssize_t copy_by_hand(int from, off_t *in, int to, off_t *out, size_t n)
{
    char buf[65536];
    ssize_t r = pread(from, buf, n < sizeof(buf) ? n : sizeof(buf), *in), w;

    if (r <= 0)
        return r;
    for (ssize_t done = 0; done < r; done += w) {
        w = pwrite(to, buf + done, (size_t)(r - done), *out + done);
        if (w < 0 && errno == EINTR)
            w = 0;
        else if (w <= 0)
            return -1;
    }
    *in += r;
    *out += r;
    return r;
}

int cli_handover_take(int from, int to, off_t *copied)
{
    struct stat st;
    off_t in = 0, out = 0, size;
    int by_hand = 0;

    *copied = 0;
    if (fstat(from, &st) < 0)
        return -1;
    /* The size, not the allocation: the agent keeps a reserve allocated
     * past the end (FALLOC_FL_KEEP_SIZE). */
    size = st.st_size;
    /* And no further than the first hole: the agent only appends, so a
     * hole is someone else's (a file made large by ftruncate costs its
     * owner nothing, and its copy would fill our disk with zeros). */
    {
        off_t hole = lseek(from, 0, SEEK_HOLE);
        if (hole >= 0 && hole < size)
            size = hole;
    }
    while (in < size) {
        size_t want = (size_t)(size - in < (1 << 16) ? size - in : (1 << 16));
        off_t at = in;
        ssize_t n = by_hand ? -1 : copy_file_range(from, &in, to, &out, want, 0);

        if (n < 0 && !by_hand && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ||
                                  errno == EBADF)) {
            by_hand = 1;
            continue;
        }
        if (by_hand)
            n = copy_by_hand(from, &in, to, &out, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;                    /* cut meanwhile (its owner may): what there is */
        *copied += n;
        /* What is copied is given back at once: on a full disk the copy
         * takes the room the original had. */
        fallocate(from, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, at, n);
    }
    return 0;
}

int cli_meters_invalid(const char *cmd, const char *text)
{
    if (text[0] && strlen(text) <= 1000 && !strpbrk(text, ";=\r\n"))
        return 0;
    cli_error("%s: --meters takes meter names separated by commas (at most 1000 characters, no ';' or '='), "
              "not '%s'", cmd, text);
    return 1;
}
