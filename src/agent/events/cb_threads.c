/* cb_threads.c - managed thread lifetime: created, destroyed, the OS thread
 * it runs on, and name changes. */
#include "agent/core/service.h"
#include "agent/events/callbacks.h"

#include <stdio.h>

HRESULT cb_ThreadCreated(ICorProfilerCallback11 *This, ThreadID id)
{
    profiler *p = profiler_from(This);

    if (p->attached)
        cu_on_load(p->threads_known, id);
    emit_id(p, TK_THREAD_CREATE, id);
    return S_OK;
}

HRESULT cb_ThreadDestroyed(ICorProfilerCallback11 *This, ThreadID id)
{
    profiler *p = profiler_from(This);

    if (p->attached)
        cu_on_unload_gated(&p->gate, p->threads_known, id, 0);
    if (atomic_load(&p->recording))
        services_thread_destroyed(p, id);
    emit_id(p, TK_THREAD_DESTROY, id);
    return S_OK;
}

HRESULT cb_ThreadAssignedToOSThread(ICorProfilerCallback11 *This, ThreadID id, DWORD os_tid)
{
    profiler *p = profiler_from(This);
    char name[32];
    emit e;

    if (!atomic_load(&p->recording))
        return S_OK;
    services_thread_assigned(p, id, os_tid);
    thread_kernel_name(os_tid, name, sizeof(name));
    if (emit_begin(p, &e, TK_THREAD_OS)) {
        rec_thread_os_put(&e.r, &(rec_thread_os){ .thread = id, .os_tid = os_tid, .os_name = name });
        emit_end(&e);
    }
    return S_OK;
}

/* The name is exactly cch units, not NUL-terminated, and set by the
 * program: it is recorded whole, NULs and control characters included (up
 * to the trace's string limit); the report makes it safe to print. */
HRESULT cb_ThreadNameChanged(ICorProfilerCallback11 *This, ThreadID id, ULONG cch, WCHAR *name)
{
    profiler *p = profiler_from(This);
    char utf8[TRACE_MAX_STR + 1];
    size_t len;
    emit e;

    if (!(p->cfg.collect & CP_COLLECT_THREADS))
        return S_OK;
    len = names_utf16_to_utf8_whole(name ? name : (WCHAR *)u"", name ? cch : 0, utf8, sizeof(utf8));
    if (emit_begin(p, &e, TK_THREAD_NAME)) {
        rec_thread_name_put(&e.r, &(rec_thread_name){ .thread = id, .name = utf8, .name_len = (uint16_t)len });
        emit_end(&e);
    }
    return S_OK;
}
