/* attach.c - the agent loaded into a running process: InitializeForAttach
 * (copy and check the client data, ask only for what is allowed after
 * attach, open the trace), the catch-up in ProfilerAttachComplete (modules
 * with their assemblies and app domains, threads, JIT-compiled functions),
 * lazy catch-up of modules met later, and ProfilerDetachSucceeded.  The
 * merge rules between catch-up and live events are in catchup.h. */
#include "agent/callbacks.h"
#include "agent/control.h"
#include "agent/flusher.h"
#include "agent/names.h"
#include "agent/profiler.h"
#include "agent/sampler.h"
#include "common/escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ENUM_BATCH 64
#define TRACE_FD_TIMEOUT_MS 10000     /* the command sends the trace file right after "hello" */
#define FUNCTION_SNAPSHOT_TRIES 3

/* Refuses activation; tells the command why when it is listening.  The
 * reason is escaped (common/escape.h): a line break in a path quoted in it
 * would otherwise start a line of the control protocol. */
static HRESULT refuse(profiler *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static HRESULT refuse(profiler *p, const char *fmt, ...)
{
    char why[512], shown[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    esc_buf(shown, sizeof(shown), why, strlen(why), NULL);
    control_send(p, "error %s", shown);
    control_stop(p);
    control_disconnect(p);
    close_trace_on_failure(p);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
}

/* ---- what the control thread asks for when it detaches (control.h) ---- */

static void before_detach(profiler *p)
{
    /* A detach while ProfilerAttachComplete still runs would unload us under
     * it: ask the catch-up to finish early and wait for it. */
    atomic_store(&p->catchup_abort, 1);
    while (!atomic_load(&p->catchup_done) && !control_stopping(p)) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    /* No Info call may follow RequestProfilerDetach from our threads: the
     * sampler is stopped first. */
    sampler_stop(p);
}

static void detach_refused(profiler *p)
{
    atomic_store(&p->recording, 0);
    trace_writer_close(p->writer, cp_gettid(), cp_monotonic_ns());
}

static const control_hooks attach_hooks = { before_detach, detach_refused };

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

HRESULT cb_InitializeForAttach(ICorProfilerCallback11 *This, IUnknown *unk, void *data, UINT cb)
{
    profiler *p = profiler_from(This);
    char text[CP_CONFIG_MAX_TEXT + 1], err[512], note[256] = "", cmdline[2048];
    runtime_version v;
    trace_header_info hdr;
    DWORD low, high;
    HRESULT hr;

    if (!data || cb == 0 || cb > CP_CONFIG_MAX_TEXT)
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;      /* nobody to tell: not our command */
    memcpy(text, data, cb);                                /* valid only during this call */
    text[cb] = '\0';
    if (cp_config_parse(text, &p->cfg, err, sizeof(err)) < 0) {
        char ctl[CP_PATH_MAX];
        find_ctl(text, ctl, sizeof(ctl));
        if (ctl[0] && control_connect(p, ctl, NULL, err + 256, 256) == 0)
            return refuse(p, "invalid configuration: %.200s", err);
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    if (p->cfg.ctl[0] && control_connect(p, p->cfg.ctl, &attach_hooks, err, sizeof(err)) < 0)
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;      /* the command is gone */
    control_send(p, "hello %d", (int)getpid());

    p->attached = 1;
    p->info_version = query_info(unk, &p->info);
    if (p->info_version < MIN_INFO_VERSION)
        return refuse(p, "this .NET runtime is too old to attach to (ICorProfilerInfo%d; .NET 5 or newer needed)",
                      p->info_version);
    read_runtime_version(p->info, &v);
    snprintf(p->runtime_version, sizeof(p->runtime_version), "%s", v.text);
    if (names_create(&p->names, p->info, p->info_version) < 0 || cu_gate_init(&p->gate) < 0)
        return refuse(p, "out of memory");
    p->gate_ok = 1;
    p->modules = cu_table_create();
    p->assemblies = cu_table_create();
    p->appdomains = cu_table_create();
    p->threads_known = cu_table_create();
    if (!p->modules || !p->assemblies || !p->appdomains || !p->threads_known || thread_state_key_create(p) < 0)
        return refuse(p, "out of memory");

    /* The mask is set here, inside InitializeForAttach: the only place the
     * runtime accepts every after-attach flag.  If the GC events are refused,
     * go on without them and say so in the trace. */
    event_mask(&p->cfg, 1, &low, &high);
    hr = INFO(p)->SetEventMask2(p->info, low, high);
    if (FAILED(hr) && high) {
        HRESULT gc_hr = hr;
        hr = INFO(p)->SetEventMask2(p->info, low, 0);
        if (SUCCEEDED(hr))
            snprintf(note, sizeof(note), "GC events are not available after this attach (the runtime refused "
                     "COR_PRF_HIGH_BASIC_GC: HRESULT 0x%08x); recording without them", (unsigned)gc_hr);
    }
    if (FAILED(hr))
        return refuse(p, "the runtime refused the event mask 0x%x/0x%x (HRESULT 0x%08x)", (unsigned)low,
                      (unsigned)high, (unsigned)hr);

    read_command_line(cmdline, sizeof(cmdline));
    hdr.pid = (uint32_t)getpid();
    hdr.flags = TRACE_FLAG_ATTACHED;
    hdr.start_realtime_ns = cp_realtime_ns();
    hdr.start_monotonic_ns = cp_monotonic_ns();
    hdr.runtime_version = p->runtime_version;
    hdr.command_line = cmdline;
    {
        /* Without an output, the command created the file (as its own user:
         * when root attaches to another user's process, the trace stays
         * root's) and sends the descriptor; we never open a path of its
         * choosing. */
        int fd = -1;
        if (!p->cfg.output[0] && (fd = control_receive_trace(p, TRACE_FD_TIMEOUT_MS, err, sizeof(err))) < 0)
            return refuse(p, "%.400s", err);
        if (open_trace(p, fd, &hdr, err, sizeof(err)) < 0)
            return refuse(p, "%.400s", err);
    }
    if (flusher_start(p) < 0 || control_start(p) < 0) {
        flusher_stop(p);
        return refuse(p, "cannot start the agent's threads");
    }
    atomic_store(&p->recording, 1);
    {
        emit e;
        if (emit_begin(p, &e, TK_RUNTIME_START)) {
            trace_rec_u16(&e.r, 0);
            trace_rec_u16(&e.r, COR_PRF_CORE_CLR);
            for (int i = 0; i < 4; i++)
                trace_rec_u16(&e.r, 0);
            trace_rec_str(&e.r, p->runtime_version);
            emit_end(&e);
        }
    }
    if (note[0])
        profiler_note(p, "%s", note);
    return S_OK;
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
                trace_rec_u64(&e.r, domain);
                trace_rec_str(&e.r, dname);
                emit_end(&e);
            }
        }
        if ((p->cfg.collect & CP_COLLECT_ASSEMBLIES) && emit_begin_catchup(p, &e, TK_ASSEMBLY_LOAD)) {
            trace_rec_u64(&e.r, assembly);
            trace_rec_u64(&e.r, domain);
            trace_rec_u64(&e.r, manifest);
            trace_rec_str(&e.r, name);
            trace_rec_str(&e.r, version);
            emit_end(&e);
        }
    }
    if ((p->cfg.collect & CP_COLLECT_MODULES) && emit_begin_catchup(p, &e, TK_MODULE_LOAD)) {
        trace_rec_u64(&e.r, m);
        trace_rec_u64(&e.r, assembly);
        trace_rec_u32(&e.r, flags);
        trace_rec_u32(&e.r, 0);
        trace_rec_str(&e.r, path);
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
                    trace_rec_u64(&e.r, ids[i]);
                    emit_end(&e);
                }
                if (os_tid) {
                    thread_kernel_name(os_tid, name, sizeof(name));
                    if (emit_begin_catchup(p, &e, TK_THREAD_OS)) {
                        trace_rec_u64(&e.r, ids[i]);
                        trace_rec_u32(&e.r, os_tid);
                        trace_rec_str(&e.r, name);
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

/* Reports one JIT-compiled function found by the catch-up; inside the gate. */
static void catchup_function(profiler *p, FunctionID f)
{
    char name[1024];
    ModuleID module = 0;
    emit e;

    names_function(p->names, f, name, sizeof(name), &module);
    if (module && cu_state_of(p->modules, module) == CU_UNKNOWN)
        catchup_module(p, module);
    if (emit_begin_catchup(p, &e, TK_JIT)) {
        trace_rec_u64(&e.r, f);
        trace_rec_u64(&e.r, module);
        trace_rec_u64(&e.r, 0);
        trace_rec_u32(&e.r, 0);
        trace_rec_str(&e.r, name);
        emit_end(&e);
    }
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
                catchup_function(p, f);
                cu_gate_leave(&p->gate);
                cu_on_load(done, f);
                count++;
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
        trace_rec_u32(&e.r, modules);
        trace_rec_u32(&e.r, assemblies);
        trace_rec_u32(&e.r, threads);
        trace_rec_u32(&e.r, functions);
        trace_rec_u64(&e.r, took);
        emit_end(&e);
    }
    trace_writer_flush(p->writer);
    if (sampler_start(p) < 0)
        profiler_note(p, "CPU sampling could not start (out of memory or threads)");
    control_send(p, "ready %u %u %u %u %llu", modules, assemblies, threads, functions, (unsigned long long)took);
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

static void finish_trace(profiler *p, int kind)
{
    uint8_t rec[TRACE_RECORD_HEADER_LEN];
    trace_rec r;

    control_stop(p);                   /* first: it may be stopping the sampler itself */
    sampler_stop(p);
    atomic_store(&p->recording, 0);
    flusher_stop(p);
    trace_rec_begin(&r, rec, sizeof(rec), kind, cp_gettid(), cp_monotonic_ns());
    trace_writer_append_record(p->writer, rec, trace_rec_finish(&r));
    trace_writer_close(p->writer, cp_gettid(), cp_monotonic_ns());
}

HRESULT cb_ProfilerDetachSucceeded(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);

    /* The last callback: our threads are joined and the file closed before
     * returning, because the runtime unloads the library right after. */
    if (p->writer && atomic_load(&p->recording))
        finish_trace(p, TK_DETACH);
    else {
        control_stop(p);
        sampler_stop(p);
        flusher_stop(p);
    }
    control_send(p, "detached");
    control_stop(p);
    control_disconnect(p);
    return S_OK;
}

/* Shutdown of a process we attached to: close the trace, tell the command. */
void attach_shutdown(profiler *p)
{
    if (atomic_load(&p->recording))
        finish_trace(p, TK_RUNTIME_SHUTDOWN);
    control_send(p, "exited");
    control_stop(p);
    control_disconnect(p);
}
