/* control.c - the agent end of the control connection with `clrprobe
 * attach` (protocol in common/control_protocol.h): connecting, sending
 * lines, receiving the trace file, and the service thread that waits for
 * "detach" and requests it from the runtime.  Calls only the runtime,
 * thread_state.c (a note) and the trace writer; the session only through
 * its hooks. */
#include "agent/core/control.h"
#include "agent/core/agent_thread.h"
#include "agent/core/profiler.h"
#include "agent/core/service.h"
#include "agent/core/thread_state.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#define POLL_MS 50

int control_connect(profiler *p, const char *path, const control_hooks *hooks, char *err, size_t errlen)
{
    struct sockaddr_un addr;
    int fd;

    if (strlen(path) >= sizeof(addr.sun_path)) {
        snprintf(err, errlen, "control socket path too long");
        return -1;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a socket: %s", strerror(errno));
        return -1;
    }
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, path, strlen(path) + 1);
    if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
        snprintf(err, errlen, "cannot reach the clrprobe command at %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    p->control->fd = fd;
    p->control->hooks = hooks;
    p->control->connected = 1;
    return 0;
}

void control_send(profiler *p, const char *fmt, ...)
{
    char line[CP_CTL_LINE_MAX];
    va_list ap;
    int n;

    if (!p->control->connected)
        return;
    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    /* Short lines on a local stream socket: one send, never SIGPIPE. */
    if (send(p->control->fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
        /* the command is gone; the control thread sees end of stream */
    }
}

int control_receive_trace(profiler *p, int timeout_ms, char *err, size_t errlen)
{
    char line[16], cbuf[CMSG_SPACE(3 * sizeof(int))];
    struct iovec iov = { line, CP_CTL_TRACE_LEN };   /* "trace\n" and not a byte more */
    struct msghdr msg;
    struct cmsghdr *cm;
    struct pollfd pfd = { p->control->fd, POLLIN, 0 };
    ssize_t n;
    int fd = -1, clock = -1, stacks = -1, r;

    if (!p->control->connected) {
        snprintf(err, errlen, "no output and no control connection to receive the trace file on");
        return -1;
    }
    do {
        r = poll(&pfd, 1, timeout_ms);
    } while (r < 0 && errno == EINTR);
    if (r <= 0) {
        snprintf(err, errlen, "the clrprobe command sent no trace file within %d ms", timeout_ms);
        return -1;
    }
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof(cbuf);
    /* Exactly the CP_CTL_TRACE_LEN bytes of "trace\n": the descriptor travels with them. */
    do {
        n = recvmsg(p->control->fd, &msg, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    /* the trace file, then (optionally) the per-CPU clock's page; any more are closed */
    for (cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL; cm; cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        for (size_t i = 0; CMSG_LEN((i + 1) * sizeof(int)) <= cm->cmsg_len; i++) {
            int got;
            memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
            if (fd < 0)
                fd = got;
            else if (clock < 0)
                clock = got;
            else if (stacks < 0)
                stacks = got;
            else
                close(got);
        }
    }
    if (n != CP_CTL_TRACE_LEN || memcmp(line, CP_CTL_TRACE, CP_CTL_TRACE_LEN) != 0 || (msg.msg_flags & MSG_CTRUNC) ||
        fd < 0) {
        if (fd >= 0)
            close(fd);
        if (clock >= 0)
            close(clock);
        if (stacks >= 0)
            close(stacks);
        snprintf(err, errlen, "the clrprobe command did not send the trace file");
        return -1;
    }
    if (clock >= 0)
        control_give_clock(p, clock);
    if (stacks >= 0)
        control_give_stacks(p, stacks);
    return fd;
}

void control_give_clock(profiler *p, int fd)
{
    if (p->control->has_clock)
        close(p->control->clock_fd);
    p->control->clock_fd = fd;
    p->control->has_clock = fd >= 0;
}

void control_give_stacks(profiler *p, int fd)
{
    if (p->control->has_stacks)
        close(p->control->stack_fd);
    p->control->stack_fd = fd;
    p->control->has_stacks = fd >= 0;
}

int control_take_stacks(profiler *p)
{
    int fd = p->control->has_stacks ? p->control->stack_fd : -1;
    p->control->has_stacks = 0;
    return fd;
}

int control_take_clock(profiler *p)
{
    int fd = p->control->has_clock ? p->control->clock_fd : -1;
    p->control->has_clock = 0;
    return fd;
}

static void request_detach(profiler *p)
{
    /* No Info call may follow RequestProfilerDetach from our threads: the
     * session first lets the catch-up finish and stops the sampler. */
    if (p->control->hooks && p->control->hooks->before_detach)
        p->control->hooks->before_detach(p);
    /* The runtime first checks after this many ms (300 at least), again after
     * twice as long, then only every few seconds: 300 gives two early checks. */
    HRESULT hr = INFO(p)->RequestProfilerDetach(p->info, 300);
    if (SUCCEEDED(hr)) {
        control_send(p, CP_CTL_DETACHING);
    } else if (hr == CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT && p->control->hooks &&
               p->control->hooks->stay_quiet) {
        /* IL was rewritten (attach --trace, in this session or an earlier
         * one): expected; the recording ends whole, and the agent stays,
         * quiet, until a later attach finds it */
        profiler_note(p, "%sthe agent stays loaded in the process, quiet: a profiler that rewrote IL cannot be "
                      "unloaded", p->cfg.trace[0] ? "tracing stopped, the original code restored; " : "");
        p->control->hooks->stay_quiet(p);           /* the trace is closed, whole */
        control_send(p, CP_CTL_STAYS);
        control_disconnect(p);
        control_go_quiet(p);                       /* (this thread ends right after) */
    } else {
        /* We stay loaded, but nobody can stop us any more: stop recording. */
        profiler_note(p, TRACE_STOP_NOTE "the runtime refused to detach the agent (HRESULT 0x%08x)",
                      (unsigned)hr);
        if (p->control->hooks && p->control->hooks->detach_refused)
            p->control->hooks->detach_refused(p);
        control_send(p, CP_CTL_DETACH_FAILED_FMT, (unsigned)hr);
    }
}

static void *control_main(void *arg)
{
    profiler *p = arg;
    char buf[256];
    size_t used = 0;

    pthread_setname_np(pthread_self(), "clrprobe-ctl");
    while (!atomic_load(&p->control->stop)) {
        struct pollfd pfd = { p->control->fd, POLLIN, 0 };
        int r = poll(&pfd, 1, POLL_MS);
        ssize_t n;

        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        n = recv(p->control->fd, buf + used, sizeof(buf) - 1 - used, 0);
        if (n <= 0) {
            /* The command went away (killed, or closed the connection):
             * nobody will ever ask us to stop, so leave now. */
            if (atomic_load(&p->control->stop))
                break;
            if (p->control->hooks && p->control->hooks->run_ended)
                p->control->hooks->run_ended(p);
            else
                request_detach(p);
            break;
        }
        used += (size_t)n;
        buf[used] = '\0';
        if (strstr(buf, CP_CTL_DETACH)) {
            if (p->control->hooks && p->control->hooks->run_ended) {
                p->control->hooks->run_ended(p);
                control_send(p, CP_CTL_STOPPED);
            } else {
                request_detach(p);
            }
            break;
        }
        if (used >= sizeof(buf) - 1)
            used = 0;                  /* garbage: drop it */
    }
    return NULL;
}

int control_start(profiler *p)
{
    control_state *c = p->control;
    int rc;

    if (!c->connected || c->running)
        return 0;
    atomic_store(&c->stop, 0);
    rc = agent_thread_start(&c->thread, NULL, control_main, p);
    if (rc != 0)
        return -1;
    c->running = 1;
    return 0;
}

void control_stop(profiler *p)
{
    control_state *c = p->control;

    if (c->running) {
        atomic_store(&c->stop, 1);
        pthread_join(c->thread, NULL);
        c->running = 0;
    }
}

int control_stopping(profiler *p)
{
    return atomic_load(&p->control->stop);
}

void control_disconnect(profiler *p)
{
    control_state *c = p->control;

    if (c->connected) {
        close(c->fd);
        c->fd = -1;
        c->connected = 0;
    }
}

#define QUIET_READ_MS 5000          /* a client of the quiet socket sends its line within this */

/* Reads one line (the configuration) from c: its length, or -1. */
static ssize_t quiet_read_line(int c, char *buf, size_t cap)
{
    size_t used = 0;
    uint64_t until = cp_monotonic_ns() + (uint64_t)QUIET_READ_MS * 1000000u;

    while (used + 1 < cap) {
        struct pollfd pfd = { c, POLLIN, 0 };
        uint64_t now = cp_monotonic_ns();
        ssize_t n;
        if (now >= until || poll(&pfd, 1, (int)((until - now) / 1000000u) + 1) <= 0)
            return -1;
        n = recv(c, buf + used, cap - 1 - used, 0);
        if (n <= 0)
            return -1;
        used += (size_t)n;
        buf[used] = '\0';
        if (memchr(buf, '\n', used)) {
            *strchr(buf, '\n') = '\0';
            return (ssize_t)strlen(buf);
        }
    }
    return -1;
}

static void *quiet_main(void *arg)
{
    profiler *p = arg;
    int lfd = p->control->quiet_fd;
    char text[CP_CONFIG_MAX_TEXT + 2];

    pthread_setname_np(pthread_self(), "clrprobe-quiet");
    for (;;) {
        struct ucred cred;
        socklen_t cl = sizeof(cred);
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno != EINTR && errno != ECONNABORTED) {
                struct timespec pause = { 1, 0 };            /* (no busy loop on a lasting error) */
                nanosleep(&pause, NULL);
            }
            continue;
        }
        /* only the process's user or root, as for attach */
        if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || (cred.uid != 0 && cred.uid != geteuid()) ||
            quiet_read_line(c, text, sizeof(text)) <= 0) {
            close(c);
            continue;
        }
        close(c);                        /* (the session connects to the command's own socket, cfg.ctl) */
        if (p->resume && p->resume(p, text) == 0)
            break;
    }
    close(lfd);
    return NULL;
}

void control_go_quiet(profiler *p)
{
    control_state *c = p->control;
    struct sockaddr_un addr;
    socklen_t len;
    pthread_attr_t attr;
    pthread_t t;
    int fd, rc;

    /* this thread (the control thread) ends after us: nobody joins it */
    if (c->running && pthread_equal(c->thread, pthread_self())) {
        pthread_detach(c->thread);
        c->running = 0;
    }
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return;
    len = cp_abstract_address(&addr, CP_QUIET_SOCKET_FMT, (int)getpid());
    if (bind(fd, (struct sockaddr *)&addr, len) < 0 || listen(fd, 4) < 0) {
        close(fd);
        return;
    }
    c->quiet_fd = fd;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    rc = agent_thread_start(&t, &attr, quiet_main, p);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        close(fd);
}

/* The session's end: a clock the sampler did not take is closed. */
static void control_release(profiler *p)
{
    control_give_clock(p, -1);
    control_give_stacks(p, -1);
}

/* Before a new session in a quiet instance: not connected, no thread. */
static void control_reset(profiler *p)
{
    memset(p->control, 0, sizeof(*p->control));
    p->control->fd = -1;
}

const agent_service control_service = {
    .name = "control",
    .state_size = sizeof(control_state),
    .when = AT_OPEN, .start = control_start, .stop = control_stop,
    .release = control_release, .reset = control_reset,
};
