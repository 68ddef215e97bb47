/* cb_exceptions.c - the runtime's exception callbacks, handed to the
 * services that follow them: the exceptions service (each exception's
 * processing, exceptions.h), the method tracer (the traced frames an
 * exception unwinds, tracer.h) and the signal sampler (SIGPROF unblocked
 * after a hardware fault, sigsampler.h). */
#include "agent/core/callbacks.h"
#include "agent/exceptions/exc_machine.h"
#include "agent/exceptions/exceptions.h"
#include "agent/core/profiler.h"
#include "agent/core/attach.h"
#include "agent/sampling/sigsampler.h"
#include "agent/tracer/tracer.h"


static int following(profiler *p)
{
    return atomic_load(&p->recording) && (p->cfg.collect & CP_COLLECT_EXCEPTIONS);
}

HRESULT cb_ExceptionThrown(ICorProfilerCallback11 *This, ObjectID obj)
{
    profiler *p = profiler_from(This);

    sigsampler_exception_thrown(p);          /* first: SIGPROF may be blocked since a NullReferenceException */
    if (following(p))
        exceptions_thrown(p, obj);
    return S_OK;
}

HRESULT cb_ExceptionSearchFunctionEnter(ICorProfilerCallback11 *This, FunctionID fid)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_SEARCH_ENTER, fid);
    return S_OK;
}

HRESULT cb_ExceptionSearchFilterEnter(ICorProfilerCallback11 *This, FunctionID fid)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_FILTER_ENTER, fid);
    return S_OK;
}

HRESULT cb_ExceptionSearchFilterLeave(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_FILTER_LEAVE, 0);
    return S_OK;
}

HRESULT cb_ExceptionSearchCatcherFound(ICorProfilerCallback11 *This, FunctionID fid)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_CATCHER_FOUND, fid);
    return S_OK;
}

/* The frames an exception unwinds: also the method tracer's shadow stacks. */
HRESULT cb_ExceptionUnwindFunctionEnter(ICorProfilerCallback11 *This, FunctionID fid)
{
    profiler *p = profiler_from(This);
    tracer_unwind_enter(p, fid);
    if (following(p))
        exceptions_step(p, EXC_EV_UNWIND_ENTER, fid);
    return S_OK;
}

HRESULT cb_ExceptionUnwindFunctionLeave(ICorProfilerCallback11 *This)
{
    tracer_unwind_leave(profiler_from(This));
    return S_OK;
}

HRESULT cb_ExceptionUnwindFinallyEnter(ICorProfilerCallback11 *This, FunctionID fid)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_FINALLY_ENTER, fid);
    return S_OK;
}

HRESULT cb_ExceptionUnwindFinallyLeave(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_FINALLY_LEAVE, 0);
    return S_OK;
}

HRESULT cb_ExceptionCatcherEnter(ICorProfilerCallback11 *This, FunctionID fid, ObjectID obj)
{
    profiler *p = profiler_from(This);

    tracer_catcher_enter(p, fid);            /* traced calls above the catcher are over */
    if (following(p))
        attach_saw_module(p, exceptions_catcher_enter(p, fid, obj));
    return S_OK;
}

HRESULT cb_ExceptionCatcherLeave(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_CATCH_LEAVE, 0);
    return S_OK;
}
