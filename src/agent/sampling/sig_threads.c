/* sig_threads.c - the sampled threads and their CPU timers (sig_threads.h).
 *
 * A timer is created with the raw system calls (glibc's timer_create does
 * not take another thread's CPU clock) on the thread's CPU clock,
 * SIGEV_THREAD_ID, so that the kernel sends SIGPROF to that thread after
 * each period of CPU it uses; its value names the slot and the slot's
 * generation.  When a thread ends, the kernel disarms the timers on its
 * clock (timer_gettime then reads 0): that is how the collector notices
 * ended threads, even when their thread id was given to a new thread in
 * between. */
#include "agent/sampling/sig_threads.h"
#include "common/clock.h"
#include "common/files.h"
#include "common/hash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PERF_FD_TABLE_MAX 65536u          /* descriptors past this are not used for perf events */
#define PERF_FD_HEADROOM 256u              /* descriptors left free below the limit, for the program */
#define WATCH_ONLY_S (365 * 24 * 3600)     /* the perf clock's timer: never fires, only tells a thread ended */
#define RECYCLE_AFTER_NS 200000000ull    /* a retired slot is reused this long after (no handler is that slow) */
#define GROWABLE_STACK_MAX (64ull << 20) /* the main thread's stack: read at most this far below its top */

int sig_threads_init(sig_threads *t, sig_engine *e, uint64_t period_ns, int cpu_timers)
{
    memset(t, 0, sizeof(*t));
    t->eng = e;
    t->period_ns = period_ns;
    t->cpu_timers = cpu_timers;
    idmap_init(&t->by_tid);
    if (!(t->reusable = calloc(e->nslots, sizeof(*t->reusable))))
        return -1;
    if (e->perf) {
        struct rlimit rl;
        t->fd_limit = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (uint64_t)rl.rlim_cur : 1024;
        e->perf_nfds = t->fd_limit < PERF_FD_TABLE_MAX ? (uint32_t)t->fd_limit : PERF_FD_TABLE_MAX;
        if (!(e->perf_cookie = calloc(e->perf_nfds, sizeof(*e->perf_cookie)))) {
            free(t->reusable);
            return -1;
        }
        sig_engine_perf_used();
    }
    if (pthread_mutex_init(&t->lock, NULL) != 0) {
        free(t->reusable);
        return -1;
    }
    return 0;
}

static void perf_close(sig_slot *s);

void sig_threads_free(sig_threads *t)
{
    for (uint32_t i = 0; i < t->used; i++)
        perf_close(&t->eng->slots[i]);
    free(t->eng->perf_cookie);
    t->eng->perf_cookie = NULL;
    t->eng->perf_nfds = 0;
    pthread_mutex_destroy(&t->lock);
    idmap_free(&t->by_tid);
    free(t->reusable);
    memset(t, 0, sizeof(*t));
}

/* ---- timers ---- */

static int timer_arm(sig_threads *t, sig_slot *s)
{
    struct sigevent ev;
    struct itimerspec its;
    int id = -1;

    memset(&ev, 0, sizeof(ev));
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIG_SAMPLER_SIGNAL;
    ev.sigev_value.sival_ptr = (void *)(uintptr_t)sig_slot_cookie(t->eng, s);
    ev._sigev_un._tid = (pid_t)s->tid;
    if (syscall(SYS_timer_create, cp_thread_cpu_clock(s->tid), &ev, &id) != 0) {
        if (errno != EINVAL && errno != ESRCH) {      /* (not a thread that ended meanwhile) */
            t->timer_failures++;
            t->timer_errno = errno;
        }
        return -1;
    }
    uint64_t first = sig_first_period(t->period_ns, &s->random);
    its.it_interval.tv_sec = (time_t)(t->period_ns / 1000000000u);
    its.it_interval.tv_nsec = (long)(t->period_ns % 1000000000u);
    its.it_value.tv_sec = (time_t)(first / 1000000000u);
    its.it_value.tv_nsec = (long)(first % 1000000000u);
    if (s->timer_watch_only) {
        its.it_interval.tv_sec = its.it_value.tv_sec = WATCH_ONLY_S;
        its.it_interval.tv_nsec = its.it_value.tv_nsec = 0;
    }
    if (syscall(SYS_timer_settime, id, 0, &its, NULL) != 0) {
        t->timer_failures++;
        t->timer_errno = errno;
        syscall(SYS_timer_delete, id);
        return -1;
    }
    s->timer = id;
    s->has_timer = 1;
    return 0;
}

static void timer_disarm(sig_slot *s);

/* ---- the perf clock ----
 *
 * A software perf event on the thread's task clock (PERF_COUNT_SW_TASK_CLOCK,
 * pid = the thread): a high-resolution timer that runs only while the
 * thread runs and keeps what is left of its period across switches, so a
 * thread that runs between scheduler ticks is sampled as often as one that
 * runs through them.  Its overflow sends the thread SIGPROF (O_ASYNC,
 * F_SETSIG, F_SETOWN_EX to that thread) and disables it; the handler draws
 * the next period and enables it for one more (sig_engine.c).  The
 * descriptor is close-on-exec, never one of the standard three, and kept
 * PERF_FD_HEADROOM below the limit; a thread whose event cannot be had
 * keeps a CPU timer instead (perf_failures, said in the trace).  The
 * thread's CPU timer still exists, armed a year ahead: the kernel disarms
 * it when the thread ends, which is how an ended thread is told from a new
 * one given its id (thread_ended). */

static int perf_open(sig_threads *t, sig_slot *s)
{
    struct perf_event_attr a;
    struct f_owner_ex owner = { F_OWNER_TID, (pid_t)s->tid };
    int fd;

    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = sig_first_period(t->period_ns, &s->random);
    s->armed = a.sample_period;
    a.disabled = 1;
    a.wakeup_events = 1;
    a.exclude_hv = 1;
    a.exclude_kernel = t->eng->perf_user_only ? 1 : 0;  /* (perf_event_paranoid 2 without CAP_PERFMON) */
    fd = (int)syscall(SYS_perf_event_open, &a, (pid_t)s->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        if (errno != ESRCH)             /* (not a thread that ended meanwhile) */
            t->perf_errno = errno;
        return -1;
    }
    if (fd <= 2) {                      /* the program closed a standard descriptor: not ours to take */
        int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        close(fd);
        if ((fd = high) < 0) {
            t->perf_errno = errno;
            return -1;
        }
    }
    if ((uint64_t)fd + PERF_FD_HEADROOM >= t->fd_limit || (uint32_t)fd >= t->eng->perf_nfds) {
        close(fd);
        t->perf_errno = 0;              /* (near the limit) */
        return -1;
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) < 0 || fcntl(fd, F_SETSIG, SIG_SAMPLER_SIGNAL) < 0 ||
        fcntl(fd, F_SETOWN_EX, &owner) < 0) {
        t->perf_errno = errno;
        close(fd);
        return -1;
    }
    s->perf_fd = fd;
    s->has_perf = 1;
    atomic_store(&t->eng->perf_cookie[fd], sig_slot_cookie(t->eng, s));
    if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) < 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
        t->perf_errno = errno;
        atomic_store(&t->eng->perf_cookie[fd], 0);
        close(fd);
        s->has_perf = 0;
        return -1;
    }
    t->perf_threads++;
    return 0;
}

/* No more signals from the slot's event, for good: the handler only sets
 * its period, which never enables it (its descriptor stays open until the
 * slot is free: a handler may still be about to set it, sig_engine.c). */
static void perf_disable(sig_threads *t, sig_slot *s)
{
    if (!s->has_perf)
        return;
    atomic_store(&t->eng->perf_cookie[s->perf_fd], 0);
    ioctl(s->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
}

static void perf_close(sig_slot *s)
{
    if (s->has_perf)
        close(s->perf_fd);
    s->has_perf = 0;
}

/* The slot's clock: its CPU timer, or its perf event with a timer that only
 * watches (the CPU timer alone when the event cannot be had). */
static int clock_arm(sig_threads *t, sig_slot *s)
{
    s->timer_watch_only = 0;
    if (t->eng->percpu) {                 /* the command's per-CPU clock signals it */
        s->timer_watch_only = 1;
        return timer_arm(t, s);
    }
    if (t->eng->perf) {
        s->timer_watch_only = 1;
        if (timer_arm(t, s) < 0)
            return -1;
        if (perf_open(t, s) == 0)
            return 0;
        t->perf_failures++;
        timer_disarm(s);
        s->timer_watch_only = 0;
    }
    return timer_arm(t, s);
}

static void timer_disarm(sig_slot *s)
{
    if (s->has_timer)
        syscall(SYS_timer_delete, (int)s->timer);
    s->has_timer = 0;
}

/* Is the slot's thread gone?  Its timer was disarmed by the kernel (the
 * thread's clock ended), or, without a timer, the thread id is gone. */
static int thread_ended(sig_engine *e, sig_slot *s)
{
    if (s->has_timer) {
        struct itimerspec cur;
        if (syscall(SYS_timer_gettime, (int)s->timer, &cur) != 0)
            return 1;
        return cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0;
    }
    return syscall(SYS_tgkill, e->pid, (pid_t)s->tid, 0) != 0 && errno == ESRCH;
}

/* ---- stacks ---- */

/* The calling thread's stack, from pthread: [lo, hi), hi below its thread
 * descriptor when that sits at the top of the stack (glibc's threads). */
static void own_stack(sig_slot *s)
{
    pthread_attr_t a;
    void *addr = NULL;
    size_t size = 0;
    uintptr_t lo, hi, self = (uintptr_t)pthread_self(), here = (uintptr_t)&a;

    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return;
    if (pthread_attr_getstack(&a, &addr, &size) == 0 && addr && size) {
        lo = (uintptr_t)addr;
        hi = lo + size;
        if (self > here && self < hi)
            hi = self;
        if (here >= lo && here < hi) {
            atomic_store(&s->lo, lo);
            atomic_store_explicit(&s->hi, hi, memory_order_release);
        }
    }
    pthread_attr_destroy(&a);
}

/* Signals a thread that blocks them all blocks on purpose (the agent's own
 * threads, any thread that wants no signal): SIGPROF alone blocked is not
 * that, it is most often what the runtime's SIGSEGV handler left behind
 * (sig_engine.h), until the thread's next ExceptionThrown unblocks it. */
#define SIG_BIT(n) (1ull << ((n) - 1))
#define EVERY_SIGNAL_BITS (SIG_BIT(SIG_SAMPLER_SIGNAL) | SIG_BIT(SIGINT) | SIG_BIT(SIGTERM) | \
                           SIG_BIT(SIGUSR1) | SIG_BIT(SIGUSR2) | SIG_BIT(SIGALRM))

/* A thread's blocked signals, from the SigBlk line of its
 * /proc/self/task/TID/status; -1 when the thread is gone. */
static int blocked_mask(uint32_t tid, unsigned long long *mask)
{
    char path[64], buf[2048];
    const char *line;

    snprintf(path, sizeof(path), "/proc/self/task/%u/status", (unsigned)tid);
    if (cp_read_small(path, buf, sizeof(buf)) <= 0)
        return -1;
    *mask = (line = strstr(buf, "\nSigBlk:")) ? strtoull(line + 8, NULL, 16) : 0;
    return 0;
}

static int blocks_every_signal(unsigned long long mask)
{
    return (mask & EVERY_SIGNAL_BITS) == EVERY_SIGNAL_BITS;
}

static unsigned long long own_mask(void)
{
    sigset_t cur;
    unsigned long long mask = 0;

    if (pthread_sigmask(SIG_SETMASK, NULL, &cur) != 0)
        return 0;
    for (int sig = 1; sig <= 64; sig++)
        if (sigismember(&cur, sig) == 1)
            mask |= 1ull << (sig - 1);
    return mask;
}

unsigned sig_threads_count_blocking(void)
{
    DIR *d;
    struct dirent *de;
    unsigned n = 0;

    if (!(d = opendir("/proc/self/task")))
        return 0;
    while ((de = readdir(d)) != NULL) {
        char *end;
        unsigned long tid = strtoul(de->d_name, &end, 10);
        unsigned long long mask;
        if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end || tid == 0)
            continue;
        if (blocked_mask((uint32_t)tid, &mask) == 0 && (mask & SIG_BIT(SIG_SAMPLER_SIGNAL)) &&
            !blocks_every_signal(mask))
            n++;
    }
    closedir(d);
    return n;
}

/* The stack pointer of a thread blocked in a system call, from
 * /proc/self/task/TID/syscall ("nr arg1..arg6 sp pc"; "running" for a
 * running thread: 0 then, and its first signal tells). */
static uintptr_t blocked_sp(uint32_t tid)
{
    char path[64], buf[256], *p, *end;

    snprintf(path, sizeof(path), "/proc/self/task/%u/syscall", (unsigned)tid);
    if (cp_read_small(path, buf, sizeof(buf)) <= 0)
        return 0;
    if (buf[0] < '0' || buf[0] > '9')
        return 0;
    p = buf;
    for (int field = 0; field < 7; field++) {           /* past nr and the 6 arguments */
        if (!(p = strchr(p, ' ')))
            return 0;
        p++;
    }
    {
        unsigned long long sp = strtoull(p, &end, 16);
        return end != p ? (uintptr_t)sp : 0;
    }
}

/* ---- registration ---- */

static sig_slot *slot_for(sig_threads *t, uint32_t tid)
{
    uint64_t v;
    return idmap_get(&t->by_tid, tid, &v) ? &t->eng->slots[v - 1] : NULL;
}


static void retire(sig_threads *t, sig_slot *s, uint64_t now)
{
    perf_disable(t, s);
    timer_disarm(s);
    atomic_store(&s->state, SLOT_RETIRED);
    sig_engine_tid_del(t->eng, s->tid);         /* (after: a rebuild of the table takes active slots only) */
    atomic_fetch_add(&s->gen, 1);               /* signals still on their way are ignored */
    s->retired_at = now;
    idmap_del(&t->by_tid, s->tid);
}

sig_slot *sig_threads_add(sig_threads *t, uint32_t tid, uint64_t managed, int on_thread)
{
    sig_engine *e = t->eng;
    sig_slot *s;
    uint32_t idx;
    unsigned long long mask = 0;

    if (on_thread && blocks_every_signal(own_mask()))
        return NULL;
    pthread_mutex_lock(&t->lock);
    if (t->stopped) {
        pthread_mutex_unlock(&t->lock);
        return NULL;
    }
    if ((s = slot_for(t, tid)) != NULL) {
        if (managed)
            atomic_store(&s->managed, managed);
        if (on_thread && atomic_load(&s->hi) == 0)
            own_stack(s);
        pthread_mutex_unlock(&t->lock);
        return s;
    }
    /* (a thread with SIGPROF alone blocked gets its timer: the signal waits
     * for the thread to unblock it, and the CPU meanwhile goes to that sample) */
    if (!on_thread && (blocked_mask(tid, &mask) < 0 || blocks_every_signal(mask))) {
        t->blocked++;
        pthread_mutex_unlock(&t->lock);
        return NULL;
    }
    if (t->nreusable > 0 && atomic_load(&e->slots[t->reusable[0]].state) == SLOT_FREE) {
        idx = t->reusable[0];
        memmove(t->reusable, t->reusable + 1, (t->nreusable - 1) * sizeof(*t->reusable));
        t->nreusable--;
    } else if (t->used < e->nslots) {
        idx = t->used;
        if (sig_ring_init(&e->slots[idx].ring, SIG_RING_WORDS) < 0) {
            t->table_full++;
            pthread_mutex_unlock(&t->lock);
            return NULL;
        }
        t->used++;
    } else {
        t->table_full++;
        pthread_mutex_unlock(&t->lock);
        return NULL;
    }
    s = &e->slots[idx];
    sig_ring_reset(&s->ring);
    s->tid = tid;
    atomic_store(&s->managed, managed);
    atomic_store(&s->lo, 0);
    atomic_store(&s->hi, 0);
    atomic_store(&s->seen_sp, 0);
    atomic_store(&s->seen_self, 0);
    s->has_timer = 0;
    perf_close(s);                                /* (closed when it was freed; never open here) */
    s->named = 0;
    atomic_store(&s->cpu_final, 0);
    s->cpu_last = cp_thread_cpu_of(tid);
    s->cpu_at = s->cpu_last;                      /* (the handler's, from its first sample on) */
    s->sampled_base = atomic_load(&s->sampled_ns);
    s->cpu_counted = s->task_clock_last = 0;
    s->armed = 0;
    s->random = cp_fnv1a_step(cp_fnv1a_step(CP_FNV1A_BASIS, tid), cp_monotonic_ns() ^ (uintptr_t)s);
    atomic_fetch_add(&s->gen, 1);
    if (on_thread)
        own_stack(s);
    else
        atomic_store(&s->seen_sp, blocked_sp(tid));     /* (the collector finds its stack) */
    atomic_store(&s->state, SLOT_ACTIVE);
    if (t->cpu_timers && clock_arm(t, s) < 0) {
        atomic_fetch_add(&s->gen, 1);          /* (no timer, so no signal of this generation) */
        atomic_store(&s->state, SLOT_FREE);
        t->reusable[t->nreusable++] = idx;
        pthread_mutex_unlock(&t->lock);
        return NULL;
    }
    if (idmap_put(&t->by_tid, tid, (uint64_t)idx + 1) < 0) {
        retire(t, s, 0);
        pthread_mutex_unlock(&t->lock);
        return NULL;
    }
    sig_engine_tid_put(e, tid, idx);
    pthread_mutex_unlock(&t->lock);
    return s;
}

/* A thread found blocking every signal is asked again this long after
 * (glibc's new threads block every signal until they run their own code). */
#define SKIP_RECHECK_NS 2000000000ull

/* Is tid one not to ask about before a later scan?  Under t->lock. */
static int skipped(const sig_threads *t, uint32_t tid, uint64_t now)
{
    for (int i = 0; i < SIG_SKIP_KEPT; i++)
        if (t->skip_tid[i] == tid && now < t->skip_until[i])
            return 1;
    return 0;
}

/* Remembers tid until `until`, in its own entry, an expired one or the
 * one that expires first.  Under t->lock. */
static void skip(sig_threads *t, uint32_t tid, uint64_t until)
{
    int at = 0;
    for (int i = 0; i < SIG_SKIP_KEPT; i++) {
        if (t->skip_tid[i] == tid) {
            at = i;
            break;
        }
        if (t->skip_until[i] < t->skip_until[at])
            at = i;
    }
    t->skip_tid[at] = tid;
    t->skip_until[at] = until;
}

sig_slot *sig_threads_met(sig_threads *t, uint32_t tid, uint64_t now)
{
    sig_slot *s;
    int skip_it;

    pthread_mutex_lock(&t->lock);
    s = slot_for(t, tid);
    skip_it = !s && skipped(t, tid, now);
    pthread_mutex_unlock(&t->lock);
    if (s || skip_it)
        return s;
    if ((s = sig_threads_add(t, tid, 0, 0)) == NULL) {
        pthread_mutex_lock(&t->lock);
        skip(t, tid, now + SKIP_RECHECK_NS);     /* (the agent's own threads: every signal blocked) */
        pthread_mutex_unlock(&t->lock);
    }
    return s;
}

void sig_threads_scan(sig_threads *t, uint64_t now)
{
    sig_engine *e = t->eng;
    DIR *d;
    struct dirent *de;

    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->used; i++) {
        sig_slot *s = &e->slots[i];
        if (atomic_load(&s->state) == SLOT_ACTIVE && thread_ended(e, s))
            retire(t, s, now);
    }
    pthread_mutex_unlock(&t->lock);
    if (!(d = opendir("/proc/self/task")))
        return;
    while ((de = readdir(d)) != NULL) {
        char *end;
        unsigned long tid = strtoul(de->d_name, &end, 10);
        unsigned blocked;
        int known;
        if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end || tid == 0)
            continue;
        pthread_mutex_lock(&t->lock);
        known = slot_for(t, (uint32_t)tid) != NULL || skipped(t, (uint32_t)tid, now);
        blocked = t->blocked;
        pthread_mutex_unlock(&t->lock);
        if (known)
            continue;
        sig_threads_add(t, (uint32_t)tid, 0, 0);
        pthread_mutex_lock(&t->lock);
        if (t->blocked != blocked)
            skip(t, (uint32_t)tid, now + SKIP_RECHECK_NS);
        pthread_mutex_unlock(&t->lock);
    }
    closedir(d);
}

int sig_threads_need_stacks(sig_threads *t)
{
    for (uint32_t i = 0; i < t->used; i++) {
        sig_slot *s = &t->eng->slots[i];
        uintptr_t hi = atomic_load(&s->hi), self = atomic_load(&s->seen_self);
        if (atomic_load(&s->state) == SLOT_ACTIVE &&
            ((hi == 0 && atomic_load(&s->seen_sp)) || (hi && self > atomic_load(&s->lo) && self < hi)))
            return 1;
    }
    return 0;
}

void sig_threads_find_stacks(sig_threads *t, sig_mapping_of find, void *ctx)
{
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->used; i++) {
        sig_slot *s = &t->eng->slots[i];
        uintptr_t sp = atomic_load_explicit(&s->seen_sp, memory_order_acquire), self, lo, hi;
        const pm_entry *m;
        pm_entry buf;
        if (atomic_load(&s->state) != SLOT_ACTIVE)
            continue;
        self = atomic_load(&s->seen_self);
        hi = atomic_load(&s->hi);
        if (hi && self > atomic_load(&s->lo) && self < hi) {
            /* found from a blocked thread's stack pointer: the thread's
             * descriptor, seen since, tops its stack */
            atomic_store_explicit(&s->hi, self, memory_order_release);
            continue;
        }
        if (hi || !sp)
            continue;
        m = find(ctx, sp, &buf);
        if (!m || (m->perms & (PM_READ | PM_WRITE)) != (PM_READ | PM_WRITE)) {
            atomic_store(&s->seen_sp, 0);       /* not on a stack we can read: ask again */
            continue;
        }
        lo = m->start;
        hi = m->end;
        if (self > sp && self < hi)
            hi = self;                          /* glibc's thread descriptor tops the stack */
        if (strcmp(m->path, "[stack]") == 0)
            lo = hi > GROWABLE_STACK_MAX ? hi - GROWABLE_STACK_MAX : 0;     /* it grows down */
        atomic_store(&s->lo, lo);
        atomic_store_explicit(&s->hi, hi, memory_order_release);
    }
    pthread_mutex_unlock(&t->lock);
}

void sig_threads_ending(sig_threads *t, uint32_t tid, uint64_t cpu)
{
    sig_slot *s;

    pthread_mutex_lock(&t->lock);
    if ((s = slot_for(t, tid)) != NULL && cpu)
        atomic_store(&s->cpu_final, cpu);
    pthread_mutex_unlock(&t->lock);
}

void sig_threads_stop_all(sig_threads *t)
{
    if (t->eng->page)
        t->eng->page->gate = 0;          /* the per-CPU clock sends no more (sig_engine_uninstall waits) */
    pthread_mutex_lock(&t->lock);
    t->stopped = 1;
    for (uint32_t i = 0; i < t->used; i++) {
        sig_slot *s = &t->eng->slots[i];
        if (atomic_load(&s->state) == SLOT_ACTIVE)
            retire(t, s, 0);
    }
    pthread_mutex_unlock(&t->lock);
}

void sig_threads_recycle(sig_threads *t, uint64_t now)
{
    pthread_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->used; i++) {
        sig_slot *s = &t->eng->slots[i];
        if (atomic_load(&s->state) == SLOT_RETIRED && now - s->retired_at > RECYCLE_AFTER_NS &&
            !sig_ring_peek(&s->ring)) {
            perf_close(s);
            atomic_store(&s->state, SLOT_FREE);
            t->reusable[t->nreusable++] = i;
        }
    }
    pthread_mutex_unlock(&t->lock);
}

uint64_t sig_slot_task_clock(const sig_slot *sl)
{
    uint64_t count = 0;

    if (!sl->has_perf || read(sl->perf_fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
        return 0;
    return count;
}

uint64_t sig_slot_cpu_used(sig_slot *sl, uint64_t sampled, uint64_t now_cpu, uint64_t task_clock)
{
    uint64_t used = 0, held = sampled - sl->sampled_base;

    if (now_cpu) {
        used = now_cpu > sl->cpu_last ? now_cpu - sl->cpu_last : 0;
        sl->cpu_last = now_cpu;
    } else if (task_clock > sl->task_clock_last) {
        used = task_clock - sl->task_clock_last;     /* (ended: what its event counted after the last tick) */
    }
    if (task_clock)
        sl->task_clock_last = task_clock;
    sl->cpu_counted += used;
    if (held > sl->cpu_counted) {
        used += held - sl->cpu_counted;
        sl->cpu_counted = held;
    }
    return used;
}
