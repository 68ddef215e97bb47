/* token.c - the bearer token serve asks of its clients (token.h): read
 * from a file only serve's user can read, or made there (256 random bits,
 * 64 hex digits) when the file does not exist.  The file is never followed
 * through a link, never a FIFO waited on, never another user's. */
#include "serve/token.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOKEN_FILE_MAX 4096

int token_default_path(char *out, size_t cap, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    char dir[512];
    struct stat st;

    if (geteuid() == 0)
        snprintf(dir, sizeof(dir), "/run/clrprobe");
    else if (xdg && xdg[0] == '/' && strlen(xdg) < sizeof(dir) - 16)
        snprintf(dir, sizeof(dir), "%s/clrprobe", xdg);
    else
        snprintf(dir, sizeof(dir), "/run/user/%u/clrprobe", (unsigned)geteuid());
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot make %s for the token: %s (give --token-file FILE)", dir, strerror(errno));
        return -1;
    }
    /* a directory of ours that nobody else may enter: a link or another
     * user's directory is refused, not used */
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
        snprintf(err, errlen, "%s is not a directory of this user's that only it may enter (mode 0700): "
                 "remove it, or give --token-file FILE", dir);
        return -1;
    }
    if ((size_t)snprintf(out, cap, "%s/serve.token", dir) >= cap) {
        snprintf(err, errlen, "the token's path is too long");
        return -1;
    }
    return 0;
}

/* A new token into path: 0, or -1 (errno; EEXIST: made meanwhile). */
static int create(const char *path, char *token, size_t cap)
{
    unsigned char raw[TOKEN_BYTES];
    char text[2 * TOKEN_BYTES + 2];
    size_t got = 0;
    int fd, e;

    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(text + 2 * i, 3, "%02x", raw[i]);
    text[2 * TOKEN_BYTES] = '\n';
    text[2 * TOKEN_BYTES + 1] = '\0';
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    if (fchmod(fd, 0600) < 0 || write(fd, text, 2 * TOKEN_BYTES + 1) != 2 * TOKEN_BYTES + 1) {
        e = errno ? errno : EIO;
        close(fd);
        unlink(path);            /* (made by us, O_EXCL, just now) */
        errno = e;
        return -1;
    }
    if (close(fd) < 0)
        return -1;
    snprintf(token, cap, "%.*s", 2 * TOKEN_BYTES, text);
    return 0;
}

int token_load(const char *path, char *token, size_t cap, int *created, char *err, size_t errlen)
{
    char buf[TOKEN_FILE_MAX + 1];
    struct stat st;
    ssize_t n;
    size_t len;
    int fd;

    *created = 0;
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        if (create(path, token, cap) == 0) {
            *created = 1;
            return 0;
        }
        if (errno != EEXIST) {
            snprintf(err, errlen, "cannot make the token file %s: %s", path, strerror(errno));
            return -1;
        }
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    }
    if (fd < 0) {
        snprintf(err, errlen, "cannot read the token file %s: %s", path,
                 errno == ELOOP ? "it is a symbolic link" : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "the token file %s is not a regular file", path);
        close(fd);
        return -1;
    }
    if (st.st_uid != geteuid() || (st.st_mode & 077)) {
        snprintf(err, errlen, "the token file %s must be this user's (uid %u) and readable by it alone "
                 "(it is uid %u's, mode %04o): chown and chmod 600 it, or remove it to have a new one made",
                 path, (unsigned)geteuid(), (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        close(fd);
        return -1;
    }
    n = read(fd, buf, sizeof(buf));
    close(fd);
    if (n < 0 || n > TOKEN_FILE_MAX) {
        snprintf(err, errlen, "cannot read the token file %s: %s", path, n < 0 ? strerror(errno) : "too large");
        return -1;
    }
    len = (size_t)n;
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
        len--;
    buf[len] = '\0';
    if (len < TOKEN_MIN || len >= cap) {
        snprintf(err, errlen, "the token in %s must be %d to %zu characters", path, TOKEN_MIN, cap - 1);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        if (buf[i] <= ' ' || buf[i] > '~') {
            snprintf(err, errlen, "the token in %s must be one word of printable ASCII", path);
            return -1;
        }
    }
    memcpy(token, buf, len + 1);
    return 0;
}

int token_matches(const char *token, const char *header)
{
    static const char bearer[] = "Bearer ";
    size_t tl = strlen(token), hl;
    unsigned char diff = 0;

    if (!header || strncmp(header, bearer, sizeof(bearer) - 1) != 0)
        return 0;
    header += sizeof(bearer) - 1;
    hl = strlen(header);
    /* every byte of the token looked at whatever the header holds: the
     * time says nothing of where they differ */
    for (size_t i = 0; i < tl; i++)
        diff |= (unsigned char)token[i] ^ (unsigned char)(i < hl ? header[i] : 0);
    return diff == 0 && hl == tl;
}
