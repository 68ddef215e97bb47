/* html.c - the profile as one self-contained HTML page with an interactive
 * flame graph (the page itself, HTML, CSS and JS, is in src/report/page/,
 * written by html_page.c).
 *
 * The samples are aggregated here into one call tree per thread, so the page
 * stays small however many samples there are; the page merges them for the
 * all-threads view.  The data goes into the page as one JSON object:
 *
 *   { "title", "view": "cpu"|"wall"|"alloc"|"alloc-count"|"live"|"contention" (views.h),
 *     "period_ns", "samples", "total_samples",
 *     "ticks", "suspend_ns", "max_suspend_ns", "sampler_cpu_ns", "failed",
 *     "engine": "suspend"|"signal", "clock": "percpu"|"perf"|"timer", "rate_unit", "truncated", "waiting",
 *     "duration_ns", "cpu_ns", "cpu_unshown_ns", "total_ns", "rate_hz", "rate_low",
 *                                             the totals (profile.h): total_ns is what the
 *                                             view's samples stand for (rp_profile_total)
 *     "unit", "counts", "count_total", "view_counts", "totals": [line, ...],
 *                                             only in the views that weigh samples (not cpu,
 *                                             wall): the unit of the trees' counts, their sum,
 *                                             what the view counts, the text report's totals
 *     "sampler",                              which sampler ran and why, as the text says it
 *                                             (only when the trace says it)
 *     "process_cpu_ns", "process_cpu",        the process's CPU (the kernel's count) and the
 *                                             text's line about it: only when the trace has it
 *     "frames": [name, ...],                  only the names some sample uses
 *     "threads": [{ "name" (the label), "mname", "kname", "id" ("0x..."), "tid", "samples", "cpu_ns",
 *                   "weight" (the views that weigh samples), "tree": [frame, samples, children, ...],
 *                   "times": [bucket, node, count, ...] }],
 *     "t0_ns", "bucket_ns", "buckets",        the overview strip (with samples at two times or more):
 *                                             the samples' span cut in `buckets` buckets of
 *                                             bucket_ns from t0_ns (ns since the trace's start);
 *                                             a thread's "times" say how much of each tree node's
 *                                             own count (the samples whose stack ends there: node is
 *                                             the node's number in the tree's preorder) falls in
 *                                             each bucket, so the page can show the flame graph of
 *                                             any range of buckets
 *     "views": [{ the members above, for another view }, ...]
 *                                             the other views the trace has, for the page's
 *                                             view picker (rp_write_html_views)
 *     "gc": { "wall_ns", "from_suspensions", "gcs": [[t, end_t, generations, reason, pause_start,
 *             pause_ns, gen0, gen1, gen2, loh, poh (bytes before), the same five after], ...] } }
 *                                             only with a trace that has GCs (rp_write_html_gc;
 *                                             report/gc_timeline.h; sizes all 0: unknown)
 *     "heap": {...}                           the last heap snapshot, bounded: only with a trace
 *                                             that has one (rp_write_html_gc; html_heap.c)
 *     "calls": { "wall_ns", "logged", "names": [method, ...], "tids": [os_tid, ...],
 *                "calls": [[t, duration_ns, name, tid, depth, exception], ...] }
 *                                             the traced calls logged (--trace-calls), the first
 *                                             HTML_CALLS_MAX of them: only with a trace that has them
 *
 * A tree is its nodes in preorder, three numbers each: the frame (an index
 * into frames; -1 for the thread's root), the samples whose stack passes
 * through the node (in the views that weigh samples, their weights: bytes,
 * objects, nanoseconds: rp_sample_count), and the number of children,
 * whose subtrees follow.
 * Samples without a managed frame get the frame "[no managed frames]".
 *
 * The JSON sits in a <script type="application/json"> element, so every
 * '<', '>' and '&' in it is written as a \u escape: no name can close the
 * element or start a comment. */
#include "report/report.h"
#include "report/html_heap.h"
#include "report/html_page.h"
#include "common/idmap.h"
#include "report/gc_timeline.h"
#include "report/json.h"
#include "report/sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char no_frames[] = "[no managed frames]";

/* ---- the call trees: nodes linked to their first child and next sibling,
 * found by (parent, frame) in one index (idmap.h) for all threads ---- */

#define NONE UINT32_MAX

typedef struct hnode {
    uint32_t frame, parent, kid, next, nkids;
    uint64_t samples;
} hnode;

typedef struct forest {
    hnode *n;
    size_t len, cap;
    idindex *kids;           /* the nodes but the roots, by (parent, frame) */
} forest;

static long new_node(forest *fo, uint32_t frame, uint32_t parent)
{
    hnode *n;
    if (fo->len == fo->cap) {
        size_t nc = fo->cap ? fo->cap * 2 : 1024;
        hnode *nn = realloc(fo->n, nc * sizeof(*nn));
        if (!nn)
            return -1;
        fo->n = nn;
        fo->cap = nc;
    }
    n = &fo->n[fo->len];
    n->frame = frame;
    n->parent = parent;
    n->kid = NONE;
    n->next = NONE;
    n->nkids = 0;
    n->samples = 0;
    if (parent != NONE) {
        n->next = fo->n[parent].kid;
        fo->n[parent].kid = (uint32_t)fo->len;
        fo->n[parent].nkids++;
    }
    return (long)fo->len++;
}

typedef struct kid_key {
    const hnode *n;
    uint32_t parent, frame;
} kid_key;

static int same_kid(const void *ctx, uint32_t entry)
{
    const kid_key *k = ctx;
    return k->n[entry].parent == k->parent && k->n[entry].frame == k->frame;
}

/* The child of parent for frame, made if new.  Returns its index or -1. */
static long child(forest *fo, uint32_t parent, uint32_t frame)
{
    uint64_t h = (uint64_t)parent << 32 | frame;          /* (the index mixes it) */
    kid_key key = { fo->n, parent, frame };
    long c = idindex_find(fo->kids, h, same_kid, &key);

    if (c >= 0)
        return c;
    c = new_node(fo, frame, parent);
    if (c >= 0 && idindex_add(&fo->kids, h, (uint32_t)c) < 0)
        return -1;
    return c;
}

/* ---- output ---- */

#define HTML_CALLS_MAX 20000     /* calls drawn on the page at most (the first ones) */

/* The index of s in v (n entries), added when missing; -1 if full. */
static long intern(const char **v, size_t *n, size_t cap, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(v[i], s) == 0)
            return (long)i;
    if (*n == cap)
        return -1;
    v[*n] = s;
    return (long)(*n)++;
}

/* The data object's "calls" member (see the top of the file), if tr has
 * call records. */
static void write_calls(const rp_trace *tr, FILE *out)
{
    enum { MAX_NAMES = 256, MAX_TIDS = 256 };
    const char *names[MAX_NAMES], *fallback = "[unknown]";
    uint32_t tids[MAX_TIDS];
    size_t nnames = 0, ntids = 0, logged = 0, shown = 0;
    idmap fnames;
    uint64_t v, id;

    for (size_t i = 0; i < tr->nev; i++)
        logged += tr->ev[i].kind == TK_CALL;
    if (!logged)
        return;
    idmap_init(&fnames);
    for (size_t i = 0; i < tr->nev; i++) {
        const char *nm = rp_function_name(&tr->ev[i], &id);
        if (nm && nm[0])
            idmap_put(&fnames, id, i);
    }
    fprintf(out, ",\n\"calls\":{\"wall_ns\":%" PRIu64 ",\"logged\":%zu,\"calls\":[", tr->end_t, logged);
    for (size_t i = 0; i < tr->nev && shown < HTML_CALLS_MAX; i++) {
        const rp_event *e = &tr->ev[i];
        const char *nm;
        long ni, ti = -1;
        if (e->kind != TK_CALL)
            continue;
        nm = idmap_get(&fnames, e->call.function, &v) ? rp_function_name(&tr->ev[v], &id) : fallback;
        for (size_t k = 0; k < ntids; k++)
            if (tids[k] == e->call.os_tid)
                ti = (long)k;
        if (ti < 0 && ntids < MAX_TIDS) {
            tids[ntids] = e->call.os_tid;
            ti = (long)ntids++;
        }
        if ((ni = intern(names, &nnames, MAX_NAMES, nm)) < 0 || ti < 0)
            continue;
        fprintf(out, "%s[%" PRIu64 ",%" PRIu64 ",%ld,%ld,%" PRIu32 ",%d]", shown ? "," : "", e->t,
                e->call.duration_ns, ni, ti, e->call.depth, (e->call.flags & CALL_FLAG_EXCEPTION) ? 1 : 0);
        shown++;
    }
    fputs("],\"names\":[", out);
    for (size_t k = 0; k < nnames; k++) {
        if (k)
            putc(',', out);
        json_string(out, names[k]);
    }
    fputs("],\"tids\":[", out);
    for (size_t k = 0; k < ntids; k++)
        fprintf(out, "%s%" PRIu32, k ? "," : "", tids[k]);
    fputs("]}", out);
    idmap_free(&fnames);
}

/* The data object's "gc" member (see the top of the file), if tl has GCs. */
static void write_gc(const rp_gc_timeline *tl, FILE *out)
{
    if (!tl || !tl->n)
        return;
    fprintf(out, ",\n\"gc\":{\"wall_ns\":%" PRIu64 ",\"from_suspensions\":%s,\"gcs\":[", tl->wall_ns,
            tl->from_suspensions ? "true" : "false");
    for (size_t i = 0; i < tl->n; i++) {
        const rp_gc *g = &tl->gc[i];
        fprintf(out, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64, i ? ",\n" : "\n",
                g->t, g->end_t, g->generations, g->reason, g->pause_start, g->pause_ns);
        for (int k = 0; k < RP_GC_GENS; k++)
            fprintf(out, ",%" PRIu64, g->before[k]);
        for (int k = 0; k < RP_GC_GENS; k++)
            fprintf(out, ",%" PRIu64, g->after[k]);
        putc(']', out);
    }
    fputs("]}", out);
}

/* The call trees of p's samples, one per thread (roots[t], NONE if it has
 * none), each node counting rp_sample_count (samples in the cpu and wall
 * views, the weight in the others); the frames the trees use, in order of
 * use (used), and each frame's number among them (remap, p->nframes: the
 * frame of samples without one).  Returns 0, or -1 (out of memory). */
static int build_forest(const rp_profile *p, forest *fo, uint32_t *roots, uint32_t *remap, uint32_t *used,
                        size_t *nused, uint32_t *leaf)
{
    for (size_t t = 0; t < p->nthreads; t++)
        roots[t] = NONE;
    for (size_t f = 0; f <= p->nframes; f++)
        remap[f] = NONE;
    *nused = 0;
    for (size_t i = 0; i < p->nsamples; i++) {
        const rp_sample *s = &p->samples[i];
        uint32_t nf = s->nframes ? s->nframes : 1;
        uint64_t c = rp_sample_count(p, s);
        long node;
        if (s->thread >= p->nthreads)
            continue;
        if (roots[s->thread] == NONE) {
            long r = new_node(fo, 0, NONE);
            if (r < 0)
                return -1;
            roots[s->thread] = (uint32_t)r;
        }
        node = roots[s->thread];
        fo->n[node].samples += c;
        for (uint32_t k = 0; k < nf; k++) {
            uint32_t f = s->nframes ? s->frames[k] : (uint32_t)p->nframes;
            if (f > p->nframes)
                f = (uint32_t)p->nframes;
            if (remap[f] == NONE) {
                remap[f] = (uint32_t)*nused;
                used[(*nused)++] = f;
            }
            node = child(fo, (uint32_t)node, f);
            if (node < 0)
                return -1;
            fo->n[node].samples += c;
        }
        leaf[i] = (uint32_t)node;
    }
    return 0;
}

/* ---- the overview strip: each sample's count by (thread, time bucket, leaf node) ---- */

#define HTML_BUCKETS 200

typedef struct when { uint32_t thread, bucket, node; uint64_t count; } when;

static int by_when(const void *x, const void *y)
{
    const when *a = x, *b = y;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->bucket != b->bucket)
        return a->bucket < b->bucket ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

/* The samples' (thread, bucket, preorder node) counts, merged and sorted;
 * NULL with *n 0 when the samples do not span two times. */
static when *times_of(const rp_profile *p, const uint32_t *leaf, const uint32_t *pre, uint64_t *t0,
                      uint64_t *width, size_t *n)
{
    when *w;
    size_t k = 0;

    *n = 0;
    if (p->nsamples < 2 || p->samples[p->nsamples - 1].t <= p->samples[0].t)
        return NULL;
    *t0 = p->samples[0].t;
    *width = (p->samples[p->nsamples - 1].t - *t0) / HTML_BUCKETS + 1;
    if ((w = malloc(p->nsamples * sizeof(*w))) == NULL)
        return NULL;
    for (size_t i = 0; i < p->nsamples; i++) {
        const rp_sample *s = &p->samples[i];
        if (s->thread >= p->nthreads)
            continue;
        w[k++] = (when){ s->thread, (uint32_t)((s->t - *t0) / *width), pre[leaf[i]], rp_sample_count(p, s) };
    }
    rp_sort(w, k, sizeof(*w), by_when);
    for (size_t i = 0; i < k; i++) {
        if (*n && by_when(&w[*n - 1], &w[i]) == 0)
            w[*n - 1].count += w[i].count;
        else
            w[(*n)++] = w[i];
    }
    return w;
}

/* The totals lines of the text report (rp_write_profile_totals) as a JSON
 * array of strings. */
static int totals_json(const rp_profile *p, FILE *out)
{
    char *text = NULL, *line;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int first = 1;

    if (!mem)
        return -1;
    rp_write_profile_totals(p, "", mem);
    if (fclose(mem) != 0) {
        free(text);
        return -1;
    }
    putc('[', out);
    for (line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (!first)
            putc(',', out);
        json_string(out, line);
        first = 0;
        line = nl ? nl + 1 : NULL;
    }
    putc(']', out);
    free(text);
    return 0;
}

/* One view's members of the data object (see the top of the file), without
 * the braces, as JSON into out. */
static int write_view(const rp_profile *p, const char *title, FILE *out)
{
    const rp_view_info *vi = rp_view_of(p->view);
    forest fo = { NULL, 0, 0, NULL };
    uint32_t *roots = malloc((p->nthreads ? p->nthreads : 1) * sizeof(*roots));
    uint32_t *remap = malloc((p->nframes + 1) * sizeof(*remap));
    uint32_t *used = malloc((p->nframes + 1) * sizeof(*used));
    uint32_t *stack = NULL, *leaf = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*leaf)), *pre = NULL;
    when *times = NULL;
    size_t nused = 0, ntimes = 0, at = 0;
    uint64_t t0 = 0, width = 0;
    char process[512];
    int rc = -1;

    if (!roots || !remap || !used || !leaf || build_forest(p, &fo, roots, remap, used, &nused, leaf) < 0 ||
        !(stack = malloc((fo.len ? fo.len : 1) * sizeof(*stack))) ||
        !(pre = malloc((fo.len ? fo.len : 1) * sizeof(*pre))))
        goto out;
    /* each node's number in its thread's preorder (the order the trees are written in) */
    for (size_t t = 0; t < p->nthreads; t++) {
        size_t sp = 0;
        uint32_t k = 0;
        if (roots[t] != NONE)
            stack[sp++] = roots[t];
        while (sp) {
            uint32_t i = stack[--sp];
            pre[i] = k++;
            for (uint32_t c = fo.n[i].kid; c != NONE; c = fo.n[c].next)
                stack[sp++] = c;
        }
    }
    times = times_of(p, leaf, pre, &t0, &width, &ntimes);
    if (ntimes)
        fprintf(out, "\"t0_ns\":%" PRIu64 ",\"bucket_ns\":%" PRIu64 ",\"buckets\":%d,\n", t0, width, HTML_BUCKETS);
    fputs("\"title\":", out);
    json_string(out, title ? title : "clrprobe profile");
    fprintf(out, ",\"view\":\"%s\",\"period_ns\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"total_samples\":%" PRIu64
            ",\n\"ticks\":%" PRIu64 ",\"suspend_ns\":%" PRIu64 ",\"max_suspend_ns\":%" PRIu64
            ",\"sampler_cpu_ns\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"engine\":\"%s\",\"clock\":\"%s\",\"rate_unit\":\"%s\""
            ",\"truncated\":%" PRIu64 ",\"waiting\":%" PRIu64 ",\n",
            vi->name, p->period_ns, vi->counts_samples ? rp_profile_count_total(p) : (uint64_t)p->nsamples,
            vi->counts_samples ? p->total_count : p->total_samples, p->ticks,
            p->suspend_ns, p->max_suspend_ns, p->sampler_cpu_ns, p->failed,
            p->engine == SAMPLER_ENGINE_SIGNAL ? "signal" : "suspend",
            p->engine == SAMPLER_ENGINE_SIGNAL ? rp_clock_name(p->clock) : "timer",
            rp_profile_rate_unit(p), p->truncated,
            p->waiting);
    fprintf(out, "\"duration_ns\":%" PRIu64 ",\"cpu_ns\":%" PRIu64 ",\"cpu_unshown_ns\":%" PRIu64
            ",\"total_ns\":%" PRIu64 ",\"rate_hz\":%.3f,\"rate_low\":%s,\n", p->duration_ns, p->cpu_ns,
            p->cpu_unshown_ns, rp_profile_total(p), p->rate_hz, rp_profile_rate_low(p) ? "true" : "false");
    if (!vi->counts_samples) {            /* the other views: what the trees count, and the totals as text */
        fprintf(out, "\"unit\":\"%s\",\"counts\":\"%s\",\"count_total\":%" PRIu64 ",\"view_counts\":", vi->unit,
                vi->unit, rp_profile_count_total(p));
        json_string(out, vi->counts);
        fputs(",\"totals\":", out);
        if (totals_json(p, out) < 0)
            goto out;
        fputs(",\n", out);
    }
    if (p->sampler_why[0]) {          /* which sampler and why, as the text says it */
        char sampler[512];
        rp_format_sampler(p->engine, p->clock, p->sampler_why, sampler, sizeof(sampler));
        fputs("\"sampler\":", out);
        json_string(out, sampler);
        fputs(",\n", out);
    }
    if (rp_format_process_cpu(p, process, sizeof(process))) {      /* the kernel's count, as the text says it */
        fprintf(out, "\"process_cpu_ns\":%" PRIu64 ",\"process_cpu\":", p->process_cpu_ns);
        json_string(out, process);
        fputs(",\n", out);
    }
    fputs("\"frames\":[", out);
    for (size_t k = 0; k < nused; k++) {
        if (k)
            fputs(",\n", out);
        json_string(out, used[k] < p->nframes ? p->frames[used[k]] : no_frames);
    }
    fputs("],\n\"threads\":[", out);
    for (size_t t = 0; t < p->nthreads; t++) {
        size_t sp = 0, written = 0;
        fputs(t ? ",\n{\"name\":" : "\n{\"name\":", out);
        json_string(out, p->threads[t].name);
        fputs(",\"mname\":", out);
        json_string(out, p->threads[t].managed_name ? p->threads[t].managed_name : "");
        fputs(",\"kname\":", out);
        json_string(out, p->threads[t].os_name ? p->threads[t].os_name : "");
        fprintf(out, ",\"id\":\"0x%" PRIx64 "\",\"tid\":%" PRIu32 ",\"samples\":%" PRIu64 ",\"cpu_ns\":%" PRIu64,
                p->threads[t].managed_id, p->threads[t].os_tid,
                vi->counts_samples ? p->threads[t].count : p->threads[t].samples, p->threads[t].cpu_ns);
        if (!vi->counts_samples)
            fprintf(out, ",\"weight\":%" PRIu64, p->threads[t].weight);
        fputs(",\"tree\":[", out);
        /* preorder: a node's subtree is done before the stack gets to its next sibling */
        if (roots[t] != NONE)
            stack[sp++] = roots[t];
        while (sp) {
            const hnode *n = &fo.n[stack[--sp]];
            if (written)
                putc(',', out);
            if (n->parent == NONE)
                fprintf(out, "-1,%" PRIu64 ",%" PRIu32, n->samples, n->nkids);
            else
                fprintf(out, "%" PRIu32 ",%" PRIu64 ",%" PRIu32, remap[n->frame], n->samples, n->nkids);
            if (++written % 24 == 0)
                putc('\n', out);
            for (uint32_t k = n->kid; k != NONE; k = fo.n[k].next)
                stack[sp++] = k;
        }
        putc(']', out);
        if (ntimes) {
            fputs(",\"times\":[", out);
            for (size_t w = 0; at < ntimes && times[at].thread == t; at++, w++)
                fprintf(out, "%s%" PRIu32 ",%" PRIu32 ",%" PRIu64, w ? (w % 16 ? "," : ",\n") : "", times[at].bucket,
                        times[at].node, times[at].count);
            putc(']', out);
        }
        putc('}', out);
    }
    fputc(']', out);
    rc = ferror(out) ? -1 : 0;
out:
    free(stack);
    free(leaf);
    free(pre);
    free(times);
    free(fo.n);
    idindex_free(fo.kids);
    free(roots);
    free(remap);
    free(used);
    return rc;
}

/* The data object (see the top of the file) as JSON into out. */
static int write_data(const rp_profile *const *views, size_t nviews, const rp_gc_timeline *tl, const rp_trace *tr,
                      const char *title, FILE *out)
{
    fputc('{', out);
    if (write_view(views[0], title, out) < 0)
        return -1;
    if (nviews > 1) {
        fputs(",\n\"views\":[", out);
        for (size_t v = 1; v < nviews; v++) {
            fputs(v > 1 ? ",\n{" : "\n{", out);
            if (write_view(views[v], title, out) < 0)
                return -1;
            fputc('}', out);
        }
        fputc(']', out);
    }
    write_gc(tl, out);
    if (tr)
        write_calls(tr, out);
    if (tr && rp_html_has_heap(tr)) {
        fputs(",\n", out);
        if (rp_write_html_heap(tr, out) < 0)
            return -1;
    }
    fputc('}', out);
    return ferror(out) ? -1 : 0;
}

int rp_write_html(const rp_profile *p, const char *title, FILE *out)
{
    return rp_write_html_gc(p, NULL, title, out);
}

int rp_write_html_gc(const rp_profile *p, const rp_trace *tr, const char *title, FILE *out)
{
    return rp_write_html_views(&p, 1, tr, title, out);
}

int rp_write_html_views(const rp_profile *const *views, size_t nviews, const rp_trace *tr, const char *title,
                        FILE *out)
{
    rp_gc_timeline tl = { 0 };
    char *json = NULL;
    size_t json_len = 0;
    FILE *mem = NULL;
    int rc = -1;

    if (tr && rp_gc_timeline_build(tr, &tl) < 0)
        goto out;
    /* the JSON goes through a buffer to be made safe inside <script> */
    mem = open_memstream(&json, &json_len);
    if (!mem)
        goto out;
    if (write_data(views, nviews, &tl, tr, title, mem) < 0)
        goto out;
    if (fclose(mem) != 0) {
        mem = NULL;
        goto out;
    }
    mem = NULL;

    rc = rp_html_page_write(out, title ? title : "clrprobe profile", json, json_len);
out:
    if (mem)
        fclose(mem);
    free(json);
    rp_gc_timeline_free(&tl);
    return rc;
}
