/* standin_agent.c - a stand-in for an APM agent, for the tests (never part
 * of clrprobe): a minimal main profiler in C that a .NET process loads at
 * launch (CORECLR_ENABLE_PROFILING=1, CORECLR_PROFILER={A11CE0DE-...},
 * CORECLR_PROFILER_PATH=libstandin_agent.so), asks for a few events, as
 * Datadog's or OpenTelemetry's agents do, and counts them: each one it gets
 * is appended to the file APM_STANDIN_LOG names, as "REALTIME_NS EVENT".
 * tests/e2e/test_coexist.sh loads clrprobe's agent beside it and checks
 * from that file that its callbacks kept coming.
 *
 * The vtable is made, as the agent's, from src/api/corprof_callbacks.def:
 * a do-nothing method in every slot, then the few it implements.  It says
 * FALSE to LoadAsNotificationOnly (the default): the main profiler. */
#include "api/corprof.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* {A11CE0DE-5EED-4A9E-8C7B-0123456789AB} */
static const GUID CLSID_standin = { 0xA11CE0DE, 0x5EED, 0x4A9E, { 0x8C, 0x7B, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB } };

static int log_fd = -1;

/* Appends "REALTIME_NS EVENT\n" in one write (O_APPEND: lines never mix). */
static void note(const char *event)
{
    struct timespec ts;
    char line[96];
    int n;

    if (log_fd < 0)
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    n = snprintf(line, sizeof(line), "%lld %s\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, event);
    if (write(log_fd, line, (size_t)n) < 0) {
        /* a test fixture: nothing to do */
    }
}

#define CORPROF_CALLBACK(slot, name, ret, params) \
    static ret default_##name params { return S_OK; }
#define CORPROF_CALLBACK_OUT(slot, name, ret, params, out, neutral) \
    static ret default_##name params { if (out) *out = neutral; return S_OK; }
#define CORPROF_CALLBACK_HR(slot, name, ret, params, hr) \
    static ret default_##name params { return hr; }
#include "api/corprof_callbacks.def"

static ICorProfilerCallback11 instance;
static ICorProfilerCallbackVtbl vtable;

static HRESULT standin_QueryInterface(ICorProfilerCallback11 *This, REFIID riid, void **ppv)
{
    static const GUID *const iids[] = {
        &IID_IUnknown, &IID_ICorProfilerCallback, &IID_ICorProfilerCallback2, &IID_ICorProfilerCallback3,
        &IID_ICorProfilerCallback4, &IID_ICorProfilerCallback5, &IID_ICorProfilerCallback6,
        &IID_ICorProfilerCallback7, &IID_ICorProfilerCallback8, &IID_ICorProfilerCallback9,
        &IID_ICorProfilerCallback10, &IID_ICorProfilerCallback11,
    };
    for (size_t i = 0; i < sizeof(iids) / sizeof(iids[0]); i++) {
        if (guid_equal(riid, iids[i])) {
            *ppv = This;
            return S_OK;
        }
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG standin_AddRef(ICorProfilerCallback11 *This) { return 2; }
static ULONG standin_Release(ICorProfilerCallback11 *This) { return 1; }

static HRESULT standin_Initialize(ICorProfilerCallback11 *This, IUnknown *unk)
{
    ICorProfilerInfo15 *info = NULL;
    const char *path = getenv("APM_STANDIN_LOG");
    HRESULT hr;

    if (path)
        log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (FAILED(unk->lpVtbl->QueryInterface(unk, &IID_ICorProfilerInfo5, (void **)&info)) || !info)
        return E_FAIL;
    hr = info->lpVtbl->SetEventMask2(info, COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS |
                                              COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_JIT_COMPILATION,
                                     COR_PRF_HIGH_BASIC_GC);
    note(SUCCEEDED(hr) ? "initialize" : "initialize-refused");
    return hr;
}

static HRESULT standin_Shutdown(ICorProfilerCallback11 *This)
{
    note("shutdown");
    return S_OK;
}

static HRESULT standin_ThreadCreated(ICorProfilerCallback11 *This, ThreadID thread)
{
    note("thread");
    return S_OK;
}

static HRESULT standin_ModuleLoadFinished(ICorProfilerCallback11 *This, ModuleID module, HRESULT status)
{
    note("module");
    return S_OK;
}

static HRESULT standin_ExceptionThrown(ICorProfilerCallback11 *This, ObjectID object)
{
    note("exception");
    return S_OK;
}

static HRESULT standin_JITCompilationFinished(ICorProfilerCallback11 *This, FunctionID function, HRESULT status,
                                              BOOL safe)
{
    note("jit");
    return S_OK;
}

static HRESULT standin_GarbageCollectionStarted(ICorProfilerCallback11 *This, int count, BOOL generations[],
                                                COR_PRF_GC_REASON reason)
{
    note("gc");
    return S_OK;
}

/* ---- the class factory ---- */

static HRESULT factory_QueryInterface(IClassFactory *This, REFIID riid, void **ppv)
{
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
    ICorProfilerCallbackVtbl *v = &vtable;

#define CORPROF_CALLBACK(slot, name, ret, params) v->name = default_##name;
#include "api/corprof_callbacks.def"
    v->QueryInterface = standin_QueryInterface;
    v->AddRef = standin_AddRef;
    v->Release = standin_Release;
    v->Initialize = standin_Initialize;
    v->Shutdown = standin_Shutdown;
    v->ThreadCreated = standin_ThreadCreated;
    v->ModuleLoadFinished = standin_ModuleLoadFinished;
    v->ExceptionThrown = standin_ExceptionThrown;
    v->JITCompilationFinished = standin_JITCompilationFinished;
    v->GarbageCollectionStarted = standin_GarbageCollectionStarted;
    instance.lpVtbl = v;
    return standin_QueryInterface(&instance, riid, ppv);
}

static HRESULT factory_LockServer(IClassFactory *This, BOOL lock) { return S_OK; }

static const IClassFactoryVtbl factory_vtbl = {
    factory_QueryInterface, factory_AddRef, factory_Release, factory_CreateInstance, factory_LockServer,
};
static IClassFactory factory = { &factory_vtbl };

__attribute__((visibility("default")))
HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    if (!guid_equal(rclsid, &CLSID_standin))
        return CLASS_E_CLASSNOTAVAILABLE;
    return factory_QueryInterface(&factory, riid, ppv);
}
