/* libc_check.c - which C library a process runs on, read from the files it
 * has mapped (/proc/PID/maps), so that an agent that cannot load there is
 * never offered to it: the agent needs glibc 2.28 or later (it is built
 * against Debian 11's C library using nothing newer, scripts/sysroot.sh),
 * and a process on musl (Alpine) cannot load a glibc library at all.  The
 * runtime says nothing useful when dlopen fails, so the command says it
 * before (docs/containers.md, "Which distributions"). */
#include "ipc/ipc_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* glibc before 2.34 installed its C library as libc-X.Y.so (libc.so.6 a link
 * to it), and the kernel names the mapped file itself; from 2.34 on the file
 * is libc.so.6.  musl's is its loader, ld-musl-ARCH.so.1 (Alpine links
 * libc.musl-ARCH.so.1 to it). */
static int classify(const char *base, ipc_libc_t *out)
{
    unsigned major, minor;
    char tail[8];

    if (!strncmp(base, "ld-musl-", 8) || !strncmp(base, "libc.musl-", 10)) {
        out->kind = IPC_LIBC_MUSL;
        return 1;
    }
    if (sscanf(base, "libc-%u.%u%7s", &major, &minor, tail) == 3 && !strcmp(tail, ".so")) {
        out->kind = IPC_LIBC_GLIBC;
        out->major = (int)major;
        out->minor = (int)minor;
        return 1;
    }
    if (!strcmp(base, "libc.so.6")) {
        out->kind = IPC_LIBC_GLIBC;
        out->major = 2;
        out->minor = 34;
        out->at_least = 1;
        return 1;
    }
    return 0;
}

int ipc_libc_from_maps(const char *maps, size_t len, ipc_libc_t *out)
{
    size_t i = 0;

    memset(out, 0, sizeof(*out));
    while (i < len) {
        const char *line = maps + i, *nl = memchr(line, '\n', len - i), *path, *base, *end;
        size_t llen = nl ? (size_t)(nl - line) : len - i;

        i += llen + 1;
        /* "start-end perms offset dev inode   path": the path is the first '/' */
        path = memchr(line, '/', llen);
        if (!path)
            continue;
        end = line + llen;
        if (end - path > 10 && !memcmp(end - 10, " (deleted)", 10))
            end -= 10;
        base = path;
        for (const char *p = path; p < end; p++)
            if (*p == '/')
                base = p + 1;
        if ((size_t)(end - path) >= sizeof(out->path) || end - base >= 64)
            continue;
        char name[64];
        memcpy(name, base, (size_t)(end - base));
        name[end - base] = '\0';
        if (classify(name, out)) {
            memcpy(out->path, path, (size_t)(end - path));
            out->path[end - path] = '\0';
            return 1;
        }
    }
    return 0;
}

int ipc_libc_refuses(const ipc_libc_t *libc, int pid, char *err, size_t errlen)
{
    if (libc->kind == IPC_LIBC_MUSL)
        return ipc_errorf(IPC_ERR_REFUSED, err, errlen,
                          "process %d runs on musl (%s, an Alpine-based image): clrprobe's agent is built for "
                          "glibc and cannot load there; profile the program in an image based on Debian, Ubuntu "
                          "or RHEL (the official mcr.microsoft.com/dotnet images without -alpine)",
                          pid, libc->path);
    if (libc->kind == IPC_LIBC_GLIBC && !libc->at_least &&
        (libc->major < IPC_LIBC_MIN_MAJOR || (libc->major == IPC_LIBC_MIN_MAJOR && libc->minor < IPC_LIBC_MIN_MINOR)))
        return ipc_errorf(IPC_ERR_REFUSED, err, errlen,
                          "process %d runs on glibc %d.%d (%s): clrprobe's agent needs glibc %d.%d or later "
                          "(RHEL 8, Debian 10, Ubuntu 20.04 and later) and cannot load there",
                          pid, libc->major, libc->minor, libc->path, IPC_LIBC_MIN_MAJOR, IPC_LIBC_MIN_MINOR);
    return IPC_OK;
}

int ipc_target_libc(int pid, ipc_libc_t *out, char *err, size_t errlen)
{
    char path[64], *maps = NULL;
    size_t len;

    memset(out, 0, sizeof(*out));
    snprintf(path, sizeof(path), "/proc/%d/maps", pid);
    if (ipc_read_file(path, &maps, &len) < 0)
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot read %s", path);
    ipc_libc_from_maps(maps, len, out);
    free(maps);
    return IPC_OK;
}
