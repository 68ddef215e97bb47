/* cor.h - basic Windows/PAL-style types used by the CLR profiling and metadata
 * interfaces, as a plain C11 header for Linux x64.
 *
 * Facts come from docs/runtime-abi.md: "COM objects in C" (IUnknown and
 * IClassFactory slots), "Scalar types" (PAL type sizes, md* tokens,
 * PCCOR_SIGNATURE), "GUIDs and IIDs" (the layout) and "HRESULTs" (the
 * generic ones).  It is written from those facts, not copied from the
 * runtime's pal_mstypes.h / guiddef.h / unknwn.h.
 *
 * Two traps this header exists to avoid:
 *   - ULONG/LONG/DWORD are 32 bits in the PAL even though C 'long' is 64 bits
 *     on LP64 Linux, so everything is spelled with <stdint.h> types.
 *   - WCHAR is a 16-bit UTF-16 code unit.  It is NOT wchar_t (4 bytes here).
 *
 * A COM object seen from C is a pointer to a struct whose first (and only
 * visible) member is a pointer to a table of function pointers:
 *
 *     typedef struct IFoo { const struct IFooVtbl *lpVtbl; } IFoo;
 *
 * Every method takes the interface pointer itself as its first argument, so a
 * call reads   foo->lpVtbl->Method(foo, arg1, arg2);
 * STDMETHODCALLTYPE / __stdcall expand to nothing on Unix: the table holds
 * ordinary System V AMD64 functions.
 */
#ifndef CLRPROBE_API_COR_H
#define CLRPROBE_API_COR_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------
 * Scalar types (exact PAL sizes, docs/runtime-abi.md "Scalar types")
 * ------------------------------------------------------------------------ */

typedef int32_t   HRESULT;
typedef uint32_t  ULONG;
typedef uint32_t  DWORD;
typedef uint32_t  UINT;
typedef uint32_t  ULONG32;
typedef uint32_t  UINT32;
typedef int32_t   LONG;
typedef int32_t   LONG32;
typedef int32_t   INT;
typedef int32_t   BOOL;
typedef uint16_t  USHORT;
typedef uint8_t   BYTE;
typedef uint8_t   UINT8;
typedef uint64_t  UINT64;
typedef uint64_t  ULONG64;
typedef uintptr_t SIZE_T;
typedef uintptr_t UINT_PTR;
typedef intptr_t  INT_PTR;

/* One UTF-16 code unit.  Strings handed to or returned by the runtime are
 * arrays of these, NUL-terminated (a 16-bit zero). */
typedef uint16_t  WCHAR;
typedef WCHAR       *LPWSTR;
typedef const WCHAR *LPCWSTR;

typedef void        *PVOID;
typedef void        *LPVOID;
typedef const void  *LPCVOID;
typedef void        *HANDLE;
typedef BYTE        *LPBYTE;
typedef const BYTE  *LPCBYTE;

#ifndef TRUE
#define TRUE  1
#endif
#ifndef FALSE
#define FALSE 0
#endif

/* ------------------------------------------------------------------------
 * GUIDs.  In memory: Data1 and Data2/Data3 little-endian, Data4 in the byte
 * order of the string form.  {4FD2ED52-7731-4b8d-9469-03D2CC3086C5} is
 * {0x4FD2ED52, 0x7731, 0x4B8D, {0x94,0x69,0x03,0xD2,0xCC,0x30,0x86,0xC5}}.
 * REFIID & co. are references in C++, pointers in C: same ABI.
 * ------------------------------------------------------------------------ */

typedef struct GUID {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t  Data4[8];
} GUID;

typedef GUID IID;
typedef GUID CLSID;
typedef const GUID *REFIID;
typedef const GUID *REFCLSID;
typedef const GUID *REFGUID;
typedef const GUID *LPCGUID;

/* Field-by-field comparison; equivalent to the runtime's memcmp-style
 * IsEqualGUID because GUID has no padding (checked below). */
static inline int guid_equal(const GUID *a, const GUID *b)
{
    int i;

    if (a->Data1 != b->Data1 || a->Data2 != b->Data2 || a->Data3 != b->Data3)
        return 0;
    for (i = 0; i < 8; i++)
        if (a->Data4[i] != b->Data4[i])
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------
 * Metadata tokens (corhdr.h: every md* typedef is a 32-bit token: table
 * number in the top byte, row id below).
 * ------------------------------------------------------------------------ */

typedef uint32_t mdToken;
typedef mdToken  mdModule;
typedef mdToken  mdTypeRef;
typedef mdToken  mdTypeDef;
typedef mdToken  mdFieldDef;
typedef mdToken  mdMethodDef;
typedef mdToken  mdParamDef;
typedef mdToken  mdInterfaceImpl;
typedef mdToken  mdMemberRef;
typedef mdToken  mdCustomAttribute;
typedef mdToken  mdPermission;
typedef mdToken  mdSignature;
typedef mdToken  mdEvent;
typedef mdToken  mdProperty;
typedef mdToken  mdModuleRef;
typedef mdToken  mdTypeSpec;
typedef mdToken  mdAssembly;
typedef mdToken  mdAssemblyRef;
typedef mdToken  mdFile;
typedef mdToken  mdExportedType;
typedef mdToken  mdManifestResource;
typedef mdToken  mdGenericParam;
typedef mdToken  mdMethodSpec;
typedef mdToken  mdGenericParamConstraint;
typedef mdToken  mdString;

/* Signature blobs are byte strings (COR_SIGNATURE is an unsigned char). */
typedef uint8_t              COR_SIGNATURE;
typedef COR_SIGNATURE       *PCOR_SIGNATURE;
typedef const COR_SIGNATURE *PCCOR_SIGNATURE;

/* Opaque metadata enumerator handle: start with NULL, close with CloseEnum. */
typedef void *HCORENUM;

/* ------------------------------------------------------------------------
 * HRESULTs.  Severity bit 31 set = failure; S_FALSE (1) is a success.
 * ------------------------------------------------------------------------ */

#define SUCCEEDED(hr) (((HRESULT)(hr)) >= 0)
#define FAILED(hr)    (((HRESULT)(hr)) < 0)

#define S_OK                        ((HRESULT)0x00000000)
#define S_FALSE                     ((HRESULT)0x00000001)
#define E_NOTIMPL                   ((HRESULT)0x80004001)
#define E_NOINTERFACE               ((HRESULT)0x80004002)
#define E_POINTER                   ((HRESULT)0x80004003)
#define E_FAIL                      ((HRESULT)0x80004005)
#define E_UNEXPECTED                ((HRESULT)0x8000FFFF)
#define E_OUTOFMEMORY               ((HRESULT)0x8007000E)
#define E_INVALIDARG                ((HRESULT)0x80070057)
#define CLASS_E_NOAGGREGATION       ((HRESULT)0x80040110)  /* CreateInstance with a non-NULL outer */
#define CLASS_E_CLASSNOTAVAILABLE   ((HRESULT)0x80040111)  /* DllGetClassObject: unknown CLSID */
/* HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER): returned e.g. by
 * GetFunctionEnter3Info and GetEnvironmentVariable when a buffer is short. */
#define HRESULT_ERROR_INSUFFICIENT_BUFFER ((HRESULT)0x8007007A)

/* ------------------------------------------------------------------------
 * Vtable slot arithmetic.  A vtable struct here holds nothing but function
 * pointers, so a member's slot number is its offset in pointers.  The headers
 * use this in _Static_asserts against the slot numbers of the IDL.
 * ------------------------------------------------------------------------ */

#define COM_SLOT(vtbl_type, member)  (offsetof(vtbl_type, member) / sizeof(void *))
#define COM_VTBL_ENTRIES(vtbl_type)  (sizeof(vtbl_type) / sizeof(void *))

/* ------------------------------------------------------------------------
 * IUnknown {00000000-0000-0000-C000-000000000046}
 *   0 QueryInterface(REFIID, void **)   1 AddRef() -> ULONG   2 Release() -> ULONG
 * ------------------------------------------------------------------------ */

typedef struct IUnknown IUnknown;

typedef struct IUnknownVtbl {
    /* 0 */ HRESULT (*QueryInterface)(IUnknown *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(IUnknown *This);
    /* 2 */ ULONG (*Release)(IUnknown *This);
} IUnknownVtbl;

struct IUnknown {
    const IUnknownVtbl *lpVtbl;
};

/* ------------------------------------------------------------------------
 * IClassFactory {00000001-0000-0000-C000-000000000046}
 *   0-2 IUnknown, 3 CreateInstance(IUnknown *pUnkOuter, REFIID, void **),
 *   4 LockServer(BOOL fLock).
 * The runtime asks the profiler's DllGetClassObject(REFCLSID, REFIID, void **)
 * for this interface, then calls CreateInstance for the callback object.
 * ------------------------------------------------------------------------ */

typedef struct IClassFactory IClassFactory;

typedef struct IClassFactoryVtbl {
    /* 0 */ HRESULT (*QueryInterface)(IClassFactory *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(IClassFactory *This);
    /* 2 */ ULONG (*Release)(IClassFactory *This);
    /* 3 */ HRESULT (*CreateInstance)(IClassFactory *This, IUnknown *pUnkOuter, REFIID riid,
                                      void **ppvObject);
    /* 4 */ HRESULT (*LockServer)(IClassFactory *This, BOOL fLock);
} IClassFactoryVtbl;

struct IClassFactory {
    const IClassFactoryVtbl *lpVtbl;
};

extern const GUID IID_IUnknown;
extern const GUID IID_IClassFactory;

/* ------------------------------------------------------------------------
 * Compile-time checks of the sizes the ABI depends on.
 * ------------------------------------------------------------------------ */

_Static_assert(sizeof(HRESULT) == 4 && sizeof(ULONG) == 4 && sizeof(DWORD) == 4, "PAL 32-bit types");
_Static_assert(sizeof(LONG) == 4 && sizeof(BOOL) == 4 && sizeof(UINT) == 4, "PAL 32-bit types");
_Static_assert(sizeof(USHORT) == 2 && sizeof(WCHAR) == 2 && sizeof(BYTE) == 1, "PAL small types");
_Static_assert(sizeof(UINT64) == 8 && sizeof(ULONG64) == 8, "PAL 64-bit types");
_Static_assert(sizeof(UINT_PTR) == sizeof(void *) && sizeof(SIZE_T) == sizeof(void *), "pointer-size types");
_Static_assert(sizeof(GUID) == 16, "GUID must be 16 bytes with no padding");
_Static_assert(sizeof(mdToken) == 4, "metadata tokens are 32-bit");
_Static_assert(COM_VTBL_ENTRIES(IUnknownVtbl) == 3, "IUnknown has 3 slots");
_Static_assert(COM_VTBL_ENTRIES(IClassFactoryVtbl) == 5, "IClassFactory has 5 slots");
_Static_assert(COM_SLOT(IClassFactoryVtbl, CreateInstance) == 3, "IClassFactory::CreateInstance slot");
_Static_assert(COM_SLOT(IClassFactoryVtbl, LockServer) == 4, "IClassFactory::LockServer slot");

#endif /* CLRPROBE_API_COR_H */
