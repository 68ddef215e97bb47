/* trust.c - whether a diagnostics socket is the target's own.  Anyone may
 * bind "dotnet-diagnostic-PID-KEY-socket" in /tmp, for any pid (the key,
 * the process's start time, is public in /proc/PID/stat).  Root's commands
 * believe a socket only when its owner is the process's user and, once
 * connected and before a byte is sent, the listener at the other end
 * (SO_PEERCRED, the pid as our pid namespace sees it) is the process
 * itself.  A socket that fails either is skipped and named once on the
 * warning line (ipc_set_warning). */
#include "ipc/ipc_internal.h"

#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define WARNED_MAX 64           /* fakes named at most (then skipped silently) */

static void (*g_warn)(const char *line);
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { uint64_t dev, ino; } g_warned[WARNED_MAX];
static unsigned g_nwarned;

void ipc_set_warning(void (*fn)(const char *line))
{
    g_warn = fn;
}

int ipc_parse_status_ids(const char *text, const char *key, unsigned *eff, unsigned *fs)
{
    char line[8];
    const char *p;
    unsigned r, e, s, f;
    size_t n = strlen(key);

    if (n + 2 > sizeof(line))
        return -1;
    line[0] = '\n';
    memcpy(line + 1, key, n + 1);
    if (strncmp(text, key, n) == 0)
        p = text + n;
    else if ((p = strstr(text, line)) != NULL)
        p += 1 + n;
    if (!p || sscanf(p, "%u %u %u %u", &r, &e, &s, &f) != 4)
        return -1;
    *eff = e;
    *fs = f;
    return 0;
}

int ipc_parse_status_uids(const char *text, unsigned *euid, unsigned *fsuid)
{
    return ipc_parse_status_ids(text, "Uid:", euid, fsuid);
}

int ipc_process_uids(int pid, unsigned *euid, unsigned *fsuid)
{
    char path[64], *text;
    size_t len;
    int rc;

    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    if (ipc_read_file(path, &text, &len) < 0)
        return errno == ENOENT || errno == ESRCH ? IPC_ERR_NO_PROCESS : IPC_ERR_SYSTEM;
    rc = ipc_parse_status_uids(text, euid, fsuid) == 0 ? IPC_OK : IPC_ERR_SYSTEM;
    free(text);
    return rc;
}

int ipc_socket_owner_ok(unsigned owner, unsigned euid, unsigned fsuid)
{
    /* (the runtime binds its socket as its file-system uid, its effective
     * one unless it changed since) */
    return owner == fsuid || owner == euid;
}

/* "uid 1001 (eve)", the name where this system knows it. */
static void user_text(unsigned uid, char *out, size_t cap)
{
    struct passwd pw, *res = NULL;
    char buf[1024];

    if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name)
        snprintf(out, cap, "uid %u (%.64s)", uid, res->pw_name);
    else
        snprintf(out, cap, "uid %u", uid);
}

void ipc_fake_text(const char *path, int pid, unsigned owner, unsigned uid, char *out, size_t cap)
{
    char who[96], whose[96];

    user_text(owner, who, sizeof(who));
    user_text(uid, whose, sizeof(whose));
    snprintf(out, cap, "skipped %s: made by %s, not by process %d's user %s (a socket another user planted)",
             path, who, pid, whose);
}

void ipc_warn_once(uint64_t dev, uint64_t ino, const char *line)
{
    int seen = 0;

    pthread_mutex_lock(&g_lock);
    for (unsigned i = 0; i < g_nwarned && !seen; i++)
        seen = g_warned[i].dev == dev && g_warned[i].ino == ino;
    if (!seen && g_nwarned < WARNED_MAX) {
        g_warned[g_nwarned].dev = dev;
        g_warned[g_nwarned].ino = ino;
        g_nwarned++;
    } else {
        seen = 1;
    }
    pthread_mutex_unlock(&g_lock);
    if (!seen && g_warn)
        g_warn(line);
}

int ipc_check_peer_process(int fd, int pid, const char *path, char *err, size_t errlen)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
        return ipc_errorf(IPC_ERR_SYSTEM, err, errlen, "cannot tell who listens on the diagnostics socket of "
                          "process %d: %s", pid, strerror(errno));
    /* (the listener's pid as our pid namespace sees it, as pid is: 0 when
     * it is in no namespace we see) */
    if (cred.pid != pid) {
        char who[96];
        user_text(cred.uid, who, sizeof(who));
        return ipc_errorf(IPC_ERR_NO_SOCKET, err, errlen, "the diagnostics socket %s is not process %d's own: "
                          "process %d of %s listens on it (a socket another program planted); nothing was sent",
                          path && *path ? path : "found", pid, (int)cred.pid, who);
    }
    return IPC_OK;
}
