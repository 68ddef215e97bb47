/* events.c - the events service: no thread, only the runtime's callbacks
 * of this folder and the event-mask bits the configuration asks for them
 * (what --collect names: app domains, assemblies, classes, JIT, threads,
 * suspensions, GCs).  Module loads are always watched: their unloads keep
 * the name cache honest (records are written only when modules are
 * collected), and the attach catch-up merges them; so are dynamic methods'
 * unloads, for the names of dynamic methods the stacks meet. */
#include "agent/core/service.h"
#include "agent/events/callbacks.h"

static void events_event_mask(const cp_config *cfg, int attach, DWORD *low, DWORD *high)
{
    *low |= COR_PRF_MONITOR_MODULE_LOADS;
    if (cfg->collect & CP_COLLECT_APPDOMAINS) *low |= COR_PRF_MONITOR_APPDOMAIN_LOADS;
    if (cfg->collect & CP_COLLECT_ASSEMBLIES) *low |= COR_PRF_MONITOR_ASSEMBLY_LOADS;
    if (cfg->collect & CP_COLLECT_CLASSES) *low |= COR_PRF_MONITOR_CLASS_LOADS;
    /* (after an attach no cache searches: precompiled code is then not reported) */
    if (cfg->collect & CP_COLLECT_JIT) *low |= COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_CACHE_SEARCHES;
    if (cfg->collect & CP_COLLECT_THREADS) *low |= COR_PRF_MONITOR_THREADS;
    if (cfg->collect & CP_COLLECT_SUSPENSIONS) *low |= COR_PRF_MONITOR_SUSPENDS;
    /* (the live view needs each GC's generations: a large object counts as alive only once a gen2 GC passed it) */
    if (cfg->collect & (CP_COLLECT_GC | CP_COLLECT_LIVE)) *high |= COR_PRF_HIGH_BASIC_GC;
    /* (so that dynamic methods' names can be cached: a collected one's ID is reused) */
    *high |= COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS;
}

static void events_callbacks(ICorProfilerCallbackVtbl *v)
{
    v->AppDomainCreationFinished = cb_AppDomainCreationFinished;
    v->AppDomainShutdownStarted = cb_AppDomainShutdownStarted;
    v->AssemblyLoadFinished = cb_AssemblyLoadFinished;
    v->AssemblyUnloadStarted = cb_AssemblyUnloadStarted;
    v->ModuleLoadFinished = cb_ModuleLoadFinished;
    v->ModuleUnloadStarted = cb_ModuleUnloadStarted;
    v->DynamicMethodUnloaded = cb_DynamicMethodUnloaded;
    v->ClassLoadFinished = cb_ClassLoadFinished;
    v->ClassUnloadStarted = cb_ClassUnloadStarted;
    v->JITCompilationStarted = cb_JITCompilationStarted;
    v->JITCompilationFinished = cb_JITCompilationFinished;
    v->JITCachedFunctionSearchStarted = cb_JITCachedFunctionSearchStarted;
    v->JITCachedFunctionSearchFinished = cb_JITCachedFunctionSearchFinished;
    v->ThreadCreated = cb_ThreadCreated;
    v->ThreadDestroyed = cb_ThreadDestroyed;
    v->ThreadAssignedToOSThread = cb_ThreadAssignedToOSThread;
    v->ThreadNameChanged = cb_ThreadNameChanged;
    v->GarbageCollectionStarted = cb_GarbageCollectionStarted;
    v->GarbageCollectionFinished = cb_GarbageCollectionFinished;
    v->RuntimeSuspendStarted = cb_RuntimeSuspendStarted;
    v->RuntimeSuspendAborted = cb_RuntimeSuspendAborted;
    v->RuntimeResumeFinished = cb_RuntimeResumeFinished;
}

const agent_service events_service = {
    .name = "events",
    .event_mask = events_event_mask,
    .callbacks = events_callbacks,
};
