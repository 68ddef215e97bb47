/* profcheck.c - is a main profiler already loaded in a process?  Read from
 * /proc, before any attach attempt: the runtime refuses a second main
 * profiler only after it has loaded the library (LoadProfiler in CoreCLR's
 * profilinghelper.cpp) and then never unloads it, so an attempt it would
 * refuse must not be made (docs/attach.md, "One profiler per process"). */
#include "ipc/ipc_internal.h"
#include "common/control_protocol.h"
#include "common/profiler_env.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 __NR_openat2 /* (glibc before 2.32 names only the kernel's number) */
#endif

#define AGENT_FILE "libclrprobe.so"
#define AGENT_THREAD_PREFIX "clrprobe-"

int ipc_maps_find(const char *maps, size_t len, const char *path, unsigned dev_major, unsigned dev_minor,
                  uint64_t ino, const char *base, char *out, size_t cap)
{
    static const char deleted[] = " (deleted)";
    size_t i = 0;

    while (i < len) {
        const char *line = maps + i, *nl = memchr(line, '\n', len - i);
        size_t llen = nl ? (size_t)(nl - line) : len - i;
        char text[PATH_MAX + 256];
        unsigned maj, min;
        unsigned long long inode;
        int at = -1;

        i += llen + 1;
        if (llen >= sizeof(text))
            continue;
        memcpy(text, line, llen);
        text[llen] = '\0';
        /* start-end perms offset major:minor inode   path */
        if (sscanf(text, "%*x-%*x %*s %*x %x:%x %llu %n", &maj, &min, &inode, &at) != 3 || at < 0 ||
            text[at] != '/')
            continue;
        char *file = text + at;
        size_t flen = strlen(file);
        if (flen > sizeof(deleted) - 1 && strcmp(file + flen - (sizeof(deleted) - 1), deleted) == 0)
            file[flen - (sizeof(deleted) - 1)] = '\0';
        const char *slash = strrchr(file, '/');
        if ((path && strcmp(file, path) == 0) || (ino && inode == ino && maj == dev_major && min == dev_minor) ||
            (base && strcmp(slash + 1, base) == 0)) {
            if (cap)
                snprintf(out, cap, "%s", file);
            return 1;
        }
    }
    return 0;
}

/* Whether a thread of pid is named clrprobe-* (the agent's control,
 * flusher and sampler threads): the agent is running, not just mapped. */
static int agent_threads(int pid)
{
    char path[64], comm[32];
    struct dirent *de;
    int found = 0;
    DIR *d;

    snprintf(path, sizeof(path), "/proc/%d/task", pid);
    d = opendir(path);
    if (!d)
        return 0;
    while (!found && (de = readdir(d)) != NULL) {
        char file[96];
        FILE *f;
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(file, sizeof(file), "/proc/%d/task/%.20s/comm", pid, de->d_name);
        f = fopen(file, "re");
        if (!f)
            continue;
        if (fgets(comm, sizeof(comm), f) && strncmp(comm, AGENT_THREAD_PREFIX, strlen(AGENT_THREAD_PREFIX)) == 0)
            found = 1;
        fclose(f);
    }
    closedir(d);
    return found;
}

/* stat of path as process pid resolves it: from its root (an absolute
 * path) or its working directory, never leaving its root, whatever links
 * its users put on the way (a container's absolute link would lead a
 * lookup through /proc/PID/root to our own files). */
static int stat_in_root(int pid, const char *path, struct stat *st)
{
    struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
    char base[64];
    int dir, fd, r;

    snprintf(base, sizeof(base), "/proc/%d/%s", pid, path[0] == '/' ? "root" : "cwd");
    dir = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return -1;
    fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
    close(dir);
    if (fd < 0)
        return -1;
    r = fstat(fd, st);
    close(fd);
    return r;
}

static int read_error(int pid, const char *path, char *err, size_t errlen)
{
    if (errno == ENOENT || errno == ESRCH)
        return ipc_errorf(IPC_ERR_NO_PROCESS, err, errlen, IPC_MSG_NO_PROCESS, pid);
    if (errno == EACCES || errno == EPERM)
        return ipc_errorf(IPC_ERR_PERMISSION, err, errlen, "reading %s: %s (the process's user, or root, may)",
                          path, strerror(errno));
    return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot read %s: %s", path, strerror(errno));
}

int ipc_loaded_profiler(int pid, ipc_loaded_profiler_t *out, char *err, size_t errlen)
{
    char path[64], lib[PATH_MAX], seen[PATH_MAX], *maps = NULL, *env = NULL;
    size_t maps_len, env_len;
    int rc = IPC_OK;

    memset(out, 0, sizeof(*out));
    if (pid <= 0)
        return ipc_errorf(IPC_ERR_NO_PROCESS, err, errlen, IPC_MSG_NO_PROCESS, pid);
    snprintf(path, sizeof(path), "/proc/%d/maps", pid);
    if (ipc_read_file(path, &maps, &maps_len) < 0)
        return read_error(pid, path, err, errlen);
    snprintf(path, sizeof(path), "/proc/%d/environ", pid);
    if (ipc_read_file(path, &env, &env_len) < 0) {
        rc = read_error(pid, path, err, errlen);
        free(maps);
        return rc;
    }

    /* The startup profiler: the library the environment names, if it is
     * mapped (it may have failed to load, cancelled or detached).  The name
     * is the process's own: looked up under its root and working
     * directory, and compared by path and by device and inode. */
    if (cp_startup_profiler(&(cp_env){ env, env_len }, lib, sizeof(lib), out->variable, sizeof(out->variable))) {
        struct stat st;
        int found;

        memset(&st, 0, sizeof(st));
        if (stat_in_root(pid, lib, &st) < 0)
            st.st_ino = 0;
        found = ipc_maps_find(maps, maps_len, lib, major(st.st_dev), minor(st.st_dev), (uint64_t)st.st_ino, NULL,
                              seen, sizeof(seen));
        if (found) {
            const char *slash = strrchr(seen, '/');
            out->kind = IPC_PROFILER_STARTUP;
            out->clrprobe = strcmp(slash ? slash + 1 : seen, AGENT_FILE) == 0;
            snprintf(out->path, sizeof(out->path), "%s", seen);
            goto done;
        }
    }
    out->variable[0] = '\0';
    /* clrprobe's agent, attached: mapped, with its threads running.  Mapped
     * without them, it is a library a refused attach left behind (or one
     * being unloaded after a detach): no profiler. */
    if (ipc_maps_find(maps, maps_len, NULL, 0, 0, 0, AGENT_FILE, seen, sizeof(seen))) {
        char quiet[64];
        snprintf(quiet, sizeof(quiet), CP_QUIET_SOCKET_FMT, ipc_inner_pid(pid));
        if (ipc_has_abstract_socket(pid, quiet))   /* (first: its listener is a thread of the agent's) */
            out->kind = IPC_PROFILER_CLRPROBE_QUIET;
        else if (agent_threads(pid))
            out->kind = IPC_PROFILER_CLRPROBE;
        out->clrprobe = out->kind != IPC_PROFILER_NONE;
        if (out->clrprobe)
            snprintf(out->path, sizeof(out->path), "%s", seen);
    }
done:
    free(maps);
    free(env);
    return rc;
}
