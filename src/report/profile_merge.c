/* profile_merge.c - several processes' profiles as one (profile.h,
 * rp_profile_merge): every sample gets its process as the root frame; the
 * totals every format states (CPU time, window, rate; the allocation and
 * contention views' totals) are the parts' together; the merged profile
 * owns copies of every string it shows. */
#include "report/profile.h"
#include "report/arena.h"
#include "common/idmap.h"
#include "report/sort.h"

#include <stdlib.h>
#include <string.h>

/* A copy of s in the merged profile's memory ("" stays the constant); NULL
 * when out of memory. */
static const char *copy_str(rp_profile *out, const char *s)
{
    size_t len;
    char *copy;

    if (!s || !*s)
        return "";
    len = strlen(s) + 1;
    if (!(copy = arena_alloc(&out->arena, len)))
        return NULL;
    memcpy(copy, s, len);
    return copy;
}

/* The sources of part p's frames (map: its frame -> the merged one) into
 * out->sources, grown to the merged frames so far (n, *have of them there:
 * the rest zeroed), their strings copied.  Returns 0, or -1 (out of
 * memory). */
static int merge_sources(rp_profile *out, size_t *have, const rp_profile *p, const uint32_t *map, size_t n)
{
    if (*have < n) {
        rp_frame_source *ns = realloc(out->sources, n * sizeof(*ns));
        if (!ns)
            return -1;
        memset(ns + *have, 0, (n - *have) * sizeof(*ns));
        out->sources = ns;
        *have = n;
    }
    for (size_t f = 0; f < p->nframes; f++) {
        const rp_frame_source *s = &p->sources[f];
        rp_frame_source *o = &out->sources[map[f]];
        if (!s->file || o->file)
            continue;
        *o = *s;
        if (!(o->name = copy_str(out, s->name)) || !(o->file = copy_str(out, s->file)) ||
            !(o->base = copy_str(out, s->base)))
            return -1;
    }
    return 0;
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
    size_t nsources = 0;
    rp_interner m = { 0 };
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
    out->total_samples = out->total_count = out->ticks = out->suspend_ns = out->max_suspend_ns = out->sampler_cpu_ns = out->failed = 0;
    out->cpu_ns = out->cpu_unshown_ns = out->duration_ns = 0;
    out->weight_total = out->followed = 0;
    out->bytes = out->objects = 0;
    out->alloc_methods = 0;
    out->live_gcs = out->live_last_gc = 0;
    out->live_last_gc_t = out->first_t = out->last_t = 0;
    out->filter_matched = 0;
    out->labels = NULL;
    out->nlabels = 0;
    out->sources = NULL;
    {
        /* The window: from the earliest part's start to the latest part's
         * end (each part's window starts at its offset); the rate: all
         * ticks over all windows. */
        uint64_t start = UINT64_MAX, end = 0, windows = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t off = offsets_ns ? offsets_ns[i] : 0;
            if (off < start)
                start = off;
            if (off + parts[i].duration_ns > end)
                end = off + parts[i].duration_ns;
            windows += parts[i].duration_ns;
            out->cpu_ns += parts[i].cpu_ns;
            out->cpu_unshown_ns += parts[i].cpu_unshown_ns;
            out->filtered |= parts[i].filtered;
            out->filter_matched |= parts[i].filter_matched;
        }
        out->duration_ns = end > start ? end - start : 0;
        /* the processes' CPU adds up when every part has it */
        out->process_cpu_ns = 0;
        out->processes = 0;
        for (size_t i = 0; i < n && (i == 0 || out->process_cpu_ns); i++) {
            out->process_cpu_ns = parts[i].process_cpu_ns ? out->process_cpu_ns + parts[i].process_cpu_ns : 0;
            out->processes = parts[i].process_cpu_ns ? out->processes + 1 : 0;
        }
        {
            uint64_t ticks = 0;
            for (size_t i = 0; i < n; i++)
                ticks += parts[i].ticks;
            out->rate_hz = windows ? (double)ticks * 1e9 / (double)windows : 0;
        }
        /* the signal engine's: its figures add up, and its rate is all the
         * CPU samples over all the sampled threads' CPU */
        out->signals = out->periods = out->thread_cpu_ns = out->cpu_signals = 0;
        out->waiting = out->truncated = 0;
        for (size_t i = 0; i < n; i++) {
            out->signals += parts[i].signals;
            out->periods += parts[i].periods;
            out->thread_cpu_ns += parts[i].thread_cpu_ns;
            out->cpu_signals += parts[i].cpu_signals;
            out->waiting += parts[i].waiting;
            out->truncated += parts[i].truncated;
            if (parts[i].engine == SAMPLER_ENGINE_SIGNAL)
                out->engine = SAMPLER_ENGINE_SIGNAL;
            if (parts[i].clock > out->clock)
                out->clock = parts[i].clock;
            out->sampler_flags |= parts[i].sampler_flags;
            if (!out->sampler_why[0])          /* (the first process's reason: the processes of one host) */
                memcpy(out->sampler_why, parts[i].sampler_why, sizeof(out->sampler_why));
        }
        if (out->engine == SAMPLER_ENGINE_SIGNAL)
            out->rate_hz = out->thread_cpu_ns ? (double)out->cpu_signals * 1e9 / (double)out->thread_cpu_ns : 0;
    }
    for (size_t i = 0; i < n; i++) {
        nthreads += parts[i].nthreads;
        nsamples += parts[i].nsamples;
        /* the allocation and contention views: their totals add up; the live view's moment is the
           latest process's last GC, shifted as its samples are */
        out->weight_total += parts[i].weight_total;
        out->bytes += parts[i].bytes;
        out->objects += parts[i].objects;
        out->alloc_methods |= parts[i].alloc_methods;
        out->followed += parts[i].followed;
        out->live_gcs += parts[i].live_gcs;
        if (parts[i].total_samples) {
            uint64_t off = offsets_ns ? offsets_ns[i] : 0;
            if (!out->total_samples || parts[i].first_t + off < out->first_t)
                out->first_t = parts[i].first_t + off;
            if (parts[i].last_t + off > out->last_t)
                out->last_t = parts[i].last_t + off;
        }
        if (parts[i].live_gcs) {
            uint64_t t = parts[i].live_last_gc_t + (offsets_ns ? offsets_ns[i] : 0);
            if (t >= out->live_last_gc_t) {
                out->live_last_gc_t = t;
                out->live_last_gc = parts[i].live_last_gc;
            }
        }
        out->total_samples += parts[i].total_samples;
        out->total_count += parts[i].total_count;
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
        long root = rp_intern(&m, out, roots[i]);
        uint32_t thread0 = (uint32_t)out->nthreads;

        if (!map || root < 0) {
            free(map);
            goto oom;
        }
        for (size_t f = 0; f < p->nframes; f++) {
            long id = rp_intern(&m, out, p->frames[f]);
            if (id < 0) {
                free(map);
                goto oom;
            }
            map[f] = (uint32_t)id;
        }
        if (p->sources && merge_sources(out, &nsources, p, map, m.n) < 0) {
            free(map);
            goto oom;
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
            if (!(th->managed_name = copy_str(out, p->threads[t].managed_name)) ||
                !(th->os_name = copy_str(out, p->threads[t].os_name))) {
                free(map);
                goto oom;
            }
        }
        for (size_t s = 0; s < p->nsamples; s++) {
            const rp_sample *in = &p->samples[s];
            rp_sample *o = &out->samples[out->nsamples++];
            uint32_t *frames = arena_alloc(&out->arena, (in->nframes + 2) * sizeof(*frames));
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
            if (in->nframes == 0) {
                /* (a single profile shows an empty stack by this name; under
                 * its process's root it needs a frame of its own) */
                long none = rp_intern(&m, out, "[no managed frames]");
                if (none < 0) {
                    free(map);
                    goto oom;
                }
                frames[o->nframes++] = (uint32_t)none;
            }
        }
        free(map);
    }
    /* The sampled threads' labels, for the error when --thread matches none. */
    for (size_t i = 0; i < n; i++)
        out->nlabels += parts[i].nlabels;
    if (out->nlabels) {
        size_t k = 0;
        if (!(out->labels = calloc(out->nlabels, sizeof(*out->labels))))
            goto oom;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < parts[i].nlabels; j++)
                if (!(out->labels[k++] = copy_str(out, parts[i].labels[j])))
                    goto oom;
    }
    rp_sort(out->samples, out->nsamples, sizeof(*out->samples), by_time);
    if (out->sources && nsources < m.n) {
        rp_frame_source *ns = realloc(out->sources, m.n * sizeof(*ns));
        if (!ns)
            goto oom;
        memset(ns + nsources, 0, (m.n - nsources) * sizeof(*ns));
        out->sources = ns;
    }
    out->frames = m.names;
    out->nframes = m.n;
    idindex_free(m.slots);
    return 0;
oom:
    free(m.names);
    idindex_free(m.slots);
    rp_profile_free(out);
    return -1;
}
