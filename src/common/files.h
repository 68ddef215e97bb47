/* files.h - how clrprobe creates and opens the files it writes, shared by
 * the agent and the command.  clrprobe often runs as root in shared
 * directories such as /tmp, so every file it makes is created exclusively
 * (O_CREAT|O_EXCL), never through a symbolic link (O_NOFOLLOW), private
 * (mode 0600) and close-on-exec; an existing path is opened without
 * O_CREAT and without blocking (O_NONBLOCK: a FIFO with no reader must not
 * hang us); and a symbolic link is followed only where the kernel's
 * fs.protected_symlinks rule would follow it, whatever that setting is
 * (common/resolve.h).
 * docs/files.md describes the rules as the user sees them. */
#ifndef CLRPROBE_COMMON_FILES_H
#define CLRPROBE_COMMON_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define CP_FILE_MODE 0600            /* every file clrprobe creates */

/* Creates path for writing (O_WRONLY, or O_RDWR when read_too): fails with
 * EEXIST if anything is there, ELOOP if it is a symbolic link.  Returns the
 * fd, or -1 with errno. */
int cp_file_create(const char *path, int read_too);

/* Creates a new file named templ (whose last six characters are XXXXXX,
 * replaced in place) with the same guarantees.  Returns the fd or -1. */
int cp_file_create_temp(char *templ);

/* The same guarantees for a new file in the directory dirfd: name (whose
 * last six characters are XXXXXX, replaced in place) is created there with
 * O_CREAT|O_EXCL|O_NOFOLLOW, O_RDWR, mode 0600.  Returns the fd or -1. */
int cp_file_create_temp_at(int dirfd, char *name);

/* Whether fd, opened by name after that name was examined, is the object
 * examined (checked: its stat or lstat): the same device and inode, and
 * still of the same type.  1 yes, 0 no (something else was put there in
 * between), -1 when fd cannot be examined (errno). */
int cp_file_same_object(int fd, const struct stat *checked);

/* "a directory", "a FIFO", "a character device", ... for st_mode. */
const char *cp_file_kind(mode_t mode);

/* The agent's trace file at path (absolute): created as above, or, when a
 * file is already there, opened only if it is a regular, empty file of
 * ours (what `clrprobe run` prepares), never following a link and never
 * blocking.  *created says whether this call created it (then, and only
 * then, the caller may remove it on failure).  Returns the fd, or -1 with
 * a one-line reason in err. */
int cp_file_open_trace(const char *path, int *created, char *err, size_t errlen);

/* The name of the pseudo file system fd is on ("procfs", "sysfs", ...:
 * the kernel's interfaces, which keep nothing written to them), or NULL
 * when it is on another (or cannot be examined). */
const char *cp_file_pseudo_fs(int fd);

/* Checks that fd is a regular, empty file, not on a pseudo file system
 * (cp_file_pseudo_fs), that can be written and, if ours
 * is set, belongs to the effective uid (a file found at a path; a
 * descriptor handed over by the command belongs to the command's user).
 * 0, or -1 with a reason in err naming it as what. */
int cp_file_check_fresh(int fd, const char *what, int ours, char *err, size_t errlen);

/* Reads a small file (a /proc entry) into buf: at most cap - 1 bytes,
 * NUL-terminated.  Its length, or -1 (cannot be opened or read). */
ssize_t cp_read_small(const char *path, char *buf, size_t cap);

/* Reads n bytes of fd at off (pread, again after EINTR and short reads):
 * how many it read (fewer at the file's end: it may have shrunk), or -1. */
ssize_t cp_pread_full(int fd, void *buf, size_t n, uint64_t off);

#endif
