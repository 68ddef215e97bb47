/* test_handover.c - the anonymous file another user's process records
 * into and its copy into the command's own file (cli/util.c): the copy
 * takes the file's size, never its allocation, and gives back what it
 * copied. */
#include "unit.h"
#include "cli/cli.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TEST(handover_file_is_anonymous_and_the_users)
{
    char dir[] = "/tmp/clrprobe-unit-handover-XXXXXX", link[64], path[128];
    struct stat st;
    int dfd, fd;

    CHECK(mkdtemp(dir) != NULL);
    dfd = open(dir, O_PATH | O_DIRECTORY);
    fd = cli_handover_open(dfd, geteuid() == 0 ? 65534 : geteuid());
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(fstat(fd, &st) == 0);
        CHECK_EQ(0, st.st_nlink);                       /* in no directory */
        CHECK_EQ(0600, st.st_mode & 07777);
        CHECK_EQ(geteuid() == 0 ? 65534 : geteuid(), st.st_uid);
        /* and it cannot be put in one (O_TMPFILE | O_EXCL) */
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        snprintf(path, sizeof(path), "%s/linked", dir);
        CHECK(linkat(AT_FDCWD, link, AT_FDCWD, path, AT_SYMLINK_FOLLOW) < 0);
        unlink(path);
        close(fd);
    }
    close(dfd);
    CHECK(rmdir(dir) == 0);                              /* nothing was left in it */
}

TEST(handover_copy_takes_the_size_not_the_reserve)
{
    char from_name[] = "/tmp/clrprobe-unit-from-XXXXXX", to_name[] = "/tmp/clrprobe-unit-to-XXXXXX";
    char buf[10000], back[10001];
    struct stat st;
    off_t copied = -1;
    blkcnt_t blocks;
    int from = mkstemp(from_name), to = mkstemp(to_name);

    CHECK(from >= 0 && to >= 0);
    unlink(from_name);
    unlink(to_name);
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (char)('a' + i % 26);
    CHECK_EQ((ssize_t)sizeof(buf), write(from, buf, sizeof(buf)));
    /* the agent's reserve past the end (where the file system has it) */
    if (fallocate(from, FALLOC_FL_KEEP_SIZE, (off_t)sizeof(buf), 1 << 20) < 0)
        printf("  (no reserve: fallocate is not supported here)\n");
    CHECK(fstat(from, &st) == 0);
    blocks = st.st_blocks;
    CHECK_EQ(0, cli_handover_take(from, to, &copied));
    CHECK_EQ((long long)sizeof(buf), copied);
    CHECK(fstat(to, &st) == 0);
    CHECK_EQ((long long)sizeof(buf), st.st_size);
    CHECK_EQ((ssize_t)sizeof(buf), pread(to, back, sizeof(back), 0));
    CHECK(memcmp(buf, back, sizeof(buf)) == 0);
    /* what was copied is given back: the original keeps its size, not its blocks */
    CHECK(fstat(from, &st) == 0);
    CHECK_EQ((long long)sizeof(buf), st.st_size);
    CHECK(st.st_blocks < blocks);
    close(from);
    close(to);
}

/* A file its owner made large without writing (ftruncate: a hole) costs
 * that owner nothing; its copy would fill our disk with zeros.  The agent
 * only appends, so the copy ends at the first hole. */
TEST(handover_copy_ends_at_a_hole)
{
    char from_name[] = "/tmp/clrprobe-unit-from-XXXXXX", to_name[] = "/tmp/clrprobe-unit-to-XXXXXX";
    char buf[8192];
    struct stat st;
    off_t copied = -1;
    int from = mkstemp(from_name), to = mkstemp(to_name);

    CHECK(from >= 0 && to >= 0);
    unlink(from_name);
    unlink(to_name);
    memset(buf, 'x', sizeof(buf));
    CHECK_EQ((ssize_t)sizeof(buf), write(from, buf, sizeof(buf)));
    CHECK(ftruncate(from, (off_t)1 << 30) == 0);           /* 1 GiB, almost all of it a hole */
    if (lseek(from, 0, SEEK_HOLE) >= (off_t)1 << 30) {
        printf("  (no holes reported by this file system: nothing to check)\n");
    } else {
        CHECK_EQ(0, cli_handover_take(from, to, &copied));
        CHECK(copied >= (off_t)sizeof(buf) && copied <= 65536);
        CHECK(fstat(to, &st) == 0);
        CHECK_EQ((long long)copied, st.st_size);
    }
    close(from);
    close(to);
}
