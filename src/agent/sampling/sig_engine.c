/* sig_engine.c - the SIGPROF handler and its installation (sig_engine.h).
 *
 * The signal disposition is the process's, so this file keeps the one
 * process-wide state the agent has beside manager.c's list: which engine
 * the handler serves (g_engine), what SIGPROF and SIGSEGV were before, and
 * how many handlers are running.  A handler first counts itself in, then
 * reads g_engine; uninstalling clears g_engine, ignores SIGPROF (a signal
 * still pending is discarded), waits until the count is 0, and only then
 * puts the old disposition back: no handler can be reading an engine or a
 * code map that is being freed. */
#include "agent/sampling/sig_engine.h"
#include "common/clock.h"
#include "unwind/stack_walk.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define COOKIE_MAGIC 0xc1b0ULL

static _Atomic(sig_engine *) g_engine;
static atomic_int g_in_handler;
static atomic_int g_installed;              /* our handler is (to be) in place */
static struct sigaction g_old_prof;
static void (*g_segv_handler)(int, siginfo_t *, void *);
static int g_segv_masked;
/* SIGPROF was put in the SIGSEGV handler's mask at least once: threads may
 * still leave that handler with it blocked, after the uninstall too, so
 * ExceptionThrown goes on unblocking it while the library is loaded */
static atomic_int g_unblock;
static atomic_int g_perf_used;              /* a perf event was ever set to send us SIGPROF */
static atomic_int g_percpu_used;            /* the per-CPU clock was ever asked to send us SIGPROF */

void sig_engine_perf_used(void)
{
    atomic_store(&g_perf_used, 1);
}

/* ---- the per-CPU clock's thread table ---- */

#define TID_DEAD 0xffffffffull               /* a deleted entry (tid 0 is no thread) */

static uint32_t tid_hash(uint32_t tid)
{
    return tid * 0x9e3779b1u;
}

int sig_engine_percpu_used(sig_engine *e)
{
    uint32_t size = 1;

    while (size < 2 * e->nslots)
        size <<= 1;
    if (!(e->tids = calloc(size, sizeof(*e->tids))))
        return -1;
    e->tids_mask = size - 1;
    e->tids_used = e->tids_dead = 0;
    atomic_store(&g_percpu_used, 1);
    return 0;
}

static void tid_insert(sig_engine *e, uint32_t tid, uint32_t index)
{
    uint64_t v = (uint64_t)tid << 32 | (index + 1);

    for (uint32_t i = tid_hash(tid), n = 0; n <= e->tids_mask; i++, n++) {
        _Atomic uint64_t *en = &e->tids[i & e->tids_mask];
        uint64_t cur = atomic_load_explicit(en, memory_order_relaxed);
        if (cur == 0 || cur == TID_DEAD || cur >> 32 == tid) {
            if (cur == TID_DEAD)
                e->tids_dead--;
            else if (cur == 0)
                e->tids_used++;
            atomic_store_explicit(en, v, memory_order_release);
            return;
        }
    }
}

/* Emptied and filled again with the active slots: a table full of deleted
 * entries makes every lookup long (a handler that looks meanwhile may miss
 * its thread: one sample dropped). */
static void tid_rebuild(sig_engine *e)
{
    for (uint32_t i = 0; i <= e->tids_mask; i++)
        atomic_store_explicit(&e->tids[i], 0, memory_order_relaxed);
    e->tids_used = e->tids_dead = 0;
    for (uint32_t i = 0; i < e->nslots; i++)
        if (atomic_load(&e->slots[i].state) == SLOT_ACTIVE && e->slots[i].tid)
            tid_insert(e, e->slots[i].tid, i);
}

void sig_engine_tid_put(sig_engine *e, uint32_t tid, uint32_t index)
{
    if (!e->tids || !tid)
        return;
    if (e->tids_used + 1 > (e->tids_mask + 1) / 2)
        tid_rebuild(e);
    tid_insert(e, tid, index);
}

void sig_engine_tid_del(sig_engine *e, uint32_t tid)
{
    if (!e->tids || !tid)
        return;
    for (uint32_t i = tid_hash(tid), n = 0; n <= e->tids_mask; i++, n++) {
        _Atomic uint64_t *en = &e->tids[i & e->tids_mask];
        uint64_t cur = atomic_load_explicit(en, memory_order_relaxed);
        if (cur == 0)
            return;
        if (cur != TID_DEAD && cur >> 32 == tid) {
            atomic_store_explicit(en, TID_DEAD, memory_order_release);
            if (++e->tids_dead > (e->tids_mask + 1) / 4)
                tid_rebuild(e);
            return;
        }
    }
}

/* The handler's lookup: tid's slot index + 1, or 0. */
static uint32_t tid_find(const sig_engine *e, uint32_t tid)
{
    if (!e->tids)
        return 0;
    for (uint32_t i = tid_hash(tid), n = 0; n <= e->tids_mask; i++, n++) {
        uint64_t cur = atomic_load_explicit(&e->tids[i & e->tids_mask], memory_order_acquire);
        if (cur == 0)
            return 0;
        if (cur != TID_DEAD && cur >> 32 == tid)
            return (uint32_t)cur;
    }
    return 0;
}

uint64_t sig_slot_cookie(const sig_engine *e, const sig_slot *s)
{
    uint64_t index = (uint64_t)(s - e->slots);
    return COOKIE_MAGIC << 48 | (index & 0xffff) << 32 | atomic_load(&s->gen);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void regs_of(const ucontext_t *uc, sw_regs *r)
{
    const greg_t *g = uc->uc_mcontext.gregs;
    r->r[0] = (uintptr_t)g[REG_RAX];
    r->r[1] = (uintptr_t)g[REG_RDX];
    r->r[2] = (uintptr_t)g[REG_RCX];
    r->r[3] = (uintptr_t)g[REG_RBX];
    r->r[4] = (uintptr_t)g[REG_RSI];
    r->r[5] = (uintptr_t)g[REG_RDI];
    r->r[6] = (uintptr_t)g[REG_RBP];
    r->r[7] = (uintptr_t)g[REG_RSP];
    r->r[8] = (uintptr_t)g[REG_R8];
    r->r[9] = (uintptr_t)g[REG_R9];
    r->r[10] = (uintptr_t)g[REG_R10];
    r->r[11] = (uintptr_t)g[REG_R11];
    r->r[12] = (uintptr_t)g[REG_R12];
    r->r[13] = (uintptr_t)g[REG_R13];
    r->r[14] = (uintptr_t)g[REG_R14];
    r->r[15] = (uintptr_t)g[REG_R15];
    r->r[CFI_REG_RA] = (uintptr_t)g[REG_RIP];
}

/* Was the thread in a blocking system call (a wall-clock sample of a
 * waiting thread)?  The kernel leaves the interrupted pc on the `syscall`
 * instruction (0f 05) when the call is to be restarted, or after it with
 * -EINTR in RAX.  Only bytes of the code range the pc is in are read. */
static int in_syscall(const code_map *m, const ucontext_t *uc)
{
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    const cm_range *r = m ? cm_find(m, pc) : NULL;
    const volatile unsigned char *b;

    if (!r)
        return 0;
    if (pc + 2 <= r->end) {
        b = (const volatile unsigned char *)pc;
        if (b[0] == 0x0f && b[1] == 0x05)
            return 1;
    }
    if (pc - 2 >= r->start && (long long)uc->uc_mcontext.gregs[REG_RAX] == -EINTR) {
        b = (const volatile unsigned char *)(pc - 2);
        if (b[0] == 0x0f && b[1] == 0x05)
            return 1;
    }
    return 0;
}

/* The next number of the xorshift state *state (never 0). */
static uint64_t xorshift(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

uint64_t sig_first_period(uint64_t period_ns, uint64_t *random)
{
    double u = (double)(xorshift(random) >> 11) / 9007199254740992.0;    /* [0, 1), 53 bits */
    double v = (double)(xorshift(random) >> 11) / 9007199254740992.0;
    /* a period of [P/2, 3P/2) drawn in proportion to its length (its
     * distribution function (x^2 - P^2/4) / 2P^2, inverted), and a uniform
     * point of it */
    uint64_t first = (uint64_t)(v * (double)period_ns * sqrt(0.25 + 2.0 * u));
    return first > SIG_PERIOD_MIN_NS ? first : SIG_PERIOD_MIN_NS;
}

/* The slot's next period, for either clock: drawn in [period/2,
 * 3 period/2) by its xorshift state, less the lateness of the last one (at
 * least period/8); kept in armed, against which the next sample's lateness
 * is measured. */
static uint64_t next_period(const sig_engine *e, sig_slot *s, uint64_t late)
{
    uint64_t x = xorshift(&s->random), next;
    next = e->period_ns / 2 + x % (e->period_ns ? e->period_ns : 1);
    next = next > late + e->period_ns / 8 ? next - late : e->period_ns / 8;
    s->armed = next;
    return next;
}

/* The thread's timer re-armed for a period drawn in [period/2, 3 period/2),
 * counted from where the ideal schedule put this sample: the kernel sees a
 * CPU timer expire only at its scheduler tick, so a sample comes late by up
 * to a tick; taking that lateness (late) off the next period keeps the
 * samples at one per period on average, as asked, rather than one per
 * period and half a tick. */
static void rearm(const sig_engine *e, sig_slot *s, uint64_t late)
{
    struct itimerspec its;
    uint64_t next = next_period(e, s, late);
    its.it_interval.tv_sec = (time_t)(e->period_ns / 1000000000u);
    its.it_interval.tv_nsec = (long)(e->period_ns % 1000000000u);
    its.it_value.tv_sec = (time_t)(next / 1000000000u);
    its.it_value.tv_nsec = (long)(next % 1000000000u);
    syscall(SYS_timer_settime, (int)s->timer, 0, &its, NULL);
}

/* The perf clock: the next period drawn as the timer's is.  The event
 * stays enabled from one overflow to the next: no event limit
 * (PERF_EVENT_IOC_REFRESH), whose self-disabling inside the clock's
 * hrtimer interrupt hangs Linux 6.16 and 6.17 (docs/sampling.md); setting
 * the period restarts the count from here.  The task clock counts only while
 * the event is scheduled in with the thread, a little less than the
 * thread's CPU clock (each wake-up's switch: a tenth of the CPU of a thread
 * that wakes every millisecond or two, in a VM): that shortfall of the last
 * period (late) is taken off the next, as the timer's lateness is, so the
 * samples come at the rate asked per second of the thread's CPU. */
static void perf_rearm(const sig_engine *e, sig_slot *s, uint64_t late)
{
    uint64_t next = next_period(e, s, late);
    ioctl(s->perf_fd, PERF_EVENT_IOC_PERIOD, &next);
}

/* What sent a CPU sample, and so how the next one is asked for. */
enum sig_source { SRC_TIMER, SRC_PERF, SRC_PERCPU };

static void take_sample(sig_engine *e, sig_slot *s, unsigned kind, enum sig_source src, ucontext_t *uc)
{
    uint64_t t0 = now_ns(), cpu0 = cp_own_cpu_ns(), cpu = 0;
    code_map *m = atomic_load_explicit(&e->map, memory_order_acquire);
    uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    uintptr_t lo = atomic_load_explicit(&s->lo, memory_order_relaxed);
    uintptr_t hi = atomic_load_explicit(&s->hi, memory_order_acquire);
    uintptr_t *frames;
    sig_entry *en;
    unsigned flags = kind, walk = 0;

    atomic_fetch_add_explicit(&s->signals, 1, memory_order_relaxed);
    if (kind == SIG_SAMPLE_CPU) {
        uint64_t now = cpu0, since = now > s->cpu_at ? now - s->cpu_at : 0;
        /* (the first sample's reference is the arming, read by another thread: not the same instant) */
        uint64_t late = s->armed && since > s->armed && since - s->armed < e->period_ns ? since - s->armed : 0;
        if (src == SRC_PERF)
            perf_rearm(e, s, late);
        else if (src == SRC_TIMER)
            rearm(e, s, late);
        else
            atomic_fetch_add_explicit(&s->cpu_signals, 1, memory_order_relaxed);
        if (!(en = sig_ring_reserve(&s->ring, SIG_MAX_FRAMES, &frames))) {
            atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
            return;                      /* (its CPU goes to the thread's next sample) */
        }
        cpu = e->kstack && e->page ? e->page->period_ns : since;
        s->cpu_at = now;
    } else if (!(en = sig_ring_reserve(&s->ring, SIG_MAX_FRAMES, &frames))) {
        atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
        return;
    }
    if (kind == SIG_SAMPLE_WALL && in_syscall(m, uc))
        flags |= SIG_SAMPLE_WAITING;
    if (!atomic_load_explicit(&s->seen_self, memory_order_relaxed))
        atomic_store_explicit(&s->seen_self, (uintptr_t)pthread_self(), memory_order_relaxed);
    if (!m || hi == 0 || sp < lo || sp >= hi) {
        /* the stack is not known (yet): where the thread is, and what the
         * collector needs to find its stack */
        if (hi == 0)
            atomic_store_explicit(&s->seen_sp, sp, memory_order_release);
        frames[0] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
        en->nframes = 1;
        flags |= SIG_SAMPLE_NO_STACK;
    } else {
        sw_regs regs;
        regs_of(uc, &regs);
        en->nframes = (uint16_t)sw_walk(m, &regs, hi, frames, SIG_MAX_FRAMES, &walk);
    }
    en->flags = (uint16_t)(flags | (walk & 0xff) << 8);
    en->t = t0;
    en->cpu_ns = cpu;
    en->unloads = (uint32_t)(e->unloads ? __atomic_load_n(e->unloads, __ATOMIC_ACQUIRE) : 0);
    en->dynamic_unloads = (uint32_t)(e->dynamic_unloads ? atomic_load_explicit(e->dynamic_unloads,
                                                                                 memory_order_acquire) : 0);
    sig_ring_commit(&s->ring, en);
    if (kind == SIG_SAMPLE_CPU)
        atomic_fetch_add_explicit(&s->sampled_ns, cpu, memory_order_relaxed);
    /* (the handler's own CPU, not its wall time: a handler preempted half way costs nothing meanwhile) */
    atomic_fetch_add_explicit(&s->handler_ns, cp_own_cpu_ns() - cpu0, memory_order_relaxed);
}

static int is_handler(const struct sigaction *sa);
static void on_signal(int sig, siginfo_t *si, void *ucv);

/* A perf event's signal (F_SETSIG: the code says why, si_fd which event). */
static int is_perf(const siginfo_t *si)
{
    return si->si_code >= POLL_IN && si->si_code <= POLL_HUP;
}

/* The per-CPU clock's signal (bpf_send_signal_thread: SI_KERNEL, no value;
 * the kernel's own ITIMER_PROF looks the same, but a program that arms it
 * without a SIGPROF handler of its own would be killed by it). */
static int is_percpu(const siginfo_t *si)
{
    return si->si_code == SI_KERNEL;
}

/* Is this SIGPROF one of ours: a thread's CPU timer, a thread's perf event
 * (once the perf clock was used), or a wall-clock sample queued by our
 * collector (this process, with a slot's cookie)?  One of a slot freed
 * since, or after the engine stopped, is still ours, and is dropped. */
static int is_ours(const sig_engine *e, const siginfo_t *si)
{
    uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;

    if (is_perf(si))
        return atomic_load(&g_perf_used);
    if (is_percpu(si))
        return atomic_load(&g_percpu_used);

    if (v >> 48 != COOKIE_MAGIC)
        return 0;
    return si->si_code == SI_TIMER || (si->si_code == SI_QUEUE && si->si_pid == (e ? e->pid : getpid()));
}

/* A SIGPROF that is not ours (kill, raise, a setitimer of the program's):
 * it gets what the program had before we took the signal, so that the
 * program behaves as it would without the agent.  Only while our handler
 * is the one installed: a handler that replaced ours and calls it (.NET's
 * PosixSignalRegistration does) has decided for the program already.
 * Async-signal-safe: sigaction, raise and pthread_sigmask only. */
static void not_ours(int sig, siginfo_t *si, void *ucv)
{
    struct sigaction cur, dfl;
    sigset_t set;

    if (sigaction(sig, NULL, &cur) != 0 || !(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != on_signal)
        return;
    if (g_old_prof.sa_handler == SIG_IGN && !(g_old_prof.sa_flags & SA_SIGINFO))
        return;                              /* ignored before us: ignored */
    if (is_handler(&g_old_prof)) {
        if (g_old_prof.sa_flags & SA_SIGINFO)
            g_old_prof.sa_sigaction(sig, si, ucv);
        else
            g_old_prof.sa_handler(sig);
        return;
    }
    /* SIG_DFL: the process ends by this signal, as the kernel would end
     * it: the default put back, the signal raised again at this thread and
     * unblocked (it is blocked while its handler runs) */
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
    int saved_errno = errno, ours;
    sig_engine *e;

    atomic_fetch_add(&g_in_handler, 1);
    e = atomic_load(&g_engine);
    ours = si && is_ours(e, si);
    if (e && ours && is_percpu(si)) {
        uint32_t tid = (uint32_t)syscall(SYS_gettid), at = e->percpu ? tid_find(e, tid) : 0;
        sig_slot *s = at && at <= e->nslots ? &e->slots[at - 1] : NULL;
        if (s && s->tid == tid && atomic_load(&s->state) == SLOT_ACTIVE)
            take_sample(e, s, SIG_SAMPLE_CPU, SRC_PERCPU, ucv);
    } else if (e && ours) {
        int perf = is_perf(si);
        uint64_t v = perf ? (si->si_fd >= 0 && (uint32_t)si->si_fd < e->perf_nfds && e->perf_cookie
                                 ? atomic_load(&e->perf_cookie[si->si_fd]) : 0)
                          : (uint64_t)(uintptr_t)si->si_value.sival_ptr;
        unsigned kind = si->si_code == SI_QUEUE ? SIG_SAMPLE_WALL : SIG_SAMPLE_CPU;
        if (v >> 48 == COOKIE_MAGIC && ((v >> 32) & 0xffff) < e->nslots) {
            sig_slot *s = &e->slots[(v >> 32) & 0xffff];
            /* (a perf event is the thread's own: checked as the wall samples are) */
            if (atomic_load(&s->state) == SLOT_ACTIVE && atomic_load(&s->gen) == (uint32_t)v &&
                ((kind == SIG_SAMPLE_CPU && !perf) || (uint32_t)syscall(SYS_gettid) == s->tid))
                take_sample(e, s, kind, perf ? SRC_PERF : SRC_TIMER, ucv);
        }
    }
    atomic_fetch_sub(&g_in_handler, 1);
    if (!ours)
        not_ours(sig, si, ucv);            /* (outside the count: it may not return) */
    errno = saved_errno;
}

static int is_handler(const struct sigaction *sa)
{
    return (sa->sa_flags & SA_SIGINFO) ? sa->sa_sigaction != NULL
                                       : sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

int sig_engine_install(sig_engine *e, char *why, size_t why_len)
{
    struct sigaction sa, cur;
    int expected = 0;

    if (!atomic_compare_exchange_strong(&g_installed, &expected, 1)) {
        snprintf(why, why_len, "another instance of the agent in this process samples with signals");
        return -1;
    }
    if (sigaction(SIG_SAMPLER_SIGNAL, NULL, &g_old_prof) != 0 || is_handler(&g_old_prof)) {
        snprintf(why, why_len, "SIGPROF is already handled by another component of this process (another profiler?)");
        atomic_store(&g_installed, 0);
        return -1;
    }
    /* the runtime's SIGSEGV handler (on its small alternate stack) must not
     * be interrupted by ours */
    g_segv_masked = 0;
    if (sigaction(SIGSEGV, NULL, &cur) == 0 && is_handler(&cur) && !sigismember(&cur.sa_mask, SIG_SAMPLER_SIGNAL)) {
        g_segv_handler = cur.sa_sigaction;
        sigaddset(&cur.sa_mask, SIG_SAMPLER_SIGNAL);
        if (sigaction(SIGSEGV, &cur, NULL) == 0) {
            g_segv_masked = 1;
            atomic_store(&g_unblock, 1);
        }
    }
    atomic_store(&g_engine, e);
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIG_SAMPLER_SIGNAL, &sa, NULL) != 0) {
        snprintf(why, why_len, "cannot install a SIGPROF handler: %s", strerror(errno));
        atomic_store(&g_engine, NULL);
        sig_engine_uninstall(e, 0, 0);
        return -1;
    }
    return 0;
}

int sig_engine_quiet(void)
{
    return atomic_load(&g_in_handler) == 0;
}

int sig_engine_installed(void)
{
    struct sigaction cur;
    return sigaction(SIG_SAMPLER_SIGNAL, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
           cur.sa_sigaction == on_signal;
}

void sig_engine_uninstall(sig_engine *e, int unloading, int exiting)
{
    struct sigaction ign, cur;

    if (!atomic_load(&g_installed))
        return;
    atomic_store(&g_engine, NULL);
    /* discard what may still be pending, then let the handlers in flight end */
    if (sigaction(SIG_SAMPLER_SIGNAL, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
        cur.sa_sigaction == on_signal) {
        memset(&ign, 0, sizeof(ign));
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        sigaction(SIG_SAMPLER_SIGNAL, &ign, NULL);
        for (int i = 0; i < 1000 && atomic_load(&g_in_handler) > 0; i++) {
            struct timespec ms = { 0, 1000000 };
            nanosleep(&ms, NULL);
        }
        /* (at the process's exit, with nobody's handler to put back: left
         * ignored, where a late signal is harmless) */
        int stay_ignored = exiting && !unloading && !is_handler(&g_old_prof);
        if (!stay_ignored && (unloading || (e && e->percpu))) {
            /* a thread preempted on the handler's first instruction, its
             * signal already delivered, is not counted yet: give it time;
             * and a per-CPU tick that read the gate open just before it
             * closed sends its signal within microseconds (it is ignored
             * now, and must not come after the old disposition is back) */
            struct timespec grace = { 0, 20000000 };
            nanosleep(&grace, NULL);
        }
        for (int i = 0; i < 2000 && atomic_load(&g_in_handler) > 0; i++) {
            struct timespec ms = { 0, 1000000 };    /* (a thread stopped in a debugger: not forever) */
            nanosleep(&ms, NULL);
        }
        if (!stay_ignored)
            sigaction(SIG_SAMPLER_SIGNAL, &g_old_prof, NULL);
    } else if (unloading) {
        /* Someone replaced our handler while we sampled; a handler that
         * keeps the one it replaced and calls it (as .NET's own
         * PosixSignalRegistration does) would call into this library after
         * the runtime unloaded it: keep the library mapped instead. */
        Dl_info self;
        if (dladdr((void *)on_signal, &self) && self.dli_fname)
            dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
    }
    if (g_segv_masked && sigaction(SIGSEGV, NULL, &cur) == 0 && cur.sa_sigaction == g_segv_handler &&
        sigismember(&cur.sa_mask, SIG_SAMPLER_SIGNAL)) {
        sigdelset(&cur.sa_mask, SIG_SAMPLER_SIGNAL);
        sigaction(SIGSEGV, &cur, NULL);
    }
    g_segv_masked = 0;
    atomic_store(&g_installed, 0);
}

void sig_engine_thread_unblock(void)
{
    sigset_t set;
    /* (after the uninstall too: no SIGPROF of ours is pending any more,
     * the uninstall discarded them, and a thread that entered the SIGSEGV
     * handler before its mask was put back must not keep SIGPROF blocked
     * once we are gone) */
    if (!atomic_load_explicit(&g_unblock, memory_order_relaxed))
        return;
    sigemptyset(&set);
    sigaddset(&set, SIG_SAMPLER_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}
