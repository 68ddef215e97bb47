/* procfs.c - what /proc tells about a process that the diagnostics socket
 * depends on: its start time (the socket name's key) and its TMPDIR (where
 * the socket is).  The text parsers are pure and unit-tested; the readers
 * map errno to ipc_status. */
#include "ipc/ipc_internal.h"
#include "common/profiler_env.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ipc_parse_stat_starttime(const char *stat_text, uint64_t *out)
{
    const char *p = strrchr(stat_text, ')');
    char *end;
    int field;

    if (!p)
        return -1;
    p++;
    /* After "pid (comm)" comes field 3; starttime is field 22. */
    for (field = 3; field <= 22; field++) {
        while (*p == ' ')
            p++;
        if (!*p)
            return -1;
        if (field == 22) {
            if (*p < '0' || *p > '9')
                return -1;
            errno = 0;
            *out = strtoull(p, &end, 10);
            if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
                return -1;
            return 0;
        }
        while (*p && *p != ' ')
            p++;
    }
    return -1;
}

/* Reads a whole /proc file into a malloc'd NUL-terminated buffer: 0, or
 * -1 with errno set. */
static int read_proc_file(const char *path, char **buf, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *b = malloc(cap), *nb;
    int fd, e;
    ssize_t r;

    if (!b)
        return -1;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        e = errno;
        free(b);
        errno = e;
        return -1;
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap >= (size_t)64 << 20 || !(nb = realloc(b, cap * 2))) {
                e = ENOMEM;
                goto fail;
            }
            b = nb;
            cap *= 2;
        }
        r = read(fd, b + n, cap - n - 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            e = errno;
            goto fail;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
fail:
    close(fd);
    free(b);
    errno = e;
    return -1;
}

int ipc_process_starttime(int pid, uint64_t *out)
{
    char path[64], *text;
    size_t len;
    int rc;

    if (pid <= 0)
        return IPC_ERR_NO_PROCESS;
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    if (read_proc_file(path, &text, &len) < 0)
        return errno == ENOENT || errno == ESRCH ? IPC_ERR_NO_PROCESS : IPC_ERR_SYSTEM;
    rc = ipc_parse_stat_starttime(text, out) == 0 ? IPC_OK : IPC_ERR_SYSTEM;
    free(text);
    return rc;
}

int ipc_process_age_ms(int pid, int64_t *out)
{
    uint64_t start;
    double uptime;
    char *text;
    size_t len;
    long hz = sysconf(_SC_CLK_TCK);
    int rc = ipc_process_starttime(pid, &start);

    if (rc != IPC_OK)
        return rc;
    if (hz <= 0 || read_proc_file("/proc/uptime", &text, &len) < 0)
        return IPC_ERR_SYSTEM;
    rc = sscanf(text, "%lf", &uptime) == 1 ? IPC_OK : IPC_ERR_SYSTEM;
    free(text);
    if (rc == IPC_OK)
        *out = (int64_t)(uptime * 1000) - (int64_t)(start * 1000 / (uint64_t)hz);
    return rc;
}

int ipc_process_tmpdir(int pid, char *out, size_t cap, char *err, size_t errlen)
{
    char path[64], *env, value[4096];
    size_t len, vlen;
    int found;

    if (pid <= 0)
        return ipc_errorf(IPC_ERR_NO_PROCESS, err, errlen, IPC_MSG_NO_PROCESS, pid);
    snprintf(path, sizeof(path), "/proc/%d/environ", pid);
    if (read_proc_file(path, &env, &len) < 0) {
        if (errno == ENOENT || errno == ESRCH)
            return ipc_errorf(IPC_ERR_NO_PROCESS, err, errlen, IPC_MSG_NO_PROCESS, pid);
        if (errno == EACCES || errno == EPERM)
            return ipc_permission_error(pid, err, errlen);
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot read %s: %s", path, strerror(errno));
    }
    found = cp_env_lookup(&(cp_env){ env, len }, "TMPDIR", value, sizeof(value));
    free(env);
    if (!found || !value[0])
        strcpy(value, "/tmp");
    vlen = strlen(value);
    while (vlen > 1 && value[vlen - 1] == '/')
        value[--vlen] = '\0';
    if (vlen + 1 > cap)
        return ipc_errorf(IPC_ERR_TOO_LONG, err, errlen, "the TMPDIR of process %d is too long: %s", pid, value);
    memcpy(out, value, vlen + 1);
    return IPC_OK;
}

/* Boot time in seconds since the epoch (btime in /proc/stat), 0 if unknown;
 * read once (a child in a container's namespaces may have no /proc). */
int64_t ipc_boot_time(void)
{
    static int64_t bt = -1;
    char *text, *p;
    size_t len;

    if (bt >= 0)
        return bt;
    if (read_proc_file("/proc/stat", &text, &len) < 0)
        return 0;
    bt = 0;
    p = strstr(text, "\nbtime ");
    if (p)
        bt = strtoll(p + 7, NULL, 10);
    free(text);
    return bt;
}

int ipc_socket_currency(int pid, uint64_t key, int64_t mtime, uint64_t starttime)
{
    long hz = sysconf(_SC_CLK_TCK);
    int64_t bt;

    (void)pid;
    if (key == starttime)
        return 2;
    bt = ipc_boot_time();
    if (bt <= 0 || hz <= 0)
        return 0;
    /* The runtime creates its socket after the process started; allow for
     * btime's whole-second resolution and clock adjustments. */
    return mtime + 2 >= bt + (int64_t)(starttime / (uint64_t)hz) ? 1 : 0;
}

int ipc_read_file(const char *path, char **buf, size_t *len)
{
    return read_proc_file(path, buf, len);
}

int ipc_inner_pid(int pid)
{
    char path[64], buf[4096];
    FILE *f;
    int inner = pid;

    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    if (!(f = fopen(path, "re")))
        return pid;
    while (fgets(buf, sizeof(buf), f)) {
        if (strncmp(buf, "NSpid:", 6) == 0) {
            char *save = NULL, *t = strtok_r(buf + 6, " \t\n", &save);
            for (; t; t = strtok_r(NULL, " \t\n", &save))
                inner = atoi(t);
            break;
        }
    }
    fclose(f);
    return inner > 0 ? inner : pid;
}

int ipc_container_id_from_cgroup(const char *text, size_t len, char out[65])
{
    size_t run = 0;
    int found = 0;

    out[0] = '\0';
    for (size_t i = 0; i <= len; i++) {
        char c = i < len ? text[i] : '\n';
        int hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        if (hex) {
            run++;
            continue;
        }
        /* exactly 64: a longer run is something else */
        if (run == 64) {
            memcpy(out, text + i - 64, 64);
            out[64] = '\0';
            found = 1;
        }
        run = 0;
    }
    return found;
}

int ipc_container_id(int pid, char out[65])
{
    char path[64], *text;
    size_t len;
    int found;

    out[0] = '\0';
    snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
    if (read_proc_file(path, &text, &len) < 0)
        return 0;
    found = ipc_container_id_from_cgroup(text, len, out);
    free(text);
    return found;
}
