/* nsjoin.c - doing a piece of work as a process in a container sees it.
 * A .NET process in a container has its diagnostics socket in the
 * container's /tmp (its mount namespace), named with the pid it has in its
 * pid namespace, loads its profiler by a path of its own file system, and
 * reaches abstract sockets of its own network namespace only.  A path into
 * it from here, /proc/PID/root/..., would follow the links its users may
 * plant there to our own files; so the work is done by a child process that
 * has joined the target's mount and network namespaces and taken its root as
 * its root (as nsenter does), where every path resolves inside the
 * container.  The child hands back what it made: descriptors (a connected or
 * listening socket, a directory) and a line of text, over a socket pair;
 * a descriptor works the same from here, whichever namespace made it.
 * Once inside, the child takes the target's user and group (its effective
 * ones, as our user namespace sees them) and drops every other: what it
 * makes there is the target's user's, and only where that user may make
 * it; a /tmp that user mounted over a directory of root's gets nothing.
 * docs/containers.md, "From the host". */
#include "ipc/ipc_internal.h"

#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NS_REPLY_MS 10000   /* the child only opens, connects or writes locally */

/* 1 when process pid's namespace KIND (mnt, net) is not ours, 0 when it is
 * or cannot be told (then ours is used, as before containers). */
static int differs(int pid, const char *kind)
{
    char mine[64], theirs[64];
    struct stat a, b;

    snprintf(mine, sizeof(mine), "/proc/self/ns/%s", kind);
    snprintf(theirs, sizeof(theirs), "/proc/%d/ns/%s", pid, kind);
    if (stat(mine, &a) < 0 || stat(theirs, &b) < 0)
        return 0;
    return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

int ipc_ns_foreign(int pid)
{
    return pid > 0 && (differs(pid, "mnt") || differs(pid, "net"));
}

/* The target's effective uid and gid, from our /proc: 0, or -1. */
static int target_ids(int pid, unsigned *uid, unsigned *gid)
{
    char path[64], *text;
    size_t len;
    unsigned fs;
    int rc;

    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    if (ipc_read_file(path, &text, &len) < 0)
        return -1;
    rc = ipc_parse_status_ids(text, "Uid:", uid, &fs) == 0 && ipc_parse_status_ids(text, "Gid:", gid, &fs) == 0
       ? 0 : -1;
    free(text);
    return rc;
}

/* Becomes user uid, group gid, no supplementary groups (and so loses every
 * capability, and the kernel makes us undumpable: the target's user cannot
 * trace what we hold).  0, or -1 (errno). */
static int become(unsigned uid, unsigned gid)
{
    if (uid == (unsigned)geteuid() && gid == (unsigned)getegid())
        return 0;
    if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
        return -1;
    return 0;
}

/* The child: joins, works, sends, exits.  Never returns. */
static void child(int pid, int sock, ipc_ns_fn fn, void *arg)
{
    ipc_ns_result res;
    char path[64], cbuf[CMSG_SPACE(sizeof(int) * IPC_NS_MAX_FDS)];
    int net = -1, mnt = -1, root, fail = 0, ids;
    unsigned uid = 0, gid = 0;
    struct iovec iov;
    struct msghdr msg;

    memset(&res, 0, sizeof(res));
    for (int i = 0; i < IPC_NS_MAX_FDS; i++)
        res.fds[i] = -1;
    /* (opened before joining: afterwards /proc is the container's) */
    snprintf(path, sizeof(path), "/proc/%d/root", pid);
    root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ids = target_ids(pid, &uid, &gid);
    if (differs(pid, "net")) {
        snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
        net = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (differs(pid, "mnt")) {
        snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
        mnt = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (root < 0 || (differs(pid, "net") && net < 0) || (differs(pid, "mnt") && mnt < 0)) {
        snprintf(res.err, sizeof(res.err), "cannot open process %d's namespaces: %s (root may)", pid,
                 strerror(errno));
        fail = 1;
    } else if ((net >= 0 && setns(net, CLONE_NEWNET) < 0) || (mnt >= 0 && setns(mnt, CLONE_NEWNS) < 0)) {
        snprintf(res.err, sizeof(res.err), "cannot enter process %d's namespaces: %s (entering a container's "
                 "namespaces needs root, or CAP_SYS_ADMIN and CAP_SYS_PTRACE in a sidecar)", pid, strerror(errno));
        fail = 1;
    } else if (fchdir(root) < 0 || chroot(".") < 0 || chdir("/") < 0) {
        snprintf(res.err, sizeof(res.err), "cannot take process %d's root as ours: %s", pid, strerror(errno));
        fail = 1;
    } else if (ids < 0 || become(uid, gid) < 0) {
        snprintf(res.err, sizeof(res.err), "cannot take process %d's user (uid %u, gid %u) in its namespaces: %s",
                 pid, uid, gid, ids < 0 ? "its /proc status is unreadable" : strerror(errno));
        fail = 1;
    }
    if (fail)
        res.status = IPC_ERR_PERMISSION;
    else
        fn(arg, &res);

    memset(&msg, 0, sizeof(msg));
    iov.iov_base = &res;
    iov.iov_len = sizeof(res);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    int nfds = 0;
    int fds[IPC_NS_MAX_FDS];
    for (int i = 0; i < IPC_NS_MAX_FDS; i++)
        if (res.fds[i] >= 0)
            fds[nfds++] = res.fds[i];
    if (nfds) {
        struct cmsghdr *c;
        memset(cbuf, 0, sizeof(cbuf));
        msg.msg_control = cbuf;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    }
    while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
    _exit(0);
}

int ipc_ns_run(int pid, ipc_ns_fn fn, void *arg, ipc_ns_result *res, char *err, size_t errlen)
{
    char cbuf[CMSG_SPACE(sizeof(int) * IPC_NS_MAX_FDS)];
    struct pollfd p;
    struct iovec iov;
    struct msghdr msg;
    int sv[2], status, got = 0, r;
    ssize_t n = -1;
    pid_t c;

    memset(res, 0, sizeof(*res));
    for (int i = 0; i < IPC_NS_MAX_FDS; i++)
        res->fds[i] = -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot make a socket pair: %s", strerror(errno));
    fflush(NULL);
    c = fork();
    if (c < 0) {
        close(sv[0]);
        close(sv[1]);
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot start a process: %s", strerror(errno));
    }
    if (c == 0) {
        close(sv[0]);
        child(pid, sv[1], fn, arg);
    }
    close(sv[1]);
    p = (struct pollfd){ sv[0], POLLIN, 0 };
    do
        r = poll(&p, 1, NS_REPLY_MS);
    while (r < 0 && errno == EINTR);
    if (r > 0) {
        ipc_ns_result tmp;
        memset(&msg, 0, sizeof(msg));
        iov.iov_base = &tmp;
        iov.iov_len = sizeof(tmp);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cbuf;
        msg.msg_controllen = sizeof(cbuf);
        do
            n = recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n == (ssize_t)sizeof(tmp)) {
            int k = 0;
            *res = tmp;
            for (struct cmsghdr *h = CMSG_FIRSTHDR(&msg); h; h = CMSG_NXTHDR(&msg, h)) {
                if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
                    continue;
                int m = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
                int fds[IPC_NS_MAX_FDS];
                if (m > IPC_NS_MAX_FDS)
                    m = IPC_NS_MAX_FDS;
                memcpy(fds, CMSG_DATA(h), sizeof(int) * (size_t)m);
                /* the descriptors arrive in the order of the slots that held one */
                for (int i = 0; i < IPC_NS_MAX_FDS; i++)
                    res->fds[i] = tmp.fds[i] >= 0 && k < m ? fds[k++] : -1;
            }
            if (k == 0)
                for (int i = 0; i < IPC_NS_MAX_FDS; i++)
                    res->fds[i] = -1;
            got = 1;
        }
    }
    close(sv[0]);
    if (!got)
        kill(c, SIGKILL);
    while (waitpid(c, &status, 0) < 0 && errno == EINTR) {
    }
    if (!got)
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "the process that entered process %d's namespaces %s", pid,
                          r == 0 ? "did not answer within 10 s" : "ended without an answer");
    res->err[sizeof(res->err) - 1] = '\0';
    res->text[sizeof(res->text) - 1] = '\0';
    if (res->status != IPC_OK) {
        for (int i = 0; i < IPC_NS_MAX_FDS; i++)
            if (res->fds[i] >= 0) {
                close(res->fds[i]);
                res->fds[i] = -1;
            }
        return ipc_errorf(res->status, err, errlen, "%s", res->err);
    }
    return IPC_OK;
}
