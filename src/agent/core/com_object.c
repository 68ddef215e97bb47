/* com_object.c - the profiler instance as a COM object: creation, IUnknown
 * (QueryInterface answers IUnknown and ICorProfilerCallback..Callback11 with
 * the same object), reference counting, teardown (through the session), and
 * the vtable: the do-nothing defaults, then the core's own callbacks (the
 * session's lifecycle), then the slots each service sets (service.h).
 * Calls the callbacks (through the vtable) and the session; its creator
 * (manager.c) only through the on_free hook. */
#include "agent/core/com_object.h"
#include "agent/core/callbacks.h"
#include "agent/core/profiler.h"
#include "agent/core/service.h"
#include "agent/core/session.h"

#include <stdlib.h>
#include <string.h>

static const GUID *const callback_iids[] = {
    &IID_ICorProfilerCallback,  &IID_ICorProfilerCallback2, &IID_ICorProfilerCallback3,
    &IID_ICorProfilerCallback4, &IID_ICorProfilerCallback5, &IID_ICorProfilerCallback6,
    &IID_ICorProfilerCallback7, &IID_ICorProfilerCallback8, &IID_ICorProfilerCallback9,
    &IID_ICorProfilerCallback10, &IID_ICorProfilerCallback11,
};

static HRESULT prof_QueryInterface(ICorProfilerCallback11 *This, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!riid)
        return E_POINTER;
    int ok = guid_equal(riid, &IID_IUnknown);
    for (size_t i = 0; !ok && i < sizeof(callback_iids) / sizeof(callback_iids[0]); i++)
        ok = guid_equal(riid, callback_iids[i]);
    if (!ok)
        return E_NOINTERFACE;
    This->lpVtbl->AddRef(This);
    *ppv = This;
    return S_OK;
}

static ULONG prof_AddRef(ICorProfilerCallback11 *This)
{
    return atomic_fetch_add(&profiler_from(This)->refcount, 1) + 1;
}

/* Frees an instance once the runtime has let go of it: the session frees
 * what it set up (stopping whatever still runs, see session_close). */
static void profiler_destroy(profiler *p)
{
    if (p->on_free)
        p->on_free(p);
    session_close(p, SESSION_DESTROY);
    services_destroy(p);
    pthread_mutex_destroy(&p->threads_lock);
    free(p);
}

static ULONG prof_Release(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    unsigned n = atomic_fetch_sub(&p->refcount, 1) - 1;
    if (n == 0)
        profiler_destroy(p);
    return n;
}

static ICorProfilerCallbackVtbl vtable;
static pthread_once_t vtable_once = PTHREAD_ONCE_INIT;

static void build_vtable(void)
{
    ICorProfilerCallbackVtbl *v = &vtable;

    callbacks_fill_defaults(v);
    v->QueryInterface = prof_QueryInterface;
    v->AddRef = prof_AddRef;
    v->Release = prof_Release;
    v->Initialize = cb_Initialize;
    v->Shutdown = cb_Shutdown;
    v->InitializeForAttach = cb_InitializeForAttach;
    v->ProfilerAttachComplete = cb_ProfilerAttachComplete;
    v->ProfilerDetachSucceeded = cb_ProfilerDetachSucceeded;
    v->LoadAsNotificationOnly = cb_LoadAsNotificationOnly;
    services_callbacks(v);
}

const ICorProfilerCallbackVtbl *profiler_vtable(void)
{
    pthread_once(&vtable_once, build_vtable);
    return &vtable;
}

profiler *profiler_create(void (*on_free)(profiler *p))
{
    profiler *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->iface.lpVtbl = profiler_vtable();
    atomic_init(&p->refcount, 1);
    atomic_init(&p->recording, 0);
    p->on_free = on_free;
    if (services_create(p) < 0) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->threads_lock, NULL);
    return p;
}
