/* in_target.c - what an attach makes where the target can reach it: the
 * private directory with the control socket the agent connects to, and,
 * for a process in a container (another mount namespace), a copy of the
 * agent in the container's own /tmp, since the runtime opens the agent by a
 * path of its own file system.  For a process of our namespaces these are
 * cli_listen_private's and the agent where it is installed; for a process
 * in a container they are made and removed from inside its namespaces
 * (ipc_ns_run), where no link its users plant can lead to our files, and
 * handed back as descriptors.  The copy is removed as soon as the runtime
 * has answered the attach: a loaded library needs no file (docs/containers.md). */
#include "cli/in_target.h"
#include "cli/cli.h"
#include "ipc/ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AGENT_NAME "libclrprobe.so"

typedef struct listen_job {
    const char *kind, *name;
    int backlog;
} listen_job;

static void listen_in_target(void *arg, ipc_ns_result *res)
{
    listen_job *j = arg;
    char dir[64], path[128];
    int dirfd;

    res->fds[0] = cli_listen_private(j->kind, j->name, j->backlog, &dirfd, dir, sizeof(dir), path, sizeof(path),
                                     res->err, sizeof(res->err));
    if (res->fds[0] < 0) {
        res->status = IPC_ERR_SYSTEM;
        res->fds[0] = -1;
        return;
    }
    res->fds[1] = dirfd;
    snprintf(res->text, sizeof(res->text), "%s", dir);
}

int target_listen_private(int pid, const char *kind, const char *name, int backlog, int *dirfd, char *dir,
                          size_t dirlen, char *path, size_t pathlen, char *err, size_t errlen)
{
    listen_job j = { kind, name, backlog };
    ipc_ns_result res;

    if (!pid)
        return cli_listen_private(kind, name, backlog, dirfd, dir, dirlen, path, pathlen, err, errlen);
    *dirfd = -1;
    dir[0] = path[0] = '\0';
    if (ipc_ns_run(pid, listen_in_target, &j, &res, err, errlen) != IPC_OK)
        return -1;
    if ((size_t)snprintf(dir, dirlen, "%s", res.text) >= dirlen ||
        (size_t)snprintf(path, pathlen, "%s/%s", res.text, name) >= pathlen) {
        snprintf(err, errlen, "the directory made in process %d's /tmp has too long a name: %s", pid, res.text);
        close(res.fds[0]);
        close(res.fds[1]);
        dir[0] = path[0] = '\0';
        return -1;
    }
    *dirfd = res.fds[1];
    return res.fds[0];
}

typedef struct unlisten_job {
    int *dirfd;
    char *dir, *path;
} unlisten_job;

static void unlisten_in_target(void *arg, ipc_ns_result *res)
{
    unlisten_job *j = arg;
    int none = -1;

    cli_unlisten_private(&none, j->dirfd, j->dir, j->path);
    res->status = IPC_OK;
}

void target_unlisten_private(int pid, int *fd, int *dirfd, char *dir, char *path)
{
    unlisten_job j = { dirfd, dir, path };
    ipc_ns_result res;
    char err[256];

    if (!pid || *dirfd < 0) {
        cli_unlisten_private(fd, dirfd, dir, path);
        return;
    }
    /* (the child removes them through the same descriptor, by the
     * container's paths; if the process is gone, so is its container's /tmp
     * most often, and the descriptors are closed all the same) */
    ipc_ns_run(pid, unlisten_in_target, &j, &res, err, sizeof(err));
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    close(*dirfd);
    *dirfd = -1;
    path[0] = dir[0] = '\0';
}

typedef struct place_job {
    int src;
} place_job;

/* Copies the agent (src, opened here before the fork) into a new private
 * directory of the container's /tmp that the target's user may enter (0711)
 * and read the agent in (0644), never through a link (O_EXCL, O_NOFOLLOW). */
static void place_in_target(void *arg, ipc_ns_result *res)
{
    place_job *j = arg;
    char dir[] = "/tmp/clrprobe-agent-XXXXXX", buf[65536];
    int dfd, fd = -1;
    off_t at = 0;
    ssize_t n;

    res->status = IPC_ERR_SYSTEM;
    if (!mkdtemp(dir)) {
        snprintf(res->err, sizeof(res->err), "cannot make a directory in the container's /tmp: %s", strerror(errno));
        return;
    }
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0 || fchmod(dfd, 0711) < 0 ||
        (fd = openat(dfd, AGENT_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0 ||
        fchmod(fd, 0644) < 0) {
        snprintf(res->err, sizeof(res->err), "cannot place the agent in the container's %s: %s", dir, strerror(errno));
        goto fail;
    }
    while ((n = pread(j->src, buf, sizeof(buf), at)) > 0) {
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(fd, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                snprintf(res->err, sizeof(res->err), "cannot copy the agent into the container's %s: %s", dir,
                         w < 0 ? strerror(errno) : "short write");
                goto fail;
            }
            done += w;
        }
        at += n;
    }
    if (n < 0 || close(fd) < 0) {
        fd = -1;
        snprintf(res->err, sizeof(res->err), "cannot copy the agent into the container's %s: %s", dir,
                 strerror(errno));
        goto fail;
    }
    res->status = IPC_OK;
    res->fds[0] = dfd;
    snprintf(res->text, sizeof(res->text), "%s", dir);
    return;
fail:
    if (fd >= 0)
        close(fd);
    if (dfd >= 0) {
        unlinkat(dfd, AGENT_NAME, 0);
        close(dfd);
    }
    rmdir(dir);     /* (ours, just made in the sticky /tmp: nobody can have put another in its place) */
}

int target_place_agent(int pid, const char *agent, target_agent *out, char *err, size_t errlen)
{
    place_job j;
    ipc_ns_result res;
    int rc;

    memset(out, 0, sizeof(*out));
    out->dirfd = -1;
    if (!pid) {
        if ((size_t)snprintf(out->path, sizeof(out->path), "%s", agent) >= sizeof(out->path)) {
            snprintf(err, errlen, "the agent's path is too long: %s", agent);
            return -1;
        }
        return 0;
    }
    j.src = open(agent, O_RDONLY | O_CLOEXEC);
    if (j.src < 0) {
        snprintf(err, errlen, "cannot read the agent %s: %s", agent, strerror(errno));
        return -1;
    }
    rc = ipc_ns_run(pid, place_in_target, &j, &res, err, errlen);
    close(j.src);
    if (rc != IPC_OK)
        return -1;
    out->pid = pid;
    out->dirfd = res.fds[0];
    if (strlen(res.text) >= sizeof(out->dir)) {   /* (mkdtemp's name: never) */
        snprintf(err, errlen, "the directory made in process %d's /tmp has too long a name", pid);
        out->dir[0] = '\0';
        target_remove_agent(out);
        return -1;
    }
    memcpy(out->dir, res.text, strlen(res.text) + 1);
    memcpy(out->path, out->dir, strlen(out->dir));
    memcpy(out->path + strlen(out->dir), "/" AGENT_NAME, sizeof("/" AGENT_NAME));
    return 0;
}

void target_remove_agent(target_agent *a)
{
    int none = -1;

    if (a->pid && a->dirfd >= 0)
        target_unlisten_private(a->pid, &none, &a->dirfd, a->dir, a->path);
    a->pid = 0;
}
