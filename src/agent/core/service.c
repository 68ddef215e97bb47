/* service.c - the core's side of the services (service.h): the table made
 * from service_list.h, each service's state allocated with the instance,
 * and the loops over the descriptors that the session and the callbacks
 * run (event mask, callback slots, release, reset, and the hooks by which
 * one service's callback reaches the others). */
#include "agent/core/service.h"

#include <stdlib.h>

#define SERVICE_ENTRY_(name) [SERVICE_##name] = &name##_service,
const agent_service *const agent_services[SERVICE_COUNT] = { AGENT_SERVICES(SERVICE_ENTRY_) };

/* The state of one service (NULL when it has none). */
static void *state_alloc(const agent_service *s, int *failed)
{
    void *state = NULL;
    if (s->state_size && !(state = calloc(1, s->state_size)))
        *failed = 1;
    return state;
}

int services_create(profiler *p)
{
    int failed = 0;

#define SERVICE_STATE_ALLOC_(name) p->name = state_alloc(&name##_service, &failed);
    AGENT_SERVICES(SERVICE_STATE_ALLOC_)
    if (failed) {
#define SERVICE_STATE_FREE_(name) free(p->name); p->name = NULL;
        AGENT_SERVICES(SERVICE_STATE_FREE_)
        return -1;
    }
    for (int i = 0; i < SERVICE_COUNT; i++)
        if (agent_services[i]->init)
            agent_services[i]->init(p);
    return 0;
}

void services_destroy(profiler *p)
{
    int created = 1;

#define SERVICE_STATE_CHECK_(name) if (name##_service.state_size && !p->name) created = 0;
    AGENT_SERVICES(SERVICE_STATE_CHECK_)
    for (int i = SERVICE_COUNT; created && i-- > 0;)
        if (agent_services[i]->fini)
            agent_services[i]->fini(p);
    AGENT_SERVICES(SERVICE_STATE_FREE_)
}

void services_event_mask(const cp_config *cfg, int attach, int notification, DWORD *low, DWORD *high)
{
    *low = 0;
    *high = 0;
    for (int i = 0; i < SERVICE_COUNT; i++)
        if (agent_services[i]->event_mask)
            agent_services[i]->event_mask(cfg, attach, low, high);
    if (attach) {                        /* nothing that would make the agent impossible to detach */
        *low &= COR_PRF_ALLOWABLE_AFTER_ATTACH;
        *high &= COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH;
    }
    if (notification) {                  /* beside a main profiler: no GC monitoring, hooks, ReJIT */
        *low &= COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER;
        *high &= COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER;
    }
}

void services_callbacks(ICorProfilerCallbackVtbl *v)
{
    for (int i = 0; i < SERVICE_COUNT; i++)
        if (agent_services[i]->callbacks)
            agent_services[i]->callbacks(v);
}

void services_release(profiler *p)
{
    for (int i = 0; i < SERVICE_COUNT; i++)
        if (agent_services[i]->release)
            agent_services[i]->release(p);
}

void services_reset(profiler *p)
{
    for (int i = 0; i < SERVICE_COUNT; i++)
        if (agent_services[i]->reset)
            agent_services[i]->reset(p);
}

/* ---- one callback, several services ---- */

#define FOR_EACH_HOOK(hook, ...)                          \
    for (int i = 0; i < SERVICE_COUNT; i++)               \
        if (agent_services[i]->hook)                      \
            agent_services[i]->hook(__VA_ARGS__)

void services_thread_assigned(profiler *p, ThreadID id, DWORD os_tid) { FOR_EACH_HOOK(thread_assigned, p, id, os_tid); }
void services_thread_destroyed(profiler *p, ThreadID id) { FOR_EACH_HOOK(thread_destroyed, p, id); }
void services_module_loaded(profiler *p, ModuleID id) { FOR_EACH_HOOK(module_loaded, p, id); }
void services_module_unloading(profiler *p, ModuleID id) { FOR_EACH_HOOK(module_unloading, p, id); }
void services_precompiled(profiler *p, FunctionID fid, const char *name, ModuleID module)
{
    FOR_EACH_HOOK(precompiled, p, fid, name, module);
}
void services_gc_started(profiler *p, int generations, const BOOL *collected)
{
    FOR_EACH_HOOK(gc_started, p, generations, collected);
}
void services_gc_finished(profiler *p) { FOR_EACH_HOOK(gc_finished, p); }
void services_exception_thrown(profiler *p, ObjectID obj) { FOR_EACH_HOOK(exception_thrown, p, obj); }
void services_unwind_enter(profiler *p, FunctionID fid) { FOR_EACH_HOOK(unwind_enter, p, fid); }
void services_unwind_leave(profiler *p) { FOR_EACH_HOOK(unwind_leave, p); }
void services_catcher_enter(profiler *p, FunctionID fid) { FOR_EACH_HOOK(catcher_enter, p, fid); }
