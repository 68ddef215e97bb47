/* text.c - `report --format text`: a readable summary of a trace: runtime,
 * duration, events by kind, modules, the slowest JIT compilations, threads
 * with names, garbage collections per generation with their pauses, and
 * exceptions by type; and the list of the processes of several traces.
 * Every string from the trace (or the command line) is escaped as it is
 * printed (common/escape.h), never cut. */
#include "common/escape.h"
#include "report/exception_stats.h"
#include "report/gc_timeline.h"
#include "report/heap_model.h"
#include "report/method_stats.h"
#include "report/report.h"
#include "report/views.h"
#include "report/profile.h"
#include "trace/format.h"
#include "trace/heap_codec.h"
#include "report/sort.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TOP_JIT 15
#define MAX_MODULES_SHOWN 60

static void fmt_ms(char *buf, size_t len, uint64_t ns)
{
    if (ns >= 10000000000ULL)
        snprintf(buf, len, "%.1f s", (double)ns / 1e9);
    else if (ns >= 1000000)
        snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
    else
        snprintf(buf, len, "%.1f us", (double)ns / 1e3);
}

/* A counted name (exception types, catch sites). */
typedef struct tally { const char *a, *b; uint64_t n; } tally;

static void tally_add(tally **v, size_t *n, size_t *cap, const char *a, const char *b)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i].a, a) == 0 && strcmp((*v)[i].b, b) == 0) {
            (*v)[i].n++;
            return;
        }
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        tally *nv = realloc(*v, c * sizeof(*nv));
        if (!nv)
            return;
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = (tally){ a, b, 1 };
}

static int tally_cmp(const void *x, const void *y)
{
    const tally *a = x, *b = y;
    if (a->n != b->n)
        return a->n < b->n ? 1 : -1;
    int c = strcmp(a->a, b->a);
    return c ? c : strcmp(a->b, b->b);
}

static const rp_trace *sort_tr;
static int jit_cmp(const void *x, const void *y)
{
    const rp_event *a = &sort_tr->ev[*(const size_t *)x], *b = &sort_tr->ev[*(const size_t *)y];
    if (a->jit.duration_ns != b->jit.duration_ns)
        return a->jit.duration_ns < b->jit.duration_ns ? 1 : -1;
    return strcmp(a->jit.name, b->jit.name);
}

static void section(FILE *out, const char *title)
{
    fprintf(out, "\n%s\n", title);
}

/* before, then s escaped, then after. */
static void put_esc(FILE *out, const char *before, const char *s, const char *after)
{
    fputs(before, out);
    esc_puts(out, s);
    fputs(after, out);
}

static void print_modules(const rp_trace *tr, FILE *out)
{
    size_t loads = 0, unloads = 0, shown = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        if (tr->ev[i].kind == TK_MODULE_LOAD) loads++;
        if (tr->ev[i].kind == TK_MODULE_UNLOAD) unloads++;
    }
    fprintf(out, "\nModules (%zu loaded, %zu unloaded)\n", loads, unloads);
    for (size_t i = 0; i < tr->nev && shown < MAX_MODULES_SHOWN; i++) {
        const rec_module_load *m = &tr->ev[i].module_load;
        int unloaded = 0;
        if (tr->ev[i].kind != TK_MODULE_LOAD)
            continue;
        for (size_t j = i + 1; j < tr->nev; j++) {
            if (tr->ev[j].kind == TK_MODULE_UNLOAD && tr->ev[j].module_unload.id == m->id) { unloaded = 1; break; }
            if (tr->ev[j].kind == TK_MODULE_LOAD && tr->ev[j].module_load.id == m->id) break;
        }
        put_esc(out, "  ", m->path[0] ? m->path : "(no name)", "");
        fprintf(out, "%s%s%s\n", (m->flags & TRACE_MODULE_DYNAMIC) ? "  [dynamic]" : "",
                (m->flags & TRACE_MODULE_COLLECTIBLE) ? "  [collectible]" : "", unloaded ? "  [unloaded]" : "");
        shown++;
    }
    if (loads > shown)
        fprintf(out, "  ... and %zu more\n", loads - shown);
}

static void print_jit(const rp_trace *tr, FILE *out)
{
    size_t n = 0, pre = 0, *idx;
    uint64_t total = 0;
    char a[32], b[32];

    size_t before = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        if (tr->ev[i].kind == TK_JIT && tr->ev[i].catchup) before++;
        else if (tr->ev[i].kind == TK_JIT) { n++; total += tr->ev[i].jit.duration_ns; }
        if (tr->ev[i].kind == TK_PRECOMPILED) pre++;
    }
    fmt_ms(a, sizeof(a), total);
    fprintf(out, "\nJIT: %zu compilations, %s in total; %zu precompiled (ReadyToRun) methods used\n",
            n, a, pre);
    if (before)
        fprintf(out, "  %zu functions were already JIT-compiled when the agent attached (found by the catch-up)\n",
                before);
    if (!n)
        return;
    idx = malloc(n * sizeof(*idx));
    if (!idx)
        return;
    n = 0;
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_JIT && !tr->ev[i].catchup)
            idx[n++] = i;
    sort_tr = tr;
    rp_sort(idx, n, sizeof(*idx), jit_cmp);
    fprintf(out, "  Slowest to compile:\n");
    for (size_t i = 0; i < n && i < TOP_JIT; i++) {
        const rec_jit *j = &tr->ev[idx[i]].jit;
        fmt_ms(b, sizeof(b), j->duration_ns);
        fprintf(out, "  %12s  ", b);
        put_esc(out, "", j->name, "  (");
        put_esc(out, "", j->module_name[0] ? j->module_name : "?", ")\n");
    }
    free(idx);
}

/* A thread's name as the list shows it (escaped, whole), padded to width
 * bytes: its managed name, else "(kernel name)", else "(unnamed)". */
static void put_thread_name(FILE *out, const rp_thread *th, size_t width)
{
    size_t n;

    if (th->name[0]) {
        n = esc_puts(out, th->name);
    } else if (th->os_name[0]) {
        putc('(', out);
        n = esc_puts(out, th->os_name) + 2;
        putc(')', out);
    } else {
        n = (size_t)fprintf(out, "(unnamed)");
    }
    for (; n < width; n++)
        putc(' ', out);
}

static void print_threads(const rp_trace *tr, FILE *out)
{
    fprintf(out, "\nThreads (%zu)\n", tr->nthreads);
    if (!tr->nthreads)
        return;
    fprintf(out, "  %8s  %-32s  %s\n", "os tid", "name", "lifetime");
    for (size_t i = 0; i < tr->nthreads; i++) {
        const rp_thread *th = &tr->threads[i];
        char from[32], to[32];
        fmt_ms(from, sizeof(from), th->created_t);
        fmt_ms(to, sizeof(to), th->destroyed_t);
        fprintf(out, "  %8" PRIu32 "  ", th->os_tid);
        put_thread_name(out, th, 32);
        fprintf(out, "  %s .. %s\n", from, th->destroyed ? to : "end");
    }
}

/* Per generation: count, total and longest pause; the share of the wall
 * time paused; the heap's size at the start, peak and end
 * (report/gc_timeline.h). */
static void print_gcs(const rp_trace *tr, FILE *out)
{
    rp_gc_timeline tl;
    char a[32], b[32], c[32];

    if (rp_gc_timeline_build(tr, &tl) < 0)
        return;
    fprintf(out, "\nGarbage collections: %zu (%" PRIu64 " induced)", tl.n, tl.induced);
    if (tl.n) {
        fmt_ms(a, sizeof(a), tl.paused_ns);
        fmt_ms(b, sizeof(b), tl.wall_ns);
        fprintf(out, "; paused %s, %.2f%% of %s", a,
                tl.wall_ns ? 100.0 * (double)tl.paused_ns / (double)tl.wall_ns : 0.0, b);
    }
    fprintf(out, "%s\n", tl.from_suspensions ? "" : "  [pauses are GC start..end: suspensions were not collected]");
    if (!tl.n)
        goto out;
    fprintf(out, "  %-5s %8s  %14s  %14s\n", "gen", "count", "total pause", "longest pause");
    for (int g = 0; g < 3; g++) {
        fmt_ms(a, sizeof(a), tl.total_ns[g]);
        fmt_ms(b, sizeof(b), tl.longest_ns[g]);
        fprintf(out, "  %-5d %8" PRIu64 "  %14s  %14s\n", g, tl.count[g], a, b);
    }
    if (!tl.have_sizes)
        goto out;
    fprintf(out, "  Heap (the generations' ranges, free space included):\n");
    fprintf(out, "  %-5s  %12s  %12s  %12s\n", "", "start", "peak", "end");
    for (int g = 0; g <= RP_GC_GENS; g++) {
        rp_format_bytes(tl.first[g], a, sizeof(a));
        rp_format_bytes(tl.peak[g], b, sizeof(b));
        rp_format_bytes(tl.last[g], c, sizeof(c));
        fprintf(out, "  %-5s  %12s  %12s  %12s\n", g < RP_GC_GENS ? rp_gc_gen_names[g] : "total", a, b, c);
    }
out:
    rp_gc_timeline_free(&tl);
}

/* Exceptions by type and throw site (exception_stats.h): the counts, the
 * share of the time spent handling them, a message, where they were
 * caught; what became of those no managed catch clause took; the ones the
 * process died of.  An earlier agent's trace: the types, and where they
 * were caught. */
#define EXC_ROWS_SHOWN 20

static void print_exceptions(const rp_trace *tr, FILE *out)
{
    static const char *const outcome_words[] = { "ended otherwise", "unhandled", "handled outside managed code",
                                                  "escaped a filter", "superseded by a nested exception" };
    rp_exc_stats st;
    char dur[32];

    if (rp_exc_stats_build(tr, &st) < 0) {
        fprintf(out, "\nExceptions: (out of memory)\n");
        return;
    }
    fprintf(out, "\nExceptions: %" PRIu64 " thrown", st.thrown);
    if (st.followed) {
        fmt_ms(dur, sizeof(dur), st.handling_ns);
        fprintf(out, ": %" PRIu64 " handled", st.handled);
        for (int o = 1; o <= 4; o++)
            if (st.outcomes[o])
                fprintf(out, ", %" PRIu64 " %s", st.outcomes[o], outcome_words[o]);
        if (st.open)
            fprintf(out, ", %" PRIu64 " still in flight when the trace ends", st.open);
        fprintf(out, "; %" PRIu64 " nested, %" PRIu64 " rethrown; %s from their throws to their ends", st.nested,
                st.rethrows, dur);
    }
    fputc('\n', out);
    for (size_t i = 0; i < st.nrows && i < EXC_ROWS_SHOWN; i++) {
        const rp_exc_row *r = &st.rows[i];
        fprintf(out, "  %8" PRIu64 "  ", r->count);
        put_esc(out, "", r->type, "");
        if (r->site[0])
            put_esc(out, " in ", r->site, "");
        if (st.followed && st.handling_ns)
            fprintf(out, ", %.1f%% of the handling time", 100.0 * (double)r->handling_ns / (double)st.handling_ns);
        if (r->message[0])
            put_esc(out, ": \"", r->message, "\"");
        fputc('\n', out);
        if (r->catcher[0] || r->not_caught) {
            fputs("            ", out);
            if (r->catcher[0])
                put_esc(out, r->handled > 1 ? "last caught in " : "caught in ", r->catcher, r->not_caught ? "; " : "");
            if (r->not_caught)
                fprintf(out, "%" PRIu64 " not caught in managed code", r->not_caught);
            fputc('\n', out);
        }
    }
    if (st.nrows > EXC_ROWS_SHOWN)
        fprintf(out, "  ... and %zu more types and throw sites\n", st.nrows - EXC_ROWS_SHOWN);
    if (st.nunhandled) {
        fprintf(out, "  Unhandled (no catch clause on the whole stack: the process ended of it, at %s):\n",
                st.nunhandled == 1 ? "this one" : "the first of these");
        for (size_t i = 0; i < st.nunhandled; i++) {
            const rec_exception_thrown *x = &st.unhandled[i]->exception_thrown;
            fmt_ms(dur, sizeof(dur), st.unhandled[i]->t);
            fprintf(out, "    at %s, thread %" PRIu32 ": ", dur, st.unhandled[i]->tid);
            put_esc(out, "", x->type, "");
            if (x->message[0])
                put_esc(out, ": \"", x->message, "\"");
            fputc('\n', out);
        }
    }
    if (!st.followed) {                   /* an earlier agent's trace: where they were caught */
        tally *catches = NULL;
        size_t nc = 0, cc = 0;
        for (size_t i = 0; i < tr->nev; i++)
            if (tr->ev[i].kind == TK_EXCEPTION_CATCH)
                tally_add(&catches, &nc, &cc, tr->ev[i].exception_catch.type, tr->ev[i].exception_catch.function_name);
        if (nc) {
            rp_sort(catches, nc, sizeof(*catches), tally_cmp);
            fprintf(out, "  Caught:\n");
            for (size_t i = 0; i < nc && i < 20; i++) {
                fprintf(out, "  %8" PRIu64 "  ", catches[i].n);
                put_esc(out, "", catches[i].a, " in ");
                put_esc(out, "", catches[i].b, "\n");
            }
        }
        free(catches);
    }
    rp_exc_stats_free(&st);
}

/* Per heap snapshot: what it holds and how it was taken, the types that
 * retain and that take the most memory, and the objects that retain the
 * most (report/heap_model.h). */
#define HEAP_TOP_TYPES 15
#define HEAP_TOP_OBJECTS 10

static int cmp_shallow(const void *x, const void *y)
{
    const rp_heap_type_stat *a = x, *b = y;
    if (a->shallow != b->shallow)
        return a->shallow < b->shallow ? 1 : -1;
    return a->type < b->type ? -1 : a->type > b->type;
}

static void print_type_rows(const rp_heap *h, const rp_heap_type_stat *t, size_t n, FILE *out)
{
    char sh[32], re[32];

    fprintf(out, "    %10s %12s %12s  type\n", "count", "shallow", "retained");
    for (size_t i = 0; i < n; i++) {
        rp_format_bytes(t[i].shallow, sh, sizeof(sh));
        rp_format_bytes(t[i].retained, re, sizeof(re));
        fprintf(out, "    %10" PRIu64 " %12s %12s  ", t[i].count, sh, re);
        put_esc(out, "", rp_heap_type_name(h, t[i].type), "\n");
    }
}

static void print_heap(const rp_trace *tr, FILE *out)
{
    rp_heap h;

    if (rp_heap_build(tr, &h) < 0) {
        rp_heap_free(&h);
        section(out, "Heap");
        fprintf(out, "  (out of memory: the heap snapshots are not shown)\n");
        return;
    }
    if (h.nsnap == 0) {
        rp_heap_free(&h);
        return;
    }
    section(out, "Heap");
    for (size_t k = 0; k < h.nsnap; k++) {
        rp_heap_snapshot *s = &h.snap[k];
        char b[32], p[32], t[32];
        size_t n;

        rp_format_bytes(s->total_bytes, b, sizeof(b));
        fmt_ms(p, sizeof(p), s->pause_ns);
        fmt_ms(t, sizeof(t), s->complete ? s->t_end : s->t_begin);
        fprintf(out, "  snapshot %u at %s: %zu objects, %s, %zu roots (%s; the runtime paused %s)%s\n",
                s->index, t, s->nobjects, b, s->nroots,
                s->method == HEAP_METHOD_ENUMERATE ? "heap walk without a GC: roots approximate"
                                                   : "induced full GC, roots from the runtime",
                p, !s->complete ? " - cut short: the snapshot did not finish" :
                   s->status ? " - ended by an error" :
                   (s->end_flags & HEAP_END_WALK_STOPPED) ? " - the walk stopped early (heap_max_objects, or the "
                                                            "recording stopped): objects are missing" : "");
        if (s->unnamed_types)
            fprintf(out, "    damaged: %zu object%s a type index that no type record of the trace names "
                    "(counted as the type \"?\")\n", s->unnamed_types, s->unnamed_types == 1 ? " has" : "s have");
        if (rp_heap_analyse(&h, s) < 0) {
            fprintf(out, "    (out of memory: no analysis)\n");
            continue;
        }
        if (rp_heap_partial(s)) {
            /* (an object no recorded root reaches may be held by what is missing) */
            fprintf(out, "    incomplete: only what was recorded before it stopped is here (objects, references or "
                    "roots are missing)");
            if (s->unrooted)
                fprintf(out, ": %zu recorded object%s %s reached from no recorded root", s->unrooted,
                        s->unrooted == 1 ? "" : "s", s->unrooted == 1 ? "is" : "are");
            fputc('\n', out);
        } else if (s->unrooted) {
            fprintf(out, "    %zu object%s not held by any retaining root (frozen objects the runtime holds, "
                    "objects held by weak references only%s)\n", s->unrooted,
                    s->unrooted == 1 ? "" : "s", s->method == HEAP_METHOD_ENUMERATE ? ", or roots this method cannot see" : "");
        }
        n = s->ntypes < HEAP_TOP_TYPES ? s->ntypes : HEAP_TOP_TYPES;
        fprintf(out, "  Top types by retained size (%s):\n",
                rp_heap_partial(s) ? "within what was recorded" : "what a GC would free without them");
        print_type_rows(&h, s->types, n, out);
        rp_sort(s->types, s->ntypes, sizeof(*s->types), cmp_shallow);
        fprintf(out, "  Top types by shallow size (their objects' own bytes):\n");
        print_type_rows(&h, s->types, n, out);
        /* the largest single objects by retained size */
        {
            uint32_t top[HEAP_TOP_OBJECTS];
            size_t nt = 0;
            for (size_t i = 0; i < s->nobjects; i++) {
                size_t j;
                if (nt == HEAP_TOP_OBJECTS && s->retained[i] <= s->retained[top[nt - 1]])
                    continue;
                if (nt < HEAP_TOP_OBJECTS)
                    nt++;
                for (j = nt - 1; j > 0 && s->retained[top[j - 1]] < s->retained[i]; j--)
                    top[j] = top[j - 1];
                top[j] = (uint32_t)i;
            }
            {
                rp_heap_root_group *g = NULL;
                size_t ng = 0;
                if (rp_heap_root_groups(&h, s, &g, &ng) == 0 && ng) {
                    fprintf(out, "  Roots that hold the most (held: the objects --why's shortest paths reach from them "
                            "first; alone: %s):\n", rp_heap_partial(s) ? "what they alone retain within what was "
                                                                        "recorded" : "what a GC would free without them");
                    fprintf(out, "    %12s %12s  %12s  %s\n", "held", "alone", "roots", "root");
                    for (size_t j = 0; j < ng && j < HEAP_TOP_OBJECTS; j++) {
                        char he[32], re[32];
                        rp_format_bytes(g[j].held, he, sizeof(he));
                        rp_format_bytes(g[j].retained, re, sizeof(re));
                        fprintf(out, "    %12s %12s  %6" PRIu64 " root%s  ", he, re, g[j].roots,
                                g[j].roots == 1 ? " " : "s");
                        put_esc(out, "", g[j].desc, "\n");
                    }
                }
                free(g);
            }
            fprintf(out, "  Largest objects by retained size:\n");
            for (size_t j = 0; j < nt; j++) {
                char re[32], sh[32];
                rp_format_bytes(s->retained[top[j]], re, sizeof(re));
                rp_format_bytes(s->size[top[j]], sh, sizeof(sh));
                fprintf(out, "    %12s  (own %s)  0x%" PRIx64 "  ", re, sh, s->addr[top[j]]);
                put_esc(out, "", rp_heap_type_name(&h, s->type[top[j]]), "\n");
            }
        }
    }
    rp_heap_free(&h);
}

/* A duration short enough for a table column: "85 ns", "1.23 us", "4.10 ms", "1.20 s". */
static const char *fmt_dur(char *buf, size_t len, uint64_t ns)
{
    if (ns < 1000)
        snprintf(buf, len, "%" PRIu64 " ns", ns);
    else if (ns < 1000000)
        snprintf(buf, len, "%.2f us", (double)ns / 1e3);
    else if (ns < 1000000000)
        snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
    else
        snprintf(buf, len, "%.2f s", (double)ns / 1e9);
    return buf;
}

/* --trace: calls and latencies per traced method (all threads merged),
 * and the methods a pattern matched that are not traced, with why. */
static void print_traced(const rp_trace *tr, FILE *out)
{
    rp_mstats m;
    char b[7][24];

    if (rp_mstats_build(tr, &m) < 0 || (m.ntraced == 0 && m.nuntraced == 0 && m.nmerged == 0)) {
        rp_mstats_free(&m);
        return;
    }
    section(out, "Traced methods (--trace; times per call include callees; self: less the traced callees; "
                 "wall: share of the recording's span)");
    if (m.nmerged == 0)
        fprintf(out, "  no traced method was called (%zu traced)\n", m.ntraced);
    else
        fprintf(out, "  %10s %10s %10s %10s %10s %10s %10s %6s %6s  %s\n", "calls", "total", "mean", "p50", "p90",
                "p99", "max", "wall%", "self%", "method");
    for (size_t i = 0; i < m.nmerged; i++) {
        const rp_mstat *s = &m.merged[i];
        double wall = m.wall_ns ? 100.0 * (double)s->total_ns / (double)m.wall_ns : 0;
        double self = m.wall_ns ? 100.0 * (double)s->self_ns / (double)m.wall_ns : 0;
        fprintf(out, "  %10" PRIu64 " %10s %10s %10s %10s %10s %10s %6.1f %6.1f  ", s->calls,
                fmt_dur(b[0], sizeof(b[0]), s->total_ns),
                fmt_dur(b[1], sizeof(b[1]), s->calls ? s->total_ns / s->calls : 0),
                fmt_dur(b[2], sizeof(b[2]), s->p50_ns), fmt_dur(b[3], sizeof(b[3]), s->p90_ns),
                fmt_dur(b[4], sizeof(b[4]), s->p99_ns), fmt_dur(b[5], sizeof(b[5]), s->max_ns), wall, self);
        put_esc(out, "", s->name, "");
        if (s->exceptions)
            fprintf(out, " (%" PRIu64 " left by an exception)", s->exceptions);
        if (s->threads > 1)
            fprintf(out, " [%u threads]", s->threads);
        fputc('\n', out);
    }
    if (m.calls_logged)
        fprintf(out, "  calls logged one by one: %" PRIu64 " (--trace-calls)\n", m.calls_logged);
    for (size_t i = 0; i < m.nuntraced; i++) {
        put_esc(out, "  not traced: ", m.untraced[i]->traced_method.name, "");
        put_esc(out, " (", m.untraced[i]->traced_method.reason, ")\n");
    }
    rp_mstats_free(&m);
}

/* What the trace holds, in a few words: "CPU samples (1234), lock waits (5)". */
static void recorded_kinds(const uint64_t *counts, FILE *out)
{
    static const struct { int kind; const char *what; } kinds[] = {
        { TK_SAMPLE, "stack samples" }, { TK_ALLOC_SAMPLE, "allocation samples" },
        { TK_CONTENTION, "lock waits" }, { TK_HEAP_BEGIN, "heap snapshots" },
        { TK_EXCEPTION_THROWN, "exceptions" }, { TK_TRACED_METHOD, "traced methods" },
    };
    int any = 0;

    fputs("  holds      ", out);
    for (size_t k = 0; k < sizeof(kinds) / sizeof(*kinds); k++)
        if (kinds[k].kind <= TK_KIND_MAX && counts[kinds[k].kind]) {
            fprintf(out, "%s%s (%" PRIu64 ")", any ? ", " : "", kinds[k].what, counts[kinds[k].kind]);
            any = 1;
        }
    fputs(any ? "\n" : "runtime events only (loader, JIT, threads, GCs)\n", out);
}

int rp_write_text_header(const rp_trace *tr, const char *path, const rp_profile *p, FILE *out)
{
    uint64_t counts[TK_KIND_MAX + 1] = { 0 };
    char buf[64], problem[512];
    time_t start = (time_t)(tr->file.start_realtime_ns / 1000000000ULL);
    struct tm tm;
    const char *pr;

    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind > 0 && tr->ev[i].kind <= TK_KIND_MAX)
            counts[tr->ev[i].kind]++;
    gmtime_r(&start, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);

    put_esc(out, "clrprobe trace ", path, "\n");
    put_esc(out, "  runtime    .NET ", tr->file.runtime_version, " (CoreCLR)\n");
    fprintf(out, "  process    pid %" PRIu32 ": ", tr->file.pid);
    put_esc(out, "", tr->file.command_line, "\n");
    fprintf(out, "  mode       %s", (tr->file.flags & TRACE_FLAG_ATTACHED) ? "attached" : "launched");
    if ((tr->file.flags & TRACE_FLAG_NOTIFICATION) && rp_main_profiler(tr)[0])
        put_esc(out, ", as a notification profiler beside the process's main profiler, ", rp_main_profiler(tr), "");
    else if (tr->file.flags & TRACE_FLAG_NOTIFICATION)
        fputs(", as a notification profiler", out);
    fputc('\n', out);
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        if (e->kind == TK_ATTACH) {
            char took[32];
            fmt_ms(took, sizeof(took), e->attach.catchup_ns);
            fprintf(out, "  catch-up   %u modules, %u assemblies, %u threads, %u JIT-compiled functions "
                    "(took %s)\n", e->attach.modules, e->attach.assemblies, e->attach.threads,
                    e->attach.functions, took);
        }
    }
    fprintf(out, "  started    %s\n", buf);
    fmt_ms(buf, sizeof(buf), tr->end_t);
    fprintf(out, "  recorded   %s (the whole trace)\n", buf);
    recorded_kinds(counts, out);
    if (p && rp_view_of(p->view)->family == RP_FAMILY_TIME && p->process_cpu_ns && p->duration_ns)
        fprintf(out, "  CPU        the process used %.2f s of CPU time in the %.2f s sampled (%.2f CPUs on "
                "average)\n", (double)p->process_cpu_ns / 1e9, (double)p->duration_ns / 1e9,
                (double)p->process_cpu_ns / (double)p->duration_ns);
    pr = rp_problem(tr, problem, sizeof(problem));
    put_esc(out, "  trace      ", pr ? pr : "complete", "\n");
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_NOTE)
            put_esc(out, "  note       ", tr->ev[i].note.text, "\n");
    if (p && p->ticks && rp_profile_rate_low(p))
        fprintf(out, "  warning    the sampler achieved %.1f samples a second of the %.1f asked: %s\n", p->rate_hz,
                rp_profile_asked_hz(p), p->engine == SAMPLER_ENGINE_SIGNAL ? rp_profile_rate_low_reason(p)
                : "ticks are skipped while a GC holds the runtime, or the sampler waits for a CPU");
    if (p && p->nsamples && p->failed * 20 > p->nsamples)
        fprintf(out, "  warning    %" PRIu64 " samples lost or not taken beside the %zu shown\n", p->failed,
                p->nsamples);
    return ferror(out) ? -1 : 0;
}

int rp_write_text_answers(const rp_trace *tr, FILE *out)
{
    int thrown = 0;

    for (size_t i = 0; i < tr->nev && !thrown; i++)
        thrown = tr->ev[i].kind == TK_EXCEPTION_THROWN || tr->ev[i].kind == TK_EXCEPTION_CATCH;
    if (thrown)
        print_exceptions(tr, out);
    print_heap(tr, out);
    print_traced(tr, out);
    return ferror(out) ? -1 : 0;
}

int rp_write_text_inventory(const rp_trace *tr, FILE *out)
{
    uint64_t counts[TK_KIND_MAX + 1] = { 0 };
    int thrown = 0;

    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind > 0 && tr->ev[i].kind <= TK_KIND_MAX)
            counts[tr->ev[i].kind]++;
    thrown = counts[TK_EXCEPTION_THROWN] || counts[TK_EXCEPTION_CATCH];
    fputs("\n-- What else the trace holds --\n", out);
    section(out, "Events by kind");
    for (int k = 1; k <= TK_KIND_MAX; k++)
        if (counts[k])
            fprintf(out, "  %-20s %10" PRIu64 "\n", rp_kind_name(k), counts[k]);
    print_modules(tr, out);
    print_jit(tr, out);
    print_threads(tr, out);
    print_gcs(tr, out);
    if (!thrown)
        fputs("\nExceptions: none thrown\n", out);
    return ferror(out) ? -1 : 0;
}

int rp_write_text(const rp_trace *tr, const char *path, FILE *out)
{
    int rc = rp_write_text_header(tr, path, NULL, out);
    if (rc == 0)
        rc = rp_write_text_answers(tr, out);
    if (rc == 0)
        rc = rp_write_text_inventory(tr, out);
    return rc;
}

void rp_write_processes(const char *title, const rp_report_trace *t, size_t n, FILE *out)
{
    fprintf(out, "%s\n", title);
    for (size_t i = 0; i < n; i++) {
        char shown[PATH_MAX * 4];
        esc_buf(shown, sizeof(shown), t[i].path, strlen(t[i].path), NULL);
        fprintf(out, "  %-32s %10.1f ms  %s\n", t[i].label, (double)t[i].trace->end_t / 1e6, shown);
    }
}
