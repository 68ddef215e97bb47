/* heap_listener.c - the heap listener (heap_listener.h): a thread that
 * accepts `clrprobe heap` on an abstract Unix socket and runs its request
 * with heap_run.  Nothing here runs in a runtime callback. */
#include "agent/heap/heap_listener.h"
#include "agent/core/service.h"
#include "agent/heap/heap.h"
#include "common/control_protocol.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define REQUEST_TIMEOUT_MS 2000

/* A peer's connection, for the plan's progress lines. */
typedef struct peer {
    int fd;
    atomic_int *gone;             /* set when a send fails: the command went away, stop the plan */
} peer;

static void peer_line(void *ctx, const char *line)
{
    peer *c = ctx;
    char buf[CP_CTL_LINE_MAX + 1];
    int n = snprintf(buf, sizeof(buf), "%s\n", line);

    if (n < 0 || (size_t)n >= sizeof(buf))
        return;
    if (send(c->fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) != n)
        atomic_store(c->gone, 1);
}

static void peer_say(peer *c, const char *fmt, const char *text)
{
    char line[CP_CTL_LINE_MAX];
    snprintf(line, sizeof(line), fmt, text);
    peer_line(c, line);
}

/* Waits until fd is readable or the listener is stopped (its wake
 * descriptor), at most timeout_ms (-1: no limit): 1 when fd is readable,
 * 0 on a time-out or a stop, -1 on an error. */
static int wait_readable(int fd, int wake, int timeout_ms)
{
    for (;;) {
        struct pollfd pfd[2] = { { fd, POLLIN, 0 }, { wake, POLLIN, 0 } };
        int r = poll(pfd, 2, timeout_ms);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r;
        if (pfd[1].revents)
            return 0;                    /* (stopped: the eventfd stays readable, so every wait ends) */
        return 1;
    }
}

/* Reads the request line (up to REQUEST_TIMEOUT_MS): 0, or -1. */
static int read_request(int fd, int wake, char *buf, size_t cap)
{
    size_t used = 0;

    while (used + 1 < cap) {
        ssize_t n;

        if (wait_readable(fd, wake, REQUEST_TIMEOUT_MS) <= 0)
            return -1;
        n = recv(fd, buf + used, cap - 1 - used, MSG_DONTWAIT);
        if (n <= 0)
            return -1;
        used += (size_t)n;
        buf[used] = '\0';
        char *nl = strchr(buf, '\n');
        if (nl) {
            *nl = '\0';
            return 0;
        }
    }
    return -1;
}

static void serve(profiler *p, int fd)
{
    heap_listener_state *l = p->heap_listener;
    struct ucred cred;
    socklen_t len = sizeof(cred);
    char req[128];
    unsigned count = 0;
    unsigned long long interval = 0;
    const char *args;
    peer c = { .fd = fd, .gone = &l->peer_stop };
    heap_plan plan;
    heap_sink sink = { peer_line, &c };
    int rc;

    atomic_store(&l->peer_stop, 0);
    if (atomic_load(&l->stop))
        return;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || (cred.uid != 0 && cred.uid != geteuid())) {
        peer_say(&c, CP_CTL_ERROR_FMT, "permission denied: run clrprobe heap as the process's user or as root");
        return;
    }
    if (read_request(fd, l->wake, req, sizeof(req)) < 0)
        return;
    if (!(args = cp_ctl_args(req, CP_HEAP_REQUEST)) || sscanf(args, CP_HEAP_REQUEST_ARGS_FMT, &count, &interval) != 2 ||
        count < 1 || count > CP_HEAP_COUNT_MAX || (count > 1 && interval < CP_HEAP_EVERY_MIN_MS)) {
        peer_say(&c, CP_CTL_ERROR_FMT, "not a heap request this agent understands (a newer or older clrprobe?)");
        return;
    }
    if (!INFO_HAS(p, GetObjectSize2) || !atomic_load(&p->recording)) {
        peer_say(&c, CP_CTL_ERROR_FMT, "this agent cannot take heap snapshots (not recording, or a runtime "
                                       "older than ICorProfilerInfo4)");
        return;
    }
    peer_line(&c, "hello");
    plan = (heap_plan){ .count = count, .interval_ms = interval, .first_at_once = 1 };
    rc = heap_run(p, &plan, &sink, &l->peer_stop);
    if (rc == HEAP_RUN_BUSY)
        peer_say(&c, CP_CTL_ERROR_FMT, "a heap snapshot is already being taken in this process (another clrprobe "
                                       "heap, or clrprobe run/attach --heap-every, whose snapshots go into its "
                                       "trace): wait until it ends");
    else if (rc == HEAP_RUN_STOPPED)
        peer_say(&c, CP_CTL_ERROR_FMT, atomic_load(&l->stop) ? "the agent is stopping (the recording ends)"
                                                                : "the agent stopped recording");
}

static void *listener_main(void *arg)
{
    profiler *p = arg;
    heap_listener_state *l = p->heap_listener;
    int thread_ok = 0;

    pthread_setname_np(pthread_self(), "clrprobe-heapl");
    while (!atomic_load(&l->stop)) {
        int fd;

        if (wait_readable(l->fd, l->wake, -1) <= 0)
            continue;                    /* (a stop: the loop's test ends it) */
        fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        if (!thread_ok)
            thread_ok = SUCCEEDED(INFO(p)->InitializeCurrentThread(p->info));
        serve(p, fd);
        close(fd);
    }
    return NULL;
}

int heap_listener_start(profiler *p)
{
    heap_listener_state *l = p->heap_listener;
    struct sockaddr_un addr;
    socklen_t len;
    int rc;

    if (l->running || p->notification)
        return 0;                        /* (beside a main instance of ours: that one answers clrprobe heap) */
    len = cp_abstract_address(&addr, CP_HEAP_SOCKET_FMT, (int)getpid());
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (l->fd < 0)
        return 0;                /* (no listener: `clrprobe heap` says it cannot reach us) */
    if (bind(l->fd, (struct sockaddr *)&addr, len) < 0 || listen(l->fd, 2) < 0) {
        /* EADDRINUSE: a second runtime's agent in this process has it */
        profiler_note(p, "clrprobe heap cannot reach this agent: its socket @" CP_HEAP_SOCKET_FMT " is taken (%s)",
                      (int)getpid(), strerror(errno));
        close(l->fd);
        l->fd = -1;
        return 0;
    }
    l->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (l->wake < 0) {
        profiler_note(p, "clrprobe heap cannot reach this agent: no eventfd for its listener (%s)", strerror(errno));
        close(l->fd);
        l->fd = -1;
        return 0;                /* (as without a socket) */
    }
    atomic_store(&l->stop, 0);
    rc = agent_thread_start(&l->thread, NULL, listener_main, p);
    if (rc != 0) {
        close(l->fd);
        close(l->wake);
        l->fd = l->wake = -1;
        return -1;
    }
    l->running = 1;
    return 0;
}

void heap_listener_stop(profiler *p)
{
    heap_listener_state *l = p->heap_listener;

    if (!l->running)
        return;
    atomic_store(&l->stop, 1);
    atomic_store(&l->peer_stop, 1);
    (void)eventfd_write(l->wake, 1);     /* (a counter of 1 cannot overflow: it does not fail) */
    pthread_join(l->thread, NULL);
    close(l->fd);
    close(l->wake);
    l->fd = l->wake = -1;
    l->running = 0;
}

const agent_service heap_listener_service = {
    .name = "heap_listener",
    .state_size = sizeof(heap_listener_state),
    .when = AFTER_CATCHUP, .start = heap_listener_start, .stop = heap_listener_stop,
    .failed_note = "clrprobe heap cannot reach this agent (out of threads)",
    .stop_before_detach = 1,
};
