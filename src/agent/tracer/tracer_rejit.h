/* tracer_rejit.h - method tracing after an attach (--trace with clrprobe
 * attach, docs/tracing.md): the matching methods' IL is rewritten with
 * probes (il_rewrite.h) through ReJIT.  A service of the session, after
 * the tracer (tracer.h, whose figures the probes fill): its thread finds
 * the methods of every loaded module that a pattern matches (by their
 * metadata: compiled or not, generic or not) and asks the runtime to
 * compile them again (RequestReJITWithInliners, so that callers that had
 * inlined them are compiled again too); then it does the same for each
 * module loaded later.  The runtime calls GetReJITParameters, on the first
 * thread to call such a method, for its new IL: the original with the
 * probes.  Stopping asks the runtime to go back to the original code
 * (RequestRevert).
 *
 * A profiler that used ReJIT can never be unloaded (the runtime refuses the
 * detach): after the revert the agent stops recording and stays loaded,
 * quiet (docs/tracing.md says what remains). */
#ifndef CLRPROBE_AGENT_TRACER_REJIT_H
#define CLRPROBE_AGENT_TRACER_REJIT_H

#include <pthread.h>
#include <stdatomic.h>

#include "api/corprof.h"

typedef struct profiler profiler;

typedef struct rejit_state {
    struct rejit *r;              /* NULL unless attached with --trace */
} rejit_state;

/* The event mask it needs after an attach. */
#define REJIT_EVENT_MASK (COR_PRF_ENABLE_REJIT | COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_MODULE_LOADS)

/* The service.  0, or -1. */
int rejit_start(profiler *p);
void rejit_stop(profiler *p);

/* Callbacks. */
void rejit_module_loaded(profiler *p, ModuleID module);
HRESULT rejit_parameters(profiler *p, ModuleID module, mdMethodDef method, ICorProfilerFunctionControl *control);
void rejit_error(profiler *p, ModuleID module, mdMethodDef method, HRESULT hr);

#endif
