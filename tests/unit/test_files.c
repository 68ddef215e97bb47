/* test_files.c - the file rules shared by the agent and the command:
 * resolving a path link by link under the protected_symlinks rule
 * (common/resolve.c), and the checks of common/files.c that what was
 * opened by name is what was examined, and that a temporary file made in a
 * directory descriptor is new and private.  Each test works in a fresh
 * directory under /tmp, removed at its end. */
#include "unit.h"
#include "common/files.h"
#include "common/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[64];

/* A fresh directory for one test: base. */
static void make_base(void)
{
    unit_temp_dir(base, sizeof(base), "files");
}

static void remove_base(void)
{
    unit_remove_tree(base);
}

/* base/rel into a static buffer. */
static const char *at(const char *rel)
{
    static char buf[4][PATH_MAX];
    static int next;
    char *b = buf[next++ % 4];
    if ((size_t)snprintf(b, PATH_MAX, "%s/%s", base, rel) >= PATH_MAX)
        b[0] = '\0';
    return b;
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd >= 0)
        close(fd);
}

/* Resolves path; returns cp_resolve's result and keeps errno in *err. */
static int resolve(const char *path, cp_resolved *r, char *why, size_t whylen, int *err)
{
    int rc;
    errno = 0;
    rc = cp_resolve(path, r, why, whylen);
    *err = errno;
    return rc;
}

TEST(resolve_follows_links_one_at_a_time)
{
    cp_resolved r;
    char why[1024], target[PATH_MAX];
    struct stat st, via_fd;
    int err;

    make_base();
    CHECK(base[0]);
    mkdir(at("d"), 0755);
    mkdir(at("e"), 0755);
    touch(at("e/file"));
    /* a relative link with "..", then an absolute one */
    CHECK_EQ(symlink("../e", at("d/up")), 0);
    CHECK_EQ(symlink(at("d/up/file"), at("abs")), 0);
    CHECK_EQ(resolve(at("abs"), &r, why, sizeof(why), &err), 0);
    CHECK_STR(r.path, at("e/file"));
    CHECK_STR(r.name, "file");
    CHECK_EQ(r.exists, 1);
    CHECK_EQ(r.links, 2);
    CHECK(stat(at("e/file"), &st) == 0 && r.st.st_ino == st.st_ino);
    /* the descriptor is the file's directory */
    CHECK(fstatat(r.dirfd, r.name, &via_fd, AT_SYMLINK_NOFOLLOW) == 0 && via_fd.st_ino == st.st_ino);
    cp_resolved_close(&r);
    CHECK_EQ(r.dirfd, -1);

    /* a name that does not exist yet, after a link to its directory */
    CHECK_EQ(resolve(at("d/up/new"), &r, why, sizeof(why), &err), 0);
    CHECK_STR(r.path, at("e/new"));
    CHECK_EQ(r.exists, 0);
    CHECK_EQ(r.dangling, 0);
    cp_resolved_close(&r);

    /* a link to nothing: dangling, also behind a second link */
    CHECK_EQ(symlink("e/missing", at("nothing")), 0);
    CHECK_EQ(symlink("nothing", at("to-nothing")), 0);
    CHECK_EQ(resolve(at("to-nothing"), &r, why, sizeof(why), &err), 0);
    CHECK_EQ(r.exists, 0);
    CHECK_EQ(r.dangling, 1);
    CHECK_STR(r.path, at("e/missing"));
    cp_resolved_close(&r);

    /* a directory named by its own path */
    CHECK_EQ(resolve(at("d/up/"), &r, why, sizeof(why), &err), 0);
    CHECK(S_ISDIR(r.st.st_mode));
    CHECK_STR(r.name, ".");
    CHECK_STR(r.path, at("e"));
    cp_resolved_close(&r);
    CHECK_EQ(resolve("/..", &r, why, sizeof(why), &err), 0);
    CHECK_STR(r.path, "/");
    cp_resolved_close(&r);

    /* what cannot be resolved */
    CHECK_EQ(resolve(at("no-dir/x"), &r, why, sizeof(why), &err), -2);
    CHECK_EQ(err, ENOENT);
    CHECK_EQ(r.dirfd, -1);
    CHECK_EQ(resolve(at("e/file/x"), &r, why, sizeof(why), &err), -2);
    CHECK_EQ(err, ENOTDIR);
    CHECK_EQ(resolve("relative", &r, why, sizeof(why), &err), -2);
    CHECK_EQ(err, EINVAL);

    /* a loop, and the hop limit: 40 links are followed, 41 are not */
    CHECK_EQ(symlink("loop-b", at("loop-a")), 0);
    CHECK_EQ(symlink("loop-a", at("loop-b")), 0);
    CHECK_EQ(resolve(at("loop-a"), &r, why, sizeof(why), &err), -2);
    CHECK_EQ(err, ELOOP);
    for (int i = 1; i <= CP_LINK_HOPS_MAX + 1; i++) {
        char name[32];
        snprintf(name, sizeof(name), "hop%d", i);
        snprintf(target, sizeof(target), i == 1 ? "e/file" : "hop%d", i - 1);
        CHECK_EQ(symlink(target, at(name)), 0);
    }
    snprintf(target, sizeof(target), "hop%d", CP_LINK_HOPS_MAX);
    CHECK_EQ(resolve(at(target), &r, why, sizeof(why), &err), 0);
    CHECK_EQ(r.links, CP_LINK_HOPS_MAX);
    CHECK_STR(r.path, at("e/file"));
    cp_resolved_close(&r);
    snprintf(target, sizeof(target), "hop%d", CP_LINK_HOPS_MAX + 1);
    CHECK_EQ(resolve(at(target), &r, why, sizeof(why), &err), -2);
    CHECK_EQ(err, ELOOP);
    remove_base();
}

/* The protected_symlinks rule at every link met: needs root, to give a
 * link to another user (lchown). */
TEST(resolve_applies_the_link_rule_at_every_hop)
{
    cp_resolved r;
    char why[2048];
    int err;

    if (geteuid() != 0) {
        printf("    (skipped: needs root to make another user's link)\n");
        return;
    }
    make_base();
    CHECK(base[0]);
    mkdir(at("sticky"), 0755);
    CHECK_EQ(chmod(at("sticky"), 01777), 0);
    mkdir(at("rootdir"), 0755);
    touch(at("rootfile"));
    /* another user's links in the sticky directory */
    CHECK_EQ(symlink(at("rootfile"), at("sticky/p2")), 0);
    CHECK_EQ(lchown(at("sticky/p2"), 65534, 65534), 0);
    CHECK_EQ(symlink(at("rootdir"), at("sticky/d")), 0);
    CHECK_EQ(lchown(at("sticky/d"), 65534, 65534), 0);

    /* named directly */
    CHECK_EQ(resolve(at("sticky/p2"), &r, why, sizeof(why), &err), -1);
    CHECK(strstr(why, "sticky/p2 is a symbolic link that belongs to uid 65534 in ") != NULL);
    CHECK_EQ(r.dirfd, -1);
    /* reached through a link of our own */
    CHECK_EQ(symlink(at("sticky/p2"), at("mylink")), 0);
    why[0] = '\0';
    CHECK_EQ(resolve(at("mylink"), &r, why, sizeof(why), &err), -1);
    CHECK(strstr(why, "sticky/p2 is a symbolic link that belongs to uid 65534") != NULL);
    CHECK(strstr(why, "reached through the link ") != NULL && strstr(why, "/mylink") != NULL);
    /* inside a link's target: a directory on the way */
    CHECK_EQ(symlink(at("sticky/d/new.txt"), at("mylink2")), 0);
    CHECK_EQ(resolve(at("mylink2"), &r, why, sizeof(why), &err), -1);
    CHECK(strstr(why, "sticky/d is a symbolic link that belongs to uid 65534") != NULL);
    /* and through a relative link's target */
    CHECK_EQ(symlink("sticky/./p2", at("mylink3")), 0);
    CHECK_EQ(resolve(at("mylink3"), &r, why, sizeof(why), &err), -1);

    /* a link of the directory's owner, or ours, is followed */
    CHECK_EQ(symlink(at("rootfile"), at("sticky/owners")), 0);
    CHECK_EQ(resolve(at("sticky/owners"), &r, why, sizeof(why), &err), 0);
    CHECK_STR(r.path, at("rootfile"));
    cp_resolved_close(&r);
    /* another user's link outside a sticky, world-writable directory: that
     * user may point it anywhere */
    CHECK_EQ(symlink(at("rootfile"), at("others")), 0);
    CHECK_EQ(lchown(at("others"), 65534, 65534), 0);
    why[0] = '\0';
    CHECK_EQ(resolve(at("others"), &r, why, sizeof(why), &err), -1);
    CHECK(strstr(why, "/others is a symbolic link that belongs to uid 65534, another user") != NULL);
    CHECK(strstr(why, "give the real path") != NULL);
    CHECK_EQ(r.dirfd, -1);
    /* in another user's directory: that user's link to a directory, and a
     * link not ours that lies there (root's, which nobody may have renamed
     * there); ours is followed */
    mkdir(at("nobodys"), 0755);
    CHECK_EQ(chown(at("nobodys"), 65534, 65534), 0);
    CHECK_EQ(symlink(at("rootdir"), at("nobodys/dir-link")), 0);
    CHECK_EQ(lchown(at("nobodys/dir-link"), 65534, 65534), 0);
    CHECK_EQ(resolve(at("nobodys/dir-link/new.txt"), &r, why, sizeof(why), &err), -1);
    CHECK(strstr(why, "nobodys/dir-link is a symbolic link that belongs to uid 65534") != NULL);
    CHECK_EQ(symlink(at("rootfile"), at("nobodys/roots")), 0);
    CHECK_EQ(lchown(at("nobodys/roots"), 0, 0), 0);
    if (geteuid() == 0) {                   /* (as root, root's link is ours: followed) */
        CHECK_EQ(resolve(at("nobodys/roots"), &r, why, sizeof(why), &err), 0);
        cp_resolved_close(&r);
    }
    /* a plain path through another user's directory has no link to refuse */
    CHECK_EQ(resolve(at("nobodys/new.txt"), &r, why, sizeof(why), &err), 0);
    CHECK_EQ(r.exists, 0);
    cp_resolved_close(&r);
    remove_base();
}

/* A link that is not ours in another user's directory, seen as a user
 * other than root and that user: the effective uid is changed for the
 * check (root only). */
TEST(resolve_refuses_links_in_other_users_directories)
{
    cp_resolved r;
    char why[2048];
    int err, rc;

    if (geteuid() != 0) {
        printf("    (skipped: needs root to make other users' files)\n");
        return;
    }
    make_base();
    CHECK(base[0]);
    CHECK_EQ(chmod(base, 0755), 0);
    mkdir(at("nobodys"), 0755);
    CHECK_EQ(chown(at("nobodys"), 65534, 65534), 0);
    touch(at("file"));
    CHECK_EQ(symlink(at("file"), at("nobodys/roots")), 0);   /* root's link, in nobody's directory */
    CHECK_EQ(symlink(at("file"), at("roots")), 0);           /* root's link, in root's directory */
    mkdir(at("mine"), 0755);
    CHECK_EQ(chown(at("mine"), 1234, 1234), 0);
    CHECK_EQ(symlink(at("file"), at("mine/own")), 0);        /* uid 1234's own link in its directory */
    CHECK_EQ(lchown(at("mine/own"), 1234, 1234), 0);
    CHECK_EQ(setegid(1234), 0);
    CHECK_EQ(seteuid(1234), 0);
    why[0] = '\0';
    rc = resolve(at("nobodys/roots"), &r, why, sizeof(why), &err);
    if (rc == 0)
        cp_resolved_close(&r);
    CHECK_EQ(rc, -1);
    CHECK(strstr(why, "nobodys/roots is a symbolic link in ") != NULL);
    CHECK(strstr(why, "a directory that belongs to uid 65534, another user") != NULL);
    rc = resolve(at("roots"), &r, why, sizeof(why), &err);       /* root's links in root's directories */
    if (rc == 0)
        cp_resolved_close(&r);
    CHECK_EQ(rc, 0);
    rc = resolve(at("mine/own"), &r, why, sizeof(why), &err);    /* one's own */
    if (rc == 0)
        cp_resolved_close(&r);
    CHECK_EQ(rc, 0);
    CHECK_EQ(seteuid(0), 0);
    CHECK_EQ(setegid(0), 0);
    remove_base();
}

TEST(same_object_refuses_what_was_not_examined)
{
    struct stat null_st, zero_st, a_st;
    int fd;

    CHECK_EQ(stat("/dev/null", &null_st), 0);
    CHECK_EQ(stat("/dev/zero", &zero_st), 0);
    fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    CHECK_EQ(cp_file_same_object(fd, &null_st), 1);
    CHECK_EQ(cp_file_same_object(fd, &zero_st), 0);     /* another device put at the name */
    close(fd);

    /* a regular file put where the checked FIFO was */
    make_base();
    CHECK(base[0]);
    CHECK_EQ(mkfifo(at("fifo"), 0600), 0);
    CHECK_EQ(lstat(at("fifo"), &a_st), 0);
    CHECK_EQ(unlink(at("fifo")), 0);
    touch(at("fifo"));
    fd = open(at("fifo"), O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    CHECK(fd >= 0);
    CHECK_EQ(cp_file_same_object(fd, &a_st), 0);
    close(fd);
    /* the same inode with another type cannot be made; the type is compared
     * all the same */
    CHECK_EQ(lstat(at("fifo"), &a_st), 0);
    fd = open(at("fifo"), O_RDONLY | O_CLOEXEC);
    CHECK_EQ(cp_file_same_object(fd, &a_st), 1);
    a_st.st_mode = (a_st.st_mode & ~S_IFMT) | S_IFIFO;
    CHECK_EQ(cp_file_same_object(fd, &a_st), 0);
    close(fd);
    CHECK_EQ(cp_file_same_object(-1, &a_st), -1);
    remove_base();
}

TEST(temp_file_in_a_directory_descriptor)
{
    char name[64], name2[64];
    struct stat st;
    int dirfd, fd, fd2;
    mode_t old = umask(0);

    make_base();
    CHECK(base[0]);
    dirfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
    CHECK(dirfd >= 0);
    snprintf(name, sizeof(name), "out.partial-XXXXXX");
    fd = cp_file_create_temp_at(dirfd, name);
    CHECK(fd >= 0);
    CHECK(strncmp(name, "out.partial-", 12) == 0 && strcmp(name + 12, "XXXXXX") != 0);
    CHECK(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode));
    CHECK_EQ(st.st_mode & 07777, 0600);
    CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    CHECK_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
    snprintf(name2, sizeof(name2), "out.partial-XXXXXX");
    fd2 = cp_file_create_temp_at(dirfd, name2);
    CHECK(fd2 >= 0 && strcmp(name, name2) != 0);
    snprintf(name2, sizeof(name2), "no-template");
    CHECK_EQ(cp_file_create_temp_at(dirfd, name2), -1);
    CHECK_EQ(errno, EINVAL);
    close(fd);
    close(fd2);
    close(dirfd);
    umask(old);
    remove_base();
}

/* /proc/self/comm is an empty regular file of ours that can be written:
 * only its file system tells that writing it renames the thread. */
TEST(check_fresh_refuses_pseudo_file_systems)
{
    char err[512], name[64];
    int fd, dirfd;

    fd = open("/proc/self/comm", O_WRONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    CHECK(cp_file_pseudo_fs(fd) != NULL && strcmp(cp_file_pseudo_fs(fd), "procfs") == 0);
    CHECK_EQ(cp_file_check_fresh(fd, "the trace file /proc/self/comm", 1, err, sizeof(err)), -1);
    CHECK(strcmp(err, "the trace file /proc/self/comm is on procfs, a pseudo file system; give a file on a real "
                 "file system") == 0);
    close(fd);
    dirfd = open("/sys/kernel", O_PATH | O_DIRECTORY | O_CLOEXEC);
    CHECK(dirfd < 0 || strcmp(cp_file_pseudo_fs(dirfd), "sysfs") == 0);
    if (dirfd >= 0)
        close(dirfd);

    make_base();
    CHECK(base[0]);
    dirfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
    CHECK(dirfd >= 0);
    CHECK(cp_file_pseudo_fs(dirfd) == NULL);
    snprintf(name, sizeof(name), "t.clrp-XXXXXX");
    fd = cp_file_create_temp_at(dirfd, name);
    CHECK(fd >= 0);
    CHECK(cp_file_pseudo_fs(fd) == NULL);
    CHECK_EQ(cp_file_check_fresh(fd, "the trace file", 1, err, sizeof(err)), 0);
    close(fd);
    close(dirfd);
    remove_base();
}
