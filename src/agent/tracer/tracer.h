/* tracer.h - the method tracer (--trace, docs/tracing.md): exact call
 * counts and latencies of the methods the patterns name.  At launch,
 * inside Initialize, tracer_install gives the runtime a FunctionIDMapper2
 * that asks for enter/leave hooks on the matching methods only (the
 * others are compiled without them and cost nothing) and the hooks of
 * tracer_hooks.h.  The tracer service (service_list.h) is a thread of
 * the agent's own that writes each thread's figures out as method_stats
 * records every second and at the end, the logged calls as call records
 * (--trace-calls), and frees the tables of threads that exited.
 *
 * The runtime inlines small methods, hooks or not: the tracer answers
 * JITInlining so that a method a pattern matches is never inlined (only
 * those: the others are inlined as ever).
 *
 * Hooks make an agent impossible to detach; that is fine at launch, where
 * it is never unloaded.  With COR_PRF_MONITOR_ENTERLEAVE on, the runtime
 * uses no precompiled (ReadyToRun) code at all (the flag is in
 * COR_PRF_REQUIRE_PROFILE_IMAGE: measured, 0 precompiled methods against
 * 328 in the same run without --trace), so every method is JIT-compiled
 * and framework methods can be traced too; startup costs more.  Should a
 * runtime use precompiled code a pattern matches all the same, the method
 * is recorded untraced with the reason (traced_method, TRACE_HOW_NONE) and
 * stays so even when the runtime compiles it later (a partial count would
 * mislead).
 */
#ifndef CLRPROBE_AGENT_TRACER_H
#define CLRPROBE_AGENT_TRACER_H

#include "api/corprof.h"

typedef struct profiler profiler;

typedef struct tracer_state {
    struct tracer *t;             /* NULL without --trace; never freed once hooks are in */
} tracer_state;

/* In Initialize (launch), after the event mask: the mapper and the hooks.
 * Does nothing without --trace.  0, or -1 with a note in why (the agent
 * goes on without tracing). */
int tracer_install(profiler *p, char *why, size_t why_len);

/* After an attach (InitializeForAttach): the state, without hooks (the
 * IL probes of tracer_rejit.h count instead).  0, or -1 with why. */
int tracer_create_for_attach(profiler *p, char *why, size_t why_len);

/* For tracer_rejit.c: is name matched (the pattern's 1-based index, or 0)?
 * A method traced by IL probes: its record for the probes (the traced_method
 * record written), or NULL.  A method that cannot be: a traced_method
 * record saying why (m may be NULL). */
int tracer_matches(profiler *p, const char *name);
struct tr_method *tracer_add_il_method(profiler *p, ModuleID module, int pattern, const char *name);
void tracer_method_refused(profiler *p, const struct tr_method *m, ModuleID module, const char *name,
                           const char *why);

/* The event mask the tracer needs (its descriptor's event_mask). */
#define TRACER_EVENT_MASK (COR_PRF_MONITOR_ENTERLEAVE | COR_PRF_MONITOR_EXCEPTIONS | \
                           COR_PRF_MONITOR_CACHE_SEARCHES | COR_PRF_MONITOR_JIT_COMPILATION)

/* The service: its thread.  0, or -1. */
int tracer_start(profiler *p);
/* Stops the hooks' counting, writes every thread's figures out, joins the
 * thread.  Safe when it never started. */
void tracer_stop(profiler *p);

/* From the callbacks. */
void tracer_unwind_enter(profiler *p, FunctionID fid);
void tracer_unwind_leave(profiler *p);
void tracer_catcher_enter(profiler *p, FunctionID fid);
/* JITInlining: may callee be inlined into a caller?  Not when a pattern
 * matches it: its inlined copies would run without the hooks (measured:
 * a tiny method counted 20,000 times of 1,500,000 once its callers were
 * recompiled with it inlined). */
int tracer_may_inline(profiler *p, FunctionID callee);
/* Precompiled code of fid (named name, in module) is used. */
void tracer_precompiled(profiler *p, FunctionID fid, const char *name, ModuleID module);

#endif
