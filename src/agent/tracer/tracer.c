/* tracer.c - the method tracer service (tracer.h): choosing the traced
 * methods as the runtime compiles them (the FunctionIDMapper2), and the
 * thread that writes the hooks' per-thread figures (tracer_hooks.h) into
 * the trace. */
#include "agent/tracer/tracer.h"
#include "agent/core/service.h"
#include "agent/tracer/tracer_hooks.h"
#include "common/idmap.h"
#include "common/latency_hist.h"
#include "common/method_pattern.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WRITE_EVERY_NS 1000000000ull   /* method_stats at most this often */
#define DRAIN_EVERY_NS 50000000ull     /* logged calls: the rings are drained this often */
#define MAPPER_WAIT_MS 1000            /* the stop waits this long for mapper calls in flight */

typedef struct tracer tracer;

struct tracer {
    tr_shared sh;                      /* first: what the hooks see */
    profiler *p;
    mp_list patterns;
    pthread_mutex_t lock;              /* methods, by_fid, precompiled */
    tr_method **methods;               /* by index */
    uint32_t nmethods, cap;
    idmap by_fid;                      /* FunctionID -> index + 1 */
    idmap precompiled;                 /* FunctionIDs whose precompiled code was used */
    idmap matched;                     /* FunctionID -> 1 a pattern matches it, 2 none (JITInlining) */
    int full_noted;
    atomic_int mapping;                /* the mapper chooses (0 after the stop) */
    atomic_int in_mapper;
    pthread_t thread;
    int started;
    atomic_int stop;
    int calls_cap_noted;
};

/* ---- choosing the methods ---- */

static void emit_traced(profiler *p, FunctionID fid, ModuleID module, uint32_t how, int pattern, const char *name,
                        const char *reason)
{
    emit e;
    if (emit_begin(p, &e, TK_TRACED_METHOD)) {
        rec_traced_method_put(&e.r, &(rec_traced_method){ .function = fid, .module = module, .how = how,
                                                          .pattern = (uint32_t)pattern, .name = name,
                                                          .reason = reason });
        emit_end(&e);
    }
}

/* A new traced method (under t->lock): its record for the hooks, or NULL
 * (out of memory, or too many: noted once).  fid 0: the tr_method's own
 * address stands for it (IL probes). */
static tr_method *add_method(tracer *t, FunctionID fid)
{
    tr_method *m;

    if (t->nmethods >= TR_METHODS_MAX) {
        if (!t->full_noted++)
            profiler_note(t->p, "--trace: more than %d methods matched; the others are not traced", TR_METHODS_MAX);
        return NULL;
    }
    if (t->nmethods == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        tr_method **nv = realloc(t->methods, cap * sizeof(*nv));
        if (!nv)
            return NULL;
        t->methods = nv;
        t->cap = cap;
    }
    if (!(m = malloc(sizeof(*m))))
        return NULL;
    *m = (tr_method){ .sh = &t->sh, .fid = fid ? fid : (FunctionID)(uintptr_t)m, .index = t->nmethods };
    if (idmap_put(&t->by_fid, m->fid, (uint64_t)t->nmethods + 1) < 0) {
        free(m);
        return NULL;
    }
    t->methods[t->nmethods++] = m;
    return m;
}

/* The runtime asks, as it compiles fid, whether it gets the hooks; the
 * value returned is what the hooks are given (a tr_method *). */
static UINT_PTR mapper(FunctionID fid, void *data, BOOL *hook)
{
    tracer *t = data;
    profiler *p = t->p;
    char name[1024];
    ModuleID module = 0;
    tr_method *m = NULL;
    uint64_t v;
    int pattern, created = 0;

    *hook = FALSE;
    atomic_fetch_add(&t->in_mapper, 1);
    if (!atomic_load(&t->mapping))
        goto out;
    names_function(p->names, fid, name, sizeof(name), &module);
    if (!(pattern = mp_match(&t->patterns, name)))
        goto out;
    pthread_mutex_lock(&t->lock);
    if (idmap_get(&t->precompiled, fid, &v)) {
        /* its precompiled code ran untraced: no partial count */
    } else if (idmap_get(&t->by_fid, fid, &v)) {
        m = t->methods[v - 1];
    } else {
        created = (m = add_method(t, fid)) != NULL;
    }
    pthread_mutex_unlock(&t->lock);
    if (created)
        emit_traced(p, fid, module, TRACE_HOW_HOOKS, pattern, name, "");
    if (m)
        *hook = TRUE;
out:
    atomic_fetch_sub(&t->in_mapper, 1);
    return (UINT_PTR)m;
}

tr_method *tracer_add_il_method(profiler *p, ModuleID module, int pattern, const char *name)
{
    tracer *t = p->tracer->t;
    tr_method *m;

    if (!t)
        return NULL;
    pthread_mutex_lock(&t->lock);
    m = add_method(t, 0);
    pthread_mutex_unlock(&t->lock);
    if (m)
        emit_traced(p, m->fid, module, TRACE_HOW_IL, pattern, name, "");
    return m;
}

void tracer_method_refused(profiler *p, const tr_method *m, ModuleID module, const char *name, const char *why)
{
    emit_traced(p, m ? m->fid : 0, module, TRACE_HOW_NONE, 0, name, why);
}

int tracer_matches(profiler *p, const char *name)
{
    tracer *t = p->tracer->t;
    return t ? mp_match(&t->patterns, name) : 0;
}

void tracer_precompiled(profiler *p, FunctionID fid, const char *name, ModuleID module)
{
    tracer *t = p->tracer->t;
    uint64_t v;
    int pattern, fresh = 0;

    if (!t || !atomic_load(&t->mapping) || !(pattern = mp_match(&t->patterns, name)))
        return;
    pthread_mutex_lock(&t->lock);
    if (!idmap_get(&t->by_fid, fid, &v) && !idmap_get(&t->precompiled, fid, &v))
        fresh = idmap_put(&t->precompiled, fid, 1) == 0;
    pthread_mutex_unlock(&t->lock);
    if (fresh)
        emit_traced(p, fid, module, TRACE_HOW_NONE, pattern, name,
                    "its precompiled (ReadyToRun) code runs, which has no enter/leave hooks");
}

int tracer_may_inline(profiler *p, FunctionID callee)
{
    tracer *t = p->tracer->t;
    char name[1024];
    ModuleID module;
    uint64_t v;
    int found, match;

    if (!t || !atomic_load(&t->mapping))
        return 1;
    pthread_mutex_lock(&t->lock);
    found = idmap_get(&t->by_fid, callee, &v) ? (v = 1, 1) : idmap_get(&t->matched, callee, &v);
    pthread_mutex_unlock(&t->lock);
    if (found)
        return v != 1;
    names_function(p->names, callee, name, sizeof(name), &module);
    match = mp_match(&t->patterns, name) != 0;
    pthread_mutex_lock(&t->lock);
    idmap_put(&t->matched, callee, match ? 1 : 2);
    pthread_mutex_unlock(&t->lock);
    return !match;
}

/* The tracer's state for p's configuration: 0, or -1 with why. */
static int create(profiler *p, char *why, size_t why_len)
{
    tracer *t;

    if (!(t = calloc(1, sizeof(*t)))) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    if (mp_parse(p->cfg.trace, &t->patterns, why, why_len) < 0 ||
        tr_shared_init(&t->sh, p->cfg.trace_calls > 0, p->cfg.trace_calls) < 0) {
        if (!why[0])
            snprintf(why, why_len, "out of memory");
        free(t);
        return -1;
    }
    t->p = p;
    pthread_mutex_init(&t->lock, NULL);
    idmap_init(&t->by_fid);
    idmap_init(&t->precompiled);
    idmap_init(&t->matched);
    atomic_store(&t->sh.active, 1);
    p->tracer->t = t;
    return 0;
}

int tracer_install(profiler *p, char *why, size_t why_len)
{
    tracer *t;
    HRESULT hr;

    if (!p->cfg.trace[0])
        return 0;
    if (create(p, why, why_len) < 0)
        return -1;
    t = p->tracer->t;
    atomic_store(&t->mapping, 1);
    hr = INFO(p)->SetFunctionIDMapper2(p->info, mapper, t);
    if (SUCCEEDED(hr))
        hr = INFO(p)->SetEnterLeaveFunctionHooks3(p->info, tr_enter_trampoline, tr_leave_trampoline,
                                                  tr_tailcall_trampoline);
    if (FAILED(hr)) {
        /* (the mapper may be set: it is never called without hooks; t stays,
         * the runtime holds it as the mapper's data) */
        snprintf(why, why_len, "the runtime refused the enter/leave hooks (HRESULT 0x%08x)", (unsigned)hr);
        atomic_store(&t->mapping, 0);
        atomic_store(&t->sh.active, 0);
        p->tracer->t = NULL;
        return -1;
    }
    return 0;
}

int tracer_create_for_attach(profiler *p, char *why, size_t why_len)
{
    if (!p->cfg.trace[0])
        return 0;
    return create(p, why, why_len);
}

/* ---- writing out ---- */

static void write_stat(profiler *p, const tr_thread *th, const tr_method *m, tr_stat *st)
{
    uint8_t enc[LH_ENCODED_MAX];                  /* (the agent's own threads: stack to spare) */
    uint32_t counts[LH_BUCKETS];
    uint64_t calls = __atomic_load_n(&st->calls, __ATOMIC_RELAXED);
    size_t n = 0;
    emit e;

    if (calls == st->written)
        return;
    if (st->hist) {
        for (unsigned i = 0; i < LH_BUCKETS; i++)
            counts[i] = __atomic_load_n(&st->hist[i], __ATOMIC_RELAXED);
        n = lh_encode(counts, enc, sizeof(enc));
    }
    if (emit_begin(p, &e, TK_METHOD_STATS)) {
        rec_method_stats_put(&e.r, &(rec_method_stats){
            .thread = 0, .os_tid = th->os_tid, .function = m->fid, .calls = calls,
            .exceptions = __atomic_load_n(&st->exceptions, __ATOMIC_RELAXED),
            .total_ns = __atomic_load_n(&st->total_ns, __ATOMIC_RELAXED),
            .self_ns = __atomic_load_n(&st->self_ns, __ATOMIC_RELAXED),
            .max_ns = __atomic_load_n(&st->max_ns, __ATOMIC_RELAXED), .histogram = enc,
            .histogram_len = (uint16_t)n });
        emit_end(&e);
        st->written = calls;
    }
}

static tr_method *method_at(tracer *t, uint32_t index)
{
    tr_method *m = NULL;
    pthread_mutex_lock(&t->lock);
    if (index < t->nmethods)
        m = t->methods[index];
    pthread_mutex_unlock(&t->lock);
    return m;
}

static void drain_calls(tracer *t, tr_thread *th)
{
    profiler *p = t->p;
    unsigned tail = atomic_load_explicit(&th->ring_tail, memory_order_relaxed);
    unsigned head = atomic_load_explicit(&th->ring_head, memory_order_acquire);

    if (!th->ring)
        return;
    for (; tail != head; tail++) {
        const tr_call *c = &th->ring[tail % TR_RING];
        tr_method *m = method_at(t, c->index);
        emit e;
        if (m && emit_begin_at(p, &e, TK_CALL, c->start_ns)) {
            rec_call_put(&e.r, &(rec_call){ .thread = 0, .os_tid = th->os_tid, .function = m->fid,
                                            .duration_ns = c->duration_ns, .depth = c->depth,
                                            .flags = c->flags });
            emit_end(&e);
        }
    }
    atomic_store_explicit(&th->ring_tail, tail, memory_order_release);
}

static void write_thread(tracer *t, tr_thread *th)
{
    for (uint32_t c = 0; c < TR_CHUNKS; c++) {
        tr_stat *chunk = atomic_load_explicit(&th->chunk[c], memory_order_acquire);
        if (!chunk)
            continue;
        for (uint32_t i = 0; i < TR_CHUNK; i++) {
            tr_method *m;
            if (__atomic_load_n(&chunk[i].calls, __ATOMIC_RELAXED) == chunk[i].written ||
                !(m = method_at(t, c * TR_CHUNK + i)))
                continue;
            write_stat(t->p, th, m, &chunk[i]);
        }
    }
}

static void free_thread(tr_thread *th)
{
    for (uint32_t c = 0; c < TR_CHUNKS; c++) {
        tr_stat *chunk = atomic_load(&th->chunk[c]);
        if (!chunk)
            continue;
        for (uint32_t i = 0; i < TR_CHUNK; i++)
            free(chunk[i].hist);
        free(chunk);
    }
    free(th->ring);
    free(th);
}

/* Drains the rings; with stats, writes what changed; frees the tables of
 * threads that exited (written out first).  all: the tables of live
 * threads are written too but kept (their hooks may still run). */
static void write_out(tracer *t, int stats)
{
    tr_thread **link, *dead = NULL;

    pthread_mutex_lock(&t->sh.lock);
    for (tr_thread *th = t->sh.threads; th; th = th->next)
        drain_calls(t, th);
    if (stats) {
        for (tr_thread *th = t->sh.threads; th; th = th->next)
            write_thread(t, th);
        for (link = &t->sh.threads; *link;) {
            tr_thread *th = *link;
            if (atomic_load(&th->dead)) {
                *link = th->next;
                th->next = dead;
                dead = th;
            } else {
                link = &th->next;
            }
        }
    }
    pthread_mutex_unlock(&t->sh.lock);
    while (dead) {
        tr_thread *next = dead->next;
        drain_calls(t, dead);
        write_thread(t, dead);
        free_thread(dead);
        dead = next;
    }
    if (t->sh.log_calls && !t->calls_cap_noted && atomic_load(&t->sh.calls_left) <= 0) {
        t->calls_cap_noted = 1;
        profiler_note(t->p, "--trace-calls: the first %ld calls were logged; the later ones are counted in the "
                      "traced methods' figures only", t->p->cfg.trace_calls);
    }
}

static void *tracer_main(void *arg)
{
    tracer *t = arg;
    uint64_t last_stats = cp_monotonic_ns();

    while (!atomic_load(&t->stop)) {
        uint64_t now;
        struct timespec pause = { 0, (long)(t->sh.log_calls ? DRAIN_EVERY_NS : WRITE_EVERY_NS / 4) };
        nanosleep(&pause, NULL);
        now = cp_monotonic_ns();
        if (now - last_stats >= WRITE_EVERY_NS) {
            write_out(t, 1);
            last_stats = now;
        } else if (t->sh.log_calls) {
            write_out(t, 0);
        }
    }
    return NULL;
}

int tracer_start(profiler *p)
{
    tracer *t = p->tracer->t;
    int rc;

    if (!t || t->started)
        return 0;
    rc = agent_thread_start(&t->thread, NULL, tracer_main, t);
    if (rc != 0)
        return -1;
    t->started = 1;
    return 0;
}

void tracer_stop(profiler *p)
{
    tracer *t = p->tracer->t;
    unsigned long failed;

    if (!t || atomic_load(&t->stop))
        return;
    atomic_store(&t->stop, 1);
    if (t->started)
        pthread_join(t->thread, NULL);
    atomic_store(&t->sh.active, 0);
    atomic_store(&t->mapping, 0);
    for (int i = 0; i < MAPPER_WAIT_MS && atomic_load(&t->in_mapper) > 0; i++) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    write_out(t, 1);
    if ((failed = atomic_load(&t->sh.tables_failed)) > 0)
        profiler_note(p, "--trace: %lu threads could not be traced (out of memory)", failed);
    if ((failed = atomic_load(&t->sh.hists_failed)) > 0)
        profiler_note(p, "--trace: %lu latency histograms could not be allocated (out of memory): their "
                      "methods' percentiles are missing", failed);
    if ((failed = atomic_load(&t->sh.calls_dropped)) > 0)
        profiler_note(p, "--trace-calls: %lu calls were not logged (a thread's ring was full between two "
                      "drains); they are counted in the figures", failed);
}

/* ---- exceptions ---- */

void tracer_unwind_enter(profiler *p, FunctionID fid)
{
    if (p->tracer->t)
        tr_unwind_enter(&p->tracer->t->sh, fid);
}

void tracer_unwind_leave(profiler *p)
{
    if (p->tracer->t)
        tr_unwind_leave(&p->tracer->t->sh);
}

void tracer_catcher_enter(profiler *p, FunctionID fid)
{
    if (p->tracer->t)
        tr_catcher_enter(&p->tracer->t->sh, fid);
}

/* ---- the service ---- */

static void tracer_event_mask(const cp_config *cfg, int attach, DWORD *low, DWORD *high)
{
    if (cfg->trace[0] && !attach)        /* the hooks; after an attach the IL probes (tracer_rejit.c) */
        *low |= TRACER_EVENT_MASK;
}

/* --trace: at launch the hooks, which may only be set in Initialize; after
 * an attach the tracer the IL probes call (tracer_rejit.h). */
static int tracer_prepare(profiler *p, int attach, char *why, size_t cap)
{
    char reason[256] = "";

    if (!p->cfg.trace[0])
        return 0;
    if ((attach ? tracer_create_for_attach(p, reason, sizeof(reason)) : tracer_install(p, reason, sizeof(reason))) == 0)
        return 0;
    snprintf(why, cap, "--trace: methods are not traced: %s", reason);
    return -1;
}

/* A new session keeps nothing of the last tracer but the tracer itself,
 * which rewritten code may still call. */
static void tracer_reset(profiler *p)
{
    p->tracer->t = NULL;
}

/* A method a --trace pattern matches is not inlined. */
static HRESULT cb_JITInlining(ICorProfilerCallback11 *This, FunctionID caller, FunctionID callee, BOOL *inline_it)
{
    if (inline_it)
        *inline_it = tracer_may_inline(profiler_from(This), callee) ? TRUE : FALSE;
    return S_OK;
}

static void tracer_callbacks(ICorProfilerCallbackVtbl *v)
{
    v->JITInlining = cb_JITInlining;
}

const agent_service tracer_service = {
    .name = "tracer",
    .state_size = sizeof(tracer_state),
    .event_mask = tracer_event_mask,
    .callbacks = tracer_callbacks,
    .prepare = tracer_prepare,
    .when = AFTER_CATCHUP, .start = tracer_start, .stop = tracer_stop,
    .failed_note = "--trace: the tracer's thread could not start: calls are counted, but written out only at the end",
    .stop_before_detach = 1,
    .reset = tracer_reset,
    .precompiled = tracer_precompiled,
    .unwind_enter = tracer_unwind_enter,
    .unwind_leave = tracer_unwind_leave,
    .catcher_enter = tracer_catcher_enter,
};
