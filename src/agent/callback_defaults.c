/* callback_defaults.c - a do-nothing implementation of every
 * ICorProfilerCallback..Callback11 method, each with its exact signature, so
 * that the vtable has no empty slot.  callbacks_fill_defaults() copies them
 * into a vtable; profiler.c then overrides the methods it implements.  The
 * stubs return S_OK; those with out-parameters give the neutral answer
 * (use the cached code, allow inlining, not a notification-only profiler).
 * Generated once from the vtable in src/api/corprof.h, then kept by hand. */
#include "agent/callbacks.h"

static HRESULT default_Initialize(ICorProfilerCallback11 *This, IUnknown *pICorProfilerInfoUnk)
{
    return S_OK;
}

static HRESULT default_Shutdown(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_AppDomainCreationStarted(ICorProfilerCallback11 *This, AppDomainID appDomainId)
{
    return S_OK;
}

static HRESULT default_AppDomainCreationFinished(ICorProfilerCallback11 *This, AppDomainID appDomainId, HRESULT hrStatus)
{
    return S_OK;
}

static HRESULT default_AppDomainShutdownStarted(ICorProfilerCallback11 *This, AppDomainID appDomainId)
{
    return S_OK;
}

static HRESULT default_AppDomainShutdownFinished(ICorProfilerCallback11 *This, AppDomainID appDomainId, HRESULT hrStatus)
{
    return S_OK;
}

static HRESULT default_AssemblyLoadStarted(ICorProfilerCallback11 *This, AssemblyID assemblyId)
{
    return S_OK;
}

static HRESULT default_AssemblyLoadFinished(ICorProfilerCallback11 *This, AssemblyID assemblyId, HRESULT hrStatus)
{
    return S_OK;
}

static HRESULT default_AssemblyUnloadStarted(ICorProfilerCallback11 *This, AssemblyID assemblyId)
{
    return S_OK;
}

static HRESULT default_AssemblyUnloadFinished(ICorProfilerCallback11 *This, AssemblyID assemblyId, HRESULT hrStatus)
{
    return S_OK;
}

static HRESULT default_ModuleLoadStarted(ICorProfilerCallback11 *This, ModuleID moduleId)
{
    return S_OK;
}

static HRESULT default_ModuleLoadFinished(ICorProfilerCallback11 *This, ModuleID moduleId, HRESULT hrStatus)
{
    return S_OK;
}

static HRESULT default_ModuleUnloadStarted(ICorProfilerCallback11 *This, ModuleID moduleId)
{
    return S_OK;
}

static HRESULT default_ModuleUnloadFinished(ICorProfilerCallback11 *This, ModuleID moduleId, HRESULT hrStatus)
{
    return S_OK;
}

static HRESULT default_ModuleAttachedToAssembly(ICorProfilerCallback11 *This, ModuleID moduleId, AssemblyID AssemblyId)
{
    return S_OK;
}

static HRESULT default_ClassLoadStarted(ICorProfilerCallback11 *This, ClassID classId)
{
    return S_OK;
}

static HRESULT default_ClassLoadFinished(ICorProfilerCallback11 *This, ClassID classId, HRESULT hrStatus)
{
    return S_OK;
}

static HRESULT default_ClassUnloadStarted(ICorProfilerCallback11 *This, ClassID classId)
{
    return S_OK;
}

static HRESULT default_ClassUnloadFinished(ICorProfilerCallback11 *This, ClassID classId, HRESULT hrStatus)
{
    return S_OK;
}

static HRESULT default_FunctionUnloadStarted(ICorProfilerCallback11 *This, FunctionID functionId)
{
    return S_OK;
}

static HRESULT default_JITCompilationStarted(ICorProfilerCallback11 *This, FunctionID functionId, BOOL fIsSafeToBlock)
{
    return S_OK;
}

static HRESULT default_JITCompilationFinished(ICorProfilerCallback11 *This, FunctionID functionId, HRESULT hrStatus, BOOL fIsSafeToBlock)
{
    return S_OK;
}

static HRESULT default_JITCachedFunctionSearchStarted(ICorProfilerCallback11 *This, FunctionID functionId, BOOL *pbUseCachedFunction)
{
    if (pbUseCachedFunction)
        *pbUseCachedFunction = TRUE;
    return S_OK;
}

static HRESULT default_JITCachedFunctionSearchFinished(ICorProfilerCallback11 *This, FunctionID functionId, COR_PRF_JIT_CACHE result)
{
    return S_OK;
}

static HRESULT default_JITFunctionPitched(ICorProfilerCallback11 *This, FunctionID functionId)
{
    return S_OK;
}

static HRESULT default_JITInlining(ICorProfilerCallback11 *This, FunctionID callerId, FunctionID calleeId, BOOL *pfShouldInline)
{
    if (pfShouldInline)
        *pfShouldInline = TRUE;
    return S_OK;
}

static HRESULT default_ThreadCreated(ICorProfilerCallback11 *This, ThreadID threadId)
{
    return S_OK;
}

static HRESULT default_ThreadDestroyed(ICorProfilerCallback11 *This, ThreadID threadId)
{
    return S_OK;
}

static HRESULT default_ThreadAssignedToOSThread(ICorProfilerCallback11 *This, ThreadID managedThreadId, DWORD osThreadId)
{
    return S_OK;
}

static HRESULT default_RemotingClientInvocationStarted(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_RemotingClientSendingMessage(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync)
{
    return S_OK;
}

static HRESULT default_RemotingClientReceivingReply(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync)
{
    return S_OK;
}

static HRESULT default_RemotingClientInvocationFinished(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_RemotingServerReceivingMessage(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync)
{
    return S_OK;
}

static HRESULT default_RemotingServerInvocationStarted(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_RemotingServerInvocationReturned(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_RemotingServerSendingReply(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync)
{
    return S_OK;
}

static HRESULT default_UnmanagedToManagedTransition(ICorProfilerCallback11 *This, FunctionID functionId, COR_PRF_TRANSITION_REASON reason)
{
    return S_OK;
}

static HRESULT default_ManagedToUnmanagedTransition(ICorProfilerCallback11 *This, FunctionID functionId, COR_PRF_TRANSITION_REASON reason)
{
    return S_OK;
}

static HRESULT default_RuntimeSuspendStarted(ICorProfilerCallback11 *This, COR_PRF_SUSPEND_REASON suspendReason)
{
    return S_OK;
}

static HRESULT default_RuntimeSuspendFinished(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_RuntimeSuspendAborted(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_RuntimeResumeStarted(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_RuntimeResumeFinished(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_RuntimeThreadSuspended(ICorProfilerCallback11 *This, ThreadID threadId)
{
    return S_OK;
}

static HRESULT default_RuntimeThreadResumed(ICorProfilerCallback11 *This, ThreadID threadId)
{
    return S_OK;
}

static HRESULT default_MovedReferences(ICorProfilerCallback11 *This, ULONG cMovedObjectIDRanges, ObjectID *oldObjectIDRangeStart, ObjectID *newObjectIDRangeStart, ULONG *cObjectIDRangeLength)
{
    return S_OK;
}

static HRESULT default_ObjectAllocated(ICorProfilerCallback11 *This, ObjectID objectId, ClassID classId)
{
    return S_OK;
}

static HRESULT default_ObjectsAllocatedByClass(ICorProfilerCallback11 *This, ULONG cClassCount, ClassID *classIds, ULONG *cObjects)
{
    return S_OK;
}

static HRESULT default_ObjectReferences(ICorProfilerCallback11 *This, ObjectID objectId, ClassID classId, ULONG cObjectRefs, ObjectID *objectRefIds)
{
    return S_OK;
}

static HRESULT default_RootReferences(ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID *rootRefIds)
{
    return S_OK;
}

static HRESULT default_ExceptionThrown(ICorProfilerCallback11 *This, ObjectID thrownObjectId)
{
    return S_OK;
}

static HRESULT default_ExceptionSearchFunctionEnter(ICorProfilerCallback11 *This, FunctionID functionId)
{
    return S_OK;
}

static HRESULT default_ExceptionSearchFunctionLeave(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_ExceptionSearchFilterEnter(ICorProfilerCallback11 *This, FunctionID functionId)
{
    return S_OK;
}

static HRESULT default_ExceptionSearchFilterLeave(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_ExceptionSearchCatcherFound(ICorProfilerCallback11 *This, FunctionID functionId)
{
    return S_OK;
}

static HRESULT default_ExceptionOSHandlerEnter(ICorProfilerCallback11 *This, UINT_PTR reserved)
{
    return S_OK;
}

static HRESULT default_ExceptionOSHandlerLeave(ICorProfilerCallback11 *This, UINT_PTR reserved)
{
    return S_OK;
}

static HRESULT default_ExceptionUnwindFunctionEnter(ICorProfilerCallback11 *This, FunctionID functionId)
{
    return S_OK;
}

static HRESULT default_ExceptionUnwindFunctionLeave(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_ExceptionUnwindFinallyEnter(ICorProfilerCallback11 *This, FunctionID functionId)
{
    return S_OK;
}

static HRESULT default_ExceptionUnwindFinallyLeave(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_ExceptionCatcherEnter(ICorProfilerCallback11 *This, FunctionID functionId, ObjectID objectId)
{
    return S_OK;
}

static HRESULT default_ExceptionCatcherLeave(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_COMClassicVTableCreated(ICorProfilerCallback11 *This, ClassID wrappedClassId, REFGUID implementedIID, void *pVTable, ULONG cSlots)
{
    return S_OK;
}

static HRESULT default_COMClassicVTableDestroyed(ICorProfilerCallback11 *This, ClassID wrappedClassId, REFGUID implementedIID, void *pVTable)
{
    return S_OK;
}

static HRESULT default_ExceptionCLRCatcherFound(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_ExceptionCLRCatcherExecute(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_ThreadNameChanged(ICorProfilerCallback11 *This, ThreadID threadId, ULONG cchName, WCHAR *name)
{
    return S_OK;
}

static HRESULT default_GarbageCollectionStarted(ICorProfilerCallback11 *This, int cGenerations, BOOL *generationCollected, COR_PRF_GC_REASON reason)
{
    return S_OK;
}

static HRESULT default_SurvivingReferences(ICorProfilerCallback11 *This, ULONG cSurvivingObjectIDRanges, ObjectID *objectIDRangeStart, ULONG *cObjectIDRangeLength)
{
    return S_OK;
}

static HRESULT default_GarbageCollectionFinished(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_FinalizeableObjectQueued(ICorProfilerCallback11 *This, DWORD finalizerFlags, ObjectID objectID)
{
    return S_OK;
}

static HRESULT default_RootReferences2(ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID *rootRefIds, COR_PRF_GC_ROOT_KIND *rootKinds, COR_PRF_GC_ROOT_FLAGS *rootFlags, UINT_PTR *rootIds)
{
    return S_OK;
}

static HRESULT default_HandleCreated(ICorProfilerCallback11 *This, GCHandleID handleId, ObjectID initialObjectId)
{
    return S_OK;
}

static HRESULT default_HandleDestroyed(ICorProfilerCallback11 *This, GCHandleID handleId)
{
    return S_OK;
}

static HRESULT default_InitializeForAttach(ICorProfilerCallback11 *This, IUnknown *pCorProfilerInfoUnk, void *pvClientData, UINT cbClientData)
{
    return CORPROF_E_PROFILER_NOT_ATTACHABLE;   /* attach is not supported yet: refuse cleanly */
}

static HRESULT default_ProfilerAttachComplete(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_ProfilerDetachSucceeded(ICorProfilerCallback11 *This)
{
    return S_OK;
}

static HRESULT default_ReJITCompilationStarted(ICorProfilerCallback11 *This, FunctionID functionId, ReJITID rejitId, BOOL fIsSafeToBlock)
{
    return S_OK;
}

static HRESULT default_GetReJITParameters(ICorProfilerCallback11 *This, ModuleID moduleId, mdMethodDef methodId, ICorProfilerFunctionControl *pFunctionControl)
{
    return S_OK;
}

static HRESULT default_ReJITCompilationFinished(ICorProfilerCallback11 *This, FunctionID functionId, ReJITID rejitId, HRESULT hrStatus, BOOL fIsSafeToBlock)
{
    return S_OK;
}

static HRESULT default_ReJITError(ICorProfilerCallback11 *This, ModuleID moduleId, mdMethodDef methodId, FunctionID functionId, HRESULT hrStatus)
{
    return S_OK;
}

static HRESULT default_MovedReferences2(ICorProfilerCallback11 *This, ULONG cMovedObjectIDRanges, ObjectID *oldObjectIDRangeStart, ObjectID *newObjectIDRangeStart, SIZE_T *cObjectIDRangeLength)
{
    return S_OK;
}

static HRESULT default_SurvivingReferences2(ICorProfilerCallback11 *This, ULONG cSurvivingObjectIDRanges, ObjectID *objectIDRangeStart, SIZE_T *cObjectIDRangeLength)
{
    return S_OK;
}

static HRESULT default_ConditionalWeakTableElementReferences(ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID *keyRefIds, ObjectID *valueRefIds, GCHandleID *rootIds)
{
    return S_OK;
}

static HRESULT default_GetAssemblyReferences(ICorProfilerCallback11 *This, const WCHAR *wszAssemblyPath, ICorProfilerAssemblyReferenceProvider *pAsmRefProvider)
{
    return S_OK;
}

static HRESULT default_ModuleInMemorySymbolsUpdated(ICorProfilerCallback11 *This, ModuleID moduleId)
{
    return S_OK;
}

static HRESULT default_DynamicMethodJITCompilationStarted(ICorProfilerCallback11 *This, FunctionID functionId, BOOL fIsSafeToBlock, LPCBYTE pILHeader, ULONG cbILHeader)
{
    return S_OK;
}

static HRESULT default_DynamicMethodJITCompilationFinished(ICorProfilerCallback11 *This, FunctionID functionId, HRESULT hrStatus, BOOL fIsSafeToBlock)
{
    return S_OK;
}

static HRESULT default_DynamicMethodUnloaded(ICorProfilerCallback11 *This, FunctionID functionId)
{
    return S_OK;
}

static HRESULT default_EventPipeEventDelivered(ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider, DWORD eventId, DWORD eventVersion, ULONG cbMetadataBlob, LPCBYTE metadataBlob, ULONG cbEventData, LPCBYTE eventData, LPCGUID pActivityId, LPCGUID pRelatedActivityId, ThreadID eventThread, ULONG numStackFrames, UINT_PTR *stackFrames)
{
    return S_OK;
}

static HRESULT default_EventPipeProviderCreated(ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider)
{
    return S_OK;
}

static HRESULT default_LoadAsNotificationOnly(ICorProfilerCallback11 *This, BOOL *pbNotificationOnly)
{
    if (pbNotificationOnly)
        *pbNotificationOnly = FALSE;
    return S_OK;
}

void callbacks_fill_defaults(ICorProfilerCallbackVtbl *v)
{
    v->Initialize = default_Initialize;
    v->Shutdown = default_Shutdown;
    v->AppDomainCreationStarted = default_AppDomainCreationStarted;
    v->AppDomainCreationFinished = default_AppDomainCreationFinished;
    v->AppDomainShutdownStarted = default_AppDomainShutdownStarted;
    v->AppDomainShutdownFinished = default_AppDomainShutdownFinished;
    v->AssemblyLoadStarted = default_AssemblyLoadStarted;
    v->AssemblyLoadFinished = default_AssemblyLoadFinished;
    v->AssemblyUnloadStarted = default_AssemblyUnloadStarted;
    v->AssemblyUnloadFinished = default_AssemblyUnloadFinished;
    v->ModuleLoadStarted = default_ModuleLoadStarted;
    v->ModuleLoadFinished = default_ModuleLoadFinished;
    v->ModuleUnloadStarted = default_ModuleUnloadStarted;
    v->ModuleUnloadFinished = default_ModuleUnloadFinished;
    v->ModuleAttachedToAssembly = default_ModuleAttachedToAssembly;
    v->ClassLoadStarted = default_ClassLoadStarted;
    v->ClassLoadFinished = default_ClassLoadFinished;
    v->ClassUnloadStarted = default_ClassUnloadStarted;
    v->ClassUnloadFinished = default_ClassUnloadFinished;
    v->FunctionUnloadStarted = default_FunctionUnloadStarted;
    v->JITCompilationStarted = default_JITCompilationStarted;
    v->JITCompilationFinished = default_JITCompilationFinished;
    v->JITCachedFunctionSearchStarted = default_JITCachedFunctionSearchStarted;
    v->JITCachedFunctionSearchFinished = default_JITCachedFunctionSearchFinished;
    v->JITFunctionPitched = default_JITFunctionPitched;
    v->JITInlining = default_JITInlining;
    v->ThreadCreated = default_ThreadCreated;
    v->ThreadDestroyed = default_ThreadDestroyed;
    v->ThreadAssignedToOSThread = default_ThreadAssignedToOSThread;
    v->RemotingClientInvocationStarted = default_RemotingClientInvocationStarted;
    v->RemotingClientSendingMessage = default_RemotingClientSendingMessage;
    v->RemotingClientReceivingReply = default_RemotingClientReceivingReply;
    v->RemotingClientInvocationFinished = default_RemotingClientInvocationFinished;
    v->RemotingServerReceivingMessage = default_RemotingServerReceivingMessage;
    v->RemotingServerInvocationStarted = default_RemotingServerInvocationStarted;
    v->RemotingServerInvocationReturned = default_RemotingServerInvocationReturned;
    v->RemotingServerSendingReply = default_RemotingServerSendingReply;
    v->UnmanagedToManagedTransition = default_UnmanagedToManagedTransition;
    v->ManagedToUnmanagedTransition = default_ManagedToUnmanagedTransition;
    v->RuntimeSuspendStarted = default_RuntimeSuspendStarted;
    v->RuntimeSuspendFinished = default_RuntimeSuspendFinished;
    v->RuntimeSuspendAborted = default_RuntimeSuspendAborted;
    v->RuntimeResumeStarted = default_RuntimeResumeStarted;
    v->RuntimeResumeFinished = default_RuntimeResumeFinished;
    v->RuntimeThreadSuspended = default_RuntimeThreadSuspended;
    v->RuntimeThreadResumed = default_RuntimeThreadResumed;
    v->MovedReferences = default_MovedReferences;
    v->ObjectAllocated = default_ObjectAllocated;
    v->ObjectsAllocatedByClass = default_ObjectsAllocatedByClass;
    v->ObjectReferences = default_ObjectReferences;
    v->RootReferences = default_RootReferences;
    v->ExceptionThrown = default_ExceptionThrown;
    v->ExceptionSearchFunctionEnter = default_ExceptionSearchFunctionEnter;
    v->ExceptionSearchFunctionLeave = default_ExceptionSearchFunctionLeave;
    v->ExceptionSearchFilterEnter = default_ExceptionSearchFilterEnter;
    v->ExceptionSearchFilterLeave = default_ExceptionSearchFilterLeave;
    v->ExceptionSearchCatcherFound = default_ExceptionSearchCatcherFound;
    v->ExceptionOSHandlerEnter = default_ExceptionOSHandlerEnter;
    v->ExceptionOSHandlerLeave = default_ExceptionOSHandlerLeave;
    v->ExceptionUnwindFunctionEnter = default_ExceptionUnwindFunctionEnter;
    v->ExceptionUnwindFunctionLeave = default_ExceptionUnwindFunctionLeave;
    v->ExceptionUnwindFinallyEnter = default_ExceptionUnwindFinallyEnter;
    v->ExceptionUnwindFinallyLeave = default_ExceptionUnwindFinallyLeave;
    v->ExceptionCatcherEnter = default_ExceptionCatcherEnter;
    v->ExceptionCatcherLeave = default_ExceptionCatcherLeave;
    v->COMClassicVTableCreated = default_COMClassicVTableCreated;
    v->COMClassicVTableDestroyed = default_COMClassicVTableDestroyed;
    v->ExceptionCLRCatcherFound = default_ExceptionCLRCatcherFound;
    v->ExceptionCLRCatcherExecute = default_ExceptionCLRCatcherExecute;
    v->ThreadNameChanged = default_ThreadNameChanged;
    v->GarbageCollectionStarted = default_GarbageCollectionStarted;
    v->SurvivingReferences = default_SurvivingReferences;
    v->GarbageCollectionFinished = default_GarbageCollectionFinished;
    v->FinalizeableObjectQueued = default_FinalizeableObjectQueued;
    v->RootReferences2 = default_RootReferences2;
    v->HandleCreated = default_HandleCreated;
    v->HandleDestroyed = default_HandleDestroyed;
    v->InitializeForAttach = default_InitializeForAttach;
    v->ProfilerAttachComplete = default_ProfilerAttachComplete;
    v->ProfilerDetachSucceeded = default_ProfilerDetachSucceeded;
    v->ReJITCompilationStarted = default_ReJITCompilationStarted;
    v->GetReJITParameters = default_GetReJITParameters;
    v->ReJITCompilationFinished = default_ReJITCompilationFinished;
    v->ReJITError = default_ReJITError;
    v->MovedReferences2 = default_MovedReferences2;
    v->SurvivingReferences2 = default_SurvivingReferences2;
    v->ConditionalWeakTableElementReferences = default_ConditionalWeakTableElementReferences;
    v->GetAssemblyReferences = default_GetAssemblyReferences;
    v->ModuleInMemorySymbolsUpdated = default_ModuleInMemorySymbolsUpdated;
    v->DynamicMethodJITCompilationStarted = default_DynamicMethodJITCompilationStarted;
    v->DynamicMethodJITCompilationFinished = default_DynamicMethodJITCompilationFinished;
    v->DynamicMethodUnloaded = default_DynamicMethodUnloaded;
    v->EventPipeEventDelivered = default_EventPipeEventDelivered;
    v->EventPipeProviderCreated = default_EventPipeProviderCreated;
    v->LoadAsNotificationOnly = default_LoadAsNotificationOnly;
}
