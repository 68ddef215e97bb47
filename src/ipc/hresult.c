/* hresult.c - one sentence for each HRESULT that the runtime's diagnostics
 * server can answer a command with (its own errors, and those of loading a
 * profiler for attach), so that `attach` can say what went wrong. */
#include "ipc/ipc_internal.h"
#include "api/corprof.h"

const char *ipc_hresult_message(HRESULT hr)
{
    static _Thread_local char unknown[32];

    switch (hr) {
    case S_OK:
        return "success";
    case CORPROF_E_PROFILER_ALREADY_ACTIVE:
        return "a profiler is already active in the process (only one can be; detach it first)";
    case CORPROF_E_PROFILER_DETACHING:
        return "a profiler is still detaching from the process; try again in a few seconds";
    case CORPROF_E_PROFILER_NOT_ATTACHABLE:
        return "the agent cannot be attached (it lacks ICorProfilerCallback3, or its "
               "InitializeForAttach failed or is not implemented)";
    case CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC:
        return "timed out waiting for a background GC to finish; try again or give a longer timeout";
    case CORPROF_E_PROFILER_CANCEL_ACTIVATION:
        return "the agent refused to start (its reason, when it could give one, follows)";
    case CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER:
        return "the agent asked for events or features that an attached profiler cannot have";
    case CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE:
        return "GC events cannot be enabled after attach while background GC is on "
               "(start the target with DOTNET_gcConcurrent=0, or do not collect gc)";
    case CORPROF_E_RUNTIME_UNINITIALIZED:
    case CORPROF_E_NOT_YET_AVAILABLE:
        return "the runtime is not ready yet (still starting); try again";
    case CORPROF_E_CALLBACK3_REQUIRED:
        return "the agent does not implement ICorProfilerCallback3, which attaching needs";
    case CORPROF_E_IPC_FAILED:
        return "the runtime's attach machinery failed (IPC error inside the target)";
    case CORDIAGIPC_E_BAD_ENCODING:
        return "the runtime could not decode the request (bad encoding)";
    case CORDIAGIPC_E_UNKNOWN_COMMAND:
        return "the runtime does not support this command: too old (attach needs .NET 5 or newer)";
    case CORDIAGIPC_E_UNKNOWN_MAGIC:
        return "the runtime did not recognise the request (unknown protocol magic)";
    case CORDIAGIPC_E_UNKNOWN_ERROR:
        return "the runtime's diagnostics server failed with an unknown error";
    case IPC_E_NOTSUPPORTED:
        return "the runtime does not support this operation (profiler attach may be disabled in it)";
    case E_FAIL:
        return "the agent could not be loaded (dlopen or DllGetClassObject failed: wrong path, "
               "missing library or wrong architecture)";
    case E_INVALIDARG:
        return "the runtime rejected the request as invalid (bad argument, or not possible in its current state)";
    case E_OUTOFMEMORY:
        return "the target process is out of memory";
    case CLASS_E_CLASSNOTAVAILABLE:
        return "the agent library does not provide the requested profiler class (wrong library or CLSID)";
    case E_NOINTERFACE:
        return "the agent does not implement the profiler interfaces the runtime asked for";
    case E_NOTIMPL:
        return "the agent does not implement an operation the runtime needs (not implemented)";
    default:
        snprintf(unknown, sizeof(unknown), "HRESULT 0x%08X", (unsigned)hr);
        return unknown;
    }
}
