/* cb_gc.c - garbage collections (COR_PRF_HIGH_BASIC_GC: which generations,
 * why, the size of each generation before and after) and runtime
 * suspensions (why, and how long until the runtime resumed). */
#include "agent/core/service.h"
#include "agent/events/callbacks.h"

#include <stdlib.h>

/* The ranges read on the stack (2 KiB); a heap with more (regions: a few
 * MiB each) takes one allocation of the exact size (allowed here: a GC
 * callback runs on an ordinary thread, never inside a signal handler). */
#define GC_RANGES_ON_STACK 64

/* The size of each generation (0, 1, 2, 3 = LOH, 4 = POH) now: the used
 * length of its ranges (GetGenerationBounds, which the runtime updates just
 * before GarbageCollectionStarted and before GarbageCollectionFinished;
 * COR_PRF_HIGH_BASIC_GC is enough, at launch and after an attach).  All 0,
 * "unknown", if the runtime refuses. */
static void generation_sizes(profiler *p, uint64_t bytes[5])
{
    COR_PRF_GC_GENERATION_RANGE stack[GC_RANGES_ON_STACK], *r = stack, *heap = NULL;
    ULONG n = 0;

    for (int g = 0; g < 5; g++)
        bytes[g] = 0;
    if (!atomic_load(&p->recording) ||
        FAILED(INFO(p)->GetGenerationBounds(p->info, GC_RANGES_ON_STACK, &n, r)))
        return;
    if (n > GC_RANGES_ON_STACK) {               /* n is how many there are */
        ULONG want = n;
        if (!(r = heap = malloc(want * sizeof(*r))) ||
            FAILED(INFO(p)->GetGenerationBounds(p->info, want, &n, r)) || n > want) {
            free(heap);
            return;
        }
    }
    for (ULONG i = 0; i < n; i++)
        if ((unsigned)r[i].generation < 5)
            bytes[r[i].generation] += r[i].rangeLength;
    free(heap);
}

HRESULT cb_GarbageCollectionStarted(ICorProfilerCallback11 *This, int cGenerations, BOOL *collected,
                                    COR_PRF_GC_REASON reason)
{
    profiler *p = profiler_from(This);
    uint32_t mask = 0;
    uint64_t b[5];
    emit e;

    atomic_store(&p->gc_started, 1);
    services_gc_started(p, cGenerations, collected);   /* (a heap snapshot's GC) */
    for (int g = 0; collected && g < cGenerations && g < 32; g++)
        if (collected[g])
            mask |= 1u << g;
    generation_sizes(p, b);
    if (emit_begin(p, &e, TK_GC_START)) {
        rec_gc_start_put(&e.r, &(rec_gc_start){ .generations = mask, .reason = (uint32_t)reason,
                                                .gen0_bytes = b[0], .gen1_bytes = b[1], .gen2_bytes = b[2],
                                                .loh_bytes = b[3], .poh_bytes = b[4] });
        emit_end(&e);
    }
    return S_OK;
}

HRESULT cb_GarbageCollectionFinished(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    uint64_t b[5];
    emit e;

    services_gc_finished(p);          /* (a heap snapshot's last records; the live objects looked at) */
    /* After an attach the first GC callback may come from the middle of a
     * GC already in progress: ignore everything until a start is seen. */
    if (!atomic_load(&p->gc_started))
        return S_OK;
    generation_sizes(p, b);
    if (emit_begin(p, &e, TK_GC_END)) {
        rec_gc_end_put(&e.r, &(rec_gc_end){ .gen0_bytes = b[0], .gen1_bytes = b[1], .gen2_bytes = b[2],
                                            .loh_bytes = b[3], .poh_bytes = b[4] });
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
