/* resolve.c - a path resolved one name at a time, every link met checked
 * against the protected_symlinks rule before it is followed (see
 * resolve.h).  The walk never asks the kernel to follow a link: each name
 * is looked at with fstatat(AT_SYMLINK_NOFOLLOW) in the directory
 * descriptor reached so far, a link's target is read with readlinkat and
 * put in front of what remains of the path, and a directory is entered
 * with openat(O_PATH | O_DIRECTORY | O_NOFOLLOW). */
#include "common/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void cp_resolved_close(cp_resolved *r)
{
    if (r->dirfd >= 0)
        close(r->dirfd);
    r->dirfd = -1;
}

/* dir '/' name into out (no doubled slash after "/"); -1 (ENAMETOOLONG) if
 * it does not fit. */
static int join(char *out, size_t cap, const char *dir, const char *name)
{
    if ((size_t)snprintf(out, cap, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name) >= cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Makes fd (a directory just entered) the current one. */
static void enter(cp_resolved *r, int fd)
{
    close(r->dirfd);
    r->dirfd = fd;
}

/* Whether the link ls at link_path, in the directory r->dirfd (whose path
 * is dir), may be followed; via is the first link followed on the way
 * there, if any.  First the kernel's may_follow_link() (protected_symlinks:
 * a sticky, world-writable directory), then ours, for what that rule does
 * not cover: a link that belongs to another user (neither us nor root),
 * who may point it anywhere at any time; and a link not ours in a
 * directory that belongs to another user, who may have put it there (or
 * renamed it there).  1: it may be followed; -1: not (why says whose it
 * is, and what to do); -2: errno. */
static int may_follow(const cp_resolved *r, const struct stat *ls, const char *dir, const char *link_path,
                      const char *via, char *why, size_t whylen)
{
    const char *through = via ? ", reached through the link " : "";
    struct stat ds;
    uid_t me = geteuid();

    if (ls->st_uid == me)
        return 1;
    if (fstat(r->dirfd, &ds) < 0)
        return -2;
    if ((ds.st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH) && ds.st_uid != ls->st_uid) {
        if (why)
            snprintf(why, whylen, "%s is a symbolic link that belongs to uid %u in %s, a directory anyone can "
                     "write to (sticky and world-writable)%s%s: someone else may have put it there, so it is not "
                     "followed; remove it or choose another path with -o", link_path, (unsigned)ls->st_uid, dir,
                     through, via ? via : "");
        return -1;
    }
    if (ls->st_uid != 0) {
        if (why)
            snprintf(why, whylen, "%s is a symbolic link that belongs to uid %u, another user%s%s: that user may "
                     "point it anywhere, so it is not followed; give the real path", link_path,
                     (unsigned)ls->st_uid, through, via ? via : "");
        return -1;
    }
    if (ds.st_uid != me && ds.st_uid != 0) {
        if (why)
            snprintf(why, whylen, "%s is a symbolic link in %s, a directory that belongs to uid %u, another "
                     "user%s%s: that user may have put it there, so it is not followed; give the real path",
                     link_path, dir, (unsigned)ds.st_uid, through, via ? via : "");
        return -1;
    }
    return 1;
}

/* Whether only slashes are left in s. */
static int only_slashes(const char *s)
{
    while (*s == '/')
        s++;
    return *s == '\0';
}

int cp_resolve(const char *path, cp_resolved *r, char *why, size_t whylen)
{
    char rest[PATH_MAX], next[PATH_MAX], target[PATH_MAX], dir[PATH_MAX], via[PATH_MAX], tmp[PATH_MAX];
    size_t pos = 0;
    int from_link = 0, e;           /* from_link: the last name of rest came from a link's target */

    memset(r, 0, sizeof(*r));
    r->dirfd = -1;
    via[0] = '\0';
    if (path[0] != '/') {
        errno = EINVAL;
        return -2;
    }
    if (strlen(path) >= sizeof(rest)) {
        errno = ENAMETOOLONG;
        return -2;
    }
    snprintf(rest, sizeof(rest), "%s", path);
    snprintf(dir, sizeof(dir), "/");
    r->dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (r->dirfd < 0)
        return -2;
    for (;;) {
        char name[NAME_MAX + 1];
        struct stat st;
        size_t start;
        int last, fd;

        while (rest[pos] == '/')
            pos++;
        if (!rest[pos]) {                   /* the path ends in a directory: "/", "/tmp/", "/tmp/." */
            if (fstat(r->dirfd, &r->st) < 0)
                goto fail;
            snprintf(r->name, sizeof(r->name), ".");
            snprintf(r->path, sizeof(r->path), "%s", dir);
            r->exists = 1;
            return 0;
        }
        start = pos;
        while (rest[pos] && rest[pos] != '/')
            pos++;
        if (pos - start > NAME_MAX) {
            errno = ENAMETOOLONG;
            goto fail;
        }
        memcpy(name, rest + start, pos - start);
        name[pos - start] = '\0';
        last = rest[pos] == '\0';           /* the last name, no slash after it */
        if (strcmp(name, ".") == 0)
            continue;
        if (strcmp(name, "..") == 0) {      /* ("/.." is "/", as for the kernel) */
            char *slash = strrchr(dir, '/');
            if ((fd = openat(r->dirfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                goto fail;
            enter(r, fd);
            slash[slash == dir ? 1 : 0] = '\0';
            continue;
        }
        if (fstatat(r->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            if (errno != ENOENT || !last)
                goto fail;
            /* Nothing there yet: the name to create, in this directory. */
            snprintf(r->name, sizeof(r->name), "%s", name);
            if (join(r->path, sizeof(r->path), dir, name) < 0)
                goto fail;
            r->dangling = from_link;
            return 0;
        }
        if (S_ISLNK(st.st_mode)) {
            char link_path[PATH_MAX];
            ssize_t n;
            int ok;

            if (join(link_path, sizeof(link_path), dir, name) < 0)
                goto fail;
            ok = may_follow(r, &st, dir, link_path, via[0] ? via : NULL, why, whylen);
            if (ok == -2)
                goto fail;
            if (ok < 0) {
                cp_resolved_close(r);
                return -1;
            }
            if (++r->links > CP_LINK_HOPS_MAX) {
                errno = ELOOP;
                goto fail;
            }
            if (!via[0])
                snprintf(via, sizeof(via), "%s", link_path);
            n = readlinkat(r->dirfd, name, target, sizeof(target));
            if (n < 0)
                goto fail;
            if ((size_t)n >= sizeof(target)) {
                errno = ENAMETOOLONG;
                goto fail;
            }
            if (n == 0) {                   /* an empty link leads nowhere */
                errno = ENOENT;
                goto fail;
            }
            target[n] = '\0';
            /* The link's target takes its place; what followed the link
             * stays after it.  When nothing followed, the last name is
             * now one of the target's. */
            if ((size_t)snprintf(next, sizeof(next), "%s%s", target, rest + pos) >= sizeof(next)) {
                errno = ENAMETOOLONG;
                goto fail;
            }
            if (only_slashes(rest + pos))
                from_link = 1;
            memcpy(rest, next, strlen(next) + 1);
            pos = 0;
            if (target[0] == '/') {         /* an absolute target starts again at the root */
                if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                    goto fail;
                enter(r, fd);
                snprintf(dir, sizeof(dir), "/");
            }
            continue;
        }
        if (last) {                         /* the object itself (not a link) */
            snprintf(r->name, sizeof(r->name), "%s", name);
            if (join(r->path, sizeof(r->path), dir, name) < 0)
                goto fail;
            r->st = st;
            r->exists = 1;
            return 0;
        }
        if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            goto fail;
        }
        /* Enter it without following anything: a link put there since the
         * fstatat fails here (ENOTDIR) instead of being followed. */
        if ((fd = openat(r->dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
            goto fail;
        enter(r, fd);
        if (join(tmp, sizeof(tmp), dir, name) < 0)
            goto fail;
        memcpy(dir, tmp, strlen(tmp) + 1);
    }
fail:
    e = errno;
    cp_resolved_close(r);
    errno = e;
    return -2;
}
