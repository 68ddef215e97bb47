/* attach_session.h - what `clrprobe attach` and `clrprobe heap` share:
 * loading the agent into a running process over the diagnostics IPC,
 * handing it the trace file, waiting for its catch-up, reading its control
 * lines, and having it detach (attach_session.c).  The control protocol is
 * common/control_protocol.h. */
#ifndef CLRPROBE_CLI_ATTACH_SESSION_H
#define CLRPROBE_CLI_ATTACH_SESSION_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli/output.h"
#include "common/config.h"
#include "common/control_protocol.h"
#include "cpuclock/cpuclock.h"

#define EXIT_INTERRUPTED 130

/* The command's end of the control connection. */
typedef struct attach_ctl {
    int ns_pid;                   /* the target, when the socket is in its container's namespaces; else 0 */
    int listen_fd, fd;
    int dir_fd;                   /* the socket's private directory, kept open (cli_listen_private) */
    char dir[64], path[128];
    char buf[1024];
    size_t used;
} attach_ctl;

/* One attach session. */
typedef struct attach_session {
    int pid;
    int sfd;                      /* signalfd: SIGINT, SIGTERM, SIGHUP */
    sigset_t old_mask;            /* the signal mask before the signalfd */
    attach_ctl ch;
    cli_output out;
    int handover_fd;              /* another user's process: the anonymous file the agent writes into, copied
                                     into out at the end (cli_handover_open); -1: the agent writes out itself */
    unsigned modules, assemblies, threads, functions;
    int hello;                    /* "hello" seen: the agent runs and has the trace file */
    int ready;                    /* "ready" seen: the catch-up is done */
    int trace;                    /* --trace: IL is rewritten, the agent cannot detach */
    int resume;                   /* the process's agent is quiet (an earlier attach --trace): talk to it
                                     on its quiet socket, not through the runtime */
    const char *trace_patterns;
    int quiet;                    /* the trace is the command's own (stack): attach_finish says nothing of it */
    int notification;             /* load as a notification profiler, beside the process's main one */
    char main_profiler[4096];     /* that one's library, as mapped in the process */
    int tracing;                  /* "tracing N" seen */
    unsigned traced;              /* its N: methods whose IL is rewritten */
    char finish_note[160];        /* what the trace lacks besides the agent's stop, for attach_finish
                                     (heap: "while snapshot N of M was written, ...") */
    char agent_error[CP_CTL_LINE_MAX];  /* what the agent said when it refused */
    char backlog[8][CP_CTL_LINE_MAX];   /* other lines that came during the attach (heap progress) */
    int nbacklog;
    cpu_clock clock;              /* the per-CPU clock held for the process (CPU samples, sampler auto or
                                     percpu, where this command may: cpuclock.h); its page goes with the trace */
    int has_clock;
} attach_session;

/* Results of the waits for a line. */
enum { GOT_LINE = 1, TIMED_OUT = 0, CLOSED = -1, INTERRUPTED = -2 };

/* attach_open's results. */
enum { ATTACH_READY, ATTACH_FAILED, ATTACH_INTERRUPTED_BEFORE, ATTACH_INTERRUPTED_DURING };

void attach_session_init(attach_session *s);

/* The process of PID text (-p, else the first operand left after getopt,
 * argv[optind]) or -n name, for the subcommand cmd; no other operand is
 * taken.  -1 after a message, with *status the exit status to return. */
int attach_resolve_pid(const char *cmd, int argc, char **argv, const char *pid_arg, const char *name, int *status);

/* Waits up to wait_ms (-1: until the agent says otherwise) for the agent's
 * lines, acting on "tracing" lines: TIMED_OUT when the time is up, GOT_LINE
 * with "exited" in line when the process is ending, CLOSED when the agent
 * went away, INTERRUPTED. */
int attach_record_for(attach_session *s, int wait_ms, char *line, size_t cap);

/* The role the agent asks for in s->pid: the main profiler's, or, when
 * the process already has a main profiler (its startup profiler, or
 * clrprobe's agent attached), a notification profiler's beside it
 * (s->notification, with that profiler's library in s->main_profiler; said
 * on stderr).  -1 after saying why when needs_main names an option that
 * needs the main role (e.g. "--trace") and the process has a main profiler:
 * no attach is attempted then (the runtime would load our library and then
 * refuse it, leaving it loaded). */
int attach_choose_role(attach_session *s, const char *needs_main);
/* 1 when pid's profiler is clrprobe's agent staying quiet after an attach
 * --trace (attach_open then talks to it: s->resume), else 0. */
int attach_agent_is_quiet(int pid);

/* Loads the agent into s->pid with cfg (its ctl= is filled here), the
 * trace going to output (NULL: the default name), and waits for its
 * catch-up: ATTACH_READY; ATTACH_FAILED after a message; interrupted
 * before anything was loaded (message given), or during the attach (the
 * caller then detaches).  Ctrl-C / SIGTERM / SIGHUP are read from s->sfd
 * from here on. */
int attach_open(attach_session *s, cp_config *cfg, const char *output, double timeout_s);

/* The agent's next control line into line (without newline), waiting up to
 * timeout_ms (-1: forever; 0: only what has arrived) and watching sfd. */
int attach_ctl_line(attach_ctl *c, int sfd, int timeout_ms, char *line, size_t cap);

/* Acts on the attach's own lines (hello, error, ready); keeps the others
 * (up to 8) for attach_next_line. */
void attach_on_line(attach_session *s, const char *line);

/* The agent's next line after the attach: those kept during it first, then
 * attach_ctl_line's. */
int attach_next_line(attach_session *s, int timeout_ms, char *line, size_t cap);

/* Puts the recorded trace in place and says what it holds ("HOW; trace
 * written to FILE").  The exit status. */
int attach_finish(attach_session *s, const char *how);

/* Has the agent detach, waits until it has, then attach_finish.  The exit
 * status. */
int attach_detach(attach_session *s);

/* Ends the session: the trace is discarded (discard, or nothing was
 * recorded into it) or kept; the control socket removed, signals restored. */
void attach_close(attach_session *s, int discard);

/* Takes a pending interruption off the signalfd. */
void attach_take_signal(int sfd);

uid_t attach_process_uid(int pid);

/* Milliseconds since t0 (cp_monotonic_ns). */
double attach_ms_since(uint64_t t0);

#endif
