/* thread_wait.c - what a blocked thread waits on, as the kernel tells it:
 * /proc/PID/task/TID/syscall gives the system call it sleeps in and its
 * arguments; a descriptor argument is named from /proc/PID/fd (a socket by
 * its addresses from the process's /proc/PID/net tables, an epoll set by
 * the sockets it watches, from /proc/PID/fdinfo).  The parsers are pure
 * and unit-tested; reading needs the right to trace the process, as the
 * attach does. */
#include "ipc/ipc_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* x86-64 system call numbers. */
enum {
    SYS_READ = 0, SYS_WRITE = 1, SYS_OPEN = 2, SYS_POLL = 7, SYS_SELECT = 23, SYS_NANOSLEEP = 35, SYS_CONNECT = 42,
    SYS_ACCEPT = 43, SYS_SENDTO = 44, SYS_RECVFROM = 45, SYS_SENDMSG = 46, SYS_RECVMSG = 47, SYS_WAIT4 = 61,
    SYS_FUTEX = 202, SYS_EPOLL_WAIT = 232, SYS_CLOCK_NANOSLEEP = 230, SYS_WAITID = 247, SYS_PSELECT6 = 270,
    SYS_OPENAT = 257, SYS_PPOLL = 271, SYS_EPOLL_PWAIT = 281, SYS_ACCEPT4 = 288, SYS_EPOLL_PWAIT2 = 441, SYS_FUTEX_WAITV = 449,
};

int ipc_parse_syscall(const char *text, long *nr, unsigned long args[6])
{
    char *end;
    if (!strncmp(text, "running", 7))
        return 0;
    errno = 0;
    *nr = strtol(text, &end, 10);
    if (errno || end == text || *nr < 0)
        return 0;
    for (int i = 0; i < 6; i++) {
        const char *p = end;
        while (*p == ' ')
            p++;
        args[i] = strtoul(p, &end, 16);
        if (end == p)
            return 0;
    }
    return 1;
}

/* "0100007F:1F90" (IPv4) or 32 hex digits and a port (IPv6, four 32-bit
 * words in host order) to "127.0.0.1:8080" / "[::1]:8080". */
static void format_address(const char *hex, char *out, size_t cap)
{
    const char *colon = strchr(hex, ':');
    size_t n = colon ? (size_t)(colon - hex) : 0;
    unsigned port = colon ? (unsigned)strtoul(colon + 1, NULL, 16) : 0;
    char tmp[16];

    if (n == 8) {
        unsigned long a = strtoul(hex, NULL, 16);
        snprintf(out, cap, "%lu.%lu.%lu.%lu:%u", a & 0xff, (a >> 8) & 0xff, (a >> 16) & 0xff, (a >> 24) & 0xff,
                 port);
    } else if (n == 32) {
        uint8_t b[16];
        size_t len = 0;
        for (int w = 0; w < 4; w++) {
            unsigned long v;
            memcpy(tmp, hex + 8 * w, 8);
            tmp[8] = 0;
            v = strtoul(tmp, NULL, 16);
            for (int k = 0; k < 4; k++)
                b[4 * w + k] = (uint8_t)(v >> (8 * k));
        }
        len += (size_t)snprintf(out, cap, "[");
        if (!memcmp(b, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12)) {   /* an IPv4 address as IPv6 */
            snprintf(out, cap, "%u.%u.%u.%u:%u", b[12], b[13], b[14], b[15], port);
            return;
        }
        for (int i = 0; i < 16 && len < cap; i += 2)
            len += (size_t)snprintf(out + len, cap - len, "%s%x", i ? ":" : "", (unsigned)(b[i] << 8 | b[i + 1]));
        if (len < cap)
            snprintf(out + len, cap - len, "]:%u", port);
    } else {
        snprintf(out, cap, "?");
    }
}

int ipc_socket_from_net_table(const char *text, unsigned long inode, const char *proto, char *out, size_t cap)
{
    const char *line = strchr(text, '\n');       /* (the header) */
    while (line && *++line) {
        char local[64], remote[64];
        unsigned st;
        unsigned long ino;
        const char *next = strchr(line, '\n');
        if (sscanf(line, " %*s %63s %63s %x %*s %*s %*s %*s %*s %lu", local, remote, &st, &ino) == 4 && ino == inode) {
            char l[80], r[80];
            format_address(local, l, sizeof(l));
            format_address(remote, r, sizeof(r));
            if (st == 0x0A)                                     /* TCP_LISTEN */
                snprintf(out, cap, "%s socket listening on %s", proto, l);
            else if (!strcmp(proto, "udp"))
                snprintf(out, cap, "udp socket %s", l);
            else
                snprintf(out, cap, "%s socket %s to %s", proto, l, r);
            return 1;
        }
        line = next;
    }
    return 0;
}

/* What descriptor fd of pid is: "tcp socket 127.0.0.1:5000 to ...", "a unix
 * socket", "a pipe", the file's path, or "descriptor N". */
static void describe_fd(int pid, unsigned long fd, char *out, size_t cap)
{
    static const char *const tables[] = { "tcp", "tcp6", "udp", "udp6" };
    char path[96], link[512];
    unsigned long inode;
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/%d/fd/%lu", pid, fd);
    n = readlink(path, link, sizeof(link) - 1);
    if (n <= 0) {
        snprintf(out, cap, "descriptor %lu", fd);
        return;
    }
    link[n] = 0;
    if (sscanf(link, "socket:[%lu]", &inode) == 1) {
        for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
            char *text;
            size_t len;
            int found;
            snprintf(path, sizeof(path), "/proc/%d/net/%s", pid, tables[i]);
            if (ipc_read_file(path, &text, &len) < 0)
                continue;
            found = ipc_socket_from_net_table(text, inode, tables[i][0] == 't' ? "tcp" : "udp", out, cap);
            free(text);
            if (found)
                return;
        }
        snprintf(out, cap, "a socket");
    } else if (!strncmp(link, "pipe:", 5)) {
        snprintf(out, cap, "a pipe");
    } else if (!strncmp(link, "anon_inode:", 11)) {
        snprintf(out, cap, "%s", link + 11);
    } else {
        snprintf(out, cap, "%s", link);
    }
}

/* The sockets an epoll set of pid watches: how many (from fdinfo's tfd lines). */
static int epoll_sockets(int pid, unsigned long epfd, int *watched)
{
    char path[96], *text, *p;
    size_t len;
    int sockets = 0;

    *watched = 0;
    snprintf(path, sizeof(path), "/proc/%d/fdinfo/%lu", pid, epfd);
    if (ipc_read_file(path, &text, &len) < 0)
        return 0;
    for (p = text; (p = strstr(p, "tfd:")) != NULL; p += 4) {
        char link[64];
        ssize_t n;
        unsigned long fd = strtoul(p + 4, NULL, 10);
        snprintf(path, sizeof(path), "/proc/%d/fd/%lu", pid, fd);
        n = readlink(path, link, sizeof(link) - 1);
        (*watched)++;
        if (n > 7 && !strncmp(link, "socket:", 7))
            sockets++;
    }
    free(text);
    return sockets;
}

int ipc_thread_wait(int pid, int tid, char *out, size_t cap)
{
    char path[96], *text, what[600];
    unsigned long args[6];
    size_t len;
    long nr;
    int ok;

    out[0] = 0;
    snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
    if (ipc_read_file(path, &text, &len) < 0)
        return 0;
    ok = ipc_parse_syscall(text, &nr, args);
    free(text);
    if (!ok)
        return 0;
    switch (nr) {
    case SYS_NANOSLEEP:
    case SYS_CLOCK_NANOSLEEP:
        snprintf(out, cap, "a sleep");
        return 1;
    case SYS_FUTEX:
    case SYS_FUTEX_WAITV:
        snprintf(out, cap, "a futex: a lock, an event or a condition variable");
        return 1;
    case SYS_WAIT4:
    case SYS_WAITID:
        snprintf(out, cap, "a child process");
        return 1;
    case SYS_EPOLL_WAIT:
    case SYS_EPOLL_PWAIT:
    case SYS_EPOLL_PWAIT2: {
        int watched, sockets = epoll_sockets(pid, args[0], &watched);
        if (sockets)
            snprintf(out, cap, "I/O on %d socket%s, epoll with %d descriptor%s", sockets, sockets == 1 ? "" : "s",
                     watched, watched == 1 ? "" : "s");
        else if (watched)
            snprintf(out, cap, "I/O, epoll with %d descriptor%s", watched, watched == 1 ? "" : "s");
        else
            snprintf(out, cap, "I/O, epoll with no descriptor registered yet");
        return 1;
    }
    case SYS_POLL:
    case SYS_PPOLL:
    case SYS_SELECT:
    case SYS_PSELECT6:
        snprintf(out, cap, "I/O, poll");
        return 1;
    case SYS_READ:
    case SYS_RECVFROM:
    case SYS_RECVMSG:
        describe_fd(pid, args[0], what, sizeof(what));
        snprintf(out, cap, "reading %s", what);
        return 1;
    case SYS_WRITE:
    case SYS_SENDTO:
    case SYS_SENDMSG:
        describe_fd(pid, args[0], what, sizeof(what));
        snprintf(out, cap, "writing %s", what);
        return 1;
    case SYS_ACCEPT:
    case SYS_ACCEPT4:
        describe_fd(pid, args[0], what, sizeof(what));
        snprintf(out, cap, "a connection on %s", what);
        return 1;
    case SYS_OPEN:
    case SYS_OPENAT:
        snprintf(out, cap, "opening a file; a FIFO waits for its other end");
        return 1;
    case SYS_CONNECT:
        describe_fd(pid, args[0], what, sizeof(what));
        snprintf(out, cap, "connecting %s", what);
        return 1;
    default:
        snprintf(out, cap, "system call %ld", nr);
        return 1;
    }
}

int ipc_host_tid(int pid, int inner_tid)
{
    char path[96], *text;
    size_t len;
    struct dirent *e;
    DIR *d;
    int found = -1;

    if (ipc_inner_pid(pid) == pid)
        return inner_tid;
    snprintf(path, sizeof(path), "/proc/%d/task", pid);
    if (!(d = opendir(path)))
        return -1;
    while (found < 0 && (e = readdir(d)) != NULL) {
        char *ns, *last;
        int tid = atoi(e->d_name);
        if (tid <= 0)
            continue;
        snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
        if (ipc_read_file(path, &text, &len) < 0)
            continue;
        if ((ns = strstr(text, "\nNSpid:")) != NULL) {
            char *eol = strchr(ns + 1, '\n');
            if (eol)
                *eol = 0;
            last = strrchr(ns + 1, '\t');
            if (last && atoi(last + 1) == inner_tid)
                found = tid;
        }
        free(text);
    }
    closedir(d);
    return found;
}
