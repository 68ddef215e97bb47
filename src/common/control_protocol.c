/* control_protocol.c - the one function of the control protocol that is
 * more than a constant (control_protocol.h): sending the trace file's
 * descriptor (and the per-CPU clock's page and stack ring), used by `clrprobe attach` and by `clrprobe run` for the
 * processes it follows. */
#include "common/control_protocol.h"

#include <errno.h>
#include <string.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>

int cp_ctl_send_trace(int conn, int fd, int clock_fd, int stack_fd)
{
    char cbuf[CMSG_SPACE(3 * sizeof(int))];
    int fds[3] = { fd, clock_fd, stack_fd }, nfds = clock_fd < 0 ? 1 : stack_fd < 0 ? 2 : 3;
    struct iovec iov = { (void *)CP_CTL_TRACE, CP_CTL_TRACE_LEN };
    struct msghdr msg;
    struct cmsghdr *cm;
    ssize_t n;

    memset(&msg, 0, sizeof(msg));
    memset(cbuf, 0, sizeof(cbuf));
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
    cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
    memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
    n = sendmsg(conn, &msg, MSG_NOSIGNAL);
    if (n == CP_CTL_TRACE_LEN)
        return 0;
    if (n >= 0)
        errno = EIO;
    return -1;
}

socklen_t cp_abstract_address(struct sockaddr_un *addr, const char *fmt, int pid)
{
    int n;

    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, fmt, pid);
    if (n < 0 || (size_t)n >= sizeof(addr->sun_path) - 1)
        n = (int)sizeof(addr->sun_path) - 2;
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}
