/* cmd_attach.c - `clrprobe attach`: asks a running .NET process to load the
 * agent (diagnostics IPC AttachProfiler), hands it the trace file, waits for
 * the catch-up, records until the duration ends or the command is
 * interrupted, then has the agent detach and waits until the detach has
 * really happened.  The command talks to the agent over a Unix socket of its
 * own (protocol in src/agent/control.h); if the command dies, the agent
 * detaches by itself.  Every wait also watches for Ctrl-C / SIGTERM. */
#include "cli/cli.h"
#include "cli/output.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/control_protocol.h"
#include "common/duration.h"
#include "common/identity.h"
#include "ipc/ipc.h"

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
#include <unistd.h>

#define HELLO_GRACE_MS 5000          /* past the attach timeout, for the agent to call back */
#define READY_TIMEOUT_MS 120000      /* the catch-up of a very large process */
#define DETACH_TIMEOUT_MS 30000
#define EXIT_INTERRUPTED 130

static const char attach_usage[] =
    "usage: clrprobe attach PID [-o FILE] [--collect LIST] [--rate HZ] [--duration TIME]\n"
    "       clrprobe attach -p PID ...\n"
    "       clrprobe attach -n NAME ...\n"
    "\n"
    "Attaches the clrprobe agent to a running .NET process (.NET 5 or newer), catches up\n"
    "on what is already loaded (modules, assemblies, threads, JIT-compiled functions),\n"
    "records until the duration ends or until Ctrl-C / SIGTERM, then detaches and waits\n"
    "until the agent has really left.  The process runs on untouched.\n"
    "\n"
    "options:\n"
    "  -p, --process-id PID  the process (or give PID as the first argument)\n"
    "  -n, --name NAME       the .NET process named NAME, ignoring case: its name as .NET's tools\n"
    "                        and 'clrprobe ps' show it (e.g. MyApp, or dotnet for 'dotnet app.dll'),\n"
    "                        or its main assembly's name (app); an error lists them if several match\n"
    "  -o, --output FILE     trace file (default: clrprobe-PID-YYYYMMDD-HHMMSS.clrp in the current\n"
    "                        directory, never replacing a file); recorded into FILE.partial-XXXXXX\n"
    "                        (mode 0600, owned by you) and moved to FILE at the end\n"
    "  -c, --collect LIST    what to record (default: all): cpu (stack sampling), appdomains,\n"
    "                        assemblies, modules, classes, jit, threads, gc, suspensions, exceptions\n"
    "  -r, --rate HZ         CPU sampling rate, 1..1000 samples per second (default: 100)\n"
    "  -d, --duration TIME   detach after TIME (default: until interrupted); TIME is seconds\n"
    "                        (5, 1.5), a number and a unit (500ms, 5s, 2m, 1h, 1m30s) or\n"
    "                        dotnet-trace's dd:hh:mm:ss (00:00:00:05)\n"
    "  -t, --timeout TIME    how long the runtime may take to accept (default: 10 s; same forms;\n"
    "                        the command gives up 5 s after it if the agent has not called back)\n"
    "  -h, --help            this help\n"
    "\n"
    "Ctrl-C stops the recording and detaches; a second Ctrl-C stops waiting for the detach.\n"
    "A process that already has a profiler (clrprobe run's, another attach's, or a startup\n"
    "profiler such as an APM agent) is refused before anything is tried: the runtime takes\n"
    "one, and a refused attempt would leave the agent's library in the process.\n"
    "Run clrprobe as the same user as the process, or as root.  Precompiled (ReadyToRun)\n"
    "code is not reported after an attach (the runtime allows that only at startup).\n"
    "'clrprobe ps' lists the processes you can attach to.\n";

/* The command's end of the control connection. */
typedef struct ctl {
    int listen_fd, fd;
    char dir[64], path[128];
    char buf[1024];
    size_t used;
} ctl;

/* One attach session. */
typedef struct session {
    int pid;
    int sfd;                      /* signalfd: SIGINT, SIGTERM, SIGHUP */
    ctl ch;
    cli_output out;
    unsigned modules, assemblies, threads, functions;
    int hello;                    /* "hello" seen: the agent runs and has the trace file */
    int ready;                    /* "ready" seen: the catch-up is done */
    char agent_error[CP_CTL_LINE_MAX];  /* what the agent said when it refused */
} session;

static void ctl_cleanup(ctl *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    cli_unlisten_private(&c->listen_fd, c->dir, c->path);
}

/* A private directory with a listening socket the agent connects to.  When
 * root attaches to another user's process, that user must be able to
 * connect: the directory and socket are given to it. */
static int ctl_listen(ctl *c, uid_t target_uid)
{
    char err[PATH_MAX + 128];

    c->fd = -1;
    c->listen_fd = cli_listen_private("ctl", "ctl", 2, c->dir, sizeof(c->dir), c->path, sizeof(c->path), err,
                                      sizeof(err));
    if (c->listen_fd < 0) {
        cli_error("%s (for the control channel)", err);
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

/* Accepts the agent's connection if it is waiting. */
static void ctl_accept(ctl *c)
{
    if (c->fd >= 0 || c->listen_fd < 0)
        return;
    c->fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (c->fd < 0)
        return;
    /* The agent connects once: remove the path now, so that nothing is
     * left in /tmp even if this command is killed. */
    cli_unlisten_private(&c->listen_fd, c->dir, c->path);
}

/* Takes the pending interruption off the signalfd (so that it counts once
 * and is not delivered when the signals are unblocked at exit). */
static void take_signal(int sfd)
{
    struct signalfd_siginfo si;
    if (sfd >= 0 && read(sfd, &si, sizeof(si)) < 0) {
        /* nothing pending after all */
    }
}

/* Results of the waits below. */
enum { GOT_LINE = 1, TIMED_OUT = 0, CLOSED = -1, INTERRUPTED = -2 };

/* Next line from the agent into line (without newline), waiting up to
 * timeout_ms (-1: forever; 0: only what has arrived) and watching sfd. */
static int ctl_line(ctl *c, int sfd, int timeout_ms, char *line, size_t cap)
{
    uint64_t deadline = cp_monotonic_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;

    for (;;) {
        char *nl = memchr(c->buf, '\n', c->used);
        struct pollfd pfd[2] = { { c->fd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
        uint64_t now = cp_monotonic_ns();
        int r, wait_ms;
        ssize_t n;

        if (nl) {
            size_t len = (size_t)(nl - c->buf);
            snprintf(line, cap, "%.*s", (int)len, c->buf);
            memmove(c->buf, nl + 1, c->used - len - 1);
            c->used -= len + 1;
            return GOT_LINE;
        }
        if (c->fd < 0)
            return CLOSED;
        wait_ms = timeout_ms < 0 ? -1 : now >= deadline ? 0 : (int)((deadline - now) / 1000000u) + 1;
        r = poll(pfd, sfd >= 0 ? 2 : 1, wait_ms);
        if (r < 0 && errno != EINTR)
            return CLOSED;
        if (r < 0)
            continue;
        if (sfd >= 0 && (pfd[1].revents & POLLIN)) {
            take_signal(sfd);
            return INTERRUPTED;
        }
        if (r == 0)
            return TIMED_OUT;
        if (c->used >= sizeof(c->buf) - 1)
            c->used = 0;                      /* an endless line: drop it */
        n = recv(c->fd, c->buf + c->used, sizeof(c->buf) - 1 - c->used, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            return CLOSED;
        if (n > 0)
            c->used += (size_t)n;
    }
}

/* Acts on one line from the agent while the attach is under way. */
static void on_agent_line(session *s, const char *line)
{
    const char *args;

    if (cp_ctl_args(line, CP_CTL_HELLO)) {
        s->hello = 1;
        if (cp_ctl_send_trace(s->ch.fd, s->out.fd) < 0)
            cli_error("cannot hand the trace file to the agent: %s", strerror(errno));
    } else if ((args = cp_ctl_args(line, CP_CTL_ERROR)) != NULL) {
        snprintf(s->agent_error, sizeof(s->agent_error), "%s", args);
    } else if ((args = cp_ctl_args(line, CP_CTL_READY)) != NULL) {
        unsigned long long took_ns;
        sscanf(args, CP_CTL_READY_ARGS_FMT, &s->modules, &s->assemblies, &s->threads, &s->functions, &took_ns);
        s->ready = 1;
    }
}

/* Reads every line that has arrived; CLOSED once the agent has hung up. */
static int drain_agent(session *s)
{
    char line[CP_CTL_LINE_MAX];
    int r;

    while ((r = ctl_line(&s->ch, -1, 0, line, sizeof(line))) == GOT_LINE)
        on_agent_line(s, line);
    return r;
}

static double ms_since(uint64_t t0) { return (double)(cp_monotonic_ns() - t0) / 1e6; }

/* Sends the attach request and serves the agent until the runtime answers:
 * the agent calls back from InitializeForAttach ("hello"), gets the trace
 * file, catches up, and only then does the runtime reply.  The wait is the
 * attach timeout plus HELLO_GRACE_MS until the agent has called back, then
 * READY_TIMEOUT_MS for the catch-up.  Returns GOT_LINE when attached (and
 * ready), INTERRUPTED, or CLOSED after a message. */
static int attach_agent(session *s, const char *agent, const char *text, int timeout_ms)
{
    uint64_t deadline;
    char err[512];
    HRESULT hr = E_FAIL;
    int ipc_fd, rc = IPC_ERR_TIMEOUT, hello = 0, agent_gone = 0;

    ipc_fd = ipc_attach_profiler_send(s->pid, timeout_ms, &CLSID_clrprobe, agent, text, (uint32_t)strlen(text),
                                      s->sfd, err, sizeof(err));
    if (ipc_fd == IPC_ERR_CANCELLED) {
        take_signal(s->sfd);
        return INTERRUPTED;
    }
    if (ipc_fd < 0) {
        cli_error("cannot attach to process %d: %s", s->pid, err);
        return CLOSED;
    }
    deadline = cp_monotonic_ns() + (uint64_t)(timeout_ms + HELLO_GRACE_MS) * 1000000u;
    for (;;) {
        struct pollfd pfd[3] = {
            { ipc_fd, POLLIN, 0 },
            { s->sfd, POLLIN, 0 },
            { s->ch.fd >= 0 ? s->ch.fd : s->ch.listen_fd, POLLIN, 0 },
        };
        uint64_t now = cp_monotonic_ns();
        int r;

        if (now >= deadline)
            break;
        r = poll(pfd, agent_gone ? 2 : 3, (int)((deadline - now) / 1000000u) + 1);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        if (pfd[1].revents & POLLIN) {
            take_signal(s->sfd);
            close(ipc_fd);
            return INTERRUPTED;
        }
        if (!agent_gone && pfd[2].revents) {
            ctl_accept(&s->ch);
            if (s->ch.fd >= 0 && drain_agent(s) == CLOSED)
                agent_gone = 1;           /* it refused (the reply says so) or died */
        }
        if (s->hello && !hello) {
            hello = 1;                    /* from now on the catch-up has its own time */
            deadline = cp_monotonic_ns() + (uint64_t)READY_TIMEOUT_MS * 1000000u;
        }
        if (pfd[0].revents) {
            rc = ipc_attach_profiler_reply(ipc_fd, s->pid, &hr, err, sizeof(err));
            break;
        }
    }
    close(ipc_fd);
    if (rc == IPC_ERR_TIMEOUT) {
        cli_error("cannot attach to process %d: %s; the attach may still complete in the background (the agent "
                  "then finds clrprobe gone and unloads)", s->pid,
                  hello ? "the agent's catch-up did not finish within 120 s"
                        : "it did not answer within the attach timeout and 5 s more");
        return CLOSED;
    }
    if (rc != IPC_OK) {
        cli_error("cannot attach to process %d: %s", s->pid, err);
        return CLOSED;
    }
    if (hr != S_OK) {
        cli_error("cannot attach to process %d: %s", s->pid, ipc_hresult_message(hr));
        /* the agent may have said why it refused */
        if (!s->agent_error[0] && s->ch.fd >= 0) {
            char line[CP_CTL_LINE_MAX];
            while (ctl_line(&s->ch, -1, 200, line, sizeof(line)) == GOT_LINE)
                on_agent_line(s, line);
        }
        if (s->agent_error[0])
            cli_error("the agent said: %s", s->agent_error);
        return CLOSED;
    }
    ctl_accept(&s->ch);
    if (s->ch.fd < 0) {
        cli_error("process %d accepted the agent, but the agent never called back; it detaches by itself", s->pid);
        return CLOSED;
    }
    /* "ready" is sent before the runtime's reply; wait for it all the same. */
    while (!s->ready) {
        char line[CP_CTL_LINE_MAX];
        int r = ctl_line(&s->ch, s->sfd, READY_TIMEOUT_MS, line, sizeof(line));
        if (r == INTERRUPTED)
            return INTERRUPTED;
        if (r != GOT_LINE) {
            cli_error("the agent in process %d stopped answering during the catch-up (%s); it detaches by "
                      "itself", s->pid, r == TIMED_OUT ? "timed out" : "connection closed");
            return CLOSED;
        }
        on_agent_line(s, line);
        if (s->agent_error[0]) {
            cli_error("the agent in process %d: %s", s->pid, s->agent_error);
            return CLOSED;
        }
    }
    return GOT_LINE;
}

/* Puts the recorded trace in place and says what it holds.  Returns the
 * exit status. */
static int finish(session *s, const char *how)
{
    char why[512];
    int outcome = cli_trace_outcome(cli_output_staging_path(&s->out), why, sizeof(why));

    if (outcome == CLI_TRACE_UNREADABLE) {
        cli_error("the trace recorded from process %d cannot be read back (%s); it is kept in %s", s->pid, why,
                  cli_output_staging_path(&s->out));
        return 1;
    }
    if (cli_output_commit(&s->out) < 0)
        return 1;
    if (outcome == CLI_TRACE_STOPPED) {
        cli_error("%s; trace written to %s, but the agent stopped recording early: %s", how,
                  cli_output_display(&s->out), why);
        return 1;
    }
    if (outcome == CLI_TRACE_CUT_SHORT) {
        cli_error("%s; trace written to %s, but it was not closed: it ends at the agent's last flush", how,
                  cli_output_display(&s->out));
        return 1;
    }
    cli_error("%s; trace written to %s", how, cli_output_display(&s->out));
    return 0;
}

/* Has the agent detach and waits until it has.  Returns the exit status. */
static int detach_agent(session *s)
{
    uint64_t t_detach = cp_monotonic_ns();
    char line[CP_CTL_LINE_MAX], how[128];
    const char *args;
    int r;

    if (send(s->ch.fd, CP_CTL_DETACH, CP_CTL_DETACH_LEN, MSG_NOSIGNAL) != CP_CTL_DETACH_LEN) {
        cli_error("lost the connection to the agent in process %d; what was recorded is in %s", s->pid,
                  cli_output_staging_path(&s->out));
        return 1;
    }
    for (;;) {
        r = ctl_line(&s->ch, s->sfd, DETACH_TIMEOUT_MS, line, sizeof(line));
        if (r == INTERRUPTED) {
            cli_error("interrupted: not waiting for process %d to detach; the agent completes the trace as it "
                      "leaves, in %s", s->pid, cli_output_staging_path(&s->out));
            return EXIT_INTERRUPTED;
        }
        if (r != GOT_LINE) {
            cli_error("process %d did not confirm the detach (%s); what was recorded is in %s", s->pid,
                      r == TIMED_OUT ? "timed out after 30 s" : "connection closed",
                      cli_output_staging_path(&s->out));
            return 1;
        }
        if (cp_ctl_is(line, CP_CTL_DETACHED) || cp_ctl_is(line, CP_CTL_EXITED))
            break;
        if ((args = cp_ctl_args(line, CP_CTL_DETACH_FAILED)) != NULL) {
            HRESULT dhr = (HRESULT)strtoul(args, NULL, 16);
            cli_error("process %d refused to detach the agent: %s; the agent stopped recording", s->pid,
                      ipc_hresult_message(dhr));
            finish(s, "the agent stays loaded");
            return 1;
        }
    }
    snprintf(how, sizeof(how), "detached from process %d in %.1f ms", s->pid, ms_since(t_detach));
    return finish(s, how);
}

/* The runtime has one main profiler, and refuses a second only after it
 * has loaded the library, which then stays in the process until it exits
 * (docs/attach.md, "One profiler per process"): such an attempt is not
 * made.  -1 after saying why when the process already has one. */
static int refuse_if_profiled(int pid)
{
    ipc_loaded_profiler_t lp;
    char err[512], what[4200];
    const char *hint = "";
    int rc = ipc_loaded_profiler(pid, &lp, err, sizeof(err));

    if (rc == IPC_ERR_PERMISSION) {
        cli_error("cannot tell whether process %d already has a profiler (%s); attaching anyway", pid, err);
        return 0;
    }
    if (rc != IPC_OK || lp.kind == IPC_PROFILER_NONE)
        return 0;          /* (a process gone meanwhile: the attach says so) */
    if (lp.kind == IPC_PROFILER_STARTUP && lp.clrprobe) {
        snprintf(what, sizeof(what), "clrprobe's agent %s, started with the process by clrprobe run", lp.path);
        hint = "; its trace is written when the process exits";
    } else if (lp.kind == IPC_PROFILER_STARTUP) {
        snprintf(what, sizeof(what), "%s, its startup profiler (%s)", lp.path, lp.variable);
    } else {
        snprintf(what, sizeof(what), "clrprobe's agent %s, attached by another clrprobe attach", lp.path);
        hint = "; attach again once that one has detached";
    }
    cli_error("cannot attach: process %d already has a profiler loaded (%s); only one can be, and the "
              "runtime refuses another only after loading its library, which then stays in the process until it "
              "exits: no attach was attempted%s", pid, what, hint);
    return -1;
}

static uid_t process_uid(int pid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof(path), "/proc/%d", pid);
    return stat(path, &st) == 0 ? st.st_uid : (uid_t)-1;
}

/* A process id: decimal, 1..INT_MAX, nothing else.  -1 if not. */
static int parse_pid(const char *text)
{
    char *end;
    long v;

    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    v = strtol(text, &end, 10);
    if (*end || errno || v <= 0 || v > INT_MAX)
        return -1;
    return (int)v;
}

int cmd_attach(int argc, char **argv)
{
    static const struct option opts[] = {
        { "process-id", required_argument, NULL, 'p' },
        { "name", required_argument, NULL, 'n' },
        { "output", required_argument, NULL, 'o' },
        { "collect", required_argument, NULL, 'c' },
        { "rate", required_argument, NULL, 'r' },
        { "duration", required_argument, NULL, 'd' },
        { "timeout", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    uint64_t t_start = cp_monotonic_ns();
    char agent[PATH_MAX], err[512], text[CP_CONFIG_MAX_TEXT + 1], sockpath[IPC_PATH_MAX], label[32];
    char line[CP_CTL_LINE_MAX];
    const char *output = NULL, *pid_arg = NULL, *name = NULL;
    double duration = -1, timeout_s = 10;
    int c, rc, status = 1, r;
    cp_config cfg;
    sigset_t sigs, old;
    session s;

    memset(&s, 0, sizeof(s));
    s.sfd = s.ch.fd = s.ch.listen_fd = -1;
    s.out.fd = s.out.target_fd = -1;
    cp_config_init(&cfg);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:n:o:c:d:t:r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pid_arg = optarg; break;
        case 'n': name = optarg; break;
        case 'o': output = optarg; break;
        case 'd':
        case 't':
            if (cp_duration_parse(c == 'd' ? "--duration" : "--timeout", optarg, c == 'd' ? 0 : 0.001,
                                  c == 'd' ? 1e6 : 3600, c == 'd' ? &duration : &timeout_s, err, sizeof(err)) < 0) {
                cli_error("attach: %s", err);
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
    if (pid_arg && name) {
        cli_error("attach: give a process id or -n NAME, not both");
        return EXIT_USAGE;
    }
    if (!pid_arg && !name) {
        cli_error("attach: no process given; usage: clrprobe attach PID or clrprobe attach -n NAME (list them with "
                  "'clrprobe ps')");
        return EXIT_USAGE;
    }
    if (name) {
        if (!name[0]) {
            cli_error("attach: -n needs a process name");
            return EXIT_USAGE;
        }
        s.pid = cli_pid_by_name("attach", name);
        if (s.pid < 0)
            return 1;
    } else {
        s.pid = parse_pid(pid_arg);
        if (s.pid < 0) {
            cli_error("attach: '%s' is not a process id", pid_arg);
            return EXIT_USAGE;
        }
    }
    if (s.pid == (int)getpid()) {
        cli_error("attach: %d is clrprobe itself", s.pid);
        return EXIT_USAGE;
    }

    if (cli_find_agent(agent, sizeof(agent)) < 0)
        return 1;
    rc = ipc_socket_path(s.pid, sockpath, sizeof(sockpath), err, sizeof(err));
    if (rc != IPC_OK) {
        cli_error("cannot attach: %s", err);
        return 1;
    }
    if (refuse_if_profiled(s.pid) < 0)
        return 1;
    /* The agent records into a file of this command's own, handed over as a
     * descriptor: it is ours (even when root attaches to another user's
     * process) and takes the output's place only at the end. */
    snprintf(label, sizeof(label), "%d", s.pid);
    if (cli_output_open_trace(&s.out, output, label) < 0)
        return 1;
    if (ctl_listen(&s.ch, process_uid(s.pid)) < 0)
        goto out;
    snprintf(cfg.ctl, sizeof(cfg.ctl), "%s", s.ch.path);
    if (cp_config_format(&cfg, text, sizeof(text)) < 0) {
        cli_error("the configuration is too long to pass to the agent");
        goto out;
    }

    /* Interruptions are read from a signalfd, so that every wait can watch
     * for them. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, &old);
    signal(SIGPIPE, SIG_IGN);
    s.sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
    if (s.sfd < 0) {
        cli_error("cannot watch for Ctrl-C: %s", strerror(errno));
        sigprocmask(SIG_SETMASK, &old, NULL);
        goto out;
    }

    r = attach_agent(&s, agent, text, (int)(timeout_s * 1000));
    if (r == INTERRUPTED && !s.ready && s.ch.fd < 0) {
        cli_error("interrupted: nothing was attached (if the runtime still loads the agent, it finds clrprobe "
                  "gone and unloads)");
        status = EXIT_INTERRUPTED;
        goto out;
    }
    if (r == CLOSED)
        goto out;
    if (r == INTERRUPTED) {
        cli_error("interrupted during the attach: detaching");
        status = detach_agent(&s);
        goto out_kept;
    }
    cli_error("attached to process %d in %.1f ms: caught up on %u modules, %u assemblies, %u threads, "
              "%u JIT-compiled functions; recording %s", s.pid, ms_since(t_start), s.modules, s.assemblies,
              s.threads, s.functions, duration >= 0 ? "for the given duration" : "until Ctrl-C");

    /* Record until the duration ends, a signal arrives, or the process goes. */
    {
        int wait_ms = duration >= 0 ? (int)(duration * 1000) : -1;
        uint64_t until = cp_monotonic_ns() + (uint64_t)(wait_ms > 0 ? wait_ms : 0) * 1000000u;
        for (;;) {
            uint64_t now = cp_monotonic_ns();
            int left = wait_ms < 0 ? -1 : now >= until ? 0 : (int)((until - now) / 1000000u) + 1;
            r = ctl_line(&s.ch, s.sfd, left, line, sizeof(line));
            if (r != GOT_LINE || cp_ctl_is(line, CP_CTL_EXITED))
                break;                                     /* (nothing else is expected) */
        }
        if (r == GOT_LINE) {             /* "exited": the process is shutting down; the agent closed the trace */
            char how[64];
            snprintf(how, sizeof(how), "process %d exited", s.pid);
            status = finish(&s, how);
            goto out_kept;
        }
        if (r == CLOSED) {
            char how[64];
            snprintf(how, sizeof(how), "process %d went away", s.pid);
            status = finish(&s, how);
            goto out_kept;
        }
    }
    status = detach_agent(&s);
    goto out_kept;

out:
    cli_output_discard(&s.out);
out_kept:
    if (cli_output_size(&s.out) == 0)
        cli_output_discard(&s.out);          /* nothing was recorded into it */
    else
        cli_output_keep(&s.out);
    ctl_cleanup(&s.ch);
    if (s.sfd >= 0) {
        close(s.sfd);
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    return status;
}
