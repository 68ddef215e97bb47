/* control_protocol.h - the line protocol between `clrprobe attach`
 * (src/cli/cmd_attach.c) and the agent it attached (src/agent/control.c,
 * src/agent/attach.c), defined once for both ends.  The command listens on
 * a Unix stream socket (its path travels in the configuration as ctl=); the
 * agent connects from InitializeForAttach.
 *
 *   agent -> command:  "hello PID"            connected
 *                      "error TEXT"           activation refused, and why
 *                      "ready M A T F NS"     catch-up done (modules, assemblies,
 *                                             threads, functions, its duration in ns)
 *                      "detaching"            RequestProfilerDetach accepted
 *                      "detach-failed HR"     RequestProfilerDetach refused
 *                      "detached"             ProfilerDetachSucceeded: trace closed
 *                      "exited"               the process is shutting down
 *                      "stopped"              (a child of `clrprobe run`) recording stopped
 *                                             at the end of the run: trace closed
 *                      "snapshot I S F O B R P"  heap snapshot I taken (`clrprobe heap`):
 *                                             status S (0x%08x), heap_end flags F, O objects,
 *                                             B bytes, R roots, the GC's pause P in ns
 *                      "heap-refused HR"      the runtime refused GC monitoring: no snapshot
 *                      "heap-done"            the snapshots asked for (heap_count) are taken
 *   command -> agent:  "trace" + an fd        the trace file (SCM_RIGHTS), right after
 *                                             "hello" when the configuration has no output;
 *                                             a second fd with it: the per-CPU clock's page
 *                                             (common/cpu_clock_page.h), when the command
 *                                             holds one for the process
 *                      "detach"               stop recording and detach (a child of
 *                                             `clrprobe run`: stop recording, the run ended)
 *                      (end of stream)        the command went away: detach too
 *
 * `clrprobe run` speaks the same protocol on its run socket (cfg.run) with
 * the processes its program starts: each says "hello PID", gets "trace" and
 * its file, and is sent "detach" when the run ends.
 *
 * Every message is one line ending in '\n'.  A message with arguments is its
 * word, one space and the arguments (the *_FMT formats below, printf's and,
 * for "ready", scanf's too); one without is the word alone.  HR is written
 * as 0x%08x, TEXT is escaped (common/escape.h) so it cannot break the line.
 * "trace\n" is sent as exactly its CP_CTL_TRACE_LEN bytes in one sendmsg
 * with the descriptor, and received as exactly that many. */
#ifndef CLRPROBE_COMMON_CONTROL_PROTOCOL_H
#define CLRPROBE_COMMON_CONTROL_PROTOCOL_H

#include <sys/socket.h>
#include <sys/un.h>

#include <string.h>

/* A buffer that holds any line the agent sends, its newline and a NUL: the
 * agent cuts a longer line to fit (src/agent/control.c, control_send). */
#define CP_CTL_LINE_MAX 600

/* ---- agent -> command: the words ---- */
#define CP_CTL_HELLO          "hello"
#define CP_CTL_ERROR          "error"
#define CP_CTL_READY          "ready"
#define CP_CTL_DETACHING      "detaching"
#define CP_CTL_DETACH_FAILED  "detach-failed"
#define CP_CTL_DETACHED       "detached"
#define CP_CTL_EXITED         "exited"
#define CP_CTL_STOPPED        "stopped"
#define CP_CTL_SNAPSHOT       "snapshot"
#define CP_CTL_HEAP_REFUSED   "heap-refused"
#define CP_CTL_HEAP_DONE      "heap-done"
#define CP_CTL_TRACING        "tracing"         /* attach --trace: the probes are asked for */
#define CP_CTL_STAYS          "stays"           /* the detach was refused as expected (--trace rewrote IL):
                                                   recording ended, the agent stays loaded, quiet */

/* ... and the lines with arguments, without the newline. */
#define CP_CTL_HELLO_FMT          CP_CTL_HELLO " %d"                  /* PID */
#define CP_CTL_ERROR_FMT          CP_CTL_ERROR " %s"                  /* TEXT, escaped */
#define CP_CTL_DETACH_FAILED_FMT  CP_CTL_DETACH_FAILED " 0x%08x"      /* HR */
/* "ready"'s arguments: modules, assemblies, threads, functions (unsigned)
 * and the catch-up's duration in ns (unsigned long long); the same format
 * writes them (agent) and reads them (command). */
#define CP_CTL_READY_ARGS_FMT     "%u %u %u %u %llu"
#define CP_CTL_READY_FMT          CP_CTL_READY " " CP_CTL_READY_ARGS_FMT
/* "snapshot"'s arguments, written and read with these formats. */
#define CP_CTL_SNAPSHOT_ARGS_FMT  "%u 0x%08x 0x%x %llu %llu %u %llu"
#define CP_CTL_SNAPSHOT_FMT       CP_CTL_SNAPSHOT " " CP_CTL_SNAPSHOT_ARGS_FMT
/* A "snapshot" status that is no HRESULT of the runtime's: the snapshot was
 * taken, but the trace stopped (a full disk, a file size limit) before all
 * of it was written, so it is not in the trace whole. */
#define CP_HEAP_SNAPSHOT_CUT      0xC1A90001u
#define CP_CTL_HEAP_REFUSED_FMT   CP_CTL_HEAP_REFUSED " 0x%08x"       /* HR */
#define CP_CTL_TRACING_FMT        CP_CTL_TRACING " %u"                /* methods */

/* ---- command -> agent ---- */
/* The message that carries the trace file's descriptor (SCM_RIGHTS). */
#define CP_CTL_TRACE       "trace\n"
#define CP_CTL_TRACE_LEN   6
/* The request to detach. */
#define CP_CTL_DETACH      "detach\n"
#define CP_CTL_DETACH_LEN  7

/* ---- `clrprobe heap` -> an agent already loaded (agent/heap/heap_listener.h) ----
 * The command connects to the abstract socket "@" CP_HEAP_SOCKET_FMT (the
 * pid as the process sees itself) and sends "heap COUNT INTERVAL_MS"; the
 * agent answers "hello", then the lines "snapshot ...", "heap-refused HR"
 * and "heap-done" above, or "error TEXT". */
#define CP_HEAP_SOCKET_FMT        "clrprobe-heap-%d"
/* An agent that stays quiet after an attach --trace (it cannot be unloaded)
 * keeps this abstract socket bound, and nothing else: how `clrprobe attach`
 * tells it from a library a refused attach left behind. */
#define CP_QUIET_SOCKET_FMT       "clrprobe-quiet-%d"
#define CP_HEAP_REQUEST           "heap"
#define CP_HEAP_REQUEST_ARGS_FMT  "%u %llu"
#define CP_HEAP_REQUEST_FMT       CP_HEAP_REQUEST " " CP_HEAP_REQUEST_ARGS_FMT
#define CP_HEAP_COUNT_MAX         10000

_Static_assert(sizeof(CP_CTL_TRACE) - 1 == CP_CTL_TRACE_LEN, "CP_CTL_TRACE_LEN is the length of CP_CTL_TRACE");
_Static_assert(sizeof(CP_CTL_DETACH) - 1 == CP_CTL_DETACH_LEN, "CP_CTL_DETACH_LEN is the length of CP_CTL_DETACH");

/* The arguments of line (without its newline) if it is message word with
 * arguments ("word ARGS"), else NULL. */
static inline const char *cp_ctl_args(const char *line, const char *word)
{
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 && line[n] == ' ' ? line + n + 1 : NULL;
}

/* The command's side of the fd-carrying message: sends CP_CTL_TRACE with
 * fd, clock_fd after it unless it is -1, and stack_fd (the stack
 * engine's ring) after that unless it is -1 (SCM_RIGHTS), on the
 * connection conn, in one sendmsg, never raising SIGPIPE.  0, or -1 (errno
 * set) when it did not all go (control_protocol.c). */
int cp_ctl_send_trace(int conn, int fd, int clock_fd, int stack_fd);

/* Whether line (without its newline) is exactly the message word. */
static inline int cp_ctl_is(const char *line, const char *word)
{
    return strcmp(line, word) == 0;
}

/* The abstract Unix socket "@" + fmt with pid (CP_HEAP_SOCKET_FMT,
 * CP_QUIET_SOCKET_FMT: the pid as the process sees itself) into *addr; the
 * length to bind or connect with. */
socklen_t cp_abstract_address(struct sockaddr_un *addr, const char *fmt, int pid);

#endif
