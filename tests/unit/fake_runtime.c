/* fake_runtime.c - the simulated runtime of fake_runtime.h: an
 * ICorProfilerInfo15, snapshot enumerators with scripted hooks, a tiny
 * IMetaDataImport, the world's lifetime steps delivering callbacks to the
 * real agent, and the reading of the trace it wrote.  Everything runs on
 * the test's thread; hooks run inside an enumerator's Next(), which the
 * agent calls outside its gate, so a hook may deliver any callback. */
#include "fake_runtime.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "api/cormetadata.h"
#include "common/identity.h"
#include "trace/format.h"

/* The agent's one export (src/agent/core/manager.c). */
HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv);

static fake_runtime *rt_of(ICorProfilerInfo15 *This) { return (fake_runtime *)This; }

static void violation(fake_runtime *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void violation(fake_runtime *rt, const char *fmt, ...)
{
    va_list ap;
    if (rt->violations < FR_MAX_NOTES) {
        va_start(ap, fmt);
        vsnprintf(rt->notes[rt->violations], sizeof(rt->notes[0]), fmt, ap);
        va_end(ap);
    }
    rt->violations++;
}

/* An Info call after RequestProfilerDetach: the runtime refuses it
 * (CORPROF_E_PROFILER_DETACHING), and the agent must make none. */
static void after_detach(fake_runtime *rt, const char *what)
{
    if (__atomic_load_n(&rt->detach_requested, __ATOMIC_SEQ_CST))
        violation(rt, "%s called after RequestProfilerDetach", what);
}

void fr_print_violations(const fake_runtime *rt)
{
    for (int i = 0; i < rt->violations && i < FR_MAX_NOTES; i++)
        printf("    fake runtime: %s\n", rt->notes[i]);
}

/* ASCII into a WCHAR buffer the COM way: *pcch gets the length with the
 * terminator; the copy is cut to cch. */
static void wcopy(const char *s, WCHAR *buf, ULONG cch, ULONG *pcch)
{
    ULONG n = (ULONG)strlen(s) + 1;
    if (pcch)
        *pcch = n;
    if (!buf || cch == 0)
        return;
    for (ULONG i = 0; i < n && i < cch; i++)
        buf[i] = (WCHAR)(unsigned char)s[i];
    buf[cch < n ? cch - 1 : n - 1] = 0;
}

/* ---- the world ---- */

static const char *const kind_names[FR_KINDS] = { "appdomain", "assembly", "module", "thread", "function" };

fr_obj *fr_find(fake_runtime *rt, fr_kind kind, uint64_t id)
{
    for (int i = 0; i < rt->nobj; i++)
        if (rt->obj[i].kind == kind && rt->obj[i].id == id)
            return &rt->obj[i];
    return NULL;
}

static fr_obj *add(fake_runtime *rt, fr_kind kind, uint64_t id, uint64_t parent, uint64_t extra,
                   const char *name)
{
    fr_obj *o;
    if (rt->nobj == FR_MAX_OBJECTS || fr_find(rt, kind, id)) {
        violation(rt, "test script: cannot add %s 0x%llx", kind_names[kind], (unsigned long long)id);
        return NULL;
    }
    o = &rt->obj[rt->nobj++];
    memset(o, 0, sizeof(*o));
    o->kind = kind;
    o->id = id;
    o->parent = parent;
    o->extra = extra;
    snprintf(o->name, sizeof(o->name), "%s", name);
    return o;
}

fr_obj *fr_appdomain(fake_runtime *rt, uint64_t id, const char *name)
{
    return add(rt, FR_APPDOMAIN, id, 0, 0, name);
}

fr_obj *fr_assembly(fake_runtime *rt, uint64_t id, uint64_t appdomain, uint64_t manifest_module, const char *name)
{
    return add(rt, FR_ASSEMBLY, id, appdomain, manifest_module, name);
}

fr_obj *fr_module(fake_runtime *rt, uint64_t id, uint64_t assembly, const char *path)
{
    return add(rt, FR_MODULE, id, assembly, 0, path);
}

fr_obj *fr_thread(fake_runtime *rt, uint64_t id, uint32_t os_tid)
{
    return add(rt, FR_THREAD, id, 0, os_tid, "");
}

/* The method token is the object's index (metadata lookups use it). */
fr_obj *fr_function(fake_runtime *rt, uint64_t id, uint64_t module, const char *type, const char *method)
{
    fr_obj *o = add(rt, FR_FUNCTION, id, module, TokenFromRid((mdToken)rt->nobj + 1, mdtMethodDef), type);
    if (o)
        snprintf(o->method, sizeof(o->method), "%s", method);
    return o;
}

fr_obj *fr_dynamic_function(fake_runtime *rt, uint64_t id, uint64_t module, const char *name)
{
    fr_obj *o = add(rt, FR_FUNCTION, id, module, TokenFromRid(0, mdtMethodDef), "");
    if (o) {
        snprintf(o->method, sizeof(o->method), "%s", name);
        o->dynamic = 1;
    }
    return o;
}

/* The agent asks about an ID: count it, and flag it if the ID is not (or
 * no longer) valid.  Returns the object if the call may succeed. */
static fr_obj *touch(fake_runtime *rt, fr_kind kind, uint64_t id, const char *what)
{
    fr_obj *o = fr_find(rt, kind, id), *m;

    if (!o) {
        violation(rt, "%s(0x%llx): no such %s", what, (unsigned long long)id, kind_names[kind]);
        return NULL;
    }
    o->calls++;
    if (o->unloading)
        o->calls_after_unload_began++;
    if (!o->begun) {
        violation(rt, "%s(0x%llx): the %s does not exist yet", what, (unsigned long long)id, kind_names[kind]);
        return NULL;
    }
    m = kind == FR_FUNCTION ? fr_find(rt, FR_MODULE, o->parent) : NULL;
    if (o->unload_delivered || (m && m->unload_delivered)) {
        violation(rt, "%s(0x%llx): %s touched after its unload was delivered", what, (unsigned long long)id,
                  kind_names[kind]);
        return NULL;
    }
    if (rt->call_hook.fn && rt->call_hook.kind == kind && rt->call_hook.id == id) {
        fr_hook_fn fn = rt->call_hook.fn;
        rt->call_hook.fn = NULL;
        fn(rt, rt->call_hook.arg);
    }
    return o;
}

/* ---- delivering events ---- */

static const DWORD kind_mask[FR_KINDS] = {
    COR_PRF_MONITOR_APPDOMAIN_LOADS, COR_PRF_MONITOR_ASSEMBLY_LOADS, COR_PRF_MONITOR_MODULE_LOADS,
    COR_PRF_MONITOR_THREADS, COR_PRF_MONITOR_JIT_COMPILATION,
};

static int deliver(fake_runtime *rt, DWORD low, DWORD high)
{
    return rt->cb && rt->events_on && ((rt->mask_low & low) || (rt->mask_high & high));
}

#define CB(rt) ((rt)->cb->lpVtbl)

void fr_begin_load(fake_runtime *rt, fr_kind kind, uint64_t id)
{
    fr_obj *o = fr_find(rt, kind, id);
    if (!o || o->begun) {
        violation(rt, "test script: begin_load of %s 0x%llx", kind_names[kind], (unsigned long long)id);
        return;
    }
    o->begun = 1;
    o->enumerable = 1;                 /* golden rule: enumerable before LoadFinished */
    if (kind == FR_FUNCTION && deliver(rt, kind_mask[kind], 0))
        CB(rt)->JITCompilationStarted(rt->cb, id, TRUE);
}

void fr_finish_load(fake_runtime *rt, fr_kind kind, uint64_t id)
{
    fr_obj *o = fr_find(rt, kind, id);
    if (!o || !o->begun || o->loaded) {
        violation(rt, "test script: finish_load of %s 0x%llx", kind_names[kind], (unsigned long long)id);
        return;
    }
    o->loaded = 1;
    if (!deliver(rt, kind_mask[kind], 0))
        return;
    switch (kind) {
    case FR_APPDOMAIN: CB(rt)->AppDomainCreationFinished(rt->cb, id, S_OK); break;
    case FR_ASSEMBLY: CB(rt)->AssemblyLoadFinished(rt->cb, id, S_OK); break;
    case FR_MODULE: CB(rt)->ModuleLoadFinished(rt->cb, id, S_OK); break;
    case FR_THREAD:
        CB(rt)->ThreadCreated(rt->cb, id);
        CB(rt)->ThreadAssignedToOSThread(rt->cb, id, (DWORD)o->extra);
        break;
    case FR_FUNCTION: CB(rt)->JITCompilationFinished(rt->cb, id, S_OK, TRUE); break;
    default: break;
    }
}

void fr_begin_unload(fake_runtime *rt, fr_kind kind, uint64_t id)
{
    fr_obj *o = fr_find(rt, kind, id);
    if (!o || !o->begun || o->unloading || kind == FR_FUNCTION) {
        violation(rt, "test script: begin_unload of %s 0x%llx", kind_names[kind], (unsigned long long)id);
        return;
    }
    o->unloading = 1;
    o->enumerable = 0;                 /* golden rule: gone from snapshots before UnloadStarted */
    for (int i = 0; kind == FR_MODULE && i < rt->nobj; i++) {
        if (rt->obj[i].kind == FR_FUNCTION && rt->obj[i].parent == id) {
            rt->obj[i].unloading = 1;
            rt->obj[i].enumerable = 0;
        }
    }
}

void fr_finish_unload(fake_runtime *rt, fr_kind kind, uint64_t id)
{
    fr_obj *o = fr_find(rt, kind, id);
    int told;

    if (!o || !o->unloading || o->unloaded) {
        violation(rt, "test script: finish_unload of %s 0x%llx", kind_names[kind], (unsigned long long)id);
        return;
    }
    o->unloaded = 1;
    told = deliver(rt, kind_mask[kind], 0);
    if (told) {
        switch (kind) {
        case FR_APPDOMAIN: CB(rt)->AppDomainShutdownStarted(rt->cb, id); break;
        case FR_ASSEMBLY: CB(rt)->AssemblyUnloadStarted(rt->cb, id); break;
        case FR_MODULE: CB(rt)->ModuleUnloadStarted(rt->cb, id); break;
        case FR_THREAD: CB(rt)->ThreadDestroyed(rt->cb, id); break;
        default: break;
        }
    }
    /* From here on the ID is dead for anyone who heard of it (and for
     * anyone else it was never valid to use). */
    o->unload_delivered = 1;
    for (int i = 0; kind == FR_MODULE && i < rt->nobj; i++)
        if (rt->obj[i].kind == FR_FUNCTION && rt->obj[i].parent == id)
            rt->obj[i].unloaded = rt->obj[i].unload_delivered = 1;
}

void fr_load(fake_runtime *rt, fr_kind kind, uint64_t id)
{
    fr_begin_load(rt, kind, id);
    fr_finish_load(rt, kind, id);
}

void fr_unload(fake_runtime *rt, fr_kind kind, uint64_t id)
{
    fr_begin_unload(rt, kind, id);
    fr_finish_unload(rt, kind, id);
}

void fr_hook(fake_runtime *rt, fr_kind kind, unsigned after, fr_hook_fn fn, void *arg)
{
    rt->hook[kind].fn = fn;
    rt->hook[kind].arg = arg;
    rt->hook[kind].after = after;
    rt->hook[kind].armed = 1;
}

void fr_on_call(fake_runtime *rt, fr_kind kind, uint64_t id, fr_hook_fn fn, void *arg)
{
    rt->call_hook.fn = fn;
    rt->call_hook.arg = arg;
    rt->call_hook.kind = kind;
    rt->call_hook.id = id;
}

/* ---- exceptions ---- */

#define EXC_TYPEDEF_RID 0x800          /* typedef tokens of exception classes: 0x02000800 + index */
#define EXC_MESSAGE_FIELD 0x04000001   /* System.Exception._message */

void fr_exc_class(fake_runtime *rt, uint64_t module, uint64_t id, const char *name, uint64_t parent)
{
    if (rt->nexc_class == FR_MAX_EXC_CLASSES) {
        violation(rt, "test script: too many exception classes");
        return;
    }
    rt->exc_module = module;
    rt->exc_class[rt->nexc_class].id = id;
    rt->exc_class[rt->nexc_class].parent = parent;
    snprintf(rt->exc_class[rt->nexc_class].name, sizeof(rt->exc_class[0].name), "%s", name);
    rt->nexc_class++;
}

static int exc_class_index(const fake_runtime *rt, uint64_t id)
{
    for (int i = 0; i < rt->nexc_class; i++)
        if (rt->exc_class[i].id == id)
            return i;
    return -1;
}

uint64_t fr_exc_object(fake_runtime *rt, uint64_t cls, const char *message)
{
    /* [MethodTable*][8 bytes][_message at 16]; a string: [MethodTable*][u32 length at 8][UTF-16 at 12] */
    uint8_t *obj, *str = NULL;

    if (rt->nexc_objects + 2 > FR_MAX_EXC_OBJECTS || (obj = calloc(1, 64)) == NULL) {
        violation(rt, "test script: too many exception objects");
        return 0;
    }
    memcpy(obj, &cls, 8);
    rt->exc_objects[rt->nexc_objects++] = obj;
    if (message) {
        uint32_t n = (uint32_t)strlen(message);
        str = calloc(1, 12 + 2 * (size_t)n + 2);
        memcpy(str + 8, &n, 4);
        for (uint32_t i = 0; i < n; i++) {
            uint16_t u = (uint8_t)message[i];       /* (ASCII in these tests) */
            memcpy(str + 12 + 2 * i, &u, 2);
        }
        rt->exc_objects[rt->nexc_objects++] = str;
    }
    memcpy(obj + 16, &str, sizeof(str));
    return (uint64_t)(uintptr_t)obj;
}

void fr_exc_stack(fake_runtime *rt, const uint64_t *fids, int n)
{
    rt->nstack = n < FR_MAX_STACK ? n : FR_MAX_STACK;
    memcpy(rt->stack, fids, sizeof(uint64_t) * (size_t)rt->nstack);
}

void fr_exc(fake_runtime *rt, fr_exc_event ev, uint64_t a, uint64_t b)
{
    if (!deliver(rt, COR_PRF_MONITOR_EXCEPTIONS, 0))
        return;
    switch (ev) {
    case FR_THROWN: CB(rt)->ExceptionThrown(rt->cb, a); break;
    case FR_SEARCH_ENTER: CB(rt)->ExceptionSearchFunctionEnter(rt->cb, a); break;
    case FR_SEARCH_LEAVE: CB(rt)->ExceptionSearchFunctionLeave(rt->cb); break;
    case FR_FILTER_ENTER: CB(rt)->ExceptionSearchFilterEnter(rt->cb, a); break;
    case FR_FILTER_LEAVE: CB(rt)->ExceptionSearchFilterLeave(rt->cb); break;
    case FR_CATCHER_FOUND: CB(rt)->ExceptionSearchCatcherFound(rt->cb, a); break;
    case FR_UNWIND_ENTER: CB(rt)->ExceptionUnwindFunctionEnter(rt->cb, a); break;
    case FR_UNWIND_LEAVE: CB(rt)->ExceptionUnwindFunctionLeave(rt->cb); break;
    case FR_FINALLY_ENTER: CB(rt)->ExceptionUnwindFinallyEnter(rt->cb, a); break;
    case FR_FINALLY_LEAVE: CB(rt)->ExceptionUnwindFinallyLeave(rt->cb); break;
    case FR_CATCH_ENTER: CB(rt)->ExceptionCatcherEnter(rt->cb, a, b); break;
    case FR_CATCH_LEAVE: CB(rt)->ExceptionCatcherLeave(rt->cb); break;
    }
}

void fr_gc_started(fake_runtime *rt)
{
    BOOL collected[3] = { TRUE, TRUE, FALSE };
    if (deliver(rt, 0, COR_PRF_HIGH_BASIC_GC))
        CB(rt)->GarbageCollectionStarted(rt->cb, 3, collected, COR_PRF_GC_OTHER);
}

void fr_gc_finished(fake_runtime *rt)
{
    if (deliver(rt, 0, COR_PRF_HIGH_BASIC_GC))
        CB(rt)->GarbageCollectionFinished(rt->cb);
}

void fr_suspend_started(fake_runtime *rt)
{
    if (deliver(rt, COR_PRF_MONITOR_SUSPENDS, 0))
        CB(rt)->RuntimeSuspendStarted(rt->cb, COR_PRF_SUSPEND_FOR_GC);
}

void fr_resume_finished(fake_runtime *rt)
{
    if (deliver(rt, COR_PRF_MONITOR_SUSPENDS, 0)) {
        CB(rt)->RuntimeResumeStarted(rt->cb);
        CB(rt)->RuntimeResumeFinished(rt->cb);
    }
}

/* ---- enumerators over a snapshot ---- */

typedef struct fr_enum {
    union {                            /* the COM object: must stay first */
        ICorProfilerModuleEnum m;
        ICorProfilerThreadEnum t;
        ICorProfilerFunctionEnum f;
    } com;
    fake_runtime *rt;
    int refs;
    fr_kind kind;
    unsigned n, pos;
    uint64_t ids[FR_MAX_OBJECTS];
    fr_hook_fn hook;                   /* runs once, before handing out item hook_after */
    void *hook_arg;
    unsigned hook_after;
} fr_enum;

static fr_enum *enum_create(fake_runtime *rt, fr_kind kind, const void *vtbl)
{
    fr_enum *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->com.m.lpVtbl = vtbl;            /* the vtable pointer, whichever member is used */
    e->rt = rt;
    e->refs = 1;
    e->kind = kind;
    for (int i = 0; i < rt->nobj; i++)
        if (rt->obj[i].kind == kind && rt->obj[i].enumerable)
            e->ids[e->n++] = rt->obj[i].id;
    if (rt->hook[kind].armed) {
        e->hook = rt->hook[kind].fn;
        e->hook_arg = rt->hook[kind].arg;
        e->hook_after = rt->hook[kind].after;
        rt->hook[kind].armed = 0;
    }
    if (!rt->events_on)
        violation(rt, "%s enumeration taken before events were enabled (Race #1)", kind_names[kind]);
    rt->enum_calls[kind]++;
    rt->live_enums++;
    return e;
}

/* Hands out up to celt items, stopping early at the hook's position so that
 * the hook runs between two Next() calls: the agent is then outside its
 * gate.  (Next() says S_FALSE when it returns fewer than asked.) */
static void enum_next(fr_enum *e, ULONG celt, uint64_t *out, ULONG *fetched)
{
    unsigned end = e->n, got = 0;

    if (e->hook && e->pos == e->hook_after) {
        fr_hook_fn fn = e->hook;
        e->hook = NULL;
        fn(e->rt, e->hook_arg);
    }
    if (e->hook && e->hook_after > e->pos && e->hook_after < end)
        end = e->hook_after;
    while (got < celt && e->pos < end)
        out[got++] = e->ids[e->pos++];
    *fetched = got;
}

static ULONG enum_release(fr_enum *e)
{
    int n = --e->refs;
    if (n == 0) {
        e->rt->live_enums--;
        free(e);
    }
    return (ULONG)n;
}

static HRESULT enum_count(fr_enum *e, ULONG *pcelt)
{
    if (!pcelt)
        return E_POINTER;
    *pcelt = e->n;
    return S_OK;
}

static HRESULT enum_skip(fr_enum *e, ULONG celt)
{
    e->pos = e->pos + celt > e->n ? e->n : e->pos + celt;
    return e->pos == e->n ? S_FALSE : S_OK;
}

/* The three enumerator vtables differ only in their types. */
#define ENUM_METHODS(T, IID, tag)                                                                \
    static HRESULT tag##_qi(T *This, REFIID riid, void **ppv)                                    \
    {                                                                                            \
        if (!guid_equal(riid, &IID_IUnknown) && !guid_equal(riid, &IID)) {                        \
            *ppv = NULL;                                                                         \
            return E_NOINTERFACE;                                                                \
        }                                                                                        \
        ((fr_enum *)This)->refs++;                                                               \
        *ppv = This;                                                                             \
        return S_OK;                                                                             \
    }                                                                                            \
    static ULONG tag##_addref(T *This) { return (ULONG)++((fr_enum *)This)->refs; }              \
    static ULONG tag##_release(T *This) { return enum_release((fr_enum *)This); }                \
    static HRESULT tag##_skip(T *This, ULONG celt) { return enum_skip((fr_enum *)This, celt); }  \
    static HRESULT tag##_reset(T *This) { ((fr_enum *)This)->pos = 0; return S_OK; }             \
    static HRESULT tag##_clone(T *This, T **out) { *out = NULL; return E_NOTIMPL; }              \
    static HRESULT tag##_count(T *This, ULONG *pcelt) { return enum_count((fr_enum *)This, pcelt); }

ENUM_METHODS(ICorProfilerModuleEnum, IID_ICorProfilerModuleEnum, menum)
ENUM_METHODS(ICorProfilerThreadEnum, IID_ICorProfilerThreadEnum, tenum)
ENUM_METHODS(ICorProfilerFunctionEnum, IID_ICorProfilerFunctionEnum, fenum)

/* Next() of each kind: the shared enum_next, then the kind's element type. */
static HRESULT next_ids(void *This, ULONG celt, uint64_t *buf, ULONG *got)
{
    enum_next(This, celt < FR_MAX_OBJECTS ? celt : FR_MAX_OBJECTS, buf, got);
    return *got == celt ? S_OK : S_FALSE;
}

static HRESULT menum_next(ICorProfilerModuleEnum *This, ULONG celt, ModuleID *ids, ULONG *fetched)
{
    uint64_t buf[FR_MAX_OBJECTS];
    ULONG got = 0;
    HRESULT hr = next_ids(This, celt, buf, &got);
    for (ULONG i = 0; i < got; i++)
        ids[i] = (ModuleID)buf[i];
    if (fetched)
        *fetched = got;
    return hr;
}

static HRESULT tenum_next(ICorProfilerThreadEnum *This, ULONG celt, ThreadID *ids, ULONG *fetched)
{
    uint64_t buf[FR_MAX_OBJECTS];
    ULONG got = 0;
    HRESULT hr = next_ids(This, celt, buf, &got);
    for (ULONG i = 0; i < got; i++)
        ids[i] = (ThreadID)buf[i];
    if (fetched)
        *fetched = got;
    return hr;
}

static HRESULT fenum_next(ICorProfilerFunctionEnum *This, ULONG celt, COR_PRF_FUNCTION *fns, ULONG *fetched)
{
    uint64_t buf[FR_MAX_OBJECTS];
    ULONG got = 0;
    HRESULT hr = next_ids(This, celt, buf, &got);
    for (ULONG i = 0; i < got; i++) {
        fns[i].functionId = (FunctionID)buf[i];
        fns[i].reJitId = 0;
    }
    if (fetched)
        *fetched = got;
    return hr;
}

static const ICorProfilerModuleEnumVtbl menum_vtbl = {
    menum_qi, menum_addref, menum_release, menum_skip, menum_reset, menum_clone, menum_count, menum_next,
};
static const ICorProfilerThreadEnumVtbl tenum_vtbl = {
    tenum_qi, tenum_addref, tenum_release, tenum_skip, tenum_reset, tenum_clone, tenum_count, tenum_next,
};
static const ICorProfilerFunctionEnumVtbl fenum_vtbl = {
    fenum_qi, fenum_addref, fenum_release, fenum_skip, fenum_reset, fenum_clone, fenum_count, fenum_next,
};

/* ---- a tiny IMetaDataImport, one per GetModuleMetaData ---- */

static const IMetaDataImportVtbl import_vtbl;

typedef struct fr_import {
    IMetaDataImport com;               /* must stay first */
    fake_runtime *rt;
    uint64_t module;
    int refs;
} fr_import;

static fr_import *imp_of(IMetaDataImport *This) { return (fr_import *)This; }

/* The function whose method token (or type token: same row) is tk, in the
 * importer's module; every call also counts as a use of the module. */
static fr_obj *imp_function(IMetaDataImport *This, mdToken tk, const char *what)
{
    fr_import *imp = imp_of(This);
    unsigned rid = RidFromToken(tk);
    fr_obj *o;

    if (!touch(imp->rt, FR_MODULE, imp->module, what) || rid == 0 || rid > (unsigned)imp->rt->nobj)
        return NULL;
    o = &imp->rt->obj[rid - 1];
    return o->kind == FR_FUNCTION && o->parent == imp->module ? o : NULL;
}

static HRESULT imp_QueryInterface(IMetaDataImport *This, REFIID riid, void **ppv)
{
    if (!guid_equal(riid, &IID_IUnknown) && !guid_equal(riid, &IID_IMetaDataImport)) {
        *ppv = NULL;
        return E_NOINTERFACE;
    }
    imp_of(This)->refs++;
    *ppv = This;
    return S_OK;
}

static ULONG imp_AddRef(IMetaDataImport *This) { return (ULONG)++imp_of(This)->refs; }

static ULONG imp_Release(IMetaDataImport *This)
{
    fr_import *imp = imp_of(This);
    int n = --imp->refs;
    if (n == 0) {
        imp->rt->live_imports--;
        free(imp);
    }
    return (ULONG)n;
}

static void imp_CloseEnum(IMetaDataImport *This, HCORENUM hEnum) {}
static BOOL imp_IsValidToken(IMetaDataImport *This, mdToken tk) { return imp_function(This, tk, "IsValidToken") != NULL; }

static HRESULT imp_GetScopeProps(IMetaDataImport *This, LPWSTR szName, ULONG cchName, ULONG *pchName, GUID *pmvid)
{
    fr_obj *m = touch(imp_of(This)->rt, FR_MODULE, imp_of(This)->module, "IMetaDataImport::GetScopeProps");
    const char *slash;

    if (!m)
        return E_FAIL;
    slash = strrchr(m->name, '/');
    wcopy(slash ? slash + 1 : m->name, szName, cchName, pchName);
    if (pmvid)
        memset(pmvid, 0, sizeof(*pmvid));
    return S_OK;
}

static HRESULT imp_GetTypeDefProps(IMetaDataImport *This, mdTypeDef td, LPWSTR szTypeDef, ULONG cchTypeDef,
                                   ULONG *pchTypeDef, DWORD *pdwTypeDefFlags, mdToken *ptkExtends)
{
    fake_runtime *rt = imp_of(This)->rt;
    unsigned rid = RidFromToken(td);
    if (TypeFromToken(td) == mdtTypeDef && rid >= EXC_TYPEDEF_RID && rid < EXC_TYPEDEF_RID + (unsigned)rt->nexc_class &&
        imp_of(This)->module == rt->exc_module) {
        wcopy(rt->exc_class[rid - EXC_TYPEDEF_RID].name, szTypeDef, cchTypeDef, pchTypeDef);
        if (pdwTypeDefFlags) *pdwTypeDefFlags = tdPublic;
        if (ptkExtends) *ptkExtends = mdTypeRefNil;
        return S_OK;
    }
    fr_obj *f = imp_function(This, td, "IMetaDataImport::GetTypeDefProps");
    if (!f || TypeFromToken(td) != mdtTypeDef)
        return CLDB_E_RECORD_NOTFOUND;
    wcopy(f->name, szTypeDef, cchTypeDef, pchTypeDef);
    if (pdwTypeDefFlags)
        *pdwTypeDefFlags = tdPublic;
    if (ptkExtends)
        *ptkExtends = mdTypeRefNil;
    return S_OK;
}

static HRESULT imp_GetMethodProps(IMetaDataImport *This, mdMethodDef mb, mdTypeDef *pClass, LPWSTR szMethod,
                                  ULONG cchMethod, ULONG *pchMethod, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                  ULONG *pcbSigBlob, ULONG *pulCodeRVA, DWORD *pdwImplFlags)
{
    fr_obj *f = imp_function(This, mb, "IMetaDataImport::GetMethodProps");
    if (!f || TypeFromToken(mb) != mdtMethodDef)
        return CLDB_E_RECORD_NOTFOUND;
    if (pClass)
        *pClass = TokenFromRid(RidFromToken(mb), mdtTypeDef);    /* each function has a type of its own */
    wcopy(f->method, szMethod, cchMethod, pchMethod);
    if (pdwAttr) *pdwAttr = 0;
    if (ppvSigBlob) *ppvSigBlob = NULL;
    if (pcbSigBlob) *pcbSigBlob = 0;
    if (pulCodeRVA) *pulCodeRVA = 0;
    if (pdwImplFlags) *pdwImplFlags = 0;
    return S_OK;
}

static HRESULT imp_GetFieldProps(IMetaDataImport *This, mdFieldDef mb, mdTypeDef *pClass, LPWSTR szField,
                                 ULONG cchField, ULONG *pchField, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                 ULONG *pcbSigBlob, DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue, ULONG *pcchValue)
{
    if (mb != EXC_MESSAGE_FIELD || imp_of(This)->module != imp_of(This)->rt->exc_module)
        return CLDB_E_RECORD_NOTFOUND;
    wcopy("_message", szField, cchField, pchField);
    if (pClass) *pClass = TokenFromRid(EXC_TYPEDEF_RID, mdtTypeDef);
    if (pdwAttr) *pdwAttr = 0;
    if (ppvSigBlob) *ppvSigBlob = NULL;
    if (pcbSigBlob) *pcbSigBlob = 0;
    if (pdwCPlusTypeFlag) *pdwCPlusTypeFlag = 0;
    if (ppValue) *ppValue = NULL;
    if (pcchValue) *pcchValue = 0;
    return S_OK;
}

static HRESULT imp_GetNestedClassProps(IMetaDataImport *This, mdTypeDef tdNestedClass, mdTypeDef *ptdEnclosingClass)
{
    imp_function(This, tdNestedClass, "IMetaDataImport::GetNestedClassProps");
    return CLDB_E_RECORD_NOTFOUND;                             /* no nested types here */
}

/* ---- ICorProfilerInfo15: the methods the agent uses when it attaches ---- */

static HRESULT info_QueryInterface(ICorProfilerInfo15 *This, REFIID riid, void **ppv)
{
    static const GUID *const iids[] = {
        &IID_IUnknown, &IID_ICorProfilerInfo, &IID_ICorProfilerInfo2, &IID_ICorProfilerInfo3,
        &IID_ICorProfilerInfo4, &IID_ICorProfilerInfo5, &IID_ICorProfilerInfo6, &IID_ICorProfilerInfo7,
        &IID_ICorProfilerInfo8, &IID_ICorProfilerInfo9, &IID_ICorProfilerInfo10, &IID_ICorProfilerInfo11,
        &IID_ICorProfilerInfo12, &IID_ICorProfilerInfo13, &IID_ICorProfilerInfo14, &IID_ICorProfilerInfo15,
    };
    for (size_t i = 0; i < sizeof(iids) / sizeof(iids[0]); i++) {
        if (guid_equal(riid, iids[i])) {
            rt_of(This)->info_refs++;
            *ppv = This;
            return S_OK;
        }
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG info_AddRef(ICorProfilerInfo15 *This) { return (ULONG)++rt_of(This)->info_refs; }

static ULONG info_Release(ICorProfilerInfo15 *This)
{
    fake_runtime *rt = rt_of(This);
    if (rt->info_refs <= 1)
        violation(rt, "ICorProfilerInfo released more often than referenced");
    return (ULONG)--rt->info_refs;
}

static HRESULT info_GetRuntimeInformation(ICorProfilerInfo15 *This, USHORT *pClrInstanceId,
                                          COR_PRF_RUNTIME_TYPE *pRuntimeType, USHORT *pMajorVersion,
                                          USHORT *pMinorVersion, USHORT *pBuildNumber, USHORT *pQFEVersion,
                                          ULONG cchVersionString, ULONG *pcchVersionString,
                                          WCHAR *szVersionString)
{
    after_detach(rt_of(This), "GetRuntimeInformation");
    if (pClrInstanceId) *pClrInstanceId = 0;
    if (pRuntimeType) *pRuntimeType = COR_PRF_CORE_CLR;
    if (pMajorVersion) *pMajorVersion = 10;
    if (pMinorVersion) *pMinorVersion = 0;
    if (pBuildNumber) *pBuildNumber = 0;
    if (pQFEVersion) *pQFEVersion = 0;
    wcopy("10.0.0-sim", szVersionString, cchVersionString, pcchVersionString);
    return S_OK;
}

static HRESULT info_SetEventMask2(ICorProfilerInfo15 *This, DWORD dwEventsLow, DWORD dwEventsHigh)
{
    after_detach(rt_of(This), "SetEventMask2");
    fake_runtime *rt = rt_of(This);
    if ((dwEventsLow & ~COR_PRF_ALLOWABLE_AFTER_ATTACH) || (dwEventsHigh & ~COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH)) {
        violation(rt, "SetEventMask2(0x%x, 0x%x) asks for flags not allowed after attach (0x%x, 0x%x)",
                  (unsigned)dwEventsLow, (unsigned)dwEventsHigh,
                  (unsigned)(dwEventsLow & ~COR_PRF_ALLOWABLE_AFTER_ATTACH),
                  (unsigned)(dwEventsHigh & ~COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH));
        return CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER;
    }
    if (rt->notification && ((dwEventsLow & ~COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER) ||
                             (dwEventsHigh & ~COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER))) {
        violation(rt, "SetEventMask2(0x%x, 0x%x) asks a notification profiler's for flags it may not have "
                  "(0x%x, 0x%x)", (unsigned)dwEventsLow, (unsigned)dwEventsHigh,
                  (unsigned)(dwEventsLow & ~COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER),
                  (unsigned)(dwEventsHigh & ~COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER));
        return E_INVALIDARG;
    }
    rt->mask_low = dwEventsLow;
    rt->mask_high = dwEventsHigh;
    return S_OK;
}

static HRESULT info_EnumModules(ICorProfilerInfo15 *This, ICorProfilerModuleEnum **ppEnum)
{
    after_detach(rt_of(This), "EnumModules");
    fr_enum *e = enum_create(rt_of(This), FR_MODULE, &menum_vtbl);
    *ppEnum = e ? &e->com.m : NULL;
    return e ? S_OK : E_OUTOFMEMORY;
}

static HRESULT info_EnumThreads(ICorProfilerInfo15 *This, ICorProfilerThreadEnum **ppEnum)
{
    after_detach(rt_of(This), "EnumThreads");
    fr_enum *e = enum_create(rt_of(This), FR_THREAD, &tenum_vtbl);
    *ppEnum = e ? &e->com.t : NULL;
    return e ? S_OK : E_OUTOFMEMORY;
}

static HRESULT info_EnumJITedFunctions2(ICorProfilerInfo15 *This, ICorProfilerFunctionEnum **ppEnum)
{
    after_detach(rt_of(This), "EnumJITedFunctions2");
    fr_enum *e = enum_create(rt_of(This), FR_FUNCTION, &fenum_vtbl);
    *ppEnum = e ? &e->com.f : NULL;
    return e ? S_OK : E_OUTOFMEMORY;
}

/* Like CoreCLR's, before the module's LoadFinished notification: name and
 * assembly are filled in, no base address, and CORPROF_E_DATAINCOMPLETE. */
static HRESULT info_GetModuleInfo2(ICorProfilerInfo15 *This, ModuleID moduleId, LPCBYTE *ppBaseLoadAddress,
                                   ULONG cchName, ULONG *pcchName, WCHAR *szName, AssemblyID *pAssemblyId,
                                   DWORD *pdwModuleFlags)
{
    after_detach(rt_of(This), "GetModuleInfo2");
    fr_obj *m = touch(rt_of(This), FR_MODULE, moduleId, "GetModuleInfo2");
    if (!m)
        return E_INVALIDARG;
    if (ppBaseLoadAddress) *ppBaseLoadAddress = NULL;
    wcopy(m->name, szName, cchName, pcchName);
    if (pAssemblyId) *pAssemblyId = m->parent;
    if (pdwModuleFlags) *pdwModuleFlags = COR_PRF_MODULE_DISK;
    return m->loaded ? S_OK : CORPROF_E_DATAINCOMPLETE;
}

static HRESULT info_GetModuleMetaData(ICorProfilerInfo15 *This, ModuleID moduleId, DWORD dwOpenFlags, REFIID riid,
                                      IUnknown **ppOut)
{
    after_detach(rt_of(This), "GetModuleMetaData");
    fake_runtime *rt = rt_of(This);
    fr_import *imp;

    *ppOut = NULL;
    if (!touch(rt, FR_MODULE, moduleId, "GetModuleMetaData"))
        return E_INVALIDARG;
    if (!guid_equal(riid, &IID_IMetaDataImport) && !guid_equal(riid, &IID_IUnknown))
        return E_NOINTERFACE;          /* no IMetaDataAssemblyImport here: versions stay unknown */
    imp = calloc(1, sizeof(*imp));
    if (!imp)
        return E_OUTOFMEMORY;
    imp->com.lpVtbl = &import_vtbl;
    imp->rt = rt;
    imp->module = moduleId;
    imp->refs = 1;
    rt->live_imports++;
    *ppOut = (IUnknown *)&imp->com;
    return S_OK;
}

static HRESULT info_GetAssemblyInfo(ICorProfilerInfo15 *This, AssemblyID assemblyId, ULONG cchName, ULONG *pcchName,
                                    WCHAR *szName, AppDomainID *pAppDomainId, ModuleID *pModuleId)
{
    after_detach(rt_of(This), "GetAssemblyInfo");
    fr_obj *a = touch(rt_of(This), FR_ASSEMBLY, assemblyId, "GetAssemblyInfo");
    if (!a)
        return E_INVALIDARG;
    wcopy(a->name, szName, cchName, pcchName);
    if (pAppDomainId) *pAppDomainId = a->parent;
    if (pModuleId) *pModuleId = a->extra;
    return S_OK;
}

static HRESULT info_GetAppDomainInfo(ICorProfilerInfo15 *This, AppDomainID appDomainId, ULONG cchName,
                                     ULONG *pcchName, WCHAR *szName, ProcessID *pProcessId)
{
    after_detach(rt_of(This), "GetAppDomainInfo");
    fr_obj *d = touch(rt_of(This), FR_APPDOMAIN, appDomainId, "GetAppDomainInfo");
    if (!d)
        return E_INVALIDARG;
    wcopy(d->name, szName, cchName, pcchName);
    if (pProcessId) *pProcessId = (ProcessID)getpid();
    return S_OK;
}

static HRESULT info_GetFunctionInfo2(ICorProfilerInfo15 *This, FunctionID funcId, COR_PRF_FRAME_INFO frameInfo,
                                     ClassID *pClassId, ModuleID *pModuleId, mdToken *pToken, ULONG32 cTypeArgs,
                                     ULONG32 *pcTypeArgs, ClassID *typeArgs)
{
    after_detach(rt_of(This), "GetFunctionInfo2");
    fr_obj *f = touch(rt_of(This), FR_FUNCTION, funcId, "GetFunctionInfo2");
    if (!f)
        return E_INVALIDARG;
    if (pClassId) *pClassId = 0;       /* no ClassIDs in this world: names come from metadata */
    if (pModuleId) *pModuleId = f->parent;
    if (pToken) *pToken = (mdToken)f->extra;
    if (pcTypeArgs) *pcTypeArgs = 0;
    return S_OK;
}

static HRESULT info_IsFunctionDynamic(ICorProfilerInfo15 *This, FunctionID functionId, BOOL *isDynamic)
{
    after_detach(rt_of(This), "IsFunctionDynamic");
    fr_obj *f = touch(rt_of(This), FR_FUNCTION, functionId, "IsFunctionDynamic");
    if (!f)
        return E_INVALIDARG;
    if (isDynamic) *isDynamic = f->dynamic;
    return S_OK;
}

static HRESULT info_GetDynamicFunctionInfo(ICorProfilerInfo15 *This, FunctionID functionId, ModuleID *moduleId,
                                           PCCOR_SIGNATURE *ppvSig, ULONG *pbSig, ULONG cchName, ULONG *pcchName,
                                           WCHAR *wszName)
{
    after_detach(rt_of(This), "GetDynamicFunctionInfo");
    fr_obj *f = touch(rt_of(This), FR_FUNCTION, functionId, "GetDynamicFunctionInfo");
    if (!f || !f->dynamic)
        return E_INVALIDARG;
    if (moduleId) *moduleId = f->parent;
    if (ppvSig) *ppvSig = NULL;
    if (pbSig) *pbSig = 0;
    wcopy(f->method, wszName, cchName, pcchName);
    return S_OK;
}

static HRESULT info_GetFunctionInfo(ICorProfilerInfo15 *This, FunctionID functionId, ClassID *pClassId,
                                    ModuleID *pModuleId, mdToken *pToken)
{
    after_detach(rt_of(This), "GetFunctionInfo");
    return info_GetFunctionInfo2(This, functionId, 0, pClassId, pModuleId, pToken, 0, NULL, NULL);
}

/* The world has no classes or objects: any ID the agent passes is bogus. */
/* Whether c is the class of an object of the fake heap (which the agent
 * learned from ObjectReferences: a legitimate query the fake cannot answer). */
static int heap_class(fake_runtime *rt, ClassID c)
{
    for (int i = 0; i < rt->nheap; i++)
        if (rt->heap[i].cls == c)
            return 1;
    return c == 0x999 || c == 0x998;          /* (the other GCs' objects of ForceGC's script) */
}

static HRESULT info_GetClassIDInfo2(ICorProfilerInfo15 *This, ClassID classId, ModuleID *pModuleId,
                                    mdTypeDef *pTypeDefToken, ClassID *pParentClassId, ULONG32 cNumTypeArgs,
                                    ULONG32 *pcNumTypeArgs, ClassID *typeArgs)
{
    after_detach(rt_of(This), "GetClassIDInfo2");
    {
        fake_runtime *rt = rt_of(This);
        int i = exc_class_index(rt, classId);
        if (i >= 0) {
            if (pModuleId) *pModuleId = rt->exc_module;
            if (pTypeDefToken) *pTypeDefToken = TokenFromRid(EXC_TYPEDEF_RID + (unsigned)i, mdtTypeDef);
            if (pParentClassId) *pParentClassId = rt->exc_class[i].parent;
            if (pcNumTypeArgs) *pcNumTypeArgs = 0;
            return S_OK;
        }
    }
    if (heap_class(rt_of(This), classId))
        return CORPROF_E_DATAINCOMPLETE;
    violation(rt_of(This), "GetClassIDInfo2(0x%llx): no such class", (unsigned long long)classId);
    return E_INVALIDARG;
}

static HRESULT info_GetClassIDInfo(ICorProfilerInfo15 *This, ClassID classId, ModuleID *pModuleId,
                                   mdTypeDef *pTypeDefToken)
{
    after_detach(rt_of(This), "GetClassIDInfo");
    if (heap_class(rt_of(This), classId))
        return CORPROF_E_DATAINCOMPLETE;
    violation(rt_of(This), "GetClassIDInfo(0x%llx): no such class", (unsigned long long)classId);
    return E_INVALIDARG;
}

static HRESULT info_GetClassFromObject(ICorProfilerInfo15 *This, ObjectID objectId, ClassID *pClassId)
{
    after_detach(rt_of(This), "GetClassFromObject");
    for (int i = 0; i < rt_of(This)->nexc_objects; i++)
        if ((uint64_t)(uintptr_t)rt_of(This)->exc_objects[i] == objectId) {
            memcpy(pClassId, (void *)(uintptr_t)objectId, 8);
            return S_OK;
        }
    violation(rt_of(This), "GetClassFromObject(0x%llx): no such object", (unsigned long long)objectId);
    return E_INVALIDARG;
}

static HRESULT info_GetThreadInfo(ICorProfilerInfo15 *This, ThreadID threadId, DWORD *pdwWin32ThreadId)
{
    after_detach(rt_of(This), "GetThreadInfo");
    fr_obj *t = touch(rt_of(This), FR_THREAD, threadId, "GetThreadInfo");
    if (!t)
        return E_INVALIDARG;
    *pdwWin32ThreadId = (DWORD)t->extra;
    return S_OK;
}

/* The heap's generations: more ranges than the agent reads on its stack
 * (regions), lengths that add up to fr_generation_sizes. */
static const ULONG fake_ranges_per_gen[5] = { 30, 20, 10, 6, 4 };

static uint64_t fake_range_length(int gen, ULONG i)
{
    return (uint64_t)(gen + 1) * 100000 + i * 8;
}

void fr_generation_sizes(uint64_t bytes[5])
{
    for (int g = 0; g < 5; g++) {
        bytes[g] = 0;
        for (ULONG i = 0; i < fake_ranges_per_gen[g]; i++)
            bytes[g] += fake_range_length(g, i);
    }
}

static HRESULT info_GetGenerationBounds(ICorProfilerInfo15 *This, ULONG cObjectRanges, ULONG *pcObjectRanges,
                                        COR_PRF_GC_GENERATION_RANGE *ranges)
{
    after_detach(rt_of(This), "GetGenerationBounds");
    ULONG n = 0;

    if (!pcObjectRanges)
        return E_INVALIDARG;
    for (int g = 0; g < 5; g++)
        for (ULONG i = 0; i < fake_ranges_per_gen[g]; i++, n++)
            if (n < cObjectRanges)
                ranges[n] = (COR_PRF_GC_GENERATION_RANGE){ .generation = (COR_PRF_GC_GENERATION)g,
                    .rangeStart = 0x100000000ull * (g + 1) + 0x400000ull * i,
                    .rangeLength = fake_range_length(g, i), .rangeLengthReserved = 0x400000 };
    *pcObjectRanges = n;                  /* how many there are, as the runtime says */
    return S_OK;
}

static HRESULT info_RequestProfilerDetach(ICorProfilerInfo15 *This, DWORD dwExpectedCompletionMilliseconds)
{
    after_detach(rt_of(This), "RequestProfilerDetach");
    __atomic_add_fetch(&rt_of(This)->detach_requested, 1, __ATOMIC_SEQ_CST);
    return S_OK;
}


/* ---- the heap and ForceGC ---- */

uint64_t fr_gen_start(int g)
{
    return 0x100000000ull * (uint64_t)(g + 1);
}

void fr_heap_add(fake_runtime *rt, uint64_t addr, uint64_t cls, uint64_t size, const uint64_t *refs, int nrefs)
{
    if (rt->nheap >= FR_MAX_HEAP || nrefs > 4) {
        violation(rt, "test script: heap too big");
        return;
    }
    rt->heap[rt->nheap].addr = addr;
    rt->heap[rt->nheap].cls = cls;
    rt->heap[rt->nheap].size = size;
    rt->heap[rt->nheap].nrefs = nrefs;
    for (int k = 0; k < nrefs; k++)
        rt->heap[rt->nheap].refs[k] = refs[k];
    rt->nheap++;
}

static int heap_deliver(fake_runtime *rt)
{
    return rt->cb && rt->events_on && (rt->mask_low & COR_PRF_MONITOR_GC);
}

/* The objects and roots of the heap, as the runtime reports them after a GC. */
static void heap_walk(fake_runtime *rt)
{
    for (int i = 0; i < rt->nheap; i++) {
        ObjectID obj = rt->heap[i].addr;
        COR_PRF_GC_ROOT_KIND kind = COR_PRF_GC_ROOT_STACK;
        COR_PRF_GC_ROOT_FLAGS flags = 0;
        UINT_PTR id = 0;
        CB(rt)->RootReferences2(rt->cb, 1, &obj, &kind, &flags, &id);
    }
    for (int i = 0; i < rt->nheap; i++) {
        ObjectID refs[4];
        if (rt->heap_hook.fn && rt->heap_hook.before == i) {
            fr_hook_fn fn = rt->heap_hook.fn;
            rt->heap_hook.fn = NULL;
            fn(rt, rt->heap_hook.arg);
        }
        for (int k = 0; k < rt->heap[i].nrefs; k++)
            refs[k] = rt->heap[i].refs[k];
        if (FAILED(CB(rt)->ObjectReferences(rt->cb, rt->heap[i].addr, rt->heap[i].cls, (ULONG)rt->heap[i].nrefs,
                                           refs))) {
            rt->walks_stopped++;             /* a failure ends this GC's walk (the runtime's rule) */
            break;
        }
    }
}

void fr_heap_gc_moving(fake_runtime *rt, const uint64_t *old, const uint64_t *new_, const uint64_t *len, int n)
{
    BOOL collected[5] = { TRUE, FALSE, FALSE, FALSE, FALSE };
    ObjectID o[16], nw[16];
    SIZE_T l[16];
    int k = 0;

    if (!heap_deliver(rt) || n > 16)
        return;
    CB(rt)->GarbageCollectionStarted(rt->cb, 5, collected, COR_PRF_GC_OTHER);
    for (int i = 0; i < n; i++) {
        o[i] = old[i];
        nw[i] = new_[i];
        l[i] = len[i];
    }
    CB(rt)->MovedReferences2(rt->cb, (ULONG)n, o, nw, l);
    /* the heap after it: moved objects at their new address, the others of gen0's first range gone */
    for (int i = 0; i < rt->nheap; i++) {
        uint64_t a = rt->heap[i].addr;
        int kept = a < fr_gen_start(0) || a >= fr_gen_start(0) + 100000;   /* (not condemned) */
        for (int r = 0; r < n && !kept; r++)
            if (a >= old[r] && a < old[r] + len[r]) {
                rt->heap[i].addr = new_[r] + (a - old[r]);
                kept = 1;
            }
        if (kept)
            rt->heap[k++] = rt->heap[i];
    }
    rt->nheap = k;
    CB(rt)->GarbageCollectionFinished(rt->cb);
}

static HRESULT info_ForceGC(ICorProfilerInfo15 *This)
{
    after_detach(rt_of(This), "ForceGC");
    fake_runtime *rt = rt_of(This);
    BOOL all[5] = { TRUE, TRUE, TRUE, TRUE, TRUE }, young[5] = { TRUE, FALSE, FALSE, FALSE, FALSE };

    if (!heap_deliver(rt))
        return S_OK;
    if (rt->gc_tail_before) {                /* the end of a GC that began before: no Started seen */
        ObjectID stale = fr_gen_start(1) + 0x40;
        CB(rt)->ObjectReferences(rt->cb, stale, 0x999, 0, NULL);
        CB(rt)->GarbageCollectionFinished(rt->cb);
    }
    CB(rt)->GarbageCollectionStarted(rt->cb, 5, all, COR_PRF_GC_INDUCED);
    {                                        /* every object survives where it is (a sweeping GC) */
        ObjectID st[FR_MAX_HEAP];
        SIZE_T len[FR_MAX_HEAP];
        for (int i = 0; i < rt->nheap; i++) {
            st[i] = rt->heap[i].addr;
            len[i] = rt->heap[i].size;
        }
        if (rt->nheap)
            CB(rt)->SurvivingReferences2(rt->cb, (ULONG)rt->nheap, st, len);
    }
    heap_walk(rt);
    CB(rt)->GarbageCollectionFinished(rt->cb);
    if (rt->gc_other_after) {                /* another thread's GC, before ForceGC returns */
        ObjectID other = fr_gen_start(1) + 0x80;
        CB(rt)->GarbageCollectionStarted(rt->cb, 5, young, COR_PRF_GC_OTHER);
        CB(rt)->ObjectReferences(rt->cb, other, 0x998, 0, NULL);
        CB(rt)->GarbageCollectionFinished(rt->cb);
    }
    __atomic_add_fetch(&rt->force_gcs, 1, __ATOMIC_SEQ_CST);
    return S_OK;
}

void fr_heap_hook(fake_runtime *rt, int before, fr_hook_fn fn, void *arg)
{
    rt->heap_hook.fn = fn;
    rt->heap_hook.arg = arg;
    rt->heap_hook.before = before;
}

int fr_wait_force_gcs(fake_runtime *rt, int n)
{
    for (int i = 0; i < 1000; i++) {
        if (__atomic_load_n(&rt->force_gcs, __ATOMIC_SEQ_CST) >= n)
            return 0;
        usleep(10000);
    }
    return -1;
}

static HRESULT info_InitializeCurrentThread(ICorProfilerInfo15 *This)
{
    after_detach(rt_of(This), "InitializeCurrentThread");
    (void)This;
    return S_OK;
}

static HRESULT info_GetEventMask2(ICorProfilerInfo15 *This, DWORD *low, DWORD *high)
{
    after_detach(rt_of(This), "GetEventMask2");
    fake_runtime *rt = rt_of(This);
    *low = rt->mask_low;
    *high = rt->mask_high;
    return S_OK;
}

/* The fake heap's objects are arrays to the agent: it then reads no
 * object's memory (their addresses are not memory), as for a real array. */
static HRESULT info_GetClassLayout(ICorProfilerInfo15 *This, ClassID classID, COR_FIELD_OFFSET rFieldOffset[],
                                   ULONG cFieldOffset, ULONG *pcFieldOffset, ULONG *pulClassSize)
{
    fake_runtime *rt = rt_of(This);
    int i = exc_class_index(rt, classID);

    after_detach(rt, "GetClassLayout");
    if (i < 0) {
        violation(rt, "GetClassLayout(0x%llx): no such class", (unsigned long long)classID);
        return E_INVALIDARG;
    }
    *pcFieldOffset = rt->exc_class[i].parent == 0 ? 1 : 0;      /* System.Exception: _message */
    if (*pcFieldOffset && cFieldOffset >= 1) {
        rFieldOffset[0].ridOfField = EXC_MESSAGE_FIELD;
        rFieldOffset[0].ulOffset = 16;
    }
    if (pulClassSize) *pulClassSize = 24;
    return S_OK;
}

static HRESULT info_GetStringLayout2(ICorProfilerInfo15 *This, ULONG *pStringLengthOffset, ULONG *pBufferOffset)
{
    after_detach(rt_of(This), "GetStringLayout2");
    *pStringLengthOffset = 8;
    *pBufferOffset = 12;
    return S_OK;
}

static HRESULT info_DoStackSnapshot(ICorProfilerInfo15 *This, ThreadID thread, StackSnapshotCallback *callback,
                                    ULONG32 infoFlags, void *clientData, BYTE context[], ULONG32 contextSize)
{
    fake_runtime *rt = rt_of(This);

    after_detach(rt, "DoStackSnapshot");
    if (thread != 0)
        violation(rt, "DoStackSnapshot of another thread (0x%llx)", (unsigned long long)thread);
    rt->snapshots++;
    for (int i = 0; i < rt->nstack; i++)
        if (callback(rt->stack[i], FR_CODE_AT(i) + 0x20, 0, 0, NULL, clientData) != S_OK)
            break;
    return S_OK;
}

/* The code of the stack's frame i: FR_CODE_AT(i), 0x100 bytes, one version,
 * all of it at IL offset FR_IL_AT(i) (fake_runtime.h). */
static int frame_of_code(const fake_runtime *rt, UINT_PTR at)
{
    if (at < FR_CODE_AT(0))
        return -1;
    size_t i = (at - FR_CODE_AT(0)) / 0x1000;
    return i < (size_t)rt->nstack && at - FR_CODE_AT(i) < 0x100 ? (int)i : -1;
}

static HRESULT info_GetFunctionFromIP3(ICorProfilerInfo15 *This, LPCBYTE ip, FunctionID *functionId,
                                       ReJITID *pReJitId)
{
    fake_runtime *rt = rt_of(This);
    int i = frame_of_code(rt, (UINT_PTR)ip);

    after_detach(rt, "GetFunctionFromIP3");
    if (i < 0)
        return E_FAIL;
    *functionId = rt->stack[i];
    if (pReJitId)
        *pReJitId = 0;
    return S_OK;
}

static HRESULT info_GetNativeCodeStartAddresses(ICorProfilerInfo15 *This, FunctionID functionID, ReJITID reJitId,
                                                ULONG32 cCodeStartAddresses, ULONG32 *pcCodeStartAddresses,
                                                UINT_PTR *codeStartAddresses)
{
    fake_runtime *rt = rt_of(This);

    after_detach(rt, "GetNativeCodeStartAddresses");
    *pcCodeStartAddresses = 0;
    for (int i = 0; i < rt->nstack; i++)
        if (rt->stack[i] == functionID) {
            if (cCodeStartAddresses)
                codeStartAddresses[0] = FR_CODE_AT(i);
            *pcCodeStartAddresses = 1;
            return S_OK;
        }
    return E_INVALIDARG;
}

static HRESULT info_GetCodeInfo4(ICorProfilerInfo15 *This, UINT_PTR start, ULONG32 cCodeInfos, ULONG32 *pcCodeInfos,
                                 COR_PRF_CODE_INFO *codeInfos)
{
    fake_runtime *rt = rt_of(This);

    after_detach(rt, "GetCodeInfo4");
    if (frame_of_code(rt, start) < 0)
        return E_INVALIDARG;
    *pcCodeInfos = 1;
    if (cCodeInfos)
        codeInfos[0] = (COR_PRF_CODE_INFO){ .startAddress = start, .size = 0x100 };
    return S_OK;
}

static HRESULT info_GetILToNativeMapping3(ICorProfilerInfo15 *This, UINT_PTR start, ULONG32 cMap, ULONG32 *pcMap,
                                          COR_DEBUG_IL_TO_NATIVE_MAP *map)
{
    fake_runtime *rt = rt_of(This);
    int i = frame_of_code(rt, start);

    after_detach(rt, "GetILToNativeMapping3");
    if (i < 0)
        return E_INVALIDARG;
    *pcMap = 1;
    if (cMap && map)
        map[0] = (COR_DEBUG_IL_TO_NATIVE_MAP){ .ilOffset = FR_IL_AT(i), .nativeStartOffset = 0,
                                              .nativeEndOffset = 0x100 };
    return S_OK;
}

/* The catch handler about to run: at offset 0x40 of its function's code,
 * which the IL map places at IL 0x1c. */
static HRESULT info_GetNotifiedExceptionClauseInfo(ICorProfilerInfo15 *This, COR_PRF_EX_CLAUSE_INFO *pinfo)
{
    after_detach(rt_of(This), "GetNotifiedExceptionClauseInfo");
    memset(pinfo, 0, sizeof(*pinfo));
    pinfo->clauseType = COR_PRF_CLAUSE_CATCH;
    pinfo->programCounter = 0x500040;
    return S_OK;
}

static HRESULT info_GetCodeInfo2(ICorProfilerInfo15 *This, FunctionID functionID, ULONG32 cCodeInfos,
                                 ULONG32 *pcCodeInfos, COR_PRF_CODE_INFO codeInfos[])
{
    if (!touch(rt_of(This), FR_FUNCTION, functionID, "GetCodeInfo2"))
        return E_INVALIDARG;
    *pcCodeInfos = 1;
    if (cCodeInfos >= 1) {
        codeInfos[0].startAddress = 0x500000;
        codeInfos[0].size = 0x100;
    }
    return S_OK;
}

static HRESULT info_GetILToNativeMapping(ICorProfilerInfo15 *This, FunctionID functionId, ULONG32 cMap,
                                         ULONG32 *pcMap, COR_DEBUG_IL_TO_NATIVE_MAP map[])
{
    static const COR_DEBUG_IL_TO_NATIVE_MAP m[] = { { 0xFFFFFFFEu, 0, 0x10 }, { 0, 0x10, 0x40 }, { 0x1c, 0x40, 0x60 },
                                                    { 0xFFFFFFFDu, 0x60, 0x100 } };
    if (!touch(rt_of(This), FR_FUNCTION, functionId, "GetILToNativeMapping"))
        return E_INVALIDARG;
    *pcMap = 4;
    for (ULONG32 i = 0; i < cMap && i < 4; i++)
        map[i] = m[i];
    return S_OK;
}

static HRESULT info_IsArrayClass(ICorProfilerInfo15 *This, ClassID classId, CorElementType *pBaseElemType,
                                 ClassID *pBaseClassId, ULONG *pcRank)
{
    after_detach(rt_of(This), "IsArrayClass");
    (void)pBaseElemType;
    (void)pBaseClassId;
    (void)pcRank;
    if (heap_class(rt_of(This), classId))
        return S_OK;
    violation(rt_of(This), "IsArrayClass(0x%llx): no such class", (unsigned long long)classId);
    return E_INVALIDARG;
}

static HRESULT info_GetObjectSize2(ICorProfilerInfo15 *This, ObjectID obj, SIZE_T *size)
{
    after_detach(rt_of(This), "GetObjectSize2");
    fake_runtime *rt = rt_of(This);
    for (int i = 0; i < rt->nheap; i++)
        if (rt->heap[i].addr == obj) {
            *size = rt->heap[i].size;
            return S_OK;
        }
    *size = 0;
    return E_INVALIDARG;
}

/* ---- everything else: E_NOTIMPL, counted ----
 * Info: a counting stub for every method of src/api/corprof_info.def;
 * fill_info_vtbl puts them all in the table, then the methods implemented
 * above over them.  IMetaDataImport: the list below, generated from the
 * vtable declaration in src/api/cormetadata.h (every method not implemented
 * above, with its exact parameter list).  fr_init checks that no slot of
 * either vtable is left empty. */

#define FR_IMPORT_NOT_IMPLEMENTED(X) \
    X(CountEnum, (IMetaDataImport *This, HCORENUM hEnum, ULONG *pulCount)) \
    X(ResetEnum, (IMetaDataImport *This, HCORENUM hEnum, ULONG ulPos)) \
    X(EnumTypeDefs, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef *rTypeDefs, ULONG cMax, \
        ULONG *pcTypeDefs)) \
    X(EnumInterfaceImpls, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef td, mdInterfaceImpl *rImpls, \
        ULONG cMax, ULONG *pcImpls)) \
    X(EnumTypeRefs, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeRef *rTypeRefs, ULONG cMax, \
        ULONG *pcTypeRefs)) \
    X(FindTypeDefByName, (IMetaDataImport *This, LPCWSTR szTypeDef, mdToken tkEnclosingClass, mdTypeDef *ptd)) \
    X(GetModuleFromScope, (IMetaDataImport *This, mdModule *pmd)) \
    X(GetInterfaceImplProps, (IMetaDataImport *This, mdInterfaceImpl iiImpl, mdTypeDef *pClass, \
        mdToken *ptkIface)) \
    X(GetTypeRefProps, (IMetaDataImport *This, mdTypeRef tr, mdToken *ptkResolutionScope, LPWSTR szName, \
        ULONG cchName, ULONG *pchName)) \
    X(ResolveTypeRef, (IMetaDataImport *This, mdTypeRef tr, REFIID riid, IUnknown **ppIScope, mdTypeDef *ptd)) \
    X(EnumMembers, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef cl, mdToken *rMembers, ULONG cMax, \
        ULONG *pcTokens)) \
    X(EnumMembersWithName, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName, \
        mdToken *rMembers, ULONG cMax, ULONG *pcTokens)) \
    X(EnumMethods, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef cl, mdMethodDef *rMethods, ULONG cMax, \
        ULONG *pcTokens)) \
    X(EnumMethodsWithName, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName, \
        mdMethodDef *rMethods, ULONG cMax, ULONG *pcTokens)) \
    X(EnumFields, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef cl, mdFieldDef *rFields, ULONG cMax, \
        ULONG *pcTokens)) \
    X(EnumFieldsWithName, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName, \
        mdFieldDef *rFields, ULONG cMax, ULONG *pcTokens)) \
    X(EnumParams, (IMetaDataImport *This, HCORENUM *phEnum, mdMethodDef mb, mdParamDef *rParams, ULONG cMax, \
        ULONG *pcTokens)) \
    X(EnumMemberRefs, (IMetaDataImport *This, HCORENUM *phEnum, mdToken tkParent, mdMemberRef *rMemberRefs, \
        ULONG cMax, ULONG *pcTokens)) \
    X(EnumMethodImpls, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef td, mdToken *rMethodBody, \
        mdToken *rMethodDecl, ULONG cMax, ULONG *pcTokens)) \
    X(EnumPermissionSets, (IMetaDataImport *This, HCORENUM *phEnum, mdToken tk, DWORD dwActions, \
        mdPermission *rPermission, ULONG cMax, ULONG *pcTokens)) \
    X(FindMember, (IMetaDataImport *This, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, \
        ULONG cbSigBlob, mdToken *pmb)) \
    X(FindMethod, (IMetaDataImport *This, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, \
        ULONG cbSigBlob, mdMethodDef *pmb)) \
    X(FindField, (IMetaDataImport *This, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, \
        ULONG cbSigBlob, mdFieldDef *pmb)) \
    X(FindMemberRef, (IMetaDataImport *This, mdTypeRef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, \
        ULONG cbSigBlob, mdMemberRef *pmr)) \
    X(GetMemberRefProps, (IMetaDataImport *This, mdMemberRef mr, mdToken *ptk, LPWSTR szMember, \
        ULONG cchMember, ULONG *pchMember, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pbSig)) \
    X(EnumProperties, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef td, mdProperty *rProperties, \
        ULONG cMax, ULONG *pcProperties)) \
    X(EnumEvents, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef td, mdEvent *rEvents, ULONG cMax, \
        ULONG *pcEvents)) \
    X(GetEventProps, (IMetaDataImport *This, mdEvent ev, mdTypeDef *pClass, LPCWSTR szEvent, ULONG cchEvent, \
        ULONG *pchEvent, DWORD *pdwEventFlags, mdToken *ptkEventType, mdMethodDef *pmdAddOn, \
        mdMethodDef *pmdRemoveOn, mdMethodDef *pmdFire, mdMethodDef *rmdOtherMethod, ULONG cMax, \
        ULONG *pcOtherMethod)) \
    X(EnumMethodSemantics, (IMetaDataImport *This, HCORENUM *phEnum, mdMethodDef mb, mdToken *rEventProp, \
        ULONG cMax, ULONG *pcEventProp)) \
    X(GetMethodSemantics, (IMetaDataImport *This, mdMethodDef mb, mdToken tkEventProp, \
        DWORD *pdwSemanticsFlags)) \
    X(GetClassLayout, (IMetaDataImport *This, mdTypeDef td, DWORD *pdwPackSize, \
        COR_FIELD_OFFSET *rFieldOffset, ULONG cMax, ULONG *pcFieldOffset, ULONG *pulClassSize)) \
    X(GetFieldMarshal, (IMetaDataImport *This, mdToken tk, PCCOR_SIGNATURE *ppvNativeType, \
        ULONG *pcbNativeType)) \
    X(GetRVA, (IMetaDataImport *This, mdToken tk, ULONG *pulCodeRVA, DWORD *pdwImplFlags)) \
    X(GetPermissionSetProps, (IMetaDataImport *This, mdPermission pm, DWORD *pdwAction, \
        void const **ppvPermission, ULONG *pcbPermission)) \
    X(GetSigFromToken, (IMetaDataImport *This, mdSignature mdSig, PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig)) \
    X(GetModuleRefProps, (IMetaDataImport *This, mdModuleRef mur, LPWSTR szName, ULONG cchName, ULONG *pchName)) \
    X(EnumModuleRefs, (IMetaDataImport *This, HCORENUM *phEnum, mdModuleRef *rModuleRefs, ULONG cmax, \
        ULONG *pcModuleRefs)) \
    X(GetTypeSpecFromToken, (IMetaDataImport *This, mdTypeSpec typespec, PCCOR_SIGNATURE *ppvSig, \
        ULONG *pcbSig)) \
    X(GetNameFromToken, (IMetaDataImport *This, mdToken tk, MDUTF8CSTR *pszUtf8NamePtr)) \
    X(EnumUnresolvedMethods, (IMetaDataImport *This, HCORENUM *phEnum, mdToken *rMethods, ULONG cMax, \
        ULONG *pcTokens)) \
    X(GetUserString, (IMetaDataImport *This, mdString stk, LPWSTR szString, ULONG cchString, ULONG *pchString)) \
    X(GetPinvokeMap, (IMetaDataImport *This, mdToken tk, DWORD *pdwMappingFlags, LPWSTR szImportName, \
        ULONG cchImportName, ULONG *pchImportName, mdModuleRef *pmrImportDLL)) \
    X(EnumSignatures, (IMetaDataImport *This, HCORENUM *phEnum, mdSignature *rSignatures, ULONG cmax, \
        ULONG *pcSignatures)) \
    X(EnumTypeSpecs, (IMetaDataImport *This, HCORENUM *phEnum, mdTypeSpec *rTypeSpecs, ULONG cmax, \
        ULONG *pcTypeSpecs)) \
    X(EnumUserStrings, (IMetaDataImport *This, HCORENUM *phEnum, mdString *rStrings, ULONG cmax, \
        ULONG *pcStrings)) \
    X(GetParamForMethodIndex, (IMetaDataImport *This, mdMethodDef md, ULONG ulParamSeq, mdParamDef *ppd)) \
    X(EnumCustomAttributes, (IMetaDataImport *This, HCORENUM *phEnum, mdToken tk, mdToken tkType, \
        mdCustomAttribute *rCustomAttributes, ULONG cMax, ULONG *pcCustomAttributes)) \
    X(GetCustomAttributeProps, (IMetaDataImport *This, mdCustomAttribute cv, mdToken *ptkObj, \
        mdToken *ptkType, void const **ppBlob, ULONG *pcbSize)) \
    X(FindTypeRef, (IMetaDataImport *This, mdToken tkResolutionScope, LPCWSTR szName, mdTypeRef *ptr)) \
    X(GetMemberProps, (IMetaDataImport *This, mdToken mb, mdTypeDef *pClass, LPWSTR szMember, \
        ULONG cchMember, ULONG *pchMember, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob, \
        ULONG *pulCodeRVA, DWORD *pdwImplFlags, DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue, \
        ULONG *pcchValue)) \
    X(GetPropertyProps, (IMetaDataImport *This, mdProperty prop, mdTypeDef *pClass, LPCWSTR szProperty, \
        ULONG cchProperty, ULONG *pchProperty, DWORD *pdwPropFlags, PCCOR_SIGNATURE *ppvSig, ULONG *pbSig, \
        DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppDefaultValue, ULONG *pcchDefaultValue, \
        mdMethodDef *pmdSetter, mdMethodDef *pmdGetter, mdMethodDef *rmdOtherMethod, ULONG cMax, \
        ULONG *pcOtherMethod)) \
    X(GetParamProps, (IMetaDataImport *This, mdParamDef tk, mdMethodDef *pmd, ULONG *pulSequence, \
        LPWSTR szName, ULONG cchName, ULONG *pchName, DWORD *pdwAttr, DWORD *pdwCPlusTypeFlag, \
        UVCP_CONSTANT *ppValue, ULONG *pcchValue)) \
    X(GetCustomAttributeByName, (IMetaDataImport *This, mdToken tkObj, LPCWSTR szName, const void **ppData, \
        ULONG *pcbData)) \
    X(GetNativeCallConvFromSig, (IMetaDataImport *This, void const *pvSig, ULONG cbSig, ULONG *pCallConv)) \
    X(IsGlobal, (IMetaDataImport *This, mdToken pd, int *pbGlobal)) \
    /* end */

#define CORPROF_INFO(slot, name, ret, params)                                                    \
    static ret ni_##name params                                                                  \
    {                                                                                            \
        after_detach(rt_of(This), #name);                                                        \
        rt_of(This)->notimpl_calls++;                                                            \
        rt_of(This)->last_notimpl = #name;                                                       \
        return E_NOTIMPL;                                                                        \
    }
#include "api/corprof_info.def"

#define IMPORT_STUB(name, params)                                                                 \
    static HRESULT imp_ni_##name params                                                          \
    {                                                                                            \
        imp_of(This)->rt->notimpl_calls++;                                                       \
        imp_of(This)->rt->last_notimpl = "IMetaDataImport::" #name;                              \
        return E_NOTIMPL;                                                                        \
    }
FR_IMPORT_NOT_IMPLEMENTED(IMPORT_STUB)

#define IMPORT_STUB_ENTRY(name, params) .name = imp_ni_##name,

static ICorProfilerInfoVtbl info_vtbl;          /* filled by fill_info_vtbl */

static void fill_info_vtbl(void)
{
#define CORPROF_INFO(slot, name, ret, params) info_vtbl.name = ni_##name;
#include "api/corprof_info.def"
    info_vtbl.QueryInterface = info_QueryInterface;
    info_vtbl.AddRef = info_AddRef;
    info_vtbl.Release = info_Release;
    info_vtbl.GetClassFromObject = info_GetClassFromObject;
    info_vtbl.GetThreadInfo = info_GetThreadInfo;
    info_vtbl.GetClassIDInfo = info_GetClassIDInfo;
    info_vtbl.GetFunctionInfo = info_GetFunctionInfo;
    info_vtbl.GetModuleMetaData = info_GetModuleMetaData;
    info_vtbl.GetAppDomainInfo = info_GetAppDomainInfo;
    info_vtbl.GetAssemblyInfo = info_GetAssemblyInfo;
    info_vtbl.GetFunctionInfo2 = info_GetFunctionInfo2;
    info_vtbl.IsFunctionDynamic = info_IsFunctionDynamic;
    info_vtbl.GetDynamicFunctionInfo = info_GetDynamicFunctionInfo;
    info_vtbl.GetClassIDInfo2 = info_GetClassIDInfo2;
    info_vtbl.RequestProfilerDetach = info_RequestProfilerDetach;
    info_vtbl.EnumModules = info_EnumModules;
    info_vtbl.GetRuntimeInformation = info_GetRuntimeInformation;
    info_vtbl.GetModuleInfo2 = info_GetModuleInfo2;
    info_vtbl.EnumThreads = info_EnumThreads;
    info_vtbl.EnumJITedFunctions2 = info_EnumJITedFunctions2;
    info_vtbl.SetEventMask2 = info_SetEventMask2;
    info_vtbl.GetGenerationBounds = info_GetGenerationBounds;
    info_vtbl.ForceGC = info_ForceGC;
    info_vtbl.InitializeCurrentThread = info_InitializeCurrentThread;
    info_vtbl.GetEventMask2 = info_GetEventMask2;
    info_vtbl.GetObjectSize2 = info_GetObjectSize2;
    info_vtbl.IsArrayClass = info_IsArrayClass;
    info_vtbl.GetClassLayout = info_GetClassLayout;
    info_vtbl.GetStringLayout2 = info_GetStringLayout2;
    info_vtbl.DoStackSnapshot = info_DoStackSnapshot;
    info_vtbl.GetFunctionFromIP3 = info_GetFunctionFromIP3;
    info_vtbl.GetNativeCodeStartAddresses = info_GetNativeCodeStartAddresses;
    info_vtbl.GetCodeInfo4 = info_GetCodeInfo4;
    info_vtbl.GetILToNativeMapping3 = info_GetILToNativeMapping3;
    info_vtbl.GetNotifiedExceptionClauseInfo = info_GetNotifiedExceptionClauseInfo;
    info_vtbl.GetCodeInfo2 = info_GetCodeInfo2;
    info_vtbl.GetILToNativeMapping = info_GetILToNativeMapping;
}

static const IMetaDataImportVtbl import_vtbl = {
    .QueryInterface = imp_QueryInterface,
    .AddRef = imp_AddRef,
    .Release = imp_Release,
    .CloseEnum = imp_CloseEnum,
    .GetScopeProps = imp_GetScopeProps,
    .GetTypeDefProps = imp_GetTypeDefProps,
    .GetMethodProps = imp_GetMethodProps,
    .IsValidToken = imp_IsValidToken,
    .GetNestedClassProps = imp_GetNestedClassProps,
    .GetFieldProps = imp_GetFieldProps,
    FR_IMPORT_NOT_IMPLEMENTED(IMPORT_STUB_ENTRY)
};

/* Number of empty slots in a vtable of n function pointers. */
static int empty_slots(const void *vtbl, size_t n)
{
    int empty = 0;
    for (size_t i = 0; i < n; i++) {
        void (*fn)(void);
        memcpy(&fn, (const char *)vtbl + i * sizeof(fn), sizeof(fn));
        empty += fn == NULL;
    }
    return empty;
}

/* ---- driving the agent ---- */

void fr_init(fake_runtime *rt)
{
    memset(rt, 0, sizeof(*rt));
    rt->ctl_listen_fd = rt->ctl_fd = -1;
    fill_info_vtbl();
    rt->info.lpVtbl = &info_vtbl;
    rt->info_refs = 1;
    if (empty_slots(&info_vtbl, COM_VTBL_ENTRIES(ICorProfilerInfoVtbl)) ||
        empty_slots(&import_vtbl, COM_VTBL_ENTRIES(IMetaDataImportVtbl)))
        violation(rt, "fake runtime: a vtable slot is empty");
}

static void output_path(char *buf, size_t cap, int attach_no)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, cap, "%s/clrprobe-conformance-%d-%d.clrp", dir && dir[0] == '/' ? dir : "/tmp", (int)getpid(),
             attach_no);
}

void fr_cleanup(fake_runtime *rt)
{
    char path[256];
    while (rt->nexc_objects > 0)
        free(rt->exc_objects[--rt->nexc_objects]);
    if (rt->ctl_fd >= 0)
        close(rt->ctl_fd);
    if (rt->ctl_listen_fd >= 0)
        close(rt->ctl_listen_fd);
    rt->ctl_fd = rt->ctl_listen_fd = -1;
    if (rt->ctl_path[0])
        unlink(rt->ctl_path);
    for (int i = 1; i <= rt->attach_no; i++) {
        output_path(path, sizeof(path), i);
        unlink(path);
    }
}

static HRESULT attach_with(fake_runtime *rt, const char *ctl, const char *collect)
{
    IClassFactory *factory = NULL;
    void *obj = NULL;
    char config[512];
    HRESULT hr;

    output_path(rt->output, sizeof(rt->output), ++rt->attach_no);
    rt->events_on = rt->init_returned = 0;
    rt->mask_low = rt->mask_high = 0;
    hr = DllGetClassObject(rt->ask_notification ? &CLSID_clrprobe_notification : &CLSID_clrprobe,
                           &IID_IClassFactory, (void **)&factory);
    if (FAILED(hr))
        return hr;
    hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback11, &obj);
    factory->lpVtbl->Release(factory);
    if (FAILED(hr))
        return hr;
    rt->cb = obj;
    {
        /* the runtime asks right after creating it, before InitializeForAttach */
        BOOL only = 2;
        if (FAILED(CB(rt)->LoadAsNotificationOnly(rt->cb, &only)) || (only != TRUE && only != FALSE))
            violation(rt, "LoadAsNotificationOnly did not answer TRUE or FALSE");
        rt->notification = only == TRUE;
    }
    snprintf(config, sizeof(config), "v=1;output=%s;%s%s%scollect=%s", rt->output, ctl ? "ctl=" : "", ctl ? ctl : "",
             ctl ? ";" : "", collect);
    hr = CB(rt)->InitializeForAttach(rt->cb, (IUnknown *)&rt->info, config, (UINT)strlen(config));
    rt->init_returned = 1;
    if (FAILED(hr)) {                  /* the runtime lets go of a profiler that declined */
        CB(rt)->Release(rt->cb);
        rt->cb = NULL;
    }
    return hr;
}

HRESULT fr_attach(fake_runtime *rt, const char *collect)
{
    return attach_with(rt, NULL, collect);
}

HRESULT fr_attach_ctl(fake_runtime *rt, const char *collect)
{
    struct sockaddr_un addr;
    HRESULT hr;

    if (rt->ctl_listen_fd < 0) {
        memset(&addr, 0, sizeof(addr));
        addr.sun_family = AF_UNIX;
        snprintf(rt->ctl_path, sizeof(rt->ctl_path), "/tmp/clrprobe-conformance-ctl-%d", (int)getpid());
        memcpy(addr.sun_path, rt->ctl_path, strlen(rt->ctl_path) + 1);
        unlink(rt->ctl_path);
        rt->ctl_listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (rt->ctl_listen_fd < 0 || bind(rt->ctl_listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
            listen(rt->ctl_listen_fd, 1) < 0) {
            violation(rt, "test script: cannot listen on %s: %s", rt->ctl_path, strerror(errno));
            return E_FAIL;
        }
    }
    if (rt->ctl_fd >= 0)
        close(rt->ctl_fd);
    rt->ctl_fd = -1;
    rt->ctl_used = 0;
    hr = attach_with(rt, rt->ctl_path, collect);    /* (the agent connects inside InitializeForAttach) */
    if (SUCCEEDED(hr) && (rt->ctl_fd = accept4(rt->ctl_listen_fd, NULL, NULL, SOCK_CLOEXEC)) < 0)
        violation(rt, "test script: the agent did not connect to %s", rt->ctl_path);
    return hr;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int fr_ctl_line(fake_runtime *rt, char *buf, size_t cap, int timeout_ms)
{
    uint64_t until = now_ms() + (uint64_t)timeout_ms;

    for (;;) {
        char *nl = rt->ctl_used ? memchr(rt->ctl_buf, '\n', rt->ctl_used) : NULL;
        struct pollfd pfd = { rt->ctl_fd, POLLIN, 0 };
        uint64_t now = now_ms();
        ssize_t n;

        if (nl) {
            size_t len = (size_t)(nl - rt->ctl_buf);
            snprintf(buf, cap, "%.*s", (int)len, rt->ctl_buf);
            memmove(rt->ctl_buf, nl + 1, rt->ctl_used - len - 1);
            rt->ctl_used -= len + 1;
            return 1;
        }
        if (rt->ctl_fd < 0 || now >= until || rt->ctl_used == sizeof(rt->ctl_buf))
            return 0;
        if (poll(&pfd, 1, (int)(until - now)) <= 0)
            continue;
        n = recv(rt->ctl_fd, rt->ctl_buf + rt->ctl_used, sizeof(rt->ctl_buf) - rt->ctl_used, 0);
        if (n <= 0)
            return 0;
        rt->ctl_used += (size_t)n;
    }
}

int fr_ctl_wait(fake_runtime *rt, const char *word, char *buf, size_t cap, int timeout_ms)
{
    uint64_t until = now_ms() + (uint64_t)timeout_ms;
    size_t wl = strlen(word);

    for (;;) {
        uint64_t now = now_ms();
        if (now >= until || !fr_ctl_line(rt, buf, cap, (int)(until - now)))
            return 0;
        if (strncmp(buf, word, wl) == 0 && (buf[wl] == '\0' || buf[wl] == ' '))
            return 1;
    }
}

int fr_ctl_send(fake_runtime *rt, const char *text)
{
    size_t n = strlen(text);
    return rt->ctl_fd >= 0 && send(rt->ctl_fd, text, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

void fr_enable_events(fake_runtime *rt)
{
    if (!rt->init_returned)
        violation(rt, "test script: events enabled before InitializeForAttach returned");
    rt->events_on = 1;
}

HRESULT fr_attach_complete(fake_runtime *rt)
{
    if (!rt->cb || !rt->events_on) {
        violation(rt, "test script: ProfilerAttachComplete without an agent or before events are on");
        return E_UNEXPECTED;
    }
    return CB(rt)->ProfilerAttachComplete(rt->cb);
}

unsigned fr_detach(fake_runtime *rt)
{
    unsigned refs;
    if (!rt->cb)
        return 0;
    rt->events_on = 0;                 /* the runtime stops callbacks, then says goodbye */
    CB(rt)->ProfilerDetachSucceeded(rt->cb);
    refs = CB(rt)->Release(rt->cb);
    rt->cb = NULL;
    return refs;
}

/* ---- reading the trace back ---- */

int fr_load_trace(fake_runtime *rt, rp_trace *tr)
{
    char err[512];
    if (rp_load(rt->output, tr, err, sizeof(err)) != TRACE_OK) {
        printf("    cannot read the trace %s: %s\n", rt->output, err);
        memset(tr, 0, sizeof(*tr));
        return -1;
    }
    return 0;
}

/* The ID a record is about: the one whose lifetime a load or unload
 * record begins or ends, the function of a jit record (0 for other kinds). */
static uint64_t record_id(const rp_event *e)
{
    switch (e->kind) {
    case TK_APPDOMAIN_CREATE: return e->appdomain_create.id;
    case TK_APPDOMAIN_SHUTDOWN: return e->appdomain_shutdown.id;
    case TK_ASSEMBLY_LOAD: return e->assembly_load.id;
    case TK_ASSEMBLY_UNLOAD: return e->assembly_unload.id;
    case TK_MODULE_LOAD: return e->module_load.id;
    case TK_MODULE_UNLOAD: return e->module_unload.id;
    case TK_CLASS_LOAD: return e->class_load.id;
    case TK_CLASS_UNLOAD: return e->class_unload.id;
    case TK_JIT: return e->jit.function;
    case TK_PRECOMPILED: return e->precompiled.function;
    case TK_THREAD_CREATE: case TK_THREAD_DESTROY: case TK_THREAD_OS: case TK_THREAD_NAME:
        return rp_thread_id(e);
    default: return 0;
    }
}

/* A load record's name or path, and its secondary ID (fr_state). */
static const char *load_name(const rp_event *e, uint64_t *id2)
{
    *id2 = 0;
    switch (e->kind) {
    case TK_APPDOMAIN_CREATE: return e->appdomain_create.name;
    case TK_ASSEMBLY_LOAD: *id2 = e->assembly_load.module; return e->assembly_load.name;
    case TK_MODULE_LOAD: *id2 = e->module_load.assembly; return e->module_load.path;
    case TK_CLASS_LOAD: *id2 = e->class_load.module; return e->class_load.name;
    case TK_JIT: *id2 = e->jit.module; return e->jit.name;
    default: return "";
    }
}

fr_state fr_state_of(const rp_trace *tr, int load_kind, int unload_kind, uint64_t id)
{
    fr_state s;
    int cur = 0, closed = 0;

    memset(&s, 0, sizeof(s));
    s.name = "";
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        if (record_id(e) != id)
            continue;
        if (e->kind == load_kind) {
            if (closed)
                cur = closed = 0;      /* a new lifetime */
            cur++;
            if (cur > s.max_loads)
                s.max_loads = cur;
            s.known = s.live = 1;
            s.catchup = e->catchup;
            s.name = load_name(e, &s.id2);
        } else if (unload_kind && e->kind == unload_kind) {
            s.known = 1;
            s.live = 0;
            s.unloads++;
            closed = 1;
        }
    }
    s.loads = cur;
    return s;
}

int fr_count(const rp_trace *tr, int kind, uint64_t id)
{
    int n = 0;
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == kind && (id == 0 || record_id(&tr->ev[i]) == id))
            n++;
    return n;
}

int fr_duplicates(const rp_trace *tr, int load_kind, int unload_kind)
{
    int dups = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        int first = 1;
        if (e->kind != load_kind)
            continue;
        for (size_t j = 0; j < i && first; j++)
            first = !(tr->ev[j].kind == load_kind && record_id(&tr->ev[j]) == record_id(e));
        if (first && fr_state_of(tr, load_kind, unload_kind, record_id(e)).max_loads > 1)
            dups++;
    }
    return dups;
}
