/* session.h - one recording session of a profiler instance, from
 * Initialize or InitializeForAttach to Shutdown, ProfilerDetachSucceeded or
 * the instance's end.  session_open does the set-up (Info, name cache,
 * thread key, event mask, trace header, the runtime_start record, the
 * services) and session_close the teardown, in one order for both modes.
 * Launch and attach differ only in what the runtime allows after an
 * attach; that difference is data in session.c (its mode table).
 *
 * The callbacks (lifecycle.c, attach.c) call the session; the session calls
 * the services only through their descriptors (service.h), in the order of
 * service_list.h, and the leaves below them; no service calls the session
 * but control.c through its control_hooks. */
#ifndef CLRPROBE_AGENT_SESSION_H
#define CLRPROBE_AGENT_SESSION_H

#include <pthread.h>
#include <stdatomic.h>

#include "agent/core/service_list.h"
#include "api/corprof.h"
#include "common/config.h"

typedef struct profiler profiler;

typedef enum session_mode {
    SESSION_LAUNCH,          /* Initialize: the runtime is starting, configuration from the environment */
    SESSION_ATTACH,          /* InitializeForAttach: a running runtime, configuration from `clrprobe attach` */
    SESSION_CHILD,           /* Initialize in a process the profiled program started (pid != cfg.pid):
                                the trace file comes from `clrprobe run` over cfg.run, and recording
                                stops when the run ends (docs/config.md#child-processes) */
} session_mode;

/* Why a session ends; decides the last record and what the command is told. */
typedef enum session_why {
    SESSION_SHUTDOWN,        /* the runtime shuts down: TK_RUNTIME_SHUTDOWN, "exited" */
    SESSION_DETACHED,        /* ProfilerDetachSucceeded: TK_DETACH, "detached" */
    SESSION_FAILED,          /* session_open gave up: the trace is dropped (removed if ours) */
    SESSION_DESTROY,         /* the runtime released the instance: everything is freed */
} session_why;



/* The session's state in a profiler instance (all zero: never opened). */
typedef struct session_state {
    const struct session_mode_info *mode;     /* NULL until session_open */
    pthread_mutex_t service_lock[SERVICE_COUNT];   /* serializes each service's start and stop */
    int output_created;                       /* this agent created cfg.output (and may remove it on failure) */
    atomic_int open_done;                     /* session_open succeeded, to its last step */
    int cpu_window_open;                      /* the first process_cpu record is written, not the last
                                                 (under the sampler's service lock) */
    atomic_int shutting_down;                 /* the runtime called Shutdown: services ask nothing more of it
                                                 (no ReJIT revert) */
} session_state;

/* Opens the session on the runtime's Info provider unk; p->cfg holds the
 * parsed configuration.  S_OK, or CORPROF_E_PROFILER_CANCEL_ACTIVATION
 * after saying why (on stderr at launch, to the command after attach)
 * and undoing everything. */
HRESULT session_open(profiler *p, session_mode mode, IUnknown *unk);

/* Before a new session in an instance whose session ended quiet (after an
 * attach --trace, control.h): frees what the last one set up and clears
 * its state, as if the instance were new, but for what must stay (the
 * tracer's state, which rewritten code may still reach).  The runtime must
 * not be calling the agent (the event mask is empty). */
void session_reset(profiler *p);

/* `clrprobe run` left the per-CPU clock's page open across exec for the
 * process it started (cfg.clock_fd).  Taken only if it is a BPF map there:
 * in that process (mine) it is made close-on-exec and returned; in another
 * process that inherited it, it is closed.  -1 when it is not taken. */
int session_take_run_clock(const cp_config *cfg, int mine);
/* The same for the stack engine's ring (cfg.stack_fd). */
int session_take_run_stacks(const cp_config *cfg, int mine);

/* `clrprobe run` left the trace file open across exec for the process it
 * started (cfg.output_fd, and the file's identity).  In that process
 * (mine) the descriptor is made close-on-exec at once, so that what the
 * program starts does not inherit it; in another process that inherited it
 * (started by a program that did not load .NET itself) it is closed: the
 * program's trace is not that process's to write.  Returns 1 when the
 * descriptor is open here, is that very file and is kept; else 0 (the
 * program closed it, or its number now holds something else, which is
 * left alone). */
int session_take_run_trace(const cp_config *cfg, int mine);

/* Declines activation before a session could open (no or bad
 * configuration): says why as session_open does; after attach to the
 * control socket ctl (NULL or "": nobody to tell).  Returns
 * CORPROF_E_PROFILER_CANCEL_ACTIVATION. */
HRESULT session_decline(profiler *p, session_mode mode, const char *ctl, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The attach catch-up is done (ProfilerAttachComplete): starts the services
 * that wait for it.  At launch session_open does this itself. */
void session_caught_up(profiler *p);

/* Ends the session: stops the services in reverse table order, writes the
 * last record and closes the trace, tells the command; with
 * SESSION_DESTROY also frees what the session holds.  Safe to call again. */
void session_close(profiler *p, session_why why);

#endif
