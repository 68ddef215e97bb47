/* run_follow.c - `clrprobe run` following the .NET processes its program
 * starts: the run socket, each child's trace file, the end of the run and
 * the list of children (run_follow.h). */
#include "cli/run_follow.h"
#include "common/config.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "common/clock.h"
#include "common/control_protocol.h"
#include "common/files.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HELLO_MS 1000          /* a child says "hello" right after connecting */
#define STOP_MS 5000           /* at the end, how long the children may take to close their traces */
#define POLL_MS 100            /* without a pidfd, how often the program's end is checked */

int follow_open(run_follow *f, const char *trace_target, int trace_dirfd)
{
    char err[PATH_MAX + 128];
    const char *slash = strrchr(trace_target, '/');
    size_t dlen, blen;

    memset(f, 0, sizeof(*f));
    f->listen_fd = f->dirfd = f->sock_dir_fd = -1;
    if (!slash)
        return -1;
    dlen = (size_t)(slash - trace_target);
    snprintf(f->out_dir, sizeof(f->out_dir), "%.*s", (int)(dlen ? dlen : 1), trace_target);
    blen = strlen(slash + 1);
    if (blen > 5 && strcmp(slash + 1 + blen - 5, ".clrp") == 0)
        blen -= 5;
    snprintf(f->stem, sizeof(f->stem), "%.*s", (int)blen, slash + 1);
    /* The children's files are made in the directory the output's
     * resolution reached, through its descriptor: never by path again. */
    f->dirfd = fcntl(trace_dirfd, F_DUPFD_CLOEXEC, 0);
    f->kids = calloc(FOLLOW_MAX_CHILDREN, sizeof(*f->kids));
    if (f->dirfd < 0 || !f->kids) {
        cli_error("%s; child processes are not followed", f->dirfd < 0 ? strerror(errno) : "out of memory");
        free(f->kids);
        f->kids = NULL;
        if (f->dirfd >= 0)
            close(f->dirfd);
        f->dirfd = -1;
        return -1;
    }
    f->listen_fd = cli_listen_private("run", "run", 64, &f->sock_dir_fd, f->dir, sizeof(f->dir), f->path,
                                      sizeof(f->path), err, sizeof(err));
    if (f->listen_fd < 0) {
        cli_error("%s; child processes are not followed", err);
        free(f->kids);
        f->kids = NULL;
        close(f->dirfd);
        f->dirfd = -1;
        return -1;
    }
    return 0;
}

void follow_program_name(const char *cmdline, size_t len, char *name, size_t namelen)
{
    const char *args[64], *pick, *p = cmdline, *end = cmdline + len, *base;
    size_t n = 0, plen;

    while (p < end && n < sizeof(args) / sizeof(args[0])) {
        args[n++] = p;
        p += strnlen(p, (size_t)(end - p)) + 1;
    }
    pick = n ? args[0] : "";
    base = strrchr(pick, '/');
    base = base ? base + 1 : pick;
    if (strcmp(base, "dotnet") == 0) {        /* dotnet [exec] [--opt VALUE ...] X.dll: X */
        for (size_t i = 1; i < n; i++) {
            size_t l = strnlen(args[i], (size_t)(end - args[i]));
            if (l > 4 && strcmp(args[i] + l - 4, ".dll") == 0) {
                pick = args[i];
                break;
            }
        }
    }
    base = strrchr(pick, '/');
    base = base ? base + 1 : pick;
    plen = strnlen(base, (size_t)(end > base ? end - base : 0));
    if (plen > 4 && strncmp(base + plen - 4, ".dll", 4) == 0)
        plen -= 4;
    if (plen == 0) {
        base = "process";
        plen = 7;
    }
    if (plen > namelen - 1)
        plen = namelen - 1;
    if (plen > FOLLOW_NAME_MAX)
        plen = FOLLOW_NAME_MAX;
    for (size_t i = 0; i < plen; i++) {
        char c = base[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '_' || c == '-';
        name[i] = ok ? c : '_';
    }
    name[plen] = '\0';
    if (name[0] == '.')
        name[0] = '_';
}

static void child_name(pid_t pid, char *name, size_t namelen)
{
    char path[64], cmdline[4096];
    ssize_t n = -1;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, cmdline, sizeof(cmdline));
        close(fd);
    }
    follow_program_name(cmdline, n > 0 ? (size_t)n : 0, name, namelen);
}

/* Reads what the child sent; returns 0 at end of stream (or error), else 1. */
static int child_read(follow_child *k)
{
    ssize_t n = recv(k->fd, k->buf + k->used, sizeof(k->buf) - 1 - k->used, MSG_DONTWAIT);
    char *line, *nl;

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 1;
    if (n <= 0)
        return 0;
    k->used += (size_t)n;
    k->buf[k->used] = '\0';
    line = k->buf;
    while ((nl = strchr(line, '\n'))) {
        const char *args;
        *nl = '\0';
        if (cp_ctl_is(line, CP_CTL_EXITED))
            k->exited = 1;
        else if (cp_ctl_is(line, CP_CTL_STOPPED))
            k->stopped = 1;
        else if ((args = cp_ctl_args(line, CP_CTL_ERROR)))
            snprintf(k->error, sizeof(k->error), "%s", args);
        line = nl + 1;
    }
    k->used -= (size_t)(line - k->buf);
    memmove(k->buf, line, k->used);
    if (k->used >= sizeof(k->buf) - 1)
        k->used = 0;                   /* garbage: drop it */
    return 1;
}

static void child_close(follow_child *k)
{
    if (k->fd >= 0) {
        close(k->fd);
        k->fd = -1;
        k->end_ns = cp_monotonic_ns();
    }
}

/* A connection is waiting: the child says hello, gets its file. */
static void accept_child(run_follow *f)
{
    struct ucred cred;
    socklen_t clen = sizeof(cred);
    struct pollfd pfd;
    follow_child *k;
    char hello[64];
    size_t used = 0;
    int conn, fd = -1;

    conn = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (conn < 0)
        return;
    if (f->n >= FOLLOW_MAX_CHILDREN || getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
        f->refused++;
        close(conn);                  /* the agent sees the end of stream and runs unprofiled */
        return;
    }
    /* "hello PID\n": the pid the kernel gives (SO_PEERCRED) is the one used. */
    pfd.fd = conn;
    pfd.events = POLLIN;
    for (uint64_t deadline = cp_monotonic_ns() + HELLO_MS * 1000000ull; used < sizeof(hello) - 1;) {
        uint64_t now = cp_monotonic_ns();
        ssize_t n;
        if (now >= deadline || poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1)) <= 0)
            break;
        n = recv(conn, hello + used, 1, 0);
        if (n <= 0)
            break;
        if (hello[used++] == '\n')
            break;
    }
    hello[used] = '\0';
    if (used == 0 || hello[used - 1] != '\n' || strncmp(hello, CP_CTL_HELLO " ", sizeof(CP_CTL_HELLO)) != 0) {
        close(conn);
        return;
    }
    k = &f->kids[f->n];
    memset(k, 0, sizeof(*k));
    k->pid = cred.pid;
    child_name(cred.pid, k->name, sizeof(k->name));
    for (int i = 1; i < 10 && fd < 0; i++) {
        char suffix[8] = "";
        if (i > 1)
            snprintf(suffix, sizeof(suffix), "-%d", i);
        if ((size_t)snprintf(k->file, sizeof(k->file), "%s.%s-%d%s.clrp", f->stem, k->name, (int)k->pid,
                             suffix) >= sizeof(k->file) ||
            (size_t)snprintf(k->path, sizeof(k->path), "%s/%s", strcmp(f->out_dir, "/") ? f->out_dir : "",
                             k->file) >= sizeof(k->path)) {
            errno = ENAMETOOLONG;
            break;
        }
        fd = openat(f->dirfd, k->file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                    CP_FILE_MODE);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        cli_error("cannot create a trace file for %s (pid %d) in %s: %s; it runs unprofiled", k->name, (int)k->pid,
                  f->out_dir, strerror(errno));
        f->refused++;
        close(conn);
        return;
    }
    cpu_clock_init(&k->clock);
    if (f->clock_period_ns) {
        char why[CP_CLOCK_WHY_MAX];           /* (the child then samples by a clock of its own) */
        cpu_clock_open(&k->clock, k->pid, f->clock_period_ns, f->clock_stacks, why, sizeof(why));
    }
    if (cp_ctl_send_trace(conn, fd, k->clock.map_fd, k->clock.stacks ? k->clock.ring_fd : -1) < 0) {
        cpu_clock_close(&k->clock);
        close(fd);
        unlinkat(f->dirfd, k->file, 0);
        close(conn);
        return;
    }
    k->fd = conn;
    k->file_fd = fd;
    k->start_ns = cp_monotonic_ns();
    f->n++;
}

int follow_wait(run_follow *f, pid_t pid, int *status)
{
    struct pollfd *pfds = calloc(FOLLOW_MAX_CHILDREN + 2, sizeof(*pfds));
    int pidfd = -1;

#ifdef SYS_pidfd_open
    pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        nfds_t n = 0;
        int timeout = pidfd >= 0 ? -1 : POLL_MS;

        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            int e = errno;
            free(pfds);
            if (pidfd >= 0)
                close(pidfd);
            errno = e;
            return -1;
        }
        if (!pfds) {                     /* out of memory: just wait */
            struct timespec ts = { 0, POLL_MS * 1000000L };
            nanosleep(&ts, NULL);
            continue;
        }
        if (pidfd >= 0)
            pfds[n++] = (struct pollfd){ pidfd, POLLIN, 0 };
        pfds[n++] = (struct pollfd){ f->listen_fd, POLLIN, 0 };
        for (size_t i = 0; i < f->n; i++)
            if (f->kids[i].fd >= 0)
                pfds[n++] = (struct pollfd){ f->kids[i].fd, POLLIN, 0 };
        if (poll(pfds, n, timeout) <= 0)
            continue;                    /* a signal (forwarded), or the timeout */
        for (nfds_t i = 0; i < n; i++) {
            if (!pfds[i].revents)
                continue;
            if (pfds[i].fd == f->listen_fd) {
                accept_child(f);
                continue;
            }
            for (size_t j = 0; j < f->n; j++)
                if (f->kids[j].fd == pfds[i].fd && !child_read(&f->kids[j]))
                    child_close(&f->kids[j]);
        }
    }
    free(pfds);
    if (pidfd >= 0)
        close(pidfd);
    return 0;
}

void follow_stop(run_follow *f)
{
    uint64_t deadline;

    /* First nobody new: a process started from now on finds no socket (or
     * a closed one) and never records. */
    cli_unlisten_private(&f->listen_fd, &f->sock_dir_fd, f->dir, f->path);
    if (!f->kids)
        return;

    for (size_t i = 0; i < f->n; i++)
        if (f->kids[i].fd >= 0 && send(f->kids[i].fd, CP_CTL_DETACH, CP_CTL_DETACH_LEN, MSG_NOSIGNAL) < 0)
            child_close(&f->kids[i]);
    deadline = cp_monotonic_ns() + STOP_MS * 1000000ull;
    for (;;) {
        struct pollfd pfds[FOLLOW_MAX_CHILDREN];
        follow_child *who[FOLLOW_MAX_CHILDREN];
        nfds_t n = 0;
        uint64_t now = cp_monotonic_ns();

        for (size_t i = 0; i < f->n; i++) {
            follow_child *k = &f->kids[i];
            if (k->fd >= 0 && !k->stopped) {
                who[n] = k;
                pfds[n++] = (struct pollfd){ k->fd, POLLIN, 0 };
            }
        }
        if (n == 0 || now >= deadline)
            break;
        if (poll(pfds, n, (int)((deadline - now) / 1000000 + 1)) <= 0)
            continue;
        for (nfds_t i = 0; i < n; i++)
            if (pfds[i].revents && !child_read(who[i]))
                child_close(who[i]);
    }
    for (size_t i = 0; i < f->n; i++) {
        follow_child *k = &f->kids[i];
        struct stat st, now_there;

        if (k->stopped && k->fd >= 0)
            k->end_ns = cp_monotonic_ns();
        if (k->fd >= 0) {
            close(k->fd);              /* (the end of stream stops one that did not answer) */
            k->fd = -1;
            if (!k->end_ns)
                k->end_ns = cp_monotonic_ns();
        }
        /* Nothing recorded (the agent refused): the empty file we made goes,
         * if it is still the one we made. */
        if (k->file_fd >= 0 && fstat(k->file_fd, &st) == 0 && st.st_size == 0 &&
            fstatat(f->dirfd, k->file, &now_there, AT_SYMLINK_NOFOLLOW) == 0 && now_there.st_ino == st.st_ino &&
            now_there.st_dev == st.st_dev) {
            unlinkat(f->dirfd, k->file, 0);
            k->path[0] = '\0';
        }
        if (k->file_fd >= 0)
            close(k->file_fd);
        k->file_fd = -1;
        cpu_clock_close(&k->clock);
    }
}

size_t follow_traced(const run_follow *f)
{
    size_t traced = 0;

    for (size_t i = 0; f->kids && i < f->n; i++)
        if (f->kids[i].path[0])
            traced++;
    return traced;
}

int follow_recorded_pid(const run_follow *f, pid_t pid)
{
    for (size_t i = 0; f->kids && i < f->n; i++)
        if (f->kids[i].pid == pid && f->kids[i].path[0])
            return 1;
    return 0;
}

int follow_sdk_tool(const char *name)
{
    static const char *const tools[] = { "dotnet", "MSBuild", "VBCSCompiler", "csc", "vbc", "dotnet-watch",
                                         "NuGet.Build.Tasks.Console", "Microsoft.Build.Tasks.CodeAnalysis",
                                         "vstest.console", "datacollector" };
    for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
        if (strcmp(name, tools[i]) == 0)
            return 1;
    return 0;
}

const char *follow_launcher(char **argv)
{
    const char *base = strrchr(argv[0], '/');

    base = base ? base + 1 : argv[0];
    if (strcmp(base, "dotnet") == 0 && argv[1] &&
        (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "test") == 0 || strcmp(argv[1], "watch") == 0))
        return argv[1];
    return NULL;
}

void follow_report(run_follow *f, char **argv)
{
    const char *base = strrchr(argv[0], '/');
    follow_child *app = NULL;
    size_t traced = follow_traced(f);
    char dir[PATH_MAX];

    base = base ? base + 1 : argv[0];
    if (!f->kids)
        return;
    /* The files are where the directory is now (moved meanwhile, its old
     * path may lead elsewhere): their paths are said from there. */
    if (cli_output_dir_now(f->dirfd, dir, sizeof(dir)) == 0) {
        for (size_t i = 0; i < f->n; i++) {
            char now[PATH_MAX];
            if (f->kids[i].path[0] && (size_t)snprintf(now, sizeof(now), "%s/%s", strcmp(dir, "/") ? dir : "",
                                                       f->kids[i].file) < sizeof(now))
                memcpy(f->kids[i].path, now, strlen(now) + 1);
        }
    }
    if (traced)
        cli_error("%zu process%s started by %s recorded %s own trace%s:", traced, traced == 1 ? "" : "es", base,
                  traced == 1 ? "its" : "their", traced == 1 ? "" : "s");
    for (size_t i = 0; i < f->n; i++) {
        follow_child *k = &f->kids[i];
        double secs = (double)(k->end_ns - k->start_ns) / 1e9;
        if (!k->path[0])
            continue;
        if (k->stopped)
            cli_error("  %s (pid %d), %.2f s, still running when the run ended (recording stopped then): %s", k->name,
                      (int)k->pid, secs, k->path);
        else
            cli_error("  %s (pid %d), %.2f s: %s", k->name, (int)k->pid, secs, k->path);
        if (!follow_sdk_tool(k->name) && (!app || k->end_ns - k->start_ns > app->end_ns - app->start_ns))
            app = k;
    }
    for (size_t i = 0; i < f->n; i++)
        if (!f->kids[i].path[0] && f->kids[i].error[0])
            cli_error("  %s (pid %d) did not record: %s", f->kids[i].name, (int)f->kids[i].pid, f->kids[i].error);
    if (f->refused)
        cli_error("  %u more process%s ran unprofiled (see above)", f->refused, f->refused == 1 ? "" : "es");
    /* `dotnet run`, `dotnet test`, `dotnet watch`: the SDK's command only
     * launches; the app runs in a child. */
    if (follow_launcher(argv)) {
        if (app)
            cli_error("dotnet %s only launched the app: it ran in %s (pid %d), whose trace is %s", argv[1], app->name,
                      (int)app->pid, app->path);
        else
            cli_error("dotnet %s only launches the app, and no process it started recorded a trace", argv[1]);
    }
    free(f->kids);
    f->kids = NULL;
    if (f->dirfd >= 0)
        close(f->dirfd);
    f->dirfd = -1;
}
