/* cb_jit.c - JIT compilations (with their duration, measured between the
 * Started and Finished callbacks on the same thread) and precompiled
 * (ReadyToRun) code found by the runtime's cached-function search. */
#include "agent/core/service.h"
#include "agent/events/callbacks.h"

HRESULT cb_JITCompilationStarted(ICorProfilerCallback11 *This, FunctionID fid, BOOL safe)
{
    profiler *p = profiler_from(This);
    thread_state *ts = atomic_load(&p->recording) ? thread_state_get(p) : NULL;

    if (ts && ts->jit_depth < JIT_STACK_MAX) {
        ts->jit[ts->jit_depth].fid = fid;
        ts->jit[ts->jit_depth].t0 = cp_monotonic_ns();
    }
    if (ts)
        ts->jit_depth++;
    return S_OK;
}

HRESULT cb_JITCompilationFinished(ICorProfilerCallback11 *This, FunctionID fid, HRESULT hr, BOOL safe)
{
    profiler *p = profiler_from(This);
    thread_state *ts = atomic_load(&p->recording) ? thread_state_get(p) : NULL;
    uint64_t t0 = 0, duration;
    char name[1024];
    ModuleID module;
    emit e;

    if (!ts)
        return S_OK;
    /* Pop this function's start; compilations nest rarely, and strictly. */
    while (ts->jit_depth > 0) {
        int i = --ts->jit_depth;
        if (i < JIT_STACK_MAX && ts->jit[i].fid == fid) {
            t0 = ts->jit[i].t0;
            break;
        }
    }
    duration = t0 ? cp_monotonic_ns() - t0 : 0;
    names_function(p->names, fid, name, sizeof(name), &module);
    attach_saw_module(p, module);
    if (emit_begin(p, &e, TK_JIT)) {
        rec_jit_put(&e.r, &(rec_jit){ .function = fid, .module = module, .duration_ns = duration,
                                      .hr = (uint32_t)hr, .name = name });
        emit_end(&e);
    }
    return S_OK;
}

HRESULT cb_JITCachedFunctionSearchStarted(ICorProfilerCallback11 *This, FunctionID fid, BOOL *use)
{
    if (use)
        *use = TRUE;           /* never change what the runtime would do */
    return S_OK;
}

HRESULT cb_JITCachedFunctionSearchFinished(ICorProfilerCallback11 *This, FunctionID fid,
                                           COR_PRF_JIT_CACHE result)
{
    profiler *p = profiler_from(This);
    char name[1024];
    ModuleID module;
    emit e;

    if (result != COR_PRF_CACHED_FUNCTION_FOUND || !atomic_load(&p->recording))
        return S_OK;
    names_function(p->names, fid, name, sizeof(name), &module);
    services_precompiled(p, fid, name, module);
    if (emit_begin(p, &e, TK_PRECOMPILED)) {
        rec_precompiled_put(&e.r, &(rec_precompiled){ .function = fid, .module = module, .name = name });
        emit_end(&e);
    }
    return S_OK;
}
