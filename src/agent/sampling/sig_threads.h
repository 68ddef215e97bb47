/* sig_threads.h - which threads the signal sampler samples, and their
 * timers: every thread of the process that can take SIGPROF (managed
 * threads as the runtime assigns them to OS threads, and every other
 * thread, the runtime's native ones too, from /proc/self/task), each with a
 * slot of the engine (sig_engine.h) and a timer on its own CPU clock that
 * sends it SIGPROF after every period of CPU it uses.  Registration may
 * come from a callback (on the thread itself) or from the collector; the
 * collector also finds the stacks of threads registered from elsewhere,
 * and retires the slots of threads that ended.  Normal threads only (it
 * allocates and locks). */
#ifndef CLRPROBE_AGENT_SIG_THREADS_H
#define CLRPROBE_AGENT_SIG_THREADS_H

#include <pthread.h>
#include <stdint.h>

#include "agent/sampling/sig_engine.h"
#include "common/idmap.h"
#include "unwind/proc_maps.h"

#define SIG_SKIP_KEPT 16

typedef struct sig_threads {
    sig_engine *eng;
    pthread_mutex_t lock;        /* registration: callbacks and the collector */
    idmap by_tid;                /* OS thread id -> slot index + 1 */
    uint32_t used;               /* slots [0, used) have been given out once */
    uint32_t *reusable;          /* retired slots, oldest first, reused once quiet */
    size_t nreusable;
    uint64_t period_ns;
    int cpu_timers;              /* arm CPU timers (the CPU view) */
    int stopped;                 /* sig_threads_stop_all ran: no thread is registered any more */
    /* what could not be done, for the trace's notes (the collector reads them) */
    unsigned timer_failures, table_full, blocked;
    int timer_errno;
    unsigned perf_failures;      /* threads the perf clock could not sample: their CPU timer does */
    int perf_errno;              /* (0 with failures: its descriptor would come too near the limit) */
    unsigned perf_threads;       /* threads sampled by the perf clock, ever */
    uint64_t fd_limit;           /* the process's descriptor limit (RLIMIT_NOFILE), at init */
    /* threads a scan found blocking every signal (the agent's own among
     * them): not asked again (their status file read) before skip_until */
    uint32_t skip_tid[SIG_SKIP_KEPT];
    uint64_t skip_until[SIG_SKIP_KEPT];
} sig_threads;

int sig_threads_init(sig_threads *t, sig_engine *e, uint64_t period_ns, int cpu_timers);
void sig_threads_free(sig_threads *t);

/* Registers the thread tid (its ThreadID, or 0 if it has none or it is not
 * known) and arms its timer; on_thread: called on that very thread, whose
 * stack is then known at once.  A thread already registered only has its
 * ThreadID updated.  Returns its slot, or NULL (table full, timer refused,
 * the thread blocks SIGPROF). */
sig_slot *sig_threads_add(sig_threads *t, uint32_t tid, uint64_t managed, int on_thread);

/* The collector, every ~100 ms: retires the slots of threads that ended
 * (their CPU timer disarmed by the kernel, or the thread gone), then
 * registers the threads of /proc/self/task it does not know.  now:
 * CLOCK_MONOTONIC ns. */
void sig_threads_scan(sig_threads *t, uint64_t now);

/* Does any slot wait for its stack to be found? */
int sig_threads_need_stacks(sig_threads *t);

/* The mapping that holds addr (buf may be filled and returned), or NULL. */
typedef const pm_entry *(*sig_mapping_of)(void *ctx, uintptr_t addr, pm_entry *buf);

/* Finds the stacks of threads whose handler reported where it was, each
 * the mapping find gives for its stack pointer. */
void sig_threads_find_stacks(sig_threads *t, sig_mapping_of find, void *ctx);

/* Thread tid ends, having used cpu ns of CPU: the tick after counts its
 * CPU to there (its clock cannot be read once it is gone). */
void sig_threads_ending(sig_threads *t, uint32_t tid, uint64_t cpu);

/* Retires every slot (deletes every timer), and refuses registrations from
 * then on (a callback's, after the collector stopped on its own).  The
 * handler must stay installed until this has returned. */
void sig_threads_stop_all(sig_threads *t);

/* Slots retired long enough ago (quiet: no handler can still write to them,
 * and their rings drained) become reusable.  The collector calls it after
 * draining. */
void sig_threads_recycle(sig_threads *t, uint64_t now);

/* How many threads of the process have SIGPROF blocked without blocking
 * every signal (from /proc/self/task): threads inside, or just out of, the
 * runtime's SIGSEGV handler while SIGPROF is in its mask. */
unsigned sig_threads_count_blocking(void);

/* A tick's count of the slot's CPU (the sampler tick's thread_cpu_ns): what
 * its thread used since the last tick by its clock (now_cpu, read after
 * sampled, the slot's sampled_ns; 0: the thread has ended, its clock with
 * it); an ended thread's CPU after the last tick by what its perf event
 * counted (task_clock, the event's count now: sig_slot_task_clock; 0
 * without one); and, once its samples hold more CPU over the thread's life
 * than was counted (an ended thread's last samples, without a perf event),
 * that too.  Counted over the thread's life, never tick by tick: a sample
 * holds the CPU since the thread's previous one, some of it in the tick
 * before.  Without the ended threads' last CPU, 50 threads that each end
 * a part of a period after their last tick made the rate read 8% high. */
/* tid's slot; a thread met for the first time is registered (one that
 * cannot be, as a scan finds it, is left alone for a while): NULL then. */
sig_slot *sig_threads_met(sig_threads *t, uint32_t tid, uint64_t now);
uint64_t sig_slot_cpu_used(sig_slot *sl, uint64_t sampled, uint64_t now_cpu, uint64_t task_clock);

/* The count of the slot's perf event (its thread's task clock while the
 * event was enabled, the thread ended or not), 0 without one. */
uint64_t sig_slot_task_clock(const sig_slot *sl);

#endif
