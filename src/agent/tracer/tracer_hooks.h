/* tracer_hooks.h - the method tracer's hot path (--trace at launch): the
 * runtime's enter/leave/tailcall hooks call the assembly trampolines of
 * tracer_trampolines.S, which keep every register the JIT expects to survive and
 * call tr_hook_enter / tr_hook_leave here.  Each thread has its own table
 * (tr_thread): a shadow stack of the traced calls under way, the counts,
 * times and latency histogram of each traced method it called, and a ring
 * of single calls for --trace-calls.  The hooks take no lock and call
 * nothing of the runtime; a thread's table is allocated at its first
 * traced call (the one malloc), and read, racily but word by word, by the
 * tracer's thread (tracer.c), which writes it out and frees it once the
 * thread has exited.
 *
 * Exceptions: the leave hook is not called for a frame an exception
 * unwinds; ExceptionUnwindFunctionEnter marks the traced frame on top (if
 * it is that function's), ExceptionUnwindFunctionLeave pops it, counted as
 * left by an exception.  ExceptionCatcherEnter pops any traced frame above
 * the catching one that was missed.  A thread that dies in a call leaves
 * it uncounted. */
#ifndef CLRPROBE_AGENT_TRACER_HOOKS_H
#define CLRPROBE_AGENT_TRACER_HOOKS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "api/corprof.h"

#define TR_STACK_MAX 256          /* traced calls under way on a thread; deeper ones are counted, not timed */
#define TR_CHUNK 64               /* a thread's stats are in chunks of this many methods */
#define TR_CHUNKS 512             /* so at most TR_CHUNK x TR_CHUNKS = 32768 traced methods */
#define TR_METHODS_MAX (TR_CHUNK * TR_CHUNKS)
#define TR_RING 8192              /* a thread's logged calls between two drains (--trace-calls) */

typedef struct tr_shared tr_shared;

/* A traced method: what the runtime hands the hooks (its client ID). */
typedef struct tr_method {
    tr_shared *sh;
    FunctionID fid;               /* hooks: its FunctionID; IL probes: the tr_method's own address (the
                                     same code serves every instantiation) */
    uint32_t index;               /* 0, 1, ... in the order they were met */
} tr_method;

/* The clock of the hooks: the TSC when the kernel trusts it (its clock
 * source is tsc), converted to ns by mult / 2^32; else CLOCK_MONOTONIC. */
typedef struct tr_clock {
    int tsc;
    uint64_t mult;                /* ns per tick, times 2^32 */
    uint64_t base_ticks, base_ns; /* one reading of both, to place ticks in CLOCK_MONOTONIC */
} tr_clock;

/* One thread's figures for one method.  Written by the thread, read by the
 * tracer's thread (relaxed atomics: each word whole, the set slightly
 * inconsistent at worst until the next write-out). */
typedef struct tr_stat {
    uint64_t calls, exceptions, total_ns, self_ns, max_ns;
    uint32_t *hist;               /* LH_BUCKETS counts (common/latency_hist.h), from the first call */
    uint64_t written;             /* (tracer's thread) calls when it last wrote this pair out */
} tr_stat;

typedef struct tr_frame {
    const tr_method *m;
    uint64_t t0;                  /* ticks at entry */
    uint64_t child_ns;            /* time in traced callees */
    int unwinding;                /* an exception is unwinding this frame */
} tr_frame;

typedef struct tr_call {          /* --trace-calls: one call */
    uint64_t start_ns;            /* CLOCK_MONOTONIC */
    uint64_t duration_ns;
    uint32_t index;               /* tr_method.index */
    uint16_t depth;
    uint16_t flags;               /* CALL_FLAG_* */
} tr_call;

typedef struct tr_thread {
    struct tr_thread *next;       /* the tracer's list (under its lock) */
    tr_shared *sh;
    uint32_t os_tid;
    atomic_int dead;              /* the thread exited: write out, then free */
    int depth, over;              /* frames on the stack; calls deeper than TR_STACK_MAX under way */
    tr_frame stack[TR_STACK_MAX];
    _Atomic(tr_stat *) chunk[TR_CHUNKS];
    tr_call *ring;                /* TR_RING entries (--trace-calls), else NULL */
    atomic_uint ring_head, ring_tail;   /* written by the thread / by the tracer's thread */
} tr_thread;

/* The state the hooks share with tracer.c. */
struct tr_shared {
    atomic_int active;            /* 0: the hooks return at once */
    tr_clock clock;
    pthread_key_t key;            /* the thread's tr_thread; its destructor marks it dead */
    pthread_mutex_t lock;         /* the list of tables */
    tr_thread *threads;
    int log_calls;                /* --trace-calls: a ring per thread */
    atomic_long calls_left;       /* calls still to log */
    atomic_ulong calls_dropped;   /* logged calls lost to a full ring */
    atomic_ulong tables_failed;   /* threads whose table could not be allocated (not traced) */
    atomic_ulong hists_failed;    /* histograms that could not be allocated (counts kept) */
};

/* Sets up the clock (a 10 ms calibration of the TSC) and the key.  0 or -1. */
int tr_shared_init(tr_shared *s, int log_calls, long calls_max);

/* The trampolines (tracer_trampolines.S), given to SetEnterLeaveFunctionHooks3. */
void tr_enter_trampoline(FunctionIDOrClientID id);
void tr_leave_trampoline(FunctionIDOrClientID id);
void tr_tailcall_trampoline(FunctionIDOrClientID id);

/* What they call, with the client ID (a tr_method *); the IL probes call
 * them too (an unmanaged calli with the tr_method's address), and
 * tr_hook_thrown from the fault handler: the call ends by an exception. */
void tr_hook_enter(const tr_method *m);
void tr_hook_leave(const tr_method *m);
void tr_hook_thrown(const tr_method *m);

/* Exception callbacks on the unwinding thread (see the top of this file). */
void tr_unwind_enter(tr_shared *s, FunctionID fid);
void tr_unwind_leave(tr_shared *s);
void tr_catcher_enter(tr_shared *s, FunctionID fid);

/* ticks -> CLOCK_MONOTONIC ns. */
uint64_t tr_clock_ns(const tr_clock *c, uint64_t ticks);

#endif
