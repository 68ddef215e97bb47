/* profiler.h - one profiler instance: the callback object the runtime talks
 * to (com_object.c), with everything that belongs to that runtime (Info
 * interface, configuration, trace writer, name cache, per-thread state,
 * the attach catch-up's ID tables).  The session's state (session.h) is
 * here by value; each service's state is a pointer to a struct only that
 * service knows, one per line of service_list.h, allocated with the
 * instance (service.c).  Nothing per-runtime lives in globals; see
 * manager.c for the one process-wide list. */
#ifndef CLRPROBE_AGENT_PROFILER_H
#define CLRPROBE_AGENT_PROFILER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "agent/core/catchup.h"
#include "agent/core/runtime.h"
#include "agent/core/service_list.h"
#include "agent/core/session.h"
#include "api/corprof.h"
#include "common/config.h"
#include "common/clock.h"
#include "trace/format.h"
#include "trace/records.h"
#include "trace/writer.h"

typedef struct names names;
typedef struct il_maps il_maps;
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
    il_maps *il_maps;                    /* managed frames' IL offsets (il_maps.h) */
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
    /* DynamicMethodUnloaded calls, and event masks set: the dynamic
     * methods' names and code addresses cached are forgotten when it moves
     * (ip_functions.c); they are cached only while the runtime tells their
     * unloads (the mask took COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS) */
    _Atomic uint64_t dynamic_unloads;
    atomic_int dynamic_unloads_told;
    cu_table *modules, *assemblies, *appdomains, *threads_known;
    atomic_int gc_started;               /* a GarbageCollectionStarted was seen */
    atomic_int catchup_done;             /* ProfilerAttachComplete has returned (or will not run) */
    atomic_int catchup_abort;            /* the command went away: finish the catch-up quickly */
    /* Opens a new session in this instance for a later `clrprobe attach`
     * that found it quiet (control_go_quiet), with that attach's
     * configuration text: 0, or -1 (said to the command if it can be). */
    int (*resume)(struct profiler *p, const char *config);

    session_state session;               /* session.c */
    /* Each service's state (service.h), in the list's order. */
#define PROFILER_SERVICE_STATE_(name) struct name##_state *name;
    AGENT_SERVICES(PROFILER_SERVICE_STATE_)
#undef PROFILER_SERVICE_STATE_
} profiler;

static inline profiler *profiler_from(ICorProfilerCallback11 *This) { return (profiler *)This; }

/* Is method m present in the Info interface the runtime gave us? */
#define INFO_HAS(p, m) (CORPROF_SLOT(ICorProfilerInfoVtbl, m) < (size_t)info_slots((p)->info_version))
#define INFO(p) ((p)->info->lpVtbl)

#endif
