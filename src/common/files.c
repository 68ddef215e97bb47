/* files.c - exclusive, private, non-following, non-blocking file creation
 * and opening (see files.h). */
#include "common/files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

int cp_file_create(const char *path, int read_too)
{
    return open(path, (read_too ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                CP_FILE_MODE);
}

int cp_file_create_temp(char *templ)
{
    /* mkostemp creates with O_CREAT|O_EXCL (so never through a link) and
     * mode 0600. */
    return mkostemp(templ, O_CLOEXEC);
}

const char *cp_file_kind(mode_t mode)
{
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a regular file";
}

int cp_file_create_temp_at(int dirfd, char *name)
{
    static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    size_t len = strlen(name);
    char *x;

    if (len < 6 || strcmp(name + len - 6, "XXXXXX") != 0) {
        errno = EINVAL;
        return -1;
    }
    x = name + len - 6;
    /* As mkostemp: random names until one is free; O_EXCL never opens
     * (or follows) what is there. */
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        unsigned char rnd[6];
        int fd;

        if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
            struct timespec ts;
            uint64_t v;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            v = ((uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32)) + attempt * 0x9E3779B97F4A7C15ull;
            for (size_t i = 0; i < sizeof(rnd); i++)
                rnd[i] = (unsigned char)(v >> (8 * i));
        }
        for (size_t i = 0; i < sizeof(rnd); i++)
            x[i] = letters[rnd[i] % (sizeof(letters) - 1)];
        fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, CP_FILE_MODE);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

int cp_file_same_object(int fd, const struct stat *checked)
{
    struct stat now;

    if (fstat(fd, &now) < 0)
        return -1;
    return now.st_dev == checked->st_dev && now.st_ino == checked->st_ino &&
           (now.st_mode & S_IFMT) == (checked->st_mode & S_IFMT);
}

/* File systems whose files are the kernel's interfaces, not storage: a
 * "file" there that looks like an empty regular file (/proc/self/comm, a
 * sysfs attribute) does something when written, and keeps nothing. */
static const struct {
    uint32_t magic;               /* statfs f_type (linux/magic.h) */
    const char *name;
} pseudo_fs[] = {
    { 0x9fa0, "procfs" },             { 0x62656572, "sysfs" },     { 0x64626720, "debugfs" },
    { 0x74726163, "tracefs" },        { 0x0027e0eb, "cgroupfs" },  { 0x63677270, "cgroup2fs" },
    { 0x73636673, "securityfs" },     { 0xcafe4a11, "bpffs" },     { 0x62656570, "configfs" },
    { 0xde5e81e4, "efivarfs" },       { 0x1cd1, "devpts" },        { 0x6165676c, "pstorefs" },
    { 0x65735543, "fusectl" },        { 0xf97cff8c, "selinuxfs" }, { 0x43415d53, "smackfs" },
    { 0x42494e4d, "binfmt_misc" },    { 0x6e736673, "nsfs" },      { 0x50495045, "pipefs" },
    { 0x534f434b, "sockfs" },         { 0x09041934, "anon_inodefs" },
};

const char *cp_file_pseudo_fs(int fd)
{
    struct statfs sfs;

    if (fstatfs(fd, &sfs) < 0)
        return NULL;
    for (size_t i = 0; i < sizeof(pseudo_fs) / sizeof(pseudo_fs[0]); i++)
        if ((uint32_t)sfs.f_type == pseudo_fs[i].magic)
            return pseudo_fs[i].name;
    return NULL;
}

int cp_file_check_fresh(int fd, const char *what, int ours, char *err, size_t errlen)
{
    const char *pseudo;
    struct stat st;
    int fl;

    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "cannot examine %s: %s", what, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is %s; the agent writes only regular files", what, cp_file_kind(st.st_mode));
        return -1;
    }
    if ((pseudo = cp_file_pseudo_fs(fd)) != NULL) {
        snprintf(err, errlen, "%s is on %s, a pseudo file system; give a file on a real file system", what, pseudo);
        return -1;
    }
    if (st.st_size != 0) {
        snprintf(err, errlen, "%s already holds data; the agent never overwrites a file (remove it or choose "
                 "another output)", what);
        return -1;
    }
    if (ours && st.st_uid != geteuid()) {
        snprintf(err, errlen, "%s belongs to uid %u, not to this process's uid %u; the agent writes only into "
                 "files of its own", what, (unsigned)st.st_uid, (unsigned)geteuid());
        return -1;
    }
    fl = fcntl(fd, F_GETFL);
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
        snprintf(err, errlen, "%s is not open for writing", what);
        return -1;
    }
    return 0;
}

int cp_file_open_trace(const char *path, int *created, char *err, size_t errlen)
{
    char what[PATH_MAX + 32];
    int fd, fl;

    *created = 0;
    fd = cp_file_create(path, 0);
    if (fd >= 0) {
        *created = 1;
        return fd;
    }
    if (errno != EEXIST) {
        snprintf(err, errlen, "cannot create the trace file %s: %s", path, strerror(errno));
        return -1;
    }
    /* Something is there.  Open it without creating, following or blocking
     * (a FIFO would wait for a reader), then look at what it is. */
    fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ELOOP)
            snprintf(err, errlen, "the trace file %s is a symbolic link; the agent does not follow links "
                     "(give the real path)", path);
        else if (errno == ENXIO)
            snprintf(err, errlen, "the trace file %s is a FIFO or a socket; the agent writes only regular files",
                     path);
        else
            snprintf(err, errlen, "cannot open the trace file %s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(what, sizeof(what), "the trace file %s", path);
    if (cp_file_check_fresh(fd, what, 1, err, errlen) < 0) {
        close(fd);
        return -1;
    }
    fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

ssize_t cp_read_small(const char *path, char *buf, size_t cap)
{
    ssize_t n;
    int fd;

    if (cap == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
        return -1;
    do
        n = read(fd, buf, cap - 1);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

ssize_t cp_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = pread(fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}
