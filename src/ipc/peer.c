/* peer.c - who is at the other end of the agent's abstract sockets
 * (@clrprobe-heap-PID, @clrprobe-quiet-PID).  An abstract name belongs to
 * whoever binds it first in the network namespace, any user: before the
 * command talks to the agent there, or takes the name's presence as a sign
 * of the agent, it checks that the listener is the target process itself. */
#include "ipc/ipc_internal.h"
#include "common/control_protocol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int ipc_unix_inode(const char *text, size_t len, const char *name, unsigned long *inode)
{
    size_t i = 0, nl = strlen(name);

    while (i < len) {
        const char *line = text + i, *end = memchr(line, '\n', len - i);
        size_t llen = end ? (size_t)(end - line) : len - i;
        char buf[512];
        unsigned long ino;
        int at = -1;

        i += llen + 1;
        if (llen >= sizeof(buf))
            continue;
        memcpy(buf, line, llen);
        buf[llen] = '\0';
        /* Num: RefCount Protocol Flags Type St Inode Path */
        if (sscanf(buf, "%*s %*s %*s %*s %*s %*s %lu %n", &ino, &at) != 1 || at < 0)
            continue;
        if (buf[at] == '@' && strlen(buf + at + 1) == nl && memcmp(buf + at + 1, name, nl) == 0) {
            *inode = ino;
            return 1;
        }
    }
    return 0;
}

/* Whether one of pid's descriptors is the socket of that inode. */
static int process_has_socket(int pid, unsigned long inode)
{
    char dir[64], want[64], link[64];
    struct dirent *de;
    int found = 0;
    DIR *d;

    snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
    snprintf(want, sizeof(want), "socket:[%lu]", inode);
    d = opendir(dir);
    if (!d)
        return 0;
    while (!found && (de = readdir(d)) != NULL) {
        ssize_t n;
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        n = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
        if (n <= 0)
            continue;
        link[n] = '\0';
        found = strcmp(link, want) == 0;
    }
    closedir(d);
    return found;
}

int ipc_has_abstract_socket(int pid, const char *name)
{
    char path[64], *text = NULL;
    unsigned long inode = 0;
    size_t len;
    int found;

    snprintf(path, sizeof(path), "/proc/%d/net/unix", pid);
    if (ipc_read_file(path, &text, &len) < 0)
        return 0;
    found = ipc_unix_inode(text, len, name, &inode);
    free(text);
    /* /proc/PID/net/unix lists every socket of the network namespace,
     * anyone's: only one of the process's own counts. */
    return found && process_has_socket(pid, inode);
}

int ipc_check_listener(int fd, const char *name, int pid, char *err, size_t errlen)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    char proc[64];
    struct stat st;

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot tell who holds the socket name @%s: %s", name,
                          strerror(errno));
    /* SO_PEERCRED gives the pid as our pid namespace sees it, as pid is. */
    snprintf(proc, sizeof(proc), "/proc/%d", pid);
    if (cred.pid != pid || stat(proc, &st) < 0 || cred.uid != st.st_uid)
        return ipc_errorf(IPC_ERR_REFUSED, err, errlen, "the socket name @%s is held by process %d of uid %u, not "
                          "by process %d: another program took the name clrprobe's agent uses (find it with "
                          "'ps -p %d' and end it)", name, (int)cred.pid, (unsigned)cred.uid, pid, (int)cred.pid);
    return IPC_OK;
}

/* The connection to "@name", in the network namespace this process is in. */
typedef struct abstract_job {
    const char *fmt, *name;
    int inner;
} abstract_job;

static void connect_abstract(void *arg, ipc_ns_result *res)
{
    abstract_job *j = arg;
    struct sockaddr_un addr;
    socklen_t len = cp_abstract_address(&addr, j->fmt, j->inner);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        res->status = ipc_errorf(IPC_ERR_SYSTEM, res->err, sizeof(res->err), "cannot make a socket: %s",
                                 strerror(errno));
        return;
    }
    if (connect(fd, (struct sockaddr *)&addr, len) < 0) {
        res->status = ipc_errorf(errno == ECONNREFUSED || errno == ENOENT ? IPC_ERR_NO_SOCKET : IPC_ERR_SYSTEM,
                                 res->err, sizeof(res->err), "cannot connect to @%s: %s", j->name, strerror(errno));
        close(fd);
        return;
    }
    res->status = IPC_OK;
    res->fds[0] = fd;
}

int ipc_connect_agent_socket(int pid, const char *fmt, int *out, char *err, size_t errlen)
{
    char name[64];
    abstract_job j = { fmt, name, ipc_inner_pid(pid) };
    ipc_ns_result res;
    int rc;

    *out = -1;
    snprintf(name, sizeof(name), fmt, j.inner);
    /* (a process in a container has its abstract sockets in its own network namespace) */
    if (ipc_ns_foreign(pid)) {
        rc = ipc_ns_run(pid, connect_abstract, &j, &res, err, errlen);
        if (rc != IPC_OK)
            return rc;
    } else {
        memset(&res, 0, sizeof(res));
        res.fds[0] = -1;
        connect_abstract(&j, &res);
        if (res.status != IPC_OK)
            return ipc_errorf(res.status, err, errlen, "%s", res.err);
    }
    rc = ipc_check_listener(res.fds[0], name, pid, err, errlen);
    if (rc != IPC_OK) {
        close(res.fds[0]);
        return rc;
    }
    *out = res.fds[0];
    return IPC_OK;
}
