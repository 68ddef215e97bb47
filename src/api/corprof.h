/* corprof.h - the CLR profiling API (ICorProfilerCallback 1..11,
 * ICorProfilerInfo 1..15 and their helper interfaces) as plain C11
 * declarations for CoreCLR on Linux x64.
 *
 * Written from the facts of docs/runtime-abi.md, not copied from the
 * runtime's corprof.idl / corprof.h (dotnet/runtime src/coreclr/inc/):
 *   "COM objects in C", "Scalar types"  the C ABI, ID and function typedefs
 *   "Interfaces and slots"              every interface: IID, slot, method
 *   "Event masks", "Structs", "HRESULTs" (corerror.xml for the HRESULTs)
 * The vtable member lists were produced from tables of corprof.idl's
 * methods by a throwaway script and checked by hand (method order compared
 * with corprof.idl at dotnet/runtime 05284b23); the _Static_asserts at
 * the end tie every method to the slot number in the table
 * and every interface version to the first-slot / total-entries summary.
 * The callback methods (slots 3..97) are listed once, in corprof_callbacks.def
 * (an X-macro list: slot, name, return type, parameters): the members of
 * ICorProfilerCallbackVtbl, their slot checks here and the agent's do-nothing
 * defaults (src/agent/callback_defaults.c) are all made from it.  The info
 * methods (slots 3..114) likewise, in corprof_info.def: the members of
 * ICorProfilerInfoVtbl and their slot checks.
 *
 * How the interfaces map to C
 * ---------------------------
 * COM interfaces with single inheritance have a vtable that is the base
 * vtable followed by the derived interface's own methods.  So instead of
 * eleven callback structs and fifteen info structs there is ONE vtable struct
 * per family that lists every slot of the newest version:
 *
 *   ICorProfilerCallbackVtbl  98 slots  (IUnknown 0-2, Callback 3-71, ...,
 *                                        Callback11 97)
 *   ICorProfilerInfoVtbl     115 slots  (IUnknown 0-2, Info 3-35, ...,
 *                                        Info15 114)
 *
 * and the object types ICorProfilerCallback11 / ICorProfilerInfo15 point at
 * them.  Older versions are prefixes of these tables.
 *
 * Calling the runtime:  after QueryInterface(&IID_ICorProfilerInfoN) succeeded,
 *
 *     ICorProfilerInfo15 *info = ...;
 *     info->lpVtbl->GetModuleInfo2(info, moduleId, &base, cch, &len, name, &asm, &flags);
 *
 * A runtime that only implements ICorProfilerInfoN has a vtable of exactly
 * CORPROF_INFO_SLOTS_VN entries: calling a member at or beyond that slot reads
 * past the end of the runtime's table and jumps to garbage.  Callers must
 * remember which IID their QueryInterface succeeded for and only call members
 * with CORPROF_SLOT(ICorProfilerInfoVtbl, m) < CORPROF_INFO_SLOTS_VN.
 *
 * Implementing the callback: fill a static ICorProfilerCallbackVtbl with all
 * 98 entries (never leave one NULL: the runtime calls whatever is there) and
 * answer QueryInterface for every IID_ICorProfilerCallback..11 with the same
 * object.
 */
#ifndef CLRPROBE_API_CORPROF_H
#define CLRPROBE_API_CORPROF_H

#include "cor.h"
#include "cormetadata.h"   /* CorElementType, COR_FIELD_OFFSET, ASSEMBLYMETADATA */

/* ICorProfilerInfo11 has methods called GetEnvironmentVariable and
 * SetEnvironmentVariable.  Windows headers turn those names into ...A/...W
 * macros; if anything did that here the member names would silently change.
 * Refuse to compile instead. */
#if defined(GetEnvironmentVariable) || defined(SetEnvironmentVariable)
#error "GetEnvironmentVariable/SetEnvironmentVariable are macros here; corprof.h needs the plain names"
#endif

/* ========================================================================
 * IDs (section 0).  All opaque pointer-size values owned by the runtime.
 * ======================================================================== */

typedef UINT_PTR ProcessID;
typedef UINT_PTR AssemblyID;
typedef UINT_PTR AppDomainID;
typedef UINT_PTR ModuleID;
typedef UINT_PTR ClassID;
typedef UINT_PTR ThreadID;
typedef UINT_PTR ContextID;
typedef UINT_PTR FunctionID;
typedef UINT_PTR ObjectID;
typedef UINT_PTR GCHandleID;
typedef UINT_PTR COR_PRF_ELT_INFO;
typedef UINT_PTR ReJITID;
typedef UINT_PTR COR_PRF_FRAME_INFO;   /* valid only during the callback it was passed to */
typedef void   **ObjectHandleID;        /* pointer-size handle from Info13::CreateHandle */

typedef UINT_PTR EVENTPIPE_PROVIDER;
typedef UINT_PTR EVENTPIPE_EVENT;
typedef UINT64   EVENTPIPE_SESSION;

/* What the enter/leave hooks receive: the FunctionID, or whatever the
 * FunctionIDMapper returned for it.  8 bytes, passed in one integer register. */
typedef union FunctionIDOrClientID {
    FunctionID functionID;
    UINT_PTR   clientID;
} FunctionIDOrClientID;

/* ========================================================================
 * COR_PRF_MONITOR: the low 32-bit event mask (section 2), for
 * SetEventMask(DWORD) or the first argument of SetEventMask2.
 * Written as unsigned macros rather than an enum because several values do
 * not fit in an int (ISO C enumerators must).
 * ======================================================================== */

typedef DWORD COR_PRF_MONITOR;

#define COR_PRF_MONITOR_NONE                0x00000000u
#define COR_PRF_MONITOR_FUNCTION_UNLOADS    0x00000001u
#define COR_PRF_MONITOR_CLASS_LOADS         0x00000002u
#define COR_PRF_MONITOR_MODULE_LOADS        0x00000004u
#define COR_PRF_MONITOR_ASSEMBLY_LOADS      0x00000008u
#define COR_PRF_MONITOR_APPDOMAIN_LOADS     0x00000010u
#define COR_PRF_MONITOR_JIT_COMPILATION     0x00000020u
#define COR_PRF_MONITOR_EXCEPTIONS          0x00000040u
#define COR_PRF_MONITOR_GC                  0x00000080u
#define COR_PRF_MONITOR_OBJECT_ALLOCATED    0x00000100u
#define COR_PRF_MONITOR_THREADS             0x00000200u
#define COR_PRF_MONITOR_REMOTING            0x00000400u   /* no remoting in CoreCLR */
#define COR_PRF_MONITOR_CODE_TRANSITIONS    0x00000800u
#define COR_PRF_MONITOR_ENTERLEAVE          0x00001000u
#define COR_PRF_MONITOR_CCW                 0x00002000u
#define COR_PRF_MONITOR_REMOTING_COOKIE     (0x00004000u | COR_PRF_MONITOR_REMOTING)
#define COR_PRF_MONITOR_REMOTING_ASYNC      (0x00008000u | COR_PRF_MONITOR_REMOTING)
#define COR_PRF_MONITOR_SUSPENDS            0x00010000u
#define COR_PRF_MONITOR_CACHE_SEARCHES      0x00020000u
#define COR_PRF_ENABLE_REJIT                0x00040000u
#define COR_PRF_ENABLE_INPROC_DEBUGGING     0x00080000u
#define COR_PRF_ENABLE_JIT_MAPS             0x00100000u
#define COR_PRF_DISABLE_INLINING            0x00200000u
#define COR_PRF_DISABLE_OPTIMIZATIONS       0x00400000u
#define COR_PRF_ENABLE_OBJECT_ALLOCATED     0x00800000u
#define COR_PRF_MONITOR_CLR_EXCEPTIONS      0x01000000u
#define COR_PRF_MONITOR_ALL                 0x0107FFFFu
#define COR_PRF_ENABLE_FUNCTION_ARGS        0x02000000u
#define COR_PRF_ENABLE_FUNCTION_RETVAL      0x04000000u
#define COR_PRF_ENABLE_FRAME_INFO           0x08000000u
#define COR_PRF_ENABLE_STACK_SNAPSHOT       0x10000000u
#define COR_PRF_USE_PROFILE_IMAGES          0x20000000u
#define COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST 0x40000000u
#define COR_PRF_DISABLE_ALL_NGEN_IMAGES     0x80000000u
#define COR_PRF_ALL                         0x8FFFFFFFu

#define COR_PRF_REQUIRE_PROFILE_IMAGE \
    (COR_PRF_USE_PROFILE_IMAGES | COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_ENTERLEAVE)

/* Flags a profiler loaded by attach may set (current runtime IDL).  Older
 * IDLs (.NET 6 era) lack DISABLE_INLINING | DISABLE_OPTIMIZATIONS here
 * (= 0x100502FE) and count them as immutable instead; on such runtimes
 * setting them after attach fails with CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER
 * or CORPROF_E_IMMUTABLE_FLAGS_SET. */
#define COR_PRF_ALLOWABLE_AFTER_ATTACH                                              \
    (COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS |                       \
     COR_PRF_MONITOR_ASSEMBLY_LOADS | COR_PRF_MONITOR_APPDOMAIN_LOADS |             \
     COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_MONITOR_GC | COR_PRF_MONITOR_SUSPENDS | \
     COR_PRF_MONITOR_CLASS_LOADS | COR_PRF_MONITOR_EXCEPTIONS |                     \
     COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_DISABLE_INLINING |                   \
     COR_PRF_DISABLE_OPTIMIZATIONS | COR_PRF_ENABLE_REJIT)

/* Flags allowed for a profiler that LoadAsNotificationOnly said TRUE. */
#define COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER                                     \
    (COR_PRF_MONITOR_FUNCTION_UNLOADS | COR_PRF_MONITOR_CLASS_LOADS |               \
     COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |                \
     COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_JIT_COMPILATION |            \
     COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_OBJECT_ALLOCATED |                \
     COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_CODE_TRANSITIONS |                   \
     COR_PRF_MONITOR_CCW | COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_CACHE_SEARCHES | \
     COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS |                     \
     COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_MONITOR_CLR_EXCEPTIONS |             \
     COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_USE_PROFILE_IMAGES |                   \
     COR_PRF_DISABLE_ALL_NGEN_IMAGES)

/* Flags that may only be set during Initialize (startup).  Changing them
 * later fails with CORPROF_E_IMMUTABLE_FLAGS_SET, and having any of them set
 * makes the profiler non-detachable.  Older IDLs also list DISABLE_OPTIMIZATIONS
 * | DISABLE_INLINING here (= 0xEEF8CC00). */
#define COR_PRF_MONITOR_IMMUTABLE                                                   \
    (COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_REMOTING |                  \
     COR_PRF_MONITOR_REMOTING_COOKIE | COR_PRF_MONITOR_REMOTING_ASYNC |             \
     COR_PRF_ENABLE_INPROC_DEBUGGING | COR_PRF_ENABLE_JIT_MAPS |                    \
     COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_ENABLE_FUNCTION_ARGS |               \
     COR_PRF_ENABLE_FUNCTION_RETVAL | COR_PRF_ENABLE_FRAME_INFO |                   \
     COR_PRF_USE_PROFILE_IMAGES | COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST | \
     COR_PRF_DISABLE_ALL_NGEN_IMAGES)

_Static_assert(COR_PRF_MONITOR_REMOTING_COOKIE == 0x4400u, "COR_PRF_MONITOR_REMOTING_COOKIE");
_Static_assert(COR_PRF_MONITOR_REMOTING_ASYNC == 0x8400u, "COR_PRF_MONITOR_REMOTING_ASYNC");
_Static_assert(COR_PRF_REQUIRE_PROFILE_IMAGE == 0x20001800u, "COR_PRF_REQUIRE_PROFILE_IMAGE");
_Static_assert(COR_PRF_ALLOWABLE_AFTER_ATTACH == 0x106502FEu, "COR_PRF_ALLOWABLE_AFTER_ATTACH");
_Static_assert(COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER == 0xB1E32B7Fu,
               "COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER");
_Static_assert(COR_PRF_MONITOR_IMMUTABLE == 0xEE98CC00u, "COR_PRF_MONITOR_IMMUTABLE");

/* ========================================================================
 * COR_PRF_HIGH_MONITOR: the high 32-bit event mask (section 3), second
 * argument of ICorProfilerInfo5::SetEventMask2.
 * ======================================================================== */

typedef DWORD COR_PRF_HIGH_MONITOR;

#define COR_PRF_HIGH_MONITOR_NONE                       0x00000000u
#define COR_PRF_HIGH_ADD_ASSEMBLY_REFERENCES            0x00000001u  /* not honoured by CoreCLR */
#define COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED          0x00000002u
#define COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS   0x00000004u
#define COR_PRF_HIGH_DISABLE_TIERED_COMPILATION         0x00000008u  /* startup only */
#define COR_PRF_HIGH_BASIC_GC                           0x00000010u  /* GC Started/Finished only */
#define COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS           0x00000020u
#define COR_PRF_HIGH_REQUIRE_PROFILE_IMAGE              0x00000000u
#define COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED      0x00000040u
#define COR_PRF_HIGH_MONITOR_EVENT_PIPE                 0x00000080u
#define COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED     0x00000100u
/* COR_PRF_HIGH_MONITOR_GC_SKIP_ALLOCATED_BY_CLASS_STATISTIC (new in .NET 11) is
 * left out on purpose: its value was not checked against a runtime. */

#define COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH                                         \
    (COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS | \
     COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS |                \
     COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | COR_PRF_HIGH_MONITOR_EVENT_PIPE)

#define COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER                                \
    (COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS | \
     COR_PRF_HIGH_DISABLE_TIERED_COMPILATION | COR_PRF_HIGH_BASIC_GC |              \
     COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS | COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | \
     COR_PRF_HIGH_MONITOR_EVENT_PIPE)

#define COR_PRF_HIGH_MONITOR_IMMUTABLE COR_PRF_HIGH_DISABLE_TIERED_COMPILATION

_Static_assert(COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH == 0xF6u, "COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH");
_Static_assert(COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER == 0xFEu,
               "COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER");
_Static_assert(COR_PRF_HIGH_MONITOR_IMMUTABLE == 0x8u, "COR_PRF_HIGH_MONITOR_IMMUTABLE");

/* ========================================================================
 * Other enums (section 4).  C enums are 4 bytes, like the runtime's.
 * ======================================================================== */

/* DoStackSnapshot infoFlags (passed as ULONG32). */
typedef enum COR_PRF_SNAPSHOT_INFO {
    COR_PRF_SNAPSHOT_DEFAULT          = 0x0,
    COR_PRF_SNAPSHOT_REGISTER_CONTEXT = 0x1,  /* pass a CONTEXT to each callback */
    COR_PRF_SNAPSHOT_X86_OPTIMIZED    = 0x2   /* x86 only */
} COR_PRF_SNAPSHOT_INFO;

typedef enum COR_PRF_GC_GENERATION {
    COR_PRF_GC_GEN_0              = 0,
    COR_PRF_GC_GEN_1              = 1,
    COR_PRF_GC_GEN_2              = 2,
    COR_PRF_GC_LARGE_OBJECT_HEAP  = 3,
    COR_PRF_GC_PINNED_OBJECT_HEAP = 4
} COR_PRF_GC_GENERATION;

typedef enum COR_PRF_GC_REASON {
    COR_PRF_GC_OTHER   = 0,
    COR_PRF_GC_INDUCED = 1
} COR_PRF_GC_REASON;

typedef enum COR_PRF_GC_ROOT_KIND {
    COR_PRF_GC_ROOT_OTHER     = 0,
    COR_PRF_GC_ROOT_STACK     = 1,
    COR_PRF_GC_ROOT_FINALIZER = 2,
    COR_PRF_GC_ROOT_HANDLE    = 3
} COR_PRF_GC_ROOT_KIND;

typedef enum COR_PRF_GC_ROOT_FLAGS {
    COR_PRF_GC_ROOT_PINNING    = 0x1,
    COR_PRF_GC_ROOT_WEAKREF    = 0x2,
    COR_PRF_GC_ROOT_INTERIOR   = 0x4,
    COR_PRF_GC_ROOT_REFCOUNTED = 0x8
} COR_PRF_GC_ROOT_FLAGS;

typedef enum COR_PRF_FINALIZER_FLAGS {
    COR_PRF_FINALIZER_CRITICAL = 0x1
} COR_PRF_FINALIZER_FLAGS;

typedef enum COR_PRF_SUSPEND_REASON {
    COR_PRF_SUSPEND_OTHER                  = 0,
    COR_PRF_SUSPEND_FOR_GC                 = 1,
    COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN = 2,
    COR_PRF_SUSPEND_FOR_CODE_PITCHING      = 3,
    COR_PRF_SUSPEND_FOR_SHUTDOWN           = 4,
    COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER    = 6,
    COR_PRF_SUSPEND_FOR_GC_PREP            = 7,
    COR_PRF_SUSPEND_FOR_REJIT              = 8,
    COR_PRF_SUSPEND_FOR_PROFILER           = 9
} COR_PRF_SUSPEND_REASON;

typedef enum COR_PRF_RUNTIME_TYPE {
    COR_PRF_DESKTOP_CLR = 0x1,
    COR_PRF_CORE_CLR    = 0x2
} COR_PRF_RUNTIME_TYPE;

typedef enum COR_PRF_TRANSITION_REASON {
    COR_PRF_TRANSITION_CALL   = 0,
    COR_PRF_TRANSITION_RETURN = 1
} COR_PRF_TRANSITION_REASON;

/* Note FOUND is 0: this is not a boolean. */
typedef enum COR_PRF_JIT_CACHE {
    COR_PRF_CACHED_FUNCTION_FOUND     = 0,
    COR_PRF_CACHED_FUNCTION_NOT_FOUND = 1
} COR_PRF_JIT_CACHE;

/* GetModuleInfo2 *pdwModuleFlags. */
typedef enum COR_PRF_MODULE_FLAGS {
    COR_PRF_MODULE_DISK            = 0x01,
    COR_PRF_MODULE_NGEN            = 0x02,  /* also set for ReadyToRun images */
    COR_PRF_MODULE_DYNAMIC         = 0x04,  /* Reflection.Emit: no file */
    COR_PRF_MODULE_COLLECTIBLE     = 0x08,
    COR_PRF_MODULE_RESOURCE        = 0x10,
    COR_PRF_MODULE_FLAT_LAYOUT     = 0x20,  /* file layout in memory: RVAs need translating */
    COR_PRF_MODULE_WINDOWS_RUNTIME = 0x40
} COR_PRF_MODULE_FLAGS;

/* RequestReJITWithInliners dwRejitFlags. */
typedef enum COR_PRF_REJIT_FLAGS {
    COR_PRF_REJIT_BLOCK_INLINING     = 0x1,
    COR_PRF_REJIT_INLINING_CALLBACKS = 0x2
} COR_PRF_REJIT_FLAGS;

/* ICorProfilerFunctionControl::SetCodegenFlags.  The runtime's IDL also has
 * COR_PRF_CODEGEN_DEBUG_INFO = 0x0003, which equals the OR of the two flags
 * below, so it cannot be a separate bit; it was not checked against a
 * runtime and is not declared here. */
typedef enum COR_PRF_CODEGEN_FLAGS {
    COR_PRF_CODEGEN_DISABLE_INLINING          = 0x1,
    COR_PRF_CODEGEN_DISABLE_ALL_OPTIMIZATIONS = 0x2
} COR_PRF_CODEGEN_FLAGS;

typedef enum COR_PRF_HANDLE_TYPE {
    COR_PRF_HANDLE_TYPE_WEAK   = 0x1,
    COR_PRF_HANDLE_TYPE_STRONG = 0x2,
    COR_PRF_HANDLE_TYPE_PINNED = 0x3
} COR_PRF_HANDLE_TYPE;

/* COR_PRF_MISC: special IDs (macros: the values do not fit in an int). */
typedef DWORD COR_PRF_MISC;
#define PROFILER_PARENT_UNKNOWN  0xFFFFFFFDu  /* AssemblyID before ModuleAttachedToAssembly */
#define PROFILER_GLOBAL_CLASS    0xFFFFFFFEu  /* ClassID of globals that belong to no class */
#define PROFILER_GLOBAL_MODULE   0xFFFFFFFFu  /* ModuleID of globals that belong to no module */

/* GetStaticFieldInfo; the bits may be combined. */
typedef enum COR_PRF_STATIC_TYPE {
    COR_PRF_FIELD_NOT_A_STATIC      = 0x0,
    COR_PRF_FIELD_APP_DOMAIN_STATIC = 0x1,
    COR_PRF_FIELD_THREAD_STATIC     = 0x2,
    COR_PRF_FIELD_CONTEXT_STATIC    = 0x4,
    COR_PRF_FIELD_RVA_STATIC        = 0x8
} COR_PRF_STATIC_TYPE;

typedef enum COR_PRF_CLAUSE_TYPE {
    COR_PRF_CLAUSE_NONE    = 0,
    COR_PRF_CLAUSE_FILTER  = 1,
    COR_PRF_CLAUSE_CATCH   = 2,
    COR_PRF_CLAUSE_FINALLY = 3
} COR_PRF_CLAUSE_TYPE;

/* EventPipeDefineEvent parameter types (System.TypeCode values). */
typedef enum COR_PRF_EVENTPIPE_PARAM_TYPE {
    COR_PRF_EVENTPIPE_OBJECT   = 1,
    COR_PRF_EVENTPIPE_BOOLEAN  = 3,
    COR_PRF_EVENTPIPE_CHAR     = 4,
    COR_PRF_EVENTPIPE_SBYTE    = 5,
    COR_PRF_EVENTPIPE_BYTE     = 6,
    COR_PRF_EVENTPIPE_INT16    = 7,
    COR_PRF_EVENTPIPE_UINT16   = 8,
    COR_PRF_EVENTPIPE_INT32    = 9,
    COR_PRF_EVENTPIPE_UINT32   = 10,
    COR_PRF_EVENTPIPE_INT64    = 11,
    COR_PRF_EVENTPIPE_UINT64   = 12,
    COR_PRF_EVENTPIPE_SINGLE   = 13,
    COR_PRF_EVENTPIPE_DOUBLE   = 14,
    COR_PRF_EVENTPIPE_DECIMAL  = 15,
    COR_PRF_EVENTPIPE_DATETIME = 16,
    COR_PRF_EVENTPIPE_GUID     = 17,
    COR_PRF_EVENTPIPE_STRING   = 18,
    COR_PRF_EVENTPIPE_ARRAY    = 19
} COR_PRF_EVENTPIPE_PARAM_TYPE;

typedef enum COR_PRF_EVENTPIPE_LEVEL {
    COR_PRF_EVENTPIPE_LOGALWAYS     = 0,
    COR_PRF_EVENTPIPE_CRITICAL      = 1,
    COR_PRF_EVENTPIPE_ERROR         = 2,
    COR_PRF_EVENTPIPE_WARNING       = 3,
    COR_PRF_EVENTPIPE_INFORMATIONAL = 4,
    COR_PRF_EVENTPIPE_VERBOSE       = 5
} COR_PRF_EVENTPIPE_LEVEL;

/* Enums that appear as parameters must be 4 bytes like the runtime's. */
_Static_assert(sizeof(COR_PRF_GC_REASON) == 4, "enum size");
_Static_assert(sizeof(COR_PRF_GC_ROOT_KIND) == 4 && sizeof(COR_PRF_GC_ROOT_FLAGS) == 4, "enum size");
_Static_assert(sizeof(COR_PRF_SUSPEND_REASON) == 4 && sizeof(COR_PRF_RUNTIME_TYPE) == 4, "enum size");
_Static_assert(sizeof(COR_PRF_TRANSITION_REASON) == 4 && sizeof(COR_PRF_JIT_CACHE) == 4, "enum size");
_Static_assert(sizeof(COR_PRF_STATIC_TYPE) == 4 && sizeof(COR_PRF_HANDLE_TYPE) == 4, "enum size");
_Static_assert(sizeof(COR_PRF_GC_GENERATION) == 4 && sizeof(COR_PRF_CLAUSE_TYPE) == 4, "enum size");

/* IL-to-native map special ilOffset values (CorDebugIlToNativeMappingTypes). */
#define COR_IL_OFFSET_NO_MAPPING ((ULONG32)0xFFFFFFFFu)  /* -1 */
#define COR_IL_OFFSET_PROLOG     ((ULONG32)0xFFFFFFFEu)  /* -2 */
#define COR_IL_OFFSET_EPILOG     ((ULONG32)0xFFFFFFFDu)  /* -3 */

/* ========================================================================
 * Structs (section 5).  Natural C alignment; sizes asserted for x64.
 * ======================================================================== */

typedef struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
    UINT_PTR startAddress;
    ULONG    length;
} COR_PRF_FUNCTION_ARGUMENT_RANGE;

/* Variable length: numRanges entries follow; ask GetFunctionEnter3Info for
 * the byte size (8 + 16 * n) first. */
typedef struct COR_PRF_FUNCTION_ARGUMENT_INFO {
    ULONG numRanges;
    ULONG totalArgumentSize;
    COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1];
} COR_PRF_FUNCTION_ARGUMENT_INFO;

typedef struct COR_PRF_CODE_INFO {
    UINT_PTR startAddress;
    SIZE_T   size;
} COR_PRF_CODE_INFO;

/* Older IDLs call the second field 'UINT_PTR reserved'; same layout. */
typedef struct COR_PRF_FUNCTION {
    FunctionID functionId;
    ReJITID    reJitId;
} COR_PRF_FUNCTION;

typedef struct COR_PRF_METHOD {
    ModuleID    moduleId;
    mdMethodDef methodId;
} COR_PRF_METHOD;

typedef struct COR_PRF_GC_GENERATION_RANGE {
    COR_PRF_GC_GENERATION generation;
    ObjectID rangeStart;
    UINT_PTR rangeLength;
    UINT_PTR rangeLengthReserved;
} COR_PRF_GC_GENERATION_RANGE;

typedef struct COR_PRF_NONGC_HEAP_RANGE {
    ObjectID rangeStart;
    UINT_PTR rangeLength;
    UINT_PTR rangeLengthReserved;
} COR_PRF_NONGC_HEAP_RANGE;

typedef struct COR_PRF_EX_CLAUSE_INFO {
    COR_PRF_CLAUSE_TYPE clauseType;
    UINT_PTR programCounter;
    UINT_PTR framePointer;
    UINT_PTR shadowStackPointer;
} COR_PRF_EX_CLAUSE_INFO;

typedef struct COR_IL_MAP {
    ULONG32 oldOffset;
    ULONG32 newOffset;
    BOOL    fAccurate;
} COR_IL_MAP;

/* Native offsets are relative to the start of the method's code; see
 * COR_IL_OFFSET_* above for the special ilOffset values. */
typedef struct COR_DEBUG_IL_TO_NATIVE_MAP {
    ULONG32 ilOffset;
    ULONG32 nativeStartOffset;
    ULONG32 nativeEndOffset;
} COR_DEBUG_IL_TO_NATIVE_MAP;

/* COR_FIELD_OFFSET is shared with the metadata API: see cormetadata.h. */

/* x64 size 48 (offsets 0, 8, 16, 24, 32, 40, 44).  Some tables say 56, but
 * the field list lays out to 48 (docs/runtime-abi.md, "Structs"); the assert
 * below follows the fields. */
typedef struct COR_PRF_ASSEMBLY_REFERENCE_INFO {
    void             *pbPublicKeyOrToken;
    ULONG             cbPublicKeyOrToken;
    LPCWSTR           szName;
    ASSEMBLYMETADATA *pMetaData;
    void             *pbHashValue;
    ULONG             cbHashValue;
    DWORD             dwAssemblyRefFlags;
} COR_PRF_ASSEMBLY_REFERENCE_INFO;

/* Passed BY VALUE to EventPipeAddProviderToSession (32 bytes: in memory). */
typedef struct COR_PRF_EVENTPIPE_PROVIDER_CONFIG {
    const WCHAR *providerName;
    UINT64       keywords;
    UINT32       loggingLevel;
    const WCHAR *filterData;   /* "key1=value1;key2=value2;" or NULL */
} COR_PRF_EVENTPIPE_PROVIDER_CONFIG;

typedef struct COR_PRF_EVENTPIPE_PARAM_DESC {
    UINT32       type;         /* COR_PRF_EVENTPIPE_PARAM_TYPE */
    UINT32       elementType;  /* used only if type == COR_PRF_EVENTPIPE_ARRAY */
    const WCHAR *name;
} COR_PRF_EVENTPIPE_PARAM_DESC;

typedef struct COR_PRF_EVENT_DATA {
    UINT64 ptr;
    UINT32 size;
    UINT32 reserved;
} COR_PRF_EVENT_DATA;

typedef struct COR_PRF_FILTER_DATA {
    UINT64 Ptr;
    UINT32 Size;
    UINT32 Type;
} COR_PRF_FILTER_DATA;

_Static_assert(sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE) == 16, "COR_PRF_FUNCTION_ARGUMENT_RANGE size");
_Static_assert(sizeof(COR_PRF_FUNCTION_ARGUMENT_INFO) == 8 + 16 * 1, "COR_PRF_FUNCTION_ARGUMENT_INFO size");
_Static_assert(offsetof(COR_PRF_FUNCTION_ARGUMENT_INFO, ranges) == 8, "ranges[] offset");
_Static_assert(sizeof(COR_PRF_CODE_INFO) == 16, "COR_PRF_CODE_INFO size");
_Static_assert(sizeof(COR_PRF_FUNCTION) == 16, "COR_PRF_FUNCTION size");
_Static_assert(sizeof(COR_PRF_METHOD) == 16, "COR_PRF_METHOD size");
_Static_assert(sizeof(COR_PRF_GC_GENERATION_RANGE) == 32, "COR_PRF_GC_GENERATION_RANGE size");
_Static_assert(sizeof(COR_PRF_NONGC_HEAP_RANGE) == 24, "COR_PRF_NONGC_HEAP_RANGE size");
_Static_assert(sizeof(COR_PRF_EX_CLAUSE_INFO) == 32, "COR_PRF_EX_CLAUSE_INFO size");
_Static_assert(sizeof(COR_IL_MAP) == 12, "COR_IL_MAP size");
_Static_assert(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP) == 12, "COR_DEBUG_IL_TO_NATIVE_MAP size");
_Static_assert(sizeof(COR_FIELD_OFFSET) == 8, "COR_FIELD_OFFSET size");
_Static_assert(sizeof(COR_PRF_ASSEMBLY_REFERENCE_INFO) == 48, "COR_PRF_ASSEMBLY_REFERENCE_INFO size");
_Static_assert(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG) == 32, "COR_PRF_EVENTPIPE_PROVIDER_CONFIG size");
_Static_assert(offsetof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, filterData) == 24, "filterData offset");
_Static_assert(sizeof(COR_PRF_EVENTPIPE_PARAM_DESC) == 16, "COR_PRF_EVENTPIPE_PARAM_DESC size");
_Static_assert(sizeof(COR_PRF_EVENT_DATA) == 16, "COR_PRF_EVENT_DATA size");
_Static_assert(sizeof(COR_PRF_FILTER_DATA) == 16, "COR_PRF_FILTER_DATA size");

/* ========================================================================
 * Function types the profiler hands to the runtime (section 0).  Like the
 * IDL, most are function types (use them as 'FunctionEnter3 *p'); the IDL
 * declares ObjectCallback as a pointer type.
 * ======================================================================== */

/* v1 hooks (deprecated). */
typedef void FunctionEnter(FunctionID funcID);
typedef void FunctionLeave(FunctionID funcID);
typedef void FunctionTailcall(FunctionID funcID);

/* v2 hooks (deprecated). */
typedef void FunctionEnter2(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
                            COR_PRF_FUNCTION_ARGUMENT_INFO *argumentInfo);
typedef void FunctionLeave2(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
                            COR_PRF_FUNCTION_ARGUMENT_RANGE *retvalRange);
typedef void FunctionTailcall2(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func);

/* v3 fast-path hooks: called straight from JIT-compiled code without saving
 * registers, so on Linux x64 they must be register-preserving assembly stubs
 * (docs/runtime-abi.md, "Enter, leave and tailcall hooks"), not plain C
 * functions. */
typedef void FunctionEnter3(FunctionIDOrClientID functionIDOrClientID);
typedef void FunctionLeave3(FunctionIDOrClientID functionIDOrClientID);
typedef void FunctionTailcall3(FunctionIDOrClientID functionIDOrClientID);

/* v3 slow-path hooks: ordinary C functions are fine. */
typedef void FunctionEnter3WithInfo(FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);
typedef void FunctionLeave3WithInfo(FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);
typedef void FunctionTailcall3WithInfo(FunctionIDOrClientID functionIDOrClientID,
                                       COR_PRF_ELT_INFO eltInfo);

/* Must not return 0 unless *pbHookFunction is set to FALSE. */
typedef UINT_PTR FunctionIDMapper(FunctionID funcId, BOOL *pbHookFunction);
typedef UINT_PTR FunctionIDMapper2(FunctionID funcId, void *clientData, BOOL *pbHookFunction);

/* DoStackSnapshot callback: once per managed frame (funcId != 0) or run of
 * native frames (funcId == 0).  context is a PAL CONTEXT only with
 * COR_PRF_SNAPSHOT_REGISTER_CONTEXT. */
typedef HRESULT StackSnapshotCallback(FunctionID funcId, UINT_PTR ip, COR_PRF_FRAME_INFO frameInfo,
                                      ULONG32 contextSize, BYTE *context, void *clientData);

/* Info10::EnumerateObjectReferences: one call per reference of an object. */
typedef BOOL ObjectReferenceCallback(ObjectID root, ObjectID *reference, void *clientData);

/* Info15::EnumerateGCHeapObjects: one call per heap object; return FALSE to stop. */
typedef BOOL (*ObjectCallback)(ObjectID object, void *callbackState);

/* Info14::EventPipeCreateProvider2. */
typedef void EventPipeProviderCallback(const UINT8 *source_id, UINT32 is_enabled, UINT8 level,
                                       UINT64 match_any_keywords, UINT64 match_all_keywords,
                                       COR_PRF_FILTER_DATA *filter_data, void *callback_data);

/* ========================================================================
 * HRESULTs of the profiling API (section 6; facility 0x13 -> 0x8013xxxx).
 * ======================================================================== */

#define CORPROF_E_FUNCTION_NOT_COMPILED              ((HRESULT)0x80131350)
#define CORPROF_E_DATAINCOMPLETE                     ((HRESULT)0x80131351)
#define CORPROF_E_FUNCTION_NOT_IL                    ((HRESULT)0x80131354)
#define CORPROF_E_NOT_MANAGED_THREAD                 ((HRESULT)0x80131355)
#define CORPROF_E_CALL_ONLY_FROM_INIT                ((HRESULT)0x80131356)
#define CORPROF_E_NOT_YET_AVAILABLE                  ((HRESULT)0x8013135B)
#define CORPROF_E_TYPE_IS_PARAMETERIZED              ((HRESULT)0x8013135C)
#define CORPROF_E_FUNCTION_IS_PARAMETERIZED          ((HRESULT)0x8013135D)
#define CORPROF_E_STACKSNAPSHOT_INVALID_TGT_THREAD   ((HRESULT)0x8013135E)
#define CORPROF_E_STACKSNAPSHOT_UNMANAGED_CTX        ((HRESULT)0x8013135F)
#define CORPROF_E_STACKSNAPSHOT_UNSAFE               ((HRESULT)0x80131360)
#define CORPROF_E_STACKSNAPSHOT_ABORTED              ((HRESULT)0x80131361)
#define CORPROF_E_LITERALS_HAVE_NO_ADDRESS           ((HRESULT)0x80131362)
#define CORPROF_E_UNSUPPORTED_CALL_SEQUENCE          ((HRESULT)0x80131363)
#define CORPROF_E_ASYNCHRONOUS_UNSAFE                ((HRESULT)0x80131364)
#define CORPROF_E_CLASSID_IS_ARRAY                   ((HRESULT)0x80131365)
#define CORPROF_E_CLASSID_IS_COMPOSITE               ((HRESULT)0x80131366)
#define CORPROF_E_PROFILER_DETACHING                 ((HRESULT)0x80131367)
#define CORPROF_E_PROFILER_NOT_ATTACHABLE            ((HRESULT)0x80131368)
#define CORPROF_E_UNRECOGNIZED_PIPE_MSG_FORMAT       ((HRESULT)0x80131369)
#define CORPROF_E_PROFILER_ALREADY_ACTIVE            ((HRESULT)0x8013136A)
#define CORPROF_E_PROFILEE_INCOMPATIBLE_WITH_TRIGGER ((HRESULT)0x8013136B)
#define CORPROF_E_IPC_FAILED                         ((HRESULT)0x8013136C)
#define CORPROF_E_PROFILEE_PROCESS_NOT_FOUND         ((HRESULT)0x8013136D)
#define CORPROF_E_CALLBACK3_REQUIRED                 ((HRESULT)0x8013136E)
#define CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER ((HRESULT)0x8013136F)
#define CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT ((HRESULT)0x80131370)
#define CORPROF_E_RUNTIME_UNINITIALIZED              ((HRESULT)0x80131371)
#define CORPROF_E_IMMUTABLE_FLAGS_SET                ((HRESULT)0x80131372)
#define CORPROF_E_PROFILER_NOT_YET_INITIALIZED       ((HRESULT)0x80131373)
#define CORPROF_E_INCONSISTENT_WITH_FLAGS            ((HRESULT)0x80131374)
#define CORPROF_E_PROFILER_CANCEL_ACTIVATION         ((HRESULT)0x80131375)
#define CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE       ((HRESULT)0x80131376)
#define CORPROF_E_DEBUGGING_DISABLED                 ((HRESULT)0x80131378)
#define CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC  ((HRESULT)0x80131379)
#define CORPROF_E_MODULE_IS_DYNAMIC                  ((HRESULT)0x8013137A)
#define CORPROF_E_CALLBACK4_REQUIRED                 ((HRESULT)0x8013137B)
#define CORPROF_E_REJIT_NOT_ENABLED                  ((HRESULT)0x8013137C)
#define CORPROF_E_FUNCTION_IS_COLLECTIBLE            ((HRESULT)0x8013137E)
#define CORPROF_E_CALLBACK6_REQUIRED                 ((HRESULT)0x80131380)
#define CORPROF_E_RUNTIME_SUSPEND_REQUIRED           ((HRESULT)0x80131381)  /* runtime-internal */
#define CORPROF_E_CALLBACK7_REQUIRED                 ((HRESULT)0x80131382)
#define CORPROF_E_REJIT_INLINING_DISABLED            ((HRESULT)0x80131383)
#define CORDIAGIPC_E_BAD_ENCODING                    ((HRESULT)0x80131384)
#define CORDIAGIPC_E_UNKNOWN_COMMAND                 ((HRESULT)0x80131385)
#define CORDIAGIPC_E_UNKNOWN_MAGIC                   ((HRESULT)0x80131386)
#define CORDIAGIPC_E_UNKNOWN_ERROR                   ((HRESULT)0x80131387)
#define CORPROF_E_SUSPENSION_IN_PROGRESS             ((HRESULT)0x80131388)
/* The next two come from a third-party copy of the newer corerror.xml (not
 * checked against the runtime's own); only newer runtimes return them. */
#define CORPROF_E_NOT_GC_OBJECT                      ((HRESULT)0x80131389)
#define CORPROF_E_MODULE_IS_ENC                      ((HRESULT)0x8013138A)

/* GetObjectSize on an object larger than 4 GB (use GetObjectSize2). */
#define COR_E_OVERFLOW                               ((HRESULT)0x80131516)

/* ========================================================================
 * Interfaces (section 1).  Forward declarations first: the vtables refer to
 * each other.
 * ======================================================================== */

typedef struct ICorProfilerCallback11 ICorProfilerCallback11;
typedef struct ICorProfilerInfo15 ICorProfilerInfo15;
typedef struct ICorProfilerObjectEnum ICorProfilerObjectEnum;
typedef struct ICorProfilerFunctionEnum ICorProfilerFunctionEnum;
typedef struct ICorProfilerModuleEnum ICorProfilerModuleEnum;
typedef struct ICorProfilerMethodEnum ICorProfilerMethodEnum;
typedef struct ICorProfilerThreadEnum ICorProfilerThreadEnum;
typedef struct IMethodMalloc IMethodMalloc;
typedef struct ICorProfilerFunctionControl ICorProfilerFunctionControl;
typedef struct ICorProfilerAssemblyReferenceProvider ICorProfilerAssemblyReferenceProvider;

/* ------------------------------------------------------------------------
 * ICorProfilerCallback .. ICorProfilerCallback11: implemented by us, called
 * by the runtime.  One table, 98 slots.  Unless noted every method returns
 * HRESULT; the runtime mostly ignores the value (return S_OK).
 * One deviation from the IDL spelling: the unused UINT_PTR parameter of
 * ExceptionOSHandlerEnter/Leave, named '__unused' in the IDL, is called
 * 'reserved' here ('__unused' is a reserved identifier and a macro in some
 * C libraries).
 * ------------------------------------------------------------------------ */

typedef struct ICorProfilerCallbackVtbl {
    /* ---- IUnknown (slots 0..2) ---- */
    /*   0 */ HRESULT (*QueryInterface)(ICorProfilerCallback11 *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(ICorProfilerCallback11 *This);
    /*   2 */ ULONG (*Release)(ICorProfilerCallback11 *This);

    /* ---- ICorProfilerCallback .. ICorProfilerCallback11 (slots 3..97): one member
     * per entry of corprof_callbacks.def, where the versions' IIDs and slot
     * ranges are (and CORPROF_CALLBACK_SLOTS_Vn below) ---- */
#define CORPROF_CALLBACK(slot, name, ret, params) ret (*name) params;
#include "corprof_callbacks.def"
} ICorProfilerCallbackVtbl;

struct ICorProfilerCallback11 {
    const ICorProfilerCallbackVtbl *lpVtbl;
};

/* Total vtable entries (IUnknown's 3 included) of each callback version. */
#define CORPROF_CALLBACK_SLOTS_V1   72   /* ICorProfilerCallback */
#define CORPROF_CALLBACK_SLOTS_V2   80   /* ICorProfilerCallback2 */
#define CORPROF_CALLBACK_SLOTS_V3   83   /* ICorProfilerCallback3 */
#define CORPROF_CALLBACK_SLOTS_V4   89   /* ICorProfilerCallback4 */
#define CORPROF_CALLBACK_SLOTS_V5   90   /* ICorProfilerCallback5 */
#define CORPROF_CALLBACK_SLOTS_V6   91   /* ICorProfilerCallback6 */
#define CORPROF_CALLBACK_SLOTS_V7   92   /* ICorProfilerCallback7 */
#define CORPROF_CALLBACK_SLOTS_V8   94   /* ICorProfilerCallback8 */
#define CORPROF_CALLBACK_SLOTS_V9   95   /* ICorProfilerCallback9 */
#define CORPROF_CALLBACK_SLOTS_V10  97   /* ICorProfilerCallback10 */
#define CORPROF_CALLBACK_SLOTS_V11  98   /* ICorProfilerCallback11 */

/* ------------------------------------------------------------------------
 * ICorProfilerInfo .. ICorProfilerInfo15: implemented by the runtime.  One
 * table, 115 slots.
 *
 * ONLY CALL A MEMBER THAT THE RUNTIME'S VERSION HAS.  The runtime's table is
 * CORPROF_INFO_SLOTS_VN entries long, N being the highest IID_ICorProfilerInfoN
 * that QueryInterface accepted; members at or past that slot do not exist.
 * ------------------------------------------------------------------------ */

typedef struct ICorProfilerInfoVtbl {
    /* ---- IUnknown (slots 0..2) ---- */
    /*   0 */ HRESULT (*QueryInterface)(ICorProfilerInfo15 *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(ICorProfilerInfo15 *This);
    /*   2 */ ULONG (*Release)(ICorProfilerInfo15 *This);

    /* ---- ICorProfilerInfo .. ICorProfilerInfo15 (slots 3..114): one member per
     * entry of corprof_info.def, where the versions' IIDs and slot ranges are
     * (and CORPROF_INFO_SLOTS_Vn below) ---- */
#define CORPROF_INFO(slot, name, ret, params) ret (*name) params;
#include "corprof_info.def"
} ICorProfilerInfoVtbl;

struct ICorProfilerInfo15 {
    const ICorProfilerInfoVtbl *lpVtbl;
};

/* Total vtable entries (IUnknown's 3 included) of each info version: a member
 * m may be called on a runtime that gave us ICorProfilerInfoN only if
 * CORPROF_SLOT(ICorProfilerInfoVtbl, m) < CORPROF_INFO_SLOTS_VN. */
#define CORPROF_INFO_SLOTS_V1   36   /* ICorProfilerInfo */
#define CORPROF_INFO_SLOTS_V2   57   /* ICorProfilerInfo2 */
#define CORPROF_INFO_SLOTS_V3   71   /* ICorProfilerInfo3 */
#define CORPROF_INFO_SLOTS_V4   81   /* ICorProfilerInfo4 */
#define CORPROF_INFO_SLOTS_V5   83   /* ICorProfilerInfo5 */
#define CORPROF_INFO_SLOTS_V6   84   /* ICorProfilerInfo6 */
#define CORPROF_INFO_SLOTS_V7   87   /* ICorProfilerInfo7 */
#define CORPROF_INFO_SLOTS_V8   90   /* ICorProfilerInfo8 */
#define CORPROF_INFO_SLOTS_V9   93   /* ICorProfilerInfo9 */
#define CORPROF_INFO_SLOTS_V10  99   /* ICorProfilerInfo10 */
#define CORPROF_INFO_SLOTS_V11 101   /* ICorProfilerInfo11 */
#define CORPROF_INFO_SLOTS_V12 108   /* ICorProfilerInfo12 */
#define CORPROF_INFO_SLOTS_V13 111   /* ICorProfilerInfo13 */
#define CORPROF_INFO_SLOTS_V14 114   /* ICorProfilerInfo14 */
#define CORPROF_INFO_SLOTS_V15 115   /* ICorProfilerInfo15 */

/* ------------------------------------------------------------------------
 * Enumerators handed out by the runtime.  Usual protocol: GetCount, then
 * Next(celt, buf, &fetched) until it returns S_FALSE; Release when done.
 * ------------------------------------------------------------------------ */

typedef struct ICorProfilerObjectEnumVtbl {
    /* ---- IUnknown (slots 0..2) ---- */
    /*   0 */ HRESULT (*QueryInterface)(ICorProfilerObjectEnum *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(ICorProfilerObjectEnum *This);
    /*   2 */ ULONG (*Release)(ICorProfilerObjectEnum *This);

    /* ---- ICorProfilerObjectEnum {2C6269BD-2D13-4321-AE12-6686365FD6AF} (slots 3..7) ---- */
    /*   3 */ HRESULT (*Skip)(ICorProfilerObjectEnum *This, ULONG celt);
    /*   4 */ HRESULT (*Reset)(ICorProfilerObjectEnum *This);
    /*   5 */ HRESULT (*Clone)(ICorProfilerObjectEnum *This, ICorProfilerObjectEnum **ppEnum);
    /*   6 */ HRESULT (*GetCount)(ICorProfilerObjectEnum *This, ULONG *pcelt);
    /*   7 */ HRESULT (*Next)(ICorProfilerObjectEnum *This, ULONG celt, ObjectID *objects,
                ULONG *pceltFetched);
} ICorProfilerObjectEnumVtbl;

struct ICorProfilerObjectEnum {
    const ICorProfilerObjectEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerFunctionEnumVtbl {
    /* ---- IUnknown (slots 0..2) ---- */
    /*   0 */ HRESULT (*QueryInterface)(ICorProfilerFunctionEnum *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(ICorProfilerFunctionEnum *This);
    /*   2 */ ULONG (*Release)(ICorProfilerFunctionEnum *This);

    /* ---- ICorProfilerFunctionEnum {FF71301A-B994-429D-A10B-B345A65280EF} (slots 3..7) ---- */
    /*   3 */ HRESULT (*Skip)(ICorProfilerFunctionEnum *This, ULONG celt);
    /*   4 */ HRESULT (*Reset)(ICorProfilerFunctionEnum *This);
    /*   5 */ HRESULT (*Clone)(ICorProfilerFunctionEnum *This, ICorProfilerFunctionEnum **ppEnum);
    /*   6 */ HRESULT (*GetCount)(ICorProfilerFunctionEnum *This, ULONG *pcelt);
    /*   7 */ HRESULT (*Next)(ICorProfilerFunctionEnum *This, ULONG celt, COR_PRF_FUNCTION *ids,
                ULONG *pceltFetched);
} ICorProfilerFunctionEnumVtbl;

struct ICorProfilerFunctionEnum {
    const ICorProfilerFunctionEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerModuleEnumVtbl {
    /* ---- IUnknown (slots 0..2) ---- */
    /*   0 */ HRESULT (*QueryInterface)(ICorProfilerModuleEnum *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(ICorProfilerModuleEnum *This);
    /*   2 */ ULONG (*Release)(ICorProfilerModuleEnum *This);

    /* ---- ICorProfilerModuleEnum {B0266D75-2081-4493-AF7F-028BA34DB891} (slots 3..7) ---- */
    /*   3 */ HRESULT (*Skip)(ICorProfilerModuleEnum *This, ULONG celt);
    /*   4 */ HRESULT (*Reset)(ICorProfilerModuleEnum *This);
    /*   5 */ HRESULT (*Clone)(ICorProfilerModuleEnum *This, ICorProfilerModuleEnum **ppEnum);
    /*   6 */ HRESULT (*GetCount)(ICorProfilerModuleEnum *This, ULONG *pcelt);
    /*   7 */ HRESULT (*Next)(ICorProfilerModuleEnum *This, ULONG celt, ModuleID *ids, ULONG *pceltFetched);
} ICorProfilerModuleEnumVtbl;

struct ICorProfilerModuleEnum {
    const ICorProfilerModuleEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerMethodEnumVtbl {
    /* ---- IUnknown (slots 0..2) ---- */
    /*   0 */ HRESULT (*QueryInterface)(ICorProfilerMethodEnum *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(ICorProfilerMethodEnum *This);
    /*   2 */ ULONG (*Release)(ICorProfilerMethodEnum *This);

    /* ---- ICorProfilerMethodEnum {FCCEE788-0088-454B-A811-C99F298D1942} (slots 3..7) ---- */
    /*   3 */ HRESULT (*Skip)(ICorProfilerMethodEnum *This, ULONG celt);
    /*   4 */ HRESULT (*Reset)(ICorProfilerMethodEnum *This);
    /*   5 */ HRESULT (*Clone)(ICorProfilerMethodEnum *This, ICorProfilerMethodEnum **ppEnum);
    /*   6 */ HRESULT (*GetCount)(ICorProfilerMethodEnum *This, ULONG *pcelt);
    /*   7 */ HRESULT (*Next)(ICorProfilerMethodEnum *This, ULONG celt, COR_PRF_METHOD *elements,
                ULONG *pceltFetched);
} ICorProfilerMethodEnumVtbl;

struct ICorProfilerMethodEnum {
    const ICorProfilerMethodEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerThreadEnumVtbl {
    /* ---- IUnknown (slots 0..2) ---- */
    /*   0 */ HRESULT (*QueryInterface)(ICorProfilerThreadEnum *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(ICorProfilerThreadEnum *This);
    /*   2 */ ULONG (*Release)(ICorProfilerThreadEnum *This);

    /* ---- ICorProfilerThreadEnum {571194F7-25ED-419F-AA8B-7016B3159701} (slots 3..7) ---- */
    /*   3 */ HRESULT (*Skip)(ICorProfilerThreadEnum *This, ULONG celt);
    /*   4 */ HRESULT (*Reset)(ICorProfilerThreadEnum *This);
    /*   5 */ HRESULT (*Clone)(ICorProfilerThreadEnum *This, ICorProfilerThreadEnum **ppEnum);
    /*   6 */ HRESULT (*GetCount)(ICorProfilerThreadEnum *This, ULONG *pcelt);
    /*   7 */ HRESULT (*Next)(ICorProfilerThreadEnum *This, ULONG celt, ThreadID *ids, ULONG *pceltFetched);
} ICorProfilerThreadEnumVtbl;

struct ICorProfilerThreadEnum {
    const ICorProfilerThreadEnumVtbl *lpVtbl;
};

/* ------------------------------------------------------------------------
 * Helpers for IL rewriting / ReJIT (runtime-implemented, except the
 * reference provider which the runtime passes to Callback6).
 * ------------------------------------------------------------------------ */

/* Alloc returns memory (not an HRESULT) for a new IL method body. */
typedef struct IMethodMallocVtbl {
    /* ---- IUnknown (slots 0..2) ---- */
    /*   0 */ HRESULT (*QueryInterface)(IMethodMalloc *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(IMethodMalloc *This);
    /*   2 */ ULONG (*Release)(IMethodMalloc *This);

    /* ---- IMethodMalloc {A0EFB28B-6EE2-4D7B-B983-A75EF7BEEDB8} (slot 3) ---- */
    /*   3 */ PVOID (*Alloc)(IMethodMalloc *This, ULONG cb);
} IMethodMallocVtbl;

struct IMethodMalloc {
    const IMethodMallocVtbl *lpVtbl;
};

typedef struct ICorProfilerFunctionControlVtbl {
    /* ---- IUnknown (slots 0..2) ---- */
    /*   0 */ HRESULT (*QueryInterface)(ICorProfilerFunctionControl *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(ICorProfilerFunctionControl *This);
    /*   2 */ ULONG (*Release)(ICorProfilerFunctionControl *This);

    /* ---- ICorProfilerFunctionControl {F0963021-E1EA-4732-8581-E01B0BD3C0C6} (slots 3..5) ---- */
    /*   3 */ HRESULT (*SetCodegenFlags)(ICorProfilerFunctionControl *This, DWORD flags);
    /*   4 */ HRESULT (*SetILFunctionBody)(ICorProfilerFunctionControl *This, ULONG cbNewILMethodHeader,
                LPCBYTE pbNewILMethodHeader);
    /*   5 */ HRESULT (*SetILInstrumentedCodeMap)(ICorProfilerFunctionControl *This, ULONG cILMapEntries,
                COR_IL_MAP *rgILMapEntries);
} ICorProfilerFunctionControlVtbl;

struct ICorProfilerFunctionControl {
    const ICorProfilerFunctionControlVtbl *lpVtbl;
};

typedef struct ICorProfilerAssemblyReferenceProviderVtbl {
    /* ---- IUnknown (slots 0..2) ---- */
    /*   0 */ HRESULT (*QueryInterface)(ICorProfilerAssemblyReferenceProvider *This, REFIID riid,
                void **ppvObject);
    /*   1 */ ULONG (*AddRef)(ICorProfilerAssemblyReferenceProvider *This);
    /*   2 */ ULONG (*Release)(ICorProfilerAssemblyReferenceProvider *This);

    /* ---- ICorProfilerAssemblyReferenceProvider {66A78C24-2EEF-4F65-B45F-DD1D8038BF3C} (slot 3) ---- */
    /*   3 */ HRESULT (*AddAssemblyReference)(ICorProfilerAssemblyReferenceProvider *This,
                const COR_PRF_ASSEMBLY_REFERENCE_INFO *pAssemblyRefInfo);
} ICorProfilerAssemblyReferenceProviderVtbl;

struct ICorProfilerAssemblyReferenceProvider {
    const ICorProfilerAssemblyReferenceProviderVtbl *lpVtbl;
};

/* ========================================================================
 * Interface IDs (defined in guids.c).
 * ======================================================================== */

extern const GUID IID_ICorProfilerCallback;
extern const GUID IID_ICorProfilerCallback2;
extern const GUID IID_ICorProfilerCallback3;
extern const GUID IID_ICorProfilerCallback4;
extern const GUID IID_ICorProfilerCallback5;
extern const GUID IID_ICorProfilerCallback6;
extern const GUID IID_ICorProfilerCallback7;
extern const GUID IID_ICorProfilerCallback8;
extern const GUID IID_ICorProfilerCallback9;
extern const GUID IID_ICorProfilerCallback10;
extern const GUID IID_ICorProfilerCallback11;
extern const GUID IID_ICorProfilerInfo;
extern const GUID IID_ICorProfilerInfo2;
extern const GUID IID_ICorProfilerInfo3;
extern const GUID IID_ICorProfilerInfo4;
extern const GUID IID_ICorProfilerInfo5;
extern const GUID IID_ICorProfilerInfo6;
extern const GUID IID_ICorProfilerInfo7;
extern const GUID IID_ICorProfilerInfo8;
extern const GUID IID_ICorProfilerInfo9;
extern const GUID IID_ICorProfilerInfo10;
extern const GUID IID_ICorProfilerInfo11;
extern const GUID IID_ICorProfilerInfo12;
extern const GUID IID_ICorProfilerInfo13;
extern const GUID IID_ICorProfilerInfo14;
extern const GUID IID_ICorProfilerInfo15;
extern const GUID IID_ICorProfilerAssemblyReferenceProvider;
extern const GUID IID_ICorProfilerFunctionControl;
extern const GUID IID_ICorProfilerFunctionEnum;
extern const GUID IID_ICorProfilerMethodEnum;
extern const GUID IID_ICorProfilerModuleEnum;
extern const GUID IID_ICorProfilerObjectEnum;
extern const GUID IID_ICorProfilerThreadEnum;
extern const GUID IID_IMethodMalloc;

/* ========================================================================
 * Compile-time layout checks.  A wrong slot means calling the wrong runtime
 * function (or the runtime calling the wrong one of ours), which crashes the
 * profiled process, so every method is pinned to its slot number from the
 * reference table, and every version's first and last method to the
 * summary table (first own slot = previous version's total).
 * ======================================================================== */

#define CORPROF_SLOT(type, member) COM_SLOT(type, member)

#define CORPROF_CHECK_SLOT(type, member, slot) \
    _Static_assert(CORPROF_SLOT(type, member) == (slot), #type "::" #member " must be slot " #slot)

#define CORPROF_CHECK_VERSION(type, first, last, base_slots, total_slots)                     \
    _Static_assert(CORPROF_SLOT(type, first) == (base_slots), #type ": " #first " must follow its base"); \
    _Static_assert(CORPROF_SLOT(type, last) == (total_slots) - 1, #type ": " #last " must be last")

_Static_assert(COM_VTBL_ENTRIES(ICorProfilerCallbackVtbl) == 98, "ICorProfilerCallbackVtbl: 98 slots");
_Static_assert(COM_VTBL_ENTRIES(ICorProfilerCallbackVtbl) == CORPROF_CALLBACK_SLOTS_V11, "callback slots");
_Static_assert(COM_VTBL_ENTRIES(ICorProfilerInfoVtbl) == 115, "ICorProfilerInfoVtbl: 115 slots");
_Static_assert(COM_VTBL_ENTRIES(ICorProfilerInfoVtbl) == CORPROF_INFO_SLOTS_V15, "info slots");

/* ICorProfilerCallback: slots 3..71 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      Initialize, ExceptionCLRCatcherExecute,
                      3, CORPROF_CALLBACK_SLOTS_V1);
/* ICorProfilerCallback2: slots 72..79 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      ThreadNameChanged, HandleDestroyed,
                      CORPROF_CALLBACK_SLOTS_V1, CORPROF_CALLBACK_SLOTS_V2);
/* ICorProfilerCallback3: slots 80..82 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      InitializeForAttach, ProfilerDetachSucceeded,
                      CORPROF_CALLBACK_SLOTS_V2, CORPROF_CALLBACK_SLOTS_V3);
/* ICorProfilerCallback4: slots 83..88 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      ReJITCompilationStarted, SurvivingReferences2,
                      CORPROF_CALLBACK_SLOTS_V3, CORPROF_CALLBACK_SLOTS_V4);
/* ICorProfilerCallback5: slots 89..89 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      ConditionalWeakTableElementReferences, ConditionalWeakTableElementReferences,
                      CORPROF_CALLBACK_SLOTS_V4, CORPROF_CALLBACK_SLOTS_V5);
/* ICorProfilerCallback6: slots 90..90 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      GetAssemblyReferences, GetAssemblyReferences,
                      CORPROF_CALLBACK_SLOTS_V5, CORPROF_CALLBACK_SLOTS_V6);
/* ICorProfilerCallback7: slots 91..91 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      ModuleInMemorySymbolsUpdated, ModuleInMemorySymbolsUpdated,
                      CORPROF_CALLBACK_SLOTS_V6, CORPROF_CALLBACK_SLOTS_V7);
/* ICorProfilerCallback8: slots 92..93 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      DynamicMethodJITCompilationStarted, DynamicMethodJITCompilationFinished,
                      CORPROF_CALLBACK_SLOTS_V7, CORPROF_CALLBACK_SLOTS_V8);
/* ICorProfilerCallback9: slots 94..94 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      DynamicMethodUnloaded, DynamicMethodUnloaded,
                      CORPROF_CALLBACK_SLOTS_V8, CORPROF_CALLBACK_SLOTS_V9);
/* ICorProfilerCallback10: slots 95..96 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      EventPipeEventDelivered, EventPipeProviderCreated,
                      CORPROF_CALLBACK_SLOTS_V9, CORPROF_CALLBACK_SLOTS_V10);
/* ICorProfilerCallback11: slots 97..97 */
CORPROF_CHECK_VERSION(ICorProfilerCallbackVtbl,
                      LoadAsNotificationOnly, LoadAsNotificationOnly,
                      CORPROF_CALLBACK_SLOTS_V10, CORPROF_CALLBACK_SLOTS_V11);
/* ICorProfilerInfo: slots 3..35 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      GetClassFromObject, GetILToNativeMapping,
                      3, CORPROF_INFO_SLOTS_V1);
/* ICorProfilerInfo2: slots 36..56 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      DoStackSnapshot, GetNotifiedExceptionClauseInfo,
                      CORPROF_INFO_SLOTS_V1, CORPROF_INFO_SLOTS_V2);
/* ICorProfilerInfo3: slots 57..70 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      EnumJITedFunctions, GetModuleInfo2,
                      CORPROF_INFO_SLOTS_V2, CORPROF_INFO_SLOTS_V3);
/* ICorProfilerInfo4: slots 71..80 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      EnumThreads, GetObjectSize2,
                      CORPROF_INFO_SLOTS_V3, CORPROF_INFO_SLOTS_V4);
/* ICorProfilerInfo5: slots 81..82 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      GetEventMask2, SetEventMask2,
                      CORPROF_INFO_SLOTS_V4, CORPROF_INFO_SLOTS_V5);
/* ICorProfilerInfo6: slots 83..83 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      EnumNgenModuleMethodsInliningThisMethod, EnumNgenModuleMethodsInliningThisMethod,
                      CORPROF_INFO_SLOTS_V5, CORPROF_INFO_SLOTS_V6);
/* ICorProfilerInfo7: slots 84..86 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      ApplyMetaData, ReadInMemorySymbols,
                      CORPROF_INFO_SLOTS_V6, CORPROF_INFO_SLOTS_V7);
/* ICorProfilerInfo8: slots 87..89 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      IsFunctionDynamic, GetDynamicFunctionInfo,
                      CORPROF_INFO_SLOTS_V7, CORPROF_INFO_SLOTS_V8);
/* ICorProfilerInfo9: slots 90..92 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      GetNativeCodeStartAddresses, GetCodeInfo4,
                      CORPROF_INFO_SLOTS_V8, CORPROF_INFO_SLOTS_V9);
/* ICorProfilerInfo10: slots 93..98 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      EnumerateObjectReferences, ResumeRuntime,
                      CORPROF_INFO_SLOTS_V9, CORPROF_INFO_SLOTS_V10);
/* ICorProfilerInfo11: slots 99..100 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      GetEnvironmentVariable, SetEnvironmentVariable,
                      CORPROF_INFO_SLOTS_V10, CORPROF_INFO_SLOTS_V11);
/* ICorProfilerInfo12: slots 101..107 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      EventPipeStartSession, EventPipeWriteEvent,
                      CORPROF_INFO_SLOTS_V11, CORPROF_INFO_SLOTS_V12);
/* ICorProfilerInfo13: slots 108..110 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      CreateHandle, GetObjectIDFromHandle,
                      CORPROF_INFO_SLOTS_V12, CORPROF_INFO_SLOTS_V13);
/* ICorProfilerInfo14: slots 111..113 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      EnumerateNonGCObjects, EventPipeCreateProvider2,
                      CORPROF_INFO_SLOTS_V13, CORPROF_INFO_SLOTS_V14);
/* ICorProfilerInfo15: slots 114..114 */
CORPROF_CHECK_VERSION(ICorProfilerInfoVtbl,
                      EnumerateGCHeapObjects, EnumerateGCHeapObjects,
                      CORPROF_INFO_SLOTS_V14, CORPROF_INFO_SLOTS_V15);

/* Every callback method at its slot (section 1 tables). */
CORPROF_CHECK_SLOT(ICorProfilerCallbackVtbl, QueryInterface, 0);
CORPROF_CHECK_SLOT(ICorProfilerCallbackVtbl, AddRef, 1);
CORPROF_CHECK_SLOT(ICorProfilerCallbackVtbl, Release, 2);
#define CORPROF_CALLBACK(slot, name, ret, params) CORPROF_CHECK_SLOT(ICorProfilerCallbackVtbl, name, slot);
#include "corprof_callbacks.def"

/* Every info method at its slot (section 1 tables). */
CORPROF_CHECK_SLOT(ICorProfilerInfoVtbl, QueryInterface, 0);
CORPROF_CHECK_SLOT(ICorProfilerInfoVtbl, AddRef, 1);
CORPROF_CHECK_SLOT(ICorProfilerInfoVtbl, Release, 2);
#define CORPROF_INFO(slot, name, ret, params) CORPROF_CHECK_SLOT(ICorProfilerInfoVtbl, name, slot);
#include "corprof_info.def"

/* The small interfaces. */
_Static_assert(COM_VTBL_ENTRIES(ICorProfilerObjectEnumVtbl) == 8,
               "ICorProfilerObjectEnum vtable size");
CORPROF_CHECK_SLOT(ICorProfilerObjectEnumVtbl, Skip, 3);
CORPROF_CHECK_SLOT(ICorProfilerObjectEnumVtbl, Reset, 4);
CORPROF_CHECK_SLOT(ICorProfilerObjectEnumVtbl, Clone, 5);
CORPROF_CHECK_SLOT(ICorProfilerObjectEnumVtbl, GetCount, 6);
CORPROF_CHECK_SLOT(ICorProfilerObjectEnumVtbl, Next, 7);
_Static_assert(COM_VTBL_ENTRIES(ICorProfilerFunctionEnumVtbl) == 8,
               "ICorProfilerFunctionEnum vtable size");
CORPROF_CHECK_SLOT(ICorProfilerFunctionEnumVtbl, Skip, 3);
CORPROF_CHECK_SLOT(ICorProfilerFunctionEnumVtbl, Reset, 4);
CORPROF_CHECK_SLOT(ICorProfilerFunctionEnumVtbl, Clone, 5);
CORPROF_CHECK_SLOT(ICorProfilerFunctionEnumVtbl, GetCount, 6);
CORPROF_CHECK_SLOT(ICorProfilerFunctionEnumVtbl, Next, 7);
_Static_assert(COM_VTBL_ENTRIES(ICorProfilerModuleEnumVtbl) == 8,
               "ICorProfilerModuleEnum vtable size");
CORPROF_CHECK_SLOT(ICorProfilerModuleEnumVtbl, Skip, 3);
CORPROF_CHECK_SLOT(ICorProfilerModuleEnumVtbl, Reset, 4);
CORPROF_CHECK_SLOT(ICorProfilerModuleEnumVtbl, Clone, 5);
CORPROF_CHECK_SLOT(ICorProfilerModuleEnumVtbl, GetCount, 6);
CORPROF_CHECK_SLOT(ICorProfilerModuleEnumVtbl, Next, 7);
_Static_assert(COM_VTBL_ENTRIES(ICorProfilerMethodEnumVtbl) == 8,
               "ICorProfilerMethodEnum vtable size");
CORPROF_CHECK_SLOT(ICorProfilerMethodEnumVtbl, Skip, 3);
CORPROF_CHECK_SLOT(ICorProfilerMethodEnumVtbl, Reset, 4);
CORPROF_CHECK_SLOT(ICorProfilerMethodEnumVtbl, Clone, 5);
CORPROF_CHECK_SLOT(ICorProfilerMethodEnumVtbl, GetCount, 6);
CORPROF_CHECK_SLOT(ICorProfilerMethodEnumVtbl, Next, 7);
_Static_assert(COM_VTBL_ENTRIES(ICorProfilerThreadEnumVtbl) == 8,
               "ICorProfilerThreadEnum vtable size");
CORPROF_CHECK_SLOT(ICorProfilerThreadEnumVtbl, Skip, 3);
CORPROF_CHECK_SLOT(ICorProfilerThreadEnumVtbl, Reset, 4);
CORPROF_CHECK_SLOT(ICorProfilerThreadEnumVtbl, Clone, 5);
CORPROF_CHECK_SLOT(ICorProfilerThreadEnumVtbl, GetCount, 6);
CORPROF_CHECK_SLOT(ICorProfilerThreadEnumVtbl, Next, 7);
_Static_assert(COM_VTBL_ENTRIES(IMethodMallocVtbl) == 4,
               "IMethodMalloc vtable size");
CORPROF_CHECK_SLOT(IMethodMallocVtbl, Alloc, 3);
_Static_assert(COM_VTBL_ENTRIES(ICorProfilerFunctionControlVtbl) == 6,
               "ICorProfilerFunctionControl vtable size");
CORPROF_CHECK_SLOT(ICorProfilerFunctionControlVtbl, SetCodegenFlags, 3);
CORPROF_CHECK_SLOT(ICorProfilerFunctionControlVtbl, SetILFunctionBody, 4);
CORPROF_CHECK_SLOT(ICorProfilerFunctionControlVtbl, SetILInstrumentedCodeMap, 5);
_Static_assert(COM_VTBL_ENTRIES(ICorProfilerAssemblyReferenceProviderVtbl) == 4,
               "ICorProfilerAssemblyReferenceProvider vtable size");
CORPROF_CHECK_SLOT(ICorProfilerAssemblyReferenceProviderVtbl, AddAssemblyReference, 3);

#endif /* CLRPROBE_API_CORPROF_H */
