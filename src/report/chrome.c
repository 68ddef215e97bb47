/* chrome.c - the trace as one timeline in the Trace Event Format (JSON),
 * for Perfetto's UI (ui.perfetto.dev, "Open trace file"), chrome://tracing
 * and the Performance panel of Chrome DevTools: one lane per thread, named
 * as the other reports name it ("NAME (TID)"), holding
 *
 *   - CPU samples as slices of the sampled leaf function (consecutive
 *     samples of one leaf merged; each covers the CPU it measured, at most
 *     one sampling period, ending when it was taken),
 *   - JIT compilations, exceptions (from the throw to the end of their
 *     handling: nested ones inside), traced calls (--trace-calls), heap
 *     snapshots and GCs (on the thread that recorded them),
 *   - runtime suspensions, on every managed thread they stopped;
 *
 * and process-wide counters: the heap per generation at each GC's start and
 * end, and CPU samples per second.  Times are microseconds since the trace
 * started.  Slices on one lane must nest (a consumer drops one that
 * crosses its parent's end), so each lane is put in order: a sample gives
 * way to the runtime's events (it ends where one begins, or within it), and
 * a runtime event that would cross another's end (a suspension while the
 * thread compiles in preemptive mode) ends with it, marked "clipped"; an
 * exception whose catch or finally a nested one escaped ends where that one
 * was thrown (which then follows it, not inside it).  A slice cut short
 * ends 1 ns before what cut it: consumers that add durations in floating
 * point (DevTools) would otherwise see touching slices overlap.
 * docs/timeline.md says what each slice means. */
#include "report/formats.h"
#include "report/json.h"
#include "common/idmap.h"
#include "trace/format.h"
#include "report/sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { P_RUNTIME = 0, P_SAMPLE = 1 };     /* who gives way when slices cross: samples */
enum slice_kind { S_SAMPLE, S_JIT, S_EXCEPTION, S_GC, S_SUSPEND, S_HEAP, S_CALL };

typedef struct slice {
    uint32_t tid;
    uint8_t prio, kind, clipped, dropped;
    uint64_t t0, t1;
    const char *name;
    const rp_event *ev;            /* the record it comes from (its args) */
    const rp_event *end;           /* exceptions: the record that ended it (NULL: still open) */
    uint32_t samples;              /* merged CPU samples */
} slice;

typedef struct timeline {
    const rp_trace *tr;
    slice *s;
    size_t n, cap;
    idmap names;                   /* FunctionID -> the event naming it (the names in force) */
    idmap lanes;                   /* OS tid -> 1 + index of its label (labels) */
    char **labels;
    uint32_t *label_tids;
    size_t nlabels, lcap;
    char **owned;                  /* names made here ("JIT ...", "GC gen2") */
    size_t nowned, ocap;
} timeline;

static slice *add(timeline *tl, uint32_t tid, int prio, int kind, uint64_t t0, uint64_t t1, const char *name,
                  const rp_event *ev)
{
    if (tl->n == tl->cap) {
        size_t c = tl->cap ? tl->cap * 2 : 1024;
        slice *ns = realloc(tl->s, c * sizeof(*ns));
        if (!ns)
            return NULL;
        tl->s = ns;
        tl->cap = c;
    }
    tl->s[tl->n] = (slice){ .tid = tid, .prio = (uint8_t)prio, .kind = (uint8_t)kind, .t0 = t0, .t1 = t1,
                            .name = name, .ev = ev };
    return &tl->s[tl->n++];
}

static const char *own(timeline *tl, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s;

    if (tl->nowned == tl->ocap) {
        size_t c = tl->ocap ? tl->ocap * 2 : 64;
        char **n = realloc(tl->owned, c * sizeof(*n));
        if (!n)
            return NULL;
        tl->owned = n;
        tl->ocap = c;
    }
    if ((s = malloc(la + lb + 1)) == NULL)
        return NULL;
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
    tl->owned[tl->nowned++] = s;
    return s;
}

static const char *fname(const timeline *tl, uint64_t fid)
{
    uint64_t v, id;
    if (fid == 0)
        return "[native code]";
    if (!idmap_get(&tl->names, fid, &v))
        return "[unknown]";
    return rp_function_name(&tl->tr->ev[v], &id);
}

/* The lane of an OS thread: its label made at first sight. */
static int lane(timeline *tl, uint32_t tid)
{
    uint64_t v;
    char buf[600];
    const char *name = "";

    if (idmap_get(&tl->lanes, tid, &v))
        return 0;
    for (size_t i = 0; i < tl->tr->nthreads; i++)
        if (tl->tr->threads[i].os_tid == tid) {
            const rp_thread *th = &tl->tr->threads[i];
            name = th->name[0] ? th->name : th->os_name;
        }
    if (name[0])
        snprintf(buf, sizeof(buf), "%s (%" PRIu32 ")", name, tid);
    else
        snprintf(buf, sizeof(buf), "thread %" PRIu32, tid);
    if (tl->nlabels == tl->lcap) {
        size_t c = tl->lcap ? tl->lcap * 2 : 32;
        char **nl = realloc(tl->labels, c * sizeof(*nl));
        uint32_t *nt = realloc(tl->label_tids, c * sizeof(*nt));
        if (nl)
            tl->labels = nl;
        if (nt)
            tl->label_tids = nt;
        if (!nl || !nt)
            return -1;
        tl->lcap = c;
    }
    if ((tl->labels[tl->nlabels] = strdup(buf)) == NULL)
        return -1;
    tl->label_tids[tl->nlabels] = tid;
    tl->nlabels++;
    return idmap_put(&tl->lanes, tid, tl->nlabels);
}

/* ---- gathering ---- */

/* A CPU sample (not a wall one, nor the suspend engine's of a thread that
 * was waiting: the CPU view's rule, profile.c). */
static int cpu_sample(const rec_sample *r, uint64_t period)
{
    return !(r->flags & SAMPLE_FLAG_WALL) && ((r->flags & SAMPLE_FLAG_CPU_TIMER) || r->cpu_ns >= period / 4);
}

static const char *gc_name(timeline *tl, const rec_gc_start *g)
{
    char buf[64];
    int gen = g->generations & 4 ? 2 : g->generations & 2 ? 1 : 0;
    if (g->generations & 0x18)
        gen = 2;
    snprintf(buf, sizeof(buf), "GC gen%d%s", gen, g->reason == 1 ? " (induced)" : "");
    return own(tl, buf, "");
}

/* The managed threads alive at t (created before it, not destroyed), on lanes. */
static int suspended_lanes(timeline *tl, const rp_event *e, uint64_t t0)
{
    char name[96];
    const char *n;

    snprintf(name, sizeof(name), "runtime suspended (%s)", rp_suspend_reason(e->suspend.reason));
    if ((n = own(tl, name, "")) == NULL)
        return -1;
    for (size_t i = 0; i < tl->tr->nthreads; i++) {
        const rp_thread *th = &tl->tr->threads[i];
        if (!th->os_tid || th->os_tid == e->tid || th->created_t > t0 || (th->destroyed && th->destroyed_t < e->t))
            continue;
        if (lane(tl, th->os_tid) < 0 || !add(tl, th->os_tid, P_RUNTIME, S_SUSPEND, t0, e->t, n, e))
            return -1;
    }
    return 0;
}

static int gather(timeline *tl, uint64_t *period)
{
    const rp_trace *tr = tl->tr;
    idmap open_exc;                /* exception id -> index of its slice + 1 */
    const rp_event *gc = NULL, *heap = NULL;
    idmap sample_end;              /* OS tid -> the end of its last sample slice */
    idmap last_sample;             /* OS tid -> index of its last sample slice + 1 */
    int rc = -1;

    idmap_init(&open_exc);
    idmap_init(&sample_end);
    idmap_init(&last_sample);
    *period = 10000000;
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        uint64_t fid, v;
        slice *s;

        switch (e->kind) {
        case TK_FUNC_NAME:
        case TK_JIT:
        case TK_PRECOMPILED:
            if (rp_function_name(e, &fid)[0] && idmap_put(&tl->names, fid, i) < 0)
                goto out;
            if (e->kind == TK_JIT && e->jit.duration_ns && !e->catchup) {
                const char *n = own(tl, "JIT ", e->jit.name);
                if (!n || lane(tl, e->tid) < 0 ||
                    !add(tl, e->tid, P_RUNTIME, S_JIT, e->t - e->jit.duration_ns, e->t, n, e))
                    goto out;
            }
            break;
        case TK_SAMPLER_TICK:
            if (e->sampler_tick.period_ns)
                *period = e->sampler_tick.period_ns;
            break;
        case TK_SAMPLE: {
            const rec_sample *r = &e->sample;
            uint64_t d, t0, prev = 0;
            if (!cpu_sample(r, *period) || !r->nframes)
                break;
            d = r->cpu_ns && r->cpu_ns < *period ? r->cpu_ns : *period;
            t0 = e->t > d ? e->t - d : 0;
            idmap_get(&sample_end, r->os_tid, &prev);
            if (prev && t0 <= prev)
                t0 = prev + 1;             /* (a thread's samples never overlap, nor touch) */
            if (t0 >= e->t)
                break;
            if (lane(tl, r->os_tid) < 0)
                goto out;
            /* the same leaf as the thread's last sample, right after it: one slice */
            if (prev && t0 - prev <= *period / 2 && idmap_get(&last_sample, r->os_tid, &v) && v &&
                tl->s[v - 1].t1 == prev && strcmp(tl->s[v - 1].name, fname(tl, r->frames[0])) == 0) {
                tl->s[v - 1].t1 = e->t;
                tl->s[v - 1].samples++;
            } else {
                if ((s = add(tl, r->os_tid, P_SAMPLE, S_SAMPLE, t0, e->t, fname(tl, r->frames[0]), e)) == NULL)
                    goto out;
                s->samples = 1;
                if (idmap_put(&last_sample, r->os_tid, tl->n) < 0)
                    goto out;
            }
            if (idmap_put(&sample_end, r->os_tid, e->t) < 0)
                goto out;
            break;
        }
        case TK_EXCEPTION_THROWN: {
            const rec_exception_thrown *r = &e->exception_thrown;
            const char *n = own(tl, "Exception: ", r->type);
            if (!n || lane(tl, e->tid) < 0 || (s = add(tl, e->tid, P_RUNTIME, S_EXCEPTION, e->t, e->t, n, e)) == NULL)
                goto out;
            if (r->exception && idmap_put(&open_exc, r->exception, tl->n) < 0)
                goto out;
            break;
        }
        case TK_EXCEPTION_HANDLED:
        case TK_EXCEPTION_UNHANDLED: {
            uint64_t id = e->kind == TK_EXCEPTION_HANDLED ? e->exception_handled.exception
                                                          : e->exception_unhandled.exception;
            uint64_t by = e->kind == TK_EXCEPTION_HANDLED ? e->exception_handled.escaped_by
                                                          : e->exception_unhandled.by;
            uint64_t w;
            if (idmap_get(&open_exc, id, &v) && v) {
                tl->s[v - 1].t1 = e->t;
                tl->s[v - 1].end = e;
                /* left by a nested exception: it ends where that one was thrown */
                if (by && idmap_get(&open_exc, by, &w) && w && tl->s[w - 1].t0 > tl->s[v - 1].t0) {
                    tl->s[v - 1].t1 = tl->s[w - 1].t0 - 1;
                    tl->s[v - 1].clipped = 2;
                }
                idmap_put(&open_exc, id, 0);
            }
            break;
        }
        case TK_GC_START:
            gc = e;
            break;
        case TK_GC_END:
            if (gc) {
                const char *n = gc_name(tl, &gc->gc_start);
                if (!n || lane(tl, gc->tid) < 0 || !add(tl, gc->tid, P_RUNTIME, S_GC, gc->t, e->t, n, gc))
                    goto out;
            }
            gc = NULL;
            break;
        case TK_SUSPEND:
            if (suspended_lanes(tl, e, e->t > e->suspend.duration_ns ? e->t - e->suspend.duration_ns : 0) < 0)
                goto out;
            break;
        case TK_HEAP_BEGIN:
            heap = e;
            break;
        case TK_HEAP_END:
            if (heap) {
                if (lane(tl, heap->tid) < 0 || !add(tl, heap->tid, P_RUNTIME, S_HEAP, heap->t, e->t, "heap snapshot", e))
                    goto out;
            }
            heap = NULL;
            break;
        case TK_CALL: {
            const rec_call *r = &e->call;
            if (lane(tl, r->os_tid) < 0 ||
                !add(tl, r->os_tid, P_RUNTIME, S_CALL, e->t, e->t + r->duration_ns, fname(tl, r->function), e))
                goto out;
            break;
        }
        default:
            break;
        }
    }
    rc = 0;
out:
    idmap_free(&open_exc);
    idmap_free(&sample_end);
    idmap_free(&last_sample);
    return rc;
}

/* ---- nesting ---- */

static int by_lane(const void *x, const void *y)
{
    const slice *a = x, *b = y;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->t0 != b->t0)
        return a->t0 < b->t0 ? -1 : 1;
    if (a->prio != b->prio)
        return a->prio < b->prio ? -1 : 1;
    if (a->t1 != b->t1)
        return a->t1 > b->t1 ? -1 : 1;       /* the longer one first: the parent */
    return 0;
}

/* Each lane's slices strictly nested (see the top). */
static int nest(timeline *tl)
{
    size_t *stack = malloc((tl->n ? tl->n : 1) * sizeof(*stack)), depth = 0;

    if (!stack)
        return -1;
    rp_sort(tl->s, tl->n, sizeof(*tl->s), by_lane);
    for (size_t i = 0; i < tl->n; i++) {
        slice *s = &tl->s[i];
        if (i && s->tid != tl->s[i - 1].tid)
            depth = 0;
        while (depth && tl->s[stack[depth - 1]].t1 <= s->t0)
            depth--;
        while (depth && s->t1 > tl->s[stack[depth - 1]].t1) {
            slice *top = &tl->s[stack[depth - 1]];
            if (s->prio == P_SAMPLE) {
                s->t1 = top->t1 - 1;         /* a sample ends with the event it ran in */
                break;
            }
            if (top->prio == P_SAMPLE) {
                top->t1 = s->t0 > top->t0 ? s->t0 - 1 : top->t0;   /* a sample ends where a runtime event begins */
                top->dropped = top->t1 <= top->t0;
                depth--;
                continue;
            }
            s->t1 = top->t1 - 1;             /* a runtime event ends with the one it began in */
            s->clipped = 1;
            break;
        }
        if (s->prio == P_SAMPLE && s->t1 <= s->t0) {
            s->dropped = 1;
            continue;
        }
        stack[depth++] = i;
    }
    free(stack);
    return 0;
}

/* ---- writing ---- */

static void ts(FILE *out, const char *key, uint64_t ns)
{
    fprintf(out, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000, (unsigned)(ns % 1000));
}

static void arg_str(FILE *out, int *n, const char *key, const char *val)
{
    fprintf(out, "%s\"%s\":", (*n)++ ? "," : "", key);
    json_string(out, val);
}

static void write_args(const timeline *tl, const slice *s, FILE *out)
{
    int n = 0;
    fputs(",\"args\":{", out);
    switch (s->kind) {
    case S_SAMPLE: {
        const rec_sample *r = &s->ev->sample;
        fprintf(out, "\"samples\":%" PRIu32 ",\"stack\":[", s->samples);
        for (uint16_t k = 0; k < r->nframes && k < 24; k++) {
            if (k)
                putc(',', out);
            json_string(out, fname(tl, r->frames[k]));
        }
        putc(']', out);
        n = 1;
        break;
    }
    case S_EXCEPTION: {
        const rec_exception_thrown *r = &s->ev->exception_thrown;
        arg_str(out, &n, "message", r->message);
        if (r->nstack)
            arg_str(out, &n, "thrower", fname(tl, r->stack[0]));
        if (r->depth > 1)
            fprintf(out, ",\"nested in\":%" PRIu64, r->parent);
        if (r->exception)
            fprintf(out, ",\"exception\":%" PRIu64, r->exception);
        if (s->end && s->end->kind == TK_EXCEPTION_HANDLED)
            arg_str(out, &n, "caught in", fname(tl, s->end->exception_handled.catcher));
        else if (s->end)
            arg_str(out, &n, "outcome", rp_exception_outcome(s->end->exception_unhandled.outcome));
        else
            arg_str(out, &n, "outcome", "still in flight when the trace ends");
        break;
    }
    case S_GC: {
        const rec_gc_start *g = &s->ev->gc_start;
        fprintf(out, "\"generations\":%" PRIu32, g->generations);
        n = 1;
        break;
    }
    case S_CALL:
        fprintf(out, "\"depth\":%" PRIu32 ",\"exception\":%s", s->ev->call.depth,
                s->ev->call.flags & CALL_FLAG_EXCEPTION ? "true" : "false");
        n = 1;
        break;
    default:
        break;
    }
    if (s->clipped == 1)
        fprintf(out, "%s\"clipped\":true", n++ ? "," : "");
    else if (s->clipped == 2)
        fprintf(out, "%s\"left at the throw of\":%" PRIu64, n++ ? "," : "",
                s->end->kind == TK_EXCEPTION_HANDLED ? s->end->exception_handled.escaped_by : s->end->exception_unhandled.by);
    putc('}', out);
}

static const char *const cats[] = { "cpu", "jit", "exception", "gc", "suspension", "heap", "call" };

/* One point of the CPU samples counter: count samples in the bucket at start. */
static void sample_rate(FILE *out, uint32_t pid, uint64_t start, uint64_t count, uint64_t bucket)
{
    fprintf(out, ",\n{\"ph\":\"C\",\"name\":\"CPU samples per second\",\"pid\":%" PRIu32, pid);
    ts(out, "ts", start);
    fprintf(out, ",\"args\":{\"samples\":%" PRIu64 "}}", (uint64_t)(count * 1000000000ull / bucket));
}

static void counters(const timeline *tl, uint32_t pid, uint64_t period, FILE *out)
{
    const rp_trace *tr = tl->tr;
    uint64_t bucket = 100000000, start = 0, count = 0;    /* CPU samples per 100 ms */
    int any = 0;

    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        const uint64_t *g = NULL;
        if (e->kind == TK_GC_START)
            g = &e->gc_start.gen0_bytes;
        else if (e->kind == TK_GC_END)
            g = &e->gc_end.gen0_bytes;
        if (g && (g[0] | g[1] | g[2] | g[3] | g[4])) {
            const rec_gc_end *x = e->kind == TK_GC_END ? &e->gc_end : NULL;
            uint64_t b[5];
            if (x) {
                b[0] = x->gen0_bytes; b[1] = x->gen1_bytes; b[2] = x->gen2_bytes; b[3] = x->loh_bytes; b[4] = x->poh_bytes;
            } else {
                b[0] = e->gc_start.gen0_bytes; b[1] = e->gc_start.gen1_bytes; b[2] = e->gc_start.gen2_bytes;
                b[3] = e->gc_start.loh_bytes; b[4] = e->gc_start.poh_bytes;
            }
            fprintf(out, ",\n{\"ph\":\"C\",\"name\":\"heap (bytes)\",\"pid\":%" PRIu32, pid);
            ts(out, "ts", e->t);
            fprintf(out, ",\"args\":{\"gen0\":%" PRIu64 ",\"gen1\":%" PRIu64 ",\"gen2\":%" PRIu64 ",\"loh\":%" PRIu64
                         ",\"poh\":%" PRIu64 "}}", b[0], b[1], b[2], b[3], b[4]);
        }
        if (e->kind == TK_SAMPLE && cpu_sample(&e->sample, period)) {
            /* Only the buckets that have samples, and one 0 after each run of
             * them: a counter holds its value until the next, and a time span
             * read from the trace (a sample near 2^64 ns) must not make the
             * report as long as the span.  (The events are in time order.) */
            if (!any) {
                start = e->t - e->t % bucket;
                any = 1;
            } else if (e->t - start >= bucket) {
                sample_rate(out, pid, start, count, bucket);
                if (e->t - start >= 2 * bucket)
                    sample_rate(out, pid, start + bucket, 0, bucket);
                start = e->t - e->t % bucket;
                count = 0;
            }
            count++;
        }
    }
    if (any)
        sample_rate(out, pid, start, count, bucket);
}

int rp_write_chrome(const rp_trace *tr, FILE *out)
{
    timeline tl = { .tr = tr };
    uint32_t pid = tr->file.pid;
    uint64_t period;
    const char *prog = tr->file.command_line ? tr->file.command_line : "";
    char pname[512], role[256];
    int rc = -1;

    idmap_init(&tl.names);
    idmap_init(&tl.lanes);
    if (gather(&tl, &period) < 0 || nest(&tl) < 0)
        goto out;
    rp_role_label(tr, role, sizeof(role));
    snprintf(pname, sizeof(pname), "%.290s%s%.200s%s", prog[0] ? prog : "clrprobe trace", role[0] ? " (" : "", role,
             role[0] ? ")" : "");     /* (viewers add the pid) */
    fprintf(out, "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRIu32 ",\"tid\":0,"
                 "\"args\":{\"name\":", pid);
    json_string(out, pname);
    fputs("}}", out);
    for (size_t i = 0; i < tl.nlabels; i++) {
        fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                     ",\"args\":{\"name\":", pid, tl.label_tids[i]);
        json_string(out, tl.labels[i]);
        fprintf(out, "}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                     ",\"args\":{\"sort_index\":%zu}}", pid, tl.label_tids[i], i);
    }
    for (size_t i = 0; i < tl.n; i++) {
        const slice *s = &tl.s[i];
        if (s->dropped)
            continue;
        if (s->kind == S_EXCEPTION && !s->end) {     /* never ended: an instant */
            fprintf(out, ",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":");
        } else {
            fprintf(out, ",\n{\"ph\":\"X\",\"name\":");
        }
        json_string(out, s->name);
        fprintf(out, ",\"cat\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, cats[s->kind], pid, s->tid);
        ts(out, "ts", s->t0);
        if (!(s->kind == S_EXCEPTION && !s->end))
            ts(out, "dur", s->t1 - s->t0);
        if (s->clipped || (s->kind != S_JIT && s->kind != S_SUSPEND && s->kind != S_HEAP))   /* (those: none) */
            write_args(&tl, s, out);
        putc('}', out);
    }
    counters(&tl, pid, period, out);
    fputs("\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"clrprobe\",\"trace\":", out);
    json_string(out, prog);
    for (size_t i = 0; i < tr->nev; i++) {       /* (the first sampler's: which one sampled, and why) */
        if (tr->ev[i].kind == TK_SAMPLER_START) {
            const rec_sampler_start *k = &tr->ev[i].sampler_start;
            char sampler[512];
            rp_format_sampler(k->engine, k->clock, k->why, sampler, sizeof(sampler));
            fputs(",\"sampler\":", out);
            json_string(out, sampler);
            break;
        }
    }
    fputs("}}\n", out);
    rc = ferror(out) ? -1 : 0;
out:
    free(tl.s);
    for (size_t i = 0; i < tl.nlabels; i++)
        free(tl.labels[i]);
    free(tl.labels);
    free(tl.label_tids);
    for (size_t i = 0; i < tl.nowned; i++)
        free(tl.owned[i]);
    free(tl.owned);
    idmap_free(&tl.names);
    idmap_free(&tl.lanes);
    return rc;
}
