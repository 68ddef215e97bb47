/* output.c - a command's output file, created safely and put in place only
 * when complete (see output.h for the rules). */
#include "cli/output.h"
#include "cli/cli.h"
#include "common/files.h"
#include "common/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The output whose temporary file a fatal signal removes
 * (cli_output_remove_on_signal), or NULL: cleared before the struct can go. */
static cli_output *volatile signal_output;

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

void cli_output_init(cli_output *o, const char *name, const char *what, unsigned flags)
{
    memset(o, 0, sizeof(*o));
    o->what = what;
    o->flags = flags;
    o->fd = o->target_fd = o->dirfd = o->interrupt_fd = -1;
    snprintf(o->name, sizeof(o->name), "%s", name);
}

/* A temporary file for staged outputs that have no directory of their own
 * (a device, standard output): in $TMPDIR, or /tmp. */
static int make_temp_elsewhere(cli_output *o)
{
    const char *dir = getenv("TMPDIR");

    if (!dir || dir[0] != '/')
        dir = "/tmp";
    if ((size_t)snprintf(o->temp, sizeof(o->temp), "%s/clrprobe-trace-XXXXXX", dir) >= sizeof(o->temp)) {
        o->temp[0] = o->temp_name[0] = '\0';
        cli_error("the temporary directory %s has too long a path; set TMPDIR", dir);
        return -1;
    }
    o->fd = cp_file_create_temp(o->temp);
    if (o->fd < 0) {
        cli_error("cannot create a temporary file in %s for the %s: %s; set TMPDIR to a writable directory",
                  dir, o->what, strerror(errno));
        o->temp[0] = o->temp_name[0] = '\0';
        return -1;
    }
    return 0;
}

/* The directory of the target, into dir. */
static void target_dir(const cli_output *o, char *dir, size_t cap)
{
    char *slash;

    snprintf(dir, cap, "%s", o->target);
    slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = '\0';
}

/* The temporary file beside the target, in its directory (o->dirfd) so
 * that it can be renamed over it: TARGET.partial-XXXXXX, or for a name
 * near NAME_MAX clrprobe.partial-XXXXXX. */
static int make_temp_beside(cli_output *o)
{
    static const char suffix[] = ".partial-XXXXXX";
    char dir[PATH_MAX];
    size_t dlen = strlen(o->target) - strlen(o->target_name);   /* o->target is DIR/NAME */
    int e;

    if ((size_t)snprintf(o->temp_name, sizeof(o->temp_name), "%s%s", o->target_name, suffix) >=
        sizeof(o->temp_name))
        snprintf(o->temp_name, sizeof(o->temp_name), "clrprobe%s", suffix);
    o->fd = cp_file_create_temp_at(o->dirfd, o->temp_name);
    e = errno;
    if (o->fd >= 0 && (size_t)snprintf(o->temp, sizeof(o->temp), "%.*s%s", (int)dlen, o->target, o->temp_name) <
                          sizeof(o->temp))
        return 0;
    if (o->fd >= 0) {                    /* (its path is too long to hand to anyone) */
        unlinkat(o->dirfd, o->temp_name, 0);
        close(o->fd);
        o->fd = -1;
        e = ENAMETOOLONG;
    }
    target_dir(o, dir, sizeof(dir));
    cli_error("cannot write %s %s: cannot create a file in %s (%s); choose another path with -o", o->what,
              o->name, dir, strerror(e));
    o->temp[0] = o->temp_name[0] = '\0';
    return -1;
}

/* Opens the device, FIFO or socket at o->target_name (whose lstat was
 * checked: st) for writing where it is, without blocking and without
 * following a link; the object opened must be the one checked. */
static int open_in_place(cli_output *o, const struct stat *st)
{
    int fd = openat(o->dirfd, o->target_name, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY), fl, same;

    if (fd < 0) {
        if (errno == ENXIO && S_ISFIFO(st->st_mode))
            cli_error("cannot write %s %s: it is a FIFO with no reader; start the reader first", o->what,
                      o->name);
        else if (errno == ENXIO)
            cli_error("cannot write %s %s: it is %s, which cannot be opened; choose another path with -o",
                      o->what, o->name, cp_file_kind(st->st_mode));
        else if (errno == ELOOP)
            cli_error("cannot write %s %s: it was replaced by a symbolic link while being opened, which is not "
                      "followed; nothing was written (choose another path with -o)", o->what, o->name);
        else
            cli_error("cannot write %s %s: %s; choose another path with -o", o->what, o->name, strerror(errno));
        return -1;
    }
    /* Between the check and the open, something else may have been put at
     * that name (a regular file of someone's): write only into the object
     * that was checked. */
    same = cp_file_same_object(fd, st);
    if (same != 1) {
        if (same < 0)
            cli_error("cannot write %s %s: %s", o->what, o->name, strerror(errno));
        else
            cli_error("cannot write %s %s: it was replaced while being opened (it was %s); nothing was written "
                      "(choose another path with -o)", o->what, o->name, cp_file_kind(st->st_mode));
        close(fd);
        return -1;
    }
    /* From now on a slow reader may make us wait, as any writer would. */
    fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name a
 * descriptor of ours: its number, or -1. */
static int standard_stream(const char *name)
{
    const char *n = NULL;
    char *end;
    long fd;

    if (strcmp(name, "-") == 0 || strcmp(name, "/dev/stdout") == 0)
        return STDOUT_FILENO;
    if (strcmp(name, "/dev/stderr") == 0)
        return STDERR_FILENO;
    if (strncmp(name, "/dev/fd/", 8) == 0)
        n = name + 8;
    else if (strncmp(name, "/proc/self/fd/", 14) == 0)
        n = name + 14;
    if (!n || *n < '0' || *n > '9')
        return -1;
    fd = strtol(n, &end, 10);
    return *end || fd > 1000000 ? -1 : (int)fd;
}

int cli_output_open(cli_output *o, const char *name, const char *what, const char *const *inputs, size_t ninputs,
                    unsigned flags)
{
    char abs[PATH_MAX], why[3 * PATH_MAX + 256];
    const char *pseudo;
    struct stat st, in;
    cp_resolved res;
    int r, std_fd;

    cli_output_init(o, name, what, flags);
    std_fd = standard_stream(name);
    if (std_fd >= 0) {
        /* The descriptor itself, where it stands: never a new file in place
         * of what the shell opened (which may hold earlier output). */
        o->kind = CLI_OUT_STDOUT;
        if (fcntl(std_fd, F_GETFL) < 0) {
            cli_error("cannot write %s to %s: that descriptor is not open", what, name);
            return -1;
        }
        o->target_fd = std_fd;
        if (flags & CLI_OUT_STAGED)
            return make_temp_elsewhere(o);
        o->fd = std_fd;
        return 0;
    }
    if (!name[0] || cli_absolute_path(name, abs, sizeof(abs)) < 0) {
        cli_error("cannot write %s '%s': the path is empty or too long", what, name);
        return -1;
    }
    if ((flags & CLI_OUT_NO_REPLACE) && lstat(abs, &st) == 0)
        return CLI_OUT_EXISTS;                      /* whatever it is, even a link: not ours */
    /* Every link on the way is checked and resolved, once: from here on
     * the output is the name res.name in the directory res.dirfd. */
    r = cp_resolve(abs, &res, why, sizeof(why));
    if (r == -1) {
        cli_error("cannot write %s: %s", what, why);
        return -1;
    }
    if (r == -2 && errno == ELOOP) {
        cli_error("cannot write %s %s: it leads through more than %d symbolic links (a loop?); give the real path",
                  what, name, CP_LINK_HOPS_MAX);
        return -1;
    }
    if (r == -2) {
        cli_error("cannot write %s %s: %s; choose another path with -o", what, name, strerror(errno));
        return -1;
    }
    o->dirfd = res.dirfd;
    snprintf(o->target, sizeof(o->target), "%s", res.path);
    snprintf(o->target_name, sizeof(o->target_name), "%s", res.name);
    if ((!res.exists || S_ISREG(res.st.st_mode)) && (pseudo = cp_file_pseudo_fs(res.dirfd)) != NULL) {
        /* (/proc/self/comm is a regular file: writing it renames a thread) */
        cli_error("cannot write %s %s: it is on %s, a pseudo file system; give a file on a real file system",
                  what, name, pseudo);
        goto fail;
    }
    if (!res.exists) {
        if (res.dangling) {
            cli_error("cannot write %s %s: it is a symbolic link to a file that does not exist; give the "
                      "real path", what, name);
            goto fail;
        }
        o->kind = CLI_OUT_NEW;
        if (make_temp_beside(o) < 0)
            goto fail;
        return 0;
    }
    st = res.st;
    if (S_ISDIR(st.st_mode)) {
        cli_error("cannot write %s %s: it is a directory; give a file name", what, name);
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        o->kind = CLI_OUT_IN_PLACE;
        o->target_fd = open_in_place(o, &st);
        if (o->target_fd < 0)
            goto fail;
        if (flags & CLI_OUT_STAGED) {
            if (make_temp_elsewhere(o) < 0)
                goto fail;
            return 0;
        }
        o->fd = o->target_fd;
        return 0;
    }
    if (flags & CLI_OUT_NO_REPLACE) {
        cli_output_discard(o);
        return CLI_OUT_EXISTS;
    }
    for (size_t i = 0; i < ninputs; i++) {
        if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
            if (ninputs == 1)
                cli_error("cannot write %s %s: it is the trace being read; choose another path with -o", what,
                          name);
            else
                cli_error("cannot write %s %s: it is %s, one of the traces being read; choose another path "
                          "with -o", what, name, inputs[i]);
            goto fail;
        }
    }
    /* The file a link points to is replaced, not the link: the rename is
     * of the name the links led to, in its directory. */
    o->kind = CLI_OUT_REPLACE;
    if (make_temp_beside(o) < 0)
        goto fail;
    return 0;
fail:
    cli_output_discard(o);
    return -1;
}

FILE *cli_output_stream(cli_output *o)
{
    if (o->stream)
        return o->stream;
    if (o->fd == STDOUT_FILENO)
        o->stream = stdout;
    else
        o->stream = fdopen(o->fd, "w");
    if (!o->stream)
        cli_error("cannot write %s %s: %s", o->what, o->name, strerror(errno));
    return o->stream;
}

off_t cli_output_size(const cli_output *o)
{
    struct stat st;
    return o->fd >= 0 && fstat(o->fd, &st) == 0 ? st.st_size : -1;
}

const char *cli_output_staging_path(const cli_output *o)
{
    return o->temp;
}

const char *cli_output_display(const cli_output *o)
{
    if (o->kind == CLI_OUT_STDOUT)
        return strcmp(o->name, "-") == 0 ? "standard output" : o->name;
    return o->kind == CLI_OUT_IN_PLACE ? o->name : o->target;
}

void cli_output_watch(cli_output *o, int fd)
{
    o->interrupt_fd = fd;
}

/* Writes n bytes of buf to fd without ever blocking in write(): a FIFO
 * whose reader has stopped reading would hold a blocking write (and a
 * signal handler installed with SA_RESTART could not end it).  fd is
 * non-blocking, or a socket written with MSG_DONTWAIT.  When the target is
 * full, poll() waits for room or for the interruption.  0, -1 (errno) or
 * CLI_OUT_INTERRUPTED; *copied counts what was written. */
static int write_all(cli_output *o, int fd, int is_socket, const char *buf, size_t n, off_t *copied)
{
    for (size_t done = 0; done < n;) {
        struct pollfd pfd[2] = { { fd, POLLOUT, 0 }, { o->interrupt_fd, POLLIN, 0 } };
        ssize_t w = is_socket ? send(fd, buf + done, n - done, MSG_DONTWAIT | MSG_NOSIGNAL)
                              : write(fd, buf + done, n - done);

        if (w > 0) {
            done += (size_t)w;
            *copied += w;
            continue;
        }
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        if (errno != EAGAIN && errno != EINTR)
            return -1;
        if (poll(pfd, o->interrupt_fd >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
            return -1;
        if (o->interrupt_fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
            return CLI_OUT_INTERRUPTED;
    }
    return 0;
}

/* The descriptor the copy writes to, non-blocking without changing what
 * others see: O_NONBLOCK belongs to the open file description, which for
 * standard output is shared with the shell and with anything else writing
 * there (children of the profiled program that live on must never get
 * EAGAIN because of us).  A device or FIFO named with -o was opened by us:
 * its description is ours, so its flag is set for the copy.  Standard
 * output's pipe, FIFO or terminal is opened anew through /proc/self/fd (a
 * description of our own, and no second open of a named device); a socket is
 * written with MSG_DONTWAIT (*is_socket); a regular file never blocks and
 * is written as it is (a new description would start at offset 0).  Only
 * when /proc cannot give a new description is the shared one's flag set,
 * and *restore_flags says what to put back.  Returns the descriptor: the
 * target's own, or a new one the caller closes. */
static int copy_fd(const cli_output *o, int *is_socket, int *restore_flags)
{
    struct stat st;
    char path[64];
    int fd, fl;

    *is_socket = 0;
    *restore_flags = -1;
    if (fstat(o->target_fd, &st) < 0 || S_ISREG(st.st_mode))
        return o->target_fd;
    if (S_ISSOCK(st.st_mode)) {
        *is_socket = 1;
        return o->target_fd;
    }
    fl = fcntl(o->target_fd, F_GETFL);
    if (fl >= 0 && (fl & O_NONBLOCK))
        return o->target_fd;                        /* (already non-blocking: someone else's choice) */
    if (o->kind != CLI_OUT_STDOUT) {                /* a device or FIFO we opened: the description is ours */
        if (fl >= 0) {
            fcntl(o->target_fd, F_SETFL, fl | O_NONBLOCK);
            *restore_flags = fl;
        }
        return o->target_fd;
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", o->target_fd);
    fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (fl >= 0 ? (fl & O_APPEND) : 0));
    if (fd >= 0) {
        struct stat again;
        if (fstat(fd, &again) == 0 && again.st_dev == st.st_dev && again.st_ino == st.st_ino)
            return fd;
        close(fd);
    }
    if (fl >= 0) {
        fcntl(o->target_fd, F_SETFL, fl | O_NONBLOCK);
        *restore_flags = fl;
    }
    return o->target_fd;
}

/* Copies the staged temporary file into the target (copy_fd: never
 * blocking, never changing the flags others see).  pread only: the agent
 * may share the temporary file's offset.  0, -1 (errno) or
 * CLI_OUT_INTERRUPTED. */
static int copy_into_target(cli_output *o, off_t *copied)
{
    char buf[65536];
    off_t off = 0;
    int is_socket, restore, fd = copy_fd(o, &is_socket, &restore), rc, e;

    for (;;) {
        ssize_t n = pread(o->fd, buf, sizeof(buf), off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -1 : 0;
            break;
        }
        if ((rc = write_all(o, fd, is_socket, buf, (size_t)n, copied)) != 0)
            break;
        off += n;
    }
    e = errno;
    if (restore >= 0)
        fcntl(o->target_fd, F_SETFL, restore);
    if (fd != o->target_fd)
        close(fd);
    errno = e;
    return rc;
}

static void close_fds(cli_output *o)
{
    int closed = -1;

    if (signal_output == o)
        signal_output = NULL;
    if (o->stream) {
        if (o->stream != stdout) {
            fclose(o->stream);
            closed = o->fd;
        }
        o->stream = NULL;
    }
    if (o->fd > STDERR_FILENO && o->fd != closed)
        close(o->fd);
    if (o->target_fd > STDERR_FILENO && o->target_fd != o->fd)
        close(o->target_fd);
    if (o->dirfd >= 0)
        close(o->dirfd);
    o->fd = o->target_fd = o->dirfd = -1;
}

/* Removes our temporary file: by its name in the target's directory when
 * it is there, else (in $TMPDIR) by its path.  (Async-signal-safe: it is
 * the signal handler's too.) */
static void unlink_temp(const cli_output *o)
{
    if (!o->temp[0])
        return;
    if (o->temp_name[0] && o->dirfd >= 0)
        unlinkat(o->dirfd, o->temp_name, 0);
    else if (!o->temp_name[0])
        unlink(o->temp);
}

/* The temporary file is no longer ours to remove (gone, moved, or kept). */
static void forget_temp(cli_output *o)
{
    if (signal_output == o)
        signal_output = NULL;
    o->temp[0] = o->temp_name[0] = '\0';
}

int cli_output_dir_now(int dirfd, char *out, size_t cap)
{
    static const char deleted[] = " (deleted)";
    char link[64];
    ssize_t n;

    snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
    n = dirfd >= 0 ? readlink(link, out, cap) : -1;
    if (n <= 0 || (size_t)n >= cap || out[0] != '/')
        return -1;
    out[n] = '\0';
    if ((size_t)n >= sizeof(deleted) - 1 && strcmp(out + n - (sizeof(deleted) - 1), deleted) == 0)
        return -1;                      /* (removed: its old path is all there is) */
    return 0;
}

/* The target's and the temporary file's paths from where their directory
 * is now: moved since it was resolved (by whoever owns its parent), the
 * old path may lead elsewhere, and the messages must name where the files
 * really are.  Left as they were when /proc cannot say. */
static void refresh_paths(cli_output *o)
{
    char dir[PATH_MAX], path[PATH_MAX];
    const char *sep;

    if (cli_output_dir_now(o->dirfd, dir, sizeof(dir)) < 0)
        return;
    sep = strcmp(dir, "/") ? "/" : "";
    if ((size_t)snprintf(path, sizeof(path), "%s%s%s", dir, sep, o->target_name) < sizeof(path))
        memcpy(o->target, path, strlen(path) + 1);
    if (o->temp_name[0] && (size_t)snprintf(path, sizeof(path), "%s%s%s", dir, sep, o->temp_name) < sizeof(path))
        memcpy(o->temp, path, strlen(path) + 1);
}

static void remove_temp(cli_output *o)
{
    unlink_temp(o);
    forget_temp(o);
}

static void remove_and_die(int sig)
{
    cli_output *o = signal_output;

    if (o)
        unlink_temp(o);
    signal(sig, SIG_DFL);
    raise(sig);                              /* (the status says which signal ended us) */
}

void cli_output_remove_on_signal(cli_output *o)
{
    static const int sigs[] = { SIGHUP, SIGINT, SIGTERM, SIGPIPE };
    struct sigaction sa, old;

    signal_output = o;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = remove_and_die;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)   /* (nohup stays nohup) */
            sigaction(sigs[i], &sa, NULL);
}

int cli_output_commit(cli_output *o)
{
    int e;

    /* Everything written must have reached the file before it is moved. */
    if (o->stream && (fflush(o->stream) != 0 || ferror(o->stream))) {
        e = errno ? errno : EIO;
        cli_error("cannot write %s %s: %s", o->what, o->name, strerror(e));
        cli_output_discard(o);
        return -1;
    }
    switch (o->kind) {
    case CLI_OUT_STDOUT:
    case CLI_OUT_IN_PLACE:
        if (o->temp[0]) {
            off_t copied = 0, size = cli_output_size(o);
            int c = copy_into_target(o, &copied);
            if (c == CLI_OUT_INTERRUPTED) {
                cli_error("interrupted while writing the %s to %s: %lld of %lld bytes were written (is its reader "
                          "reading?); the %s was not kept (its temporary copy %s is removed)", o->what, o->name,
                          (long long)copied, (long long)size, o->what, o->temp);
                cli_output_discard(o);
                return CLI_OUT_INTERRUPTED;
            }
            if (c < 0) {
                cli_error("cannot write %s %s: %s; the %s is kept in %s", o->what, o->name, strerror(errno),
                          o->what, o->temp);
                close_fds(o);
                forget_temp(o);
                return -1;
            }
            remove_temp(o);
        }
        break;
    case CLI_OUT_NEW:
        refresh_paths(o);
        /* Never over a file that appeared while we were writing. */
        if (renameat2(o->dirfd, o->temp_name, o->dirfd, o->target_name, RENAME_NOREPLACE) < 0) {
            e = errno;
            if (e == EINVAL || e == ENOSYS) {          /* a file system without RENAME_NOREPLACE */
                if (linkat(o->dirfd, o->temp_name, o->dirfd, o->target_name, 0) == 0) {
                    unlinkat(o->dirfd, o->temp_name, 0);
                    e = 0;
                } else {
                    e = errno;
                }
            }
            if (e) {
                cli_error("cannot move the %s to %s: %s; it is kept in %s", o->what, o->target,
                          e == EEXIST ? "a file appeared there meanwhile" : strerror(e), o->temp);
                close_fds(o);
                forget_temp(o);
                return -1;
            }
        }
        forget_temp(o);
        break;
    case CLI_OUT_REPLACE:
        refresh_paths(o);
        /* A name put in place meanwhile (even a link) is replaced, never
         * followed: rename does not follow its last name. */
        if (renameat(o->dirfd, o->temp_name, o->dirfd, o->target_name) < 0) {
            cli_error("cannot move the %s to %s: %s; it is kept in %s", o->what, o->target, strerror(errno),
                      o->temp);
            close_fds(o);
            forget_temp(o);
            return -1;
        }
        forget_temp(o);
        break;
    }
    close_fds(o);
    return 0;
}

void cli_output_keep(cli_output *o)
{
    close_fds(o);
    forget_temp(o);
}

void cli_output_discard(cli_output *o)
{
    remove_temp(o);
    close_fds(o);
}

int cli_output_open_trace(cli_output *o, const char *name, const char *label)
{
    char def[256], stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    int r;

    if (name)
        return cli_output_open(o, name, "trace file", NULL, 0, CLI_OUT_STAGED) == 0 ? 0 : -1;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
    for (int attempt = 1; attempt <= 100; attempt++) {
        if (attempt == 1)
            snprintf(def, sizeof(def), "clrprobe-%.64s-%s.clrp", label, stamp);
        else
            snprintf(def, sizeof(def), "clrprobe-%.64s-%s-%d.clrp", label, stamp, attempt);
        r = cli_output_open(o, def, "trace file", NULL, 0, CLI_OUT_STAGED | CLI_OUT_NO_REPLACE);
        if (r != CLI_OUT_EXISTS)
            return r == 0 ? 0 : -1;
    }
    cli_error("cannot find a free default trace name like %s in this directory; give one with -o", def);
    return -1;
}
