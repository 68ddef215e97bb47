/* pprof.c - the profile as a gzip-compressed profile.proto message (the
 * format of google/pprof; the messages used are transcribed in
 * docs/profile.proto), for `go tool pprof` and profiling backends.
 *
 * One Function and one Location per frame name (ids: frame index + 1); one
 * Sample per distinct (thread, stack) with the counts summed, its locations
 * leaf first, its values [samples, nanoseconds] where the nanoseconds are
 * the samples' measured CPU time (CPU view) or samples x period (wall view:
 * rp_sample_weight), so `go tool pprof`'s total is the report's total, and a
 * "thread" label (the thread's label, plus the numeric "thread_id", the OS
 * thread id).  duration_nanos is the recording window; the comments are the
 * trace's name and the totals line of the text report.  The contention view
 * is the same with values [contentions, nanoseconds waited]; the allocation
 * views (alloc, alloc-count, live) are one heap profile as Go writes them,
 * values [alloc_objects, alloc_space, inuse_objects, inuse_space] (the
 * upscaled estimates of every allocation sample, and of those alive after
 * the last GC), the view's as the default sample type.  One Mapping (id 1)
 * holds every location and is marked as having functions already.  The encoder is a small one of our own: each submessage is
 * encoded into a buffer so its length can be written first, and the
 * top-level fields go through zlib's deflate (gzip wrapper) to the stream as
 * they are made. */
#include "common/escape.h"
#include "common/hash.h"
#include "common/idmap.h"
#include "report/heap_model.h"
#include "report/heap_paths.h"
#include "report/alloc_estimate.h"
#include "report/report.h"
#include "trace/format.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- a growable byte buffer with protobuf encoding ---- */

typedef struct pbuf {
    unsigned char *d;
    size_t n, cap;
    int oom;
} pbuf;

static void pb_put(pbuf *b, const void *data, size_t n)
{
    if (b->oom)
        return;
    if (b->cap - b->n < n) {
        size_t nc = b->cap ? b->cap : 256;
        unsigned char *nd;
        while (nc - b->n < n)
            nc *= 2;
        nd = realloc(b->d, nc);
        if (!nd) {
            b->oom = 1;
            return;
        }
        b->d = nd;
        b->cap = nc;
    }
    memcpy(b->d + b->n, data, n);
    b->n += n;
}

static void pb_varint(pbuf *b, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (unsigned char)v;
    pb_put(b, tmp, n);
}

static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

enum { WT_VARINT = 0, WT_LEN = 2 };

static void pb_tag(pbuf *b, uint32_t field, int wire_type)
{
    pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire_type);
}

/* A varint field (int64 and uint64 alike: our values are never negative). */
static void pb_uint(pbuf *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, WT_VARINT);
    pb_varint(b, v);
}

/* A length-delimited field whose content is inner. */
static void pb_msg(pbuf *b, uint32_t field, const pbuf *inner)
{
    if (inner->oom)
        b->oom = 1;
    pb_tag(b, field, WT_LEN);
    pb_varint(b, inner->n);
    pb_put(b, inner->d, inner->n);
}

/* A string field.  Names and the title are escaped (common/escape.h):
 * go tool pprof prints them to a terminal.  The escaped text is valid
 * UTF-8, as proto3 strings must be (protoc refuses others). */
static void pb_string(pbuf *b, uint32_t field, const char *str)
{
    const char *s = str ? str : "";
    size_t n = strlen(s), len = esc_buf(NULL, 0, s, n, NULL);
    char small[256], *esc = len < sizeof(small) ? small : malloc(len + 1);

    if (!esc) {
        b->oom = 1;
        return;
    }
    esc_buf(esc, len + 1, s, n, NULL);
    pb_tag(b, field, WT_LEN);
    pb_varint(b, len);
    pb_put(b, esc, len);
    if (esc != small)
        free(esc);
}

/* ---- gzip output ---- */

typedef struct gzout {
    z_stream zs;
    FILE *out;
    int err;
    unsigned char obuf[1 << 16];
} gzout;

/* Compresses b's bytes to the stream and empties b; with finish, ends the
 * gzip member. */
static void gz_flush(gzout *g, pbuf *b, int finish)
{
    size_t off = 0;
    int flush, r = Z_OK;

    if (g->err)
        return;
    do {
        size_t chunk = b->n - off > (1u << 30) ? (1u << 30) : b->n - off;
        g->zs.next_in = b->d + off;
        g->zs.avail_in = (uInt)chunk;
        off += chunk;
        flush = finish && off == b->n ? Z_FINISH : Z_NO_FLUSH;
        do {
            size_t have;
            g->zs.next_out = g->obuf;
            g->zs.avail_out = sizeof(g->obuf);
            r = deflate(&g->zs, flush);
            if (r == Z_STREAM_ERROR) {
                g->err = 1;
                return;
            }
            have = sizeof(g->obuf) - g->zs.avail_out;
            if (have && fwrite(g->obuf, 1, have, g->out) != have) {
                g->err = 1;
                return;
            }
        } while (g->zs.avail_out == 0);
    } while (off < b->n);
    if (finish && r != Z_STREAM_END)
        g->err = 1;
    b->n = 0;
}

/* ---- aggregating samples by (thread, stack) ---- */

typedef struct agg {
    size_t first;            /* a sample with this thread and stack */
    uint64_t count;
    uint64_t weight;         /* the sum of their weights (rp_sample_weight) */
    double alloc[2], inuse[2];  /* the allocation views: objects and bytes, of all its samples and of the live */
} agg;

static uint64_t hash_sample(const rp_sample *s)
{
    uint64_t h = cp_fnv1a_step(CP_FNV1A_BASIS, s->thread);
    for (uint32_t k = 0; k < s->nframes; k++)
        h = cp_fnv1a_step(h, s->frames[k]);
    return h ^ (h >> 29);
}

static int same_sample(const rp_sample *x, const rp_sample *y)
{
    return x->thread == y->thread && x->nframes == y->nframes &&
           (x->nframes == 0 || memcmp(x->frames, y->frames, x->nframes * sizeof(uint32_t)) == 0);
}

typedef struct agg_key {
    const rp_profile *p;
    const agg *aggs;
    const rp_sample *s;
} agg_key;

static int same_agg(const void *ctx, uint32_t entry)
{
    const agg_key *k = ctx;
    return same_sample(&k->p->samples[k->aggs[entry].first], k->s);
}

static void agg_add(agg *a, const rp_profile *p, const rp_sample *s)
{
    /* (the cpu and wall views: the samples as every format counts them;
     * the others: their records, the contentions or allocations) */
    a->count += rp_view_of(p->view)->counts_samples ? rp_sample_count(p, s) : 1;
    a->weight += rp_sample_weight(p, s);
    a->alloc[0] += s->objects;
    a->alloc[1] += s->bytes;
    if (s->live) {
        a->inuse[0] += s->objects;
        a->inuse[1] += s->bytes;
    }
}

/* Fills *out with the distinct (thread, stack) pairs in order of first
 * appearance; returns their number, or (size_t)-1 when out of memory. */
static size_t aggregate(const rp_profile *p, agg **out)
{
    idindex *index = NULL;         /* the aggs by (thread, stack) */
    agg_key key = { p, NULL, NULL };
    size_t n = 0;
    agg *a = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*a));

    if (!a || idindex_reserve(&index, p->nsamples) < 0)
        goto oom;
    key.aggs = a;
    for (size_t i = 0; i < p->nsamples; i++) {
        uint64_t h = hash_sample(&p->samples[i]);
        long found;
        key.s = &p->samples[i];
        found = idindex_find(index, h, same_agg, &key);
        if (found < 0) {
            if (idindex_add(&index, h, (uint32_t)n) < 0)
                goto oom;
            memset(&a[n], 0, sizeof(a[n]));
            a[n].first = i;
            found = (long)n++;
        }
        agg_add(&a[found], p, &p->samples[i]);
    }
    idindex_free(index);
    *out = a;
    return n;
oom:
    idindex_free(index);
    free(a);
    return (size_t)-1;
}

/* ---- the profile ---- */

/* Profile fields (docs/profile.proto). */
enum {
    PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
    PROFILE_STRING_TABLE = 6, PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
    PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};

static const char no_frames[] = "[no managed frames]";

static void value_type(pbuf *b, pbuf *tmp, uint32_t field, uint64_t type, uint64_t unit)
{
    tmp->n = 0;
    pb_uint(tmp, 1, type);
    pb_uint(tmp, 2, unit);
    pb_msg(b, field, tmp);
}

/* What a view's profile says of its samples: the strings at the start of
 * the string table (then the frame names, then the thread labels), the
 * sample types as (type, unit) string numbers, the period type and period,
 * the default sample type, and the label keys.
 *   cpu, wall:   samples/count, cpu|wall/nanoseconds (the CPU time, or samples x period)
 *   contention:  contentions/count, delay/nanoseconds (the time waited), as Go's mutex profile
 *   threads now: goroutine/count (threads with that stack), as Go's goroutine profile
 *   alloc, alloc-count, live: alloc_objects/count, alloc_space/bytes, inuse_objects/count,
 *                inuse_space/bytes, as Go's heap profiles; the default the view's */
enum { MAXFIXED = 12, MAXTYPES = 4 };
typedef struct layout {
    const char *str[MAXFIXED];
    int nstr;
    int type[MAXTYPES][2], ntypes;
    int period_type[2];
    uint64_t period;
    int default_type, thread, thread_id, title, totals;
} layout;

static int str(layout *l, const char *s)
{
    l->str[l->nstr] = s;
    return l->nstr++;
}

/* One sample type, NAME/count, which is also the period type (period 1). */
static void count_layout(layout *l, const char *name)
{
    int kind = str(l, name), count = str(l, "count");
    l->type[0][0] = kind;
    l->type[0][1] = count;
    l->ntypes = 1;
    l->period_type[0] = kind;
    l->period_type[1] = count;
    l->period = 1;
    l->default_type = kind;
}

static void layout_of(const rp_profile *shown, const char *title, const char *totals, int threads_now, layout *l)
{
    const rp_view_info *vi = rp_view_of(shown->view);

    memset(l, 0, sizeof(*l));
    str(l, "");
    if (threads_now) {
        count_layout(l, "goroutine");       /* Go's goroutine profile: goroutine/count */
    } else if (vi->family == RP_FAMILY_MEMORY) {
        int objects = str(l, "alloc_objects"), count = str(l, "count"), space = str(l, "alloc_space");
        int bytes = str(l, "bytes"), inuse_objects = str(l, "inuse_objects"), inuse_space = str(l, "inuse_space");
        int types[4] = { objects, space, inuse_objects, inuse_space };
        for (int i = 0; i < 4; i++) {
            l->type[i][0] = types[i];
            l->type[i][1] = i % 2 ? bytes : count;
            if (strcmp(vi->pprof_type, l->str[types[i]]) == 0)
                l->default_type = types[i];
        }
        l->ntypes = 4;
        l->period_type[0] = str(l, "space");
        l->period_type[1] = bytes;
        l->period = shown->alloc_methods == (1u << ALLOC_METHOD_EXACT) ? 1 : (uint64_t)ALLOC_SAMPLING_MEAN_BYTES;
    } else if (vi->family == RP_FAMILY_EXCEPTIONS) {
        count_layout(l, vi->pprof_type);    /* Datadog's .NET exception profile: exception/count */
    } else {
        /* (the CPU views' strings in the order earlier versions wrote them) */
        int count_type = str(l, vi->family == RP_FAMILY_CONTENTION ? "contentions" : "samples");
        int count = str(l, "count"), kind = str(l, vi->pprof_type), ns = str(l, "nanoseconds");
        l->type[0][0] = count_type;
        l->type[0][1] = count;
        l->type[1][0] = kind;
        l->type[1][1] = ns;
        l->ntypes = 2;
        l->period_type[0] = vi->family == RP_FAMILY_CONTENTION ? count_type : kind;
        l->period_type[1] = vi->family == RP_FAMILY_CONTENTION ? count : ns;
        l->period = vi->family == RP_FAMILY_CONTENTION ? 1 : rp_profile_sample_period(shown);
        l->default_type = kind;
    }
    l->thread = str(l, "thread");
    l->thread_id = str(l, "thread_id");
    l->title = str(l, title ? title : "");
    l->totals = str(l, totals);
}

/* The totals lines of the text report as one line, "A; B" (free it), or NULL. */
static char *totals_line(const rp_profile *p)
{
    char *totals = NULL;
    size_t tlen = 0;
    FILE *mem = open_memstream(&totals, &tlen);

    if (!mem)
        return NULL;
    rp_write_profile_totals(p, "", mem);
    if (fclose(mem) != 0) {
        free(totals);
        return NULL;
    }
    while (tlen && totals[tlen - 1] == '\n')
        totals[--tlen] = '\0';
    for (char *c = totals; (c = strchr(c, '\n')) != NULL; c += 2) {      /* lines as "A; B" */
        char *grown = realloc(totals, ++tlen + 1);
        if (!grown) {
            free(totals);
            return NULL;
        }
        c = grown + (c - totals);
        totals = grown;
        memmove(c + 2, c + 1, strlen(c + 1) + 1);
        c[0] = ';';
        c[1] = ' ';
    }
    return totals;
}

/* The profile of all's samples (values as layout_of says; in the
 * allocation views alloc_* of all of them and inuse_* of those alive, all
 * being an alloc or alloc-count profile), shown as the view of shown
 * (its totals, window and default sample type). */
/* The profile's Functions: one per frame name (without its line) and
 * source file, each frame's Location pointing at its function (fn_of[f],
 * 1-based ids) with the frame's line.  Returns the number of functions, or
 * (size_t)-1 (out of memory); free *fn_of and *fn_first. */
static size_t functions_of(const rp_profile *p, size_t nframes, uint32_t **fn_of, uint32_t **fn_first)
{
    idmap by_key;
    size_t n = 0;

    *fn_of = malloc((nframes ? nframes : 1) * sizeof(**fn_of));
    *fn_first = malloc((nframes ? nframes : 1) * sizeof(**fn_first));
    if (!*fn_of || !*fn_first)
        return (size_t)-1;
    idmap_init(&by_key);
    for (size_t f = 0; f < nframes; f++) {
        const char *name = f < p->nframes ? rp_frame_plain(p, f) : "";
        const char *file = f < p->nframes && p->sources && p->sources[f].file ? p->sources[f].file : "";
        uint64_t key = cp_fnv1a_str(name) * 31 + cp_fnv1a_str(file), v;
        if (f < p->nframes && idmap_get(&by_key, key, &v)) {
            uint32_t g = (*fn_first)[v];
            const char *gfile = p->sources && p->sources[g].file ? p->sources[g].file : "";
            if (strcmp(rp_frame_plain(p, g), name) == 0 && strcmp(gfile, file) == 0) {
                (*fn_of)[f] = (uint32_t)v + 1;
                continue;
            }
        }
        (*fn_first)[n] = (uint32_t)f;
        (*fn_of)[f] = (uint32_t)++n;
        if (f < p->nframes && idmap_put(&by_key, key, n - 1) < 0) {
            idmap_free(&by_key);
            return (size_t)-1;
        }
    }
    idmap_free(&by_key);
    return n;
}

static int write_profile(const rp_profile *all, const rp_profile *shown, const char *title, int threads_now,
                         FILE *out)
{
    const rp_profile *p = all;
    pbuf top = { 0 }, msg = { 0 }, sub = { 0 };
    gzout *g;
    agg *aggs = NULL;
    size_t naggs, nfuncs = p->nframes, nfn;
    uint32_t *fn_of = NULL, *fn_first = NULL;
    uint64_t frame_strings, file_strings, thread_strings;
    rp_carry carry[4];
    layout l;
    char *totals = totals_line(shown);
    int rc = -1;

    if (!totals)
        return -1;
    layout_of(shown, title, totals, threads_now, &l);
    memset(carry, 0, sizeof(carry));
    for (size_t i = 0; i < p->nsamples; i++)
        if (p->samples[i].nframes == 0) {
            nfuncs = p->nframes + 1;             /* the "[no managed frames]" pseudo-frame */
            break;
        }
    nfn = functions_of(p, nfuncs, &fn_of, &fn_first);
    if (nfn == (size_t)-1) {
        free(fn_of);
        free(fn_first);
        free(totals);
        return -1;
    }
    frame_strings = (uint64_t)l.nstr;        /* each function's name, then its file */
    file_strings = frame_strings + nfn;
    thread_strings = file_strings + nfn;

    g = calloc(1, sizeof(*g));
    if (!g) {
        free(fn_of);
        free(fn_first);
        free(totals);
        return -1;
    }
    if (deflateInit2(&g->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        free(fn_of);
        free(fn_first);
        free(totals);
        return -1;
    }
    g->out = out;
    naggs = aggregate(p, &aggs);
    if (naggs == (size_t)-1)
        goto done;

    for (int t = 0; t < l.ntypes; t++)
        value_type(&top, &msg, PROFILE_SAMPLE_TYPE, (uint64_t)l.type[t][0], (uint64_t)l.type[t][1]);
    value_type(&top, &msg, PROFILE_PERIOD_TYPE, (uint64_t)l.period_type[0], (uint64_t)l.period_type[1]);
    pb_uint(&top, PROFILE_PERIOD, l.period);
    pb_uint(&top, PROFILE_DEFAULT_SAMPLE_TYPE, (uint64_t)l.default_type);
    pb_uint(&top, PROFILE_COMMENT, (uint64_t)l.title);
    pb_uint(&top, PROFILE_COMMENT, (uint64_t)l.totals);
    pb_uint(&top, PROFILE_DURATION_NANOS, shown->duration_ns);

    for (size_t i = 0; i < naggs; i++) {
        const rp_sample *s = &p->samples[aggs[i].first];
        uint64_t v[MAXTYPES];
        size_t len = 0;

        if (threads_now) {                   /* the threads whose stack this is */
            v[0] = aggs[i].count;
        } else if (l.ntypes == 4) {          /* the allocation views' estimates, as whole numbers */
            v[0] = rp_carry_round(&carry[0], aggs[i].alloc[0]);
            v[1] = rp_carry_round(&carry[1], aggs[i].alloc[1]);
            v[2] = rp_carry_round(&carry[2], aggs[i].inuse[0]);
            v[3] = rp_carry_round(&carry[3], aggs[i].inuse[1]);
        } else if (l.ntypes == 1) {          /* exceptions: the exceptions the stacks stand for */
            v[0] = aggs[i].weight;
        } else {
            v[0] = aggs[i].count;
            v[1] = aggs[i].weight;
        }
        msg.n = 0;
        /* location_id: packed, leaf first */
        if (s->nframes) {
            for (uint32_t k = 0; k < s->nframes; k++)
                len += varint_size((uint64_t)s->frames[k] + 1);
        } else {
            len = varint_size(p->nframes + 1);
        }
        pb_tag(&msg, 1, WT_LEN);
        pb_varint(&msg, len);
        if (s->nframes)
            for (uint32_t k = s->nframes; k-- > 0;)
                pb_varint(&msg, (uint64_t)s->frames[k] + 1);
        else
            pb_varint(&msg, p->nframes + 1);
        /* value: packed, one per sample type */
        len = 0;
        for (int t = 0; t < l.ntypes; t++)
            len += varint_size(v[t]);
        pb_tag(&msg, 2, WT_LEN);
        pb_varint(&msg, len);
        for (int t = 0; t < l.ntypes; t++)
            pb_varint(&msg, v[t]);
        /* labels */
        if (s->thread < p->nthreads) {
            sub.n = 0;
            pb_uint(&sub, 1, (uint64_t)l.thread);
            pb_uint(&sub, 2, thread_strings + s->thread);
            pb_msg(&msg, 3, &sub);
            sub.n = 0;
            pb_uint(&sub, 1, (uint64_t)l.thread_id);
            pb_uint(&sub, 3, p->threads[s->thread].os_tid);
            pb_msg(&msg, 3, &sub);
        }
        pb_msg(&top, PROFILE_SAMPLE, &msg);
        if (top.n >= (1u << 16))
            gz_flush(g, &top, 0);
    }

    /* One Mapping that says its locations are symbolized already, so that
     * pprof neither makes up one nor tries to find a binary to symbolize. */
    msg.n = 0;
    pb_uint(&msg, 1, 1);
    pb_uint(&msg, 7, 1);                       /* has_functions */
    pb_msg(&top, PROFILE_MAPPING, &msg);
    for (size_t f = 0; f < nfuncs; f++) {
        /* Location{id, mapping_id, line{function_id, line}}: the frame's
         * line when it stands for one (report/source_lines.h) */
        const rp_frame_source *src = f < p->nframes && p->sources ? &p->sources[f] : NULL;
        msg.n = 0;
        pb_uint(&msg, 1, f + 1);
        pb_uint(&msg, 2, 1);
        sub.n = 0;
        pb_uint(&sub, 1, fn_of[f]);
        if (src && src->file && src->at_line)
            pb_uint(&sub, 2, src->line);
        pb_msg(&msg, 4, &sub);
        pb_msg(&top, PROFILE_LOCATION, &msg);
        if (top.n >= (1u << 16))
            gz_flush(g, &top, 0);
    }
    for (size_t k = 0; k < nfn; k++) {
        /* Function{id, name, system_name, filename, start_line (its method's first line)} */
        uint32_t f = fn_first[k];
        const rp_frame_source *src = f < p->nframes && p->sources ? &p->sources[f] : NULL;
        msg.n = 0;
        pb_uint(&msg, 1, k + 1);
        pb_uint(&msg, 2, frame_strings + k);
        pb_uint(&msg, 3, frame_strings + k);
        if (src && src->file) {
            pb_uint(&msg, 4, file_strings + k);
            if (!src->at_line)
                pb_uint(&msg, 5, src->line);
        }
        pb_msg(&top, PROFILE_FUNCTION, &msg);
        if (top.n >= (1u << 16))
            gz_flush(g, &top, 0);
    }

    for (int i = 0; i < l.nstr; i++)
        pb_string(&top, PROFILE_STRING_TABLE, l.str[i]);
    for (size_t k = 0; k < nfn; k++) {
        uint32_t f = fn_first[k];
        pb_string(&top, PROFILE_STRING_TABLE, f < p->nframes ? rp_frame_plain(p, f) : no_frames);
        if (top.n >= (1u << 16))
            gz_flush(g, &top, 0);
    }
    for (size_t k = 0; k < nfn; k++) {
        uint32_t f = fn_first[k];
        pb_string(&top, PROFILE_STRING_TABLE,
                  f < p->nframes && p->sources && p->sources[f].file ? p->sources[f].file : "");
        if (top.n >= (1u << 16))
            gz_flush(g, &top, 0);
    }
    for (size_t t = 0; t < p->nthreads; t++)
        pb_string(&top, PROFILE_STRING_TABLE, p->threads[t].name);

    if (top.oom || msg.oom || sub.oom)
        goto done;
    gz_flush(g, &top, 1);
    if (!g->err && !ferror(out))
        rc = 0;
done:
    deflateEnd(&g->zs);
    free(g);
    free(fn_of);
    free(fn_first);
    free(aggs);
    free(top.d);
    free(msg.d);
    free(sub.d);
    free(totals);
    return rc;
}

int rp_write_pprof(const rp_profile *p, const char *title, FILE *out)
{
    return write_profile(p, p, title, 0, out);
}

int rp_write_pprof_memory(const rp_profile *all, const rp_profile *shown, const char *title, FILE *out)
{
    return write_profile(all, shown, title, 0, out);
}

int rp_write_pprof_threads(const rp_profile *p, const char *title, FILE *out)
{
    return write_profile(p, p, title, 1, out);
}

/* ---- a heap snapshot as a profile ---- */

/* The heap profile: one Sample per group of objects that share their type
 * and the types along their shortest path from a GC root (heap_paths.h),
 * its locations the object's type first (the leaf), then the path's types
 * back to the root's description (the root frame); its values
 * [inuse_objects, inuse_space] the group's count and shallow bytes.  One
 * Function and Location per type (ids: type index + 1), then one per path's
 * root (ids after them). */
enum { H_EMPTY, H_OBJECTS, H_COUNT, H_SPACE, H_BYTES, H_TITLE, H_NOTE, H_FIXED };

int rp_write_pprof_heap(const rp_trace *tr, const char *title, FILE *out)
{
    pbuf top = { 0 }, msg = { 0 }, sub = { 0 };
    gzout *g = NULL;
    rp_heap h;
    rp_heap_snapshot *s;
    rp_heap_path *paths = NULL;
    size_t np = 0;
    uint32_t *fid = NULL, *used = NULL, nused = 0;   /* type index -> function id (0: unused); id -> type */
    uint64_t root_ids;
    char note[256];
    int rc = -1;

    if (rp_heap_build(tr, &h) < 0)
        return -1;
    if ((s = rp_heap_pick(&h)) == NULL || rp_heap_analyse(&h, s) < 0 ||
        rp_heap_paths(&h, s, RP_HEAP_ALL_TYPES, &paths, &np) < 0)
        goto done;
    fid = calloc(h.ntype_names + 1, sizeof(uint32_t));
    used = malloc((h.ntype_names + 1) * sizeof(uint32_t));
    if (!fid || !used)
        goto done;
    for (size_t i = 0; i < np; i++)          /* ids for the types the paths use, in order of use */
        for (size_t k = 0; k < paths[i].ntypes; k++) {
            uint32_t t = paths[i].types[k];
            if (t < h.ntype_names && !fid[t]) {
                used[nused] = t;
                fid[t] = ++nused;
            }
        }
    root_ids = (uint64_t)nused + 1;          /* then one id per path's root */
    if ((g = calloc(1, sizeof(*g))) == NULL)
        goto done;
    if (deflateInit2(&g->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        g = NULL;
        goto done;
    }
    g->out = out;
    value_type(&top, &msg, PROFILE_SAMPLE_TYPE, H_OBJECTS, H_COUNT);
    value_type(&top, &msg, PROFILE_SAMPLE_TYPE, H_SPACE, H_BYTES);
    value_type(&top, &msg, PROFILE_PERIOD_TYPE, H_SPACE, H_BYTES);
    pb_uint(&top, PROFILE_PERIOD, 1);
    pb_uint(&top, PROFILE_DEFAULT_SAMPLE_TYPE, H_SPACE);
    pb_uint(&top, PROFILE_COMMENT, H_TITLE);
    pb_uint(&top, PROFILE_COMMENT, H_NOTE);
    for (size_t i = 0; i < np; i++) {
        const rp_heap_path *pa = &paths[i];
        size_t len = varint_size(root_ids + i);
        msg.n = 0;
        for (size_t k = 0; k < pa->ntypes; k++)
            len += varint_size(fid[pa->types[k]]);
        pb_tag(&msg, 1, WT_LEN);             /* location_id: packed, leaf first */
        pb_varint(&msg, len);
        for (size_t k = pa->ntypes; k-- > 0;)
            pb_varint(&msg, fid[pa->types[k]]);
        pb_varint(&msg, root_ids + i);
        pb_tag(&msg, 2, WT_LEN);             /* value: packed [objects, bytes] */
        pb_varint(&msg, varint_size(pa->instances) + varint_size(pa->shallow));
        pb_varint(&msg, pa->instances);
        pb_varint(&msg, pa->shallow);
        pb_msg(&top, PROFILE_SAMPLE, &msg);
        if (top.n >= (1u << 16))
            gz_flush(g, &top, 0);
    }
    msg.n = 0;
    pb_uint(&msg, 1, 1);
    pb_uint(&msg, 7, 1);                       /* has_functions */
    pb_msg(&top, PROFILE_MAPPING, &msg);
    for (uint64_t f = 1; f < root_ids + np; f++) {
        uint64_t name = H_FIXED + f - 1;       /* (the strings: the types, then the roots, in the ids' order) */
        msg.n = 0;
        pb_uint(&msg, 1, f);
        pb_uint(&msg, 2, 1);
        sub.n = 0;
        pb_uint(&sub, 1, f);
        pb_msg(&msg, 4, &sub);
        pb_msg(&top, PROFILE_LOCATION, &msg);
        msg.n = 0;
        pb_uint(&msg, 1, f);
        pb_uint(&msg, 2, name);
        pb_uint(&msg, 3, name);
        pb_msg(&top, PROFILE_FUNCTION, &msg);
        if (top.n >= (1u << 16))
            gz_flush(g, &top, 0);
    }
    snprintf(note, sizeof(note), "heap snapshot %u: %zu objects, %" PRIu64 " bytes; stacks: each object's type under "
             "the types of its shortest path from a GC root", s->index, s->nobjects, s->total_bytes);
    {
        const char *fixed[H_FIXED] = { "", "inuse_objects", "count", "inuse_space", "bytes", title ? title : "",
                                       note };
        for (int i = 0; i < H_FIXED; i++)
            pb_string(&top, PROFILE_STRING_TABLE, fixed[i]);
    }
    for (uint32_t k = 0; k < nused; k++) {
        pb_string(&top, PROFILE_STRING_TABLE, rp_heap_type_name(&h, used[k]));
        if (top.n >= (1u << 16))
            gz_flush(g, &top, 0);
    }
    for (size_t i = 0; i < np; i++) {
        pb_string(&top, PROFILE_STRING_TABLE, paths[i].root);
        if (top.n >= (1u << 16))
            gz_flush(g, &top, 0);
    }
    if (top.oom || msg.oom || sub.oom)
        goto done;
    gz_flush(g, &top, 1);
    if (!g->err && !ferror(out))
        rc = 0;
done:
    if (g) {
        deflateEnd(&g->zs);
        free(g);
    }
    free(fid);
    free(used);
    rp_heap_paths_free(paths, np);
    rp_heap_free(&h);
    free(top.d);
    free(msg.d);
    free(sub.d);
    return rc;
}
