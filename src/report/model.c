/* model.c - turns a trace file into a sorted array of decoded events and a
 * table of threads (see model.h). */
#include "report/model.h"
#include "report/source_lines.h"
#include "report/arena.h"
#include "common/idmap.h"
#include "trace/format.h"
#include "report/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Memory for decoded strings and frames (trace/records.h): the arena. */
static void *arena_for_records(void *ctx, size_t bytes)
{
    return arena_alloc(&((rp_trace *)ctx)->arena, bytes);
}

const char *rp_kind_name(int kind)
{
    return rec_kind_name(kind);
}

const char *rp_main_profiler(const rp_trace *tr)
{
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_RUNTIME_START)
            return tr->ev[i].runtime_start.main_profiler;
    return "";
}

const char *rp_role_label(const rp_trace *tr, char *buf, size_t len)
{
    const char *lib = rp_main_profiler(tr);

    if (!(tr->file.flags & TRACE_FLAG_NOTIFICATION))
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "notification profiler%s%s", lib[0] ? " beside " : "", lib);
    return buf;
}

uint64_t rp_thread_id(const rp_event *e)
{
    switch (e->kind) {
    case TK_THREAD_CREATE: return e->thread_create.thread;
    case TK_THREAD_DESTROY: return e->thread_destroy.thread;
    case TK_THREAD_OS: return e->thread_os.thread;
    case TK_THREAD_NAME: return e->thread_name.thread;
    default: return 0;
    }
}

const char *rp_function_name(const rp_event *e, uint64_t *function)
{
    switch (e->kind) {
    case TK_FUNC_NAME: *function = e->function_name.function; return e->function_name.name;
    case TK_JIT: *function = e->jit.function; return e->jit.name;
    case TK_PRECOMPILED: *function = e->precompiled.function; return e->precompiled.name;
    case TK_TRACED_METHOD: *function = e->traced_method.function; return e->traced_method.name;
    default: return NULL;
    }
}

/* Decodes one record into *e with its kind's decoder (trace/records.h).
 * Returns 0, or -1 for unknown kinds (skipped, so that newer minor
 * additions do not break older readers).  A malformed record is kept as
 * far as it goes, and counted. */
static int decode(rp_trace *tr, const trace_record *r, rp_event *e)
{
    rec_alloc a = { arena_for_records, tr };
    int rc;

    memset(e, 0, sizeof(*e));
    e->kind = r->kind;
    e->catchup = (r->flags & TRACE_REC_CATCHUP) != 0;
    e->tid = r->tid;
    e->t = r->t;
    e->thread = -1;
    rc = rec_decode(r, &e->any, &a);
    if (rc == -2)
        return -1;
    if (rc < 0)
        tr->bad_records++;
    return 0;
}

/* The exception_catch events of a trace whose agent follows exceptions
 * through: it writes when each catch clause began into exception_handled
 * (catch_ns after the throw) instead of an exception_catch record; the
 * report shows them as older agents wrote them: the catching function and
 * its name (in force at the catch), the exception's type.  Returns 0, or -1
 * out of memory. */
static int by_time(const void *a, const void *b);

static int derive_catches(rp_trace *tr)
{
    idmap thrown, names;
    size_t n = 0, have = tr->nev;
    rp_event *nev;
    int rc = -1;

    for (size_t i = 0; i < tr->nev; i++)
        n += tr->ev[i].kind == TK_EXCEPTION_HANDLED && tr->ev[i].exception_handled.catch_ns;
    if (!n)
        return 0;
    if ((nev = realloc(tr->ev, (tr->nev + n) * sizeof(*nev))) == NULL)
        return -1;
    tr->ev = nev;
    idmap_init(&thrown);
    idmap_init(&names);
    for (size_t i = 0; i < have; i++) {
        const rp_event *e = &tr->ev[i];
        uint64_t v, fid;
        if (rp_function_name(e, &fid) && rp_function_name(e, &fid)[0]) {
            if (idmap_put(&names, fid, i) < 0)
                goto out;
        } else if (e->kind == TK_EXCEPTION_THROWN && e->exception_thrown.exception) {
            if (idmap_put(&thrown, e->exception_thrown.exception, i) < 0)
                goto out;
        } else if (e->kind == TK_EXCEPTION_HANDLED && e->exception_handled.catch_ns &&
                   idmap_get(&thrown, e->exception_handled.exception, &v)) {
            const rp_event *x = &tr->ev[v];
            rp_event *c = &tr->ev[tr->nev++];
            uint64_t f;
            memset(c, 0, sizeof(*c));
            c->kind = TK_EXCEPTION_CATCH;
            c->tid = e->tid;
            c->t = x->t + e->exception_handled.catch_ns;
            c->order = e->order;
            c->thread = -1;
            c->exception_catch.function = e->exception_handled.catcher;
            c->exception_catch.type = x->exception_thrown.type;
            c->exception_catch.function_name =
                idmap_get(&names, e->exception_handled.catcher, &f) ? rp_function_name(&tr->ev[f], &fid) : "";
        }
    }
    rp_sort(tr->ev, tr->nev, sizeof(*tr->ev), by_time);
    rc = 0;
out:
    idmap_free(&thrown);
    idmap_free(&names);
    return rc;
}

static int by_time(const void *a, const void *b)
{
    const rp_event *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The ID whose lifetime a load or unload record begins or ends (the
 * function of a jit record), for the merge below. */
static uint64_t lifetime_id(const rp_event *e)
{
    switch (e->kind) {
    case TK_MODULE_LOAD: return e->module_load.id;
    case TK_MODULE_UNLOAD: return e->module_unload.id;
    case TK_ASSEMBLY_LOAD: return e->assembly_load.id;
    case TK_ASSEMBLY_UNLOAD: return e->assembly_unload.id;
    case TK_APPDOMAIN_CREATE: return e->appdomain_create.id;
    case TK_APPDOMAIN_SHUTDOWN: return e->appdomain_shutdown.id;
    case TK_THREAD_CREATE: return e->thread_create.thread;
    case TK_THREAD_DESTROY: return e->thread_destroy.thread;
    case TK_CLASS_LOAD: return e->class_load.id;
    case TK_CLASS_UNLOAD: return e->class_unload.id;
    case TK_JIT: return e->jit.function;
    default: return 0;
    }
}

/* The catch-up merge (docs/attach.md, "Merge rules"):
 * an ID reported by the attach catch-up and then by a live load event (the
 * ID was enumerable before its LoadFinished) is one ID: the event wins and the catch-up record is dropped.  A live
 * event for an ID after its unload starts a new lifetime (addresses are
 * reused), and an unload of an ID never seen loaded stays as it is. */
void rp_merge_catchup(rp_event *ev, size_t n)
{
    /* (the IDs: lifetime_id) */
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
            uint64_t id;
            if (e->kind == kinds[k].load) {
                id = lifetime_id(e);
                if (e->catchup) {
                    if (idmap_get(&open, id, &idx) || idmap_get(&live, id, &idx))
                        e->dropped = 1;            /* caught up twice, or after its own event (recorded
                                                      while the catch-up was querying the ID) */
                    else
                        idmap_put(&open, id, i);
                } else if (kinds[k].load != TK_JIT || e->jit.duration_ns == 0) {
                    /* (a JIT record counts only if it began before the attach: the
                       agent saw no JITCompilationStarted; a later one is a recompile) */
                    if (idmap_get(&open, id, &idx)) {
                        ev[idx].dropped = 1;       /* the event wins over the snapshot */
                        idmap_del(&open, id);
                    }
                    idmap_put(&live, id, i);
                }
            } else if (e->kind == kinds[k].unload) {
                id = lifetime_id(e);
                idmap_del(&open, id);
                idmap_del(&live, id);
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
        uint64_t idx, id;
        rp_thread *th;

        if ((e->kind != TK_THREAD_CREATE && e->kind != TK_THREAD_DESTROY &&
             e->kind != TK_THREAD_OS && e->kind != TK_THREAD_NAME) || e->dropped)
            continue;
        id = rp_thread_id(e);
        /* A new lifetime starts at thread_create - unless the runtime already
         * told us about this thread (a name set before Start() arrives
         * before the create), in which case that entry is this lifetime. */
        int known = idmap_get(&live, id, &idx);
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
            th->id = id;
            th->name = "";
            th->os_name = "";
            th->created_t = e->t;
            idmap_put(&live, id, idx);
        }
        th = &tr->threads[idx];
        e->thread = (int)idx;
        if (e->kind == TK_THREAD_CREATE) {
            th->seen_create = 1;
            th->created_t = e->t;
        }
        if (e->kind == TK_THREAD_OS) {
            th->os_tid = e->thread_os.os_tid;
            if (e->thread_os.os_name[0])
                th->os_name = e->thread_os.os_name;
        }
        else if (e->kind == TK_THREAD_NAME)
            th->name = e->thread_name.name;
        else if (e->kind == TK_THREAD_DESTROY) {
            th->destroyed = 1;
            th->destroyed_t = e->t;
            idmap_del(&live, id);
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
            idmap_put(&modules, e->module_load.id, i);
            break;
        case TK_MODULE_UNLOAD:
            if (idmap_get(&modules, e->module_unload.id, &idx)) {
                e->module_unload.path = tr->ev[idx].module_load.path;
                e->module_unload.flags = tr->ev[idx].module_load.flags;
                idmap_del(&modules, e->module_unload.id);
            }
            break;
        case TK_ASSEMBLY_LOAD:
            idmap_put(&assemblies, e->assembly_load.id, i);
            break;
        case TK_ASSEMBLY_UNLOAD:
            if (idmap_get(&assemblies, e->assembly_unload.id, &idx)) {
                e->assembly_unload.name = tr->ev[idx].assembly_load.name;
                e->assembly_unload.version = tr->ev[idx].assembly_load.version;
                idmap_del(&assemblies, e->assembly_unload.id);
            }
            break;
        case TK_CLASS_LOAD:
            idmap_put(&classes, e->class_load.id, i);
            if (idmap_get(&modules, e->class_load.module, &idx))
                e->class_load.module_name = base_name(tr->ev[idx].module_load.path);
            break;
        case TK_CLASS_UNLOAD:
            if (idmap_get(&classes, e->class_unload.id, &idx)) {
                e->class_unload.name = tr->ev[idx].class_load.name;
                idmap_del(&classes, e->class_unload.id);
            }
            break;
        case TK_JIT:
            if (idmap_get(&modules, e->jit.module, &idx))
                e->jit.module_name = base_name(tr->ev[idx].module_load.path);
            break;
        case TK_PRECOMPILED:
            if (idmap_get(&modules, e->precompiled.module, &idx))
                e->precompiled.module_name = base_name(tr->ev[idx].module_load.path);
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
    trace_done_reading(&tr->file);
    /* Times relative to the start of the trace. */
    for (size_t i = 0; i < tr->nev; i++) {
        rp_event *e = &tr->ev[i];
        e->t = e->t >= tr->file.start_monotonic_ns ? e->t - tr->file.start_monotonic_ns : 0;
    }
    /* Chunks from different threads interleave: order by time, keeping file
     * order for equal times. */
    if (tr->nev) {                        /* (tr->ev is NULL when there are none) */
        rp_sort(tr->ev, tr->nev, sizeof(*tr->ev), by_time);
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
    if (derive_catches(tr) < 0) {
        snprintf(err, errlen, "out of memory reading %s", path);
        rp_free(tr);
        return TRACE_E_IO;
    }
    build_threads(tr);
    resolve_names(tr);
    return TRACE_OK;
}

void rp_free(rp_trace *tr)
{
    rp_lines_free(tr->lines);
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
    if (tr->scan.read_errno && used < buflen) {
        used += (size_t)snprintf(buf + used, buflen - used, "%sreading stopped at offset %zu: %s", used ? "; " : "",
                                 tr->scan.end, strerror(tr->scan.read_errno));
    } else if (tr->scan.shrank && used < buflen) {
        used += (size_t)snprintf(buf + used, buflen - used, "%sthe file was shortened while it was read: read up to "
                                 "offset %zu", used ? "; " : "", tr->scan.end);
    }
    if (tr->bad_records && used < buflen) {
        used += (size_t)snprintf(buf + used, buflen - used, "%s%llu malformed record(s) were skipped",
                                 used ? "; " : "", (unsigned long long)tr->bad_records);
    }
    const char *stopped = NULL;
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_NOTE && strncmp(tr->ev[i].note.text, TRACE_STOP_NOTE, TRACE_STOP_NOTE_LEN) == 0)
            stopped = tr->ev[i].note.text;
    if (stopped && used < buflen) {
        snprintf(buf + used, buflen - used, "%sthe agent stopped early, %s", used ? "; " : "", stopped);
    } else if (!tr->complete && used < buflen) {
        snprintf(buf + used, buflen - used, "%sthe trace was cut short (the process ended without closing it, "
                 "e.g. killed): read up to the last complete chunk%s", used ? "; " : "",
                 tr->scan.truncated ? ", an incomplete chunk at the end was ignored" : "");
    }
    return buf[0] ? buf : NULL;
}
