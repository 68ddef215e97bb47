/* control.h - the attached agent's end of the control connection with
 * `clrprobe attach`; the protocol, shared with the command, is in
 * common/control_protocol.h.
 *
 * The agent's own control thread waits for "detach" and calls
 * RequestProfilerDetach; it is joined before ProfilerDetachSucceeded returns.
 * It is a service of the session (session.c): the session connects it,
 * starts and stops its thread, and says the last line ("detached",
 * "exited", "error ...").  What a detach needs from the session (the
 * catch-up finished, the other threads that call the runtime stopped,
 * recording stopped if the runtime refuses) the control thread asks for
 * through the hooks given at connection: control.c calls nothing above it. */
#ifndef CLRPROBE_AGENT_CONTROL_H
#define CLRPROBE_AGENT_CONTROL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "common/control_protocol.h"

typedef struct profiler profiler;

/* What the control thread asks of the session when it detaches (both run
 * on the control thread). */
typedef struct control_hooks {
    /* Before RequestProfilerDetach: returns once no other thread of the
     * agent can make an Info call (no Info call may follow the request). */
    void (*before_detach)(profiler *p);
    /* The runtime refused to detach us: nobody can stop us any more, so
     * stop recording (the reason is already noted in the trace). */
    void (*detach_refused)(profiler *p);
    /* Set for a child of a `clrprobe run` program: "detach" or the end of
     * stream means the run ended; instead of detaching, stop recording and
     * close the trace (then "stopped" is said). */
    void (*run_ended)(profiler *p);
    /* The runtime refused the detach because the agent rewrote IL (it can
     * never be unloaded): end recording and go quiet (control_go_quiet). */
    void (*stay_quiet)(profiler *p);
} control_hooks;

/* The control connection's state in a profiler instance (all zero: not
 * connected, no thread). */
typedef struct control_state {
    int connected;
    int fd;
    const control_hooks *hooks;
    pthread_t thread;
    int running;
    atomic_int stop;
    int quiet_fd;                    /* the quiet socket (control_go_quiet) */
    int has_clock;                   /* clock_fd is the per-CPU clock's page the command handed over */
    int clock_fd;                    /* (common/cpu_clock_page.h), until the sampler takes it */
    int has_stacks;                  /* stack_fd is the stack engine's ring, handed over with the page */
    int stack_fd;
} control_state;

/* Connects to path (from InitializeForAttach, or Initialize in a child of
 * the profiled program); hooks may be NULL if the thread is never started.
 * Never blocks: a command that does not accept (its backlog full) is
 * refused like one that is gone.  0, or -1 with a reason. */
int control_connect(profiler *p, const char *path, const control_hooks *hooks, char *err, size_t errlen);

/* Waits up to timeout_ms for the "trace" message and returns the file
 * descriptor it carries (close-on-exec), or -1 with a reason in err.  A
 * second descriptor with it is the per-CPU clock's page (control_take_clock). */
int control_receive_trace(profiler *p, int timeout_ms, char *err, size_t errlen);

/* The per-CPU clock's page the command handed this session: with the
 * trace file, or left open across exec by `clrprobe run` (given by the
 * session: control_give_clock).  The caller owns it from then on; -1 when
 * there is none. */
int control_take_clock(profiler *p);
void control_give_clock(profiler *p, int fd);
/* The same for the stack engine's ring (a third descriptor with the trace). */
int control_take_stacks(profiler *p);
void control_give_stacks(profiler *p, int fd);

/* The agent stays for good, quiet: listens on the abstract socket
 * CP_QUIET_SOCKET_FMT (the mark by which `clrprobe attach` knows it is
 * there), with one thread of its own blocked in accept.  A connection from
 * the process's user or root that sends a configuration line (as the
 * attach client data) is handed to p->resume, which opens a new session in
 * this instance (attach.c); the thread then ends, its socket closed.
 * Called on the control thread, which ends after it. */
void control_go_quiet(profiler *p);

/* Sends one line (no newline in fmt), if connected.  Never raises SIGPIPE. */
void control_send(profiler *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Starts the thread that waits for "detach" / end of stream (all signals
 * blocked); does nothing when not connected.  0, or -1. */
int control_start(profiler *p);

/* Stops and joins that thread, if it runs; the connection stays open. */
void control_stop(profiler *p);

/* Has control_stop been asked for (the thread should give up waiting)? */
int control_stopping(profiler *p);

/* Closes the connection, if open (after control_stop). */
void control_disconnect(profiler *p);

#endif
