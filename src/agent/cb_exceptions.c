/* cb_exceptions.c - exceptions thrown (their type) and the function whose
 * catch clause runs; the frames they unwind, for the method tracer. */
#include "agent/callbacks.h"
#include "agent/names.h"
#include "agent/profiler.h"
#include "agent/sigsampler.h"
#include "agent/tracer.h"

#include <stdio.h>
#include <string.h>

static void exception_type(profiler *p, ObjectID obj, char *buf, size_t cap, ClassID *cls)
{
    *cls = 0;
    if (obj && SUCCEEDED(INFO(p)->GetClassFromObject(p->info, obj, cls)) && *cls)
        names_class(p->names, *cls, buf, cap, NULL);
    else
        snprintf(buf, cap, "?");
}

HRESULT cb_ExceptionThrown(ICorProfilerCallback11 *This, ObjectID obj)
{
    profiler *p = profiler_from(This);
    char type[1024];
    ClassID cls;
    emit e;

    sigsampler_exception_thrown(p);          /* first: SIGPROF may be blocked since a NullReferenceException */
    if (!atomic_load(&p->recording) || !(p->cfg.collect & CP_COLLECT_EXCEPTIONS))
        return S_OK;
    exception_type(p, obj, type, sizeof(type), &cls);
    if (emit_begin(p, &e, TK_EXCEPTION_THROWN)) {
        rec_exception_thrown_put(&e.r, &(rec_exception_thrown){ .class_id = cls, .type = type });
        emit_end(&e);
    }
    return S_OK;
}

HRESULT cb_ExceptionCatcherEnter(ICorProfilerCallback11 *This, FunctionID fid, ObjectID obj)
{
    profiler *p = profiler_from(This);
    char type[1024], function[1024];
    ClassID cls;
    ModuleID module;
    emit e;

    tracer_catcher_enter(p, fid);            /* traced calls above the catcher are over */
    if (!atomic_load(&p->recording) || !(p->cfg.collect & CP_COLLECT_EXCEPTIONS))
        return S_OK;
    exception_type(p, obj, type, sizeof(type), &cls);
    names_function(p->names, fid, function, sizeof(function), &module);
    attach_saw_module(p, module);
    if (emit_begin(p, &e, TK_EXCEPTION_CATCH)) {
        rec_exception_catch_put(&e.r, &(rec_exception_catch){ .function = fid, .type = type,
                                                              .function_name = function });
        emit_end(&e);
    }
    return S_OK;
}

/* The frames an exception unwinds: the method tracer's shadow stacks. */
HRESULT cb_ExceptionUnwindFunctionEnter(ICorProfilerCallback11 *This, FunctionID fid)
{
    tracer_unwind_enter(profiler_from(This), fid);
    return S_OK;
}

HRESULT cb_ExceptionUnwindFunctionLeave(ICorProfilerCallback11 *This)
{
    tracer_unwind_leave(profiler_from(This));
    return S_OK;
}
