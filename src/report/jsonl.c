/* jsonl.c - `report --format jsonl`: one JSON object per line, the first
 * describing the trace, then one per event in time order.  Records with a
 * stack (sample, alloc_sample, contention) carry it as names, leaf first;
 * an alloc_sample also the bytes and objects it stands for
 * (rp_alloc_estimate).  The schema is in docs/jsonl.md. */
#include "report/report.h"
#include "report/alloc_estimate.h"
#include "common/idmap.h"
#include "report/gc_timeline.h"
#include "report/heap_model.h"
#include "report/method_stats.h"
#include "report/json.h"
#include "trace/heap_codec.h"
#include "trace/format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

const char *rp_suspend_reason(uint32_t reason)
{
    switch (reason) {
    case 0: return "other";
    case 1: return "gc";
    case 2: return "appdomain_shutdown";
    case 3: return "code_pitching";
    case 4: return "shutdown";
    case 6: return "inproc_debugger";
    case 7: return "gc_prep";
    case 8: return "rejit";
    case 9: return "profiler";
    default: return "unknown";
    }
}

const char *rp_exception_outcome(uint32_t outcome)
{
    switch (outcome) {
    case EXC_OUTCOME_UNHANDLED: return "unhandled";
    case EXC_OUTCOME_NATIVE: return "native";
    case EXC_OUTCOME_FILTER: return "filter";
    case EXC_OUTCOME_SUPERSEDED: return "superseded";
    default: return "unknown";
    }
}

/* "[0,1,2]" for a generation mask. */
static void gens_json(uint32_t mask, char *buf, size_t len)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, len, "[");
    for (int g = 0; g < 5; g++)
        if (mask & (1u << g))
            used += (size_t)snprintf(buf + used, len - used, "%s%d", used > 1 ? "," : "", g);
    snprintf(buf + used, len - used, "]");
}

/* The fields of a module_load or module_unload that both have. */
/* A gc_start's or gc_end's generation sizes, when the agent had them. */
static void gc_sizes(json_obj *o, uint64_t gen0, uint64_t gen1, uint64_t gen2, uint64_t loh, uint64_t poh)
{
    uint64_t b[RP_GC_GENS] = { gen0, gen1, gen2, loh, poh };

    if (!rp_gc_sizes_known(b))
        return;
    json_u64(o, "gen0_bytes", gen0);
    json_u64(o, "gen1_bytes", gen1);
    json_u64(o, "gen2_bytes", gen2);
    json_u64(o, "loh_bytes", loh);
    json_u64(o, "poh_bytes", poh);
}

static void module_fields(json_obj *o, uint64_t id, const char *path, uint32_t flags)
{
    json_hex(o, "id", id);
    json_str(o, "path", path);
    json_bool(o, "dynamic", (flags & TRACE_MODULE_DYNAMIC) != 0);
    json_bool(o, "collectible", (flags & TRACE_MODULE_COLLECTIBLE) != 0);
}

static void thread_fields(json_obj *o, const rp_trace *tr, const rp_event *e)
{
    json_hex(o, "thread", rp_thread_id(e));
    if (e->thread >= 0) {
        const rp_thread *th = &tr->threads[e->thread];
        json_u64(o, "os_tid", th->os_tid);
        json_str(o, "name", th->name);
        json_str(o, "os_name", th->os_name);
    }
}

/* A FunctionID by the names in force (fnames: FunctionID -> the record
 * naming it): 0 is "[native code]", an ID never named "[unknown]". */
static const char *function_named(const rp_trace *tr, const idmap *fnames, uint64_t fid)
{
    uint64_t v, id;

    if (fid == 0)
        return "[native code]";
    if (idmap_get(fnames, fid, &v))
        return rp_function_name(&tr->ev[v], &id);
    return "[unknown]";
}

/* ,"KEY":[...]: a stack's FunctionIDs (leaf first) by name. */
static void stack_json(FILE *out, const rp_trace *tr, const idmap *fnames, const char *key, const uint64_t *frames,
                       uint32_t n)
{
    fprintf(out, ",\"%s\":[", key);
    for (uint32_t k = 0; k < n; k++) {
        if (k)
            putc(',', out);
        json_string(out, function_named(tr, fnames, frames[k]));
    }
    putc(']', out);
}

static void frames_json(FILE *out, const rp_trace *tr, const idmap *fnames, const uint64_t *frames, uint32_t n)
{
    stack_json(out, tr, fnames, "frames", frames, n);
}

/* ,"il":[...]: a stack's IL offsets (null: not known; "prolog", "epilog"),
 * when the record has one per frame. */
static void il_json(FILE *out, const uint32_t *il, uint32_t nil, uint32_t nframes)
{
    if (!il || nil != nframes || !nil)
        return;
    fputs(",\"il\":[", out);
    for (uint32_t k = 0; k < nil; k++) {
        if (k)
            putc(',', out);
        if (il[k] == TRACE_IL_NONE)
            fputs("null", out);
        else if (il[k] == TRACE_IL_PROLOG)
            fputs("\"prolog\"", out);
        else if (il[k] == TRACE_IL_EPILOG)
            fputs("\"epilog\"", out);
        else
            fprintf(out, "%u", il[k]);
    }
    putc(']', out);
}

/* The passes of an exception's processing (exception_handled/_unhandled). */
static void passes_json(FILE *out, uint32_t search, uint32_t filters, uint32_t unwound, uint32_t finallys)
{
    fprintf(out, ",\"passes\":{\"search_frames\":%u,\"filters\":%u,\"unwound_frames\":%u,\"finallys\":%u}",
            search, filters, unwound, finallys);
}

static const char *alloc_method_name(uint32_t method)
{
    switch (method) {
    case ALLOC_METHOD_SAMPLED: return "sampled";
    case ALLOC_METHOD_TICK: return "tick";
    case ALLOC_METHOD_EXACT: return "exact";
    default: return "unknown";
    }
}

/* x (>= 0) as a JSON number with at most three decimals, no trailing
 * zeros: "12", "1.582". */
static const char *decimal(double x, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%.3f", x);
    while (n > 1 && n < len && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 1 && n < len && buf[n - 1] == '.')
        buf[--n] = '\0';
    return buf;
}

static const char *heap_method_name(uint32_t method)
{
    switch (method) {
    case HEAP_METHOD_GC_ROOTS: return "gc_roots";
    case HEAP_METHOD_ENUMERATE: return "enumerate";
    default: return "unknown";
    }
}

/* A heap snapshot: one heap_snapshot line, then one heap_type line per
 * type, by retained bytes (docs/jsonl.md). */
static void heap_snapshot_lines(rp_heap *h, rp_heap_snapshot *s, FILE *out)
{
    json_obj o;
    int analysed = rp_heap_analyse(h, s) == 0;

    json_begin(&o, out);
    json_str(&o, "kind", "heap_snapshot");
    json_u64(&o, "t", s->complete ? s->t_end : s->t_begin);
    json_u64(&o, "snapshot", s->index);
    json_u64(&o, "objects", s->nobjects);
    json_u64(&o, "bytes", s->total_bytes);
    json_u64(&o, "roots", s->nroots);
    json_str(&o, "method", heap_method_name(s->method));
    json_bool(&o, "complete", s->complete && s->status == 0);
    json_u64(&o, "pause_ns", s->pause_ns);
    json_bool(&o, "roots_approximate", (s->end_flags & HEAP_END_ROOTS_APPROXIMATE) != 0);
    json_bool(&o, "walk_stopped", (s->end_flags & HEAP_END_WALK_STOPPED) != 0);
    json_u64(&o, "frozen", s->frozen);
    json_bool(&o, "identity", rp_heap_identity(s));
    if (rp_heap_identity(s))
        json_u64(&o, "seen", s->seen);
    if (analysed)
        json_u64(&o, "unrooted", s->unrooted);
    json_u64(&o, "dropped_references", s->dropped_refs);
    if (s->unnamed_types)
        json_u64(&o, "unnamed_type_objects", s->unnamed_types);
    json_end(&o);
    if (!analysed)
        return;
    {
        rp_heap_root_group *g = NULL;
        size_t ng = 0;
        if (rp_heap_root_groups(h, s, &g, &ng) == 0)
            for (size_t i = 0; i < ng; i++) {
                json_begin(&o, out);
                json_str(&o, "kind", "heap_root");
                json_u64(&o, "snapshot", s->index);
                json_str(&o, "root", g[i].desc);
                json_u64(&o, "roots", g[i].roots);
                json_u64(&o, "objects", g[i].objects);
                json_u64(&o, "held_bytes", g[i].held);
                json_u64(&o, "retained_bytes", g[i].retained);
                json_end(&o);
            }
        free(g);
    }
    for (size_t i = 0; i < s->ntypes; i++) {
        const rp_heap_type_stat *t = &s->types[i];
        json_begin(&o, out);
        json_str(&o, "kind", "heap_type");
        json_u64(&o, "snapshot", s->index);
        json_str(&o, "type", rp_heap_type_name(h, t->type));
        json_u64(&o, "count", t->count);
        json_u64(&o, "shallow_bytes", t->shallow);
        json_u64(&o, "retained_bytes", t->retained);
        json_end(&o);
    }
}

static const char *trace_how_name(uint32_t how)
{
    switch (how) {
    case TRACE_HOW_HOOKS: return "hooks";
    case TRACE_HOW_IL: return "il";
    default: return "none";
    }
}

static void method_stats_line(const rp_mstat *s, int merged, uint64_t t, FILE *out)
{
    json_obj o;

    json_begin(&o, out);
    json_str(&o, "kind", "method_stats");
    json_u64(&o, "t", t);
    json_str(&o, "function", s->name);
    json_hex(&o, "id", s->function);
    if (merged) {
        json_str(&o, "thread", "all");
        json_u64(&o, "threads", s->threads);
    } else {
        json_hex(&o, "thread", s->thread);
        json_u64(&o, "os_tid", s->os_tid);
    }
    json_u64(&o, "calls", s->calls);
    json_u64(&o, "exceptions", s->exceptions);
    json_u64(&o, "total_ns", s->total_ns);
    json_u64(&o, "self_ns", s->self_ns);
    json_u64(&o, "p50_ns", s->p50_ns);
    json_u64(&o, "p90_ns", s->p90_ns);
    json_u64(&o, "p99_ns", s->p99_ns);
    json_u64(&o, "max_ns", s->max_ns);
    json_end(&o);
}

/* The traced methods' final figures: one line per thread and method, then
 * one per method for all threads ("thread":"all"). */
static void method_stats_lines(const rp_trace *tr, FILE *out)
{
    rp_mstats m;

    if (rp_mstats_build(tr, &m) < 0)
        return;
    for (size_t i = 0; i < m.nper_thread; i++)
        method_stats_line(&m.per_thread[i], 0, tr->end_t, out);
    for (size_t i = 0; i < m.nmerged; i++)
        method_stats_line(&m.merged[i], 1, tr->end_t, out);
    rp_mstats_free(&m);
}

int rp_write_jsonl(const rp_trace *tr, FILE *out)
{
    rp_heap heap;
    int have_heap = rp_heap_build(tr, &heap) == 0;
    idmap fnames;                 /* FunctionID -> index of the record naming it */
    json_obj o;
    char gens[32];
    uint64_t gc_start_t = 0;
    int in_gc = 0, stats_done = 0;

    json_begin(&o, out);
    json_str(&o, "kind", "trace");
    json_u64(&o, "t", 0);
    json_u64(&o, "tid", 0);
    json_u64(&o, "format_version", tr->file.version);
    json_u64(&o, "pid", tr->file.pid);
    json_str(&o, "runtime_version", tr->file.runtime_version);
    json_str(&o, "command_line", tr->file.command_line);
    json_u64(&o, "start_unix_ns", tr->file.start_realtime_ns);
    json_bool(&o, "attached", (tr->file.flags & TRACE_FLAG_ATTACHED) != 0);
    if (tr->file.flags & TRACE_FLAG_NOTIFICATION) {   /* (only when set: traces of the main role read as before) */
        json_bool(&o, "notification", 1);
        if (rp_main_profiler(tr)[0])
            json_str(&o, "main_profiler", rp_main_profiler(tr));
    }
    json_bool(&o, "complete", tr->complete);
    json_u64(&o, "corrupt_chunks", tr->scan.corrupt_chunks);
    json_u64(&o, "malformed_records", tr->bad_records);
    json_bool(&o, "truncated", tr->scan.truncated || !tr->complete);
    json_u64(&o, "events", tr->nev);
    json_end(&o);
    idmap_init(&fnames);

    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        if ((e->kind == TK_THREAD_OS && e->thread < 0) || e->dropped)
            continue;
        /* heap snapshots: their records make heap_snapshot and heap_type lines */
        if (e->kind == TK_HEAP_BEGIN || e->kind == TK_HEAP_TYPE || e->kind == TK_HEAP_ROOT_NAME || e->kind == TK_HEAP_FRAME_NAME ||
            e->kind == TK_HEAP_FIELD ||
            e->kind == TK_HEAP_OBJECTS || e->kind == TK_HEAP_ROOTS)
            continue;
        if (e->kind == TK_METHOD_STATS)   /* cumulative: the last of each pair, at the end */
            continue;
        if (e->kind == TK_TRACE_END && !stats_done) {
            method_stats_lines(tr, out);    /* (before the end: it stays the last line) */
            stats_done = 1;
        }
        if (e->kind == TK_HEAP_END) {
            for (size_t k = 0; have_heap && k < heap.nsnap; k++)
                if (heap.snap[k].index == e->heap_end.snapshot && heap.snap[k].t_end == e->t)
                    heap_snapshot_lines(&heap, &heap.snap[k], out);
            continue;
        }
        json_begin(&o, out);
        json_str(&o, "kind", rp_kind_name(e->kind));
        json_u64(&o, "t", e->t);
        json_u64(&o, "tid", e->tid);
        if (e->catchup)
            json_bool(&o, "catchup", 1);
        switch (e->kind) {
        case TK_RUNTIME_START: {
            const rec_runtime_start *r = &e->runtime_start;
            json_str(&o, "version", r->version);
            json_str(&o, "runtime", r->runtime_type == 2 ? "CoreCLR" : r->runtime_type == 1 ? "Desktop CLR" : "unknown");
            json_u64(&o, "instance", r->clr_instance);
            if (r->main_profiler[0])
                json_str(&o, "main_profiler", r->main_profiler);
            break;
        }
        case TK_APPDOMAIN_CREATE:
            json_hex(&o, "id", e->appdomain_create.id);
            json_str(&o, "name", e->appdomain_create.name);
            break;
        case TK_APPDOMAIN_SHUTDOWN:
            json_hex(&o, "id", e->appdomain_shutdown.id);
            break;
        case TK_ASSEMBLY_LOAD:
            json_hex(&o, "id", e->assembly_load.id);
            json_str(&o, "name", e->assembly_load.name);
            json_str(&o, "version", e->assembly_load.version);
            json_hex(&o, "module", e->assembly_load.module);
            json_hex(&o, "appdomain", e->assembly_load.appdomain);
            break;
        case TK_ASSEMBLY_UNLOAD:
            json_hex(&o, "id", e->assembly_unload.id);
            json_str(&o, "name", e->assembly_unload.name);
            json_str(&o, "version", e->assembly_unload.version);
            break;
        case TK_MODULE_LOAD:
            module_fields(&o, e->module_load.id, e->module_load.path, e->module_load.flags);
            json_hex(&o, "assembly", e->module_load.assembly);
            json_u64(&o, "flags", e->module_load.flags);
            if (e->module_load.hr)
                json_hex(&o, "hr", e->module_load.hr);
            break;
        case TK_MODULE_UNLOAD:
            module_fields(&o, e->module_unload.id, e->module_unload.path, e->module_unload.flags);
            break;
        case TK_CLASS_LOAD:
            json_hex(&o, "id", e->class_load.id);
            json_str(&o, "name", e->class_load.name);
            json_hex(&o, "module_id", e->class_load.module);
            json_str(&o, "module", e->class_load.module_name);
            break;
        case TK_CLASS_UNLOAD:
            json_hex(&o, "id", e->class_unload.id);
            json_str(&o, "name", e->class_unload.name);
            break;
        case TK_JIT:
            json_str(&o, "function", e->jit.name);
            json_str(&o, "module", e->jit.module_name);
            json_u64(&o, "duration_ns", e->jit.duration_ns);
            json_hex(&o, "id", e->jit.function);
            json_hex(&o, "module_id", e->jit.module);
            if (e->jit.hr)
                json_hex(&o, "hr", e->jit.hr);
            break;
        case TK_PRECOMPILED:
            json_str(&o, "function", e->precompiled.name);
            json_str(&o, "module", e->precompiled.module_name);
            json_hex(&o, "id", e->precompiled.function);
            json_hex(&o, "module_id", e->precompiled.module);
            break;
        case TK_THREAD_CREATE:
        case TK_THREAD_DESTROY:
        case TK_THREAD_OS:
            thread_fields(&o, tr, e);
            break;
        case TK_THREAD_NAME:               /* the name given at this point */
            json_hex(&o, "thread", e->thread_name.thread);
            if (e->thread >= 0)
                json_u64(&o, "os_tid", tr->threads[e->thread].os_tid);
            json_str(&o, "name", e->thread_name.name);
            break;
        case TK_GC_START:
            gens_json(e->gc_start.generations, gens, sizeof(gens));
            json_raw(&o, "generations", gens);
            json_str(&o, "reason", e->gc_start.reason == 1 ? "induced" : "other");
            gc_sizes(&o, e->gc_start.gen0_bytes, e->gc_start.gen1_bytes, e->gc_start.gen2_bytes,
                     e->gc_start.loh_bytes, e->gc_start.poh_bytes);
            in_gc = 1;
            gc_start_t = e->t;
            break;
        case TK_GC_END:
            if (in_gc)
                json_u64(&o, "duration_ns", e->t - gc_start_t);
            in_gc = 0;
            gc_sizes(&o, e->gc_end.gen0_bytes, e->gc_end.gen1_bytes, e->gc_end.gen2_bytes, e->gc_end.loh_bytes,
                     e->gc_end.poh_bytes);
            break;
        case TK_SUSPEND:
            json_str(&o, "reason", rp_suspend_reason(e->suspend.reason));
            json_u64(&o, "duration_ns", e->suspend.duration_ns);
            break;
        case TK_EXCEPTION_THROWN: {
            const rec_exception_thrown *r = &e->exception_thrown;
            json_str(&o, "type", r->type);
            if (r->exception) {              /* (an agent that follows exceptions through: exceptions.h) */
                json_u64(&o, "exception", r->exception);
                json_str(&o, "message", r->message);
                json_u64(&o, "depth", r->depth);
                if (r->parent)
                    json_u64(&o, "parent", r->parent);
                if (r->rethrow_of)
                    json_u64(&o, "rethrow_of", r->rethrow_of);
                if (r->nstack) {
                    stack_json(out, tr, &fnames, "stack", r->stack, r->nstack);
                    il_json(out, r->il, r->nil, r->nstack);
                }
            }
            break;
        }
        case TK_EXCEPTION_HANDLED: {
            const rec_exception_handled *r = &e->exception_handled;
            json_u64(&o, "exception", r->exception);
            json_str(&o, "thrower", function_named(tr, &fnames, r->thrower));
            json_str(&o, "catcher", function_named(tr, &fnames, r->catcher));
            if (r->il_offset != EXC_IL_UNKNOWN)
                json_u64(&o, "il_offset", r->il_offset);
            json_u64(&o, "duration_ns", r->duration_ns);
            passes_json(out, r->search_frames, r->filters, r->unwound_frames, r->finallys);
            if (r->escaped_by)
                json_u64(&o, "escaped_by", r->escaped_by);
            break;
        }
        case TK_EXCEPTION_UNHANDLED: {
            const rec_exception_unhandled *r = &e->exception_unhandled;
            json_u64(&o, "exception", r->exception);
            json_str(&o, "thrower", function_named(tr, &fnames, r->thrower));
            json_str(&o, "outcome", rp_exception_outcome(r->outcome));
            json_u64(&o, "duration_ns", r->duration_ns);
            passes_json(out, r->search_frames, r->filters, r->unwound_frames, r->finallys);
            if (r->by)
                json_u64(&o, "by", r->by);
            break;
        }
        case TK_EXCEPTION_CATCH:
            json_str(&o, "type", e->exception_catch.type);
            json_str(&o, "function", e->exception_catch.function_name);
            break;
        case TK_NOTE:
            json_str(&o, "text", e->note.text);
            break;
        case TK_SAMPLER_START:
            json_str(&o, "engine", e->sampler_start.engine == SAMPLER_ENGINE_SIGNAL ? "signal" : "suspend");
            if (e->sampler_start.engine == SAMPLER_ENGINE_SIGNAL)
                json_str(&o, "clock", rp_clock_name((unsigned)e->sampler_start.clock));
            if (e->sampler_start.flags & SAMPLER_FLAG_USER_ONLY)
                json_bool(&o, "user_time_only", 1);
            json_str(&o, "why", e->sampler_start.why);
            break;
        case TK_FUNC_NAME:
            json_hex(&o, "id", e->function_name.function);
            json_hex(&o, "module_id", e->function_name.module);
            json_str(&o, "name", e->function_name.name);
            if (e->function_name.token)
                json_u64(&o, "token", e->function_name.token);
            break;
        case TK_SAMPLE: {
            const rec_sample *r = &e->sample;
            json_hex(&o, "thread", r->thread);
            json_u64(&o, "os_tid", r->os_tid);
            json_u64(&o, "cpu_ns", r->cpu_ns);
            if (r->flags & (SAMPLE_FLAG_CPU_TIMER | SAMPLE_FLAG_WALL)) {    /* the signal engine's */
                json_str(&o, "engine", "signal");
                json_str(&o, "clock", r->flags & SAMPLE_FLAG_WALL ? "wall" : "cpu");
                if (r->flags & SAMPLE_FLAG_WALL)
                    json_str(&o, "state", r->flags & SAMPLE_FLAG_WAITING ? "waiting" : "running");
                if (r->flags & SAMPLE_FLAG_TRUNCATED)
                    json_raw(&o, "truncated", "true");
            }
            frames_json(out, tr, &fnames, r->frames, r->nframes);
            il_json(out, r->il, r->nil, r->nframes);
            break;
        }
        case TK_ALLOC_SAMPLE: {
            const rec_alloc_sample *r = &e->alloc_sample;
            double bytes, objects;
            char num[48];
            rp_alloc_estimate(r, &bytes, &objects);
            json_hex(&o, "thread", r->thread);
            json_u64(&o, "os_tid", r->os_tid);
            json_str(&o, "method", alloc_method_name(r->method));
            json_str(&o, "type", r->type);
            json_hex(&o, "class_id", r->class_id);
            json_u64(&o, "size", r->size);
            json_u64(&o, "count", r->count);
            json_u64(&o, "amount", r->amount);
            json_u64(&o, "id", r->id);
            json_raw(&o, "bytes", decimal(bytes, num, sizeof(num)));
            json_raw(&o, "objects", decimal(objects, num, sizeof(num)));
            frames_json(out, tr, &fnames, r->frames, r->nframes);
            il_json(out, r->il, r->nil, r->nframes);
            break;
        }
        case TK_LIVE_GC:
            json_u64(&o, "gc", e->live_gc.gc);
            json_u64(&o, "alive", e->live_gc.alive);
            json_bool(&o, "more", e->live_gc.more != 0);
            fputs(",\"dead\":[", out);
            for (uint32_t k = 0; k < e->live_gc.ndead; k++)
                fprintf(out, k ? ",%" PRIu64 : "%" PRIu64, e->live_gc.dead[k]);
            putc(']', out);
            break;
        case TK_CONTENTION: {
            const rec_contention *r = &e->contention;
            json_hex(&o, "thread", r->thread);
            json_u64(&o, "os_tid", r->os_tid);
            json_u64(&o, "duration_ns", r->duration_ns);
            json_str(&o, "lock", r->flags & 1 ? "native" : "managed");
            json_str(&o, "type", r->type);
            json_hex(&o, "lock_id", r->lock_id);
            json_hex(&o, "owner_thread", r->owner_thread);
            frames_json(out, tr, &fnames, r->frames, r->nframes);
            il_json(out, r->il, r->nil, r->nframes);
            break;
        }
        case TK_SAMPLER_TICK:
            json_u64(&o, "suspend_ns", e->sampler_tick.suspend_ns);
            json_u64(&o, "sampler_cpu_ns", e->sampler_tick.sampler_cpu_ns);
            json_u64(&o, "threads", e->sampler_tick.threads);
            json_u64(&o, "failed", e->sampler_tick.failed);
            if (e->sampler_tick.period_ns)
                json_u64(&o, "period_ns", e->sampler_tick.period_ns);
            if (e->sampler_tick.engine == SAMPLER_ENGINE_SIGNAL) {
                json_str(&o, "engine", "signal");
                json_str(&o, "clock", rp_clock_name((unsigned)e->sampler_tick.clock));
                json_u64(&o, "interval_ns", e->sampler_tick.interval_ns);
                json_u64(&o, "signals", e->sampler_tick.signals);
                json_u64(&o, "periods", e->sampler_tick.periods);
                json_u64(&o, "thread_cpu_ns", e->sampler_tick.thread_cpu_ns);
                json_u64(&o, "handler_ns", e->sampler_tick.handler_ns);
                if (e->sampler_tick.wall_period_ns)
                    json_u64(&o, "wall_period_ns", e->sampler_tick.wall_period_ns);
            }
            break;
        case TK_PROCESS_CPU:
            json_u64(&o, "cpu_ns", e->process_cpu.cpu_ns);
            json_u64(&o, "threads", e->process_cpu.threads);
            break;
        case TK_TRACED_METHOD:
            json_str(&o, "function", e->traced_method.name);
            json_hex(&o, "id", e->traced_method.function);
            json_hex(&o, "module_id", e->traced_method.module);
            json_str(&o, "how", trace_how_name(e->traced_method.how));
            json_u64(&o, "pattern", e->traced_method.pattern);
            if (e->traced_method.how == TRACE_HOW_NONE)
                json_str(&o, "reason", e->traced_method.reason);
            break;
        case TK_CALL: {
            uint64_t v, id;
            json_str(&o, "function", idmap_get(&fnames, e->call.function, &v) ?
                     rp_function_name(&tr->ev[v], &id) : "[unknown]");
            json_hex(&o, "thread", e->call.thread);
            json_u64(&o, "os_tid", e->call.os_tid);
            json_u64(&o, "duration_ns", e->call.duration_ns);
            json_u64(&o, "depth", e->call.depth);
            json_bool(&o, "exception", (e->call.flags & CALL_FLAG_EXCEPTION) != 0);
            break;
        }
        case TK_ATTACH:
            json_u64(&o, "modules", e->attach.modules);
            json_u64(&o, "assemblies", e->attach.assemblies);
            json_u64(&o, "threads", e->attach.threads);
            json_u64(&o, "functions", e->attach.functions);
            json_u64(&o, "duration_ns", e->attach.catchup_ns);
            break;
        default:
            break;
        }
        json_end(&o);
        {
            uint64_t function;
            const char *name = rp_function_name(e, &function);
            if (name && name[0])
                idmap_put(&fnames, function, i);
        }
    }
    if (!stats_done)
        method_stats_lines(tr, out);
    for (size_t k = 0; have_heap && k < heap.nsnap; k++)
        if (!heap.snap[k].complete)                 /* cut short: what it has */
            heap_snapshot_lines(&heap, &heap.snap[k], out);
    if (have_heap)
        rp_heap_free(&heap);
    idmap_free(&fnames);
    return ferror(out) ? -1 : 0;
}
