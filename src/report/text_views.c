/* text_views.c - the text summary's sections on allocations, live objects
 * and lock waits (report.h, rp_write_text_views): "Where memory is
 * allocated" (allocation sites by upscaled bytes), "What stays alive"
 * (sites by live bytes, with the objects' ages in GCs) and "Where threads
 * wait" (wait sites by time waited), each when the trace has its records.
 * A site is the leaf of a sample of the view (profile.h): the type
 * allocated, or the lock's type, and the function under it (for a lock,
 * the first under the runtime's Monitor and Lock methods).  Names are
 * escaped as they are printed. */
#include "report/report.h"
#include "report/alloc_estimate.h"
#include "common/escape.h"
#include "common/idmap.h"
#include "report/sort.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOP_SITES 15

static const char no_frames[] = "[no managed frames]";

/* One site: its type frame (UINT32_MAX: none) and function frame
 * (UINT32_MAX: none), what its samples weigh, and the live view's ages. */
typedef struct site {
    uint32_t type, function;
    uint64_t weight;          /* the view's (bytes, nanoseconds) */
    double objects;           /* the allocation views' estimate */
    uint64_t samples;
    uint32_t oldest;
    size_t first;             /* its samples in the order array (sorted by site, then age) */
} site;

/* A frame of the runtime's lock machinery (Monitor.Enter_Slowpath,
 * Lock.TryEnterSlow...): a wait's site is the function that called it. */
static int lock_machinery(const char *name)
{
    return strncmp(name, "System.Threading.Monitor.", 25) == 0 || strncmp(name, "System.Threading.Lock.", 22) == 0;
}

static void site_of(const rp_profile *p, const rp_sample *s, uint32_t *type, uint32_t *function)
{
    uint32_t n = s->nframes;
    *type = s->typed && n ? s->frames[n - 1] : UINT32_MAX;
    n -= s->typed && n ? 1 : 0;
    if (p->view == RP_VIEW_CONTENTION)
        while (n > 1 && lock_machinery(p->frames[s->frames[n - 1]]))
            n--;
    *function = n ? s->frames[n - 1] : UINT32_MAX;
}

static const rp_profile *sort_p;

/* Samples by site, then by age (for the typical age). */
static int by_site(const void *a, const void *b)
{
    const rp_sample *x = &sort_p->samples[*(const size_t *)a], *y = &sort_p->samples[*(const size_t *)b];
    uint32_t xt, xf, yt, yf;
    site_of(sort_p, x, &xt, &xf);
    site_of(sort_p, y, &yt, &yf);
    if (xt != yt)
        return xt < yt ? -1 : 1;
    if (xf != yf)
        return xf < yf ? -1 : 1;
    return x->age < y->age ? -1 : x->age > y->age;
}

static int by_weight(const void *a, const void *b)
{
    const site *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight < y->weight ? 1 : -1;
    return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* The sites of p's samples, heaviest first; *order gets the samples
 * grouped by site (each site's from its first on), by age within one.
 * Returns their number, or -1 (out of memory). */
static long sites_of(const rp_profile *p, site **out, size_t **order)
{
    site *st = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*st));
    size_t *ord = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*ord));
    long n = 0;

    if (!st || !ord) {
        free(st);
        free(ord);
        return -1;
    }
    for (size_t i = 0; i < p->nsamples; i++)
        ord[i] = i;
    sort_p = p;
    rp_sort(ord, p->nsamples, sizeof(*ord), by_site);
    for (size_t i = 0; i < p->nsamples; i++) {
        const rp_sample *s = &p->samples[ord[i]];
        uint32_t type, function;
        site_of(p, s, &type, &function);
        if (!n || st[n - 1].type != type || st[n - 1].function != function) {
            st[n] = (site){ type, function, 0, 0, 0, 0, i };
            n++;
        }
        st[n - 1].weight += s->weight;
        st[n - 1].objects += s->objects;
        st[n - 1].samples++;
        if (s->age > st[n - 1].oldest)
            st[n - 1].oldest = s->age;
    }
    rp_sort(st, (size_t)n, sizeof(*st), by_weight);
    *out = st;
    *order = ord;
    return n;
}

/* "TYPE in FUNCTION", escaped. */
static void put_site(FILE *out, const rp_profile *p, const site *s, const char *untyped)
{
    if (s->type != UINT32_MAX) {
        esc_puts(out, p->frames[s->type]);
        fputs(" in ", out);
    }
    esc_puts(out, s->function != UINT32_MAX ? p->frames[s->function] : no_frames);
    if (s->type == UINT32_MAX && untyped)
        fputs(untyped, out);
    putc('\n', out);
}

/* The age of the site's median live byte: half its live bytes are in
 * objects at least that old. */
static uint32_t typical_age(const rp_profile *p, const site *s, const size_t *order)
{
    uint64_t half = s->weight / 2, sum = 0;
    for (size_t i = s->first; i < s->first + s->samples; i++) {
        sum += p->samples[order[i]].weight;
        if (sum > half)
            return p->samples[order[i]].age;
    }
    return s->samples ? p->samples[order[s->first + s->samples - 1]].age : 0;
}

static void fmt_time(char *buf, size_t len, uint64_t ns)
{
    rp_view_format(RP_VIEW_CONTENTION, ns, buf, len);
}

static int allocated(const rp_trace *tr, const char *thread, unsigned options, FILE *out)
{
    rp_profile p;
    site *st = NULL;
    size_t *order = NULL;
    long n;
    char b[32], d[32];

    if (rp_profile_build_opts(tr, RP_VIEW_ALLOC, thread, options, &p) < 0)
        return -1;
    rp_format_bytes(p.weight_total, b, sizeof(b));
    fmt_time(d, sizeof(d), p.duration_ns);
    fprintf(out, "\nWhere memory is allocated: %s in %.0f objects, from %zu allocation samples%s over %s\n  %s\n", b,
            p.objects, p.nsamples, thread ? " of the threads asked for" : "", d, rp_alloc_scaling(p.alloc_methods, 1));
    if ((n = sites_of(&p, &st, &order)) < 0) {
        rp_profile_free(&p);
        return -1;
    }
    if (n) {
        fprintf(out, "  Top allocation sites (the type, in the function that allocated it) by bytes:\n");
        fprintf(out, "  %12s %7s %12s  %s\n", "bytes", "share", "objects", "site");
        for (long i = 0; i < n && i < TOP_SITES; i++) {
            rp_format_bytes(st[i].weight, b, sizeof(b));
            fprintf(out, "  %12s %6.1f%% %12.0f  ", b,
                    p.weight_total ? 100.0 * (double)st[i].weight / (double)p.weight_total : 0.0, st[i].objects);
            put_site(out, &p, &st[i], NULL);
        }
    }
    free(st);
    free(order);
    rp_profile_free(&p);
    return 0;
}

static int alive(const rp_trace *tr, const char *thread, unsigned options, FILE *out)
{
    rp_profile p;
    site *st = NULL;
    size_t *order = NULL;
    long n;
    char b[32], t[32];
    const char *why;

    if (rp_profile_build_opts(tr, RP_VIEW_LIVE, thread, options, &p) < 0)
        return -1;
    if (!p.followed && !p.live_gcs && !thread) {     /* (not collected: nothing to say beyond the alloc view) */
        rp_profile_free(&p);
        return 0;
    }
    if ((why = rp_live_empty_reason(&p)) != NULL) {
        fprintf(out, "\nWhat stays alive: nothing to show: %s\n", why);
        rp_profile_free(&p);
        return 0;
    }
    rp_format_bytes(p.weight_total, b, sizeof(b));
    fmt_time(t, sizeof(t), p.live_last_gc_t);
    fprintf(out, "\nWhat stays alive after the last GC (GC %" PRIu32 " at %s, the last of %" PRIu32 " the live view "
            "saw): %s in %.0f objects\n  from %zu of %" PRIu64 " followed allocation samples (%s)\n", p.live_last_gc,
            t, p.live_gcs, b, p.objects, p.nsamples, p.followed, rp_alloc_scaling(p.alloc_methods, 0));
    if (p.unexamined) {
        char u[256];
        fprintf(out, "  %s\n", rp_live_unexamined(&p, u, sizeof(u)));
    }
    if ((n = sites_of(&p, &st, &order)) < 0) {
        rp_profile_free(&p);
        return -1;
    }
    fprintf(out, "  Top allocation sites by live bytes; age: the GCs an object survived (oldest, and typical: half\n"
                 "  the bytes are in objects at least that old):\n");
    fprintf(out, "  %12s %7s %12s %7s %8s  %s\n", "bytes", "share", "objects", "oldest", "typical", "site");
    for (long i = 0; i < n && i < TOP_SITES; i++) {
        rp_format_bytes(st[i].weight, b, sizeof(b));
        fprintf(out, "  %12s %6.1f%% %12.0f %7" PRIu32 " %8" PRIu32 "  ", b,
                p.weight_total ? 100.0 * (double)st[i].weight / (double)p.weight_total : 0.0, st[i].objects,
                st[i].oldest, typical_age(&p, &st[i], order));
        put_site(out, &p, &st[i], NULL);
    }
    free(st);
    free(order);
    rp_profile_free(&p);
    return 0;
}

static int waiting(const rp_trace *tr, const char *thread, unsigned options, FILE *out)
{
    rp_profile p;
    site *st = NULL;
    size_t *order = NULL;
    long n;
    char w[32], d[32];

    if (rp_profile_build_opts(tr, RP_VIEW_CONTENTION, thread, options, &p) < 0)
        return -1;
    fmt_time(w, sizeof(w), p.weight_total);
    fmt_time(d, sizeof(d), p.duration_ns);
    fprintf(out, "\nWhere threads wait: %s in %zu lock waits on %zu thread%s%s, over %s\n", w, p.nsamples,
            p.nthreads, p.nthreads == 1 ? "" : "s", thread ? " asked for" : "", d);
    if ((n = sites_of(&p, &st, &order)) < 0) {
        rp_profile_free(&p);
        return -1;
    }
    if (n) {
        fprintf(out, "  Top wait sites (the lock's type, in the function that waited) by time waited:\n");
        fprintf(out, "  %12s %7s %8s  %s\n", "total wait", "share", "waits", "site");
        for (long i = 0; i < n && i < TOP_SITES; i++) {
            fmt_time(w, sizeof(w), st[i].weight);
            fprintf(out, "  %12s %6.1f%% %8" PRIu64 "  ", w,
                    p.weight_total ? 100.0 * (double)st[i].weight / (double)p.weight_total : 0.0, st[i].samples);
            put_site(out, &p, &st[i], " (lock type unknown)");
        }
    }
    free(st);
    free(order);
    rp_profile_free(&p);
    return 0;
}

int rp_write_text_views(const rp_trace *tr, const char *thread, unsigned options, FILE *out)
{
    int rc = 0;

    if (rp_count_view_records(tr, RP_VIEW_ALLOC)) {
        rc = allocated(tr, thread, options, out);
        if (rc == 0)
            rc = alive(tr, thread, options, out);
    }
    if (rc == 0 && rp_count_view_records(tr, RP_VIEW_CONTENTION))
        rc = waiting(tr, thread, options, out);
    return rc < 0 || ferror(out) ? -1 : 0;
}
