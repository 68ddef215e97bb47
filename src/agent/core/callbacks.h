/* callbacks.h - the ICorProfilerCallback methods the agent implements,
 * grouped by the file that implements them, and the vtable assembly. */
#ifndef CLRPROBE_AGENT_CALLBACKS_H
#define CLRPROBE_AGENT_CALLBACKS_H

#include "api/corprof.h"

/* callback_defaults.c: every slot set to a do-nothing method. */
void callbacks_fill_defaults(ICorProfilerCallbackVtbl *v);

/* profiler.c: the complete vtable of a profiler instance. */
const ICorProfilerCallbackVtbl *profiler_vtable(void);

/* lifecycle.c */
HRESULT cb_Initialize(ICorProfilerCallback11 *This, IUnknown *pICorProfilerInfoUnk);
HRESULT cb_Shutdown(ICorProfilerCallback11 *This);

/* attach.c */
HRESULT cb_InitializeForAttach(ICorProfilerCallback11 *This, IUnknown *unk, void *data, UINT cb);
HRESULT cb_ProfilerAttachComplete(ICorProfilerCallback11 *This);
HRESULT cb_ProfilerDetachSucceeded(ICorProfilerCallback11 *This);

/* cb_loader.c: app domains, assemblies, modules, classes */
HRESULT cb_AppDomainCreationFinished(ICorProfilerCallback11 *This, AppDomainID id, HRESULT hr);
HRESULT cb_AppDomainShutdownStarted(ICorProfilerCallback11 *This, AppDomainID id);
HRESULT cb_AssemblyLoadFinished(ICorProfilerCallback11 *This, AssemblyID id, HRESULT hr);
HRESULT cb_AssemblyUnloadStarted(ICorProfilerCallback11 *This, AssemblyID id);
HRESULT cb_ModuleLoadFinished(ICorProfilerCallback11 *This, ModuleID id, HRESULT hr);
HRESULT cb_ModuleUnloadStarted(ICorProfilerCallback11 *This, ModuleID id);
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
HRESULT cb_ObjectAllocated(ICorProfilerCallback11 *This, ObjectID obj, ClassID cls);
HRESULT cb_EventPipeEventDelivered(ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider, DWORD eventId,
                                   DWORD eventVersion, ULONG cbMetadataBlob, LPCBYTE metadataBlob,
                                   ULONG cbEventData, LPCBYTE eventData, LPCGUID pActivityId,
                                   LPCGUID pRelatedActivityId, ThreadID eventThread, ULONG numStackFrames,
                                   UINT_PTR *stackFrames);
HRESULT cb_RuntimeSuspendStarted(ICorProfilerCallback11 *This, COR_PRF_SUSPEND_REASON reason);
HRESULT cb_RuntimeSuspendAborted(ICorProfilerCallback11 *This);
HRESULT cb_RuntimeResumeFinished(ICorProfilerCallback11 *This);

/* cb_exceptions.c */
HRESULT cb_ExceptionThrown(ICorProfilerCallback11 *This, ObjectID obj);
/* lifecycle.c */
HRESULT cb_LoadAsNotificationOnly(ICorProfilerCallback11 *This, BOOL *only);
HRESULT cb_ExceptionCatcherEnter(ICorProfilerCallback11 *This, FunctionID fid, ObjectID obj);
HRESULT cb_GetReJITParameters(ICorProfilerCallback11 *This, ModuleID module, mdMethodDef method,
                              ICorProfilerFunctionControl *control);
HRESULT cb_ReJITError(ICorProfilerCallback11 *This, ModuleID module, mdMethodDef method, FunctionID fid, HRESULT hr);
HRESULT cb_JITInlining(ICorProfilerCallback11 *This, FunctionID caller, FunctionID callee, BOOL *inline_it);
HRESULT cb_ExceptionUnwindFunctionEnter(ICorProfilerCallback11 *This, FunctionID fid);
HRESULT cb_ExceptionUnwindFunctionLeave(ICorProfilerCallback11 *This);
HRESULT cb_ExceptionSearchFunctionEnter(ICorProfilerCallback11 *This, FunctionID fid);
HRESULT cb_ExceptionSearchFilterEnter(ICorProfilerCallback11 *This, FunctionID fid);
HRESULT cb_ExceptionSearchFilterLeave(ICorProfilerCallback11 *This);
HRESULT cb_ExceptionSearchCatcherFound(ICorProfilerCallback11 *This, FunctionID fid);
HRESULT cb_ExceptionUnwindFinallyEnter(ICorProfilerCallback11 *This, FunctionID fid);
HRESULT cb_ExceptionUnwindFinallyLeave(ICorProfilerCallback11 *This);
HRESULT cb_ExceptionCatcherLeave(ICorProfilerCallback11 *This);

#endif
