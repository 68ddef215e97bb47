/* profiler.h - one profiler instance: the callback object the runtime talks
 * to, with everything that belongs to that runtime (Info interface,
 * configuration, trace writer, name cache, per-thread state, the attach
 * catch-up's ID tables).  The session (session.h) and each service
 * (flusher.h, sampler.h, heap.h, heap_listener.h, control.h) keep their own
 * state in a struct of their own header, embedded here.  The services
 * start in that order and stop in the reverse one (session.c's table says
 * why): the flusher first, as it drains what the others record; control
 * last, as its thread may stop the sampler, heap and heap listener (a
 * detach, the end of a child's run); the heap listener after the heap
 * service, whose heap_run and state it uses.  Nothing per-runtime lives in
 * globals; see manager.c for the one process-wide list. */
#ifndef CLRPROBE_AGENT_PROFILER_H
#define CLRPROBE_AGENT_PROFILER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "agent/alloc/alloc_all.h"
#include "agent/core/catchup.h"
#include "agent/core/control.h"
#include "agent/alloc/eventpipe.h"
#include "agent/exceptions/exceptions.h"
#include "agent/core/flusher.h"
#include "agent/heap/heap.h"
#include "agent/heap/heap_listener.h"
#include "agent/alloc/live.h"
#include "agent/core/runtime.h"
#include "agent/sampling/sampler.h"
#include "agent/core/session.h"
#include "agent/tracer/tracer.h"
#include "agent/tracer/tracer_rejit.h"
#include "api/corprof.h"
#include "common/config.h"
#include "common/clock.h"
#include "trace/format.h"
#include "trace/records.h"
#include "trace/writer.h"

typedef struct names names;
typedef struct thread_state thread_state;

typedef struct profiler {
    ICorProfilerCallback11 iface;        /* must stay first: the runtime's pointer */
    atomic_uint refcount;
    struct profiler *next;               /* manager's list */
    void (*on_free)(struct profiler *p); /* the creator's hook, run once as the instance is freed */

    /* Set up by session_open, released by session_close(SESSION_DESTROY). */
    ICorProfilerInfo15 *info;            /* highest version the runtime gave us */
    int info_version;                    /* N of ICorProfilerInfoN */
    cp_config cfg;
    char runtime_version[64];

    trace_writer *writer;
    names *names;
    pthread_key_t tls_key;
    int tls_key_ok;
    pthread_mutex_t threads_lock;        /* guards the thread_state list */
    thread_state *threads;

    atomic_int recording;                /* 1 between Initialize and Shutdown/detach */

    /* Attach mode (InitializeForAttach): what we know about IDs, so that the
     * catch-up and live events merge without holes (catchup.h). */
    int attached;
    /* LoadAsNotificationOnly said TRUE: a notification profiler beside the
     * process's main one.  Asked for by the CLSID the runtime created us
     * for (notification_asked), or because the main profiler is another:
     * main_elsewhere, set by the manager, tells, with its library (which
     * main_profiler holds; "" when not known) */
    int notification;
    int notification_asked;
    int (*main_elsewhere)(const struct profiler *self, char *path, size_t cap);
    char main_profiler[4096];
    cu_gate gate;
    int gate_ok;
    cu_table *modules, *assemblies, *appdomains, *threads_known;
    atomic_int gc_started;               /* a GarbageCollectionStarted was seen */
    atomic_int catchup_done;             /* ProfilerAttachComplete has returned (or will not run) */
    atomic_int catchup_abort;            /* the command went away: finish the catch-up quickly */
    /* Opens a new session in this instance for a later `clrprobe attach`
     * that found it quiet (control_go_quiet), with that attach's
     * configuration text: 0, or -1 (said to the command if it can be). */
    int (*resume)(struct profiler *p, const char *config);

    session_state session;               /* session.c */
    flusher_state flusher;               /* flusher.c */
    sampler_state sampler;               /* sampler.c */
    heap_state heap;                     /* heap.c */
    heap_listener_state heap_listener;   /* heap_listener.c: `clrprobe heap` for a loaded agent */
    live_state live;                     /* live.c: sampled objects followed through GCs */
    eventpipe_state eventpipe;           /* eventpipe.c: allocations and contention */
    alloc_all_state alloc_all;           /* alloc_all.c: every allocation (launch only) */
    tracer_state tracer;                 /* tracer.c: --trace, calls and latencies of chosen methods */
    exceptions_state exceptions;         /* exceptions.c: each exception's processing, message and stack */
    rejit_state rejit;                   /* tracer_rejit.c: --trace after an attach, by rewriting IL */
    control_state control;               /* control.c: the attach command's connection */
} profiler;

static inline profiler *profiler_from(ICorProfilerCallback11 *This) { return (profiler *)This; }

/* Is method m present in the Info interface the runtime gave us? */
#define INFO_HAS(p, m) (CORPROF_SLOT(ICorProfilerInfoVtbl, m) < (size_t)info_slots((p)->info_version))
#define INFO(p) ((p)->info->lpVtbl)

/* A new instance with one reference (profiler.c); on_free (may be NULL) is
 * called once when it is freed. */
profiler *profiler_create(void (*on_free)(profiler *p));

#endif
