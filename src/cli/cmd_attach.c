/* cmd_attach.c - `clrprobe attach`: asks a running .NET process to load the
 * agent (diagnostics IPC AttachProfiler), waits for the catch-up, records
 * until the duration ends or the command is interrupted, then has the agent
 * detach and waits until the detach has really happened.  The command talks
 * to the agent over a Unix socket of its own (protocol in
 * src/agent/control.h); if the command dies, the agent detaches by itself. */
#include "cli/cli.h"
#include "common/clock.h"
#include "common/config.h"
#include "ipc/ipc.h"
#include "report/model.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define READY_TIMEOUT_MS 120000      /* catch-up of a very large process */
#define DETACH_TIMEOUT_MS 30000

static const char attach_usage[] =
    "usage: clrprobe attach PID [-o FILE] [--collect LIST] [--rate HZ] [--duration SECONDS]\n"
    "       clrprobe attach -p PID ...\n"
    "\n"
    "Attaches the clrprobe agent to a running .NET process (.NET 5 or newer), catches up\n"
    "on what is already loaded (modules, assemblies, threads, JIT-compiled functions),\n"
    "records until the duration ends or until Ctrl-C / SIGTERM, then detaches and waits\n"
    "until the agent has really left.  The process runs on untouched.\n"
    "\n"
    "options:\n"
    "  -p, --process-id PID  the process (or give PID as the first argument)\n"
    "  -o, --output FILE     trace file (default: clrprobe-PID-YYYYMMDD-HHMMSS.clrp)\n"
    "  -c, --collect LIST    what to record (default: all): cpu (stack sampling), appdomains,\n"
    "                        assemblies, modules, classes, jit, threads, gc, suspensions, exceptions\n"
    "  -r, --rate HZ         CPU sampling rate, 1..1000 samples per second (default: 100)\n"
    "  -d, --duration SECS   detach after SECS seconds (may be fractional; default: until\n"
    "                        interrupted)\n"
    "  -t, --timeout SECS    how long the runtime may take to accept (default: 10)\n"
    "  -h, --help            this help\n"
    "\n"
    "Run clrprobe as the same user as the process, or as root.  Precompiled (ReadyToRun)\n"
    "code is not reported after an attach (the runtime allows that only at startup).\n"
    "'clrprobe ps' lists the processes you can attach to.\n";

typedef struct ctl {
    int listen_fd, fd;
    char dir[64], path[128];
    char buf[1024];
    size_t used;
} ctl;

static void ctl_cleanup(ctl *c)
{
    if (c->fd >= 0) close(c->fd);
    if (c->listen_fd >= 0) close(c->listen_fd);
    if (c->path[0]) unlink(c->path);
    if (c->dir[0]) rmdir(c->dir);
    c->fd = c->listen_fd = -1;
}

/* A private directory with a listening socket the agent connects to.  When
 * root attaches to another user's process, that user must be able to
 * connect: the directory and socket are given to it. */
static int ctl_listen(ctl *c, uid_t target_uid)
{
    struct sockaddr_un addr;

    c->fd = c->listen_fd = -1;
    c->path[0] = '\0';
    snprintf(c->dir, sizeof(c->dir), "/tmp/clrprobe-ctl-XXXXXX");
    if (!mkdtemp(c->dir)) {
        c->dir[0] = '\0';
        cli_error("cannot create a control directory in /tmp: %s", strerror(errno));
        return -1;
    }
    snprintf(c->path, sizeof(c->path), "%s/ctl", c->dir);
    c->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", c->path);
    if (c->listen_fd < 0 || bind(c->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
        listen(c->listen_fd, 2) < 0) {
        cli_error("cannot create the control socket %s: %s", c->path, strerror(errno));
        return -1;
    }
    if (geteuid() == 0 && target_uid != 0) {
        if (chown(c->dir, target_uid, (gid_t)-1) < 0 || chown(c->path, target_uid, (gid_t)-1) < 0) {
            cli_error("cannot hand the control socket to uid %u: %s", (unsigned)target_uid, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Waits up to timeout_ms for the agent to connect. */
static int ctl_accept(ctl *c, int timeout_ms)
{
    struct pollfd pfd = { c->listen_fd, POLLIN, 0 };
    if (c->fd >= 0)
        return 0;
    if (poll(&pfd, 1, timeout_ms) <= 0)
        return -1;
    c->fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (c->fd < 0)
        return -1;
    /* The agent connects once: remove the path now, so that nothing is
     * left in /tmp even if this command is killed. */
    unlink(c->path);
    rmdir(c->dir);
    c->path[0] = c->dir[0] = '\0';
    return 0;
}

/* Next line from the agent into line (without newline).  1 = got one,
 * 0 = timeout, -1 = end of stream, -2 = a signal arrived on sfd. */
static int ctl_line(ctl *c, int sfd, int timeout_ms, char *line, size_t cap)
{
    uint64_t deadline = cp_monotonic_ns() + (uint64_t)timeout_ms * 1000000u;

    for (;;) {
        char *nl = memchr(c->buf, '\n', c->used);
        struct pollfd pfd[2] = { { c->fd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
        uint64_t now;
        ssize_t n;
        int r;

        if (nl) {
            size_t len = (size_t)(nl - c->buf);
            snprintf(line, cap, "%.*s", (int)len, c->buf);
            memmove(c->buf, nl + 1, c->used - len - 1);
            c->used -= len + 1;
            return 1;
        }
        now = cp_monotonic_ns();
        if (timeout_ms >= 0 && now >= deadline)
            return 0;
        r = poll(pfd, sfd >= 0 ? 2 : 1, timeout_ms < 0 ? -1 : (int)((deadline - now) / 1000000u) + 1);
        if (r < 0 && errno != EINTR)
            return -1;
        if (r <= 0)
            continue;
        if (sfd >= 0 && (pfd[1].revents & POLLIN))
            return -2;
        if (c->used >= sizeof(c->buf) - 1)
            c->used = 0;
        n = recv(c->fd, c->buf + c->used, sizeof(c->buf) - 1 - c->used, 0);
        if (n <= 0)
            return -1;
        c->used += (size_t)n;
    }
}

static uid_t process_uid(int pid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof(path), "/proc/%d", pid);
    return stat(path, &st) == 0 ? st.st_uid : (uid_t)-1;
}

static double ms_since(uint64_t t0) { return (double)(cp_monotonic_ns() - t0) / 1e6; }

int cmd_attach(int argc, char **argv)
{
    static const struct option opts[] = {
        { "process-id", required_argument, NULL, 'p' },
        { "output", required_argument, NULL, 'o' },
        { "collect", required_argument, NULL, 'c' },
        { "rate", required_argument, NULL, 'r' },
        { "duration", required_argument, NULL, 'd' },
        { "timeout", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const GUID clsid = { 0x8C5F2C71, 0x3A9E, 0x4E1B, { 0x9F, 0x4D, 0x2B, 0x7A, 0x6C, 0x1D, 0x0E, 0x53 } };
    uint64_t t_start = cp_monotonic_ns(), t_detach;
    char agent[PATH_MAX], out_abs[PATH_MAX], def_out[128], err[512], text[CP_CONFIG_MAX_TEXT + 1];
    char sockpath[IPC_PATH_MAX], line[600], partial[PATH_MAX + 32];
    const char *output = NULL, *pid_arg = NULL;
    double duration = -1, timeout_s = 10;
    int c, pid, rc, sfd = -1, status = 1, r;
    unsigned modules = 0, assemblies = 0, threads = 0, functions = 0;
    cp_config cfg;
    HRESULT hr = 0;
    uid_t uid;
    sigset_t sigs, old;
    ctl ch = { -1, -1, "", "", "", 0 };
    char *end;

    cp_config_init(&cfg);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:o:c:d:t:r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pid_arg = optarg; break;
        case 'o': output = optarg; break;
        case 'd':
            duration = strtod(optarg, &end);
            if (!*optarg || *end || duration < 0 || duration > 1e6) {
                cli_error("attach: --duration '%s' is not a number of seconds", optarg);
                return EXIT_USAGE;
            }
            break;
        case 't':
            timeout_s = strtod(optarg, &end);
            if (!*optarg || *end || timeout_s <= 0 || timeout_s > 3600) {
                cli_error("attach: --timeout '%s' is not a number of seconds (0 < SECS <= 3600)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'c':
        case 'r':
            if (cli_agent_option(c, optarg, &cfg) < 0)
                return EXIT_USAGE;
            break;
        case 'h':
            fputs(attach_usage, stdout);
            return 0;
        default:
            cli_option_error("attach", argv, optind, optopt);
            return EXIT_USAGE;
        }
    }
    if (!pid_arg && optind < argc)
        pid_arg = argv[optind++];
    if (optind < argc) {
        cli_error("attach: unexpected argument '%s' (see clrprobe attach --help)", argv[optind]);
        return EXIT_USAGE;
    }
    if (!pid_arg) {
        cli_error("attach: no process given; usage: clrprobe attach PID (list them with 'clrprobe ps')");
        return EXIT_USAGE;
    }
    pid = (int)strtol(pid_arg, &end, 10);
    if (!*pid_arg || *end || pid <= 0) {
        cli_error("attach: '%s' is not a process id", pid_arg);
        return EXIT_USAGE;
    }
    if (pid == (int)getpid()) {
        cli_error("attach: %d is clrprobe itself", pid);
        return EXIT_USAGE;
    }

    if (cli_find_agent(agent, sizeof(agent)) < 0)
        return 1;
    rc = ipc_socket_path(pid, sockpath, sizeof(sockpath), err, sizeof(err));
    if (rc != IPC_OK) {
        cli_error("cannot attach: %s", err);
        return 1;
    }
    if (!output) {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
        snprintf(def_out, sizeof(def_out), "clrprobe-%d-%s.clrp", pid, stamp);
        output = def_out;
    }
    if (cli_absolute_path(output, out_abs, sizeof(out_abs)) < 0 || strlen(out_abs) >= CP_PATH_MAX) {
        cli_error("output path %s is too long", output);
        return EXIT_USAGE;
    }
    /* The agent records into a file of this session's own, renamed to the
     * output at the end: a refused or failed attach never touches an
     * existing file (another session may be recording it). */
    if (cli_check_writable(out_abs, "trace file", 0) < 0)
        return 1;
    cli_remove_if_empty(out_abs);                 /* only just created by the check */
    snprintf(partial, sizeof(partial), "%s.partial-%d", out_abs, (int)getpid());
    {
        int fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) {
            cli_error("cannot write trace file %s: %s; choose another path with -o", partial, strerror(errno));
            return 1;
        }
        close(fd);
    }
    uid = process_uid(pid);
    if (geteuid() == 0 && uid != (uid_t)-1 && uid != 0 && chown(partial, uid, (gid_t)-1) < 0) {
        cli_error("cannot give the trace file %s to uid %u (the agent writes it as the process's user): %s",
                  partial, (unsigned)uid, strerror(errno));
        goto out_unlink;
    }
    if (ctl_listen(&ch, uid) < 0)
        goto out_unlink;
    if (strlen(partial) >= sizeof(cfg.output)) {
        cli_error("output path %s is too long", out_abs);
        goto out_unlink;
    }
    memcpy(cfg.output, partial, strlen(partial) + 1);
    snprintf(cfg.ctl, sizeof(cfg.ctl), "%s", ch.path);
    if (cp_config_format(&cfg, text, sizeof(text)) < 0) {
        cli_error("output path %s is too long to pass to the agent", out_abs);
        goto out_unlink;
    }

    /* Interruptions are read from a signalfd: Ctrl-C during the attach is
     * honoured right after it, by detaching at once. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, &old);
    signal(SIGPIPE, SIG_IGN);
    sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
    if (sfd < 0) {
        cli_error("cannot watch for Ctrl-C: %s", strerror(errno));
        sigprocmask(SIG_SETMASK, &old, NULL);
        goto out_unlink;
    }

    rc = ipc_attach_profiler(pid, (int)(timeout_s * 1000), &clsid, agent, text, (uint32_t)strlen(text), &hr,
                             err, sizeof(err));
    if (rc != IPC_OK) {
        cli_error("cannot attach to process %d: %s", pid, err);
        goto out_unlink;
    }
    if (hr != S_OK) {
        cli_error("cannot attach to process %d: %s", pid, ipc_hresult_message(hr));
        /* the agent may have said why it refused */
        if (ctl_accept(&ch, 200) == 0) {
            while (ctl_line(&ch, -1, 200, line, sizeof(line)) == 1)
                if (strncmp(line, "error ", 6) == 0)
                    cli_error("the agent said: %s", line + 6);
        }
        goto out_unlink;
    }
    if (ctl_accept(&ch, 10000) < 0) {
        cli_error("process %d accepted the agent, but the agent never called back; it detaches by itself", pid);
        goto out_unlink;
    }
    for (;;) {
        r = ctl_line(&ch, -1, READY_TIMEOUT_MS, line, sizeof(line));
        if (r != 1) {
            cli_error("the agent in process %d stopped answering during the catch-up (%s); it detaches by "
                      "itself", pid, r == 0 ? "timed out" : "connection closed");
            goto out_unlink;
        }
        if (strncmp(line, "ready ", 6) == 0) {
            sscanf(line + 6, "%u %u %u %u", &modules, &assemblies, &threads, &functions);
            break;
        }
        if (strncmp(line, "error ", 6) == 0) {
            cli_error("the agent in process %d: %s", pid, line + 6);
            goto out_unlink;
        }
    }
    cli_error("attached to process %d in %.1f ms: caught up on %u modules, %u assemblies, %u threads, "
              "%u JIT-compiled functions; recording %s", pid, ms_since(t_start), modules, assemblies, threads,
              functions, duration >= 0 ? "for the given duration" : "until Ctrl-C");

    /* Record until the duration ends, a signal arrives, or the process goes. */
    {
        int wait_ms = duration >= 0 ? (int)(duration * 1000) : -1;
        r = ctl_line(&ch, sfd, wait_ms, line, sizeof(line));
        while (r == 1 && strcmp(line, "exited") != 0)
            r = ctl_line(&ch, sfd, wait_ms, line, sizeof(line));      /* (nothing else is expected) */
        if (r == 1 || r == -1) {
            /* "exited": the process is shutting down and the agent closed the trace */
            if (rename(partial, out_abs) < 0) {
                cli_error("cannot move the trace %s to %s: %s", partial, out_abs, strerror(errno));
                goto out;
            }
            if (r == 1)
                cli_error("process %d exited; trace written to %s", pid, out_abs);
            else
                cli_error("process %d went away without closing the trace; it ends at the agent's last "
                          "flush: %s", pid, out_abs);
            status = r == 1 ? 0 : 1;
            goto out;
        }
    }

    t_detach = cp_monotonic_ns();
    if (send(ch.fd, "detach\n", 7, MSG_NOSIGNAL) != 7) {
        cli_error("lost the connection to the agent in process %d", pid);
        goto out;
    }
    for (;;) {
        r = ctl_line(&ch, -1, DETACH_TIMEOUT_MS, line, sizeof(line));
        if (r != 1) {
            cli_error("process %d did not confirm the detach (%s); what was recorded is in %s", pid,
                      r == 0 ? "timed out" : "connection closed", partial);
            goto out;
        }
        if (strcmp(line, "detached") == 0 || strcmp(line, "exited") == 0)
            break;
        if (strncmp(line, "detach-failed ", 14) == 0) {
            HRESULT dhr = (HRESULT)strtoul(line + 14, NULL, 16);
            cli_error("process %d refused to detach the agent: %s; the agent stopped recording, the trace is "
                      "in %s", pid, ipc_hresult_message(dhr), partial);
            goto out;
        }
    }
    {
        double detach_ms = ms_since(t_detach);
        rp_trace tr;
        if (rp_load(partial, &tr, err, sizeof(err)) != TRACE_OK) {
            cli_error("the trace %s cannot be read back: %s", partial, err);
            goto out;
        }
        if (!tr.complete) {
            cli_error("the trace %s is incomplete after the detach", partial);
            rp_free(&tr);
            goto out;
        }
        rp_free(&tr);
        if (rename(partial, out_abs) < 0) {
            cli_error("cannot move the trace %s to %s: %s", partial, out_abs, strerror(errno));
            goto out;
        }
        cli_error("detached from process %d in %.1f ms; trace written to %s", pid, detach_ms, out_abs);
    }
    status = 0;
    goto out;

out_unlink:
    unlink(partial);
out:
    ctl_cleanup(&ch);
    if (sfd >= 0) {
        close(sfd);
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    return status;
}
