/* sigsampler.h - the signal sampling engine (`--sampler signal`): every
 * thread of the process gets SIGPROF from a timer on its own CPU clock, after
 * each period of CPU it uses, and the handler records where the thread is
 * (its native and managed frames: stack_walk.h) into the thread's ring; a
 * collector thread of the agent's own drains the rings every few
 * milliseconds, names the frames (sig_resolve.h) and writes the samples to
 * the trace, in the same records as the suspend engine (sampler.h), with
 * their kind in the sample's flags.  With --collect wall it also signals
 * every thread at the rate for the wall view.  No thread is ever stopped
 * for a sample but for the handler's few microseconds, and no safe point
 * is needed.  Started and stopped through the sampler service
 * (sampler_start, sampler_stop), which chooses the engine. */
#ifndef CLRPROBE_AGENT_SIGSAMPLER_H
#define CLRPROBE_AGENT_SIGSAMPLER_H

#include "agent/sampling/sig_clock.h"

#include <stdint.h>

typedef struct profiler profiler;

/* Starts the engine (the collector thread), with the clock sig_clock.h
 * chooses, which *clock tells (for the trace's sampler_start).  0; 1 when
 * it cannot sample with signals here (clock->why says why, and a note: the
 * caller falls back to the suspend engine); -1 (out of memory or
 * threads). */
int sigsampler_start(profiler *p, sig_clock_choice *clock);

/* Stops it: deletes every timer, puts SIGPROF back, drains what was
 * sampled, joins the collector.  Safe when not started. */
void sigsampler_stop(profiler *p);

/* The callbacks' part: a managed thread now runs on OS thread tid (called
 * on that thread at launch): sample it from now on. */
void sigsampler_thread_assigned(profiler *p, uint64_t managed, uint32_t tid);

/* ThreadDestroyed, on the managed thread that ends: its CPU to this
 * moment, for the tick that follows (the thread is gone by then, and the
 * per-CPU clock has no event of its own to read that from).  Only when
 * called on that thread: the runtime destroys a thread that left it
 * without ending on its finalizer thread. */
void sigsampler_thread_ending(profiler *p, uint64_t managed);

/* ModuleUnloadStarted (a collectible assembly's module): the samples taken
 * so far are named now, while the module's code and FunctionIDs still
 * exist (the collector drains every ring; the callback waits for it, at
 * most 200 ms). */
void sigsampler_before_unload(profiler *p);

/* ExceptionThrown, on the throwing thread: the runtime's SIGSEGV handler
 * (a NullReferenceException) leaves SIGPROF blocked (sig_engine.h):
 * unblock it. */
void sigsampler_exception_thrown(profiler *p);

#endif
