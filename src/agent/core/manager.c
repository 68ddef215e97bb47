/* manager.c - the agent's entry point and its one piece of process-wide
 * state.  The runtime dlopens libclrprobe.so, calls DllGetClassObject for
 * one of our two CLSIDs (the main role, or the notification role:
 * common/identity.h) and asks that class's factory for an instance.  Every
 * runtime in the process gets its own profiler instance; the manager only
 * keeps the list of live instances (for teardown, and to tell an instance
 * that another one is the main profiler) and never holds per-runtime data.
 * The top of the agent: calls com_object.c (profiler_create), which unlinks
 * an instance through the on_free hook given to it here. */
#include "agent/core/manager.h"
#include "agent/core/main_profiler.h"
#include "agent/core/com_object.h"

#include <stdlib.h>
#include <string.h>

static struct {
    pthread_mutex_t lock;
    profiler *instances;
} manager = { PTHREAD_MUTEX_INITIALIZER, NULL };

void manager_add(profiler *p)
{
    pthread_mutex_lock(&manager.lock);
    p->next = manager.instances;
    manager.instances = p;
    pthread_mutex_unlock(&manager.lock);
}

/* Whether the process's main profiler is another one: another live
 * instance of ours that did not load as a notification profiler and has a
 * session open (its library: this one), or the startup profiler the
 * environment names, loaded (main_profiler.h).  Its library in path. */
static int main_elsewhere(const profiler *self, char *path, size_t cap)
{
    int found = 0;

    pthread_mutex_lock(&manager.lock);
    for (const profiler *q = manager.instances; q && !found; q = q->next)
        found = q != self && !q->notification && q->info != NULL;
    pthread_mutex_unlock(&manager.lock);
    if (found) {
        main_profiler_self(path, cap);
        return 1;
    }
    return main_profiler_foreign(path, cap);
}

void manager_remove(profiler *p)
{
    pthread_mutex_lock(&manager.lock);
    for (profiler **pp = &manager.instances; *pp; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    }
    pthread_mutex_unlock(&manager.lock);
}

/* ---- the class factories (static objects: each holds only its role) ---- */

typedef struct role_factory {
    IClassFactory iface;                 /* first: the runtime's pointer is to it */
    int notification;                    /* instances ask to load as notification profilers */
} role_factory;

static HRESULT factory_QueryInterface(IClassFactory *This, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    if (guid_equal(riid, &IID_IUnknown) || guid_equal(riid, &IID_IClassFactory)) {
        *ppv = This;
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG factory_AddRef(IClassFactory *This) { return 2; }
static ULONG factory_Release(IClassFactory *This) { return 1; }

static HRESULT factory_CreateInstance(IClassFactory *This, IUnknown *outer, REFIID riid, void **ppv)
{
    profiler *p;
    HRESULT hr;

    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    p = profiler_create(manager_remove);
    if (!p)
        return E_OUTOFMEMORY;
    p->main_elsewhere = main_elsewhere;
    p->notification_asked = ((role_factory *)This)->notification;
    manager_add(p);
    hr = p->iface.lpVtbl->QueryInterface(&p->iface, riid, ppv);
    p->iface.lpVtbl->Release(&p->iface);     /* drop the creation reference */
    return hr;
}

static HRESULT factory_LockServer(IClassFactory *This, BOOL lock) { return S_OK; }

static const IClassFactoryVtbl factory_vtbl = {
    factory_QueryInterface, factory_AddRef, factory_Release, factory_CreateInstance, factory_LockServer,
};
static role_factory main_factory = { { &factory_vtbl }, 0 };
static role_factory notification_factory = { { &factory_vtbl }, 1 };

__attribute__((visibility("default")))
HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    role_factory *f;

    if (!ppv || !rclsid || !riid)
        return E_POINTER;
    *ppv = NULL;
    if (guid_equal(rclsid, &CLSID_clrprobe))
        f = &main_factory;
    else if (guid_equal(rclsid, &CLSID_clrprobe_notification))
        f = &notification_factory;
    else
        return CLASS_E_CLASSNOTAVAILABLE;
    return f->iface.lpVtbl->QueryInterface(&f->iface, riid, ppv);
}
