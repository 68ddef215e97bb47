/* service.h - the one header of the core a service includes: the context
 * every service works in (the profiler instance with INFO and INFO_HAS,
 * emit and notes, the name cache, per-thread state, the attach catch-up's
 * gate, the command's connection, agent threads) and the service
 * descriptor, agent_service, with which a service tells the core all the
 * core needs of it.  The core includes no service: it knows each one only
 * by its line in service_list.h and its descriptor.
 *
 * A service lives in a folder of its own under src/agent (several small
 * ones may share one), defines `const agent_service NAME_service` and
 * `struct NAME_state`, and reaches another service only through the
 * hooks below (the core calls them in the list's order) or, in its own
 * folder, through that folder's headers. */
#ifndef CLRPROBE_AGENT_SERVICE_H
#define CLRPROBE_AGENT_SERVICE_H

#include <stddef.h>

#include "agent/core/agent_thread.h"
#include "agent/core/attach.h"
#include "agent/core/catchup.h"
#include "agent/core/control.h"
#include "agent/core/il_maps.h"
#include "agent/core/ip_functions.h"
#include "agent/core/names.h"
#include "agent/core/names_format.h"
#include "agent/core/profiler.h"
#include "agent/core/service_list.h"
#include "agent/core/thread_state.h"
#include "api/corprof.h"
#include "common/config.h"

/* When a service starts: as the session opens (its failure cancels the
 * activation), or once the attach catch-up is done (at launch right after
 * the first record; its failure leaves failed_note in the trace). */
typedef enum service_when { AT_OPEN, AFTER_CATCHUP } service_when;

typedef struct agent_service {
    const char *name;
    /* The state, p->NAME: allocated zeroed with the instance and freed
     * with it (0: none, p->NAME stays NULL); init and fini (may be NULL)
     * run right after it is allocated and before it is freed. */
    size_t state_size;
    void (*init)(profiler *p);
    void (*fini)(profiler *p);

    /* The event-mask bits the configuration makes it need (may be NULL).
     * attach: the mask is for InitializeForAttach (the core then keeps only
     * what the runtime allows after an attach, or beside a main profiler). */
    void (*event_mask)(const cp_config *cfg, int attach, DWORD *low, DWORD *high);
    /* Sets the ICorProfilerCallback slots it alone implements (may be NULL);
     * no two services set the same slot (a unit test checks). */
    void (*callbacks)(ICorProfilerCallbackVtbl *v);
    /* Runs inside Initialize or InitializeForAttach, after the event mask
     * is set: what the runtime allows only there (may be NULL).  0, or -1
     * with a note for the trace in why; the session goes on. */
    int (*prepare)(profiler *p, int attach, char *why, size_t cap);

    /* Its thread (both NULL for a service without one).  start: 0, or -1
     * with nothing started; stop joins it.  The session serializes the two
     * (a lock per service) and either may be called twice. */
    service_when when;
    int (*start)(profiler *p);
    void (*stop)(profiler *p);
    const char *failed_note;         /* AFTER_CATCHUP: the trace's note when it cannot start */
    int drains;                      /* writes out what the others record: recording ends just before it stops */
    int stop_before_detach;          /* calls the runtime: stopped before RequestProfilerDetach */
    int cpu_window;                  /* a process_cpu record when it starts and when it stops */

    /* The session's end: frees what the session left in its state (the
     * runtime no longer calls the agent, every thread is joined). */
    void (*release)(profiler *p);
    /* Before a new session in an instance gone quiet (session_reset): clears
     * what must not carry over, after release. */
    void (*reset)(profiler *p);

    /* What another service's callback saw, for the services that follow it
     * too (each may be NULL; called in the list's order): */
    void (*thread_assigned)(profiler *p, ThreadID id, DWORD os_tid);   /* ThreadAssignedToOSThread */
    void (*thread_destroyed)(profiler *p, ThreadID id);                /* ThreadDestroyed (on the thread, as it ends) */
    void (*module_loaded)(profiler *p, ModuleID id);                   /* ModuleLoadFinished, after an attach */
    void (*module_unloading)(profiler *p, ModuleID id);                /* ModuleUnloadStarted, first */
    void (*precompiled)(profiler *p, FunctionID fid, const char *name, ModuleID module);  /* ReadyToRun code found */
    void (*gc_started)(profiler *p, int generations, const BOOL *collected);
    void (*gc_finished)(profiler *p);
    void (*exception_thrown)(profiler *p, ObjectID obj);                /* before the exception is followed */
    void (*unwind_enter)(profiler *p, FunctionID fid);
    void (*unwind_leave)(profiler *p);
    void (*catcher_enter)(profiler *p, FunctionID fid);
} agent_service;

/* Each service's descriptor, defined in its own folder. */
#define AGENT_SERVICE_DECLARE_(name) extern const agent_service name##_service;
AGENT_SERVICES(AGENT_SERVICE_DECLARE_)

/* The table, in the list's order (services.c). */
extern const agent_service *const agent_services[SERVICE_COUNT];

/* The hooks above, called for every service that has one, in order. */
void services_thread_assigned(profiler *p, ThreadID id, DWORD os_tid);
void services_thread_destroyed(profiler *p, ThreadID id);
void services_module_loaded(profiler *p, ModuleID id);
void services_module_unloading(profiler *p, ModuleID id);
void services_precompiled(profiler *p, FunctionID fid, const char *name, ModuleID module);
void services_gc_started(profiler *p, int generations, const BOOL *collected);
void services_gc_finished(profiler *p);
void services_exception_thrown(profiler *p, ObjectID obj);
void services_unwind_enter(profiler *p, FunctionID fid);
void services_unwind_leave(profiler *p);
void services_catcher_enter(profiler *p, FunctionID fid);

/* The core's side (com_object.c, session.c): */

/* Allocates every service's state and runs its init: 0, or -1 (nothing
 * left allocated). */
int services_create(profiler *p);
/* Runs each fini and frees the states (safe after a failed create). */
void services_destroy(profiler *p);
/* The event mask the configuration needs: every service's bits, kept to
 * what the runtime allows after an attach, or for a notification profiler. */
void services_event_mask(const cp_config *cfg, int attach, int notification, DWORD *low, DWORD *high);
/* Sets every service's callback slots in v. */
void services_callbacks(ICorProfilerCallbackVtbl *v);
/* Every release, then (reset) every reset, in the list's order. */
void services_release(profiler *p);
void services_reset(profiler *p);

#endif
