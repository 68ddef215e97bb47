/* model.c - turns a trace file into a sorted array of decoded events and a
 * table of threads (see model.h). */
#include "report/model.h"
#include "report/arena.h"
#include "report/idmap.h"
#include "trace/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string of the trace as a C string in the arena (trace_str_copy: a NUL
 * inside becomes C0 80, see model.h). */
static const char *arena_str(rp_trace *tr, const char *s, size_t n)
{
    size_t size = trace_str_size(s, n);
    char *out;

    if (size == n + 1)
        return arena_strndup(&tr->arena, s, n);
    if ((out = arena_alloc(&tr->arena, size)) == NULL)
        return "";
    trace_str_copy(out, s, n);
    return out;
}

/* Copies n little-endian u64 frames into arena memory. */
static const uint64_t *arena_frames(rp_trace *tr, const uint8_t *p, size_t n)
{
    uint64_t *out;

    if (n == 0 || (out = arena_alloc(&tr->arena, n * 8)) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        out[i] = trace_get_u64(p + i * 8);
    return out;
}

const char *rp_kind_name(int kind)
{
    static const char *names[] = {
        [TK_RUNTIME_START] = "runtime_start",
        [TK_RUNTIME_SHUTDOWN] = "runtime_shutdown",
        [TK_APPDOMAIN_CREATE] = "appdomain_create",
        [TK_APPDOMAIN_SHUTDOWN] = "appdomain_shutdown",
        [TK_ASSEMBLY_LOAD] = "assembly_load",
        [TK_ASSEMBLY_UNLOAD] = "assembly_unload",
        [TK_MODULE_LOAD] = "module_load",
        [TK_MODULE_UNLOAD] = "module_unload",
        [TK_CLASS_LOAD] = "class_load",
        [TK_CLASS_UNLOAD] = "class_unload",
        [TK_JIT] = "jit",
        [TK_PRECOMPILED] = "precompiled",
        [TK_THREAD_CREATE] = "thread_create",
        [TK_THREAD_DESTROY] = "thread_destroy",
        [TK_THREAD_OS] = "thread_os",
        [TK_THREAD_NAME] = "thread_name",
        [TK_GC_START] = "gc_start",
        [TK_GC_END] = "gc_end",
        [TK_SUSPEND] = "suspend",
        [TK_EXCEPTION_THROWN] = "exception_thrown",
        [TK_EXCEPTION_CATCH] = "exception_catch",
        [TK_NOTE] = "note",
        [TK_TRACE_END] = "trace_end",
        [TK_ATTACH] = "attach",
        [TK_DETACH] = "detach",
        [TK_SAMPLE] = "sample",
        [TK_FUNC_NAME] = "function_name",
        [TK_SAMPLER_TICK] = "sampler_tick",
    };
    if (kind > 0 && kind <= TK_KIND_MAX && names[kind])
        return names[kind];
    return "unknown";
}

/* Decodes one record into *e.  Returns 0, or -1 for unknown kinds (skipped,
 * so that newer minor additions do not break older readers). */
static int decode(rp_trace *tr, const trace_record *r, rp_event *e)
{
    trace_fields f;
    const char *s;
    size_t n;

    memset(e, 0, sizeof(*e));
    e->kind = r->kind;
    e->catchup = (r->flags & TRACE_REC_CATCHUP) != 0;
    e->tid = r->tid;
    e->t = r->t;
    e->s1 = e->s2 = "";
    e->thread = -1;
    trace_fields_init(&f, r);
#define STR(dst) do { s = trace_field_str(&f, &n); (dst) = arena_str(tr, s, n); } while (0)
    switch (r->kind) {
    case TK_RUNTIME_START:
        e->u1 = trace_field_u16(&f);            /* instance */
        e->u2 = trace_field_u16(&f);            /* runtime type */
        e->id = (uint64_t)trace_field_u16(&f) << 48;
        e->id |= (uint64_t)trace_field_u16(&f) << 32;
        e->id |= (uint64_t)trace_field_u16(&f) << 16;
        e->id |= trace_field_u16(&f);
        STR(e->s1);
        break;
    case TK_RUNTIME_SHUTDOWN: case TK_GC_END: case TK_TRACE_END: case TK_DETACH:
        break;
    case TK_ATTACH:
        e->id = trace_field_u32(&f);            /* modules */
        e->id2 = trace_field_u32(&f);           /* assemblies */
        e->id3 = trace_field_u32(&f);           /* threads */
        e->u1 = trace_field_u32(&f);            /* functions */
        e->duration_ns = trace_field_u64(&f);
        break;
    case TK_APPDOMAIN_CREATE:
        e->id = trace_field_u64(&f);
        STR(e->s1);
        break;
    case TK_APPDOMAIN_SHUTDOWN: case TK_ASSEMBLY_UNLOAD: case TK_MODULE_UNLOAD: case TK_CLASS_UNLOAD:
    case TK_THREAD_CREATE: case TK_THREAD_DESTROY:
        e->id = trace_field_u64(&f);
        break;
    case TK_ASSEMBLY_LOAD:
        e->id = trace_field_u64(&f);
        e->id3 = trace_field_u64(&f);           /* appdomain */
        e->id2 = trace_field_u64(&f);           /* module */
        STR(e->s1);
        STR(e->s2);
        break;
    case TK_MODULE_LOAD:
        e->id = trace_field_u64(&f);
        e->id2 = trace_field_u64(&f);           /* assembly */
        e->u1 = trace_field_u32(&f);            /* flags */
        e->u2 = trace_field_u32(&f);            /* hr */
        STR(e->s1);
        break;
    case TK_CLASS_LOAD:
        e->id = trace_field_u64(&f);
        e->id2 = trace_field_u64(&f);
        STR(e->s1);
        break;
    case TK_JIT:
        e->id = trace_field_u64(&f);
        e->id2 = trace_field_u64(&f);
        e->duration_ns = trace_field_u64(&f);
        e->u2 = trace_field_u32(&f);
        STR(e->s1);
        break;
    case TK_PRECOMPILED:
        e->id = trace_field_u64(&f);
        e->id2 = trace_field_u64(&f);
        STR(e->s1);
        break;
    case TK_THREAD_OS:
        e->id = trace_field_u64(&f);
        e->u1 = trace_field_u32(&f);
        STR(e->s1);
        break;
    case TK_THREAD_NAME:
        e->id = trace_field_u64(&f);
        STR(e->s1);
        break;
    case TK_GC_START:
        e->u1 = trace_field_u32(&f);
        e->u2 = trace_field_u32(&f);
        break;
    case TK_SUSPEND:
        e->u1 = trace_field_u32(&f);
        e->duration_ns = trace_field_u64(&f);
        break;
    case TK_EXCEPTION_THROWN:
        e->id = trace_field_u64(&f);
        STR(e->s1);
        break;
    case TK_EXCEPTION_CATCH:
        e->id = trace_field_u64(&f);
        STR(e->s1);                             /* type */
        STR(e->s2);                             /* function */
        break;
    case TK_NOTE:
        STR(e->s1);
        break;
    case TK_SAMPLE: {
        uint16_t nf;
        e->id = trace_field_u64(&f);            /* managed thread */
        e->u1 = trace_field_u32(&f);            /* os tid */
        e->duration_ns = trace_field_u64(&f);   /* CPU since the thread's previous sample */
        nf = trace_field_u16(&f);
        if ((size_t)(f.end - f.p) < (size_t)nf * 8) {
            f.bad = 1;
            nf = 0;
        }
        e->frames = arena_frames(tr, f.p, nf);
        e->nframes = e->frames ? nf : 0;
        break;
    }
    case TK_FUNC_NAME:
        e->id = trace_field_u64(&f);
        e->id2 = trace_field_u64(&f);
        STR(e->s1);
        break;
    case TK_SAMPLER_TICK:
        e->duration_ns = trace_field_u64(&f);   /* suspension */
        e->id = trace_field_u64(&f);            /* sampler CPU */
        e->u1 = trace_field_u32(&f);            /* threads */
        e->u2 = trace_field_u32(&f);            /* failed snapshots */
        e->id2 = trace_field_u64_opt(&f);       /* nominal period (0 in ticks of an earlier
                                                   agent, which end before it: length 40) */
        break;
    default:
        return -1;
    }
#undef STR
    if (f.bad)
        tr->bad_records++;
    return 0;
}

static int by_time(const void *a, const void *b)
{
    const rp_event *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The catch-up merge (seed 000): an ID reported by the attach catch-up and
 * then by a live load event (the ID was enumerable before its LoadFinished)
 * is one ID: the event wins and the catch-up record is dropped.  A live
 * event for an ID after its unload starts a new lifetime (addresses are
 * reused), and an unload of an ID never seen loaded stays as it is. */
void rp_merge_catchup(rp_event *ev, size_t n)
{
    static const struct { int load, unload; } kinds[] = {
        { TK_MODULE_LOAD, TK_MODULE_UNLOAD },
        { TK_ASSEMBLY_LOAD, TK_ASSEMBLY_UNLOAD },
        { TK_APPDOMAIN_CREATE, TK_APPDOMAIN_SHUTDOWN },
        { TK_THREAD_CREATE, TK_THREAD_DESTROY },
        { TK_CLASS_LOAD, TK_CLASS_UNLOAD },
        { TK_JIT, 0 },                 /* a function is enumerable before its JITCompilationFinished */
    };
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        idmap open;                    /* id -> index of the catch-up record opening its lifetime */
        idmap live;                    /* ids whose current lifetime a live event opened */
        uint64_t idx;

        idmap_init(&open);
        idmap_init(&live);
        for (size_t i = 0; i < n; i++) {
            rp_event *e = &ev[i];
            if (e->kind == kinds[k].load) {
                if (e->catchup) {
                    if (idmap_get(&open, e->id, &idx) || idmap_get(&live, e->id, &idx))
                        e->dropped = 1;            /* caught up twice, or after its own event (recorded
                                                      while the catch-up was querying the ID) */
                    else
                        idmap_put(&open, e->id, i);
                } else if (kinds[k].load != TK_JIT || e->duration_ns == 0) {
                    /* (a JIT record counts only if it began before the attach: the
                       agent saw no JITCompilationStarted; a later one is a recompile) */
                    if (idmap_get(&open, e->id, &idx)) {
                        ev[idx].dropped = 1;       /* the event wins over the snapshot */
                        idmap_del(&open, e->id);
                    }
                    idmap_put(&live, e->id, i);
                }
            } else if (e->kind == kinds[k].unload) {
                idmap_del(&open, e->id);
                idmap_del(&live, e->id);
            }
        }
        idmap_free(&open);
        idmap_free(&live);
    }
}

/* Builds the thread table: one entry per managed thread lifetime. */
static void build_threads(rp_trace *tr)
{
    idmap live;
    size_t cap = 0;

    idmap_init(&live);
    for (size_t i = 0; i < tr->nev; i++) {
        rp_event *e = &tr->ev[i];
        uint64_t idx;
        rp_thread *th;

        if ((e->kind != TK_THREAD_CREATE && e->kind != TK_THREAD_DESTROY &&
             e->kind != TK_THREAD_OS && e->kind != TK_THREAD_NAME) || e->dropped)
            continue;
        /* A new lifetime starts at thread_create - unless the runtime already
         * told us about this thread (a name set before Start() arrives
         * before the create), in which case that entry is this lifetime. */
        int known = idmap_get(&live, e->id, &idx);
        if (known && e->kind == TK_THREAD_CREATE && tr->threads[idx].seen_create)
            known = 0;
        if (!known) {
            if (tr->nthreads == cap) {
                cap = cap ? cap * 2 : 64;
                rp_thread *n = realloc(tr->threads, cap * sizeof(*n));
                if (!n)
                    break;
                tr->threads = n;
            }
            idx = tr->nthreads++;
            th = &tr->threads[idx];
            memset(th, 0, sizeof(*th));
            th->id = e->id;
            th->name = "";
            th->os_name = "";
            th->created_t = e->t;
            idmap_put(&live, e->id, idx);
        }
        th = &tr->threads[idx];
        e->thread = (int)idx;
        if (e->kind == TK_THREAD_CREATE) {
            th->seen_create = 1;
            th->created_t = e->t;
        }
        if (e->kind == TK_THREAD_OS) {
            th->os_tid = e->u1;
            if (e->s1[0])
                th->os_name = e->s1;
        }
        else if (e->kind == TK_THREAD_NAME)
            th->name = e->s1;
        else if (e->kind == TK_THREAD_DESTROY) {
            th->destroyed = 1;
            th->destroyed_t = e->t;
            idmap_del(&live, e->id);
        }
    }
    idmap_free(&live);
}

/* Last path component. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Fills in names that a record refers to by ID only, using the load record
 * in force at the time: a module_unload gets the module's path, a jit or
 * precompiled record its module's file name, a class_unload the class name.
 * IDs are reused after an unload, so the maps follow loads and unloads in
 * time order. */
static void resolve_names(rp_trace *tr)
{
    idmap modules, classes, assemblies;
    uint64_t idx;

    idmap_init(&modules);
    idmap_init(&classes);
    idmap_init(&assemblies);
    for (size_t i = 0; i < tr->nev; i++) {
        rp_event *e = &tr->ev[i];
        if (e->dropped)
            continue;
        switch (e->kind) {
        case TK_MODULE_LOAD:
            idmap_put(&modules, e->id, i);
            break;
        case TK_MODULE_UNLOAD:
            if (idmap_get(&modules, e->id, &idx)) {
                e->s1 = tr->ev[idx].s1;
                e->u1 = tr->ev[idx].u1;
                idmap_del(&modules, e->id);
            }
            break;
        case TK_ASSEMBLY_LOAD:
            idmap_put(&assemblies, e->id, i);
            break;
        case TK_ASSEMBLY_UNLOAD:
            if (idmap_get(&assemblies, e->id, &idx)) {
                e->s1 = tr->ev[idx].s1;
                e->s2 = tr->ev[idx].s2;
                idmap_del(&assemblies, e->id);
            }
            break;
        case TK_CLASS_LOAD:
            idmap_put(&classes, e->id, i);
            if (idmap_get(&modules, e->id2, &idx))
                e->s2 = base_name(tr->ev[idx].s1);
            break;
        case TK_CLASS_UNLOAD:
            if (idmap_get(&classes, e->id, &idx)) {
                e->s1 = tr->ev[idx].s1;
                idmap_del(&classes, e->id);
            }
            break;
        case TK_JIT:
        case TK_PRECOMPILED:
            if (idmap_get(&modules, e->id2, &idx))
                e->s2 = base_name(tr->ev[idx].s1);
            break;
        }
    }
    idmap_free(&modules);
    idmap_free(&classes);
    idmap_free(&assemblies);
}

int rp_load(const char *path, rp_trace *tr, char *err, size_t errlen)
{
    trace_chunk c;
    size_t cap = 0;
    int rc;

    memset(tr, 0, sizeof(*tr));
    rc = trace_open(path, &tr->file, err, errlen);
    if (rc != TRACE_OK)
        return rc;
    trace_scan_init(&tr->file, &tr->scan);
    tr->scan.release = 1;            /* records are copied out as they are decoded */
    while (trace_next_chunk(&tr->file, &tr->scan, &c)) {
        size_t off = 0;
        trace_record r;
        int got;
        while ((got = trace_next_record(&c, &off, &r)) == 1) {
            if (r.kind == TK_TRACE_END)
                tr->complete = 1;
            if (tr->nev == cap) {
                cap = cap ? cap * 2 : 4096;
                rp_event *n = realloc(tr->ev, cap * sizeof(*n));
                if (!n) {
                    snprintf(err, errlen, "out of memory reading %s", path);
                    rp_free(tr);
                    return TRACE_E_IO;
                }
                tr->ev = n;
            }
            if (decode(tr, &r, &tr->ev[tr->nev]) == 0) {
                tr->ev[tr->nev].order = tr->nev;
                tr->nev++;
            }
        }
        if (got < 0)
            tr->bad_records++;
    }
    /* Times relative to the start of the trace. */
    for (size_t i = 0; i < tr->nev; i++) {
        rp_event *e = &tr->ev[i];
        e->t = e->t >= tr->file.start_monotonic_ns ? e->t - tr->file.start_monotonic_ns : 0;
    }
    /* Chunks from different threads interleave: order by time, keeping file
     * order for equal times. */
    if (tr->nev) {                        /* (tr->ev is NULL when there are none) */
        qsort(tr->ev, tr->nev, sizeof(*tr->ev), by_time);
        tr->end_t = tr->ev[tr->nev - 1].t;
    }
    rp_merge_catchup(tr->ev, tr->nev);
    {
        size_t kept = 0;
        for (size_t i = 0; i < tr->nev; i++)
            if (!tr->ev[i].dropped)
                tr->ev[kept++] = tr->ev[i];
        tr->nev = kept;
    }
    build_threads(tr);
    resolve_names(tr);
    return TRACE_OK;
}

void rp_free(rp_trace *tr)
{
    arena_free(&tr->arena);
    free(tr->ev);
    free(tr->threads);
    trace_close(&tr->file);
    memset(tr, 0, sizeof(*tr));
}

const char *rp_problem(const rp_trace *tr, char *buf, size_t buflen)
{
    size_t used = 0;
    buf[0] = '\0';
    if (tr->scan.corrupt_chunks) {
        used += (size_t)snprintf(buf + used, buflen - used,
                                 "%llu corrupted chunk(s) (%llu bytes, first at offset %zu) were skipped",
                                 (unsigned long long)tr->scan.corrupt_chunks,
                                 (unsigned long long)tr->scan.corrupt_bytes, tr->scan.first_corrupt_offset);
    }
    if (tr->bad_records && used < buflen) {
        used += (size_t)snprintf(buf + used, buflen - used, "%s%llu malformed record(s) were skipped",
                                 used ? "; " : "", (unsigned long long)tr->bad_records);
    }
    const char *stopped = NULL;
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_NOTE && strncmp(tr->ev[i].s1, TRACE_STOP_NOTE, TRACE_STOP_NOTE_LEN) == 0)
            stopped = tr->ev[i].s1;
    if (stopped && used < buflen) {
        snprintf(buf + used, buflen - used, "%sthe agent stopped early, %s", used ? "; " : "", stopped);
    } else if (!tr->complete && used < buflen) {
        snprintf(buf + used, buflen - used, "%sthe trace was cut short (the process ended without closing it, "
                 "e.g. killed): read up to the last complete chunk%s", used ? "; " : "",
                 tr->scan.truncated ? ", an incomplete chunk at the end was ignored" : "");
    }
    return buf[0] ? buf : NULL;
}
