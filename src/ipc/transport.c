/* transport.c - the socket side of the diagnostics IPC: connect, send one
 * request, read one reply, all non-blocking under one wait budget (a
 * deadline, and a descriptor that cancels: Ctrl-C), so that a hung or
 * exiting process costs at most the timeout and never more than the user
 * is willing to wait. */
#include "ipc/ipc_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int64_t ipc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ipc_remaining_ms(int64_t deadline)
{
    int64_t left = deadline - ipc_now_ms();
    if (left < 0)
        return 0;
    return left > INT32_MAX ? INT32_MAX : (int)left;
}

ipc_wait ipc_wait_for(int timeout_ms, int cancel_fd)
{
    ipc_wait w;
    if (timeout_ms < 0)
        timeout_ms = 0;
    w.deadline = ipc_now_ms() + timeout_ms;
    w.total_ms = timeout_ms;
    w.cancel_fd = cancel_fd;
    return w;
}

/* The pid in a socket path's name, or 0. */
static int pid_of_path(const char *path)
{
    const char *base = strrchr(path, '/');
    uint64_t key;
    int pid;

    return ipc_parse_socket_name(base ? base + 1 : path, &pid, &key) == 0 ? pid : 0;
}

/* Waits until fd is ready for events, the deadline passes or the wait is
 * cancelled: 1 ready, 0 timed out, -1 error (errno), -2 cancelled.  fd may
 * be -1 to wait for the deadline or the cancel descriptor alone. */
static int wait_fd(int fd, short events, const ipc_wait *w, int max_ms)
{
    struct pollfd p[2];
    int r, n, ms;

    for (;;) {
        n = 0;
        if (fd >= 0)
            p[n++] = (struct pollfd){ fd, events, 0 };
        if (w->cancel_fd >= 0)
            p[n++] = (struct pollfd){ w->cancel_fd, POLLIN, 0 };
        ms = ipc_remaining_ms(w->deadline);
        if (max_ms >= 0 && ms > max_ms)
            ms = max_ms;
        r = poll(p, (nfds_t)n, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (w->cancel_fd >= 0 && (p[n - 1].revents & POLLIN))
            return -2;
        if (r == 0)
            return 0;
        return fd >= 0 && p[0].revents ? 1 : 0;
    }
}

int ipc_connect_until(const char *path, const ipc_wait *w, char *err, size_t errlen)
{
    struct sockaddr_un sa;
    int fd, pid = pid_of_path(path), e;
    socklen_t elen;
    char who[IPC_PATH_MAX + 32];

    if (pid)
        snprintf(who, sizeof(who), "process %d", pid);
    else
        snprintf(who, sizeof(who), "the process behind %s", path);
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa.sun_path))
        return ipc_errorf(IPC_ERR_TOO_LONG, err, errlen, "the socket path is too long for a Unix socket: %s", path);
    strcpy(sa.sun_path, path);

    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot create a socket: %s", strerror(errno));
    for (;;) {
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
            return fd;
        e = errno;
        if (e == EINTR)
            continue;
        if (e == EAGAIN) {
            /* The listen backlog is full: the server is busy; retry. */
            if (ipc_remaining_ms(w->deadline) <= 0)
                break;
            if (wait_fd(-1, 0, w, 10) == -2) {
                e = ECANCELED;
                break;
            }
            continue;
        }
        if (e == EINPROGRESS) {
            int r = wait_fd(fd, POLLOUT, w, -1);
            if (r <= 0) {
                e = r == 0 ? ETIMEDOUT : r == -2 ? ECANCELED : errno;
                break;
            }
            elen = sizeof(e);
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) < 0)
                e = errno;
            if (e == 0)
                return fd;
        }
        break;
    }
    close(fd);
    switch (e) {
    case ECANCELED:
        return ipc_errorf(IPC_ERR_CANCELLED, err, errlen, IPC_MSG_CANCELLED);
    case EAGAIN:
    case ETIMEDOUT:
        return ipc_errorf(IPC_ERR_TIMEOUT, err, errlen,
                          "timed out after %d ms waiting for %s to accept a connection", w->total_ms, who);
    case ECONNREFUSED:
        if (pid)
            return ipc_errorf(IPC_ERR_REFUSED, err, errlen, IPC_MSG_REFUSED, pid);
        return ipc_errorf(IPC_ERR_REFUSED, err, errlen,
                          "the diagnostics socket %s does not answer (the process may be exiting)", path);
    case EACCES:
    case EPERM:
        if (pid)
            return ipc_permission_error(pid, err, errlen);
        return ipc_errorf(IPC_ERR_PERMISSION, err, errlen,
                          "permission denied on %s: run clrprobe as the same user as the process, or as root", path);
    case ENOENT:
    case ENOTDIR:
        return ipc_errorf(IPC_ERR_NO_SOCKET, err, errlen, "the diagnostics socket %s is gone", path);
    default:
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot connect to %s: %s", path, strerror(e));
    }
}

int ipc_connect(const char *path, int timeout_ms, char *err, size_t errlen)
{
    ipc_wait w = ipc_wait_for(timeout_ms, -1);
    return ipc_connect_until(path, &w, err, errlen);
}

/* Reads exactly len bytes within the wait: len, the count read before EOF,
 * IPC_ERR_TIMEOUT, IPC_ERR_CANCELLED or IPC_ERR_SYSTEM (errno). */
static long read_until(int fd, uint8_t *buf, size_t len, const ipc_wait *w)
{
    size_t got = 0;
    ssize_t r;
    int ready;

    while (got < len) {
        r = recv(fd, buf + got, len - got, MSG_DONTWAIT);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (r == 0)
            return (long)got;
        if (errno == EINTR)
            continue;
        if (errno == ECONNRESET)
            return (long)got;       /* the server closed with unread data: same as EOF */
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return IPC_ERR_SYSTEM;
        ready = wait_fd(fd, POLLIN, w, -1);
        if (ready == 0)
            return IPC_ERR_TIMEOUT;
        if (ready == -2)
            return IPC_ERR_CANCELLED;
        if (ready < 0)
            return IPC_ERR_SYSTEM;
    }
    return (long)got;
}

int ipc_send_until(int fd, int pid, const ipc_wait *w, const uint8_t *msg, size_t len, char *err, size_t errlen)
{
    size_t sent = 0;
    ssize_t r;
    int ready;

    while (sent < len) {
        r = send(fd, msg + sent, len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r > 0) {
            sent += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            ready = wait_fd(fd, POLLOUT, w, -1);
            if (ready == 0)
                return ipc_errorf(IPC_ERR_TIMEOUT, err, errlen, IPC_MSG_TIMEOUT, w->total_ms, pid);
            if (ready == -2)
                return ipc_errorf(IPC_ERR_CANCELLED, err, errlen, IPC_MSG_CANCELLED);
            if (ready > 0)
                continue;
        }
        if (r < 0 && (errno == EPIPE || errno == ECONNRESET))
            return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen,
                              "process %d closed the diagnostics connection without answering "
                              "(the process may be exiting)", pid);
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot send the request to process %d: %s",
                          pid, strerror(errno));
    }
    return IPC_OK;
}

/* The sentence for a failed read_until(). */
static int read_error(long n, int pid, const ipc_wait *w, char *err, size_t errlen)
{
    if (n == IPC_ERR_TIMEOUT)
        return ipc_errorf(IPC_ERR_TIMEOUT, err, errlen, IPC_MSG_TIMEOUT, w->total_ms, pid);
    if (n == IPC_ERR_CANCELLED)
        return ipc_errorf(IPC_ERR_CANCELLED, err, errlen, IPC_MSG_CANCELLED);
    return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot read the reply of process %d: %s",
                      pid, strerror(errno));
}

int ipc_read_reply_until(int fd, int pid, const ipc_wait *w, uint8_t *reply, size_t cap, size_t *reply_len,
                         char *err, size_t errlen)
{
    ipc_header_t h;
    long n;

    *reply_len = 0;
    if (cap < IPC_HEADER_SIZE)
        return ipc_errorf(IPC_ERR_TOO_LONG, err, errlen, "reply buffer too small");
    n = read_until(fd, reply, IPC_HEADER_SIZE, w);
    if (n < 0)
        return read_error(n, pid, w, err, errlen);
    if (n == 0)
        return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen,
                          "process %d closed the diagnostics connection without answering "
                          "(the process may be exiting)", pid);
    if (n < IPC_HEADER_SIZE)
        return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen,
                          "process %d sent a truncated reply (%ld bytes)", pid, n);
    if (ipc_parse_header(reply, IPC_HEADER_SIZE, &h) != IPC_OK)
        return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen,
                          "process %d answered with something that is not a diagnostics IPC reply", pid);
    if (h.size > cap)
        return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen,
                          "the reply of process %d is too big (%u bytes)", pid, (unsigned)h.size);
    n = read_until(fd, reply + IPC_HEADER_SIZE, (size_t)h.size - IPC_HEADER_SIZE, w);
    if (n < 0)
        return read_error(n, pid, w, err, errlen);
    if ((size_t)n < (size_t)h.size - IPC_HEADER_SIZE)
        return ipc_errorf(IPC_ERR_PROTOCOL, err, errlen, "process %d sent a truncated reply (%ld of %u bytes)",
                          pid, n + IPC_HEADER_SIZE, (unsigned)h.size);
    *reply_len = h.size;
    return IPC_OK;
}

int ipc_exchange(int fd, int pid, int timeout_ms, const uint8_t *msg, size_t len,
                 uint8_t *reply, size_t cap, size_t *reply_len, char *err, size_t errlen)
{
    ipc_wait w = ipc_wait_for(timeout_ms, -1);
    int rc;

    *reply_len = 0;
    rc = ipc_send_until(fd, pid, &w, msg, len, err, errlen);
    if (rc != IPC_OK)
        return rc;
    return ipc_read_reply_until(fd, pid, &w, reply, cap, reply_len, err, errlen);
}

int ipc_request_until(int pid, const ipc_wait *w, const uint8_t *msg, size_t len,
                      uint8_t *reply, size_t cap, size_t *reply_len, char *err, size_t errlen)
{
    int fd, rc;

    *reply_len = 0;
    fd = ipc_connect_process_until(pid, w, err, errlen);
    if (fd < 0)
        return fd;
    rc = ipc_send_until(fd, pid, w, msg, len, err, errlen);
    if (rc == IPC_OK)
        rc = ipc_read_reply_until(fd, pid, w, reply, cap, reply_len, err, errlen);
    close(fd);
    return rc;
}

int ipc_request(int pid, int timeout_ms, const uint8_t *msg, size_t len,
                uint8_t *reply, size_t cap, size_t *reply_len, char *err, size_t errlen)
{
    ipc_wait w = ipc_wait_for(timeout_ms, -1);
    return ipc_request_until(pid, &w, msg, len, reply, cap, reply_len, err, errlen);
}
