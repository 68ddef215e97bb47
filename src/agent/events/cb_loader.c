/* cb_loader.c - app domain, assembly, module and class load/unload events.
 * Names are resolved before the record is started (never call the runtime
 * while holding the thread's buffer).  On an unload the name cache forgets
 * the IDs that die with it, since the runtime reuses their addresses. */
#include "agent/core/service.h"
#include "agent/events/callbacks.h"

/* A module's flags go into the trace as the runtime gives them (format.h). */
_Static_assert(TRACE_MODULE_DYNAMIC == COR_PRF_MODULE_DYNAMIC && TRACE_MODULE_COLLECTIBLE == COR_PRF_MODULE_COLLECTIBLE,
               "TRACE_MODULE_*");

HRESULT cb_AppDomainCreationFinished(ICorProfilerCallback11 *This, AppDomainID id, HRESULT hr)
{
    profiler *p = profiler_from(This);
    char name[512];
    emit e;

    if (p->attached && SUCCEEDED(hr))
        cu_on_load(p->appdomains, id);
    if (FAILED(hr) || !(p->cfg.collect & CP_COLLECT_APPDOMAINS))
        return S_OK;
    names_appdomain(p->names, id, name, sizeof(name));
    if (emit_begin(p, &e, TK_APPDOMAIN_CREATE)) {
        rec_appdomain_create_put(&e.r, &(rec_appdomain_create){ .id = id, .name = name });
        emit_end(&e);
    }
    return S_OK;
}

HRESULT cb_AppDomainShutdownStarted(ICorProfilerCallback11 *This, AppDomainID id)
{
    profiler *p = profiler_from(This);

    if (p->attached)
        cu_on_unload_gated(&p->gate, p->appdomains, id, 1);
    if (p->cfg.collect & CP_COLLECT_APPDOMAINS)
        emit_id(p, TK_APPDOMAIN_SHUTDOWN, id);
    return S_OK;
}

HRESULT cb_AssemblyLoadFinished(ICorProfilerCallback11 *This, AssemblyID id, HRESULT hr)
{
    profiler *p = profiler_from(This);
    char name[512], version[64];
    AppDomainID domain;
    ModuleID module;
    emit e;

    if (p->attached && SUCCEEDED(hr))
        cu_on_load(p->assemblies, id);
    if (FAILED(hr) || !(p->cfg.collect & CP_COLLECT_ASSEMBLIES))
        return S_OK;
    names_assembly(p->names, id, name, sizeof(name), version, sizeof(version), &domain, &module);
    if (emit_begin(p, &e, TK_ASSEMBLY_LOAD)) {
        rec_assembly_load_put(&e.r, &(rec_assembly_load){ .id = id, .appdomain = domain, .module = module,
                                                          .name = name, .version = version });
        emit_end(&e);
    }
    return S_OK;
}

HRESULT cb_AssemblyUnloadStarted(ICorProfilerCallback11 *This, AssemblyID id)
{
    profiler *p = profiler_from(This);

    if (p->attached)
        cu_on_unload_gated(&p->gate, p->assemblies, id, 1);
    if (p->cfg.collect & CP_COLLECT_ASSEMBLIES)
        emit_id(p, TK_ASSEMBLY_UNLOAD, id);
    return S_OK;
}

HRESULT cb_ModuleLoadFinished(ICorProfilerCallback11 *This, ModuleID id, HRESULT hr)
{
    profiler *p = profiler_from(This);
    char path[2048];
    AssemblyID assembly = 0;
    DWORD flags = 0;
    emit e;

    if (p->attached && SUCCEEDED(hr))
        cu_on_load(p->modules, id);
    if (SUCCEEDED(hr))
        services_module_loaded(p, id);       /* (--trace after an attach: its matching methods too) */
    if (!CP_RECORDS_MODULES(p->cfg.collect))
        return S_OK;
    path[0] = '\0';
    if (SUCCEEDED(hr))
        names_module(p->names, id, path, sizeof(path), &assembly, &flags);
    if (emit_begin(p, &e, TK_MODULE_LOAD)) {
        rec_module_load_put(&e.r, &(rec_module_load){ .id = id, .assembly = assembly, .flags = flags,
                                                      .hr = (uint32_t)hr, .path = path });
        emit_end(&e);
    }
    return S_OK;
}

HRESULT cb_ModuleUnloadStarted(ICorProfilerCallback11 *This, ModuleID id)
{
    profiler *p = profiler_from(This);

    /* (the signal sampler names what it sampled of this module's code
     * while the code is still there) */
    services_module_unloading(p, id);
    if (p->attached)
        cu_on_unload_gated(&p->gate, p->modules, id, 1);   /* waits for catch-up queries in flight */
    else if (p->gate_ok)
        cu_gate_bump(&p->gate);                         /* waits for the sampler's naming */
    names_forget_module(p->names, id);
    if (CP_RECORDS_MODULES(p->cfg.collect))
        emit_id(p, TK_MODULE_UNLOAD, id);
    return S_OK;
}

/* A dynamic method (LCG) is collected, before its code and ID are freed:
 * the names and addresses cached for dynamic methods are forgotten (the ID
 * and the code's place are reused by the next one). */
HRESULT cb_DynamicMethodUnloaded(ICorProfilerCallback11 *This, FunctionID id)
{
    profiler *p = profiler_from(This);

    (void)id;
    atomic_fetch_add_explicit(&p->dynamic_unloads, 1, memory_order_release);
    return S_OK;
}

HRESULT cb_ClassLoadFinished(ICorProfilerCallback11 *This, ClassID id, HRESULT hr)
{
    profiler *p = profiler_from(This);
    char name[1024];
    ModuleID module = 0;
    emit e;

    if (FAILED(hr) || !(p->cfg.collect & CP_COLLECT_CLASSES) || !atomic_load(&p->recording))
        return S_OK;
    names_class(p->names, id, name, sizeof(name), &module);
    if (emit_begin(p, &e, TK_CLASS_LOAD)) {
        rec_class_load_put(&e.r, &(rec_class_load){ .id = id, .module = module, .name = name });
        emit_end(&e);
    }
    return S_OK;
}

HRESULT cb_ClassUnloadStarted(ICorProfilerCallback11 *This, ClassID id)
{
    profiler *p = profiler_from(This);

    if (p->gate_ok)
        cu_gate_bump(&p->gate);        /* function snapshots and samples taken before this may be stale */
    names_forget_class(p->names, id);
    if (p->cfg.collect & CP_COLLECT_CLASSES)
        emit_id(p, TK_CLASS_UNLOAD, id);
    return S_OK;
}
