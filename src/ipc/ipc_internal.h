/* ipc_internal.h - helpers shared by the files of src/ipc/ and not part of
 * its interface: little-endian access, error sentences, deadlines. */
#ifndef CLRPROBE_IPC_INTERNAL_H
#define CLRPROBE_IPC_INTERNAL_H

#include "ipc/ipc.h"

#include <stdint.h>
#include <stdio.h>

static inline void ipc_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void ipc_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint16_t ipc_get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t ipc_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t ipc_get_u64(const uint8_t *p)
{
    return (uint64_t)ipc_get_u32(p) | ((uint64_t)ipc_get_u32(p + 4) << 32);
}

/* Formats one sentence into err (when err and errlen are set); returns status. */
int ipc_errorf(int status, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reads a whole (/proc) file into a malloc'd NUL-terminated buffer (at most
 * 64 MiB): 0, or -1 with errno set. */
int ipc_read_file(const char *path, char **buf, size_t *len);

/* Monotonic milliseconds, and what is left until a deadline (>= 0). */
int64_t ipc_now_ms(void);
int ipc_remaining_ms(int64_t deadline);

/* The standard sentences, shared by several files. */
#define IPC_MSG_NO_PROCESS "no process with pid %d"
#define IPC_MSG_NO_SOCKET                                                               \
    "process %d is not a .NET process, or its diagnostics are disabled "                \
    "(DOTNET_EnableDiagnostics=0), or its runtime is older than .NET Core 3.0"
#define IPC_MSG_PERMISSION "permission denied: run clrprobe as the same user as process %d, or as root"
#define IPC_MSG_PERMISSION_ROOT                                                         \
    "permission denied on process %d although clrprobe runs as root (the process holds " \
    "privileges clrprobe lacks, such as capabilities, or is in another container)"

/* IPC_ERR_PERMISSION with the message that fits our user (root or not). */
int ipc_permission_error(int pid, char *err, size_t errlen);
#define IPC_MSG_REFUSED "the diagnostics socket of process %d does not answer (the process may be exiting)"
#define IPC_MSG_TIMEOUT "timed out after %d ms waiting for process %d to answer"
#define IPC_MSG_CANCELLED "interrupted"

/* Whether a socket named for pid with key (and modified at mtime, seconds
 * since the epoch) belongs to the running process pid, given that
 * process's starttime: the key matches, or the socket is not older than
 * the process.  2 = key matches, 1 = by time only, 0 = stale. */
int ipc_socket_currency(int pid, uint64_t key, int64_t mtime, uint64_t starttime);

/* The boot time (btime, seconds since the epoch), read once; 0 if unknown. */
int64_t ipc_boot_time(void);

/* A wait budget: an absolute deadline (ipc_now_ms() based), the timeout it
 * came from (quoted in messages), and a descriptor whose readability
 * cancels the wait (-1: none). */
typedef struct ipc_wait {
    int64_t deadline;
    int total_ms;
    int cancel_fd;
} ipc_wait;

ipc_wait ipc_wait_for(int timeout_ms, int cancel_fd);

/* The transport under one wait budget.  ipc_connect_process_until:
 * ipc_socket_path + ipc_connect_until, in the process's namespaces when they
 * are not ours (a process in a container). */
int ipc_connect_until(const char *path, const ipc_wait *w, char *err, size_t errlen);
int ipc_connect_process_until(int pid, const ipc_wait *w, char *err, size_t errlen);
int ipc_send_until(int fd, int pid, const ipc_wait *w, const uint8_t *msg, size_t len, char *err, size_t errlen);
int ipc_read_reply_until(int fd, int pid, const ipc_wait *w, uint8_t *reply, size_t cap, size_t *reply_len,
                         char *err, size_t errlen);
int ipc_request_until(int pid, const ipc_wait *w, const uint8_t *msg, size_t len,
                      uint8_t *reply, size_t cap, size_t *reply_len, char *err, size_t errlen);

/* Whether a diagnostics socket is the target's own (trust.c).
 * ipc_parse_status_uids: the effective and file-system uids of a
 * /proc/PID/status text (0, or -1); ipc_process_uids reads them (IPC_OK or
 * a status); ipc_socket_owner_ok: whether a socket of that owner can be
 * the process's; ipc_fake_text: the sentence naming a socket skipped for
 * its owner; ipc_warn_once: that sentence on the warning line, once per
 * socket (dev, inode); ipc_check_peer_process: whether the listener at the
 * other end of the connected fd is process pid (IPC_OK, or
 * IPC_ERR_NO_SOCKET naming the listener: nothing must be sent then). */
int ipc_parse_status_uids(const char *text, unsigned *euid, unsigned *fsuid);
int ipc_parse_status_ids(const char *text, const char *key, unsigned *eff, unsigned *fs);   /* "Uid:", "Gid:" */
int ipc_process_uids(int pid, unsigned *euid, unsigned *fsuid);
int ipc_socket_owner_ok(unsigned owner, unsigned euid, unsigned fsuid);
void ipc_fake_text(const char *path, int pid, unsigned owner, unsigned uid, char *out, size_t cap);
void ipc_warn_once(uint64_t dev, uint64_t ino, const char *line);
int ipc_check_peer_process(int fd, int pid, const char *path, char *err, size_t errlen);

#endif
