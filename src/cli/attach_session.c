/* attach_session.c - loading the agent into a running process (attach_session.h):
 * asks the runtime over the diagnostics IPC (AttachProfiler), hands the agent
 * the trace file, waits for the catch-up, and later has the agent detach and
 * waits until the detach has really happened.  The command talks to the
 * agent over a Unix socket of its own (common/control_protocol.h); if the
 * command dies, the agent detaches by itself.  Every wait also watches for
 * Ctrl-C / SIGTERM. */
#include "cli/attach_session.h"
#include "cli/cli.h"
#include "cli/in_target.h"
#include "cli/output.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/control_protocol.h"
#include "common/duration.h"
#include "common/identity.h"
#include "ipc/ipc.h"

#include <errno.h>
#include <stddef.h>
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
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#define HELLO_GRACE_MS 5000          /* past the attach timeout, for the agent to call back */
#define READY_TIMEOUT_MS 120000      /* the catch-up of a very large process */
#define DETACH_TIMEOUT_MS 30000

static void ctl_cleanup(attach_ctl *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    target_unlisten_private(c->ns_pid, &c->listen_fd, &c->dir_fd, c->dir, c->path);
}

/* A private directory with a listening socket the agent connects to (in
 * the /tmp of the target's container when it is in one).  When
 * root attaches to another user's process, that user must be able to
 * connect: the socket is given to it, the directory stays root's
 * (cli_private_give: a directory given away would let that user put a link
 * where root then chowns or removes). */
static int ctl_listen(attach_ctl *c, int ns_pid, uid_t target_uid)
{
    char err[PATH_MAX + 128];

    c->fd = -1;
    c->ns_pid = ns_pid;
    c->listen_fd = target_listen_private(c->ns_pid, "ctl", "ctl", 2, &c->dir_fd, c->dir, sizeof(c->dir), c->path,
                                         sizeof(c->path), err, sizeof(err));
    if (c->listen_fd < 0) {
        cli_error("%s (for the control channel)", err);
        return -1;
    }
    if (geteuid() == 0 && target_uid != 0) {
        if (cli_private_give(c->dir_fd, "ctl", target_uid) < 0) {
            cli_error("cannot hand the control socket to uid %u: %s", (unsigned)target_uid, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Accepts the agent's connection if it is waiting: only one from process
 * pid itself (SO_PEERCRED: as our pid namespace sees it); another, said and
 * closed, leaves the socket listening. */
static void ctl_accept(attach_ctl *c, int pid)
{
    struct ucred cred = { .pid = -1 };
    socklen_t len = sizeof(cred);

    if (c->fd >= 0 || c->listen_fd < 0)
        return;
    c->fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (c->fd < 0)
        return;
    if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.pid != pid) {
        cli_error("ignored a connection to the control socket from process %d of uid %u: only process %d's agent "
                  "may connect", (int)cred.pid, (unsigned)cred.uid, pid);
        close(c->fd);
        c->fd = -1;
        return;
    }
    /* The agent connects once: remove the path now, so that nothing is
     * left in /tmp even if this command is killed. */
    target_unlisten_private(c->ns_pid, &c->listen_fd, &c->dir_fd, c->dir, c->path);
}

/* Takes the pending interruption off the signalfd (so that it counts once
 * and is not delivered when the signals are unblocked at exit). */
void attach_take_signal(int sfd)
{
    struct signalfd_siginfo si;
    if (sfd >= 0 && read(sfd, &si, sizeof(si)) < 0) {
        /* nothing pending after all */
    }
}


/* Next line from the agent into line (without newline), waiting up to
 * timeout_ms (-1: forever; 0: only what has arrived) and watching sfd. */
int attach_ctl_line(attach_ctl *c, int sfd, int timeout_ms, char *line, size_t cap)
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
            attach_take_signal(sfd);
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
void attach_on_line(attach_session *s, const char *line)
{
    const char *args;

    if (cp_ctl_args(line, CP_CTL_HELLO)) {
        s->hello = 1;
        if (cp_ctl_send_trace(s->ch.fd, s->handover_fd >= 0 ? s->handover_fd : s->out.fd,
                              s->has_clock ? s->clock.map_fd : -1,
                              s->has_clock && s->clock.stacks ? s->clock.ring_fd : -1) < 0)
            cli_error("cannot hand the trace file to the agent: %s", strerror(errno));
    } else if ((args = cp_ctl_args(line, CP_CTL_ERROR)) != NULL) {
        snprintf(s->agent_error, sizeof(s->agent_error), "%s", args);
    } else if ((args = cp_ctl_args(line, CP_CTL_TRACING)) != NULL) {
        s->traced = (unsigned)strtoul(args, NULL, 10);
        s->tracing = 1;
        cli_error("tracing %u methods matching '%s' in process %d: their IL is rewritten with probes, and the "
                  "original code comes back when tracing stops", s->traced, s->trace_patterns ? s->trace_patterns : "",
                  s->pid);
    } else if ((args = cp_ctl_args(line, CP_CTL_READY)) != NULL) {
        unsigned long long took_ns;
        sscanf(args, CP_CTL_READY_ARGS_FMT, &s->modules, &s->assemblies, &s->threads, &s->functions, &took_ns);
        s->ready = 1;
    } else if (s->nbacklog < (int)(sizeof(s->backlog) / sizeof(s->backlog[0]))) {
        snprintf(s->backlog[s->nbacklog++], sizeof(s->backlog[0]), "%s", line);
    }
}

int attach_next_line(attach_session *s, int timeout_ms, char *line, size_t cap)
{
    if (s->nbacklog) {
        snprintf(line, cap, "%s", s->backlog[0]);
        memmove(s->backlog[0], s->backlog[1], (size_t)(s->nbacklog - 1) * sizeof(s->backlog[0]));
        s->nbacklog--;
        return GOT_LINE;
    }
    return attach_ctl_line(&s->ch, s->sfd, timeout_ms, line, cap);
}

/* Reads every line that has arrived; CLOSED once the agent has hung up. */
static int drain_agent(attach_session *s)
{
    char line[CP_CTL_LINE_MAX];
    int r;

    while ((r = attach_ctl_line(&s->ch, -1, 0, line, sizeof(line))) == GOT_LINE)
        attach_on_line(s, line);
    return r;
}

double attach_ms_since(uint64_t t0) { return (double)(cp_monotonic_ns() - t0) / 1e6; }

/* Sends the attach request and serves the agent until the runtime answers:
 * the agent calls back from InitializeForAttach ("hello"), gets the trace
 * file, catches up, and only then does the runtime reply.  The wait is the
 * attach timeout plus HELLO_GRACE_MS until the agent has called back, then
 * READY_TIMEOUT_MS for the catch-up.  Returns GOT_LINE when attached (and
 * ready), INTERRUPTED, or CLOSED after a message. */
static int attach_agent(attach_session *s, const char *agent, const char *text, int timeout_ms)
{
    uint64_t deadline;
    char err[512];
    HRESULT hr = E_FAIL;
    int ipc_fd, rc = IPC_ERR_TIMEOUT, hello = 0, agent_gone = 0;

    ipc_fd = ipc_attach_profiler_send(s->pid, timeout_ms, s->notification ? &CLSID_clrprobe_notification : &CLSID_clrprobe, agent, text, (uint32_t)strlen(text),
                                      s->sfd, err, sizeof(err));
    if (ipc_fd == IPC_ERR_CANCELLED) {
        attach_take_signal(s->sfd);
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
            attach_take_signal(s->sfd);
            close(ipc_fd);
            return INTERRUPTED;
        }
        if (!agent_gone && pfd[2].revents) {
            ctl_accept(&s->ch, s->pid);
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
            while (attach_ctl_line(&s->ch, -1, 200, line, sizeof(line)) == GOT_LINE)
                attach_on_line(s, line);
        }
        if (s->agent_error[0])
            cli_error("the agent said: %s", s->agent_error);
        return CLOSED;
    }
    ctl_accept(&s->ch, s->pid);
    if (s->ch.fd < 0) {
        cli_error("process %d accepted the agent, but the agent never called back; it detaches by itself", s->pid);
        return CLOSED;
    }
    /* "ready" is sent before the runtime's reply; wait for it all the same. */
    while (!s->ready) {
        char line[CP_CTL_LINE_MAX];
        int r = attach_ctl_line(&s->ch, s->sfd, READY_TIMEOUT_MS, line, sizeof(line));
        if (r == INTERRUPTED)
            return INTERRUPTED;
        if (r != GOT_LINE) {
            cli_error("the agent in process %d stopped answering during the catch-up (%s); it detaches by "
                      "itself", s->pid, r == TIMED_OUT ? "timed out" : "connection closed");
            return CLOSED;
        }
        attach_on_line(s, line);
        if (s->agent_error[0]) {
            cli_error("the agent in process %d: %s", s->pid, s->agent_error);
            return CLOSED;
        }
    }
    return GOT_LINE;
}

/* The process's agent is quiet (an earlier attach --trace, which it
 * survives): instead of the runtime's AttachProfiler, the configuration
 * goes to the agent's quiet socket, and the agent opens a new session,
 * calling back on the control socket as an attached agent does. */
static int resume_agent(attach_session *s, const char *text, int timeout_ms)
{
    uint64_t deadline;
    char err[512];
    int fd, rc;

    /* (the configuration goes only to a listener that is the process itself) */
    rc = ipc_connect_agent_socket(s->pid, CP_QUIET_SOCKET_FMT, &fd, err, sizeof(err));
    if (rc == IPC_ERR_REFUSED) {
        cli_error("cannot attach to process %d: %s", s->pid, err);
        return CLOSED;
    }
    if (rc != IPC_OK || send(fd, text, strlen(text), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)strlen(text) ||
        send(fd, "\n", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
        cli_error("cannot reach the agent that stays in process %d (its quiet socket: %s)", s->pid,
                  rc != IPC_OK ? err : strerror(errno));
        if (fd >= 0)
            close(fd);
        return CLOSED;
    }
    close(fd);
    deadline = cp_monotonic_ns() + (uint64_t)(timeout_ms + HELLO_GRACE_MS) * 1000000u;
    while (!s->ready) {
        struct pollfd pfd[2] = { { s->sfd, POLLIN, 0 }, { s->ch.fd >= 0 ? s->ch.fd : s->ch.listen_fd, POLLIN, 0 } };
        uint64_t now = cp_monotonic_ns();
        int r;
        if (now >= deadline) {
            cli_error("the agent that stays in process %d did not answer (%s)", s->pid,
                      s->hello ? "its catch-up did not finish in time" : "no call back within the attach timeout");
            return CLOSED;
        }
        r = poll(pfd, 2, (int)((deadline - now) / 1000000u) + 1);
        if (r < 0 && errno != EINTR)
            return CLOSED;
        if (r <= 0)
            continue;
        if (pfd[0].revents & POLLIN) {
            attach_take_signal(s->sfd);
            return INTERRUPTED;
        }
        if (pfd[1].revents) {
            if (s->ch.fd < 0) {
                ctl_accept(&s->ch, s->pid);
                if (s->ch.fd >= 0)
                    deadline = cp_monotonic_ns() + (uint64_t)READY_TIMEOUT_MS * 1000000u;
            }
            if (s->ch.fd >= 0 && drain_agent(s) == CLOSED) {
                if (s->agent_error[0])
                    cli_error("the agent in process %d: %s", s->pid, s->agent_error);
                else
                    cli_error("the agent in process %d closed the connection during the attach", s->pid);
                return CLOSED;
            }
            if (s->agent_error[0]) {
                cli_error("the agent in process %d: %s", s->pid, s->agent_error);
                return CLOSED;
            }
        }
    }
    return GOT_LINE;
}

/* Another user's process recorded into the handover file: its content as
 * it is now goes into our own staged file, which that process never had,
 * and the handover file is let go (that process may keep writing into it,
 * to no one).  0, or -1 after a message. */
static int take_trace(attach_session *s)
{
    off_t copied = 0;
    int rc, e;

    if (s->handover_fd < 0)
        return 0;
    rc = cli_handover_take(s->handover_fd, s->out.fd, &copied);
    e = errno;
    close(s->handover_fd);
    s->handover_fd = -1;
    if (rc == 0)
        return 0;
    if (copied > 0)
        cli_error("cannot copy the trace recorded in process %d (%s): its first %lld bytes are kept in %s", s->pid,
                  strerror(e), (long long)copied, cli_output_staging_path(&s->out));
    else
        cli_error("cannot copy the trace recorded in process %d (%s): nothing was kept", s->pid, strerror(e));
    return -1;
}

/* Puts the recorded trace in place and says what it holds.  Returns the
 * exit status. */
int attach_finish(attach_session *s, const char *how)
{
    char why[512];
    int outcome;

    if (take_trace(s) < 0)
        return 1;
    outcome = cli_trace_outcome(cli_output_staging_path(&s->out), why, sizeof(why));

    if (outcome == CLI_TRACE_UNREADABLE) {
        cli_error("the trace recorded from process %d cannot be read back (%s); it is kept in %s", s->pid, why,
                  cli_output_staging_path(&s->out));
        return 1;
    }
    switch (cli_output_commit(&s->out)) {
    case 0:
        break;
    case CLI_OUT_INTERRUPTED:
        attach_take_signal(s->sfd);
        return EXIT_INTERRUPTED;
    default:
        return 1;
    }
    if (s->quiet)       /* (the caller reads the trace and says what it lacks) */
        return outcome == CLI_TRACE_COMPLETE && !s->finish_note[0] ? 0 : 1;
    if (outcome == CLI_TRACE_STOPPED) {
        cli_error("%s; trace written to %s, but the agent stopped recording early%s%s: %s", how,
                  cli_output_display(&s->out), s->finish_note[0] ? " " : "", s->finish_note, why);
        return 1;
    }
    if (outcome == CLI_TRACE_CUT_SHORT) {
        cli_error("%s; trace written to %s, but it was not closed: it ends at the agent's last flush%s%s", how,
                  cli_output_display(&s->out), s->finish_note[0] ? ", " : "", s->finish_note);
        return 1;
    }
    if (s->finish_note[0]) {
        cli_error("%s; trace written to %s, but the agent stopped recording early %s", how,
                  cli_output_display(&s->out), s->finish_note);
        return 1;
    }
    cli_error("%s; trace written to %s", how, cli_output_display(&s->out));
    return 0;
}

/* Has the agent detach and waits until it has.  Returns the exit status. */
int attach_detach(attach_session *s)
{
    uint64_t t_detach = cp_monotonic_ns();
    char line[CP_CTL_LINE_MAX], how[256];
    const char *args;
    int r;

    if (send(s->ch.fd, CP_CTL_DETACH, CP_CTL_DETACH_LEN, MSG_NOSIGNAL) != CP_CTL_DETACH_LEN) {
        if (take_trace(s) < 0)
            return 1;
        cli_error("lost the connection to the agent in process %d; what was recorded is in %s", s->pid,
                  cli_output_staging_path(&s->out));
        return 1;
    }
    for (;;) {
        r = attach_ctl_line(&s->ch, s->sfd, DETACH_TIMEOUT_MS, line, sizeof(line));
        if (r == INTERRUPTED) {
            if (s->handover_fd < 0) {
                cli_error("interrupted: not waiting for process %d to detach; the agent completes the trace as it "
                          "leaves, in %s (`clrprobe report %s` reads it, as far as it goes; rename it as you like)",
                          s->pid, cli_output_staging_path(&s->out), cli_output_staging_path(&s->out));
                return EXIT_INTERRUPTED;
            }
            if (take_trace(s) == 0)
                cli_error("interrupted: not waiting for process %d to detach; what it recorded so far is in %s "
                          "(`clrprobe report %s` reads it; rename it as you like), not what the agent writes as it "
                          "leaves (that stays in a file of the process's own)", s->pid,
                          cli_output_staging_path(&s->out), cli_output_staging_path(&s->out));
            return EXIT_INTERRUPTED;
        }
        if (r == CLOSED) {
            /* The agent closes the connection only after "detached" or
             * "exited": the process is gone (killed, crashed).  Its trace
             * ends at the agent's last flush and takes the output's place. */
            snprintf(how, sizeof(how), "process %d exited while the agent was detaching", s->pid);
            return attach_finish(s, how) == EXIT_INTERRUPTED ? EXIT_INTERRUPTED : 1;
        }
        if (r != GOT_LINE) {
            if (take_trace(s) < 0)
                return 1;
            cli_error("process %d did not confirm the detach (timed out after 30 s); what was recorded is in %s",
                      s->pid, cli_output_staging_path(&s->out));
            return 1;
        }
        if (cp_ctl_is(line, CP_CTL_DETACHED) || cp_ctl_is(line, CP_CTL_EXITED))
            break;
        if ((args = cp_ctl_args(line, CP_CTL_TRACING)) != NULL) {
            attach_on_line(s, line);
            continue;
        }
        if (cp_ctl_is(line, CP_CTL_STAYS)) {
            if (s->trace)
                snprintf(how, sizeof(how), "tracing stopped in process %d, its original code restored in %.1f ms; "
                         "the agent stays loaded, quiet (a profiler that rewrote IL cannot be unloaded)", s->pid,
                         attach_ms_since(t_detach));
            else
                snprintf(how, sizeof(how), "recording stopped in process %d in %.1f ms; the agent stays loaded, "
                         "quiet (it rewrote IL for an earlier attach --trace: it cannot be unloaded)", s->pid,
                         attach_ms_since(t_detach));
            return attach_finish(s, how);
        }
        if ((args = cp_ctl_args(line, CP_CTL_DETACH_FAILED)) != NULL) {
            HRESULT dhr = (HRESULT)strtoul(args, NULL, 16);
            cli_error("process %d refused to detach the agent: %s; the agent stopped recording", s->pid,
                      ipc_hresult_message(dhr));
            return attach_finish(s, "the agent stays loaded") == EXIT_INTERRUPTED ? EXIT_INTERRUPTED : 1;
        }
    }
    snprintf(how, sizeof(how), "detached from process %d in %.1f ms", s->pid, attach_ms_since(t_detach));
    return attach_finish(s, how);
}

/* The runtime has one main profiler, and refuses a second only after it
 * has loaded the library, which then stays in the process until it exits
 * (docs/attach.md, "One profiler per process"): such an attempt is not
 * made.  Beside a main profiler, ours asks to load as a notification
 * profiler (the CLSID it names, common/identity.h), unless what is asked
 * needs the main role. */
int attach_choose_role(attach_session *s, const char *needs_main)
{
    ipc_loaded_profiler_t lp;
    char err[512], what[4300];
    const char *hint;
    int rc = ipc_loaded_profiler(s->pid, &lp, err, sizeof(err));

    s->notification = 0;
    s->main_profiler[0] = '\0';
    if (rc == IPC_ERR_PERMISSION) {
        cli_error("cannot tell whether process %d already has a profiler (%s); attaching anyway", s->pid, err);
        return 0;
    }
    if (rc != IPC_OK || lp.kind == IPC_PROFILER_NONE || lp.kind == IPC_PROFILER_CLRPROBE_QUIET)
        return 0;          /* (a process gone meanwhile: the attach says so; a quiet agent is talked to) */
    if (lp.kind == IPC_PROFILER_STARTUP && lp.clrprobe) {
        snprintf(what, sizeof(what), "clrprobe's agent (clrprobe run, %s)", lp.path);
        hint = "trace with clrprobe run --trace instead";
    } else if (lp.kind == IPC_PROFILER_STARTUP) {
        snprintf(what, sizeof(what), "%s, its startup profiler (%s)", lp.path, lp.variable);
        hint = "tracing needs a process started without it";
    } else {
        snprintf(what, sizeof(what), "clrprobe's agent (another clrprobe attach, %s)", lp.path);
        hint = "trace once that one has detached";
    }
    if (needs_main) {
        cli_error("cannot attach with %s: process %d's main profiler is %s, and %s needs the main profiler's "
                  "role (enter/leave hooks or ReJIT), which a notification profiler beside it does not have: no "
                  "attach was attempted; %s", needs_main, s->pid, what, needs_main, hint);
        return -1;
    }
    cli_error("process %d's main profiler is %s: attaching beside it as a notification profiler", s->pid, what);
    s->notification = 1;
    snprintf(s->main_profiler, sizeof(s->main_profiler), "%s", lp.path);
    return 0;
}

int attach_agent_is_quiet(int pid)
{
    ipc_loaded_profiler_t lp;
    char err[512];
    return ipc_loaded_profiler(pid, &lp, err, sizeof(err)) == IPC_OK && lp.kind == IPC_PROFILER_CLRPROBE_QUIET;
}

uid_t attach_process_uid(int pid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof(path), "/proc/%d", pid);
    return stat(path, &st) == 0 ? st.st_uid : (uid_t)-1;
}

/* A process id: decimal, 1..INT_MAX, nothing else.  -1 if not. */
int attach_parse_pid(const char *text)
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


void attach_session_init(attach_session *s)
{
    memset(s, 0, sizeof(*s));
    s->sfd = s->ch.fd = s->ch.listen_fd = s->ch.dir_fd = s->handover_fd = -1;
    cli_output_init(&s->out, "", "trace", 0);
    cpu_clock_init(&s->clock);
}

/* The per-CPU clock for CPU samples, where this command may hold one; else
 * the reason goes to the agent (cfg.clock_why), which says it in the trace. */
static void open_clock(attach_session *s, cp_config *cfg)
{
    char why[CP_CLOCK_WHY_MAX];

    if (!(cfg->collect & CP_COLLECT_CPU) || !CP_SAMPLER_WANTS_PERCPU(cfg->sampler))
        return;
    if (cpu_clock_open(&s->clock, s->pid, 1000000000ull / (uint64_t)(cfg->rate > 0 ? cfg->rate : CP_RATE_DEFAULT),
                       CP_SAMPLER_WANTS_KSTACK(cfg->sampler),
                       why, sizeof(why)) == 0)
        s->has_clock = 1;
    else
        snprintf(cfg->clock_why, sizeof(cfg->clock_why), "%s", why);
}

int attach_resolve_pid(const char *cmd, int argc, char **argv, const char *pid_arg, const char *name, int *status)
{
    int pid;

    *status = EXIT_USAGE;
    if (!pid_arg && optind < argc)
        pid_arg = argv[optind++];
    if (optind < argc) {
        cli_error("%s: unexpected argument '%s' (see clrprobe %s --help)", cmd, argv[optind], cmd);
        return -1;
    }
    if (pid_arg && name) {
        cli_error("%s: give a process id or -n NAME, not both", cmd);
        return -1;
    }
    if (!pid_arg && !name) {
        cli_error("%s: no process given; usage: clrprobe %s PID or clrprobe %s -n NAME (list them with "
                  "'clrprobe ps')", cmd, cmd, cmd);
        return -1;
    }
    if (name) {
        if (!name[0]) {
            cli_error("%s: -n needs a process name", cmd);
            return -1;
        }
        pid = cli_pid_by_name(cmd, name);
        if (pid < 0)
            *status = 1;
        return pid;
    }
    pid = attach_parse_pid(pid_arg);
    if (pid < 0) {
        if (pid_arg[0] < '0' || pid_arg[0] > '9')             /* (a word: the user means a program) */
            cli_error("%s: '%s' is not a process id; to find a process by its name: %s -n %s", cmd, pid_arg, cmd,
                      pid_arg);
        else
            cli_error("%s: '%s' is not a process id", cmd, pid_arg);
        return -1;
    }
    if (pid == (int)getpid()) {
        cli_error("%s: %d is clrprobe itself", cmd, pid);
        return -1;
    }
    return pid;
}

/* Another user's process gets a descriptor it can keep (duplicated, or
 * passed on) as long as it wants: never one of our trace file's.  It
 * records into an anonymous file of its user's beside ours (in our staged
 * file's directory), copied into ours when the recording ends
 * (take_trace).  A process of our own user could write our files anyway:
 * it gets our staged file.  0, or -1 after a message. */
static int open_handover(attach_session *s)
{
    uid_t uid = attach_process_uid(s->pid);
    char dir[PATH_MAX], *slash;
    int dirfd = s->out.temp_name[0] ? s->out.dirfd : -1, own = 0, e;

    if (uid == geteuid())
        return 0;
    if (dirfd < 0) {                     /* (staged in $TMPDIR: the output is a device or standard output) */
        snprintf(dir, sizeof(dir), "%s", cli_output_staging_path(&s->out));
        slash = strrchr(dir, '/');
        if (slash)
            slash[slash == dir ? 1 : 0] = '\0';
        dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        own = 1;
    }
    s->handover_fd = dirfd < 0 ? -1 : cli_handover_open(dirfd, uid);
    e = errno;
    if (own && dirfd >= 0)
        close(dirfd);
    if (s->handover_fd < 0) {
        cli_error("cannot make the file process %d records into, beside %s: %s", s->pid,
                  cli_output_staging_path(&s->out), strerror(e));
        return -1;
    }
    return 0;
}

int attach_open(attach_session *s, cp_config *cfg, const char *output, double timeout_s)
{
    char agent[PATH_MAX], err[512], text[CP_CONFIG_MAX_TEXT + 1], sockpath[IPC_PATH_MAX], label[32];
    sigset_t sigs;
    int rc, r;

    if (!s->resume) {
        /* never offer the runtime an agent it cannot load (it would say nothing useful) */
        ipc_libc_t libc;
        if (ipc_target_libc(s->pid, &libc, err, sizeof(err)) == IPC_OK &&
            ipc_libc_refuses(&libc, s->pid, err, sizeof(err)) != IPC_OK) {
            cli_error("cannot attach: %s", err);
            return ATTACH_FAILED;
        }
    }
    if (cli_find_agent(agent, sizeof(agent)) < 0)
        return ATTACH_FAILED;
    rc = ipc_socket_path(s->pid, sockpath, sizeof(sockpath), err, sizeof(err));
    if (rc != IPC_OK) {
        cli_error("cannot attach: %s", err);
        return ATTACH_FAILED;
    }
    /* The agent records into a file of this command's own, handed over as a
     * descriptor: it is ours (even when root attaches to another user's
     * process) and takes the output's place only at the end. */
    snprintf(label, sizeof(label), "%d", s->pid);
    if (cli_output_open_trace(&s->out, output, label) < 0)
        return ATTACH_FAILED;
    if (open_handover(s) < 0)
        return ATTACH_FAILED;
    /* (a process in a container: what it must reach is made in its namespaces) */
    if (ctl_listen(&s->ch, ipc_ns_foreign(s->pid) ? s->pid : 0, attach_process_uid(s->pid)) < 0)
        return ATTACH_FAILED;
    snprintf(cfg->ctl, sizeof(cfg->ctl), "%s", s->ch.path);
    snprintf(cfg->main_profiler, sizeof(cfg->main_profiler), "%s", s->notification ? s->main_profiler : "");
    open_clock(s, cfg);
    if (cp_config_format(cfg, text, sizeof(text)) < 0) {
        cli_error("the configuration is too long to pass to the agent");
        return ATTACH_FAILED;
    }

    /* Interruptions are read from a signalfd, so that every wait can watch
     * for them. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, &s->old_mask);
    signal(SIGPIPE, SIG_IGN);
    s->sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
    if (s->sfd < 0) {
        cli_error("cannot watch for Ctrl-C: %s", strerror(errno));
        sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
        return ATTACH_FAILED;
    }
    cli_output_watch(&s->out, s->sfd);       /* (the copy into a FIFO at the end, too) */

    if (s->resume) {
        r = resume_agent(s, text, (int)(timeout_s * 1000));
    } else {
        /* (in a container, the agent is copied where the target can open it,
         * until the runtime has answered) */
        target_agent placed;
        if (target_place_agent(s->ch.ns_pid, agent, &placed, err, sizeof(err)) < 0) {
            cli_error("cannot attach to process %d: %s", s->pid, err);
            return ATTACH_FAILED;
        }
        r = attach_agent(s, placed.path, text, (int)(timeout_s * 1000));
        target_remove_agent(&placed);
    }
    if (r == INTERRUPTED && !s->ready && s->ch.fd < 0) {
        cli_error("interrupted: nothing was attached (if the runtime still loads the agent, it finds clrprobe "
                  "gone and unloads)");
        return ATTACH_INTERRUPTED_BEFORE;
    }
    if (r == CLOSED)
        return ATTACH_FAILED;
    if (r == INTERRUPTED) {
        cli_error("interrupted during the attach: detaching");
        return ATTACH_INTERRUPTED_DURING;
    }
    return ATTACH_READY;
}

void attach_close(attach_session *s, int discard)
{
    if (discard && s->handover_fd >= 0) {
        close(s->handover_fd);
        s->handover_fd = -1;
    } else {
        take_trace(s);                        /* (a failure said what is kept) */
    }
    if (discard || cli_output_size(&s->out) == 0)
        cli_output_discard(&s->out);          /* (nothing was recorded into it) */
    else
        cli_output_keep(&s->out);
    ctl_cleanup(&s->ch);
    cpu_clock_close(&s->clock);
    s->has_clock = 0;
    if (s->sfd >= 0) {
        close(s->sfd);
        s->sfd = -1;
        sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
    }
}

int attach_record_for(attach_session *s, int wait_ms, char *line, size_t cap)
{
    uint64_t until = cp_monotonic_ns() + (uint64_t)(wait_ms > 0 ? wait_ms : 0) * 1000000u;
    int r;

    for (;;) {
        uint64_t now = cp_monotonic_ns();
        int left = wait_ms < 0 ? -1 : now >= until ? 0 : (int)((until - now) / 1000000u) + 1;
        r = attach_next_line(s, left, line, cap);
        if (r != GOT_LINE || cp_ctl_is(line, CP_CTL_EXITED))
            return r;                                      /* (heap snapshot lines need no answer) */
        if (cp_ctl_args(line, CP_CTL_TRACING))
            attach_on_line(s, line);                       /* "tracing N methods ..." */
    }
}
