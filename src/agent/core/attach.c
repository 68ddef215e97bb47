/* attach.c - the agent loaded into a running process: InitializeForAttach
 * (copy and check the client data, then open the session, session.c), the
 * catch-up in ProfilerAttachComplete (modules with their assemblies and app
 * domains, threads, JIT-compiled functions), lazy catch-up of modules met
 * later, and ProfilerDetachSucceeded (closing the session).  The merge
 * rules between catch-up and live events are in catchup.h. */
#include "agent/core/attach.h"
#include "agent/core/callbacks.h"
#include "agent/core/control.h"
#include "agent/core/names.h"
#include "agent/core/profiler.h"
#include "agent/core/thread_state.h"
#include "agent/core/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENUM_BATCH 64
#define FUNCTION_SNAPSHOT_TRIES 3

/* The ctl= value of a configuration we could not parse, to say why. */
static void find_ctl(const char *text, char *out, size_t cap)
{
    const char *s = strstr(text, "ctl=");
    size_t n = 0;

    out[0] = '\0';
    if (!s || (s != text && s[-1] != ';'))
        return;
    s += 4;
    while (s[n] && s[n] != ';' && s[n] != '%' && n + 1 < cap)
        n++;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* A later `clrprobe attach` found this agent quiet (control.h): the same
 * as an attach, in this instance, then the catch-up the runtime would have
 * asked for. */
static int resume(profiler *p, const char *text)
{
    IUnknown *unk = (IUnknown *)p->info;
    cp_config cfg;
    char err[512];

    if (cp_config_parse(text, &cfg, err, sizeof(err)) < 0) {
        char ctl[CP_PATH_MAX];
        find_ctl(text, ctl, sizeof(ctl));
        session_decline(p, SESSION_ATTACH, ctl, "invalid configuration: %.200s", err);
        return -1;
    }
    session_reset(p);
    p->cfg = cfg;
    if (session_open(p, SESSION_ATTACH, unk) != S_OK)
        return -1;
    cb_ProfilerAttachComplete(&p->iface);
    return 0;
}

HRESULT cb_InitializeForAttach(ICorProfilerCallback11 *This, IUnknown *unk, void *data, UINT cb)
{
    profiler *p = profiler_from(This);
    char text[CP_CONFIG_MAX_TEXT + 1], err[512];

    p->resume = resume;

    if (!data || cb == 0 || cb > CP_CONFIG_MAX_TEXT)
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;      /* nobody to tell: not our command */
    memcpy(text, data, cb);                                /* valid only during this call */
    text[cb] = '\0';
    if (cp_config_parse(text, &p->cfg, err, sizeof(err)) < 0) {
        char ctl[CP_PATH_MAX];
        find_ctl(text, ctl, sizeof(ctl));
        return session_decline(p, SESSION_ATTACH, ctl, "invalid configuration: %.200s", err);
    }
    return session_open(p, SESSION_ATTACH, unk);
}

/* ---- catch-up ---- */

/* Reports module m if nobody has (see catchup.h); returns what it reported:
 * CU_REPORTED_MODULE and/or CU_REPORTED_ASSEMBLY. */
unsigned catchup_module(profiler *p, ModuleID m)
{
    unsigned reported = 0;
    char path[2048], name[512], version[64];
    AssemblyID assembly = 0;
    AppDomainID domain = 0;
    ModuleID manifest = 0;
    DWORD flags = 0;
    emit e;

    if (!m || !cu_claim(p->modules, m))
        return 0;
    reported |= CU_REPORTED_MODULE;
    names_module(p->names, m, path, sizeof(path), &assembly, &flags);
    if (assembly && cu_claim(p->assemblies, assembly)) {
        reported |= CU_REPORTED_ASSEMBLY;
        names_assembly(p->names, assembly, name, sizeof(name), version, sizeof(version), &domain, &manifest);
        if (domain && cu_claim(p->appdomains, domain) && (p->cfg.collect & CP_COLLECT_APPDOMAINS)) {
            char dname[512];
            names_appdomain(p->names, domain, dname, sizeof(dname));
            if (emit_begin_catchup(p, &e, TK_APPDOMAIN_CREATE)) {
                rec_appdomain_create_put(&e.r, &(rec_appdomain_create){ .id = domain, .name = dname });
                emit_end(&e);
            }
        }
        if ((p->cfg.collect & CP_COLLECT_ASSEMBLIES) && emit_begin_catchup(p, &e, TK_ASSEMBLY_LOAD)) {
            rec_assembly_load_put(&e.r, &(rec_assembly_load){ .id = assembly, .appdomain = domain,
                                                              .module = manifest, .name = name, .version = version });
            emit_end(&e);
        }
    }
    if (CP_RECORDS_MODULES(p->cfg.collect) && emit_begin_catchup(p, &e, TK_MODULE_LOAD)) {
        rec_module_load_put(&e.r, &(rec_module_load){ .id = m, .assembly = assembly, .flags = flags, .hr = 0,
                                                      .path = path });
        emit_end(&e);
    }
    return reported;
}

static unsigned catchup_modules(profiler *p, unsigned *assemblies)
{
    ICorProfilerModuleEnum *en = NULL;
    ModuleID ids[ENUM_BATCH];
    ULONG got = 0;
    unsigned n = 0;

    if (FAILED(INFO(p)->EnumModules(p->info, &en)) || !en)
        return 0;
    while (!atomic_load(&p->catchup_abort) && SUCCEEDED(en->lpVtbl->Next(en, ENUM_BATCH, ids, &got)) && got > 0) {
        for (ULONG i = 0; i < got; i++) {
            unsigned r;
            cu_gate_enter(&p->gate);
            r = catchup_module(p, ids[i]);
            cu_gate_leave(&p->gate);
            n += (r & CU_REPORTED_MODULE) != 0;
            *assemblies += (r & CU_REPORTED_ASSEMBLY) != 0;
        }
    }
    en->lpVtbl->Release(en);
    return n;
}

static unsigned catchup_threads(profiler *p)
{
    ICorProfilerThreadEnum *en = NULL;
    ThreadID ids[ENUM_BATCH];
    ULONG got = 0;
    unsigned n = 0;

    if (!(p->cfg.collect & CP_COLLECT_THREADS) || FAILED(INFO(p)->EnumThreads(p->info, &en)) || !en)
        return 0;
    while (!atomic_load(&p->catchup_abort) && SUCCEEDED(en->lpVtbl->Next(en, ENUM_BATCH, ids, &got)) && got > 0) {
        for (ULONG i = 0; i < got; i++) {
            DWORD os_tid = 0;
            char name[32];
            emit e;

            cu_gate_enter(&p->gate);
            if (cu_claim(p->threads_known, ids[i])) {
                if (FAILED(INFO(p)->GetThreadInfo(p->info, ids[i], &os_tid)))
                    os_tid = 0;
                if (emit_begin_catchup(p, &e, TK_THREAD_CREATE)) {
                    rec_thread_create_put(&e.r, &(rec_thread_create){ .thread = ids[i] });
                    emit_end(&e);
                }
                if (os_tid) {
                    thread_kernel_name(os_tid, name, sizeof(name));
                    if (emit_begin_catchup(p, &e, TK_THREAD_OS)) {
                        rec_thread_os_put(&e.r, &(rec_thread_os){ .thread = ids[i], .os_tid = os_tid,
                                                                  .os_name = name });
                        emit_end(&e);
                    }
                }
                n++;
            }
            cu_gate_leave(&p->gate);
        }
    }
    en->lpVtbl->Release(en);
    return n;
}

/* Reports one JIT-compiled function found by the catch-up; inside the gate.
 * Only one of a module known live (enumerated by catchup_modules, or loaded
 * since): the runtime takes an unloading assembly off the module list
 * before its UnloadStarted callbacks, and frees its code from the function
 * list only after the module is gone, so a function of the snapshot whose
 * module is not known live belongs to an unload under way, maybe one whose
 * callbacks came before ours were asked for (before the attach, or while
 * the agent was quiet): its module must not be queried.  0 if skipped. */
static int catchup_function(profiler *p, FunctionID f)
{
    char name[1024];
    ModuleID module = 0;
    ClassID cls = 0;
    mdToken token = 0;
    emit e;

    if (FAILED(INFO(p)->GetFunctionInfo(p->info, f, &cls, &module, &token)) || !module ||
        cu_state_of(p->modules, module) != CU_LIVE)
        return 0;
    names_function(p->names, f, name, sizeof(name), &module);
    if (emit_begin_catchup(p, &e, TK_JIT)) {
        rec_jit_put(&e.r, &(rec_jit){ .function = f, .module = module, .duration_ns = 0, .hr = 0, .name = name });
        emit_end(&e);
    }
    return 1;
}

/* The JIT-compiled functions.  There is no unload event per function, so a
 * snapshot is trusted only while no unload has happened since it was taken;
 * after one, the rest comes from a fresh snapshot. */
static unsigned catchup_functions(profiler *p)
{
    cu_table *done;              /* functions reported so far (a ReJIT version, or an earlier snapshot's) */
    unsigned count = 0;

    if (!(p->cfg.collect & CP_COLLECT_JIT) || (done = cu_table_create()) == NULL)
        return 0;
    for (int attempt = 0; attempt < FUNCTION_SNAPSHOT_TRIES; attempt++) {
        ICorProfilerFunctionEnum *en = NULL;
        COR_PRF_FUNCTION fns[ENUM_BATCH];
        uint64_t unloads;
        ULONG got = 0;
        int stale = 0;

        cu_gate_enter(&p->gate);
        unloads = cu_gate_unloads(&p->gate);
        if (FAILED(INFO(p)->EnumJITedFunctions2(p->info, &en)))
            en = NULL;
        cu_gate_leave(&p->gate);
        if (!en)
            break;
        while (!stale && !atomic_load(&p->catchup_abort) &&
               SUCCEEDED(en->lpVtbl->Next(en, ENUM_BATCH, fns, &got)) && got > 0) {
            for (ULONG i = 0; i < got; i++) {
                FunctionID f = fns[i].functionId;
                if (cu_state_of(done, f) != CU_UNKNOWN)
                    continue;
                cu_gate_enter(&p->gate);
                if (cu_gate_unloads(&p->gate) != unloads) {
                    stale = 1;                 /* the function may be gone: new snapshot */
                    cu_gate_leave(&p->gate);
                    break;
                }
                count += catchup_function(p, f);
                cu_gate_leave(&p->gate);
                cu_on_load(done, f);
            }
        }
        en->lpVtbl->Release(en);
        if (!stale)
            break;
    }
    cu_table_free(done);
    return count;
}

HRESULT cb_ProfilerAttachComplete(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    uint64_t t0 = cp_monotonic_ns(), took;
    unsigned modules, threads, functions, assemblies = 0;
    emit e;

    if (!p->attached || !atomic_load(&p->recording)) {
        atomic_store(&p->catchup_done, 1);
        return S_OK;
    }
    modules = catchup_modules(p, &assemblies);
    threads = catchup_threads(p);
    functions = catchup_functions(p);
    took = cp_monotonic_ns() - t0;
    if (emit_begin(p, &e, TK_ATTACH)) {
        rec_attach_put(&e.r, &(rec_attach){ .modules = modules, .assemblies = assemblies, .threads = threads,
                                            .functions = functions, .catchup_ns = took });
        emit_end(&e);
    }
    trace_writer_flush(p->writer);
    session_caught_up(p);                 /* the sampler starts */
    control_send(p, CP_CTL_READY_FMT, modules, assemblies, threads, functions, (unsigned long long)took);
    /* Last: until now the control thread must not request a detach, since
     * the runtime would unload us while this callback still runs (it is not
     * counted as "in the profiler" on the diagnostics thread). */
    atomic_store(&p->catchup_done, 1);
    return S_OK;
}

/* Lazy catch-up: a module first met through a function (attach mode). */
void attach_saw_module(profiler *p, ModuleID m)
{
    if (!p->attached || !m || cu_state_of(p->modules, m) != CU_UNKNOWN)
        return;
    cu_gate_enter(&p->gate);
    catchup_module(p, m);
    cu_gate_leave(&p->gate);
}

/* ---- leaving ---- */

HRESULT cb_ProfilerDetachSucceeded(ICorProfilerCallback11 *This)
{
    /* The last callback: our threads are joined and the file closed before
     * returning, because the runtime unloads the library right after. */
    session_close(profiler_from(This), SESSION_DETACHED);
    return S_OK;
}
