/* ipc.h - a client of the .NET runtime's diagnostics IPC on Linux (the
 * "dotnet-diagnostic-{pid}-{key}-socket" Unix socket): finding a process's
 * socket, listing .NET processes, asking a process who it is
 * (ProcessInfo2 / ProcessInfo) and asking it to load a profiler
 * (AttachProfiler).  Wire format: docs/attach.md, "AttachProfiler on the
 * wire", and dotnet/diagnostics documentation/design-docs/ipc-protocol.md.
 *
 * Layers, one file each:
 *   utf16.c    UTF-8 <-> UTF-16LE (pure)
 *   wire.c     message encoding / decoding into caller buffers (pure)
 *   hresult.c  HRESULT -> sentence
 *   procfs.c   what /proc says about a process (parsers pure, readers not)
 *   locate.c   which socket belongs to a pid
 *   trust.c    whether a socket is the process's own (owner, listener)
 *   list.c     every live .NET process whose socket we can see
 *   transport.c connect, one request/one reply with a deadline
 *   commands.c ipc_attach_profiler_send/_reply, ipc_process_info
 *   eventpipe.c an EventPipe session (CollectTracing, StopTracing)
 *   thread_wait.c what a blocked thread waits on (from /proc)
 *   profcheck.c whether a main profiler is already loaded (from /proc)
 *   byname.c   .NET processes by name (attach -n)
 *   status.c   status names, error sentences
 *
 * Conventions: functions that can fail return IPC_OK (0) or a negative
 * ipc_status and, when err is not NULL, put one lower-case sentence in err
 * (no "clrprobe:" prefix, no trailing period or newline) that can be shown to
 * the user as is.  No function blocks for longer than its timeout, and none
 * keeps a file descriptor or memory it did not hand to the caller. */
#ifndef CLRPROBE_IPC_H
#define CLRPROBE_IPC_H

#include "api/cor.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ------------------------------------------------------------------------
 * Results.
 * ------------------------------------------------------------------------ */

typedef enum ipc_status {
    IPC_OK              =  0,
    IPC_ERR_NO_PROCESS  = -1,  /* no process with that pid */
    IPC_ERR_NO_SOCKET   = -2,  /* process exists, but has no (current) diagnostics socket */
    IPC_ERR_PERMISSION  = -3,  /* EACCES/EPERM on /proc/PID/environ or the socket */
    IPC_ERR_REFUSED     = -4,  /* socket exists but nobody accepts (stale / exiting) */
    IPC_ERR_TIMEOUT     = -5,  /* no complete answer before the deadline */
    IPC_ERR_PROTOCOL    = -6,  /* malformed, truncated or unexpected reply */
    IPC_ERR_ENCODING    = -7,  /* a request argument cannot be encoded (not UTF-8) */
    IPC_ERR_TOO_LONG    = -8,  /* request > 65535 bytes, buffer too small, path too long */
    IPC_ERR_SYSTEM      = -9,  /* any other system error (err says which) */
    IPC_ERR_CANCELLED   = -10, /* the cancel descriptor became readable (Ctrl-C) */
} ipc_status;

/* A short name of a status ("no process", "timeout", ...), for logs/tests. */
const char *ipc_status_name(int status);

/* Where the sentences about skipped sockets go (one line each, no
 * newline): a diagnostics socket named for a process but made by another
 * user, or listened on by another process, is skipped and named once
 * (trust.c).  NULL (the default): nowhere. */
void ipc_set_warning(void (*fn)(const char *line));

/* ------------------------------------------------------------------------
 * Wire constants.
 * ------------------------------------------------------------------------ */

#define IPC_MAGIC              "DOTNET_IPC_V1"   /* 13 chars + NUL = 14 bytes on the wire */
#define IPC_MAGIC_SIZE         14
#define IPC_HEADER_SIZE        20
#define IPC_MAX_MESSAGE        65535             /* the header's size field is a uint16 */

#define IPC_SET_DUMP           0x01
#define IPC_SET_EVENTPIPE      0x02
#define IPC_SET_PROFILER       0x03
#define IPC_SET_PROCESS        0x04
#define IPC_SET_SERVER         0xFF

#define IPC_ID_ATTACH_PROFILER 0x01              /* in IPC_SET_PROFILER */
#define IPC_ID_PROCESS_INFO    0x00              /* in IPC_SET_PROCESS */
#define IPC_ID_PROCESS_INFO2   0x04              /* in IPC_SET_PROCESS (.NET 6+) */
#define IPC_ID_OK              0x00              /* in IPC_SET_SERVER */
#define IPC_ID_ERROR           0xFF              /* in IPC_SET_SERVER */

/* The diagnostics server's own "not supported" (DS_IPC_E_NOTSUPPORTED); the
 * other diagnostics HRESULTs (CORDIAGIPC_E_*) are in api/corprof.h. */
#define IPC_E_NOTSUPPORTED     ((HRESULT)0x80131515)

/* Longest socket path (sockaddr_un.sun_path, NUL included). */
#define IPC_PATH_MAX           108

/* ------------------------------------------------------------------------
 * Pure encoding and decoding (wire.c, utf16.c): no I/O, no allocation
 * except ipc_decode_process_info's strings.
 * ------------------------------------------------------------------------ */

typedef struct ipc_header {
    uint16_t size;          /* whole message, header included (>= 20) */
    uint8_t  command_set;
    uint8_t  command_id;
    uint16_t reserved;
} ipc_header_t;

/* A decoded server reply. */
typedef struct ipc_reply {
    ipc_header_t   header;
    int            is_error;   /* IPC_ID_ERROR */
    HRESULT        hr;         /* Error: its HRESULT; OK: the int32 that follows, if any, else 0 */
    const uint8_t *payload;    /* the bytes after the header (points into the caller's buffer) */
    size_t         payload_len;
} ipc_reply_t;

/* Writes a 20-byte header (magic, size, set, id, reserved 0) into buf. */
void ipc_encode_header(uint8_t *buf, uint16_t size, uint8_t command_set, uint8_t command_id);

/* Parses the first 20 bytes of buf: IPC_OK, or IPC_ERR_PROTOCOL when len < 20,
 * the magic is wrong or size < 20. */
int ipc_parse_header(const uint8_t *buf, size_t len, ipc_header_t *out);

/* Parses one whole server reply (header + payload) from buf[0..len): checks
 * the header, that len covers header.size (bytes beyond it are ignored), that
 * the command set is 0xFF and the id OK or Error, and that an Error carries
 * its 4-byte HRESULT.  IPC_OK or IPC_ERR_PROTOCOL with a sentence in err. */
int ipc_parse_reply(const uint8_t *buf, size_t len, ipc_reply_t *out, char *err, size_t errlen);

/* Builds a request with an empty payload (e.g. ProcessInfo2) into buf.
 * Returns its length (20) or IPC_ERR_TOO_LONG when cap < 20. */
long ipc_build_empty_request(uint8_t *buf, size_t cap, uint8_t command_set, uint8_t command_id);

/* Builds an AttachProfiler (0x03, 0x01) request into buf:
 *   header, uint32 attach_timeout_ms, GUID (16 raw bytes, Data1/2/3 LE),
 *   uint32 count + UTF-16LE agent_path with its NUL (count includes the NUL),
 *   uint32 client_len, client_data.
 * Returns the message length, IPC_ERR_ENCODING when agent_path is not valid
 * UTF-8, IPC_ERR_TOO_LONG when it exceeds 65535 bytes or cap. */
long ipc_build_attach_profiler(uint8_t *buf, size_t cap, uint32_t attach_timeout_ms,
                               const GUID *clsid, const char *agent_path,
                               const void *client_data, uint32_t client_len);

/* Writes one wire string (uint32 count incl. NUL, UTF-16LE units, NUL) at
 * buf: returns bytes written, IPC_ERR_ENCODING, or IPC_ERR_TOO_LONG. */
long ipc_encode_string(uint8_t *buf, size_t cap, const char *utf8);

/* Reads one wire string at buf[*pos..len) into a new malloc'd UTF-8 string
 * (*out; "" for count 0) and advances *pos.  IPC_ERR_PROTOCOL when the count
 * runs past len; other units after an embedded NUL are dropped. */
int ipc_decode_string(const uint8_t *buf, size_t len, size_t *pos, char **out);

/* UTF-8 -> UTF-16LE.  Writes at most cap_units units (2 bytes each, no NUL
 * added) and returns the number of units the whole string needs, or -1 when s
 * is not valid UTF-8 (overlong forms, surrogates, > U+10FFFF, cut sequences). */
long ipc_utf8_to_utf16le(const char *s, uint8_t *out, size_t cap_units);

/* UTF-16LE -> UTF-8, stopping at nunits or the first NUL unit.  Writes at
 * most cap-1 bytes (never cutting a character) plus a NUL when cap > 0, and
 * returns the length the whole conversion needs (like snprintf).  Unpaired
 * surrogates become U+FFFD. */
size_t ipc_utf16le_to_utf8(const uint8_t *in, size_t nunits, char *out, size_t cap);

/* ------------------------------------------------------------------------
 * Process information (ProcessInfo2, or ProcessInfo on older runtimes).
 * ------------------------------------------------------------------------ */

typedef struct ipc_process_info {
    uint64_t pid;               /* as the runtime sees it (differs in a container) */
    uint8_t  cookie[16];        /* runtime instance cookie */
    char    *command_line;      /* all strings malloc'd UTF-8, never NULL after success: */
    char    *os;                /*   "" when the runtime did not send them */
    char    *arch;
    char    *entrypoint;        /* managed entry-point assembly name (ProcessInfo2 only) */
    char    *runtime_version;   /* CLR product version, e.g. "10.0.12+abc..." (ProcessInfo2 only) */
    int      version;           /* 2 = from ProcessInfo2, 1 = from ProcessInfo */
} ipc_process_info_t;

/* Decodes a ProcessInfo (version 1) or ProcessInfo2 (version 2) reply
 * payload.  IPC_OK, or IPC_ERR_PROTOCOL (with *out left empty) when the
 * payload is short or a string length runs past its end.  Bytes after the
 * last field are ignored (later runtimes may add fields). */
int ipc_decode_process_info(const uint8_t *payload, size_t len, int version, ipc_process_info_t *out);

/* Frees the strings of info and zeroes it; safe on a zeroed or freed struct. */
void ipc_process_info_free(ipc_process_info_t *info);

/* ------------------------------------------------------------------------
 * HRESULTs.
 * ------------------------------------------------------------------------ */

/* One sentence for an HRESULT a diagnostics command can answer with, e.g.
 * "a profiler is already active in the process (only one can be; detach it
 * first)"; "HRESULT 0x%08X" for others (in a thread-local buffer, valid until
 * the next call on the same thread). */
const char *ipc_hresult_message(HRESULT hr);

/* ------------------------------------------------------------------------
 * /proc (procfs.c).
 * ------------------------------------------------------------------------ */

/* Field 22 (starttime, clock ticks since boot) from the text of
 * /proc/PID/stat; the command name in field 2 may hold spaces and ')'.
 * 0 on success, -1 when the text is malformed. */
int ipc_parse_stat_starttime(const char *stat_text, uint64_t *out);

/* Reads the starttime of pid: IPC_OK, IPC_ERR_NO_PROCESS, IPC_ERR_SYSTEM. */
int ipc_process_starttime(int pid, uint64_t *out);

/* How long ago pid started, in milliseconds (to the kernel's tick):
 * IPC_OK, IPC_ERR_NO_PROCESS, IPC_ERR_SYSTEM. */
int ipc_process_age_ms(int pid, int64_t *out);

/* The directory where pid's runtime puts its socket: its TMPDIR from
 * /proc/PID/environ, "/tmp" when unset or empty (no trailing slash kept
 * except for "/").  IPC_OK, IPC_ERR_NO_PROCESS, IPC_ERR_PERMISSION,
 * IPC_ERR_TOO_LONG, IPC_ERR_SYSTEM. */
int ipc_process_tmpdir(int pid, char *out, size_t cap, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Finding sockets (locate.c, list.c).
 * ------------------------------------------------------------------------ */

/* Parses a file name "dotnet-diagnostic-{pid}-{key}-socket" (no directory):
 * 0 and pid/key, or -1 when it is not one. */
int ipc_parse_socket_name(const char *name, int *pid, uint64_t *key);

/* The socket of process pid, in the process's TMPDIR.  Among several
 * sockets named for pid, the one whose key equals the process's starttime
 * wins; without one, a socket modified after the process started (some
 * environments compute the key differently) is taken; sockets left behind
 * by an earlier process with the same pid are never used.  Errors:
 *   IPC_ERR_NO_PROCESS  "no process with pid N"
 *   IPC_ERR_NO_SOCKET   "process N is not a .NET process, or its diagnostics are
 *                        disabled (DOTNET_EnableDiagnostics=0), or its runtime is
 *                        older than .NET Core 3.0"
 *   IPC_ERR_PERMISSION  "permission denied: run clrprobe as the same user as
 *                        process N, or as root" (when clrprobe already runs as
 *                        root: "permission denied on process N although clrprobe
 *                        runs as root (the process holds privileges clrprobe
 *                        lacks, such as capabilities, or is in another container)")
 *   IPC_ERR_TOO_LONG / IPC_ERR_SYSTEM with the reason. */
int ipc_socket_path(int pid, char *out, size_t cap, char *err, size_t errlen);

/* One live .NET process found by its socket. */
typedef struct ipc_endpoint {
    int      pid;
    uint64_t key;                    /* from the socket name */
    uid_t    uid;                    /* owner of the socket file */
    char     path[IPC_PATH_MAX];     /* as the process's file system has it */
    int      inner_pid;              /* the pid it knows itself by (its pid namespace's) */
    int      in_container;           /* its mount or network namespace is not ours */
    char     container[65];          /* its container's id, from its cgroup ("" when none is named there) */
} ipc_endpoint_t;

/* Scans $TMPDIR (ours) and /tmp for dotnet-diagnostic-*-socket sockets, and
 * the processes of other mount and network namespaces (containers) that
 * have the runtime mapped for theirs (in their own TMPDIR, from inside), and
 * returns the live ones (the process exists and the socket is its own, by
 * the rule of ipc_socket_path), one per pid, sorted by pid, as a malloc'd array in *out (free() it; NULL when
 * *count is 0).  Unreadable directories and processes are skipped.  IPC_OK or
 * IPC_ERR_SYSTEM (out of memory). */
int ipc_list_processes(ipc_endpoint_t **out, size_t *count, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Transport (transport.c).
 * ------------------------------------------------------------------------ */

/* Connects to the socket at path within timeout_ms.  Returns a non-blocking
 * (O_NONBLOCK, O_CLOEXEC) fd >= 0 for the caller to close, or:
 *   IPC_ERR_NO_SOCKET   the path does not exist (any more)
 *   IPC_ERR_REFUSED     "the diagnostics socket of process N does not answer
 *                        (the process may be exiting)"
 *   IPC_ERR_PERMISSION  "permission denied: run clrprobe as the same user as
 *                        process N, or as root"
 *   IPC_ERR_TIMEOUT, IPC_ERR_TOO_LONG, IPC_ERR_SYSTEM.
 * N is taken from the socket's name (the path itself when it has none). */
int ipc_connect(const char *path, int timeout_ms, char *err, size_t errlen);

/* Sends msg on fd and reads one whole reply into reply[0..cap) (*reply_len
 * set to its header's size), all within timeout_ms.  Does not close fd.
 *   IPC_ERR_TIMEOUT   "timed out after N ms waiting for process P to answer"
 *   IPC_ERR_PROTOCOL  closed without answering, truncated, bad magic, too big
 *   IPC_ERR_SYSTEM    send/recv failed.
 * pid is used in messages only. */
int ipc_exchange(int fd, int pid, int timeout_ms, const uint8_t *msg, size_t len,
                 uint8_t *reply, size_t cap, size_t *reply_len, char *err, size_t errlen);

/* ipc_socket_path + ipc_connect + ipc_exchange + close, one deadline for all. */
int ipc_request(int pid, int timeout_ms, const uint8_t *msg, size_t len,
                uint8_t *reply, size_t cap, size_t *reply_len, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Commands (commands.c).
 * ------------------------------------------------------------------------ */

/* Asks process pid to load the profiler clsid from agent_path (absolute)
 * and call its InitializeForAttach with client_data, in two steps, so that
 * the caller can serve the agent (which calls back while the runtime has
 * not answered yet) and honour Ctrl-C while it waits:
 *
 * ipc_attach_profiler_send() connects and sends the request within
 * timeout_ms (also the payload's attach timeout: the runtime may wait that
 * long for a background GC), returning early with IPC_ERR_CANCELLED when
 * cancel_fd (-1: none) becomes readable.  It returns the connection (an fd
 * >= 0 for the caller to close), or a negative ipc_status with err set.
 *
 * The runtime answers on that connection once InitializeForAttach and
 * ProfilerAttachComplete have returned.  When it is readable,
 * ipc_attach_profiler_reply() reads the answer: IPC_OK with *hr_out = S_OK
 * (attached) or the failure HRESULT (ipc_hresult_message(*hr_out) explains
 * it), or a negative ipc_status with err set. */
int ipc_attach_profiler_send(int pid, int timeout_ms, const GUID *clsid, const char *agent_path,
                             const void *client_data, uint32_t client_len, int cancel_fd,
                             char *err, size_t errlen);
int ipc_attach_profiler_reply(int fd, int pid, HRESULT *hr_out, char *err, size_t errlen);

/* Asks process pid for ProcessInfo2, and for ProcessInfo when the runtime
 * answers CORDIAGIPC_E_UNKNOWN_COMMAND (.NET Core 3.x, .NET 5), within
 * timeout_ms in all.  IPC_OK with *out filled (free with
 * ipc_process_info_free), or a negative ipc_status with err set (an Error
 * reply gives IPC_ERR_PROTOCOL with the HRESULT's sentence). */
int ipc_process_info(int pid, int timeout_ms, ipc_process_info_t *out, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * What a blocked thread waits on (thread_wait.c).
 * ------------------------------------------------------------------------ */

/* What thread tid (as our pid namespace numbers it) of process pid waits on
 * now, from the system call it sleeps in: "a sleep", "a futex: a lock, an
 * event or a condition variable", "reading tcp socket 127.0.0.1:5000 to
 * 127.0.0.1:41712", "I/O on 3 sockets, epoll with 4 descriptors", ...  1
 * and out, or 0 when it runs or /proc does not say. */
int ipc_thread_wait(int pid, int tid, char *out, size_t cap);

/* The tid, in our pid namespace, of the thread of process pid that its own
 * namespace numbers inner_tid (a process in a container); inner_tid itself
 * when the process is in ours; -1 when there is no such thread. */
int ipc_host_tid(int pid, int inner_tid);

/* The parsers it uses (pure).  ipc_parse_syscall: the text of
 * /proc/PID/task/TID/syscall, 1 with the call's number and its six
 * arguments, 0 when the thread runs or the text is not one.
 * ipc_socket_from_net_table: the socket of inode in the text of a
 * /proc/net/tcp-like table, described with proto ("tcp", "udp"): 1 and
 * out, or 0. */
int ipc_parse_syscall(const char *text, long *nr, unsigned long args[6]);
int ipc_socket_from_net_table(const char *text, unsigned long inode, const char *proto, char *out, size_t cap);

/* ------------------------------------------------------------------------
 * EventPipe sessions (eventpipe.c): the runtime's own events, streamed on
 * the diagnostics connection in the nettrace format (src/eventpipe/).
 * ------------------------------------------------------------------------ */

typedef struct ipc_ep_provider {
    const char *name;           /* e.g. "System.Diagnostics.Metrics" */
    uint64_t    keywords;
    uint32_t    level;          /* 0 LogAlways .. 5 Verbose */
    const char *filter;         /* the provider's arguments ("k=v;k2=v2"), or NULL */
} ipc_ep_provider;

/* Builds a CollectTracing2 (version 2) or CollectTracing3 (version 3: no
 * stacks) request for a nettrace stream without rundown into buf.  Its
 * length, or IPC_ERR_ENCODING / IPC_ERR_TOO_LONG. */
long ipc_build_collect_tracing(uint8_t *buf, size_t cap, int version, uint32_t buffer_mb,
                               const ipc_ep_provider *providers, size_t n);

/* Starts a session in process pid: the connection that now streams it (an
 * fd >= 0, non-blocking, for the caller to read and close) and *session,
 * or a negative ipc_status with err set.  CollectTracing3, or
 * CollectTracing2 where the runtime does not know it. */
int ipc_eventpipe_start(int pid, int timeout_ms, int cancel_fd, const ipc_ep_provider *providers, size_t n,
                        uint64_t *session, char *err, size_t errlen);

/* Asks process pid to stop session (StopTracing): the runtime then writes
 * what it holds, ends the stream and closes its connection. */
int ipc_eventpipe_stop(int pid, int timeout_ms, uint64_t session, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * A profiler already loaded (profcheck.c).  The runtime has one main
 * profiler; asked to attach a second, it refuses only after it has loaded
 * the library, and never unloads it (docs/attach.md, "One profiler per
 * process"), so the command finds out first, from /proc, and makes no
 * attempt that would be refused.
 * ------------------------------------------------------------------------ */

typedef enum ipc_profiler_kind {
    IPC_PROFILER_NONE = 0,
    IPC_PROFILER_STARTUP,       /* the startup profiler the environment names, loaded */
    IPC_PROFILER_CLRPROBE,      /* clrprobe's agent, attached and running (its threads are there) */
    IPC_PROFILER_CLRPROBE_QUIET, /* clrprobe's agent, staying quiet after an attach --trace: its quiet socket
                                   (CP_QUIET_SOCKET_FMT) is bound; a later attach talks to it there */
} ipc_profiler_kind;

/* The pid process pid knows itself by (its innermost pid namespace's, the
 * NSpid line of /proc/PID/status); pid itself when not there. */
int ipc_inner_pid(int pid);

/* The container's id in a /proc/PID/cgroup text: the last run of 64
 * hexadecimal digits in a path (libpod-ID.scope, docker-ID.scope,
 * cri-containerd-ID.scope, .../docker/ID, kubepods' pod.../ID): 1 and out
 * (65 bytes), or 0.  ipc_container_id: of process pid. */
int ipc_container_id_from_cgroup(const char *text, size_t len, char out[65]);
int ipc_container_id(int pid, char out[65]);

/* Is the abstract Unix socket "@name" bound by pid itself: listed in its
 * network namespace's /proc/PID/net/unix, with an inode that is one of
 * pid's descriptors (any user may bind a name first: peer.c)? */
int ipc_has_abstract_socket(int pid, const char *name);

/* The inode of the socket bound at the abstract "@name" in the text of a
 * /proc/net/unix (len bytes): 1 and *inode, or 0 if not there. */
int ipc_unix_inode(const char *text, size_t len, const char *name, unsigned long *inode);

/* Checks that the listener at the other end of the connected socket fd
 * (the abstract "@name") is process pid, as our pid namespace sees it, with
 * its uid (SO_PEERCRED).  IPC_OK; IPC_ERR_REFUSED with "the socket name
 * @name is held by process X of uid Y, not by process PID: ..." in err. */
int ipc_check_listener(int fd, const char *name, int pid, char *err, size_t errlen);

/* Connects to the agent's abstract socket fmt (CP_HEAP_SOCKET_FMT,
 * CP_QUIET_SOCKET_FMT) of process pid (its name holds pid as the process
 * knows itself: ipc_inner_pid) and checks the listener
 * (ipc_check_listener): IPC_OK and *out; IPC_ERR_NO_SOCKET when nothing
 * listens there, IPC_ERR_REFUSED when someone else does, IPC_ERR_SYSTEM;
 * err says which. */
int ipc_connect_agent_socket(int pid, const char *fmt, int *out, char *err, size_t errlen);

typedef struct ipc_loaded_profiler {
    ipc_profiler_kind kind;
    int clrprobe;               /* the library is clrprobe's agent (libclrprobe.so) */
    char variable[32];          /* STARTUP: the variable that names it (CORECLR_PROFILER_PATH_64, ...) */
    char path[4096];            /* the library as mapped in the process */
} ipc_loaded_profiler_t;

/* Whether process pid has a main profiler loaded: its startup profiler
 * (CORECLR_ENABLE_PROFILING / DOTNET_ENABLE_PROFILING set and the library
 * CORECLR_PROFILER_PATH* / DOTNET_PROFILER_PATH* names mapped in
 * /proc/PID/maps), or clrprobe's agent attached (libclrprobe.so mapped and
 * a thread named clrprobe-* running).  A profiler attached by another tool
 * cannot be seen.  IPC_OK with *out filled (kind NONE when none), or
 * IPC_ERR_NO_PROCESS, IPC_ERR_PERMISSION (maps and environ need the right
 * to trace the process: its user, or root) or IPC_ERR_SYSTEM, with err set. */
int ipc_loaded_profiler(int pid, ipc_loaded_profiler_t *out, char *err, size_t errlen);

/* The parser it uses (pure; the environment's reading is
 * common/profiler_env.h's).  ipc_maps_find: 1 when the maps text
 * has a file mapping whose path is path (when not NULL), whose device and
 * inode are dev_major:dev_minor and ino (when ino is not 0), or whose file
 * name is base (when not NULL), with the mapped path in out (without a
 * " (deleted)" suffix); 0 when none. */
int ipc_maps_find(const char *maps, size_t len, const char *path, unsigned dev_major, unsigned dev_minor,
                  uint64_t ino, const char *base, char *out, size_t cap);

/* ------------------------------------------------------------------------
 * Work in a container's namespaces (nsjoin.c).
 * ------------------------------------------------------------------------ */

#define IPC_NS_MAX_FDS 3

/* What the work done in the target's namespaces hands back: a status (an
 * IPC_* code) with err, descriptors (-1 where none) and a text. */
typedef struct ipc_ns_result {
    int status;
    int fds[IPC_NS_MAX_FDS];
    char text[4096];
    char err[1024];
} ipc_ns_result;

typedef void (*ipc_ns_fn)(void *arg, ipc_ns_result *res);

/* 1 when process pid's mount or network namespace is not ours (a process in
 * a container, seen from the host or a sidecar). */
int ipc_ns_foreign(int pid);

/* Runs fn(arg, res) in a child process that has joined process pid's mount
 * and network namespaces (those that are not ours) and taken its root as its
 * root, so that paths resolve as they do for pid, inside its container;
 * returns what fn put in *res: IPC_OK with its descriptors (the caller's to
 * close) and text, or its status with err (and no descriptors).  The child
 * is a fork: fn may use this process's memory and descriptors as they were. */
int ipc_ns_run(int pid, ipc_ns_fn fn, void *arg, ipc_ns_result *res, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * The C library of a process (libc_check.c).
 * ------------------------------------------------------------------------ */

typedef enum ipc_libc_kind { IPC_LIBC_UNKNOWN, IPC_LIBC_GLIBC, IPC_LIBC_MUSL } ipc_libc_kind;

/* The oldest glibc the agent loads on (the Makefile's sysroot and the tests
 * keep the product to its symbols). */
#define IPC_LIBC_MIN_MAJOR 2
#define IPC_LIBC_MIN_MINOR 28

typedef struct ipc_libc {
    ipc_libc_kind kind;
    int major, minor;   /* glibc's version */
    int at_least;       /* the version is a lower bound (libc.so.6 mapped: 2.34 or later) */
    char path[4096];    /* the mapped file, as the process names it */
} ipc_libc_t;

/* The C library mapped in a /proc/PID/maps text (pure): 1 and *out, or 0
 * (kind UNKNOWN) when none is recognised. */
int ipc_libc_from_maps(const char *maps, size_t len, ipc_libc_t *out);

/* The C library of process pid: IPC_OK and *out (UNKNOWN when its maps name
 * none), or IPC_ERR_SYSTEM when its maps cannot be read. */
int ipc_target_libc(int pid, ipc_libc_t *out, char *err, size_t errlen);

/* IPC_ERR_REFUSED with the reason and the fix in err when the agent cannot
 * load on that C library (musl; glibc older than 2.28), else IPC_OK. */
int ipc_libc_refuses(const ipc_libc_t *libc, int pid, char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Processes by name (byname.c).
 * ------------------------------------------------------------------------ */

/* The name .NET gives a process (System.Diagnostics.Process.ProcessName on
 * Linux, what dotnet-trace and dotnet-counters -n match): comm, or the file
 * name of argv[0] (else argv[1]) of cmdline[0..len) when it starts with comm,
 * ignoring case (the kernel cuts comm to 15 bytes).  Pure; 0. */
int ipc_dotnet_process_name(const char *comm, const char *cmdline, size_t len, char *out, size_t cap);

/* That name for a live process, and (when cmdline is not NULL) its command
 * line, arguments joined by spaces, malloc'd (NULL if unreadable).  IPC_OK,
 * IPC_ERR_NO_PROCESS or IPC_ERR_SYSTEM. */
int ipc_process_name(int pid, char *out, size_t cap, char **cmdline);

typedef struct ipc_named_process {
    int pid;
    int by_assembly;            /* matched by its main assembly's name, not its process name */
    char name[256];             /* its process name (above) */
    char assembly[256];         /* its main assembly's name (ProcessInfo2), "" when not known */
    char *command_line;         /* malloc'd; may be NULL */
} ipc_named_process_t;

/* The .NET processes (those ipc_list_processes finds, this process
 * excepted) whose process name, or else whose main assembly's name
 * (ProcessInfo2's entry point, asked within timeout_ms), is name, ignoring
 * case.  IPC_OK with *out (free with ipc_named_processes_free; NULL when
 * *count is 0) and *denied, the number of other users' processes of that
 * process name left out (their diagnostics socket refuses us); or a negative
 * ipc_status with err set. */
int ipc_find_by_name(const char *name, int timeout_ms, ipc_named_process_t **out, size_t *count, int *denied,
                     char *err, size_t errlen);
void ipc_named_processes_free(ipc_named_process_t *v, size_t n);

#endif
