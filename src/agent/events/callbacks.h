/* callbacks.h - the runtime's events every trace may hold: the callbacks
 * of this folder (app domains, assemblies, modules and classes in
 * cb_loader.c; JIT compilations and precompiled code in cb_jit.c; managed
 * threads in cb_threads.c; GCs and runtime suspensions in cb_gc.c), set in
 * the vtable by the events service (events.c). */
#ifndef CLRPROBE_AGENT_EVENTS_CALLBACKS_H
#define CLRPROBE_AGENT_EVENTS_CALLBACKS_H

#include "api/corprof.h"

/* cb_loader.c */
HRESULT cb_AppDomainCreationFinished(ICorProfilerCallback11 *This, AppDomainID id, HRESULT hr);
HRESULT cb_AppDomainShutdownStarted(ICorProfilerCallback11 *This, AppDomainID id);
HRESULT cb_AssemblyLoadFinished(ICorProfilerCallback11 *This, AssemblyID id, HRESULT hr);
HRESULT cb_AssemblyUnloadStarted(ICorProfilerCallback11 *This, AssemblyID id);
HRESULT cb_ModuleLoadFinished(ICorProfilerCallback11 *This, ModuleID id, HRESULT hr);
HRESULT cb_ModuleUnloadStarted(ICorProfilerCallback11 *This, ModuleID id);
HRESULT cb_DynamicMethodUnloaded(ICorProfilerCallback11 *This, FunctionID id);
HRESULT cb_ClassLoadFinished(ICorProfilerCallback11 *This, ClassID id, HRESULT hr);
HRESULT cb_ClassUnloadStarted(ICorProfilerCallback11 *This, ClassID id);

/* cb_jit.c */
HRESULT cb_JITCompilationStarted(ICorProfilerCallback11 *This, FunctionID fid, BOOL safe);
HRESULT cb_JITCompilationFinished(ICorProfilerCallback11 *This, FunctionID fid, HRESULT hr, BOOL safe);
HRESULT cb_JITCachedFunctionSearchStarted(ICorProfilerCallback11 *This, FunctionID fid, BOOL *use);
HRESULT cb_JITCachedFunctionSearchFinished(ICorProfilerCallback11 *This, FunctionID fid,
                                           COR_PRF_JIT_CACHE result);

/* cb_threads.c */
HRESULT cb_ThreadCreated(ICorProfilerCallback11 *This, ThreadID id);
HRESULT cb_ThreadDestroyed(ICorProfilerCallback11 *This, ThreadID id);
HRESULT cb_ThreadAssignedToOSThread(ICorProfilerCallback11 *This, ThreadID id, DWORD os_tid);
HRESULT cb_ThreadNameChanged(ICorProfilerCallback11 *This, ThreadID id, ULONG cch, WCHAR *name);

/* cb_gc.c: garbage collections and runtime suspensions */
HRESULT cb_GarbageCollectionStarted(ICorProfilerCallback11 *This, int cGenerations, BOOL *collected,
                                    COR_PRF_GC_REASON reason);
HRESULT cb_GarbageCollectionFinished(ICorProfilerCallback11 *This);
HRESULT cb_RuntimeSuspendStarted(ICorProfilerCallback11 *This, COR_PRF_SUSPEND_REASON reason);
HRESULT cb_RuntimeSuspendAborted(ICorProfilerCallback11 *This);
HRESULT cb_RuntimeResumeFinished(ICorProfilerCallback11 *This);

#endif
