/* sigsampler.c - the signal sampling engine's service and its collector
 * thread (sigsampler.h).
 *
 * The collector, thread "clrprobe-signal", with every signal blocked:
 *   - at start: the code map (code_map.h: /proc/self/maps, the ELF objects'
 *     unwind tables), the handler installed, the managed threads
 *     (EnumThreads) and every other thread (/proc/self/task) registered,
 *     each with a timer on its CPU clock (sig_threads.h);
 *   - every drain_ns (5 periods, 20 to 50 ms): the rings drained, the samples' frames named
 *     (sig_resolve.h, inside the unload gate) and written as sample records;
 *     with --collect wall, at the rate, SIGPROF sent to every thread;
 *   - every TICK_NS: ended threads retired and new ones registered, stacks
 *     found for threads registered from elsewhere, a sampler_tick record
 *     (signals, the periods they stand for, the threads' CPU by the kernel,
 *     the collector's and the handlers' CPU), the handler checked (someone
 *     may replace it), a new code map when walks met unknown code (a library
 *     loaded since, a new JIT code heap), old maps freed once no handler can
 *     be reading them;
 *   - at stop: every timer deleted, the handler removed (sig_engine.h), the
 *     rings drained a last time. */
#include "agent/sampling/sigsampler.h"
#include "agent/sampling/sampler.h"
#include "agent/core/service.h"
#include "agent/sampling/sig_clock.h"
#include "agent/sampling/sig_engine.h"
#include "agent/sampling/sig_resolve.h"
#include "agent/sampling/sig_threads.h"
#include "agent/sampling/kstack.h"
#include "unwind/stack_walk.h"

#include <errno.h>
#include <linux/bpf.h>
#include <signal.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 4096                   /* threads sampled at once, at most */
#define DRAIN_NS 20000000ull         /* rings drained every 5 periods, but at least every 20 ms */
#define DRAIN_MAX_NS 50000000ull     /* and at most every 50 ms: each wake-up costs tens of microseconds */
#define DRAIN_PERIODS 5              /* (a busy thread's ring then holds 5 samples a drain, as at 250 Hz) */
#define TICK_NS 250000000ull         /* threads, stacks, tick records every 250 ms */
#define STACKS_REFRESH_NS 20000000ull  /* the maps read again for new threads' stacks at most this often */
#define MAP_REFRESH_NS 250000000ull  /* a new code map at most this often when walks met unknown code */
#define UNKNOWN_GAP_MAX 8000000000ull  /* (a walk that read a wrong return address meets "code" no map has:
                                          reading /proc/self/maps again for it every 20 ms was a sixth of the
                                          collector's time, and emptied its caches each time) */
#define MAP_IDLE_REFRESH_NS 10000000000ull  /* and every 10 s anyway */
#define WALL_PERIOD_MIN_NS 10000000ull /* wall-clock ticks at most 100 a second (a signal per thread each) */
#define NOT_CODE_KEPT 8              /* the last addresses found not to be code, not asked again */
#define LEARN_MAX 4                  /* mappings asked per sample at most */
#define UNBLOCK_WAIT_MS 200          /* before a detach, threads left with SIGPROF blocked are waited for this long */

struct sigsampler {
    profiler *p;
    sig_engine eng;
    sig_threads threads;
    int threads_ok;
    sig_resolver res;
    int res_ok;
    cm_objects objects;
    code_map *retired;               /* replaced maps, freed once no handler runs */
    uint64_t map_serial, map_at;
    uint64_t unknown_pcs;            /* walks that met an address outside the map since it was made */
    uint64_t unknown_gap;            /* a new map for unknown code at most this often: STACKS_REFRESH_NS,
                                        doubled (to UNKNOWN_GAP_MAX) each time a new map had nothing new */
    /* the kernel's one-mapping query (pm_query_self): new JIT code and new
     * threads' stacks found without reading the whole maps file; off when
     * the kernel (or a filter) refuses it */
    int query;
    char query_path[4096];
    uintptr_t not_code[NOT_CODE_KEPT];   /* addresses a walk met that the query found no code at */
    unsigned not_code_at;
    uint64_t period_ns, wall_period_ns;
    uint64_t drain_ns;               /* the rings drained this often */
    int wall;                        /* --collect wall: signal every thread at the rate */
    int installed;
    unsigned blocking_before;        /* threads blocking SIGPROF before the engine was installed */
    pthread_t thread;
    atomic_int stop;
    pthread_mutex_t wait_lock;
    pthread_cond_t wait_cond;
    /* a drain asked for before an unload (under wait_lock): asked counts the requests,
     * done the requests served; done_cond is signalled when it moves */
    uint64_t drains_asked, drains_done;
    pthread_cond_t done_cond;
    /* this tick's figures */
    uint64_t tick_at, own_cpu_at, signals_at, periods_at, dropped_at, handler_at;
    uint64_t frames[SIG_MAX_FRAMES];
    uint32_t il[SIG_MAX_FRAMES];     /* their IL offsets */
    int noted_timer, noted_full, noted_perf;   /* their notes were written */
    /* the per-CPU clock: its page (mapped from page_fd), and the rate's
     * control: the CPU samples delivered against the periods the sampled
     * threads' CPU held, both decayed tick by tick */
    int page_fd;
    uint64_t cpu_signals_at;
    double delivered, due;
    uint32_t rate_ticks;             /* ticks the control has seen (the first is left out) */
    /* the stack engine: the kernel's ring of stacks (cpu_clock_page.h),
     * mapped from stack_fd: the consumer's position (ours), the producer's
     * and the data, twice over (the kernel's, read-only) */
    int stack_fd;
    void *ring_cons_map, *ring_data_map;
    size_t ring_data_len;
    uint64_t *ring_cons;
    const uint64_t *ring_prod;
    const unsigned char *ring_data;
    uint64_t ring_bytes;
    uint64_t kstack_unowned;         /* stacks of threads not sampled (the agent's own, which block every
                                        signal; threads gone before they could be registered) */
    uint64_t lost_at;                /* the page's lost (the ring full) at the last tick */
    uintptr_t kframes[CP_STACK_FRAMES + 2];
};

#define RATE_DECAY 0.9               /* per tick: the delivery fraction follows the last few seconds */
#define RATE_MIN_DUE 20.0            /* periods due before the fraction is believed */

/* ---- the code map ---- */

/* Whether two maps have the same ranges (a refresh found nothing new). */
static int same_ranges(const code_map *a, const code_map *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->r[i].start != b->r[i].start || a->r[i].end != b->r[i].end)
            return 0;
    return 1;
}

/* m in place of the map the handlers use; the old one kept until no
 * handler can still be reading it. */
static void install_map(struct sigsampler *s, code_map *m)
{
    code_map *old = atomic_exchange(&s->eng.map, m);
    if (old) {
        old->retired = s->retired;
        s->retired = old;
    }
}

static const pm_entry *mapping_in_maps(void *ctx, uintptr_t addr, pm_entry *buf)
{
    return pm_find(ctx, addr);
}

static const pm_entry *mapping_asked(void *ctx, uintptr_t addr, pm_entry *buf)
{
    struct sigsampler *s = ctx;
    int rc = pm_query_self(addr, buf, s->query_path, sizeof(s->query_path));
    if (rc < 0)
        s->query = 0;                /* (the maps file read from then on) */
    return rc == 1 ? buf : NULL;
}

static int refresh_map(struct sigsampler *s, uint64_t now)
{
    pm_maps maps;
    code_map *m;

    if (pm_read_self(&maps) != 0)
        return -1;
    m = cm_build(&s->objects, &maps, ++s->map_serial);
    if (m) {
        const code_map *before = atomic_load(&s->eng.map);
        cm_keep(m, before);
        /* nothing new: the next refresh for unknown code waits twice as long */
        if (before && m->kept_since == before->kept_since && same_ranges(m, before))
            s->unknown_gap = s->unknown_gap * 2 < UNKNOWN_GAP_MAX ? s->unknown_gap * 2 : UNKNOWN_GAP_MAX;
        else
            s->unknown_gap = STACKS_REFRESH_NS;
    }
    if (m && sig_threads_need_stacks(&s->threads))
        sig_threads_find_stacks(&s->threads, mapping_in_maps, &maps);
    pm_free(&maps);
    if (!m)
        return -1;
    install_map(s, m);
    s->map_at = now;
    s->unknown_pcs = 0;
    return 0;
}

/* The code a walk met outside the map, asked of the kernel one mapping at
 * a time: new JIT code (an executable anonymous mapping) is added to the
 * map; an address in no code (a wrong return address) is remembered and
 * left.  0, or -1 when only a new map from the whole file will do (the
 * query refused, new code of a file). */
static int learn_code(struct sigsampler *s, const uintptr_t *frames, size_t n)
{
    int asked = 0;

    for (size_t k = 0; k < n && asked < LEARN_MAX; k++) {
        code_map *m = atomic_load(&s->eng.map), *added;
        uintptr_t pc = frames[k];
        int known = 0;
        const pm_entry *e;
        pm_entry buf;

        if (pc < 4096 || !m || cm_find(m, pc))
            continue;                    /* (the walk's marks, code known) */
        for (unsigned i = 0; i < NOT_CODE_KEPT; i++)
            known |= s->not_code[i] == pc;
        if (known)
            continue;
        asked++;
        e = mapping_asked(s, pc, &buf);
        if (!s->query)
            return -1;                   /* (refused: the file from now on) */
        if (!e || !(e->perms & PM_EXEC)) {
            s->not_code[s->not_code_at++ % NOT_CODE_KEPT] = pc;
            continue;
        }
        if (!(added = cm_add_anon(m, e, s->map_serial + 1)))
            return -1;
        s->map_serial++;
        install_map(s, added);
    }
    return 0;
}

/* Replaced maps no handler can still be reading: any handler that loaded
 * one started before the swap, and none runs right now. */
static void free_retired_maps(struct sigsampler *s, int all)
{
    if (!s->retired || (!all && !sig_engine_quiet()))
        return;
    while (s->retired) {
        code_map *next = s->retired->retired;
        cm_free(s->retired);
        s->retired = next;
    }
}

/* ---- draining ---- */

static unsigned trace_flags(unsigned entry_flags)
{
    unsigned walk = entry_flags >> 8, f = 0;
    if (entry_flags & SIG_SAMPLE_CPU) f |= SAMPLE_FLAG_CPU_TIMER;
    if (entry_flags & SIG_SAMPLE_WALL) f |= SAMPLE_FLAG_WALL;
    if (entry_flags & SIG_SAMPLE_WAITING) f |= SAMPLE_FLAG_WAITING;
    if ((entry_flags & SIG_SAMPLE_NO_STACK) || !(walk & SW_END_OF_STACK))
        f |= SAMPLE_FLAG_TRUNCATED;
    return f;
}

/* A native thread's thread_os record (its kernel name), once per slot. */
static void name_native_thread(profiler *p, sig_slot *sl)
{
    char name[32];
    emit e;
    thread_kernel_name(sl->tid, name, sizeof(name));
    if (emit_begin(p, &e, TK_THREAD_OS)) {
        rec_thread_os_put(&e.r, &(rec_thread_os){ .thread = TRACE_NATIVE_THREAD_BIT | sl->tid, .os_tid = sl->tid,
                                                   .os_name = name });
        emit_end(&e);
    }
    sl->named = 1;
}

/* Drains one ring; the function names it writes are stamped names_t (the
 * oldest sample of this pass), so that they are in force for every sample
 * of the pass, whichever ring it came from. */

/* One sample of sl's thread (en; its frames at frames) as a sample
 * record, its frames named; *m the code map, renewed when the frames met
 * code it does not know. */
static void emit_sample(struct sigsampler *s, sig_slot *sl, const sig_entry *en, const uintptr_t *frames,
                        uint64_t names_t, code_map **m)
{
    profiler *p = s->p;
    uint64_t managed = atomic_load(&sl->managed), thread;
    size_t n = en->nframes;
    emit e;

    if (((en->flags >> 8) & SW_UNKNOWN_PC) || (en->flags & SIG_SAMPLE_NO_STACK && n && *m && !cm_find(*m, frames[0]))) {
        /* code the map does not know: a library loaded since, a new
         * JIT code heap; a newer map names it (and helps the next walks) */
        if (!s->query || learn_code(s, frames, n) < 0) {
            uint64_t now = cp_monotonic_ns();
            s->unknown_pcs++;
            if (now - s->map_at >= s->unknown_gap)
                refresh_map(s, now);
        }
        *m = atomic_load(&s->eng.map);
    }
    if (!managed && !sl->named)
        name_native_thread(p, sl);
    thread = managed ? managed : TRACE_NATIVE_THREAD_BIT | sl->tid;
    if (*m) {
        if (p->gate_ok)
            cu_gate_enter(&p->gate);
        /* (a dynamic method collected since the sample: its code's place
         * and ID may be another's now) */
        int dynamic_gone = (uint32_t)atomic_load_explicit(&p->dynamic_unloads, memory_order_acquire) !=
                           en->dynamic_unloads;
        n = sig_resolve(&s->res, *m, frames, n, s->frames, s->il, dynamic_gone, names_t);
        if (p->gate_ok)
            cu_gate_leave(&p->gate);
    } else {
        n = 0;
    }
    if (emit_begin_at(p, &e, TK_SAMPLE, en->t)) {
        rec_sample_put(&e.r, &(rec_sample){
            .thread = thread, .os_tid = sl->tid,
            .cpu_ns = (en->flags & SIG_SAMPLE_CPU) ? en->cpu_ns : 0,
            .nframes = (uint16_t)n, .frames = s->frames, .flags = trace_flags(en->flags),
            .nil = (uint16_t)n, .il = s->il });
        emit_end(&e);
    }
}

/* Drains one ring; the function names it writes are stamped names_t (the
 * oldest sample of this pass), so that they are in force for every sample
 * of the pass, whichever ring it came from. */
static void drain_slot(struct sigsampler *s, sig_slot *sl, uint64_t names_t)
{
    code_map *m = atomic_load(&s->eng.map);
    const sig_entry *en;

    while ((en = sig_ring_peek(&sl->ring)) != NULL) {
        emit_sample(s, sl, en, (const uintptr_t *)(en + 1), names_t, &m);
        sig_ring_pop(&sl->ring, en);
    }
}

/* ---- the stack engine's ring ---- */

/* The next record in the kernel's ring, or NULL (empty, or the next one
 * still being written); *len its length with the ring's flags. */
static const cp_stack_record *kstack_peek(struct sigsampler *s, uint32_t *len)
{
    uint64_t cons = *s->ring_cons, prod = __atomic_load_n(s->ring_prod, __ATOMIC_ACQUIRE);
    const unsigned char *h;

    if (cons >= prod)
        return NULL;
    h = s->ring_data + (cons & (s->ring_bytes - 1));
    *len = __atomic_load_n((const uint32_t *)h, __ATOMIC_ACQUIRE);
    if (*len & BPF_RINGBUF_BUSY_BIT)
        return NULL;
    return (const cp_stack_record *)(h + BPF_RINGBUF_HDR_SZ);
}

static void kstack_pop(struct sigsampler *s, uint32_t len)
{
    uint64_t size = ((uint64_t)(len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT)) + BPF_RINGBUF_HDR_SZ + 7) & ~7ull;
    __atomic_store_n(s->ring_cons, *s->ring_cons + size, __ATOMIC_RELEASE);
}

/* The stacks the kernel took since the last drain, as sample records of
 * their threads (a thread met for the first time is registered); each
 * holds one period of its thread's CPU. */
static void drain_stacks(struct sigsampler *s, uint64_t names_t)
{
    profiler *p = s->p;
    code_map *m = atomic_load(&s->eng.map);
    uint64_t period = s->eng.page->period_ns ? s->eng.page->period_ns : s->period_ns, now = cp_monotonic_ns();
    uint32_t dyn = (uint32_t)atomic_load_explicit(&p->dynamic_unloads, memory_order_acquire);
    const cp_stack_record *r;
    uint32_t len;

    while ((r = kstack_peek(s, &len)) != NULL) {
        uint32_t tid = (uint32_t)r->ids;
        size_t n = r->bytes > 0 ? (size_t)r->bytes / sizeof(uint64_t) : 0;
        unsigned walk;
        sig_slot *sl;

        if ((len & BPF_RINGBUF_DISCARD_BIT) || (len & ~BPF_RINGBUF_BUSY_BIT) != sizeof(cp_stack_record) ||
            (uint32_t)(r->ids >> 32) != (uint32_t)s->eng.pid) {
            kstack_pop(s, len);
            continue;
        }
        if (n > CP_STACK_FRAMES)
            n = CP_STACK_FRAMES;
        n = kstack_frames(m, r, n, s->kframes, sizeof(s->kframes) / sizeof(s->kframes[0]), &walk);
        sig_entry en = { .nframes = (uint16_t)n, .t = r->t, .cpu_ns = period, .dynamic_unloads = dyn,
                         .flags = (uint16_t)(SIG_SAMPLE_CPU | (n ? 0 : SIG_SAMPLE_NO_STACK) | walk << 8) };
        kstack_pop(s, len);
        if (!(sl = sig_threads_met(&s->threads, tid, now))) {
            s->kstack_unowned++;
            continue;
        }
        atomic_fetch_add(&sl->signals, 1);
        atomic_fetch_add(&sl->cpu_signals, 1);
        atomic_fetch_add(&sl->sampled_ns, period);
        emit_sample(s, sl, &en, s->kframes, names_t, &m);
    }
}

static void drain_all(struct sigsampler *s)
{
    uint64_t oldest = UINT64_MAX;
    const cp_stack_record *r;
    uint32_t len;

    for (uint32_t i = 0; i < s->threads.used; i++) {
        sig_slot *sl = &s->eng.slots[i];
        const sig_entry *en;
        if (atomic_load(&sl->state) != SLOT_FREE && (en = sig_ring_peek(&sl->ring)) != NULL && en->t < oldest)
            oldest = en->t;
    }
    if (s->ring_data && (r = kstack_peek(s, &len)) != NULL && r->t < oldest)
        oldest = r->t;
    if (oldest == UINT64_MAX)
        return;
    if (s->ring_data)
        drain_stacks(s, oldest);
    for (uint32_t i = 0; i < s->threads.used; i++) {
        sig_slot *sl = &s->eng.slots[i];
        if (atomic_load(&sl->state) != SLOT_FREE)
            drain_slot(s, sl, oldest);
    }
}

/* ---- wall-clock ticks ---- */

static void signal_all(struct sigsampler *s)
{
    uid_t uid = getuid();
    for (uint32_t i = 0; i < s->threads.used; i++) {
        sig_slot *sl = &s->eng.slots[i];
        siginfo_t si;
        if (atomic_load(&sl->state) != SLOT_ACTIVE)
            continue;
        memset(&si, 0, sizeof(si));
        si.si_signo = SIG_SAMPLER_SIGNAL;
        si.si_code = SI_QUEUE;
        si.si_pid = s->eng.pid;
        si.si_uid = uid;
        si.si_value.sival_ptr = (void *)(uintptr_t)sig_slot_cookie(&s->eng, sl);
        syscall(SYS_rt_tgsigqueueinfo, s->eng.pid, (pid_t)sl->tid, SIG_SAMPLER_SIGNAL, &si);
    }
}

/* ---- ticks ---- */

/* The per-CPU clock's period: the kernel cannot deliver a tick to a thread
 * in the moments it goes to sleep with interrupts held off (tens of
 * microseconds a wake-up in a VM), so a thread that wakes often gets fewer
 * samples than its CPU is due; and in a VM a thread's CPU clock leaves out
 * the time the host took the virtual CPU away, which the ticks do not (a
 * few per cent more samples than CPU, on a busy host).  The fraction
 * delivered over the last few seconds sets the period the agent asks the
 * command for: the asked one times that fraction, within [P/2, 3P/2] (the
 * command bounds it too).  The first tick is left out: it holds the
 * sampler's own start (threads counted from before the gate opened, the
 * runtime starting them), whose lower fraction the control then carried
 * through a run of a few seconds (50 threads' work at 100 Hz: 104-107
 * samples per CPU-second with it, 100-103 without). */
static void control_rate(struct sigsampler *s, uint64_t cpu_signals, uint64_t thread_cpu)
{
    volatile cp_clock_page *pg = s->eng.page;
    uint64_t period = pg->period_ns, got = cpu_signals - s->cpu_signals_at;
    double f;

    s->cpu_signals_at = cpu_signals;
    if (s->rate_ticks++ == 0)
        return;
    if (period < s->period_ns / 2 || period > s->period_ns / 2 * 3)
        period = s->period_ns;                   /* (the command's word: in bounds, or the asked one) */
    s->delivered = s->delivered * RATE_DECAY + (double)got;
    s->due = s->due * RATE_DECAY + (double)thread_cpu / (double)period;
    if (s->due < RATE_MIN_DUE)
        return;
    f = s->delivered / s->due;
    f = f < 0.5 ? 0.5 : f > 1.5 ? 1.5 : f;
    pg->want_period_ns = (uint64_t)((double)s->period_ns * f);
}

static void tick(struct sigsampler *s, uint64_t now)
{
    profiler *p = s->p;
    uint64_t signals = 0, periods = 0, dropped = 0, handler = 0, thread_cpu = 0, cpu = cp_own_cpu_ns(), cpu_signals = 0;
    uint64_t lost = s->ring_data && s->eng.page ? s->eng.page->lost : 0;
    uint32_t threads = 0;
    emit e;

    for (uint32_t i = 0; i < s->threads.used; i++) {
        sig_slot *sl = &s->eng.slots[i];
        uint64_t sampled = atomic_load(&sl->sampled_ns);
        signals += atomic_load(&sl->signals);
        cpu_signals += atomic_load(&sl->cpu_signals);
        periods += sampled;
        dropped += atomic_load(&sl->dropped);
        handler += atomic_load(&sl->handler_ns);
        int active = atomic_load(&sl->state) == SLOT_ACTIVE;
        threads += active;
        uint64_t now_cpu = active ? cp_thread_cpu_of(sl->tid) : 0;
        if (!now_cpu)
            now_cpu = atomic_load(&sl->cpu_final);      /* (ended: its CPU as it ended, once) */
        thread_cpu += sig_slot_cpu_used(sl, sampled, now_cpu, sig_slot_task_clock(sl));
    }
    if (emit_begin_at(p, &e, TK_SAMPLER_TICK, now)) {
        rec_sampler_tick_put(&e.r, &(rec_sampler_tick){
            .suspend_ns = 0,
            .sampler_cpu_ns = (cpu - s->own_cpu_at) + (handler - s->handler_at),
            .threads = threads, .failed = (uint32_t)(dropped - s->dropped_at + lost - s->lost_at),
            .period_ns = s->period_ns, .engine = SAMPLER_ENGINE_SIGNAL,
            .interval_ns = now - s->tick_at, .signals = signals - s->signals_at,
            .periods = s->period_ns ? (periods - s->periods_at + s->period_ns / 2) / s->period_ns : 0, .thread_cpu_ns = thread_cpu, .handler_ns = handler - s->handler_at,
            .wall_period_ns = s->wall ? s->wall_period_ns : 0,
            .clock = s->ring_data ? SAMPLER_CLOCK_KSTACK : s->eng.percpu ? SAMPLER_CLOCK_PERCPU
                     : s->threads.perf_threads ? SAMPLER_CLOCK_PERF : SAMPLER_CLOCK_TIMER });
        emit_end(&e);
    }
    if (s->eng.page)
        control_rate(s, cpu_signals, thread_cpu);
    s->tick_at = now;
    s->own_cpu_at = cpu;
    s->signals_at = signals;
    s->periods_at = periods;
    s->dropped_at = dropped;
    s->lost_at = lost;
    s->handler_at = handler;
}

/* What could not be sampled, said once in the trace. */
static void notes(struct sigsampler *s)
{
    sig_threads *t = &s->threads;
    if (t->timer_failures && !s->noted_timer) {
        s->noted_timer = 1;
        profiler_note(s->p, "signal sampler: a thread's CPU timer could not be created (%s); that thread "
                      "is not sampled", strerror(t->timer_errno));
    }
    if (t->perf_failures && !s->noted_perf) {
        s->noted_perf = 1;
        if (t->perf_errno)
            profiler_note(s->p, "signal sampler: a perf event on a thread's task clock was refused (%s); %s "
                          "sampled by %s CPU timer instead (exact only at the scheduler tick)",
                          strerror(t->perf_errno), t->perf_threads ? "that thread is" : "every thread is",
                          t->perf_threads ? "its" : "a");
        else
            profiler_note(s->p, "signal sampler: the process is near its descriptor limit (%llu); a thread is "
                          "sampled by its CPU timer instead of a perf event", (unsigned long long)t->fd_limit);
    }
    if (t->table_full && !s->noted_full) {
        s->noted_full = 1;
        profiler_note(s->p, "signal sampler: more than %d threads; the others are not sampled", SLOTS);
    }
}

/* The managed threads the runtime knows: their ThreadIDs. */
static void register_managed_threads(struct sigsampler *s)
{
    profiler *p = s->p;
    ICorProfilerThreadEnum *en = NULL;

    if (FAILED(INFO(p)->EnumThreads(p->info, &en)) || !en)
        return;
    for (;;) {
        ThreadID id;
        ULONG got = 0;
        DWORD tid = 0;
        if (FAILED(en->lpVtbl->Next(en, 1, &id, &got)) || got != 1)
            break;
        if (SUCCEEDED(INFO(p)->GetThreadInfo(p->info, id, &tid)) && tid)
            sig_threads_add(&s->threads, (uint32_t)tid, id, 0);
    }
    en->lpVtbl->Release(en);
}

/* Waits until deadline, or a stop, or a drain asked for (then *drain is
 * the request it serves, else 0).  0 when stopping. */
static int wait_until(struct sigsampler *s, uint64_t deadline, uint64_t *drain)
{
    struct timespec ts = { (time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u) };
    *drain = 0;
    pthread_mutex_lock(&s->wait_lock);
    while (!atomic_load(&s->stop) && s->drains_asked == s->drains_done &&
           pthread_cond_timedwait(&s->wait_cond, &s->wait_lock, &ts) != ETIMEDOUT)
        ;
    if (s->drains_asked != s->drains_done)
        *drain = s->drains_asked;
    pthread_mutex_unlock(&s->wait_lock);
    return !atomic_load(&s->stop);
}

/* The drain asked for is done: tell the callbacks waiting for it. */
static void drain_served(struct sigsampler *s, uint64_t drain)
{
    pthread_mutex_lock(&s->wait_lock);
    if (drain > s->drains_done)
        s->drains_done = drain;
    pthread_cond_broadcast(&s->done_cond);
    pthread_mutex_unlock(&s->wait_lock);
}

/* A detach follows: the runtime stops calling us before it unloads the
 * library.  A thread that entered the runtime's SIGSEGV handler while
 * SIGPROF was in its mask leaves it with SIGPROF blocked, until its
 * ExceptionThrown unblocks it (sig_engine_thread_unblock): wait for those
 * threads, a few microseconds each, so that none keeps SIGPROF blocked
 * after we are gone (bounded: a thread stopped in a debugger). */
static void wait_unblocked(const struct sigsampler *s)
{
    for (int i = 0; i < UNBLOCK_WAIT_MS && sig_threads_count_blocking() > s->blocking_before; i++) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
}

static void *collector_main(void *arg)
{
    struct sigsampler *s = arg;
    profiler *p = s->p;
    uint64_t now = cp_monotonic_ns(), next_drain, next_tick, next_wall;

    pthread_setname_np(pthread_self(), "clrprobe-signal");
    refresh_map(s, now);
    s->tick_at = now;
    s->own_cpu_at = cp_own_cpu_ns();
    register_managed_threads(s);
    sig_threads_scan(&s->threads, now);
    if (s->eng.page)
        s->eng.page->gate = 1;          /* the handler is in place: the per-CPU clock may signal */
    next_drain = now + s->drain_ns;
    next_tick = now + TICK_NS;
    next_wall = now + s->wall_period_ns;
    for (;;) {
        uint64_t deadline = next_drain, drain;
        if (s->wall && next_wall < deadline)
            deadline = next_wall;
        if (!wait_until(s, deadline, &drain))
            break;
        if (!atomic_load(&p->recording) || trace_writer_stopped(p->writer))
            break;
        if (drain) {
            drain_all(s);                      /* (before an unload: see sigsampler_before_unload) */
            drain_served(s, drain);
        }
        now = cp_monotonic_ns();
        if (s->wall && now >= next_wall) {
            signal_all(s);
            next_wall += s->period_ns;
            if (next_wall < now)
                next_wall = now + s->wall_period_ns;       /* fell behind: no burst */
        }
        if (now < next_drain)
            continue;
        next_drain = now + s->drain_ns;
        drain_all(s);
        if (sig_threads_need_stacks(&s->threads)) {
            /* (threads registered from elsewhere: their stack pointers) */
            if (s->query)
                sig_threads_find_stacks(&s->threads, mapping_asked, s);
            else if (now - s->map_at >= STACKS_REFRESH_NS)
                refresh_map(s, now);
        }
        if (now >= next_tick) {
            next_tick = now + TICK_NS;
            sig_threads_scan(&s->threads, now);
            if ((s->unknown_pcs && now - s->map_at >= (s->unknown_gap > MAP_REFRESH_NS ? s->unknown_gap : MAP_REFRESH_NS)) ||
                now - s->map_at >= MAP_IDLE_REFRESH_NS)
                refresh_map(s, now);
            free_retired_maps(s, 0);
            sig_threads_recycle(&s->threads, now);
            tick(s, now);
            notes(s);
            if (!sig_engine_installed()) {
                profiler_note(p, "signal sampler: another component of the process replaced the SIGPROF handler; "
                              "CPU sampling stopped");
                break;
            }
        }
    }
    drain_served(s, UINT64_MAX);             /* (nobody waits for a collector that stopped) */
    /* stop: no timer, no handler, then what is left in the rings */
    sig_threads_stop_all(&s->threads);
    sig_engine_uninstall(&s->eng, p->attached,      /* (a launched agent is never unloaded) */
                         atomic_load(&p->session.shutting_down));
    s->installed = 0;
    if (p->attached)
        wait_unblocked(s);
    drain_all(s);
    tick(s, cp_monotonic_ns());
    return NULL;
}

/* ---- the service ---- */

/* The per-CPU clock's page (common/cpu_clock_page.h) mapped from the
 * descriptor the command gave, if it is one of the version known; NULL. */
static volatile cp_clock_page *map_page(int fd)
{
    void *m = mmap(NULL, sizeof(cp_clock_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    volatile cp_clock_page *pg = m;

    if (m == MAP_FAILED)
        return NULL;
    if (pg->version != CP_CLOCK_PAGE_VERSION) {
        munmap(m, sizeof(cp_clock_page));
        return NULL;
    }
    pg->gate = 0;
    return pg;
}

/* The stack engine's ring (common/cpu_clock_page.h) mapped from the
 * descriptor the command gave, of the size the page says.  0, or -1. */
static int map_ring(struct sigsampler *s)
{
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t bytes = s->eng.page->ring_bytes;
    void *cons, *data;

    if (pg <= 0 || bytes < (uint64_t)pg || bytes > (1ull << 30) || (bytes & (bytes - 1)))
        return -1;
    cons = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, s->stack_fd, 0);
    if (cons == MAP_FAILED)
        return -1;
    data = mmap(NULL, (size_t)pg + 2 * (size_t)bytes, PROT_READ, MAP_SHARED, s->stack_fd, pg);
    if (data == MAP_FAILED) {
        munmap(cons, (size_t)pg);
        return -1;
    }
    s->ring_cons_map = cons;
    s->ring_data_map = data;
    s->ring_data_len = (size_t)pg + 2 * (size_t)bytes;
    s->ring_cons = cons;
    s->ring_prod = data;
    s->ring_data = (const unsigned char *)data + pg;
    s->ring_bytes = bytes;
    return 0;
}

static void unmap_ring(struct sigsampler *s)
{
    if (s->ring_cons_map)
        munmap(s->ring_cons_map, (size_t)sysconf(_SC_PAGESIZE));
    if (s->ring_data_map)
        munmap(s->ring_data_map, s->ring_data_len);
    s->ring_cons_map = s->ring_data_map = NULL;
    s->ring_cons = NULL;
    s->ring_prod = NULL;
    s->ring_data = NULL;
}

static void sigsampler_free(struct sigsampler *s)
{
    if (s->installed) {
        sig_threads_stop_all(&s->threads);
        sig_engine_uninstall(&s->eng, s->p->attached, 0);
    }
    if (s->res_ok)
        sig_resolver_free(&s->res);
    if (s->threads_ok) {
        for (uint32_t i = 0; i < s->threads.used; i++)
            sig_ring_free(&s->eng.slots[i].ring);
        sig_threads_free(&s->threads);
    }
    if (s->eng.page) {
        s->eng.page->gate = 0;
        munmap((void *)s->eng.page, sizeof(cp_clock_page));
    }
    if (s->page_fd >= 0)
        close(s->page_fd);
    unmap_ring(s);
    if (s->stack_fd >= 0)
        close(s->stack_fd);
    free(s->eng.tids);
    cm_free(atomic_load(&s->eng.map));
    free_retired_maps(s, 1);
    cm_objects_free(&s->objects);
    pthread_mutex_destroy(&s->wait_lock);
    pthread_cond_destroy(&s->wait_cond);
    pthread_cond_destroy(&s->done_cond);
    free(s->eng.slots);
    free(s);
}

int sigsampler_start(profiler *p, sig_clock_choice *clock)
{
    struct sigsampler *s;
    pthread_condattr_t ca;
    sig_perf_rights rights;
    sig_percpu_offer offer;
    char failure[256];
    int rc;

    if (!INFO_HAS(p, GetFunctionFromIP3)) {
        snprintf(clock->why, sizeof(clock->why), "the signal sampler needs ICorProfilerInfo8 (.NET Core 2.1 or newer)");
        profiler_note(p, "%s; sampling with the suspend engine", clock->why);
        return 1;
    }
    if (!(s = calloc(1, sizeof(*s)))) {
        int fd = control_take_clock(p);
        if (fd >= 0)
            close(fd);
        if ((fd = control_take_stacks(p)) >= 0)
            close(fd);
        return -1;
    }
    s->p = p;
    s->page_fd = control_take_clock(p);
    s->stack_fd = control_take_stacks(p);
    offer.why_not = p->cfg.clock_why;
    if (s->page_fd >= 0 && CP_SAMPLER_WANTS_PERCPU(p->cfg.sampler) && !(s->eng.page = map_page(s->page_fd)))
        offer.why_not = "its page could not be mapped";
    /* (the stacker sends no signal: its page is of no use without its ring) */
    if (s->eng.page && s->eng.page->ring_bytes && (s->stack_fd < 0 || map_ring(s) < 0)) {
        munmap((void *)s->eng.page, sizeof(cp_clock_page));
        s->eng.page = NULL;
        offer.why_not = "its ring of stacks could not be mapped";
    }
    offer.given = s->eng.page != NULL;
    offer.stacks = s->ring_data != NULL;
    if (!offer.given && p->cfg.sampler != CP_SAMPLER_SIGNAL)
        sig_perf_rights_probe(&rights);
    sig_clock_choose(p->cfg.sampler, &offer, !offer.given && p->cfg.sampler != CP_SAMPLER_SIGNAL ? &rights : NULL,
                     clock);
    s->period_ns = 1000000000u / (uint64_t)(p->cfg.rate > 0 ? p->cfg.rate : CP_RATE_DEFAULT);
    s->unknown_gap = STACKS_REFRESH_NS;
    s->query = 1;
    s->drain_ns = DRAIN_PERIODS * s->period_ns;
    s->drain_ns = s->drain_ns < DRAIN_NS ? DRAIN_NS : s->drain_ns > DRAIN_MAX_NS ? DRAIN_MAX_NS : s->drain_ns;
    s->wall = (p->cfg.collect & CP_COLLECT_WALL) != 0;
    s->wall_period_ns = s->period_ns > WALL_PERIOD_MIN_NS ? s->period_ns : WALL_PERIOD_MIN_NS;
    pthread_mutex_init(&s->wait_lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wait_cond, &ca);
    pthread_cond_init(&s->done_cond, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&s->stop, 0);
    s->eng.pid = getpid();
    s->eng.period_ns = s->period_ns;
    s->eng.nslots = SLOTS;
    s->eng.perf = clock->clock == SAMPLER_CLOCK_PERF;
    s->eng.perf_user_only = (clock->flags & SAMPLER_FLAG_USER_ONLY) != 0;
    s->eng.percpu = clock->clock == SAMPLER_CLOCK_PERCPU || clock->clock == SAMPLER_CLOCK_KSTACK;
    s->eng.kstack = clock->clock == SAMPLER_CLOCK_KSTACK;
    s->eng.unloads = p->gate_ok ? &p->gate.unloads : NULL;
    s->eng.dynamic_unloads = &p->dynamic_unloads;
    if (!(s->eng.slots = calloc(SLOTS, sizeof(*s->eng.slots))) ||
        (s->eng.percpu && sig_engine_percpu_used(&s->eng) < 0) ||
        sig_threads_init(&s->threads, &s->eng, s->period_ns, 1) < 0) {
        sigsampler_free(s);
        return -1;
    }
    s->threads_ok = 1;
    if (sig_resolver_init(&s->res, p) < 0) {
        sigsampler_free(s);
        return -1;
    }
    s->res_ok = 1;
    s->blocking_before = sig_threads_count_blocking();    /* (threads that block SIGPROF themselves) */
    if (sig_engine_install(&s->eng, failure, sizeof(failure)) < 0) {
        snprintf(clock->why, sizeof(clock->why), "the signal sampler cannot run here: %s", failure);
        profiler_note(p, "%s; sampling with the suspend engine", clock->why);
        sigsampler_free(s);
        return 1;
    }
    s->installed = 1;
    rc = agent_thread_start(&s->thread, NULL, collector_main, s);
    if (rc != 0) {
        sigsampler_free(s);
        return -1;
    }
    pthread_mutex_lock(&p->sampler->signal_lock);
    p->sampler->signal = s;
    pthread_mutex_unlock(&p->sampler->signal_lock);
    return 0;
}

void sigsampler_stop(profiler *p)
{
    struct sigsampler *s;

    pthread_mutex_lock(&p->sampler->signal_lock);
    s = p->sampler->signal;
    p->sampler->signal = NULL;
    pthread_mutex_unlock(&p->sampler->signal_lock);
    if (!s)
        return;
    pthread_mutex_lock(&s->wait_lock);
    atomic_store(&s->stop, 1);
    pthread_cond_signal(&s->wait_cond);
    pthread_mutex_unlock(&s->wait_lock);
    pthread_join(s->thread, NULL);
    sigsampler_free(s);
}

void sigsampler_thread_assigned(profiler *p, uint64_t managed, uint32_t tid)
{
    struct sigsampler *s;

    /* (a thread started by one that had SIGPROF blocked, in the runtime's
     * exception path, inherits that mask: the callback runs on the new thread) */
    if (tid == cp_gettid())
        sig_engine_thread_unblock();
    pthread_mutex_lock(&p->sampler->signal_lock);
    s = p->sampler->signal;
    if (s)          /* (before the collector's first scan too: it finds it registered) */
        sig_threads_add(&s->threads, tid, managed, tid == cp_gettid());
    pthread_mutex_unlock(&p->sampler->signal_lock);
}

void sigsampler_thread_ending(profiler *p, uint64_t managed)
{
    struct sigsampler *s;
    ThreadID current = 0;

    pthread_mutex_lock(&p->sampler->signal_lock);
    s = p->sampler->signal;
    /* (only on the ending thread itself) */
    if (s && SUCCEEDED(INFO(p)->GetCurrentThreadID(p->info, &current)) && current == (ThreadID)managed)
        sig_threads_ending(&s->threads, cp_gettid(), cp_own_cpu_ns());
    pthread_mutex_unlock(&p->sampler->signal_lock);
}

void sigsampler_before_unload(profiler *p)
{
    struct sigsampler *s;
    uint64_t ask;
    struct timespec until;

    pthread_mutex_lock(&p->sampler->signal_lock);
    if (!(s = p->sampler->signal)) {
        pthread_mutex_unlock(&p->sampler->signal_lock);
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += 200000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&s->wait_lock);
    ask = ++s->drains_asked;
    pthread_cond_signal(&s->wait_cond);
    /* (bounded: the collector may itself wait for a runtime lock this unload holds) */
    while (s->drains_done < ask && pthread_cond_timedwait(&s->done_cond, &s->wait_lock, &until) != ETIMEDOUT)
        ;
    pthread_mutex_unlock(&s->wait_lock);
    pthread_mutex_unlock(&p->sampler->signal_lock);
}

void sigsampler_exception_thrown(profiler *p)
{
    (void)p;
    sig_engine_thread_unblock();
}
