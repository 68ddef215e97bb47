/* profile_merge.c - several processes' profiles as one (profile.h,
 * rp_profile_merge): every sample gets its process as the root frame. */
#include "report/profile.h"
#include "report/arena.h"
#include "common/idmap.h"

#include <stdlib.h>
#include <string.h>

typedef struct merge_names {
    rp_profile *out;
    size_t cap;
    idindex *slots;
} merge_names;

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int same_name(const void *ctx, uint32_t entry)
{
    const void *const *k = ctx;
    const merge_names *m = k[0];
    return strcmp(m->out->frames[entry], (const char *)k[1]) == 0;
}

static long intern(merge_names *m, const char *name)
{
    rp_profile *p = m->out;
    const void *key[2] = { m, name };
    uint64_t h = hash_name(name);
    long found = idindex_find(m->slots, h, same_name, key);
    size_t len = strlen(name) + 1;
    char *copy;

    if (found >= 0)
        return found;
    if (p->nframes == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 256;
        char **nn = realloc(p->frames, nc * sizeof(*nn));
        if (!nn)
            return -1;
        p->frames = nn;
        m->cap = nc;
    }
    if (!(copy = arena_alloc(&p->arena, len)))
        return -1;
    memcpy(copy, name, len);
    p->frames[p->nframes] = copy;
    if (idindex_add(&m->slots, h, (uint32_t)p->nframes) < 0)
        return -1;
    return (long)p->nframes++;
}

static int by_time(const void *a, const void *b)
{
    const rp_sample *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->thread < y->thread ? -1 : x->thread > y->thread;
}

int rp_profile_merge(const rp_profile *parts, const char *const *roots, const uint64_t *offsets_ns, size_t n,
                     rp_profile *out)
{
    merge_names m = { out, 0, NULL };
    size_t nthreads = 0, nsamples = 0;

    if (n == 0)
        return -1;
    /* Fields this file does not know come from the first part. */
    *out = parts[0];
    out->frames = NULL;
    out->nframes = 0;
    out->threads = NULL;
    out->samples = NULL;
    out->nthreads = out->nsamples = 0;
    out->arena = NULL;
    out->total_samples = out->ticks = out->suspend_ns = out->max_suspend_ns = out->sampler_cpu_ns = out->failed = 0;
    for (size_t i = 0; i < n; i++) {
        nthreads += parts[i].nthreads;
        nsamples += parts[i].nsamples;
        out->total_samples += parts[i].total_samples;
        out->ticks += parts[i].ticks;
        out->suspend_ns += parts[i].suspend_ns;
        out->sampler_cpu_ns += parts[i].sampler_cpu_ns;
        out->failed += parts[i].failed;
        if (parts[i].max_suspend_ns > out->max_suspend_ns)
            out->max_suspend_ns = parts[i].max_suspend_ns;
    }
    out->threads = calloc(nthreads ? nthreads : 1, sizeof(*out->threads));
    out->samples = calloc(nsamples ? nsamples : 1, sizeof(*out->samples));
    if (!out->threads || !out->samples)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        const rp_profile *p = &parts[i];
        uint32_t *map = calloc(p->nframes ? p->nframes : 1, sizeof(*map));
        long root = intern(&m, roots[i]);
        uint32_t thread0 = (uint32_t)out->nthreads;

        if (!map || root < 0) {
            free(map);
            goto oom;
        }
        for (size_t f = 0; f < p->nframes; f++) {
            long id = intern(&m, p->frames[f]);
            if (id < 0) {
                free(map);
                goto oom;
            }
            map[f] = (uint32_t)id;
        }
        for (size_t t = 0; t < p->nthreads; t++) {
            rp_pthread *th = &out->threads[out->nthreads++];
            size_t len = strlen(p->threads[t].name) + 1;
            char *name = arena_alloc(&out->arena, len);
            if (!name) {
                free(map);
                goto oom;
            }
            memcpy(name, p->threads[t].name, len);
            *th = p->threads[t];
            th->name = name;
        }
        for (size_t s = 0; s < p->nsamples; s++) {
            const rp_sample *in = &p->samples[s];
            rp_sample *o = &out->samples[out->nsamples++];
            uint32_t *frames = arena_alloc(&out->arena, (in->nframes + 1) * sizeof(*frames));
            if (!frames) {
                free(map);
                goto oom;
            }
            *o = *in;
            o->t = in->t + (offsets_ns ? offsets_ns[i] : 0);
            o->thread = thread0 + in->thread;
            frames[0] = (uint32_t)root;
            for (uint32_t k = 0; k < in->nframes; k++)
                frames[k + 1] = map[in->frames[k]];
            o->frames = frames;
            o->nframes = in->nframes + 1;
        }
        free(map);
    }
    qsort(out->samples, out->nsamples, sizeof(*out->samples), by_time);
    idindex_free(m.slots);
    return 0;
oom:
    idindex_free(m.slots);
    rp_profile_free(out);
    return -1;
}
