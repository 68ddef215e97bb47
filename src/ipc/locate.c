/* locate.c - which diagnostics socket belongs to a pid: the runtime binds
 * "$TMPDIR/dotnet-diagnostic-{pid}-{key}-socket" (key = the process's
 * starttime) in its own TMPDIR, and a killed process leaves its socket
 * behind, so several may carry the same pid. */
#include "ipc/ipc_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int ipc_socket_path(int pid, char *out, size_t cap, char *err, size_t errlen)
{
    char dir[IPC_PATH_MAX + 64], full[PATH_MAX], best_name[256] = "";
    uint64_t starttime, key;
    int64_t best_mtime = 0;
    int best = 0, stale = 0, npid, rc, cur;
    struct dirent *de;
    struct stat st;
    DIR *d;

    if (pid <= 0)
        return ipc_errorf(IPC_ERR_NO_PROCESS, err, errlen, IPC_MSG_NO_PROCESS, pid);
    rc = ipc_process_starttime(pid, &starttime);
    if (rc == IPC_ERR_NO_PROCESS)
        return ipc_errorf(rc, err, errlen, IPC_MSG_NO_PROCESS, pid);
    if (rc != IPC_OK)
        return ipc_errorf(rc, err, errlen, "cannot read /proc/%d/stat", pid);
    rc = ipc_process_tmpdir(pid, dir, sizeof(dir), err, errlen);
    if (rc != IPC_OK)
        return rc;

    d = opendir(dir);
    if (!d) {
        if (errno == EACCES || errno == EPERM)
            return ipc_permission_error(pid, err, errlen);
        if (errno == ENOENT || errno == ENOTDIR)
            return ipc_errorf(IPC_ERR_NO_SOCKET, err, errlen, IPC_MSG_NO_SOCKET, pid);
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot read the directory %s: %s", dir, strerror(errno));
    }
    while ((de = readdir(d)) != NULL) {
        if (ipc_parse_socket_name(de->d_name, &npid, &key) < 0 || npid != pid)
            continue;
        if (strlen(de->d_name) >= sizeof(best_name))
            continue;
        snprintf(full, sizeof(full), "%s/%s", strcmp(dir, "/") ? dir : "", de->d_name);
        if (lstat(full, &st) < 0 || !S_ISSOCK(st.st_mode))
            continue;
        cur = ipc_socket_currency(pid, key, (int64_t)st.st_mtime, starttime);
        if (!cur) {
            stale++;
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
