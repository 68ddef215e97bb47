/* sampler.h - the sampler service, CPU sampling: a thread of the agent's
 * own that, on each tick, suspends the runtime, takes a stack snapshot of
 * every managed thread, resumes, and only then writes the samples (and the
 * names of functions seen for the first time) to the trace.  Works at
 * launch and after attach.  Started and stopped by the session
 * (session.c), which serializes the two. */
#ifndef CLRPROBE_AGENT_SAMPLER_H
#define CLRPROBE_AGENT_SAMPLER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct profiler profiler;

/* The sampler's state in a profiler instance: the running sampler (its
 * fields are sampler.c's business), NULL when off. */
typedef struct sampler_state {
    struct sampler *running;         /* the suspend engine */
    struct sigsampler *signal;       /* the signal engine (sigsampler.h), under signal_lock: the
                                        callbacks that reach it hold the lock, so it is not freed
                                        under them */
    pthread_mutex_t signal_lock;     /* (initialized with the instance: sampler_init) */
} sampler_state;

/* Starts sampling at p->cfg.rate Hz if the configuration collects cpu,
 * with the engine it names: the signal engine (sigsampler.h), or this
 * file's suspend engine, which also stands in when the signal engine
 * cannot run (a note in the trace says why, and when the runtime cannot
 * sample at all).  The trace's sampler_start says which engine and clock
 * sample, and why.  0, or -1 (nothing started). */
int sampler_start(profiler *p);

/* Stops and joins the sampler thread, frees its memory.  Safe to call when
 * it never started or was already stopped. */
void sampler_stop(profiler *p);

/* The return addresses of the frames a stack walk passed over between a
 * reported callee (stack pointer sp, frame pointer fp) and the caller it
 * reported next (stack pointer caller_sp, at caller_ip), read along the
 * frame-pointer chain, innermost first, into out (at most max).  Reads
 * only [sp, caller_sp) of a stopped stack, when caller_sp is above sp by at
 * most 1 MiB; no allocation, no lock, no call.  (Used by the sampler while
 * the runtime is suspended; declared here for the unit tests.) */
size_t sampler_skipped_between(uintptr_t sp, uintptr_t fp, uintptr_t caller_sp, uintptr_t caller_ip,
                               uintptr_t *out, size_t max);

#endif
