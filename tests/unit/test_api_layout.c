/* test_api_layout.c - unit tests for the hand-written CLR API declarations in
 * src/api (cor.h, corprof.h, cormetadata.h, guids.c).
 *
 * The headers already _Static_assert every vtable slot; these tests repeat the
 * most important checks at run time (so a failure shows up as a named test,
 * not just a compile error) and check what the compiler cannot: the IID
 * values in guids.c.  Expected values are the facts of docs/runtime-abi.md
 * (from dotnet/runtime's corprof.idl, cor.h, corhdr.h and corerror.xml).
 * In particular every IID is re-parsed here from its canonical string form
 * (as the IDL writes it) and compared with the constant in guids.c, so a
 * typo there fails a test.
 */
#include "unit.h"

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>

#include "api/cor.h"
#include "api/cormetadata.h"
#include "api/corprof.h"

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

/* Parse exactly n hex digits from s into *out.  Returns 0 on a non-hex char. */
static int parse_hex(const char *s, int n, uint32_t *out)
{
    uint32_t v = 0;

    for (int i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (!isxdigit(c))
            return 0;
        v = v * 16 + (uint32_t)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
    }
    *out = v;
    return 1;
}

/* Parse "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX" (braces optional) the way
 * GUIDs are written: Data1-Data2-Data3-Data4[0..1]-Data4[2..7]. */
static int parse_guid(const char *s, GUID *g)
{
    uint32_t v;

    if (*s == '{')
        s++;
    if (!parse_hex(s, 8, &v) || s[8] != '-')
        return 0;
    g->Data1 = v;
    s += 9;
    if (!parse_hex(s, 4, &v) || s[4] != '-')
        return 0;
    g->Data2 = (uint16_t)v;
    s += 5;
    if (!parse_hex(s, 4, &v) || s[4] != '-')
        return 0;
    g->Data3 = (uint16_t)v;
    s += 5;
    for (int i = 0; i < 8; i++) {
        if (i == 2) {
            if (*s != '-')
                return 0;
            s++;
        }
        if (!parse_hex(s, 2, &v))
            return 0;
        g->Data4[i] = (uint8_t)v;
        s += 2;
    }
    return *s == '\0' || (*s == '}' && s[1] == '\0');
}

/* ------------------------------------------------------------------------
 * Basic types (docs/runtime-abi.md, "Scalar types")
 * ------------------------------------------------------------------------ */

TEST(api_type_sizes)
{
    CHECK_EQ(sizeof(WCHAR), 2);
    CHECK_EQ(sizeof(ULONG), 4);
    CHECK_EQ(sizeof(LONG), 4);
    CHECK_EQ(sizeof(DWORD), 4);
    CHECK_EQ(sizeof(HRESULT), 4);
    CHECK_EQ(sizeof(BOOL), 4);
    CHECK_EQ(sizeof(UINT), 4);
    CHECK_EQ(sizeof(ULONG32), 4);
    CHECK_EQ(sizeof(USHORT), 2);
    CHECK_EQ(sizeof(BYTE), 1);
    CHECK_EQ(sizeof(UINT64), 8);
    CHECK_EQ(sizeof(SIZE_T), sizeof(void *));
    CHECK_EQ(sizeof(UINT_PTR), sizeof(void *));
    CHECK_EQ(sizeof(GUID), 16);
    CHECK_EQ(offsetof(GUID, Data2), 4);
    CHECK_EQ(offsetof(GUID, Data3), 6);
    CHECK_EQ(offsetof(GUID, Data4), 8);
    CHECK_EQ(sizeof(mdToken), 4);
    CHECK_EQ(sizeof(FunctionID), 8);
    CHECK_EQ(sizeof(ObjectHandleID), 8);
    CHECK_EQ(sizeof(EVENTPIPE_SESSION), 8);
    CHECK_EQ(sizeof(FunctionIDOrClientID), 8);
    CHECK_EQ(sizeof(CorElementType), 4);
    CHECK_EQ(sizeof(COR_PRF_SUSPEND_REASON), 4);
    /* WCHAR must be unsigned 16-bit, not a signed or 32-bit wchar_t */
    CHECK((WCHAR)-1 == 0xFFFF);
}

TEST(api_hresults)
{
    CHECK_EQ(S_OK, 0);
    CHECK_EQ(S_FALSE, 1);
    CHECK_EQ(E_NOTIMPL, (HRESULT)0x80004001);
    CHECK_EQ(E_NOINTERFACE, (HRESULT)0x80004002);
    CHECK_EQ(E_POINTER, (HRESULT)0x80004003);
    CHECK_EQ(E_FAIL, (HRESULT)0x80004005);
    CHECK_EQ(E_UNEXPECTED, (HRESULT)0x8000FFFF);
    CHECK_EQ(E_OUTOFMEMORY, (HRESULT)0x8007000E);
    CHECK_EQ(E_INVALIDARG, (HRESULT)0x80070057);
    CHECK_EQ(CLASS_E_NOAGGREGATION, (HRESULT)0x80040110);
    CHECK_EQ(CLASS_E_CLASSNOTAVAILABLE, (HRESULT)0x80040111);
    CHECK_EQ(HRESULT_ERROR_INSUFFICIENT_BUFFER, (HRESULT)0x8007007A);
    CHECK_EQ(CORPROF_E_PROFILER_CANCEL_ACTIVATION, (HRESULT)0x80131375);
    CHECK_EQ(CORPROF_E_DATAINCOMPLETE, (HRESULT)0x80131351);
    CHECK_EQ(CORPROF_E_CLASSID_IS_ARRAY, (HRESULT)0x80131365);
    CHECK_EQ(CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER, (HRESULT)0x8013136F);
    CHECK_EQ(CORPROF_E_IMMUTABLE_FLAGS_SET, (HRESULT)0x80131372);
    CHECK_EQ(CORDIAGIPC_E_UNKNOWN_ERROR, (HRESULT)0x80131387);
    CHECK_EQ(CLDB_E_RECORD_NOTFOUND, (HRESULT)0x80131130);
    CHECK_EQ(CLDB_S_TRUNCATION, (HRESULT)0x00131106);

    CHECK(SUCCEEDED(S_OK));
    CHECK(SUCCEEDED(S_FALSE));
    CHECK(SUCCEEDED(CLDB_S_TRUNCATION));     /* a success code, see cormetadata.h */
    CHECK(FAILED(E_FAIL));
    CHECK(FAILED(CORPROF_E_PROFILER_CANCEL_ACTIVATION));
    CHECK(!FAILED(S_FALSE));
}

/* ------------------------------------------------------------------------
 * Vtable shapes (docs/runtime-abi.md, "Interfaces and slots" and "Metadata")
 * ------------------------------------------------------------------------ */

TEST(api_vtable_sizes)
{
    CHECK_EQ(COM_VTBL_ENTRIES(IUnknownVtbl), 3);
    CHECK_EQ(COM_VTBL_ENTRIES(IClassFactoryVtbl), 5);
    CHECK_EQ(COM_VTBL_ENTRIES(ICorProfilerCallbackVtbl), 98);
    CHECK_EQ(COM_VTBL_ENTRIES(ICorProfilerInfoVtbl), 115);
    CHECK_EQ(COM_VTBL_ENTRIES(ICorProfilerObjectEnumVtbl), 8);
    CHECK_EQ(COM_VTBL_ENTRIES(ICorProfilerFunctionEnumVtbl), 8);
    CHECK_EQ(COM_VTBL_ENTRIES(ICorProfilerModuleEnumVtbl), 8);
    CHECK_EQ(COM_VTBL_ENTRIES(ICorProfilerMethodEnumVtbl), 8);
    CHECK_EQ(COM_VTBL_ENTRIES(ICorProfilerThreadEnumVtbl), 8);
    CHECK_EQ(COM_VTBL_ENTRIES(IMethodMallocVtbl), 4);
    CHECK_EQ(COM_VTBL_ENTRIES(ICorProfilerFunctionControlVtbl), 6);
    CHECK_EQ(COM_VTBL_ENTRIES(ICorProfilerAssemblyReferenceProviderVtbl), 4);
    CHECK_EQ(COM_VTBL_ENTRIES(IMetaDataImportVtbl), 65);
    CHECK_EQ(COM_VTBL_ENTRIES(IMetaDataImport2Vtbl), 73);
    CHECK_EQ(COM_VTBL_ENTRIES(IMetaDataAssemblyImportVtbl), 17);

    /* an object is just a pointer to its table */
    CHECK_EQ(sizeof(ICorProfilerCallback11), sizeof(void *));
    CHECK_EQ(sizeof(ICorProfilerInfo15), sizeof(void *));
}

/* Total entries per version = the summary table's "Total vtable entries". */
TEST(api_version_slot_counts)
{
    static const int cb[] = { 0, 72, 80, 83, 89, 90, 91, 92, 94, 95, 97, 98 };
    static const int info[] = { 0, 36, 57, 71, 81, 83, 84, 87, 90, 93, 99, 101, 108, 111, 114, 115 };
    const int cb_macro[] = { 0, CORPROF_CALLBACK_SLOTS_V1, CORPROF_CALLBACK_SLOTS_V2,
        CORPROF_CALLBACK_SLOTS_V3, CORPROF_CALLBACK_SLOTS_V4, CORPROF_CALLBACK_SLOTS_V5,
        CORPROF_CALLBACK_SLOTS_V6, CORPROF_CALLBACK_SLOTS_V7, CORPROF_CALLBACK_SLOTS_V8,
        CORPROF_CALLBACK_SLOTS_V9, CORPROF_CALLBACK_SLOTS_V10, CORPROF_CALLBACK_SLOTS_V11 };
    const int info_macro[] = { 0, CORPROF_INFO_SLOTS_V1, CORPROF_INFO_SLOTS_V2, CORPROF_INFO_SLOTS_V3,
        CORPROF_INFO_SLOTS_V4, CORPROF_INFO_SLOTS_V5, CORPROF_INFO_SLOTS_V6, CORPROF_INFO_SLOTS_V7,
        CORPROF_INFO_SLOTS_V8, CORPROF_INFO_SLOTS_V9, CORPROF_INFO_SLOTS_V10, CORPROF_INFO_SLOTS_V11,
        CORPROF_INFO_SLOTS_V12, CORPROF_INFO_SLOTS_V13, CORPROF_INFO_SLOTS_V14, CORPROF_INFO_SLOTS_V15 };

    for (int v = 1; v <= 11; v++)
        CHECK_EQ(cb_macro[v], cb[v]);
    for (int v = 1; v <= 15; v++)
        CHECK_EQ(info_macro[v], info[v]);
}

TEST(api_callback_slots)
{
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, QueryInterface), 0);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, AddRef), 1);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, Release), 2);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, Initialize), 3);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, Shutdown), 4);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, AppDomainCreationFinished), 6);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, AssemblyLoadFinished), 10);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, AssemblyUnloadStarted), 11);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ModuleLoadFinished), 14);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ModuleUnloadStarted), 15);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ModuleUnloadFinished), 16);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ModuleAttachedToAssembly), 17);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ClassLoadFinished), 19);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ClassUnloadStarted), 20);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, JITCompilationStarted), 23);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, JITCompilationFinished), 24);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, JITCachedFunctionSearchStarted), 25);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, JITCachedFunctionSearchFinished), 26);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ThreadCreated), 29);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ThreadDestroyed), 30);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ThreadAssignedToOSThread), 31);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, RuntimeSuspendStarted), 42);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, RuntimeSuspendFinished), 43);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, RuntimeResumeStarted), 45);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, RuntimeResumeFinished), 46);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ExceptionThrown), 54);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ExceptionCatcherEnter), 66);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ExceptionCLRCatcherExecute), 71);
    /* first own method of each later version */
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ThreadNameChanged), 72);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, GarbageCollectionStarted), 73);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, GarbageCollectionFinished), 75);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, InitializeForAttach), 80);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ProfilerAttachComplete), 81);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ProfilerDetachSucceeded), 82);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ReJITCompilationStarted), 83);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, MovedReferences2), 87);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ConditionalWeakTableElementReferences), 89);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, GetAssemblyReferences), 90);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, ModuleInMemorySymbolsUpdated), 91);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, DynamicMethodJITCompilationStarted), 92);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, DynamicMethodUnloaded), 94);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, EventPipeEventDelivered), 95);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerCallbackVtbl, LoadAsNotificationOnly), 97);
}

TEST(api_info_slots)
{
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetClassFromObject), 3);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetFunctionFromIP), 7);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetThreadInfo), 12);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetCurrentThreadID), 13);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetClassIDInfo), 14);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetFunctionInfo), 15);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, SetEventMask), 16);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetModuleInfo), 20);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetModuleMetaData), 21);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetAppDomainInfo), 25);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetAssemblyInfo), 26);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetILToNativeMapping), 35);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, DoStackSnapshot), 36);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetFunctionInfo2), 38);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetClassIDInfo2), 41);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetCodeInfo2), 42);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, EnumJITedFunctions), 57);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, RequestProfilerDetach), 58);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, EnumModules), 66);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetRuntimeInformation), 67);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetThreadStaticAddress2), 68);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetModuleInfo2), 70);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, EnumThreads), 71);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, InitializeCurrentThread), 72);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetFunctionFromIP2), 76);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetReJITIDs), 77);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, EnumJITedFunctions2), 79);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetObjectSize2), 80);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetEventMask2), 81);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, SetEventMask2), 82);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, EnumNgenModuleMethodsInliningThisMethod), 83);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, ApplyMetaData), 84);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, IsFunctionDynamic), 87);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetNativeCodeStartAddresses), 90);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetILToNativeMapping3), 91);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, EnumerateObjectReferences), 93);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, IsFrozenObject), 94);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, SuspendRuntime), 97);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, ResumeRuntime), 98);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, GetEnvironmentVariable), 99);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, SetEnvironmentVariable), 100);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, EventPipeStartSession), 101);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, CreateHandle), 108);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, EnumerateNonGCObjects), 111);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerInfoVtbl, EnumerateGCHeapObjects), 114);

    /* what a caller on an Info3-only runtime may and may not call */
    CHECK(CORPROF_SLOT(ICorProfilerInfoVtbl, GetModuleInfo2) < CORPROF_INFO_SLOTS_V3);
    CHECK(CORPROF_SLOT(ICorProfilerInfoVtbl, EnumThreads) >= CORPROF_INFO_SLOTS_V3);
}

TEST(api_enum_interface_slots)
{
    CHECK_EQ(CORPROF_SLOT(ICorProfilerModuleEnumVtbl, Skip), 3);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerModuleEnumVtbl, Reset), 4);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerModuleEnumVtbl, Clone), 5);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerModuleEnumVtbl, GetCount), 6);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerModuleEnumVtbl, Next), 7);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerFunctionEnumVtbl, Next), 7);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerThreadEnumVtbl, Next), 7);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerObjectEnumVtbl, Next), 7);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerMethodEnumVtbl, Next), 7);
    CHECK_EQ(CORPROF_SLOT(IMethodMallocVtbl, Alloc), 3);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerFunctionControlVtbl, SetCodegenFlags), 3);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerFunctionControlVtbl, SetILInstrumentedCodeMap), 5);
    CHECK_EQ(CORPROF_SLOT(ICorProfilerAssemblyReferenceProviderVtbl, AddAssemblyReference), 3);
    CHECK_EQ(COM_SLOT(IClassFactoryVtbl, CreateInstance), 3);
    CHECK_EQ(COM_SLOT(IClassFactoryVtbl, LockServer), 4);
}

TEST(api_metadata_slots)
{
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, CloseEnum), 3);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, CountEnum), 4);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, EnumTypeDefs), 6);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, GetScopeProps), 10);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, GetTypeDefProps), 12);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, GetTypeRefProps), 14);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, EnumMethods), 18);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, GetMethodProps), 30);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, GetMemberRefProps), 31);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, GetSigFromToken), 41);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, GetModuleRefProps), 42);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, GetTypeSpecFromToken), 44);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, IsValidToken), 61);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, GetNestedClassProps), 62);
    CHECK_EQ(COM_SLOT(IMetaDataImportVtbl, IsGlobal), 64);

    /* IMetaDataImport2 starts with exactly IMetaDataImport's table */
    CHECK_EQ(COM_SLOT(IMetaDataImport2Vtbl, GetMethodProps), 30);
    CHECK_EQ(COM_SLOT(IMetaDataImport2Vtbl, GetNestedClassProps), 62);
    CHECK_EQ(COM_SLOT(IMetaDataImport2Vtbl, IsGlobal), 64);
    CHECK_EQ(COM_SLOT(IMetaDataImport2Vtbl, EnumGenericParams), 65);
    CHECK_EQ(COM_SLOT(IMetaDataImport2Vtbl, GetGenericParamProps), 66);
    CHECK_EQ(COM_SLOT(IMetaDataImport2Vtbl, GetMethodSpecProps), 67);
    CHECK_EQ(COM_SLOT(IMetaDataImport2Vtbl, EnumMethodSpecs), 72);

    CHECK_EQ(COM_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyProps), 3);
    CHECK_EQ(COM_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyRefProps), 4);
    CHECK_EQ(COM_SLOT(IMetaDataAssemblyImportVtbl, EnumAssemblyRefs), 8);
    CHECK_EQ(COM_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyFromScope), 12);
    CHECK_EQ(COM_SLOT(IMetaDataAssemblyImportVtbl, CloseEnum), 15);
    CHECK_EQ(COM_SLOT(IMetaDataAssemblyImportVtbl, FindAssembliesByName), 16);
}

/* ------------------------------------------------------------------------
 * Calling through the tables, the way the agent will
 * ------------------------------------------------------------------------ */

static ModuleID fake_last_module;

static HRESULT fake_GetModuleInfo2(ICorProfilerInfo15 *This, ModuleID moduleId, LPCBYTE *ppBaseLoadAddress,
                                   ULONG cchName, ULONG *pcchName, WCHAR *szName, AssemblyID *pAssemblyId,
                                   DWORD *pdwModuleFlags)
{
    (void)This;
    fake_last_module = moduleId;
    *ppBaseLoadAddress = NULL;
    if (cchName >= 2) {
        szName[0] = 'A';
        szName[1] = 0;
    }
    *pcchName = 2;
    *pAssemblyId = 0x1234;
    *pdwModuleFlags = COR_PRF_MODULE_DISK;
    return S_OK;
}

TEST(api_call_through_info_vtable)
{
    ICorProfilerInfoVtbl vt;
    ICorProfilerInfo15 obj;
    ICorProfilerInfo15 *info = &obj;
    LPCBYTE base = (LPCBYTE)1;
    WCHAR name[8];
    ULONG len = 0;
    AssemblyID asm_id = 0;
    DWORD flags = 0;
    void **raw = (void **)&vt;

    memset(&vt, 0, sizeof vt);
    vt.GetModuleInfo2 = fake_GetModuleInfo2;
    obj.lpVtbl = &vt;

    /* the member really is the 71st pointer (index 70) of the table */
    CHECK(raw[70] != NULL);
    for (size_t i = 0; i < COM_VTBL_ENTRIES(ICorProfilerInfoVtbl); i++)
        if (i != 70)
            CHECK(raw[i] == NULL);

    CHECK_EQ(info->lpVtbl->GetModuleInfo2(info, 42, &base, 8, &len, name, &asm_id, &flags), S_OK);
    CHECK_EQ(fake_last_module, 42);
    CHECK(base == NULL);
    CHECK_EQ(len, 2);
    CHECK_EQ(name[0], 'A');
    CHECK_EQ(asm_id, 0x1234);
    CHECK_EQ(flags, COR_PRF_MODULE_DISK);
}

static HRESULT fake_LoadAsNotificationOnly(ICorProfilerCallback11 *This, BOOL *pbNotificationOnly)
{
    (void)This;
    *pbNotificationOnly = TRUE;
    return S_OK;
}

TEST(api_callback_vtable_last_slot)
{
    ICorProfilerCallbackVtbl vt;
    ICorProfilerCallback11 obj = { &vt };
    typedef HRESULT (*slot97_fn)(ICorProfilerCallback11 *, BOOL *);
    void **raw = (void **)&vt;
    slot97_fn fn;
    BOOL b = FALSE;

    memset(&vt, 0, sizeof vt);
    vt.LoadAsNotificationOnly = fake_LoadAsNotificationOnly;
    /* the runtime sees it as entry 97 of a 98-entry array */
    memcpy(&fn, &raw[97], sizeof fn);
    CHECK(fn != NULL);
    CHECK_EQ(fn(&obj, &b), S_OK);
    CHECK_EQ(b, TRUE);
}

/* ------------------------------------------------------------------------
 * Flags and enums (sections 2-4)
 * ------------------------------------------------------------------------ */

TEST(api_event_flags)
{
    CHECK_EQ(COR_PRF_MONITOR_GC, 0x80);
    CHECK_EQ(COR_PRF_MONITOR_THREADS, 0x200);
    CHECK_EQ(COR_PRF_ENABLE_STACK_SNAPSHOT, 0x10000000u);
    CHECK_EQ(COR_PRF_DISABLE_ALL_NGEN_IMAGES, 0x80000000u);
    CHECK_EQ(COR_PRF_MONITOR_REMOTING_COOKIE, 0x4400);
    CHECK_EQ(COR_PRF_MONITOR_ALL, 0x0107FFFF);
    CHECK_EQ(COR_PRF_ALL, 0x8FFFFFFFu);
    CHECK_EQ(COR_PRF_ALLOWABLE_AFTER_ATTACH, 0x106502FEu);
    CHECK_EQ(COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER, 0xB1E32B7Fu);
    CHECK_EQ(COR_PRF_MONITOR_IMMUTABLE, 0xEE98CC00u);
    CHECK_EQ(COR_PRF_REQUIRE_PROFILE_IMAGE, 0x20001800u);
    /* the composite masks do not overlap where the runtime expects them apart */
    CHECK_EQ(COR_PRF_ALLOWABLE_AFTER_ATTACH & COR_PRF_MONITOR_IMMUTABLE, 0);

    CHECK_EQ(COR_PRF_HIGH_BASIC_GC, 0x10);
    CHECK_EQ(COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS, 0x20);
    CHECK_EQ(COR_PRF_HIGH_MONITOR_EVENT_PIPE, 0x80);
    CHECK_EQ(COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED, 0x100);
    CHECK_EQ(COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH, 0xF6);
    CHECK_EQ(COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER, 0xFE);
    CHECK_EQ(COR_PRF_HIGH_MONITOR_IMMUTABLE, 0x8);
}

TEST(api_enums)
{
    CHECK_EQ(COR_PRF_SNAPSHOT_REGISTER_CONTEXT, 1);
    CHECK_EQ(COR_PRF_GC_PINNED_OBJECT_HEAP, 4);
    CHECK_EQ(COR_PRF_GC_INDUCED, 1);
    CHECK_EQ(COR_PRF_GC_ROOT_HANDLE, 3);
    CHECK_EQ(COR_PRF_GC_ROOT_REFCOUNTED, 8);
    CHECK_EQ(COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER, 6);
    CHECK_EQ(COR_PRF_SUSPEND_FOR_PROFILER, 9);
    CHECK_EQ(COR_PRF_CORE_CLR, 2);
    CHECK_EQ(COR_PRF_CACHED_FUNCTION_FOUND, 0);
    CHECK_EQ(COR_PRF_MODULE_FLAT_LAYOUT, 0x20);
    CHECK_EQ(COR_PRF_MODULE_WINDOWS_RUNTIME, 0x40);
    CHECK_EQ(COR_PRF_HANDLE_TYPE_PINNED, 3);
    CHECK_EQ(PROFILER_GLOBAL_MODULE, 0xFFFFFFFFu);
    CHECK_EQ(COR_PRF_FIELD_RVA_STATIC, 8);
    CHECK_EQ(COR_PRF_CLAUSE_FINALLY, 3);
    CHECK_EQ(COR_PRF_EVENTPIPE_ARRAY, 19);
    CHECK_EQ(COR_PRF_EVENTPIPE_VERBOSE, 5);
    CHECK_EQ(COR_IL_OFFSET_NO_MAPPING, 0xFFFFFFFFu);
    CHECK_EQ(COR_IL_OFFSET_EPILOG, 0xFFFFFFFDu);
}

TEST(api_struct_sizes)
{
    CHECK_EQ(sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE), 16);
    CHECK_EQ(sizeof(COR_PRF_FUNCTION_ARGUMENT_INFO), 24);
    CHECK_EQ(sizeof(COR_PRF_CODE_INFO), 16);
    CHECK_EQ(sizeof(COR_PRF_FUNCTION), 16);
    CHECK_EQ(sizeof(COR_PRF_METHOD), 16);
    CHECK_EQ(sizeof(COR_PRF_GC_GENERATION_RANGE), 32);
    CHECK_EQ(offsetof(COR_PRF_GC_GENERATION_RANGE, rangeStart), 8);
    CHECK_EQ(sizeof(COR_PRF_NONGC_HEAP_RANGE), 24);
    CHECK_EQ(sizeof(COR_PRF_EX_CLAUSE_INFO), 32);
    CHECK_EQ(sizeof(COR_IL_MAP), 12);
    CHECK_EQ(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP), 12);
    CHECK_EQ(sizeof(COR_FIELD_OFFSET), 8);
    /* some tables say 56; the fields lay out to 48
     * (8 + 4+4pad + 8 + 8 + 8 + 4 + 4) - see the report / corprof.h. */
    CHECK_EQ(sizeof(COR_PRF_ASSEMBLY_REFERENCE_INFO), 48);
    CHECK_EQ(offsetof(COR_PRF_ASSEMBLY_REFERENCE_INFO, szName), 16);
    CHECK_EQ(offsetof(COR_PRF_ASSEMBLY_REFERENCE_INFO, dwAssemblyRefFlags), 44);
    CHECK_EQ(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG), 32);
    CHECK_EQ(sizeof(COR_PRF_EVENTPIPE_PARAM_DESC), 16);
    CHECK_EQ(sizeof(COR_PRF_EVENT_DATA), 16);
    CHECK_EQ(sizeof(COR_PRF_FILTER_DATA), 16);
    CHECK_EQ(sizeof(ASSEMBLYMETADATA), 56);
    CHECK_EQ(offsetof(ASSEMBLYMETADATA, szLocale), 8);
    CHECK_EQ(offsetof(ASSEMBLYMETADATA, ulOS), 48);
    CHECK_EQ(sizeof(OSINFO), 12);
}

TEST(api_metadata_constants)
{
    CHECK_EQ(TypeFromToken(0x06000012u), mdtMethodDef);
    CHECK_EQ(RidFromToken(0x06000012u), 0x12);
    CHECK_EQ(TypeFromToken(0x1b000001u), mdtTypeSpec);
    CHECK_EQ(TokenFromRid(5, mdtTypeRef), 0x01000005u);
    CHECK(IsNilToken(mdTypeRefNil));
    CHECK(!IsNilToken(0x02000001u));
    CHECK_EQ(mdtTypeDef, 0x02000000u);
    CHECK_EQ(mdtMemberRef, 0x0a000000u);
    CHECK_EQ(mdtMethodSpec, 0x2b000000u);
    CHECK_EQ(mdtAssembly, 0x20000000u);
    CHECK_EQ(mdtAssemblyRef, 0x23000000u);
    CHECK_EQ(mdtGenericParam, 0x2a000000u);
    CHECK_EQ(mdtModule, 0);
    CHECK_EQ(mdTokenNil, 0);

    CHECK(!IsTdNested(tdPublic));
    CHECK(!IsTdNested(tdNotPublic | tdSealed));
    CHECK(IsTdNested(tdNestedPublic));
    CHECK(IsTdNested(tdNestedFamORAssem | tdAbstract));

    CHECK_EQ(IMAGE_CEE_CS_CALLCONV_GENERIC, 0x10);
    CHECK_EQ(IMAGE_CEE_CS_CALLCONV_HASTHIS, 0x20);
    CHECK_EQ(IMAGE_CEE_CS_CALLCONV_EXPLICITTHIS, 0x40);
    CHECK_EQ(IMAGE_CEE_CS_CALLCONV_GENERICINST, 0x0A);

    CHECK_EQ(ELEMENT_TYPE_STRING, 0x0E);
    CHECK_EQ(ELEMENT_TYPE_GENERICINST, 0x15);
    CHECK_EQ(ELEMENT_TYPE_I, 0x18);
    CHECK_EQ(ELEMENT_TYPE_OBJECT, 0x1C);
    CHECK_EQ(ELEMENT_TYPE_SZARRAY, 0x1D);
    CHECK_EQ(ELEMENT_TYPE_MVAR, 0x1E);
    CHECK_EQ(ELEMENT_TYPE_SENTINEL, 0x41);
    CHECK_EQ(ofRead, 0);
}

/* ------------------------------------------------------------------------
 * IIDs
 * ------------------------------------------------------------------------ */

/* Byte-level spot checks typed from the IDL's values, independent of the
 * string table below. */
TEST(api_iid_bytes)
{
    static const uint8_t cb3_d4[8] = { 0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5 };
    static const uint8_t info15_d4[8] = { 0x87, 0x2D, 0xDC, 0x71, 0x4C, 0x49, 0xEB, 0x56 };
    static const uint8_t mdi_d4[8] = { 0x9b, 0x67, 0x92, 0x80, 0x1a, 0x49, 0x7d, 0x44 };
    static const uint8_t unk_d4[8] = { 0xC0, 0, 0, 0, 0, 0, 0, 0x46 };
    const uint8_t *p;

    /* {4FD2ED52-7731-4b8d-9469-03D2CC3086C5} (docs/runtime-abi.md, "GUIDs and IIDs") */
    CHECK_EQ(IID_ICorProfilerCallback3.Data1, 0x4FD2ED52u);
    CHECK_EQ(IID_ICorProfilerCallback3.Data2, 0x7731);
    CHECK_EQ(IID_ICorProfilerCallback3.Data3, 0x4B8D);
    CHECK(memcmp(IID_ICorProfilerCallback3.Data4, cb3_d4, 8) == 0);
    /* in memory: Data1 little-endian first */
    p = (const uint8_t *)&IID_ICorProfilerCallback3;
    CHECK_EQ(p[0], 0x52);
    CHECK_EQ(p[3], 0x4F);
    CHECK_EQ(p[4], 0x31);
    CHECK_EQ(p[8], 0x94);

    /* {B446462D-BD22-41DD-872D-DC714C49EB56} */
    CHECK_EQ(IID_ICorProfilerInfo15.Data1, 0xB446462Du);
    CHECK_EQ(IID_ICorProfilerInfo15.Data2, 0xBD22);
    CHECK_EQ(IID_ICorProfilerInfo15.Data3, 0x41DD);
    CHECK(memcmp(IID_ICorProfilerInfo15.Data4, info15_d4, 8) == 0);

    /* {0x7dac8207,0xd3ae,0x4c75,{0x9b,0x67,0x92,0x80,0x1a,0x49,0x7d,0x44}} (cor.h) */
    CHECK_EQ(IID_IMetaDataImport.Data1, 0x7dac8207u);
    CHECK_EQ(IID_IMetaDataImport.Data2, 0xd3ae);
    CHECK_EQ(IID_IMetaDataImport.Data3, 0x4c75);
    CHECK(memcmp(IID_IMetaDataImport.Data4, mdi_d4, 8) == 0);

    CHECK_EQ(IID_IUnknown.Data1, 0);
    CHECK(memcmp(IID_IUnknown.Data4, unk_d4, 8) == 0);
    CHECK_EQ(IID_IClassFactory.Data1, 1);
}

/* Every IID of corprof.idl and cor.h the headers declare, in canonical string form. */
static const struct {
    const char *name;
    const GUID *iid;
    const char *str;
} iid_table[] = {
    { "IID_IUnknown", &IID_IUnknown, "00000000-0000-0000-C000-000000000046" },
    { "IID_IClassFactory", &IID_IClassFactory, "00000001-0000-0000-C000-000000000046" },
    { "IID_ICorProfilerCallback", &IID_ICorProfilerCallback, "176FBED1-A55C-4796-98CA-A9DA0EF883E7" },
    { "IID_ICorProfilerCallback2", &IID_ICorProfilerCallback2, "8A8CC829-CCF2-49FE-BBAE-0F022228071A" },
    { "IID_ICorProfilerCallback3", &IID_ICorProfilerCallback3, "4FD2ED52-7731-4B8D-9469-03D2CC3086C5" },
    { "IID_ICorProfilerCallback4", &IID_ICorProfilerCallback4, "7B63B2E3-107D-4D48-B2F6-F61E229470D2" },
    { "IID_ICorProfilerCallback5", &IID_ICorProfilerCallback5, "8DFBA405-8C9F-45F8-BFFA-83B14CEF78B5" },
    { "IID_ICorProfilerCallback6", &IID_ICorProfilerCallback6, "FC13DF4B-4448-4F4F-950C-BA8D19D00C36" },
    { "IID_ICorProfilerCallback7", &IID_ICorProfilerCallback7, "F76A2DBA-1D52-4539-866C-2AA518F9EFC3" },
    { "IID_ICorProfilerCallback8", &IID_ICorProfilerCallback8, "5BED9B15-C079-4D47-BFE2-215A140C07E0" },
    { "IID_ICorProfilerCallback9", &IID_ICorProfilerCallback9, "27583EC3-C8F5-482F-8052-194B8CE4705A" },
    { "IID_ICorProfilerCallback10", &IID_ICorProfilerCallback10, "CEC5B60E-C69C-495F-87F6-84D28EE16FFB" },
    { "IID_ICorProfilerCallback11", &IID_ICorProfilerCallback11, "42350846-AAED-47F7-B128-FD0C98881CDE" },
    { "IID_ICorProfilerInfo", &IID_ICorProfilerInfo, "28B5557D-3F3F-48B4-90B2-5F9EEA2F6C48" },
    { "IID_ICorProfilerInfo2", &IID_ICorProfilerInfo2, "CC0935CD-A518-487D-B0BB-A93214E65478" },
    { "IID_ICorProfilerInfo3", &IID_ICorProfilerInfo3, "B555ED4F-452A-4E54-8B39-B5360BAD32A0" },
    { "IID_ICorProfilerInfo4", &IID_ICorProfilerInfo4, "0D8FDCAA-6257-47BF-B1BF-94DAC88466EE" },
    { "IID_ICorProfilerInfo5", &IID_ICorProfilerInfo5, "07602928-CE38-4B83-81E7-74ADAF781214" },
    { "IID_ICorProfilerInfo6", &IID_ICorProfilerInfo6, "F30A070D-BFFB-46A7-B1D8-8781EF7B698A" },
    { "IID_ICorProfilerInfo7", &IID_ICorProfilerInfo7, "9AEECC0D-63E0-4187-8C00-E312F503F663" },
    { "IID_ICorProfilerInfo8", &IID_ICorProfilerInfo8, "C5AC80A6-782E-4716-8044-39598C60CFBF" },
    { "IID_ICorProfilerInfo9", &IID_ICorProfilerInfo9, "008170DB-F8CC-4796-9A51-DC8AA0B47012" },
    { "IID_ICorProfilerInfo10", &IID_ICorProfilerInfo10, "2F1B5152-C869-40C9-AA5F-3ABE026BD720" },
    { "IID_ICorProfilerInfo11", &IID_ICorProfilerInfo11, "06398876-8987-4154-B621-40A00D6E4D04" },
    { "IID_ICorProfilerInfo12", &IID_ICorProfilerInfo12, "27B24CCD-1CB1-47C5-96EE-98190DC30959" },
    { "IID_ICorProfilerInfo13", &IID_ICorProfilerInfo13, "6E6C7EE2-0701-4EC2-9D29-2E8733B66934" },
    { "IID_ICorProfilerInfo14", &IID_ICorProfilerInfo14, "F460E352-D76D-4FE9-835F-F6AF9D6E862D" },
    { "IID_ICorProfilerInfo15", &IID_ICorProfilerInfo15, "B446462D-BD22-41DD-872D-DC714C49EB56" },
    { "IID_ICorProfilerAssemblyReferenceProvider", &IID_ICorProfilerAssemblyReferenceProvider,
      "66A78C24-2EEF-4F65-B45F-DD1D8038BF3C" },
    { "IID_ICorProfilerFunctionControl", &IID_ICorProfilerFunctionControl,
      "F0963021-E1EA-4732-8581-E01B0BD3C0C6" },
    { "IID_ICorProfilerFunctionEnum", &IID_ICorProfilerFunctionEnum, "FF71301A-B994-429D-A10B-B345A65280EF" },
    { "IID_ICorProfilerMethodEnum", &IID_ICorProfilerMethodEnum, "FCCEE788-0088-454B-A811-C99F298D1942" },
    { "IID_ICorProfilerModuleEnum", &IID_ICorProfilerModuleEnum, "B0266D75-2081-4493-AF7F-028BA34DB891" },
    { "IID_ICorProfilerObjectEnum", &IID_ICorProfilerObjectEnum, "2C6269BD-2D13-4321-AE12-6686365FD6AF" },
    { "IID_ICorProfilerThreadEnum", &IID_ICorProfilerThreadEnum, "571194F7-25ED-419F-AA8B-7016B3159701" },
    { "IID_IMethodMalloc", &IID_IMethodMalloc, "A0EFB28B-6EE2-4D7B-B983-A75EF7BEEDB8" },
    { "IID_IMetaDataImport", &IID_IMetaDataImport, "7DAC8207-D3AE-4C75-9B67-92801A497D44" },
    { "IID_IMetaDataImport2", &IID_IMetaDataImport2, "FCE5EFA0-8BBA-4F8E-A036-8F2022B08466" },
    { "IID_IMetaDataAssemblyImport", &IID_IMetaDataAssemblyImport, "EE62470B-E94B-424E-9B7C-2F00C9249F93" },
};

TEST(api_iid_strings)
{
    size_t n = sizeof iid_table / sizeof iid_table[0];

    CHECK_EQ(n, 39);   /* 2 COM + 11 callback + 15 info + 8 helpers + 3 metadata */
    for (size_t i = 0; i < n; i++) {
        GUID g;
        if (!parse_guid(iid_table[i].str, &g)) {
            unit_fail(__FILE__, __LINE__, "cannot parse %s", iid_table[i].str);
            continue;
        }
        if (!guid_equal(&g, iid_table[i].iid))
            unit_fail(__FILE__, __LINE__, "%s does not match {%s}", iid_table[i].name, iid_table[i].str);
        /* guid_equal must agree with a byte compare (no padding in GUID) */
        CHECK(memcmp(&g, iid_table[i].iid, sizeof g) == 0);
    }
    /* no two interfaces share an IID */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (guid_equal(iid_table[i].iid, iid_table[j].iid))
                unit_fail(__FILE__, __LINE__, "%s == %s", iid_table[i].name, iid_table[j].name);
}

TEST(api_guid_helpers)
{
    GUID g;

    CHECK(parse_guid("{4FD2ED52-7731-4b8d-9469-03D2CC3086C5}", &g));
    CHECK(guid_equal(&g, &IID_ICorProfilerCallback3));
    g.Data4[7] ^= 1;
    CHECK(!guid_equal(&g, &IID_ICorProfilerCallback3));
    CHECK(!parse_guid("4FD2ED52-7731-4b8d-9469-03D2CC3086C", &g));
    CHECK(!parse_guid("4FD2ED52+7731-4b8d-9469-03D2CC3086C5", &g));
    CHECK(!guid_equal(&IID_ICorProfilerInfo, &IID_ICorProfilerInfo2));
}
