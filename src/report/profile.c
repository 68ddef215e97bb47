/* profile.c - building a profile from a trace's samples (see profile.h):
 * the records of the view's family (views.h) made samples of the view, the
 * thread labels, the frame names in force, the weights and the totals.
 * The formats that write one are elsewhere (formats.h lists them). */
#include "report/profile.h"
#include "report/source_lines.h"
#include "report/alloc_estimate.h"
#include "report/arena.h"
#include "report/async_frames.h"
#include "report/runtime_frames.h"
#include "common/hash.h"
#include "common/idmap.h"
#include "trace/format.h"

#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void *palloc(rp_profile *p, size_t bytes)
{
    return arena_alloc(&p->arena, bytes);
}

/* ---- interning frame names ---- */


typedef struct name_key {
    const rp_interner *in;
    const char *name;
} name_key;

static int same_name(const void *ctx, uint32_t entry)
{
    const name_key *k = ctx;
    return strcmp(k->in->names[entry], k->name) == 0;
}

/* Room in in->names for one more name; 0, or -1 (out of memory). */
static int intern_room(rp_interner *in)
{
    if (in->n == in->cap) {
        size_t nc = in->cap ? in->cap * 2 : 256;
        char **nn = realloc(in->names, nc * sizeof(*nn));
        if (!nn)
            return -1;
        in->names = nn;
        in->cap = nc;
    }
    return 0;
}

long rp_intern(rp_interner *in, rp_profile *p, const char *name)
{
    name_key key = { in, name };
    uint64_t h = cp_fnv1a_str(name);
    long found = idindex_find(in->slots, h, same_name, &key);

    if (found >= 0)
        return found;
    if (intern_room(in) < 0)
        return -1;
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

long rp_intern_alias(rp_interner *in, uint32_t f)
{
    if (intern_room(in) < 0)
        return -1;
    in->names[in->n] = in->names[f];
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
 * methods' names as it goes; a state machine's frame of one source line
 * renamed to its method's frame of that line, by locate(ctx, frame,
 * renamed) when given).  Returns 0, or -1 (out of memory). */
static int async_roles_update(async_roles *a, rp_interner *in, rp_profile *p,
                              long (*locate)(void *ctx, uint32_t frame, uint32_t renamed), void *ctx)
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
            if (f >= 0 && locate && (f = locate(ctx, (uint32_t)a->n, (uint32_t)f)) < 0)
                return -1;
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
    return rp_count_view_records(tr, RP_VIEW_CPU);
}

/* Which time views a sample record belongs to: the signal engine's wall
 * samples to the wall view, its CPU-timer samples to the CPU view, the
 * suspend engine's to both (the CPU view then keeps those of threads that
 * were on a CPU). */
static int sample_in_view(uint64_t flags, enum rp_view view)
{
    if (flags & SAMPLE_FLAG_WALL)
        return view == RP_VIEW_WALL;
    if (flags & SAMPLE_FLAG_CPU_TIMER)
        return view == RP_VIEW_CPU;
    return 1;
}

uint64_t rp_count_view_records(const rp_trace *tr, enum rp_view view)
{
    const rp_view_info *vi = rp_view_of(view);
    uint64_t n = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        if (e->kind != vi->kind || (view == RP_VIEW_LIVE && !e->alloc_sample.id))
            continue;
        if (e->kind == TK_SAMPLE && !sample_in_view(e->sample.flags, view))
            continue;
        n++;
    }
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
    return p->view == RP_VIEW_CPU ? s->cpu_ns : p->view == RP_VIEW_WALL ? rp_profile_sample_period(p) : s->weight;
}

uint64_t rp_profile_total(const rp_profile *p)
{
    return p->view == RP_VIEW_CPU ? p->cpu_ns
         : p->view == RP_VIEW_WALL ? (uint64_t)p->nsamples * rp_profile_sample_period(p) : p->weight_total;
}

/* The signal engine's CPU samples count the periods of CPU they hold (a
 * sample after 2.5 periods counts 2 or 3, the rounding carried per thread,
 * so that a thread's counts add up to its CPU in periods), as each of the
 * suspend engine's samples counts one period. */
uint64_t rp_sample_count(const rp_profile *p, const rp_sample *s)
{
    if (!rp_view_of(p->view)->counts_samples)
        return s->weight;
    return p->view == RP_VIEW_CPU && s->signal ? s->weight : 1;
}

uint64_t rp_profile_count_total(const rp_profile *p)
{
    uint64_t total = 0;
    if (!rp_view_of(p->view)->counts_samples)
        return p->weight_total;
    for (size_t i = 0; i < p->nsamples; i++)
        total += rp_sample_count(p, &p->samples[i]);
    return total;
}

/* The counts of the signal engine's CPU samples, once the period is known. */
static int signal_counts(rp_profile *p)
{
    rp_carry *carry;
    if (p->view != RP_VIEW_CPU || !p->period_ns || !p->nthreads)
        return 0;
    if (!(carry = calloc(p->nthreads, sizeof(*carry))))
        return -1;
    for (size_t i = 0; i < p->nsamples; i++) {
        rp_sample *s = &p->samples[i];
        if (s->signal)
            s->weight = rp_carry_round(&carry[s->thread], (double)s->cpu_ns / (double)p->period_ns);
    }
    free(carry);
    return 0;
}

/* Each thread's count and the view's count before the filter, once the
 * samples are counted: in the signal engine's CPU view each thread's
 * samples hold its CPU in periods, rounded as signal_counts rounds them
 * (cpu_by_key: every thread's, filtered out or not). */
static void view_counts(rp_profile *p, const idmap *cpu_by_key)
{
    uint64_t key, sum;

    for (size_t i = 0; i < p->nsamples; i++)
        p->threads[p->samples[i].thread].count += rp_sample_count(p, &p->samples[i]);
    p->total_count = p->total_samples;
    if (p->view != RP_VIEW_CPU || !p->period_ns || !cpu_by_key->count)
        return;
    p->total_count = 0;
    for (size_t i = 0; i < cpu_by_key->cap; i++)
        if (idmap_at(cpu_by_key, i, &key, &sum))
            p->total_count += (uint64_t)llround((double)sum / (double)p->period_ns);
}

const char *rp_live_unexamined(const rp_profile *p, char *buf, size_t len)
{
    snprintf(buf, len, "%" PRIu64 " more followed object%s not yet examined, left out: allocated since the last GC, or "
             "large objects (85,000 bytes or more) no gen2 GC has looked at since (a gen0 or gen1 GC never does)",
             p->unexamined, p->unexamined == 1 ? "" : "s");
    return buf;
}

const char *rp_live_empty_reason(const rp_profile *p)
{
    if (rp_view_of(p->view)->family != RP_FAMILY_MEMORY || (p->view == RP_VIEW_LIVE && p->nsamples))
        return NULL;
    if (!p->total_samples)
        return "the trace has no allocation samples (record them with --collect live)";
    if (!p->followed)
        return p->filtered ? "no allocation of the threads asked for was followed"
                           : "its allocations were not followed for the live view (record with --collect live)";
    if (!p->live_gcs)
        return "no GC was seen since the allocations were recorded (the live view counts what was alive after "
               "the last GC)";
    if (p->view != RP_VIEW_LIVE) {
        for (size_t i = 0; i < p->nsamples; i++)
            if (p->samples[i].live)
                return NULL;
    }
    return p->unexamined ? "no followed object was alive after a GC that could have freed it (those not yet "
                           "examined by one are left out: allocated since the last GC, or large objects no gen2 GC "
                           "has looked at)"
                         : "none of the followed objects allocated before the last GC was alive after it";
}

double rp_profile_asked_hz(const rp_profile *p)
{
    return p->period_ns ? 1e9 / (double)p->period_ns : 0;
}

int rp_profile_rate_low(const rp_profile *p)
{
    if (p->engine == SAMPLER_ENGINE_SIGNAL)      /* (judged once the threads used 20 periods of CPU) */
        return p->thread_cpu_ns >= 20 * p->period_ns && p->rate_hz < 0.8 * rp_profile_asked_hz(p);
    return p->ticks > 1 && p->rate_hz < 0.9 * rp_profile_asked_hz(p);
}

uint64_t rp_profile_sample_period(const rp_profile *p)
{
    return p->view == RP_VIEW_WALL && p->engine == SAMPLER_ENGINE_SIGNAL && p->wall_period_ns ? p->wall_period_ns
                                                                                             : p->period_ns;
}

const char *rp_profile_rate_unit(const rp_profile *p)
{
    return p->engine == SAMPLER_ENGINE_SIGNAL ? "samples per CPU-second" : "ticks/s";
}

const char *rp_clock_name(unsigned clock)
{
    return clock == SAMPLER_CLOCK_KSTACK ? "kstack" : clock == SAMPLER_CLOCK_PERCPU ? "percpu"
           : clock == SAMPLER_CLOCK_PERF ? "perf" : "timer";
}

const char *rp_clock_phrase(unsigned clock)
{
    return clock == SAMPLER_CLOCK_KSTACK ? "per-CPU perf events held by the clrprobe command, whose BPF program "
                                           "takes the running thread's stack (a signal only in a system call)"
           : clock == SAMPLER_CLOCK_PERCPU ? "per-CPU perf events held by the clrprobe command, a BPF filter "
                                           "signalling the process's running thread"
           : clock == SAMPLER_CLOCK_PERF ? "perf events on each thread's task clock"
                                         : "a CPU timer per thread";
}

const char *rp_profile_rate_low_reason(const rp_profile *p)
{
    if (p->engine != SAMPLER_ENGINE_SIGNAL)
        return "ticks are skipped while a GC holds the runtime, or the sampler waits for a CPU";
    if (p->clock == SAMPLER_CLOCK_PERF && (p->sampler_flags & SAMPLER_FLAG_USER_ONLY))
        return "the perf events see user time only, and the threads spent time in the kernel; or samples were "
               "lost (each sample holds the thread's CPU since the previous one: the CPU totals stay exact)";
    if (p->clock == SAMPLER_CLOCK_PERF)
        return "samples were lost, or threads were sampled by CPU timers where perf events were refused (see the "
               "notes; each sample holds the thread's CPU since the previous one: the CPU totals stay exact)";
    if (p->clock == SAMPLER_CLOCK_PERCPU || p->clock == SAMPLER_CLOCK_KSTACK)
        return "threads ran on CPUs the process was not allowed when sampling began, or often went to sleep "
               "(the kernel delivers no tick in the moments a thread goes to sleep, and the period can be halved "
               "at most to make up for it); each sample holds the thread's CPU since the previous one: the CPU "
               "totals stay exact";
    if (rp_profile_asked_hz(p) > 200)
        return "the kernel checks CPU timers once per scheduler tick, so a thread gets at most HZ samples a second "
               "(250 or 1000, by the kernel's build), each holding the CPU since the previous one: the CPU totals "
               "stay exact";
    return "a thread that runs in short bursts is sampled when the kernel's tick sees its timer expired, later "
           "than its period; or samples were lost (each sample holds the thread's CPU since the previous one: the "
           "CPU totals stay exact)";
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

/* ---- the builder ---- */

typedef struct builder {
    const rp_trace *tr;
    rp_profile *p;
    const char *filter;
    unsigned options;
    async_roles roles;
    rp_interner in;
    idmap names, threads_by_id, thread_slots, labelled;
    idmap cpu_by_key;        /* the signal engine's CPU view: each thread's samples' cpu_ns, filtered
                                out or not (total_count) */
    idmap first_by_id;       /* each thread id's first thread lifetime in the trace, for a sample
                                written before any record of its thread (the signal engine samples
                                a thread before the runtime's callback says it exists): one OS
                                thread, one row */
    size_t cap, tcap, lcap;
    long native, unknown;
    int in_gc;
    /* source lines (source_lines.h; tr->lines NULL: none) */
    idmap fn_src;            /* FunctionID -> its function_name record (ev index) that gives a token */
    idmap il_frames;         /* (name record index << 32 | IL offset) -> its frame (RP_PROFILE_LINES) */
    idmap located;           /* (plain frame << 32 | line) -> the frame of that line */
    rp_frame_source *src;    /* per frame (in.names), src_cap of them, zeroed past in.n */
    uint8_t *src_tried;      /* per frame: its method's first line was looked for */
    size_t src_cap;
    int any_source;               /* a GC is in progress at the record being read (gc_start .. gc_end) */
} builder;

/* A sampled thread: its label (p->labels, once per thread), and whether it
 * matches the filter.  th is the thread lifetime the trace has for managed
 * (NULL if none); *key is its key in the builder's maps.  Returns 1 if it
 * matches, 0 if not, -1 (out of memory). */
static int thread_of(builder *b, uint64_t managed, uint32_t os_tid, const rp_thread **th, uint64_t *key,
                     const char **label)
{
    rp_profile *p = b->p;
    uint64_t v;
    int tidx = idmap_get(&b->threads_by_id, managed, &v) || idmap_get(&b->first_by_id, managed, &v) ? (int)v : -1;
    int matches;

    *th = tidx >= 0 ? &b->tr->threads[tidx] : NULL;
    *key = tidx >= 0 ? (uint64_t)tidx : (1ULL << 63) | os_tid;
    if (!idmap_get(&b->labelled, *key, &v)) {            /* every sampled thread's label, once */
        if (p->nlabels == b->lcap) {
            size_t nc = b->lcap ? b->lcap * 2 : 16;
            const char **nl = realloc(p->labels, nc * sizeof(*nl));
            if (!nl)
                return -1;
            p->labels = nl;
            b->lcap = nc;
        }
        v = p->nlabels;
        p->labels[p->nlabels++] = thread_label(p, *th, os_tid);
        idmap_put(&b->labelled, *key, v);
    }
    *label = p->labels[v];
    matches = rp_thread_matches(b->filter, *label, *th ? (*th)->name : NULL, *th ? (*th)->os_name : NULL, os_tid,
                                managed);
    if (matches)
        p->filter_matched = 1;
    return matches;
}

/* A new sample of the thread (added to p->threads if new), with its time;
 * NULL when out of memory. */
static rp_sample *new_sample(builder *b, uint64_t t, const rp_thread *th, uint64_t key, const char *label,
                             uint64_t managed, uint32_t os_tid)
{
    rp_profile *p = b->p;
    rp_sample *s;
    uint64_t v;

    if (!idmap_get(&b->thread_slots, key, &v)) {
        if (p->nthreads == b->tcap) {
            size_t nc = b->tcap ? b->tcap * 2 : 16;
            rp_pthread *nt = realloc(p->threads, nc * sizeof(*nt));
            if (!nt)
                return NULL;
            p->threads = nt;
            b->tcap = nc;
        }
        v = p->nthreads++;
        memset(&p->threads[v], 0, sizeof(p->threads[v]));
        p->threads[v].name = label;
        p->threads[v].managed_name = copy_str(p, th ? th->name : "");
        p->threads[v].os_name = copy_str(p, th ? th->os_name : "");
        p->threads[v].managed_id = managed;
        p->threads[v].os_tid = os_tid;
        idmap_put(&b->thread_slots, key, v);
    }
    if (p->nsamples == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 4096;
        rp_sample *ns = realloc(p->samples, nc * sizeof(*ns));
        if (!ns)
            return NULL;
        p->samples = ns;
        b->cap = nc;
    }
    s = &p->samples[p->nsamples++];
    memset(s, 0, sizeof(*s));
    s->t = t;
    s->thread = (uint32_t)v;
    p->threads[v].samples++;
    return s;
}

/* The builder's frame names for runtime_frames.h. */
static const char *builder_name(void *ctx, uint32_t f)
{
    return ((builder *)ctx)->in.names[f];
}

static long builder_intern(void *ctx, const char *name)
{
    builder *b = ctx;
    return rp_intern(&b->in, b->p, name);
}

/* ---- source lines ---- */

/* Room in b->src for frame f; 0, or -1 (out of memory). */
static int src_room(builder *b, size_t f)
{
    if (f < b->src_cap)
        return 0;
    size_t nc = b->src_cap ? b->src_cap * 2 : 256;
    while (nc <= f)
        nc *= 2;
    rp_frame_source *ns = realloc(b->src, nc * sizeof(*ns));
    if (!ns)
        return -1;
    b->src = ns;
    uint8_t *nt = realloc(b->src_tried, nc);
    if (!nt)
        return -1;
    b->src_tried = nt;
    memset(b->src + b->src_cap, 0, (nc - b->src_cap) * sizeof(*ns));
    memset(b->src_tried + b->src_cap, 0, nc - b->src_cap);
    b->src_cap = nc;
    return 0;
}

/* The frame of plain frame f's line loc: a frame of its own with f's name
 * (never in the interner's index: a name finds the plain frame).  Returns
 * it, or -1 (out of memory). */
static long located_frame(builder *b, uint32_t f, const rp_source_line *loc)
{
    rp_interner *in = &b->in;
    uint64_t key = (uint64_t)f << 32 | loc->line, v;
    long l;

    if (idmap_get(&b->located, key, &v) && v < b->src_cap && b->src[v].file && strcmp(b->src[v].file, loc->file) == 0)
        return (long)v;
    if (src_room(b, in->n) < 0 || (l = rp_intern_alias(in, f)) < 0)
        return -1;
    b->src[l] = (rp_frame_source){ .name = in->names[f], .file = loc->file, .base = loc->base,
                                   .line = loc->line, .at_line = 1 };
    b->src_tried[l] = 1;
    if (idmap_put(&b->located, key, (uint64_t)l) < 0)
        return -1;
    b->any_source = 1;
    return l;
}

/* For async_roles_update: a state machine's frame of one line (frame) is
 * renamed to its method's frame of that line.  Returns the frame, or -1. */
static long locate_renamed(void *ctx, uint32_t frame, uint32_t renamed)
{
    builder *b = ctx;
    rp_source_line loc;

    if (frame >= b->src_cap || !b->src[frame].at_line)
        return renamed;
    loc = (rp_source_line){ b->src[frame].file, b->src[frame].base, b->src[frame].line };
    return located_frame(b, renamed, &loc);
}

/* Frame f of function fid, at IL offset il: with its source (the method's
 * first line), and with RP_PROFILE_LINES the frame of its line.  Returns
 * the frame, or -1 (out of memory). */
static long frame_at(builder *b, uint32_t f, uint64_t fid, uint32_t il)
{
    uint64_t ev, key, v;
    const rec_function_name *fn;
    rp_source_line loc;

    if (!b->tr->lines || !idmap_get(&b->fn_src, fid, &ev))
        return f;
    fn = &b->tr->ev[ev].function_name;
    if (src_room(b, f) < 0)
        return -1;
    if (!b->src_tried[f]) {
        b->src_tried[f] = 1;
        if (rp_lines_find(b->tr->lines, fn->module, (uint32_t)fn->token, TRACE_IL_PROLOG, &loc)) {
            b->src[f] = (rp_frame_source){ .name = b->in.names[f], .file = loc.file, .base = loc.base,
                                           .line = loc.line };
            b->any_source = 1;
        }
    }
    if (!(b->options & RP_PROFILE_LINES) || il == TRACE_IL_NONE)
        return f;
    key = ev << 32 | il;
    if (idmap_get(&b->il_frames, key, &v))
        return (long)v;
    v = f;
    if (rp_lines_find(b->tr->lines, fn->module, (uint32_t)fn->token, il, &loc)) {
        long l = located_frame(b, f, &loc);
        if (l < 0)
            return -1;
        v = (uint64_t)l;
    }
    if (idmap_put(&b->il_frames, key, v) < 0)
        return -1;
    return (long)v;
}

/* s's stack from a record's FunctionIDs (leaf first) and their IL offsets
 * (il: NULL, or one per frame), named as in force now, a frame per source
 * line with RP_PROFILE_LINES, async methods by name (unless raw frames)
 * and the GC poll helpers folded; then, when leaf is not NULL, the frame of
 * that name on top (the sample is then typed).  Returns 0, or -1 (out of
 * memory). */
static int set_stack(builder *b, rp_sample *s, const uint64_t *frames, const uint32_t *il, uint32_t n,
                     const char *leaf)
{
    rp_profile *p = b->p;

    s->nframes = n;
    s->frames = palloc(p, (n + 1) * sizeof(uint32_t));
    if (!s->frames)
        return -1;
    for (uint32_t k = 0; k < n; k++) {                   /* leaf first -> root first */
        uint64_t fid = frames[n - 1 - k], f;
        s->frames[k] = fid == 0 ? (uint32_t)b->native
                     : idmap_get(&b->names, fid, &f) ? (uint32_t)f : (uint32_t)b->unknown;
        if (fid && s->frames[k] != (uint32_t)b->unknown) {
            long at = frame_at(b, s->frames[k], fid, il ? il[n - 1 - k] : TRACE_IL_NONE);
            if (at < 0)
                return -1;
            s->frames[k] = (uint32_t)at;
        }
    }
    /* Async methods as written (async_frames.h) */
    if (!(b->options & RP_PROFILE_RAW_FRAMES)) {
        if (async_roles_update(&b->roles, &b->in, p, locate_renamed, b) < 0)
            return -1;
        s->nframes = rp_async_fold(s->frames, s->nframes, b->roles.role, b->roles.renamed, b->in.names);
        {
            rp_frame_names fn = { builder_name, builder_intern, b };
            if (rp_async_name_boxes(s->frames, s->nframes, &fn) < 0)
                return -1;
        }
        s->nframes = rp_async_uninvert(s->frames, s->nframes, b->in.names);
        /* the runtime's native frames by what they do (runtime_frames.h) */
        {
            const rp_pthread *th = &p->threads[s->thread];
            rp_frame_names fn = { builder_name, builder_intern, b };
            long m = rp_runtime_group(s->frames, s->nframes, &fn, th->os_name && th->os_name[0] ? th->os_name
                                      : th->managed_name ? th->managed_name : "", b->in_gc);
            if (m < 0)
                return -1;
            s->nframes = (uint32_t)m;
        }
    }
    /* Threads stop for the sample at GC safe points; a loop's safe point
     * is a call to the runtime's poll helper, which would otherwise get
     * the time of the function that called it. */
    while (s->nframes > 1 && is_safe_point_helper(b->in.names[s->frames[s->nframes - 1]]))
        s->nframes--;
    if (leaf) {
        long f = rp_intern(&b->in, p, leaf);
        if (f < 0)
            return -1;
        s->frames[s->nframes++] = (uint32_t)f;
        s->typed = 1;
    }
    return 0;
}

/* ---- the live view's GCs ---- */

#define LOH_THRESHOLD 85000  /* bytes: objects this large go to the large-object heap, which only gen2 GCs collect */

/* The GCs the live tracker saw (live_gc records, one GC per gc number; a
 * GC's dead ids may be split over several records) and the GC each dead id
 * died in. */
typedef struct live_gcs {
    uint64_t *t;             /* each GC's time (its first record), in order */
    uint64_t *large_t;       /* the start of each GC that collected the large-object heap (gen2), in order */
    size_t nlarge, large_cap;
    int have_gc_records;     /* the trace has gc_start records (without them, a large object counts as
                                examined by any GC, as a small one) */
    uint32_t *num;           /* its number (the tracker's GC count: when several GCs ended before the
                                tracker looked, one record stands for them all and the count jumps) */
    size_t n, cap;
    idmap dead;              /* alloc_sample id -> index in t of the GC it died in */
} live_gcs;

static int live_gcs_read(const rp_trace *tr, live_gcs *g, rp_profile *p)
{
    uint32_t current = 0;

    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        if (e->kind == TK_GC_START) {
            g->have_gc_records = 1;
            if (!(e->gc_start.generations & (1u << 2 | 1u << 3)))
                continue;
            if (g->nlarge == g->large_cap) {
                size_t nc = g->large_cap ? g->large_cap * 2 : 16;
                uint64_t *nt = realloc(g->large_t, nc * sizeof(*nt));
                if (!nt)
                    return -1;
                g->large_t = nt;
                g->large_cap = nc;
            }
            g->large_t[g->nlarge++] = e->t;
            continue;
        }
        if (e->kind != TK_LIVE_GC)
            continue;
        if (!g->n || e->live_gc.gc != current) {
            if (g->n == g->cap) {
                size_t nc = g->cap ? g->cap * 2 : 64;
                uint64_t *nt = realloc(g->t, nc * sizeof(*nt));
                uint32_t *nn;
                if (!nt)
                    return -1;
                g->t = nt;
                if (!(nn = realloc(g->num, nc * sizeof(*nn))))
                    return -1;
                g->num = nn;
                g->cap = nc;
            }
            g->num[g->n] = e->live_gc.gc;
            g->t[g->n++] = e->t;
            current = e->live_gc.gc;
        }
        for (uint32_t k = 0; k < e->live_gc.ndead; k++)
            if (idmap_put(&g->dead, e->live_gc.dead[k], g->n - 1) < 0)
                return -1;
        p->live_last_gc = current;
        p->live_last_gc_t = e->t;
    }
    p->live_gcs = (uint32_t)g->n;
    return 0;
}

/* Whether a GC that could have freed an object of size bytes allocated at
 * t has been checked by the live tracker: any GC for an object of the
 * small-object heap (gen0 is collected in every GC), a gen2 GC for one of
 * the large-object heap (a gen0 or gen1 GC never looks at it). */
static int examined(const live_gcs *g, const rp_profile *p, uint64_t t, uint64_t size)
{
    if (!g->n || t >= p->live_last_gc_t)
        return 0;
    if (size < LOH_THRESHOLD || !g->have_gc_records)
        return 1;
    for (size_t i = g->nlarge; i-- > 0;) {
        if (g->large_t[i] <= t)
            return 0;
        if (g->large_t[i] < p->live_last_gc_t)
            return 1;
    }
    return 0;
}

/* The number of GCs after time t (those of g->t later than t). */
static size_t gcs_after(const live_gcs *g, uint64_t t)
{
    size_t lo = 0, hi = g->n;                 /* the first GC later than t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->t[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return g->n - lo;
}

/* ---- records of each view ---- */

/* A CPU sample record kept in the view (signal: the signal engine's). */
static int keep_cpu_sample(builder *b, const rp_event *e, const rp_thread *th, uint64_t key, const char *label,
                           int signal)
{
    const rec_sample *r = &e->sample;
    rp_profile *p = b->p;
    rp_sample *s;

    if (!(s = new_sample(b, e->t, th, key, label, r->thread, r->os_tid)))
        return -1;
    s->cpu_ns = r->cpu_ns;
    if (signal) {
        s->signal = 1;
        s->waiting = (r->flags & SAMPLE_FLAG_WAITING) != 0;
        p->waiting += s->waiting;
        s->truncated = (r->flags & SAMPLE_FLAG_TRUNCATED) != 0;
        p->truncated += s->truncated;
    }
    if (set_stack(b, s, r->frames, r->nil == r->nframes ? r->il : NULL, r->nframes, NULL) < 0)
        return -1;
    p->threads[s->thread].cpu_ns += r->cpu_ns;
    p->cpu_ns += r->cpu_ns;
    return 0;
}

static int add_cpu_sample(builder *b, const rp_event *e, idmap *last_sample)
{
    const rec_sample *r = &e->sample;
    rp_profile *p = b->p;
    const rp_thread *th;
    const char *label;
    uint64_t key, prev_t = 0;
    int matches, on_cpu;

    if (r->flags & (SAMPLE_FLAG_CPU_TIMER | SAMPLE_FLAG_WALL)) {
        /* the signal engine: a CPU timer's sample is CPU time (cpu_ns of
         * it), in the CPU view only; a wall tick's, in the wall view only */
        if (sample_in_view(r->flags, RP_VIEW_CPU))
            p->cpu_signals++;
        if (!sample_in_view(r->flags, p->view))
            return 0;
        p->total_samples++;
        if ((matches = thread_of(b, r->thread, r->os_tid, &th, &key, &label)) < 0)
            return -1;
        if (p->view == RP_VIEW_CPU) {
            uint64_t sum = 0;
            idmap_get(&b->cpu_by_key, key, &sum);
            if (idmap_put(&b->cpu_by_key, key, sum + r->cpu_ns) < 0)
                return -1;
        }
        if (!matches)
            return 0;
        return keep_cpu_sample(b, e, th, key, label, 1);
    }
    p->total_samples++;
    if ((matches = thread_of(b, r->thread, r->os_tid, &th, &key, &label)) < 0)
        return -1;
    /* On a CPU: the thread used at least a quarter of the time since
     * its previous sample (a sleeping thread that wakes now and then
     * does not count). */
    {
        int seen = idmap_get(last_sample, r->os_tid, &prev_t);
        on_cpu = seen && e->t > prev_t && r->cpu_ns * 4 >= e->t - prev_t;
        idmap_put(last_sample, r->os_tid, e->t);
    }
    if (!matches)
        return 0;
    if (p->view == RP_VIEW_CPU && !on_cpu) {
        p->cpu_unshown_ns += r->cpu_ns;
        return 0;
    }
    return keep_cpu_sample(b, e, th, key, label, 0);
}

static void view_record_time(rp_profile *p, uint64_t t, uint64_t end)
{
    if (!p->total_samples++ || t < p->first_t)
        p->first_t = t;
    if (end > p->last_t)
        p->last_t = end;
}

static int add_alloc_sample(builder *b, const rp_event *e, const live_gcs *g, rp_carry *carry)
{
    const rec_alloc_sample *r = &e->alloc_sample;
    rp_profile *p = b->p;
    const rp_thread *th;
    const char *label;
    uint64_t key, died;
    double bytes, objects;
    int matches, dead, live;
    size_t after;
    rp_sample *s;

    view_record_time(p, e->t, e->t);
    p->alloc_methods |= r->method < 32 ? 1u << r->method : 1u;
    if ((matches = thread_of(b, r->thread, r->os_tid, &th, &key, &label)) < 0)
        return -1;
    if (!matches)
        return 0;
    /* The live view (Go's inuse_space): followed, allocated before the
     * last GC the tracker saw, never found dead. */
    dead = r->id && idmap_get(&g->dead, r->id, &died);
    live = r->id && !dead && examined(g, p, e->t, r->method == ALLOC_METHOD_EXACT && r->count ? r->size / r->count
                                                                                              : r->size);
    if (r->id)
        p->followed++;
    if (r->id && !dead && !live)
        p->unexamined++;
    if (p->view == RP_VIEW_LIVE && !live)
        return 0;
    if (!(s = new_sample(b, e->t, th, key, label, r->thread, r->os_tid)))
        return -1;
    if (set_stack(b, s, r->frames, r->nil == r->nframes ? r->il : NULL, r->nframes,
                  r->type[0] ? r->type : RP_UNKNOWN_TYPE) < 0)
        return -1;
    rp_alloc_estimate(r, &bytes, &objects);
    s->bytes = bytes;
    s->objects = objects;
    s->live = (uint8_t)live;
    /* Its age: the GCs it lived through, by their numbers.  The first check
     * after it is g->n - after; of the GCs that check stands for, only the
     * last is known to have come after the allocation, and of those the
     * check it was found dead in stands for, none is known to have spared
     * it: the age is never overstated. */
    after = gcs_after(g, e->t);
    if (r->id && after > 0) {
        size_t first = g->n - after;
        uint32_t base = g->num[first] - 1;
        if (!dead)
            s->age = g->num[g->n - 1] - base;
        else
            s->age = died > first ? g->num[died - 1] - base : 0;
    }
    s->weight = rp_carry_round(carry, p->view == RP_VIEW_ALLOC_COUNT ? objects : bytes);
    p->bytes += bytes;
    p->objects += objects;
    p->threads[s->thread].weight += s->weight;
    p->weight_total += s->weight;
    return 0;
}

/* How many of a wait's leaf frames are the runtime raising the event (a
 * System.Threading.Lock reports its contention from managed code, through
 * NativeRuntimeEventSource): not where the program waits. */
static uint32_t event_plumbing_frames(const builder *b, const uint64_t *frames, uint32_t n)
{
    static const char prefix[] = "System.Diagnostics.Tracing.NativeRuntimeEventSource.";
    uint32_t k = 0;
    uint64_t f;

    while (k < n && idmap_get(&b->names, frames[k], &f) &&
           strncmp(b->in.names[f], prefix, sizeof(prefix) - 1) == 0)
        k++;
    return k < n ? k : 0;
}

/* Whether a wait whose lock's type the runtime did not give (it refuses to
 * inspect the object from where a System.Threading.Lock raises its events)
 * waits inside System.Threading.Lock itself: then that is the type. */
static int waits_in_lock_type(const builder *b, const uint64_t *frames, uint32_t n)
{
    static const char prefix[] = "System.Threading.Lock.";
    uint64_t f;

    return n > 0 && idmap_get(&b->names, frames[0], &f) && strncmp(b->in.names[f], prefix, sizeof(prefix) - 1) == 0;
}

/* An exception's throw stack, its type as the leaf.  The agent samples the
 * stacks (exceptions.h: the first of a type on a thread always has one):
 * one stands for itself and the exceptions of its type on its thread that
 * follow it without a stack (by_type: thread and class -> the sample's
 * index + 1).  The record names its thread by the OS thread id only:
 * os_threads maps those to managed threads (their last thread_os record). */
static int add_exception(builder *b, const rp_event *e, idmap *os_threads, idmap *by_type)
{
    const rec_exception_thrown *r = &e->exception_thrown;
    rp_profile *p = b->p;
    const rp_thread *th;
    const char *label;
    uint64_t key, managed = 0, at = 0;
    uint64_t type_key = r->class_id;
    for (const char *c = r->type; !type_key && *c; c++)
        type_key = type_key * 31 + (unsigned char)*c;       /* (no ClassID: by its name) */
    type_key = type_key * 0x9E3779B97F4A7C15ull ^ e->tid;
    int matches;
    rp_sample *s;

    view_record_time(p, e->t, e->t);
    if (!r->nstack) {                        /* one whose stack was not taken: the last one's */
        if (idmap_get(by_type, type_key, &at) && at) {
            p->samples[at - 1].weight++;
            p->threads[p->samples[at - 1].thread].weight++;
            p->weight_total++;
        }
        return 0;
    }
    idmap_put(by_type, type_key, 0);
    idmap_get(os_threads, e->tid, &managed);
    if ((matches = thread_of(b, managed, e->tid, &th, &key, &label)) < 0)
        return -1;
    if (!matches)
        return 0;
    if (!(s = new_sample(b, e->t, th, key, label, managed, e->tid)))
        return -1;
    if (set_stack(b, s, r->stack, r->nil == r->nstack ? r->il : NULL, r->nstack,
                  r->type[0] ? r->type : RP_UNKNOWN_TYPE) < 0)
        return -1;
    s->weight = 1;
    p->threads[s->thread].weight += s->weight;
    p->weight_total += s->weight;
    return idmap_put(by_type, type_key, (uint64_t)(s - p->samples) + 1) < 0 ? -1 : 0;
}

static int add_contention(builder *b, const rp_event *e)
{
    const rec_contention *r = &e->contention;
    uint32_t skip = event_plumbing_frames(b, r->frames, r->nframes);
    const uint32_t *il = r->nil == r->nframes ? r->il : NULL;
    rp_profile *p = b->p;
    const rp_thread *th;
    const char *label;
    uint64_t key;
    int matches;
    rp_sample *s;

    view_record_time(p, e->t, e->t + r->duration_ns);
    if ((matches = thread_of(b, r->thread, r->os_tid, &th, &key, &label)) < 0)
        return -1;
    if (!matches)
        return 0;
    if (!(s = new_sample(b, e->t, th, key, label, r->thread, r->os_tid)))
        return -1;
    if (r->type[0] || waits_in_lock_type(b, r->frames + skip, r->nframes - skip)) {
        const char *type = r->type[0] ? r->type : "System.Threading.Lock";
        size_t len = strlen(type) + sizeof(RP_LOCK_PREFIX);
        char *lock = malloc(len);
        int rc;
        if (!lock)
            return -1;
        snprintf(lock, len, RP_LOCK_PREFIX "%s", type);
        rc = set_stack(b, s, r->frames + skip, il ? il + skip : NULL, r->nframes - skip, lock);
        free(lock);
        if (rc < 0)
            return -1;
    } else if (set_stack(b, s, r->frames + skip, il ? il + skip : NULL, r->nframes - skip, NULL) < 0) {
        return -1;
    }
    s->weight = r->duration_ns;
    p->threads[s->thread].weight += s->weight;
    p->weight_total += s->weight;
    return 0;
}

int rp_profile_build_opts(const rp_trace *tr, enum rp_view view, const char *filter, unsigned options, rp_profile *p)
{
    builder b;
    idmap last_sample, os_threads, by_type;
    live_gcs gcs = { 0 };
    rp_carry carry = { 0 };
    const rp_view_info *vi = rp_view_of(view);
    uint64_t first_tick = 0, last_tick = 0, first_process_cpu = 0;
    size_t process_cpus = 0;
    int rc = -1;

    memset(p, 0, sizeof(*p));
    memset(&b, 0, sizeof(b));
    b.tr = tr;
    b.p = p;
    b.filter = filter;
    b.options = options;
    p->options = options;
    p->view = vi->view;
    p->filtered = filter != NULL;
    idmap_init(&b.names);
    idmap_init(&b.fn_src);
    idmap_init(&b.il_frames);
    idmap_init(&b.located);
    idmap_init(&b.threads_by_id);
    idmap_init(&b.first_by_id);
    idmap_init(&b.cpu_by_key);
    idmap_init(&b.thread_slots);
    idmap_init(&b.labelled);
    idmap_init(&last_sample);
    idmap_init(&os_threads);
    idmap_init(&by_type);
    idmap_init(&gcs.dead);
    b.native = rp_intern(&b.in, p, "[native code]");
    b.unknown = rp_intern(&b.in, p, "[unknown]");
    if (b.native < 0 || b.unknown < 0)
        goto out;
    if (vi->family == RP_FAMILY_MEMORY && live_gcs_read(tr, &gcs, p) < 0)
        goto out;
    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        uint64_t seen;
        if ((e->kind == TK_THREAD_CREATE || e->kind == TK_THREAD_OS || e->kind == TK_THREAD_NAME) &&
            e->thread >= 0 && !idmap_get(&b.first_by_id, rp_thread_id(e), &seen))
            idmap_put(&b.first_by_id, rp_thread_id(e), (uint64_t)e->thread);
    }

    for (size_t i = 0; i < tr->nev; i++) {
        const rp_event *e = &tr->ev[i];
        switch (e->kind) {
        case TK_FUNC_NAME:
        case TK_JIT:
        case TK_PRECOMPILED: {
            uint64_t function;
            const char *name = rp_function_name(e, &function);
            if (name[0]) {
                long f = rp_intern(&b.in, p, name);
                if (f < 0)
                    goto out;
                idmap_put(&b.names, function, (uint64_t)f);
            }
            /* the method behind the ID from now on, for its lines (an ID
             * reused for another method gets its own record) */
            if (e->kind == TK_FUNC_NAME && tr->lines) {
                if (e->function_name.token)
                    idmap_put(&b.fn_src, function, i);
                else
                    idmap_del(&b.fn_src, function);
            }
            break;
        }
        case TK_MODULE_UNLOAD:
            break;
        case TK_THREAD_CREATE: case TK_THREAD_OS: case TK_THREAD_NAME: case TK_THREAD_DESTROY:
            if (e->thread >= 0)
                idmap_put(&b.threads_by_id, rp_thread_id(e), (uint64_t)e->thread);
            if (e->kind == TK_THREAD_OS && e->thread_os.os_tid)
                idmap_put(&os_threads, e->thread_os.os_tid, e->thread_os.thread);
            break;
        case TK_SAMPLER_START:
            if (vi->family == RP_FAMILY_TIME) {
                snprintf(p->sampler_why, sizeof(p->sampler_why), "%s", e->sampler_start.why);
                p->sampler_flags = e->sampler_start.flags;
            }
            break;
        case TK_SAMPLER_TICK: {                 /* (the sampler's: the CPU sampler's views only) */
            const rec_sampler_tick *k = &e->sampler_tick;
            if (vi->family != RP_FAMILY_TIME)
                break;
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
            p->engine = (unsigned)k->engine;
            if (k->engine == SAMPLER_ENGINE_SIGNAL && k->clock > p->clock)
                p->clock = (unsigned)k->clock;      /* (the best clock any tick had) */
            if (k->engine == SAMPLER_ENGINE_SIGNAL) {
                if (p->ticks == 1)
                    first_tick = e->t - k->interval_ns;      /* (its first tick covers the time before it) */
                p->signals += k->signals;
                p->periods += k->periods;
                p->thread_cpu_ns += k->thread_cpu_ns;
                if (k->wall_period_ns)
                    p->wall_period_ns = k->wall_period_ns;
            }
            break;
        }
        case TK_GC_START:
            b.in_gc = 1;
            break;
        case TK_GC_END:
            b.in_gc = 0;
            break;
        case TK_PROCESS_CPU:        /* the first and the last bracket the sampling (docs/sampling.md) */
            if (vi->family != RP_FAMILY_TIME)
                break;
            if (!process_cpus++)
                first_process_cpu = e->process_cpu.cpu_ns;
            else if (e->process_cpu.cpu_ns > first_process_cpu) {
                p->process_cpu_ns = e->process_cpu.cpu_ns - first_process_cpu;
                p->processes = 1;
            }
            break;
        case TK_SAMPLE:
            if (vi->family == RP_FAMILY_TIME && add_cpu_sample(&b, e, &last_sample) < 0)
                goto out;
            break;
        case TK_ALLOC_SAMPLE:
            if (vi->family == RP_FAMILY_MEMORY && add_alloc_sample(&b, e, &gcs, &carry) < 0)
                goto out;
            break;
        case TK_CONTENTION:
            if (vi->family == RP_FAMILY_CONTENTION && add_contention(&b, e) < 0)
                goto out;
            break;
        case TK_EXCEPTION_THROWN:
            if (vi->family == RP_FAMILY_EXCEPTIONS && add_exception(&b, e, &os_threads, &by_type) < 0)
                goto out;
            break;
        }
    }
    if (!p->period_ns)
        p->period_ns = 10000000u;            /* (traces without ticks: the default rate) */
    if (signal_counts(p) < 0)
        goto out;
    view_counts(p, &b.cpu_by_key);
    /* The window: each tick stands for one period, so N evenly spaced ticks
     * make N periods and the achieved rate is the asked one.  The other
     * families: their records' first to last. */
    if (vi->family != RP_FAMILY_TIME) {
        p->duration_ns = p->last_t - p->first_t;
    } else if (p->ticks && p->engine == SAMPLER_ENGINE_SIGNAL) {
        /* the signal engine's ticks cover the time since the one before;
         * its rate is per second of the sampled threads' CPU */
        p->duration_ns = last_tick - first_tick;
        p->rate_hz = p->thread_cpu_ns ? (double)p->cpu_signals * 1e9 / (double)p->thread_cpu_ns : 0;
    } else if (p->ticks) {
        p->duration_ns = last_tick - first_tick + p->period_ns;
        p->rate_hz = (double)p->ticks * 1e9 / (double)p->duration_ns;
    } else if (p->nsamples) {
        p->duration_ns = p->samples[p->nsamples - 1].t - p->samples[0].t;
    }
    /* Keep only the frames that samples use, renumbered in first-use order:
     * the exporters write the frame table as it is. */
    {
        rp_interner *in = &b.in;
        uint32_t *map = malloc((in->n ? in->n : 1) * sizeof(*map));
        char **kept = malloc((in->n ? in->n : 1) * sizeof(*kept));
        rp_frame_source *kept_src = b.any_source ? calloc(in->n ? in->n : 1, sizeof(*kept_src)) : NULL;
        size_t used = 0;
        if (!map || !kept || (b.any_source && (!kept_src || src_room(&b, in->n) < 0))) {
            free(map);
            free(kept);
            free(kept_src);
            goto out;
        }
        for (size_t f = 0; f < in->n; f++)
            map[f] = UINT32_MAX;
        for (size_t i = 0; i < p->nsamples; i++)
            for (uint32_t k = 0; k < p->samples[i].nframes; k++) {
                uint32_t *fr = &p->samples[i].frames[k];
                if (map[*fr] == UINT32_MAX) {
                    map[*fr] = (uint32_t)used;
                    if (kept_src) {
                        kept_src[used] = b.src[*fr];
                        if (!kept_src[used].file)
                            kept_src[used].name = in->names[*fr];
                    }
                    kept[used++] = in->names[*fr];
                }
                *fr = map[*fr];
            }
        free(map);
        free(in->names);
        in->names = kept;
        in->n = used;
        in->cap = used;
        p->sources = kept_src;
        /* a frame of one line shows it: "NAME (FILE:LINE)" */
        for (size_t f = 0; kept_src && f < used; f++)
            if (kept_src[f].at_line) {
                size_t len = strlen(kept_src[f].name) + strlen(kept_src[f].base) + 16;
                char *label = palloc(p, len);
                if (!label)
                    goto out;
                snprintf(label, len, "%s (%s:%u)", kept_src[f].name, kept_src[f].base, kept_src[f].line);
                in->names[f] = label;
            }
    }
    p->frames = b.in.names;
    p->nframes = b.in.n;
    b.in.names = NULL;
    rc = 0;
out:
    free(b.in.names);
    free(b.src);
    free(b.src_tried);
    idmap_free(&b.fn_src);
    idmap_free(&b.il_frames);
    idmap_free(&b.located);
    free(b.roles.role);
    free(b.roles.renamed);
    idindex_free(b.in.slots);
    idmap_free(&b.names);
    idmap_free(&b.threads_by_id);
    idmap_free(&b.first_by_id);
    idmap_free(&b.cpu_by_key);
    idmap_free(&b.thread_slots);
    idmap_free(&b.labelled);
    idmap_free(&last_sample);
    idmap_free(&os_threads);
    idmap_free(&by_type);
    idmap_free(&gcs.dead);
    free(gcs.large_t);
    free(gcs.t);
    free(gcs.num);
    if (rc != 0)
        rp_profile_free(p);
    return rc;
}

void rp_profile_free(rp_profile *p)
{
    arena_free(&p->arena);
    free(p->frames);
    free(p->sources);
    free(p->threads);
    free(p->samples);
    free(p->labels);
    memset(p, 0, sizeof(*p));
}
