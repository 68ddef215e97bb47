/* method_stats.c - traced methods' calls and latencies from a trace's
 * method_stats records (method_stats.h).  An agent writes a cumulative
 * record per (thread, method) now and then and at the end, so only the
 * last of each pair counts; merging adds the counts and the histograms. */
#include "report/method_stats.h"
#include "common/idmap.h"
#include "common/latency_hist.h"
#include "trace/format.h"
#include "report/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const rp_trace *g_tr;         /* for the sort comparators */

static int by_pair(const void *x, const void *y)
{
    const rp_event *a = &g_tr->ev[*(const size_t *)x], *b = &g_tr->ev[*(const size_t *)y];
    const rec_method_stats *ra = &a->method_stats, *rb = &b->method_stats;
    if (ra->function != rb->function)
        return ra->function < rb->function ? -1 : 1;
    if (ra->os_tid != rb->os_tid)
        return ra->os_tid < rb->os_tid ? -1 : 1;
    if (ra->thread != rb->thread)
        return ra->thread < rb->thread ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int by_total(const void *x, const void *y)
{
    const rp_mstat *a = x, *b = y;
    if (a->total_ns != b->total_ns)
        return a->total_ns < b->total_ns ? 1 : -1;
    return strcmp(a->name, b->name);
}

static int by_name_thread(const void *x, const void *y)
{
    const rp_mstat *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->os_tid < b->os_tid ? -1 : a->os_tid > b->os_tid;
}

static int by_pair_same(const rp_trace *tr, size_t x, size_t y)
{
    const rec_method_stats *a = &tr->ev[x].method_stats, *b = &tr->ev[y].method_stats;
    return a->function == b->function && a->os_tid == b->os_tid && a->thread == b->thread;
}

/* The traced_method record of a function (NULL if none): the last, IDs
 * being reused after an unload. */
static const rp_event *traced_record(const rp_trace *tr, const idmap *traced, uint64_t function)
{
    uint64_t v;
    return idmap_get(traced, function, &v) ? &tr->ev[v] : NULL;
}

static void percentiles(rp_mstat *s, const uint32_t *counts)
{
    s->p50_ns = lh_quantile(counts, 0.50, s->max_ns);
    s->p90_ns = lh_quantile(counts, 0.90, s->max_ns);
    s->p99_ns = lh_quantile(counts, 0.99, s->max_ns);
}

static int by_name_order(const void *x, const void *y)
{
    const rp_event *a = &g_tr->ev[*(const size_t *)x], *b = &g_tr->ev[*(const size_t *)y];
    int c = strcmp(a->traced_method.name, b->traced_method.name);
    return c ? c : a->order < b->order ? -1 : a->order > b->order;
}

static void rename_rows(rp_mstat *rows, size_t n, uint64_t function, const char *label)
{
    for (size_t r = 0; r < n; r++)
        if (rows[r].function == function)
            rows[r].name = label;
}

/* Overloads share a name: number them in the order the agent met them, in
 * the merged and the per-thread rows alike. */
static void tell_overloads(const rp_trace *tr, rp_mstats *m)
{
    size_t *idx, n = 0;

    for (size_t i = 0; i < tr->nev; i++)
        n += tr->ev[i].kind == TK_TRACED_METHOD && tr->ev[i].traced_method.how != TRACE_HOW_NONE;
    if (n < 2 || !(idx = malloc(n * sizeof(*idx))))
        return;
    n = 0;
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_TRACED_METHOD && tr->ev[i].traced_method.how != TRACE_HOW_NONE)
            idx[n++] = i;
    g_tr = tr;
    rp_sort(idx, n, sizeof(*idx), by_name_order);
    for (size_t i = 0; i < n;) {
        const char *name = tr->ev[idx[i]].traced_method.name;
        size_t j = i;
        while (j < n && strcmp(tr->ev[idx[j]].traced_method.name, name) == 0)
            j++;
        for (size_t k = i; j - i > 1 && k < j; k++) {
            char **grown = realloc(m->owned, (m->nowned + 1) * sizeof(*grown));
            char *label = NULL;
            if (!grown)
                break;
            m->owned = grown;
            if (asprintf(&label, "%s [overload %zu of %zu]", name, k - i + 1, j - i) < 0)
                break;
            m->owned[m->nowned++] = label;
            rename_rows(m->merged, m->nmerged, tr->ev[idx[k]].traced_method.function, label);
            rename_rows(m->per_thread, m->nper_thread, tr->ev[idx[k]].traced_method.function, label);
        }
        i = j;
    }
    free(idx);
}

int rp_mstats_build(const rp_trace *tr, rp_mstats *m)
{
    size_t *idx = NULL, n = 0;
    uint32_t *counts = NULL, *one = NULL;
    idmap traced;

    memset(m, 0, sizeof(*m));
    m->wall_ns = tr->end_t;
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        if (e->kind == TK_METHOD_STATS)
            n++;
        else if (e->kind == TK_CALL)
            m->calls_logged++;
        else if (e->kind == TK_TRACED_METHOD && e->traced_method.how == TRACE_HOW_NONE)
            m->nuntraced++;
        else if (e->kind == TK_TRACED_METHOD)
            m->ntraced++;
    }
    if (m->nuntraced && !(m->untraced = calloc(m->nuntraced, sizeof(*m->untraced))))
        return -1;
    m->nuntraced = 0;
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_TRACED_METHOD && tr->ev[i].traced_method.how == TRACE_HOW_NONE)
            m->untraced[m->nuntraced++] = &tr->ev[i];
    if (n == 0)
        return 0;
    idx = malloc(n * sizeof(*idx));
    m->per_thread = calloc(n, sizeof(*m->per_thread));
    m->merged = calloc(n, sizeof(*m->merged));
    counts = calloc(LH_BUCKETS, sizeof(*counts));
    one = calloc(LH_BUCKETS, sizeof(*one));
    if (!idx || !m->per_thread || !m->merged || !counts || !one) {
        free(idx);
        free(counts);
        free(one);
        rp_mstats_free(m);
        return -1;
    }
    n = 0;
    idmap_init(&traced);
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_METHOD_STATS)
            idx[n++] = i;
        else if (tr->ev[i].kind == TK_TRACED_METHOD)
            idmap_put(&traced, tr->ev[i].traced_method.function, i);
    g_tr = tr;
    rp_sort(idx, n, sizeof(*idx), by_pair);
    for (size_t i = 0; i < n;) {
        uint64_t function = tr->ev[idx[i]].method_stats.function;
        const rp_event *tm = traced_record(tr, &traced, function);
        const char *name = tm ? tm->traced_method.name : "[unknown]";
        rp_mstat *mg = &m->merged[m->nmerged++];
        size_t j = i;

        memset(counts, 0, LH_BUCKETS * sizeof(*counts));
        *mg = (rp_mstat){ .function = function, .name = name, .how = tm ? tm->traced_method.how : 0 };
        while (j < n && tr->ev[idx[j]].method_stats.function == function) {
            /* the last record of this (thread, method) pair */
            size_t k = j;
            const rec_method_stats *r;
            rp_mstat *pt;
            while (k + 1 < n && by_pair_same(tr, idx[k + 1], idx[j]))
                k++;
            r = &tr->ev[idx[k]].method_stats;
            pt = &m->per_thread[m->nper_thread++];
            *pt = (rp_mstat){ .function = function, .name = name, .thread = r->thread, .os_tid = r->os_tid,
                              .threads = 1, .how = mg->how, .calls = r->calls, .exceptions = r->exceptions,
                              .total_ns = r->total_ns, .self_ns = r->self_ns, .max_ns = r->max_ns };
            memset(one, 0, LH_BUCKETS * sizeof(*one));
            if (lh_decode_add(r->histogram, r->histogram_len, one) == 0) {
                percentiles(pt, one);
                lh_decode_add(r->histogram, r->histogram_len, counts);
            }
            mg->threads++;
            mg->calls += r->calls;
            mg->exceptions += r->exceptions;
            mg->total_ns += r->total_ns;
            mg->self_ns += r->self_ns;
            if (r->max_ns > mg->max_ns)
                mg->max_ns = r->max_ns;
            j = k + 1;
        }
        percentiles(mg, counts);
        i = j;
    }
    idmap_free(&traced);
    tell_overloads(tr, m);
    rp_sort(m->merged, m->nmerged, sizeof(*m->merged), by_total);
    rp_sort(m->per_thread, m->nper_thread, sizeof(*m->per_thread), by_name_thread);
    free(idx);
    free(counts);
    free(one);
    return 0;
}

void rp_mstats_free(rp_mstats *m)
{
    for (size_t i = 0; i < m->nowned; i++)
        free(m->owned[i]);
    free(m->owned);
    free(m->per_thread);
    free(m->merged);
    free(m->untraced);
    memset(m, 0, sizeof(*m));
}
