/* sig_engine.h - the signal sampler's in-process machinery: the table of
 * sampled threads (a slot each: its timer, its stack's bounds, its ring),
 * the SIGPROF handler that takes a sample on the thread it interrupts, and
 * installing and removing that handler safely.  The signal is the
 * process's, so there is one engine per process at a time (an instance of
 * the agent owns it while its sampler runs: sig_engine_install).
 *
 * The CPU timers' periods are drawn at random around the asked one (the
 * handler re-arms the timer after each sample: [period/2, 3 period/2),
 * period on average), and each CPU sample carries the thread's CPU time
 * since its previous one, read from the thread's own clock: the kernel
 * checks CPU timers at its scheduler tick, so fixed periods would sample
 * a program that alternates on a timer of its own at the same phase every
 * time (aliasing); drawn periods spread the samples over every phase, and
 * the measured CPU keeps the totals exact whatever the tick.
 *
 * The handler (docs/sampling.md, "How the signal engine works"): takes only samples our
 * timers and our collector sent (SI_TIMER, or SI_QUEUE from this process,
 * with a value naming a slot and its generation), our perf events (POLL_*,
 * the event's descriptor naming the slot) and, once the command's per-CPU
 * clock was used, SI_KERNEL for a thread it samples (found by its id:
 * sig_engine_tid_put); it saves and restores errno,
 * calls nothing but the clock and the walk (stack_walk.h) over the code
 * map it is given, reads the stack only inside the slot's bounds, and
 * writes only into the slot's ring.  No allocation, no lock.
 *
 * CoreCLR runs its SIGSEGV handler (NullReferenceException) on a small
 * alternate stack; another signal delivered there does not fit and the
 * kernel kills the process (docs/sampling.md, "NullReferenceException").  So the engine adds SIGPROF
 * to that handler's mask: SIGPROF waits until the runtime leaves it.  The
 * runtime then unblocks SIGSEGV itself but not SIGPROF, so the agent's
 * ExceptionThrown callback, which follows on the same thread, unblocks it
 * (sig_engine_thread_unblock). */
#ifndef CLRPROBE_AGENT_SIG_ENGINE_H
#define CLRPROBE_AGENT_SIG_ENGINE_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "agent/sampling/sig_ring.h"
#include "common/cpu_clock_page.h"
#include "unwind/code_map.h"

#define SIG_SAMPLER_SIGNAL SIGPROF
#define SIG_MAX_FRAMES 256        /* deeper stacks are cut (the root side is lost) */
#define SIG_RING_WORDS 2048       /* 16 KiB per sampled thread: ~5 samples a drain at most, room for 8 of 256 frames */

/* What a sample is (sig_entry.flags, and the trace's sample flags). */
#define SIG_SAMPLE_CPU 0x1u       /* the thread's CPU timer: it used cpu_ns of CPU since its previous one */
#define SIG_SAMPLE_WALL 0x2u      /* the collector's wall-clock tick */
#define SIG_SAMPLE_WAITING 0x4u   /* (wall) the thread was in a blocking system call */
#define SIG_SAMPLE_NO_STACK 0x8u  /* the thread's stack bounds were not known yet: the pc only */

enum sig_slot_state { SLOT_FREE = 0, SLOT_ACTIVE, SLOT_RETIRED };

typedef struct sig_slot {
    _Atomic uint32_t gen;         /* given anew to each thread: signals for an earlier one are ignored */
    _Atomic int state;            /* enum sig_slot_state */
    uint32_t tid;
    _Atomic uint64_t managed;     /* its ThreadID (0: a native thread, or not known yet) */
    /* the stack: reads stay in [sp, hi), and only when lo <= sp < hi */
    _Atomic uintptr_t lo, hi;     /* 0: not known yet (the handler then leaves seen_sp, seen_self) */
    _Atomic uintptr_t seen_sp, seen_self;
    sig_ring ring;
    /* the handler's, for CPU samples (set up before the timer is armed) */
    uint64_t cpu_at;              /* the thread's CPU time at its previous CPU sample (or when armed) */
    uint64_t armed;               /* the timer's last it_value: a sample later than that was late by the rest */
    uint64_t random;              /* xorshift state: each next period drawn in [period/2, 3 period/2) */
    /* the collector's (the handler reads timer, perf_fd) */
    long timer;                   /* the kernel's timer id */
    int has_timer;
    int timer_watch_only;         /* (perf clock) the timer never fires: it only tells the thread ended */
    int perf_fd;                  /* the perf event on its task clock that signals it (has_perf) */
    _Atomic uint64_t cpu_signals; /* (counted by the handler) CPU samples it took, for the per-CPU clock's rate */
    int has_perf;
    uint64_t retired_at;          /* when it was retired (reused a while after) */
    uint64_t cpu_last;            /* the thread's CPU time at the last tick */
    _Atomic uint64_t cpu_final;   /* its CPU time as it ended (sig_threads_ending), or 0 */
    uint64_t sampled_base;        /* sampled_ns when the thread took the slot */
    uint64_t cpu_counted;         /* its CPU counted in the ticks since then (thread_cpu_ns) */
    uint64_t task_clock_last;     /* its perf event's count at the last tick */
    int named;                    /* its thread_os record was written */
    /* counted by the handler */
    _Atomic uint64_t signals, dropped, handler_ns;
    _Atomic uint64_t sampled_ns;  /* the CPU samples' cpu_ns, added up */
} sig_slot;

typedef struct sig_engine {
    sig_slot *slots;
    uint32_t nslots;
    pid_t pid;
    uint64_t period_ns;           /* the CPU sampling period (each one is drawn around it) */
    _Atomic(code_map *) map;      /* what the handler walks with (a snapshot: code_map.h) */
    const uint64_t *unloads;      /* the runtime's unload count (catchup.h: read atomically), or NULL */
    const _Atomic uint64_t *dynamic_unloads;   /* its dynamic methods' (profiler.h), or NULL */
    _Atomic int in_handler;       /* handlers running now */
    /* The perf clock (sig_clock.h): each thread's signals come from a perf
     * event on its task clock (sig_threads.c), which names itself only by
     * its descriptor (si_fd): perf_cookie[fd] is the slot's cookie, 0 when
     * the descriptor is none of ours (fds at or past perf_nfds are not used). */
    int perf;
    int perf_user_only;           /* events of user time only (exclude_kernel): all the process may open */
    _Atomic uint64_t *perf_cookie;
    uint32_t perf_nfds;
    /* The per-CPU clock (sig_clock.h): the clrprobe command's BPF program
     * sends SIGPROF (si_code SI_KERNEL, nothing else in it) to the thread of
     * the process that runs at each tick of a per-CPU event, while the
     * page's gate is open (common/cpu_clock_page.h); the handler finds the
     * thread's slot by its id in tids (sig_engine_tid_put). */
    int percpu;
    int kstack;                   /* the stack engine: the program takes user-code stacks itself and
                                     signals a thread only in the kernel; every CPU sample, the
                                     handler's too, holds one period (the page's) */
    volatile cp_clock_page *page;
    _Atomic uint64_t *tids;       /* open addressing: tid << 32 | (slot index + 1); 0 empty */
    uint32_t tids_mask;           /* its size - 1 (a power of two) */
    uint32_t tids_used, tids_dead;  /* (the writers': under sig_threads' lock) */
} sig_engine;

/* A thread's first period (the shortest: SIG_PERIOD_MIN_NS), drawn with
 * *random: where a thread joins the renewal process of its samples (periods
 * drawn uniformly in [P/2, 3P/2)) at a random point, as if it had been
 * running forever.  Counting from a fresh period instead would give each
 * thread about half a sample fewer than its CPU over P (a thread that uses
 * less than a period, as most of a runtime's do, would never be sampled):
 * the samples per CPU-second would fall short by that much a thread. */
#define SIG_PERIOD_MIN_NS 10000u
uint64_t sig_first_period(uint64_t period_ns, uint64_t *random);

/* The value a slot's signals carry (sigev_value / si_value). */
uint64_t sig_slot_cookie(const sig_engine *e, const sig_slot *s);

/* The perf clock's signals were asked for once in this process (sig_threads.c,
 * before its first event is armed): from then on a SIGPROF with a POLL_* code
 * is ours (one of a retired event is dropped, never handed to the program). */
void sig_engine_perf_used(void);

/* The per-CPU clock's signals were asked for once in this process: from
 * then on a SIGPROF with SI_KERNEL is ours (one after the gate closed is
 * dropped).  Sets up e's thread table (2 * nslots entries): 0, or -1. */
int sig_engine_percpu_used(sig_engine *e);

/* The thread table of the per-CPU clock: tid's slot is index (put), or none
 * (del).  Writers are serialized by the caller; the handler reads without a
 * lock and checks what it finds (the slot's tid, state and generation). */
void sig_engine_tid_put(sig_engine *e, uint32_t tid, uint32_t index);
void sig_engine_tid_del(sig_engine *e, uint32_t tid);

/* Installs the handler for e (process-wide), after checking that nobody
 * else handles SIGPROF, and adds SIGPROF to the runtime's SIGSEGV handler's
 * mask.  0, or -1 with a reason in why (another handler, another engine). */
int sig_engine_install(sig_engine *e, char *why, size_t why_len);

/* Is our handler still the one installed (nobody replaced it)? */
int sig_engine_installed(void);

/* No handler is running right now: a code map replaced before this moment
 * can no longer be read by any handler. */
int sig_engine_quiet(void);

/* Puts SIGPROF back as it was (ignoring it first, so a signal still pending
 * from a deleted timer is discarded, not fatal), takes SIGPROF out of the
 * SIGSEGV handler's mask if we put it there, and waits until no handler
 * runs.  Every timer must have been deleted before.  unloading: the library
 * may be unloaded next (a detach): wait 20 ms more, for a thread that was
 * about to enter the handler (one that enters later finds no engine and
 * leaves at once, but its code must still be there).  exiting: the runtime
 * is shutting down, and the process with it: SIGPROF stays ignored where
 * it was not handled before (no per-CPU tick's late signal can then end
 * the process, and its exit waits for no grace). */
void sig_engine_uninstall(sig_engine *e, int unloading, int exiting);

/* Unblocks SIGPROF on the calling thread (after the runtime's SIGSEGV
 * handler left it blocked): one system call.  It goes on doing so after
 * the uninstall, once the engine ever put SIGPROF in that mask: a thread
 * that was in the runtime's handler then leaves it with SIGPROF blocked,
 * and must not keep it so after a detach. */
void sig_engine_thread_unblock(void);

#endif
