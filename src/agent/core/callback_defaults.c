/* callback_defaults.c - a do-nothing implementation of every
 * ICorProfilerCallback..Callback11 method, each with its exact signature, so
 * that the vtable has no empty slot.  callbacks_fill_defaults() copies them
 * into a vtable; com_object.c then overrides the methods the core and the
 * services implement.  The stubs return S_OK; those with out-parameters give the neutral answer
 * (use the cached code, allow inlining, not a notification-only profiler);
 * InitializeForAttach's refuses the attach (CORPROF_E_PROFILER_NOT_ATTACHABLE).
 * Both the stubs and the filling are made by the preprocessor from the list
 * of methods in src/api/corprof_callbacks.def, the list the vtable itself
 * (ICorProfilerCallbackVtbl in src/api/corprof.h) is made from. */
#include "agent/core/callbacks.h"

/* static HRESULT default_NAME(PARAMETERS) { [if (out) *out = neutral;] return S_OK or hr; } */
#define CORPROF_CALLBACK(slot, name, ret, params) \
    static ret default_##name params            \
    {                                           \
        return S_OK;                            \
    }
#define CORPROF_CALLBACK_OUT(slot, name, ret, params, out, neutral) \
    static ret default_##name params                                \
    {                                                               \
        if (out)                                                    \
            *out = neutral;                                         \
        return S_OK;                                                \
    }
#define CORPROF_CALLBACK_HR(slot, name, ret, params, hr) \
    static ret default_##name params                     \
    {                                                    \
        return hr;                                       \
    }
#include "api/corprof_callbacks.def"

void callbacks_fill_defaults(ICorProfilerCallbackVtbl *v)
{
#define CORPROF_CALLBACK(slot, name, ret, params) v->name = default_##name;
#include "api/corprof_callbacks.def"
}
