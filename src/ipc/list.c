/* list.c - finds the live .NET processes by their diagnostics sockets in
 * our $TMPDIR and in /tmp, and those in containers (other mount or network
 * namespaces) by their runtime's mapping and their socket in their own
 * TMPDIR: stale sockets (the process is gone, or the pid now belongs to a
 * later process) and another user's (trust.c) are skipped, one socket is
 * kept per pid. */
#include "ipc/ipc_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct found {
    ipc_endpoint_t ep;
    int currency;       /* 2 = key matches the starttime, 1 = by time */
    int64_t mtime;
} found_t;

typedef struct found_list {
    found_t *v;
    size_t n, cap;
} found_list_t;

/* Adds or improves the entry for ep.pid; -1 when out of memory. */
static int add_found(found_list_t *l, const ipc_endpoint_t *ep, int currency, int64_t mtime)
{
    size_t i;

    for (i = 0; i < l->n; i++) {
        found_t *f = &l->v[i];
        if (f->ep.pid != ep->pid)
            continue;
        if (currency > f->currency || (currency == f->currency && mtime > f->mtime)) {
            f->ep = *ep;
            f->currency = currency;
            f->mtime = mtime;
        }
        return 0;
    }
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        found_t *nv = realloc(l->v, ncap * sizeof(*nv));
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n].ep = *ep;
    l->v[l->n].currency = currency;
    l->v[l->n].mtime = mtime;
    l->n++;
    return 0;
}

static int scan_dir(const char *dir, found_list_t *l)
{
    char full[PATH_MAX];
    struct dirent *de;
    struct stat st;
    uint64_t key, starttime;
    unsigned euid, fsuid;
    int pid, cur;
    DIR *d = opendir(dir);

    if (!d)
        return 0;       /* unreadable or missing: nothing to see there */
    while ((de = readdir(d)) != NULL) {
        ipc_endpoint_t ep;

        if (ipc_parse_socket_name(de->d_name, &pid, &key) < 0)
            continue;
        if ((size_t)snprintf(full, sizeof(full), "%s/%s", strcmp(dir, "/") ? dir : "", de->d_name) >=
            sizeof(ep.path))
            continue;
        if (lstat(full, &st) < 0 || !S_ISSOCK(st.st_mode))
            continue;
        if (ipc_process_starttime(pid, &starttime) != IPC_OK)
            continue;
        cur = ipc_socket_currency(pid, key, (int64_t)st.st_mtime, starttime);
        if (!cur || ipc_process_uids(pid, &euid, &fsuid) != IPC_OK)
            continue;
        if (!ipc_socket_owner_ok((unsigned)st.st_uid, euid, fsuid)) {
            char line[IPC_PATH_MAX + 256];
            ipc_fake_text(full, pid, (unsigned)st.st_uid, fsuid, line, sizeof(line));
            ipc_warn_once((uint64_t)st.st_dev, (uint64_t)st.st_ino, line);
            continue;                    /* another user's socket named for the process */
        }
        memset(&ep, 0, sizeof(ep));
        ep.pid = pid;
        ep.key = key;
        ep.uid = st.st_uid;
        strcpy(ep.path, full);
        if (add_found(l, &ep, cur, (int64_t)st.st_mtime) < 0) {
            closedir(d);
            return -1;
        }
    }
    closedir(d);
    return 0;
}

/* The processes of other mount or network namespaces whose runtime is
 * mapped: their sockets are looked for in their own TMPDIR, from inside
 * their namespaces (ipc_socket_path).  Those of ours were found above. */
static int scan_containers(found_list_t *l)
{
    DIR *d = opendir("/proc");
    struct dirent *de;

    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL) {
        char path[64], where[PATH_MAX], *maps;
        size_t len;
        ipc_endpoint_t ep;
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        int dotnet;

        if (*end || pid <= 0 || pid > INT_MAX || pid == getpid() || !ipc_ns_foreign((int)pid))
            continue;
        snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
        if (ipc_read_file(path, &maps, &len) < 0)
            continue;
        dotnet = ipc_maps_find(maps, len, NULL, 0, 0, 0, "libcoreclr.so", where, sizeof(where));
        free(maps);
        if (!dotnet)
            continue;
        memset(&ep, 0, sizeof(ep));
        if (ipc_socket_path((int)pid, ep.path, sizeof(ep.path), where, sizeof(where)) != IPC_OK)
            continue;   /* diagnostics disabled, or gone meanwhile */
        ep.pid = (int)pid;
        ep.in_container = 1;
        if (add_found(l, &ep, 2, 0) < 0) {
            closedir(d);
            return -1;
        }
    }
    closedir(d);
    return 0;
}

static int by_pid(const void *a, const void *b)
{
    int x = ((const ipc_endpoint_t *)a)->pid, y = ((const ipc_endpoint_t *)b)->pid;
    return (x > y) - (x < y);
}

int ipc_list_processes(ipc_endpoint_t **out, size_t *count, char *err, size_t errlen)
{
    const char *tmpdir = getenv("TMPDIR");
    char dirs[2][PATH_MAX];
    struct stat st[2];
    int ndirs = 0, i, have_st[2] = { 0, 0 };
    found_list_t l = { NULL, 0, 0 };
    ipc_endpoint_t *eps;
    size_t k;

    *out = NULL;
    *count = 0;
    if (tmpdir && tmpdir[0] && strlen(tmpdir) < PATH_MAX) {
        size_t n;
        strcpy(dirs[ndirs], tmpdir);
        n = strlen(dirs[ndirs]);
        while (n > 1 && dirs[ndirs][n - 1] == '/')
            dirs[ndirs][--n] = '\0';
        ndirs++;
    }
    strcpy(dirs[ndirs++], "/tmp");
    for (i = 0; i < ndirs; i++) {
        have_st[i] = stat(dirs[i], &st[i]) == 0;
        if (i == 1 && have_st[0] && have_st[1] && st[0].st_dev == st[1].st_dev && st[0].st_ino == st[1].st_ino)
            continue;   /* $TMPDIR is /tmp */
        if (scan_dir(dirs[i], &l) < 0) {
            free(l.v);
            return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "out of memory");
        }
    }
    if (scan_containers(&l) < 0) {
        free(l.v);
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "out of memory");
    }
    if (!l.n) {
        free(l.v);
        return IPC_OK;
    }
    eps = malloc(l.n * sizeof(*eps));
    if (!eps) {
        free(l.v);
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "out of memory");
    }
    for (k = 0; k < l.n; k++) {
        eps[k] = l.v[k].ep;
        eps[k].inner_pid = ipc_inner_pid(eps[k].pid);
        ipc_container_id(eps[k].pid, eps[k].container);
    }
    free(l.v);
    qsort(eps, l.n, sizeof(*eps), by_pid);
    *out = eps;
    *count = l.n;
    return IPC_OK;
}
