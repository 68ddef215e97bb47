/* cb_gc.c - garbage collections (COR_PRF_HIGH_BASIC_GC: which generations,
 * why) and runtime suspensions (why, and how long until the runtime resumed). */
#include "agent/callbacks.h"
#include "agent/profiler.h"

HRESULT cb_GarbageCollectionStarted(ICorProfilerCallback11 *This, int cGenerations, BOOL *collected,
                                    COR_PRF_GC_REASON reason)
{
    profiler *p = profiler_from(This);
    uint32_t mask = 0;
    emit e;

    atomic_store(&p->gc_started, 1);
    for (int g = 0; collected && g < cGenerations && g < 32; g++)
        if (collected[g])
            mask |= 1u << g;
    if (emit_begin(p, &e, TK_GC_START)) {
        rec_gc_start_put(&e.r, &(rec_gc_start){ .generations = mask, .reason = (uint32_t)reason });
        emit_end(&e);
    }
    return S_OK;
}

HRESULT cb_GarbageCollectionFinished(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    emit e;

    /* After an attach the first GC callback may come from the middle of a
     * GC already in progress: ignore everything until a start is seen. */
    if (!atomic_load(&p->gc_started))
        return S_OK;
    if (emit_begin(p, &e, TK_GC_END)) {
        rec_gc_end_put(&e.r, &(rec_gc_end){ 0 });
        emit_end(&e);
    }
    return S_OK;
}

HRESULT cb_RuntimeSuspendStarted(ICorProfilerCallback11 *This, COR_PRF_SUSPEND_REASON reason)
{
    profiler *p = profiler_from(This);
    thread_state *ts = atomic_load(&p->recording) ? thread_state_get(p) : NULL;

    if (ts) {
        ts->suspend_start = cp_monotonic_ns();
        ts->suspend_reason = (uint32_t)reason;
        ts->suspend_open = 1;
    }
    return S_OK;
}

HRESULT cb_RuntimeSuspendAborted(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    thread_state *ts = atomic_load(&p->recording) ? thread_state_get(p) : NULL;

    if (ts)
        ts->suspend_open = 0;
    return S_OK;
}

HRESULT cb_RuntimeResumeFinished(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    thread_state *ts = atomic_load(&p->recording) ? thread_state_get(p) : NULL;
    emit e;

    if (!ts || !ts->suspend_open)
        return S_OK;                  /* (after an attach: a suspension that began before it) */
    ts->suspend_open = 0;
    if (emit_begin(p, &e, TK_SUSPEND)) {
        rec_suspend_put(&e.r, &(rec_suspend){ .reason = ts->suspend_reason,
                                              .duration_ns = cp_monotonic_ns() - ts->suspend_start });
        emit_end(&e);
    }
    return S_OK;
}
