/* sampler.c - the sampling thread (see sampler.h and docs/sampling.md,
 * "Why it works this way": on Linux cross-thread DoStackSnapshot works only inside a
 * profiler-requested SuspendRuntime).
 *
 * While the runtime is suspended the sampler only calls the runtime and
 * fills memory allocated beforehand: no malloc, no agent locks.  The walk
 * skips frames of dynamic methods (LCG such as lambda_method, IL stubs)
 * without a callback; the sampler finds those that sit between two reported
 * frames on the frame-pointer chain and keeps their return addresses (see
 * skipped_frames).  After ResumeRuntime it turns those addresses into
 * FunctionIDs (GetFunctionFromIP3, dynamic methods only) and resolves names
 * of new FunctionIDs inside the unload gate
 * (an unload since the suspension makes this tick's unnamed IDs suspect:
 * they are then left unnamed rather than risk a call on a dead ID) and
 * appends the records to its own trace buffer.
 *
 * A service of the session: sampler_start/sampler_stop are called by
 * session.c only, never at the same time.  Calls the runtime, names.c,
 * catchup.c (the unload gate) and thread_state.c (emit). */
#include "agent/sampling/sampler.h"
#include "agent/core/service.h"
#include "agent/sampling/sigsampler.h"
#include "common/idmap.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_FRAMES 256               /* deeper stacks are cut (the root side is lost) */
#define MAX_SKIPPED 4                /* skipped frames looked for between two reported ones */
#define MAX_OSR_SLOTS 512             /* words of a tier-0 frame searched for its saved fp (OSR) */
#define MAX_GAP (1u << 20)           /* between two reported frames' stack pointers: more is not believed */

/* Where the x64 CONTEXT (Windows layout, which the PAL keeps) holds the
 * registers a snapshot callback's context is read for.  Other architectures
 * walk without contexts (and so without skipped frames). */
#if defined(__x86_64__)
#define SNAPSHOT_FLAGS COR_PRF_SNAPSHOT_REGISTER_CONTEXT
#define CTX_RSP 0x98
#define CTX_RBP 0xa0
#define CTX_SIZE_MIN 0x100
#else
#define SNAPSHOT_FLAGS COR_PRF_SNAPSHOT_DEFAULT
#define CTX_RSP 0
#define CTX_RBP 0
#define CTX_SIZE_MIN 0xffffffffu
#endif
#define THREADS_INITIAL 64
#define CPU_SLOTS 4096               /* OS thread -> CPU time at its last sample */

typedef struct slot {
    ThreadID thread;
    uint32_t os_tid;
    uint16_t nframes;
    uint16_t nskipped;               /* frames the walk skipped, to resolve after the resume */
    uint64_t cpu_delta;
} slot;

struct sampler {
    profiler *p;
    pthread_t thread;
    atomic_int stop;
    int rate;
    /* per tick, allocated outside suspensions */
    slot *slots;
    FunctionID *frames;              /* cap * MAX_FRAMES */
    UINT_PTR *skipped;               /* cap * MAX_FRAMES: beside a 0 frame, the return address of a
                                      * frame the walk skipped (to resolve after the resume), else 0 */
    UINT_PTR *ips;                   /* cap * MAX_FRAMES: each frame's code address */
    uint32_t *il;                    /* cap * MAX_FRAMES: each frame's IL offset (il_maps.h), after the resume */
    size_t cap;
    /* CPU time per OS thread: a table of its own, open addressing, fixed size,
     * because it is used while the runtime is suspended (no allocation) */
    uint32_t cpu_tid[CPU_SLOTS];
    uint64_t cpu_last[CPU_SLOTS];
    uint64_t cpu_seen[CPU_SLOTS];        /* tick the entry was last used: old ones are reused */
    uint64_t ticks;
    /* waking the thread early when stopping */
    pthread_mutex_t wait_lock;
    pthread_cond_t wait_cond;
    /* FunctionIDs already named in the trace, and the unload count they are valid for */
    idmap named;                     /* (common/idmap.h: used outside suspensions only) */
    idmap dynamic;                   /* dynamic methods' FunctionIDs -> key of the name last written:
                                      * the runtime reuses a collected one's ID, so it is named each tick */
    uint64_t named_unloads;
};

/* ---- small helpers, none of which allocate ---- */

#define CPU_STALE_TICKS 64           /* an entry not used for this many ticks belongs to a dead thread */

/* CPU used by tid since its previous sample (0 the first time).  Entries of
 * threads that stopped being sampled are reused, so thread churn never fills
 * the table. */
static uint64_t cpu_delta(struct sampler *s, uint32_t tid)
{
    uint64_t now = cp_thread_cpu_of(tid), delta;
    size_t home = (tid * 2654435761u) & (CPU_SLOTS - 1), i = home, free_slot = CPU_SLOTS;

    for (size_t probes = 0; probes < 32; probes++, i = (i + 1) & (CPU_SLOTS - 1)) {
        if (s->cpu_tid[i] == tid) {
            delta = now > s->cpu_last[i] ? now - s->cpu_last[i] : 0;
            s->cpu_last[i] = now;
            s->cpu_seen[i] = s->ticks;
            return delta;
        }
        if (free_slot == CPU_SLOTS && (s->cpu_tid[i] == 0 || s->ticks - s->cpu_seen[i] > CPU_STALE_TICKS))
            free_slot = i;
    }
    if (free_slot == CPU_SLOTS)
        free_slot = home;                /* more live threads than the table holds: share */
    s->cpu_tid[free_slot] = tid;
    s->cpu_last[free_slot] = now;
    s->cpu_seen[free_slot] = s->ticks;
    return 0;
}

typedef struct walk {
    FunctionID *frames;
    UINT_PTR *skipped;
    UINT_PTR *ips;
    uint16_t n;
    uint16_t nskipped;               /* entries in skipped[] that are set */
    int have_prev;                   /* the previous callback was a managed frame with a context */
    uintptr_t prev_sp, prev_fp;      /* its stack and frame pointers */
} walk;

static uintptr_t ctx_reg(const BYTE *ctx, size_t off)
{
    uintptr_t v;
    memcpy(&v, ctx + off, sizeof(v));
    return v;
}

/* An OSR method (a loop's optimized code, entered from its tier-0 frame)
 * sits on top of that frame with a pseudo return address into the tier-0
 * code, and the frame pointer it saved is the one the tier-0 frame saved
 * (its caller's): the chain goes from the OSR frame straight to the
 * caller's frame, past the tier-0 frame's own pair [saved fp][return
 * address], the return into the method that called it.  That pair is the
 * highest slot between the two links (above fp's pair, below both next and
 * caller_sp) that holds next: the tier-0 frame is the top of what lies
 * between, and below it the patchpoint helper's frame left a stale pair
 * holding next too.  Its return address, or 0.  In a chain without OSR
 * nothing there holds next, or what does is not a return into a dynamic
 * method (the only frames kept when resolved). */
static uintptr_t osr_hidden_return(uintptr_t fp, uintptr_t next, uintptr_t caller_sp)
{
    const size_t w = sizeof(uintptr_t);
    uintptr_t end = next < caller_sp ? next : caller_sp;   /* the pair lies below this */
    uintptr_t low = fp + 2 * w;

    if (end < low + 2 * w || end % w != 0)
        return 0;
    for (uintptr_t at = end - 2 * w, looked = 0; at >= low && looked < MAX_OSR_SLOTS; at -= w, looked++) {
        uintptr_t v, ret;
        memcpy(&v, (const void *)at, w);
        if (v != next)
            continue;
        memcpy(&ret, (const void *)(at + w), w);
        return ret;
    }
    return 0;
}

/* Frames the runtime's walk passes over without a callback: methods without
 * metadata (LCG dynamic methods such as lambda_method, IL stubs).  Between
 * the previous reported frame (a callee, stack pointer sp and frame pointer
 * fp) and the current one (its caller as far as the walk says, stack
 * pointer caller_sp, at caller_ip), the frame-pointer chain is followed:
 * [fp + 8] is the return address into the callee's real caller.  When it is
 * not caller_ip, a frame was skipped there; its return address is kept and
 * the chain followed on ([fp] is the skipped frame's own fp).  Only memory
 * between two live frames' stack pointers of a stopped stack is read.  A
 * callee without a frame of its own (its fp is its caller's) hides the frame
 * it was called from.  After a link that passed over a frame, the OSR case
 * (above) is looked for: the frame it hides is kept too. */
size_t sampler_skipped_between(uintptr_t sp, uintptr_t fp, uintptr_t caller_sp, uintptr_t caller_ip,
                               uintptr_t *out, size_t max)
{
    size_t n = 0;

    if (caller_sp <= sp || caller_sp - sp > MAX_GAP)
        return 0;                    /* (not two frames of one stack as far as we can tell) */
    while (n < max) {
        uintptr_t ret, next;
        if (fp < sp || fp % sizeof(uintptr_t) != 0 || fp > caller_sp - 2 * sizeof(uintptr_t))
            break;
        memcpy(&next, (const void *)fp, sizeof(next));
        memcpy(&ret, (const void *)(fp + sizeof(uintptr_t)), sizeof(ret));
        if (ret == caller_ip || ret == 0)
            break;                   /* the callee's caller is the frame reported next: nothing (more) skipped */
        out[n++] = ret;
        if (next <= fp)
            break;
        if (n < max) {
            uintptr_t hidden = osr_hidden_return(fp, next, caller_sp);
            if (hidden && hidden != caller_ip)
                out[n++] = hidden;
        }
        fp = next;
    }
    return n;
}

/* Appends the frames skipped before the frame at caller_sp / caller_ip (as
 * frame 0 with skipped[] set, resolved after the resume). */
static void skipped_frames(walk *w, uintptr_t sp, uintptr_t fp, uintptr_t caller_sp, UINT_PTR caller_ip)
{
    uintptr_t found[MAX_SKIPPED];
    size_t k = sampler_skipped_between(sp, fp, caller_sp, caller_ip, found, MAX_SKIPPED);

    for (size_t i = 0; i < k && w->n < MAX_FRAMES; i++) {
        w->skipped[w->n] = found[i];
        w->ips[w->n] = found[i];
        w->frames[w->n++] = 0;
        w->nskipped++;
    }
}

static HRESULT on_frame(FunctionID fid, UINT_PTR ip, COR_PRF_FRAME_INFO fi, ULONG32 ctx_size, BYTE ctx[],
                        void *data)
{
    walk *w = data;
    int have_ctx = ctx && ctx_size >= CTX_SIZE_MIN;

    (void)fi;
    if (fid == 0) {
        w->have_prev = 0;            /* native frames between: their frame pointers are not ours to follow */
        if (w->n > 0 && w->frames[w->n - 1] == 0 && !w->skipped[w->n - 1])
            return S_OK;             /* one marker per block of native frames */
    } else if (w->have_prev && have_ctx) {
        skipped_frames(w, w->prev_sp, w->prev_fp, ctx_reg(ctx, CTX_RSP), ip);
    }
    if (w->n >= MAX_FRAMES)
        return S_FALSE;              /* stop the walk: deep enough */
    w->skipped[w->n] = 0;
    w->ips[w->n] = ip;
    w->frames[w->n++] = fid;
    if (fid != 0 && have_ctx) {
        w->have_prev = 1;
        w->prev_sp = ctx_reg(ctx, CTX_RSP);
        w->prev_fp = ctx_reg(ctx, CTX_RBP);
    }
    return S_OK;
}

/* After the resume: the skipped frames' return addresses of one sample
 * become the FunctionIDs of the dynamic methods they are in; an address that
 * is not in one (or no longer is), or any when !trusted (an unload since the
 * snapshot), is dropped.  Returns the new frame count.  A dynamic method
 * collected between the resume and this lookup is missed (its address then
 * maps to nothing, or in the unlikely case that new code was already put
 * there, to that code's method). */
static uint16_t resolve_skipped(profiler *p, struct sampler *s, FunctionID *frames, UINT_PTR *skipped, UINT_PTR *ips,
                                uint16_t n, int trusted)
{
    uint16_t out = 0;
    for (uint16_t k = 0; k < n; k++) {
        if (frames[k] == 0 && skipped[k]) {
            FunctionID f = 0;
            BOOL dynamic = FALSE;
            UINT_PTR ip = skipped[k];
            skipped[k] = 0;
            if (!trusted)
                continue;
            /* (no ReJITID asked: that would take the ReJIT lock) */
            if (FAILED(INFO(p)->GetFunctionFromIP3(p->info, (LPCBYTE)ip, &f, NULL)) || f == 0 ||
                FAILED(INFO(p)->IsFunctionDynamic(p->info, f, &dynamic)) || !dynamic)
                continue;
            ips[out] = ips[k];
            frames[out++] = f;
            if (!idmap_get(&s->dynamic, f, NULL) && idmap_put(&s->dynamic, f, 0) < 0)
                idmap_clear(&s->dynamic);
            continue;
        }
        ips[out] = ips[k];
        frames[out++] = frames[k];
    }
    return out;
}

/* ---- the set of FunctionIDs already named ---- */

static int named_has(struct sampler *s, FunctionID f)
{
    return idmap_get(&s->named, f, NULL);
}

static void named_add(struct sampler *s, FunctionID f)
{
    /* cannot grow: forget what was named (names are written again) rather
     * than let the set fill up */
    if (idmap_put(&s->named, f, 1) < 0)
        idmap_clear(&s->named);
}

/* ---- one tick ---- */

static int ensure_capacity(struct sampler *s, size_t threads)
{
    slot *ns;
    FunctionID *nf;
    UINT_PTR *nk;
    uint32_t *ni;
    size_t cap = s->cap;

    if (threads <= cap)
        return 0;
    while (cap < threads)
        cap *= 2;
    ns = realloc(s->slots, cap * sizeof(*ns));
    if (!ns)
        return -1;
    s->slots = ns;
    nf = realloc(s->frames, cap * MAX_FRAMES * sizeof(*nf));
    if (!nf)
        return -1;
    s->frames = nf;
    nk = realloc(s->skipped, cap * MAX_FRAMES * sizeof(*nk));
    if (!nk)
        return -1;
    s->skipped = nk;
    nk = realloc(s->ips, cap * MAX_FRAMES * sizeof(*nk));
    if (!nk)
        return -1;
    s->ips = nk;
    ni = realloc(s->il, cap * MAX_FRAMES * sizeof(*ni));
    if (!ni)
        return -1;
    s->il = ni;
    s->cap = cap;
    return 0;
}

/* The skipped frames of this tick's samples, inside the unload gate. */
static void resolve_tick(profiler *p, struct sampler *s, size_t n, uint64_t unloads_at_snapshot)
{
    size_t i;
    int trusted = 1;

    for (i = 0; i < n && !s->slots[i].nskipped; i++)
        ;
    if (i == n)
        return;
    if (p->gate_ok) {
        cu_gate_enter(&p->gate);
        trusted = cu_gate_unloads(&p->gate) == unloads_at_snapshot;
    }
    for (; i < n; i++) {
        slot *sl = &s->slots[i];
        if (sl->nskipped)
            sl->nframes = resolve_skipped(p, s, s->frames + i * MAX_FRAMES, s->skipped + i * MAX_FRAMES,
                                          s->ips + i * MAX_FRAMES, sl->nframes, trusted);
    }
    if (p->gate_ok)
        cu_gate_leave(&p->gate);
}

/* Names new FunctionIDs of this tick and writes the samples.  Outside any
 * suspension; inside the unload gate while calling the runtime. */
static void write_tick(profiler *p, struct sampler *s, size_t n, uint64_t t, uint64_t unloads_at_snapshot)
{
    int gate = p->gate_ok;
    int trusted = 1;
    emit e;

    if (gate && cu_gate_unloads(&p->gate) != s->named_unloads) {
        /* IDs may have been reused since we named them: name them again */
        idmap_clear(&s->named);
        s->named_unloads = cu_gate_unloads(&p->gate);
    }
    for (size_t i = 0; i < n && trusted; i++) {
        const FunctionID *fr = s->frames + i * MAX_FRAMES;
        for (uint16_t k = 0; k < s->slots[i].nframes && trusted; k++) {
            char name[1024];
            ModuleID module = 0;
            uint64_t key = 0;
            int dynamic = idmap_get(&s->dynamic, fr[k], &key), changed;
            mdToken token;
            if (!fr[k] || (!dynamic && named_has(s, fr[k])))
                continue;
            /* The gate is held per name, briefly: an unload since the
             * snapshot makes the rest of this tick's new IDs suspect. */
            if (gate) {
                cu_gate_enter(&p->gate);
                if (cu_gate_unloads(&p->gate) != unloads_at_snapshot) {
                    cu_gate_leave(&p->gate);
                    trusted = 0;
                    break;
                }
            }
            /* a dynamic method is named again each tick, written when its
             * name changed (a reused ID) */
            changed = names_function_once(p->names, fr[k], dynamic, &key, name, sizeof(name), &module);
            token = changed && !dynamic ? names_function_token(p->names, fr[k]) : 0;
            if (gate)
                cu_gate_leave(&p->gate);
            if (!changed)
                continue;
            if (dynamic)
                idmap_put(&s->dynamic, fr[k], key);
            /* stamped with the tick's time, like the samples it names, and
             * written before them: in force when the reader meets them */
            if (emit_begin_at(p, &e, TK_FUNC_NAME, t)) {
                rec_function_name_put(&e.r, &(rec_function_name){
                    .function = fr[k], .module = module, .name = name,
                    .token = token });
                emit_end(&e);
            }
            named_add(s, fr[k]);
        }
    }

    /* the frames' IL offsets (their maps read once per code version), each
     * stack inside the gate, none after an unload since the snapshot */
    for (size_t i = 0; i < n; i++) {
        uint32_t *il = s->il + i * MAX_FRAMES;
        int ok = trusted;
        if (ok && gate) {
            cu_gate_enter(&p->gate);
            ok = cu_gate_unloads(&p->gate) == unloads_at_snapshot;
        }
        if (ok) {
            il_maps_stack(p, p->il_maps, s->frames + i * MAX_FRAMES, s->ips + i * MAX_FRAMES, s->slots[i].nframes,
                          0, il);
        } else {
            for (uint16_t k = 0; k < s->slots[i].nframes; k++)
                il[k] = TRACE_IL_NONE;
        }
        if (gate && trusted)
            cu_gate_leave(&p->gate);
    }
    for (size_t i = 0; i < n; i++) {
        const slot *sl = &s->slots[i];
        if (!emit_begin_at(p, &e, TK_SAMPLE, t))   /* all samples of a tick share its time */
            return;
        rec_sample_put(&e.r, &(rec_sample){ .thread = sl->thread, .os_tid = sl->os_tid, .cpu_ns = sl->cpu_delta,
                                            .nframes = sl->nframes, .frames = s->frames + i * MAX_FRAMES,
                                            .nil = sl->nframes, .il = s->il + i * MAX_FRAMES });
        emit_end(&e);
    }
}

static void tick(profiler *p, struct sampler *s)
{
    ICorProfilerThreadEnum *en = NULL;
    ULONG count = 0;
    size_t n = 0;
    uint32_t failed = 0;
    uint64_t t, suspended, cpu0, cpu1, unloads = 0;
    HRESULT hr;
    emit e;

    cpu0 = cp_own_cpu_ns();
    s->ticks++;
    t = cp_monotonic_ns();
    hr = INFO(p)->SuspendRuntime(p->info);
    if (FAILED(hr))
        return;                       /* e.g. a GC suspension in progress: skip this tick */
    if (p->gate_ok)
        unloads = cu_gate_unloads(&p->gate);
    if (SUCCEEDED(INFO(p)->EnumThreads(p->info, &en)) && en) {
        if (FAILED(en->lpVtbl->GetCount(en, &count)))
            count = 0;
        while (n < s->cap) {
            ThreadID id;
            ULONG got = 0;
            DWORD os_tid = 0;
            walk w;

            if (FAILED(en->lpVtbl->Next(en, 1, &id, &got)) || got != 1)
                break;
            if (FAILED(INFO(p)->GetThreadInfo(p->info, id, &os_tid)) || os_tid == 0)
                continue;             /* not running on an OS thread (yet) */
            w.frames = s->frames + n * MAX_FRAMES;
            w.skipped = s->skipped + n * MAX_FRAMES;
            w.ips = s->ips + n * MAX_FRAMES;
            w.n = w.nskipped = 0;
            w.have_prev = 0;
            /* (each frame's registers: for the frames the walk skips, skipped_frames) */
            hr = INFO(p)->DoStackSnapshot(p->info, id, on_frame, SNAPSHOT_FLAGS, &w, NULL, 0);
            if (FAILED(hr) && hr != CORPROF_E_STACKSNAPSHOT_ABORTED) {
                if (w.n == 0 && hr == E_FAIL)
                    continue;         /* a thread with no managed frames (e.g. idle in native code) */
                failed++;
                if (w.n == 0)
                    continue;
            }
            s->slots[n].thread = id;
            s->slots[n].os_tid = os_tid;
            s->slots[n].nframes = w.n;
            s->slots[n].nskipped = w.nskipped;
            s->slots[n].cpu_delta = cpu_delta(s, os_tid);
            n++;
        }
    }
    /* The threads are released when ResumeRuntime starts; the call itself
     * can take longer, the sampler then waiting for a CPU like anyone. */
    suspended = cp_monotonic_ns() - t;
    INFO(p)->ResumeRuntime(p->info);
    if (en)
        en->lpVtbl->Release(en);

    resolve_tick(p, s, n, unloads);
    write_tick(p, s, n, t, unloads);
    cpu1 = cp_own_cpu_ns();
    if (emit_begin(p, &e, TK_SAMPLER_TICK)) {
        rec_sampler_tick_put(&e.r, &(rec_sampler_tick){ .suspend_ns = suspended,
                                                        .sampler_cpu_ns = cpu1 > cpu0 ? cpu1 - cpu0 : 0,
                                                        .threads = (uint32_t)n, .failed = failed,
                                                        .period_ns = 1000000000u / (uint64_t)s->rate });
        emit_end(&e);
    }
    /* more threads than room: grow for the next tick (outside the suspension) */
    if (count > s->cap)
        ensure_capacity(s, count + count / 4);
}

static void *sampler_main(void *arg)
{
    struct sampler *s = arg;
    profiler *p = s->p;
    uint64_t period = 1000000000u / (uint64_t)s->rate, next;
    struct timespec ts;

    pthread_setname_np(pthread_self(), "clrprobe-sample");
    /* The runtime must set up its per-thread state for us before we suspend
     * anything (otherwise loader or heap locks can deadlock). */
    while (!atomic_load(&s->stop) && FAILED(INFO(p)->InitializeCurrentThread(p->info))) {
        struct timespec wait = { 0, 10000000 };
        nanosleep(&wait, NULL);
    }
    next = cp_monotonic_ns() + period;
    while (!atomic_load(&s->stop)) {
        ts.tv_sec = (time_t)(next / 1000000000u);
        ts.tv_nsec = (long)(next % 1000000000u);
        pthread_mutex_lock(&s->wait_lock);
        while (!atomic_load(&s->stop) &&
               pthread_cond_timedwait(&s->wait_cond, &s->wait_lock, &ts) != ETIMEDOUT)
            ;
        pthread_mutex_unlock(&s->wait_lock);
        if (atomic_load(&s->stop) || !atomic_load(&p->recording) || trace_writer_stopped(p->writer))
            break;                        /* (a stopped writer: don't suspend the runtime for nothing) */
        tick(p, s);
        next += period;
        {
            uint64_t now = cp_monotonic_ns();
            if (next < now)               /* fell behind (a long suspension): don't catch up in a burst */
                next = now + period;
        }
    }
    return NULL;
}

static void sampler_free(struct sampler *s)
{
    pthread_mutex_destroy(&s->wait_lock);
    pthread_cond_destroy(&s->wait_cond);
    idmap_free(&s->named);
    idmap_free(&s->dynamic);
    free(s->slots);
    free(s->frames);
    free(s->skipped);
    free(s->ips);
    free(s->il);
    free(s);
}

/* Says in the trace which engine started, with which clock and why. */
static void said_start(profiler *p, unsigned engine, const sig_clock_choice *said)
{
    emit e;

    if (emit_begin(p, &e, TK_SAMPLER_START)) {
        rec_sampler_start_put(&e.r, &(rec_sampler_start){
            .engine = engine, .clock = said->clock, .flags = said->flags, .why = said->why });
        emit_end(&e);
    }
}

int sampler_start(profiler *p)
{
    struct sampler *s;
    pthread_condattr_t ca;
    int rc;

    sig_clock_choice said = { .why = "asked (--sampler suspend)" };

    if (!(p->cfg.collect & CP_COLLECT_CPU))
        return 0;
    if (CP_SAMPLER_BY_SIGNAL(p->cfg.sampler)) {
        int engine = sigsampler_start(p, &said);
        if (engine == 0)
            said_start(p, SAMPLER_ENGINE_SIGNAL, &said);
        if (engine <= 0)
            return engine;              /* (1: it cannot run here, and said why: the suspend engine instead) */
    }
    if (!INFO_HAS(p, ResumeRuntime)) {
        profiler_note(p, "CPU sampling needs ICorProfilerInfo10 (.NET Core 3.0 or newer); not sampling");
        return 0;
    }
    if (p->sampler->running)
        return 0;
    s = calloc(1, sizeof(*s));
    if (!s)
        return -1;
    pthread_mutex_init(&s->wait_lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wait_cond, &ca);
    pthread_condattr_destroy(&ca);
    s->rate = p->cfg.rate > 0 ? p->cfg.rate : CP_RATE_DEFAULT;
    s->cap = THREADS_INITIAL / 2;
    idmap_init(&s->named);
    idmap_init(&s->dynamic);
    if (ensure_capacity(s, THREADS_INITIAL) < 0) {
        sampler_free(s);
        return -1;
    }
    atomic_init(&s->stop, 0);
    p->sampler->running = s;
    s->p = p;
    rc = agent_thread_start(&s->thread, NULL, sampler_main, s);
    if (rc != 0) {
        p->sampler->running = NULL;
        sampler_free(s);
        return -1;
    }
    said.clock = SAMPLER_CLOCK_TIMER;
    said.flags = 0;
    said_start(p, SAMPLER_ENGINE_SUSPEND, &said);
    return 0;
}

void sampler_stop(profiler *p)
{
    struct sampler *s;

    sigsampler_stop(p);
    s = p->sampler->running;
    p->sampler->running = NULL;
    if (s) {
        pthread_mutex_lock(&s->wait_lock);
        atomic_store(&s->stop, 1);
        pthread_cond_signal(&s->wait_cond);
        pthread_mutex_unlock(&s->wait_lock);
        pthread_join(s->thread, NULL);
        sampler_free(s);
    }
}

/* ---- the service ---- */

static void sampler_init(profiler *p)
{
    pthread_mutex_init(&p->sampler->signal_lock, NULL);
}

static void sampler_fini(profiler *p)
{
    pthread_mutex_destroy(&p->sampler->signal_lock);
}

static void sampler_event_mask(const cp_config *cfg, int attach, DWORD *low, DWORD *high)
{
    if (!(cfg->collect & CP_COLLECT_CPU))
        return;
    *low |= COR_PRF_ENABLE_STACK_SNAPSHOT;
    /* the signal engine: managed threads as they start (their ThreadIDs,
     * and their stacks known at once), and ExceptionThrown, where it
     * unblocks SIGPROF after the runtime's SIGSEGV handler (sig_engine.h) */
    if (CP_SAMPLER_BY_SIGNAL(cfg->sampler))
        *low |= COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_EXCEPTIONS;
}

static void sampler_thread_assigned(profiler *p, ThreadID id, DWORD os_tid)
{
    sigsampler_thread_assigned(p, id, os_tid);
}

/* the signal engine counts an ending thread's CPU to its end */
static void sampler_thread_destroyed(profiler *p, ThreadID id)
{
    sigsampler_thread_ending(p, id);
}

/* the signal engine names what it sampled of a module's code while the
 * code is still there */
static void sampler_module_unloading(profiler *p, ModuleID id)
{
    sigsampler_before_unload(p);
}

/* first of all: SIGPROF may be blocked since a NullReferenceException */
static void sampler_exception_thrown(profiler *p, ObjectID obj)
{
    sigsampler_exception_thrown(p);
}

const agent_service sampler_service = {
    .name = "sampler",
    .state_size = sizeof(sampler_state),
    .init = sampler_init, .fini = sampler_fini,
    .event_mask = sampler_event_mask,
    .when = AFTER_CATCHUP, .start = sampler_start, .stop = sampler_stop,
    .failed_note = "CPU sampling could not start (out of memory or threads)",
    .stop_before_detach = 1, .cpu_window = 1,
    .thread_assigned = sampler_thread_assigned,
    .thread_destroyed = sampler_thread_destroyed,
    .module_unloading = sampler_module_unloading,
    .exception_thrown = sampler_exception_thrown,
};
