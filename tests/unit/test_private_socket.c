/* test_private_socket.c - the private directory and socket that attach's
 * control channel and run's followed processes listen on (cli/util.c):
 * what the other user, who may connect to it, could do between its
 * creation and its hand-over or removal, done here at that very step. */
#include "unit.h"
#include "cli/cli.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* A directory of the test's own with a file "ctl" in it: what a link
 * planted by the other user would lead root to. */
static int make_victim(char *dir, size_t cap, char *file, size_t fcap)
{
    int fd;

    snprintf(dir, cap, "/tmp/clrprobe-unit-victim-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(file, fcap, "%s/ctl", dir);
    fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static void remove_victim(const char *dir, const char *file)
{
    unlink(file);
    rmdir(dir);
}

TEST(private_socket_is_0600_in_a_0700_directory)
{
    char dir[64], path[128], err[256];
    struct stat st;
    int dirfd = -1, fd = cli_listen_private("unit", "ctl", 1, &dirfd, dir, sizeof(dir), path, sizeof(path), err,
                                            sizeof(err));

    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(dirfd >= 0);
    CHECK(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode));
    CHECK_EQ(0600, st.st_mode & 07777);
    CHECK(lstat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_EQ(0700, st.st_mode & 07777);
    cli_unlisten_private(&fd, &dirfd, dir, path);
    CHECK_EQ(-1, fd);
    CHECK_EQ(-1, dirfd);
    CHECK(dir[0] == '\0' && path[0] == '\0');
}

/* Root gives the socket to the target's user; that user had replaced it
 * with a link to a file of root's between the socket's creation and the
 * hand-over.  The link is not followed, and the directory stays root's. */
TEST(private_socket_given_away_without_following_a_planted_link)
{
    char dir[64], path[128], err[256], vdir[64], victim[96], keep[64];
    struct stat st;
    int dirfd = -1, fd;

    if (geteuid() != 0) {
        printf("  (skipped: needs root to give a file to another user)\n");
        return;
    }
    CHECK(make_victim(vdir, sizeof(vdir), victim, sizeof(victim)) == 0);
    fd = cli_listen_private("unit", "ctl", 1, &dirfd, dir, sizeof(dir), path, sizeof(path), err, sizeof(err));
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    snprintf(keep, sizeof(keep), "%s", dir);
    /* the attacker's step */
    CHECK(unlink(path) == 0);
    CHECK(symlink(victim, path) == 0);

    cli_private_give(dirfd, "ctl", 65534);
    CHECK(stat(victim, &st) == 0);
    CHECK_EQ(0, st.st_uid);                   /* root's file is still root's */
    CHECK(stat(keep, &st) == 0);
    CHECK_EQ(0, st.st_uid);                   /* the directory is never given away */
    CHECK_EQ(0711, st.st_mode & 07777);
    CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    cli_unlisten_private(&fd, &dirfd, dir, path);
    CHECK(lstat(keep, &st) < 0);               /* (the link in it was removed, then the directory) */
    CHECK(stat(victim, &st) == 0);             /* and not what it led to */
    remove_victim(vdir, victim);
}

/* The hand-over of a socket: the user becomes its owner, nothing else changes. */
TEST(private_socket_given_away_is_the_users)
{
    char dir[64], path[128], err[256];
    struct stat st;
    int dirfd = -1, fd;

    if (geteuid() != 0) {
        printf("  (skipped: needs root to give a file to another user)\n");
        return;
    }
    fd = cli_listen_private("unit", "ctl", 1, &dirfd, dir, sizeof(dir), path, sizeof(path), err, sizeof(err));
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK_EQ(0, cli_private_give(dirfd, "ctl", 65534));
    CHECK(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode));
    CHECK_EQ(65534, st.st_uid);
    CHECK_EQ(0600, st.st_mode & 07777);
    cli_unlisten_private(&fd, &dirfd, dir, path);
}

/* The directory's name is moved away and a link to another directory put
 * in its place before the cleanup: the cleanup removes the socket in the
 * directory it made, and neither follows the link nor removes it. */
TEST(private_socket_cleanup_does_not_follow_a_link_at_the_directorys_name)
{
    char dir[64], path[128], err[256], vdir[64], victim[96], moved[80];
    struct stat st;
    int dirfd = -1, fd;

    CHECK(make_victim(vdir, sizeof(vdir), victim, sizeof(victim)) == 0);
    fd = cli_listen_private("unit", "ctl", 1, &dirfd, dir, sizeof(dir), path, sizeof(path), err, sizeof(err));
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    snprintf(moved, sizeof(moved), "%s-moved", dir);
    CHECK(rename(dir, moved) == 0);
    CHECK(symlink(vdir, dir) == 0);

    {
        char keep[64];
        snprintf(keep, sizeof(keep), "%s", dir);
        cli_unlisten_private(&fd, &dirfd, dir, path);
        CHECK(stat(victim, &st) == 0);         /* the file the link led to is still there */
        CHECK(lstat(keep, &st) == 0 && S_ISLNK(st.st_mode));
        unlink(keep);
    }
    snprintf(path, sizeof(path), "%s/ctl", moved);
    CHECK(lstat(path, &st) < 0);               /* our socket was removed where it is */
    rmdir(moved);
    remove_victim(vdir, victim);
}
