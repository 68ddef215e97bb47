/* locate.c - which diagnostics socket belongs to a pid: the runtime binds
 * "$TMPDIR/dotnet-diagnostic-{pid}-{key}-socket" (key = the process's
 * starttime, pid = its pid in its own pid namespace) in its own TMPDIR, and
 * a killed process leaves its socket behind, so several may carry the same
 * pid.  A process in a container is looked up, and connected to, from
 * inside its namespaces (nsjoin.c). */
#include "ipc/ipc_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SOCKET_PREFIX "dotnet-diagnostic-"
#define SOCKET_SUFFIX "-socket"

/* Parses an unsigned decimal number at *p (at least one digit, no sign). */
static int parse_decimal(const char **p, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    const char *s = *p;

    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (max - (uint64_t)(*s - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *p = s;
    *out = v;
    return 0;
}

int ipc_parse_socket_name(const char *name, int *pid, uint64_t *key)
{
    const char *p = name;
    uint64_t v, k;

    if (strncmp(p, SOCKET_PREFIX, sizeof(SOCKET_PREFIX) - 1) != 0)
        return -1;
    p += sizeof(SOCKET_PREFIX) - 1;
    if (parse_decimal(&p, INT_MAX, &v) < 0 || v == 0 || *p++ != '-')
        return -1;
    if (parse_decimal(&p, UINT64_MAX, &k) < 0 || strcmp(p, SOCKET_SUFFIX) != 0)
        return -1;
    *pid = (int)v;
    *key = k;
    return 0;
}

/* The facts that pick a process's socket, read from our /proc (a child in
 * its namespaces sees another /proc): its TMPDIR, its starttime (the key),
 * and the pid it has in its own pid namespace (the name's). */
typedef struct socket_query {
    int pid, inner;
    uint64_t starttime;
    unsigned euid, fsuid;        /* whose sockets can be the process's own (trust.c) */
    char dir[IPC_PATH_MAX + 64];
} socket_query;

/* What pick_socket skipped for its owner: the first such socket. */
typedef struct socket_fake {
    uint64_t dev, ino;
    char text[IPC_PATH_MAX + 256];
} socket_fake;

static int query_of(int pid, socket_query *q, char *err, size_t errlen)
{
    int rc;

    memset(q, 0, sizeof(*q));
    if (pid <= 0)
        return ipc_errorf(IPC_ERR_NO_PROCESS, err, errlen, IPC_MSG_NO_PROCESS, pid);
    rc = ipc_process_starttime(pid, &q->starttime);
    if (rc == IPC_ERR_NO_PROCESS)
        return ipc_errorf(rc, err, errlen, IPC_MSG_NO_PROCESS, pid);
    if (rc != IPC_OK)
        return ipc_errorf(rc, err, errlen, "cannot read /proc/%d/stat", pid);
    rc = ipc_process_uids(pid, &q->euid, &q->fsuid);
    if (rc == IPC_ERR_NO_PROCESS)
        return ipc_errorf(rc, err, errlen, IPC_MSG_NO_PROCESS, pid);
    if (rc != IPC_OK)
        return ipc_errorf(rc, err, errlen, "cannot read /proc/%d/status", pid);
    q->pid = pid;
    q->inner = ipc_inner_pid(pid);
    ipc_boot_time();    /* (read here: a child in another namespace may have no /proc) */
    return ipc_process_tmpdir(pid, q->dir, sizeof(q->dir), err, errlen);
}

/* The socket q asks for in q->dir, as the process's file system has it;
 * one made by another user than the process's is skipped (the first such
 * into *fake, its text empty when none). */
static int pick_socket(const socket_query *q, char *out, size_t cap, socket_fake *fake, char *err, size_t errlen)
{
    char full[PATH_MAX], best_name[256] = "";
    const char *dir = q->dir;
    uint64_t key;
    int64_t best_mtime = 0;
    int best = 0, stale = 0, npid, cur, pid = q->pid;
    struct dirent *de;
    struct stat st;
    DIR *d;

    fake->text[0] = '\0';
    d = opendir(dir);
    if (!d) {
        if (errno == EACCES || errno == EPERM)
            return ipc_permission_error(pid, err, errlen);
        if (errno == ENOENT || errno == ENOTDIR)
            return ipc_errorf(IPC_ERR_NO_SOCKET, err, errlen, IPC_MSG_NO_SOCKET, pid);
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot read the directory %s: %s", dir, strerror(errno));
    }
    while ((de = readdir(d)) != NULL) {
        if (ipc_parse_socket_name(de->d_name, &npid, &key) < 0 || npid != q->inner)
            continue;
        if (strlen(de->d_name) >= sizeof(best_name))
            continue;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode))
            continue;
        cur = ipc_socket_currency(pid, key, (int64_t)st.st_mtime, q->starttime);
        if (!cur) {
            stale++;
            continue;
        }
        if (!ipc_socket_owner_ok((unsigned)st.st_uid, q->euid, q->fsuid)) {
            if (!fake->text[0]) {
                snprintf(full, sizeof(full), "%s/%s", strcmp(dir, "/") ? dir : "", de->d_name);
                ipc_fake_text(full, pid, (unsigned)st.st_uid, q->fsuid, fake->text, sizeof(fake->text));
                fake->dev = (uint64_t)st.st_dev;
                fake->ino = (uint64_t)st.st_ino;
            }
            continue;
        }
        if (cur > best || (cur == best && (int64_t)st.st_mtime > best_mtime)) {
            best = cur;
            best_mtime = (int64_t)st.st_mtime;
            strcpy(best_name, de->d_name);
        }
    }
    closedir(d);

    if (!best) {
        if (fake->text[0])
            return ipc_errorf(IPC_ERR_NO_SOCKET, err, errlen, IPC_MSG_NO_SOCKET " (%s)", pid, fake->text);
        if (stale)
            return ipc_errorf(IPC_ERR_NO_SOCKET, err, errlen,
                              IPC_MSG_NO_SOCKET " (only stale sockets of an earlier process %d are in %s)",
                              pid, pid, dir);
        return ipc_errorf(IPC_ERR_NO_SOCKET, err, errlen, IPC_MSG_NO_SOCKET, pid);
    }
    if ((size_t)snprintf(full, sizeof(full), "%s/%s", strcmp(dir, "/") ? dir : "", best_name) >= IPC_PATH_MAX ||
        strlen(full) + 1 > cap)
        return ipc_errorf(IPC_ERR_TOO_LONG, err, errlen,
                          "the diagnostics socket path of process %d is too long for a Unix socket: %s", pid, full);
    strcpy(out, full);
    return IPC_OK;
}

/* In a container: the socket found (text) and, when asked, connected (fds[0]). */
typedef struct socket_job {
    socket_query q;
    int connect;
    ipc_wait w;
} socket_job;

static void socket_in_namespaces(void *arg, ipc_ns_result *res)
{
    socket_job *j = arg;
    socket_fake fake;

    res->status = pick_socket(&j->q, res->text, sizeof(res->text), &fake, res->err, sizeof(res->err));
    if (res->status == IPC_OK && fake.text[0])
        snprintf(res->err, sizeof(res->err), "%s", fake.text);   /* (a fake skipped: named by the parent) */
    if (res->status != IPC_OK || !j->connect)
        return;
    res->fds[0] = ipc_connect_until(res->text, &j->w, res->err, sizeof(res->err));
    if (res->fds[0] < 0) {
        res->status = res->fds[0];
        res->fds[0] = -1;
    }
}

/* A connected fd whose listener is not process pid is closed (nothing was
 * sent on it): the status that says so. */
static int checked(int fd, int pid, const char *path, char *err, size_t errlen)
{
    int rc;

    if (fd < 0)
        return fd;
    if ((rc = ipc_check_peer_process(fd, pid, path, err, errlen)) != IPC_OK) {
        close(fd);
        return rc;
    }
    return fd;
}

static int socket_of(int pid, int connect, const ipc_wait *w, char *out, size_t cap, char *err, size_t errlen)
{
    socket_job j;
    ipc_ns_result res;
    socket_fake fake;
    int rc = query_of(pid, &j.q, err, errlen);

    if (rc != IPC_OK)
        return rc;
    if (!ipc_ns_foreign(pid)) {
        char path[IPC_PATH_MAX];
        rc = pick_socket(&j.q, connect ? path : out, connect ? sizeof(path) : cap, &fake, err, errlen);
        if (rc == IPC_OK && fake.text[0])
            ipc_warn_once(fake.dev, fake.ino, fake.text);
        return rc == IPC_OK && connect ? checked(ipc_connect_until(path, w, err, errlen), pid, path, err, errlen)
                                       : rc;
    }
    j.connect = connect;
    if (w)
        j.w = *w;
    rc = ipc_ns_run(pid, socket_in_namespaces, &j, &res, err, errlen);
    if (rc != IPC_OK)
        return rc;
    if (res.err[0])
        ipc_warn_once((uint64_t)pid << 32, 0, res.err);   /* (a fake in a container: once per process) */
    if (connect)
        return checked(res.fds[0], pid, res.text, err, errlen);
    if (strlen(res.text) + 1 > cap)
        return ipc_errorf(IPC_ERR_TOO_LONG, err, errlen, "the diagnostics socket path of process %d is too long",
                          pid);
    strcpy(out, res.text);
    return IPC_OK;
}

int ipc_socket_path(int pid, char *out, size_t cap, char *err, size_t errlen)
{
    return socket_of(pid, 0, NULL, out, cap, err, errlen);
}

int ipc_connect_process_until(int pid, const ipc_wait *w, char *err, size_t errlen)
{
    return socket_of(pid, 1, w, NULL, 0, err, errlen);
}
