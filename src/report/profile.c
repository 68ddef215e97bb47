/* profile.c - building a profile from a trace's samples (see profile.h).
 * The formats that write one are elsewhere (formats.h lists them). */
#include "report/profile.h"
#include "report/arena.h"
#include "report/async_frames.h"
#include "common/idmap.h"
#include "trace/format.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void *palloc(rp_profile *p, size_t bytes)
{
    return arena_alloc(&p->arena, bytes);
}

/* ---- interning frame names ---- */


static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

typedef struct name_key {
    const rp_interner *in;
    const char *name;
} name_key;

static int same_name(const void *ctx, uint32_t entry)
{
    const name_key *k = ctx;
    return strcmp(k->in->names[entry], k->name) == 0;
}

long rp_intern(rp_interner *in, rp_profile *p, const char *name)
{
    name_key key = { in, name };
    uint64_t h = hash_str(name);
    long found = idindex_find(in->slots, h, same_name, &key);

    if (found >= 0)
        return found;
    if (in->n == in->cap) {
        size_t nc = in->cap ? in->cap * 2 : 256;
        char **nn = realloc(in->names, nc * sizeof(*nn));
        if (!nn)
            return -1;
        in->names = nn;
        in->cap = nc;
    }
    {
        size_t len = strlen(name) + 1;
        char *copy = palloc(p, len);
        if (!copy)
            return -1;
        memcpy(copy, name, len);
        in->names[in->n] = copy;
    }
    if (idindex_add(&in->slots, h, (uint32_t)in->n) < 0)
        return -1;
    return (long)in->n++;
}

/* The runtime's GC poll helpers, which show up as leaf frames only because
 * threads are stopped at safe points. */
static int is_safe_point_helper(const char *name)
{
    return strncmp(name, "System.Threading.Thread.<PollGC>", 32) == 0 ||
           strcmp(name, "System.Threading.Thread.PollGC") == 0;
}

/* The async role of every frame name (async_frames.h), and the name of the
 * method a state machine implements, by frame number. */
typedef struct async_roles {
    unsigned char *role;
    uint32_t *renamed;       /* frame number of "Type.Method [async]", or UINT32_MAX */
    size_t n, cap;
} async_roles;

/* Gives the names interned since the last call their roles (interning the
 * methods' names as it goes).  Returns 0, or -1 (out of memory). */
static int async_roles_update(async_roles *a, rp_interner *in, rp_profile *p)
{
    while (a->n < in->n) {
        const char *name = in->names[a->n];
        uint32_t renamed = UINT32_MAX;
        int role = rp_frame_role(name);

        if (a->n == a->cap) {
            size_t nc = a->cap ? a->cap * 2 : 256;
            unsigned char *nr = realloc(a->role, nc);
            uint32_t *nn;
            if (!nr)
                return -1;
            a->role = nr;
            if (!(nn = realloc(a->renamed, nc * sizeof(*nn))))
                return -1;
            a->renamed = nn;
            a->cap = nc;
        }
        if (role == RP_FRAME_STATE_MACHINE) {
            size_t len = strlen(name) + 16;
            char *shown = malloc(len);
            long f = -1;
            if (!shown)
                return -1;
            if (rp_async_method_name(name, shown, len) >= 0 && (f = rp_intern(in, p, shown)) < 0) {
                free(shown);
                return -1;
            }
            free(shown);
            if (f >= 0)
                renamed = (uint32_t)f;
        }
        a->role[a->n] = (unsigned char)role;
        a->renamed[a->n] = renamed;
        a->n++;
    }
    return 0;
}

uint64_t rp_count_samples(const rp_trace *tr)
{
    uint64_t n = 0;
    for (size_t i = 0; i < tr->nev; i++)
        if (tr->ev[i].kind == TK_SAMPLE)
            n++;
    return n;
}

/* A copy of s in the profile's arena ("" if out of memory). */
static const char *copy_str(rp_profile *p, const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = s[0] ? palloc(p, n) : NULL;
    if (!c)
        return "";
    memcpy(c, s, n);
    return c;
}

/* The label of a thread lifetime (profile.h): "NAME (TID)", or "thread
 * TID"; a copy in the profile's arena ("" if out of memory). */
static const char *thread_label(rp_profile *p, const rp_thread *th, uint32_t os_tid)
{
    const char *name = th && th->name[0] ? th->name : th && th->os_name[0] ? th->os_name : NULL;
    size_t n = (name ? strlen(name) : 6) + 16;
    char *s = palloc(p, n);

    if (!s)
        return "";
    if (name)
        snprintf(s, n, "%s (%" PRIu32 ")", name, os_tid);
    else
        snprintf(s, n, "thread %" PRIu32, os_tid);
    return s;
}

int rp_thread_matches(const char *filter, const char *label, const char *name, const char *os_name,
                      uint32_t os_tid, uint64_t managed)
{
    char num[32];
    size_t flen;

    if (!filter)
        return 1;
    if ((label && strcmp(filter, label) == 0) || (name && name[0] && strcmp(filter, name) == 0))
        return 1;
    if (os_name && os_name[0]) {
        flen = strlen(filter);
        if (strcmp(filter, os_name) == 0)
            return 1;
        if (flen == strlen(os_name) + 2 && filter[0] == '(' && memcmp(filter + 1, os_name, flen - 2) == 0 &&
            filter[flen - 1] == ')')
            return 1;                                    /* "(kernel name)", as earlier versions showed it */
    }
    snprintf(num, sizeof(num), "%" PRIu32, os_tid);
    if (strcmp(filter, num) == 0)
        return 1;
    snprintf(num, sizeof(num), "0x%" PRIx64, managed);
    return strcmp(filter, num) == 0;
}

uint64_t rp_sample_weight(const rp_profile *p, const rp_sample *s)
{
    return p->view == RP_VIEW_CPU ? s->cpu_ns : p->period_ns;
}

uint64_t rp_profile_total(const rp_profile *p)
{
    return p->view == RP_VIEW_CPU ? p->cpu_ns : (uint64_t)p->nsamples * p->period_ns;
}

double rp_profile_asked_hz(const rp_profile *p)
{
    return p->period_ns ? 1e9 / (double)p->period_ns : 0;
}

int rp_profile_rate_low(const rp_profile *p)
{
    return p->ticks > 1 && p->rate_hz < 0.9 * rp_profile_asked_hz(p);
}

int rp_profile_process_share(const rp_profile *p, rp_process_share *out)
{
    double all = (double)p->process_cpu_ns, rest;

    memset(out, 0, sizeof(*out));
    if (!p->process_cpu_ns)
        return 0;
    out->view_pct = 100.0 * (double)p->cpu_ns / all;
    out->waiting_pct = 100.0 * (double)p->cpu_unshown_ns / all;
    out->sampler_pct = 100.0 * (double)p->sampler_cpu_ns / all;
    rest = 100.0 - out->view_pct - out->waiting_pct - out->sampler_pct;
    out->rest_pct = rest > 0 ? rest : 0;
    return 1;
}

int rp_profile_build(const rp_trace *tr, enum rp_view view, const char *filter, rp_profile *p)
{
    return rp_profile_build_opts(tr, view, filter, 0, p);
}

int rp_profile_build_opts(const rp_trace *tr, enum rp_view view, const char *filter, unsigned options, rp_profile *p)
{
    async_roles roles = { 0 };
    idmap names, threads_by_id, thread_slots, last_sample, labelled;
    rp_interner in = { 0 };
    size_t cap = 0, tcap = 0, lcap = 0;
    uint64_t first_tick = 0, last_tick = 0, first_process_cpu = 0;
    size_t process_cpus = 0;
    long native, unknown;
    int rc = -1;

    memset(p, 0, sizeof(*p));
    p->view = view;
    p->filtered = filter != NULL;
    idmap_init(&names);
    idmap_init(&threads_by_id);
    idmap_init(&thread_slots);
    idmap_init(&last_sample);
    idmap_init(&labelled);
    native = rp_intern(&in, p, "[native code]");
    unknown = rp_intern(&in, p, "[unknown]");
    if (native < 0 || unknown < 0)
        goto out;

    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        switch (e->kind) {
        case TK_FUNC_NAME:
        case TK_JIT:
        case TK_PRECOMPILED: {
            uint64_t function;
            const char *name = rp_function_name(e, &function);
            if (name[0]) {
                long f = rp_intern(&in, p, name);
                if (f < 0)
                    goto out;
                idmap_put(&names, function, (uint64_t)f);
            }
            break;
        }
        case TK_MODULE_UNLOAD:
            break;
        case TK_THREAD_CREATE: case TK_THREAD_OS: case TK_THREAD_NAME: case TK_THREAD_DESTROY:
            if (e->thread >= 0)
                idmap_put(&threads_by_id, rp_thread_id(e), (uint64_t)e->thread);
            break;
        case TK_SAMPLER_TICK: {
            const rec_sampler_tick *k = &e->sampler_tick;
            if (!p->ticks++)
                first_tick = e->t;
            last_tick = e->t;
            p->suspend_ns += k->suspend_ns;
            if (k->suspend_ns > p->max_suspend_ns)
                p->max_suspend_ns = k->suspend_ns;
            p->sampler_cpu_ns += k->sampler_cpu_ns;
            p->failed += k->failed;
            if (k->period_ns)
                p->period_ns = k->period_ns;
            break;
        }
        case TK_PROCESS_CPU:        /* the first and the last bracket the sampling (docs/sampling.md) */
            if (!process_cpus++)
                first_process_cpu = e->process_cpu.cpu_ns;
            else if (e->process_cpu.cpu_ns > first_process_cpu) {
                p->process_cpu_ns = e->process_cpu.cpu_ns - first_process_cpu;
                p->processes = 1;
            }
            break;
        case TK_SAMPLE: {
            const rec_sample *r = &e->sample;
            uint64_t v, prev_t = 0;
            int tidx = idmap_get(&threads_by_id, r->thread, &v) ? (int)v : -1;
            const rp_thread *th = tidx >= 0 ? &tr->threads[tidx] : NULL;
            uint64_t key = tidx >= 0 ? (uint64_t)tidx : (1ULL << 63) | r->os_tid;
            const char *label;
            int matches, on_cpu;
            rp_sample *s;

            p->total_samples++;
            if (!idmap_get(&labelled, key, &v)) {            /* every sampled thread's label, once */
                if (p->nlabels == lcap) {
                    size_t nc = lcap ? lcap * 2 : 16;
                    const char **nl = realloc(p->labels, nc * sizeof(*nl));
                    if (!nl)
                        goto out;
                    p->labels = nl;
                    lcap = nc;
                }
                v = p->nlabels;
                p->labels[p->nlabels++] = thread_label(p, th, r->os_tid);
                idmap_put(&labelled, key, v);
            }
            label = p->labels[v];
            matches = rp_thread_matches(filter, label, th ? th->name : NULL, th ? th->os_name : NULL, r->os_tid,
                                        r->thread);
            if (matches)
                p->filter_matched = 1;
            /* On a CPU: the thread used at least a quarter of the time since
             * its previous sample (a sleeping thread that wakes now and then
             * does not count). */
            {
                int seen = idmap_get(&last_sample, r->os_tid, &prev_t);
                on_cpu = seen && e->t > prev_t && r->cpu_ns * 4 >= e->t - prev_t;
                idmap_put(&last_sample, r->os_tid, e->t);
            }
            if (!matches)
                continue;
            if (view == RP_VIEW_CPU && !on_cpu) {
                p->cpu_unshown_ns += r->cpu_ns;
                continue;
            }
            if (!idmap_get(&thread_slots, key, &v)) {
                if (p->nthreads == tcap) {
                    size_t nc = tcap ? tcap * 2 : 16;
                    rp_pthread *nt = realloc(p->threads, nc * sizeof(*nt));
                    if (!nt)
                        goto out;
                    p->threads = nt;
                    tcap = nc;
                }
                v = p->nthreads++;
                memset(&p->threads[v], 0, sizeof(p->threads[v]));
                p->threads[v].name = label;
                p->threads[v].managed_name = copy_str(p, th ? th->name : "");
                p->threads[v].os_name = copy_str(p, th ? th->os_name : "");
                p->threads[v].managed_id = r->thread;
                p->threads[v].os_tid = r->os_tid;
                idmap_put(&thread_slots, key, v);
            }
            if (p->nsamples == cap) {
                size_t nc = cap ? cap * 2 : 4096;
                rp_sample *ns = realloc(p->samples, nc * sizeof(*ns));
                if (!ns)
                    goto out;
                p->samples = ns;
                cap = nc;
            }
            s = &p->samples[p->nsamples++];
            s->t = e->t;
            s->thread = (uint32_t)v;
            s->cpu_ns = r->cpu_ns;
            s->nframes = r->nframes;
            s->frames = palloc(p, (r->nframes ? r->nframes : 1) * sizeof(uint32_t));
            if (!s->frames)
                goto out;
            for (uint32_t k = 0; k < r->nframes; k++) {      /* leaf first -> root first */
                uint64_t fid = r->frames[r->nframes - 1 - k], f;
                s->frames[k] = fid == 0 ? (uint32_t)native
                             : idmap_get(&names, fid, &f) ? (uint32_t)f : (uint32_t)unknown;
            }
            /* Async methods as written (async_frames.h) */
            if (!(options & RP_PROFILE_RAW_FRAMES)) {
                if (async_roles_update(&roles, &in, p) < 0)
                    goto out;
                s->nframes = rp_async_fold(s->frames, s->nframes, roles.role, roles.renamed, in.names);
            }
            /* Threads stop for the sample at GC safe points; a loop's safe point
             * is a call to the runtime's poll helper, which would otherwise get
             * the time of the function that called it. */
            while (s->nframes > 1 && is_safe_point_helper(in.names[s->frames[s->nframes - 1]]))
                s->nframes--;
            p->threads[v].samples++;
            p->threads[v].cpu_ns += r->cpu_ns;
            p->cpu_ns += r->cpu_ns;
            break;
        }
        }
    }
    if (!p->period_ns)
        p->period_ns = 10000000u;            /* (traces without ticks: the default rate) */
    /* The window: each tick stands for one period, so N evenly spaced ticks
     * make N periods and the achieved rate is the asked one. */
    if (p->ticks) {
        p->duration_ns = last_tick - first_tick + p->period_ns;
        p->rate_hz = (double)p->ticks * 1e9 / (double)p->duration_ns;
    } else if (p->nsamples) {
        p->duration_ns = p->samples[p->nsamples - 1].t - p->samples[0].t;
    }
    /* Keep only the frames that samples use, renumbered in first-use order:
     * the exporters write the frame table as it is. */
    {
        uint32_t *map = malloc((in.n ? in.n : 1) * sizeof(*map));
        char **kept = malloc((in.n ? in.n : 1) * sizeof(*kept));
        size_t used = 0;
        if (!map || !kept) {
            free(map);
            free(kept);
            goto out;
        }
        for (size_t f = 0; f < in.n; f++)
            map[f] = UINT32_MAX;
        for (size_t i = 0; i < p->nsamples; i++)
            for (uint32_t k = 0; k < p->samples[i].nframes; k++) {
                uint32_t *fr = &p->samples[i].frames[k];
                if (map[*fr] == UINT32_MAX) {
                    map[*fr] = (uint32_t)used;
                    kept[used++] = in.names[*fr];
                }
                *fr = map[*fr];
            }
        free(map);
        free(in.names);
        in.names = kept;
        in.n = used;
        in.cap = used;
    }
    p->frames = in.names;
    p->nframes = in.n;
    in.names = NULL;
    rc = 0;
out:
    free(in.names);
    free(roles.role);
    free(roles.renamed);
    idindex_free(in.slots);
    idmap_free(&names);
    idmap_free(&threads_by_id);
    idmap_free(&thread_slots);
    idmap_free(&last_sample);
    idmap_free(&labelled);
    if (rc != 0)
        rp_profile_free(p);
    return rc;
}

void rp_profile_free(rp_profile *p)
{
    arena_free(&p->arena);
    free(p->frames);
    free(p->threads);
    free(p->samples);
    free(p->labels);
    memset(p, 0, sizeof(*p));
}
