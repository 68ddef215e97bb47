/* cb_exceptions.c - the exceptions service as the core sees it: its
 * descriptor, and the runtime's exception callbacks, which it alone sets.
 * Each callback first hands what it saw to the other services that follow
 * exceptions (service.h: the signal sampler unblocks SIGPROF after a
 * hardware fault; the method tracer closes the traced frames an exception
 * unwinds), then follows the exception itself (exceptions.h). */
#include "agent/core/service.h"
#include "agent/exceptions/exc_machine.h"
#include "agent/exceptions/exceptions.h"


static int following(profiler *p)
{
    return atomic_load(&p->recording) && (p->cfg.collect & CP_COLLECT_EXCEPTIONS);
}

static HRESULT cb_ExceptionThrown(ICorProfilerCallback11 *This, ObjectID obj)
{
    profiler *p = profiler_from(This);

    services_exception_thrown(p, obj);
    if (following(p))
        exceptions_thrown(p, obj);
    return S_OK;
}

static HRESULT cb_ExceptionSearchFunctionEnter(ICorProfilerCallback11 *This, FunctionID fid)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_SEARCH_ENTER, fid);
    return S_OK;
}

static HRESULT cb_ExceptionSearchFilterEnter(ICorProfilerCallback11 *This, FunctionID fid)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_FILTER_ENTER, fid);
    return S_OK;
}

static HRESULT cb_ExceptionSearchFilterLeave(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_FILTER_LEAVE, 0);
    return S_OK;
}

static HRESULT cb_ExceptionSearchCatcherFound(ICorProfilerCallback11 *This, FunctionID fid)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_CATCHER_FOUND, fid);
    return S_OK;
}

/* The frames an exception unwinds: also the method tracer's shadow stacks. */
static HRESULT cb_ExceptionUnwindFunctionEnter(ICorProfilerCallback11 *This, FunctionID fid)
{
    profiler *p = profiler_from(This);
    services_unwind_enter(p, fid);
    if (following(p))
        exceptions_step(p, EXC_EV_UNWIND_ENTER, fid);
    return S_OK;
}

static HRESULT cb_ExceptionUnwindFunctionLeave(ICorProfilerCallback11 *This)
{
    services_unwind_leave(profiler_from(This));
    return S_OK;
}

static HRESULT cb_ExceptionUnwindFinallyEnter(ICorProfilerCallback11 *This, FunctionID fid)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_FINALLY_ENTER, fid);
    return S_OK;
}

static HRESULT cb_ExceptionUnwindFinallyLeave(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_FINALLY_LEAVE, 0);
    return S_OK;
}

static HRESULT cb_ExceptionCatcherEnter(ICorProfilerCallback11 *This, FunctionID fid, ObjectID obj)
{
    profiler *p = profiler_from(This);

    services_catcher_enter(p, fid);          /* (traced calls above the catcher are over) */
    if (following(p))
        attach_saw_module(p, exceptions_catcher_enter(p, fid, obj));
    return S_OK;
}

static HRESULT cb_ExceptionCatcherLeave(ICorProfilerCallback11 *This)
{
    profiler *p = profiler_from(This);
    if (following(p))
        exceptions_step(p, EXC_EV_CATCH_LEAVE, 0);
    return S_OK;
}

static void exceptions_event_mask(const cp_config *cfg, int attach, DWORD *low, DWORD *high)
{
    if (cfg->collect & CP_COLLECT_EXCEPTIONS)   /* (their throw stacks: exceptions.h) */
        *low |= COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_ENABLE_STACK_SNAPSHOT;
}

static void exceptions_callbacks(ICorProfilerCallbackVtbl *v)
{
    v->ExceptionThrown = cb_ExceptionThrown;
    v->ExceptionSearchFunctionEnter = cb_ExceptionSearchFunctionEnter;
    v->ExceptionSearchFilterEnter = cb_ExceptionSearchFilterEnter;
    v->ExceptionSearchFilterLeave = cb_ExceptionSearchFilterLeave;
    v->ExceptionSearchCatcherFound = cb_ExceptionSearchCatcherFound;
    v->ExceptionUnwindFunctionEnter = cb_ExceptionUnwindFunctionEnter;
    v->ExceptionUnwindFunctionLeave = cb_ExceptionUnwindFunctionLeave;
    v->ExceptionUnwindFinallyEnter = cb_ExceptionUnwindFinallyEnter;
    v->ExceptionUnwindFinallyLeave = cb_ExceptionUnwindFinallyLeave;
    v->ExceptionCatcherEnter = cb_ExceptionCatcherEnter;
    v->ExceptionCatcherLeave = cb_ExceptionCatcherLeave;
}

const agent_service exceptions_service = {
    .name = "exceptions",
    .state_size = sizeof(exceptions_state),
    .event_mask = exceptions_event_mask,
    .callbacks = exceptions_callbacks,
    .when = AT_OPEN, .start = exceptions_start, .stop = exceptions_stop,
    .release = exceptions_free,
};
