/* cormetadata.h - the read side of the CLR metadata API (IMetaDataImport,
 * IMetaDataImport2, IMetaDataAssemblyImport) plus the ECMA-335 constants a
 * name builder needs (element types, calling conventions, token types, type
 * visibility), as plain C11 declarations for CoreCLR on Linux x64.
 *
 * Written from the facts of docs/runtime-abi.md ("Metadata"), not copied
 * from the runtime's headers: the interfaces, their IIDs and slot order from
 * dotnet/runtime src/coreclr/inc/cor.h; token types, CorOpenFlags,
 * calling conventions and CorElementType values from corhdr.h and ECMA-335
 * partition II (II.23.1, II.23.2); the CorTypeAttr visibility values from
 * ECMA-335 II.23.1.15.  The vtable member lists were produced from the slot
 * tables by a throwaway script and checked by hand; the _Static_asserts at
 * the end pin every method to its table slot.
 *
 * Getting an importer from the profiler (ICorProfilerInfo slot 21):
 *
 *     IMetaDataImport *imp = NULL;
 *     hr = info->lpVtbl->GetModuleMetaData(info, moduleId, ofRead, &IID_IMetaDataImport,
 *                                          (IUnknown **)&imp);
 *     hr = imp->lpVtbl->GetMethodProps(imp, tk, &td, name, cch, &len, NULL, &sig, &cbSig, NULL, NULL);
 *     imp->lpVtbl->Release(imp);
 *
 * S_FALSE with a NULL interface means the module has no metadata (resource
 * modules).  IMetaDataImport methods take reader locks: never call them from a
 * signal handler or while threads are suspended.
 */
#ifndef CLRPROBE_API_CORMETADATA_H
#define CLRPROBE_API_CORMETADATA_H

#include "cor.h"

/* ========================================================================
 * Token types (corhdr.h CorTokenType): table number in the top byte.
 * ======================================================================== */

#define mdtModule                 0x00000000u
#define mdtTypeRef                0x01000000u
#define mdtTypeDef                0x02000000u
#define mdtFieldDef               0x04000000u
#define mdtMethodDef              0x06000000u
#define mdtParamDef               0x08000000u
#define mdtInterfaceImpl          0x09000000u
#define mdtMemberRef              0x0a000000u
#define mdtCustomAttribute        0x0c000000u
#define mdtPermission             0x0e000000u
#define mdtSignature              0x11000000u
#define mdtEvent                  0x14000000u
#define mdtProperty               0x17000000u
#define mdtModuleRef              0x1a000000u
#define mdtTypeSpec               0x1b000000u
#define mdtAssembly               0x20000000u
#define mdtAssemblyRef            0x23000000u
#define mdtFile                   0x26000000u
#define mdtExportedType           0x27000000u
#define mdtManifestResource       0x28000000u
#define mdtGenericParam           0x2a000000u
#define mdtMethodSpec             0x2b000000u
#define mdtGenericParamConstraint 0x2c000000u
#define mdtString                 0x70000000u

#define RidFromToken(tk)          ((mdToken)(tk) & 0x00ffffffu)
#define TypeFromToken(tk)         ((mdToken)(tk) & 0xff000000u)
#define TokenFromRid(rid, type)   ((mdToken)(rid) | (mdToken)(type))
#define IsNilToken(tk)            (RidFromToken(tk) == 0)

/* Nil tokens: row id 0 of the table. */
#define mdTokenNil                ((mdToken)0)
#define mdModuleNil               ((mdModule)mdtModule)
#define mdTypeRefNil              ((mdTypeRef)mdtTypeRef)
#define mdTypeDefNil              ((mdTypeDef)mdtTypeDef)
#define mdFieldDefNil             ((mdFieldDef)mdtFieldDef)
#define mdMethodDefNil            ((mdMethodDef)mdtMethodDef)
#define mdMemberRefNil            ((mdMemberRef)mdtMemberRef)
#define mdTypeSpecNil             ((mdTypeSpec)mdtTypeSpec)
#define mdAssemblyNil             ((mdAssembly)mdtAssembly)
#define mdAssemblyRefNil          ((mdAssemblyRef)mdtAssemblyRef)
#define mdGenericParamNil         ((mdGenericParam)mdtGenericParam)
#define mdMethodSpecNil           ((mdMethodSpec)mdtMethodSpec)
#define mdStringNil               ((mdString)mdtString)

/* ========================================================================
 * HRESULTs specific to the metadata reader.
 * ======================================================================== */

/* A SUCCESS code: the name did not fit and was truncated.  Test hr != S_OK,
 * not FAILED(hr), when a full name matters. */
#define CLDB_S_TRUNCATION         ((HRESULT)0x00131106)
/* Not found, e.g. GetNestedClassProps on a type that is not nested. */
#define CLDB_E_RECORD_NOTFOUND    ((HRESULT)0x80131130)

/* ========================================================================
 * CorOpenFlags for ICorProfilerInfo::GetModuleMetaData (only ofRead and
 * ofWrite are accepted there).
 * ======================================================================== */

#define ofRead            0x00000000u
#define ofWrite           0x00000001u
#define ofReadWriteMask   0x00000001u
#define ofCopyMemory      0x00000002u
#define ofReadOnly        0x00000010u
#define ofTakeOwnership   0x00000020u
#define ofNoTypeLib       0x00000080u
#define ofNoTransform     0x00001000u

/* ========================================================================
 * TypeDef flags (CorTypeAttr, ECMA-335 II.23.1.15), the part needed to tell
 * nested types apart:  nested  <=>  (flags & tdVisibilityMask) >= tdNestedPublic
 * ======================================================================== */

#define tdVisibilityMask      0x00000007u
#define tdNotPublic           0x00000000u
#define tdPublic              0x00000001u
#define tdNestedPublic        0x00000002u
#define tdNestedPrivate       0x00000003u
#define tdNestedFamily        0x00000004u
#define tdNestedAssembly      0x00000005u
#define tdNestedFamANDAssem   0x00000006u
#define tdNestedFamORAssem    0x00000007u
#define tdInterface           0x00000020u
#define tdAbstract            0x00000080u
#define tdSealed              0x00000100u
#define tdSpecialName         0x00000400u

#define IsTdNested(flags)     (((flags) & tdVisibilityMask) >= tdNestedPublic)

/* ========================================================================
 * Calling convention byte at the start of a signature (ECMA-335 II.23.2.1;
 * docs/runtime-abi.md "Metadata"): low nibble = kind, high bits = flags.
 * ======================================================================== */

#define IMAGE_CEE_CS_CALLCONV_DEFAULT       0x00u
#define IMAGE_CEE_CS_CALLCONV_C             0x01u
#define IMAGE_CEE_CS_CALLCONV_STDCALL       0x02u
#define IMAGE_CEE_CS_CALLCONV_THISCALL      0x03u
#define IMAGE_CEE_CS_CALLCONV_FASTCALL      0x04u
#define IMAGE_CEE_CS_CALLCONV_VARARG        0x05u
#define IMAGE_CEE_CS_CALLCONV_FIELD         0x06u
#define IMAGE_CEE_CS_CALLCONV_LOCAL_SIG     0x07u
#define IMAGE_CEE_CS_CALLCONV_PROPERTY      0x08u
#define IMAGE_CEE_CS_CALLCONV_UNMANAGED     0x09u
#define IMAGE_CEE_CS_CALLCONV_GENERICINST   0x0Au  /* MethodSpec blob */
#define IMAGE_CEE_CS_CALLCONV_NATIVEVARARG  0x0Bu
#define IMAGE_CEE_CS_CALLCONV_MASK          0x0Fu
#define IMAGE_CEE_CS_CALLCONV_GENERIC       0x10u  /* GenParamCount follows */
#define IMAGE_CEE_CS_CALLCONV_HASTHIS       0x20u
#define IMAGE_CEE_CS_CALLCONV_EXPLICITTHIS  0x40u

/* ========================================================================
 * Element types (corhdr.h CorElementType; ECMA-335 II.23.1.16).
 * ======================================================================== */

typedef enum CorElementType {
    ELEMENT_TYPE_END         = 0x00,
    ELEMENT_TYPE_VOID        = 0x01,
    ELEMENT_TYPE_BOOLEAN     = 0x02,
    ELEMENT_TYPE_CHAR        = 0x03,
    ELEMENT_TYPE_I1          = 0x04,
    ELEMENT_TYPE_U1          = 0x05,
    ELEMENT_TYPE_I2          = 0x06,
    ELEMENT_TYPE_U2          = 0x07,
    ELEMENT_TYPE_I4          = 0x08,
    ELEMENT_TYPE_U4          = 0x09,
    ELEMENT_TYPE_I8          = 0x0A,
    ELEMENT_TYPE_U8          = 0x0B,
    ELEMENT_TYPE_R4          = 0x0C,
    ELEMENT_TYPE_R8          = 0x0D,
    ELEMENT_TYPE_STRING      = 0x0E,
    ELEMENT_TYPE_PTR         = 0x0F,  /* Type                        -> T*     */
    ELEMENT_TYPE_BYREF       = 0x10,  /* Type                        -> T&     */
    ELEMENT_TYPE_VALUETYPE   = 0x11,  /* TypeDefOrRefOrSpecEncoded             */
    ELEMENT_TYPE_CLASS       = 0x12,  /* TypeDefOrRefOrSpecEncoded             */
    ELEMENT_TYPE_VAR         = 0x13,  /* compressed index of a class generic arg */
    ELEMENT_TYPE_ARRAY       = 0x14,  /* Type ArrayShape             -> T[,]   */
    ELEMENT_TYPE_GENERICINST = 0x15,  /* CLASS|VALUETYPE token argc Type*argc  */
    ELEMENT_TYPE_TYPEDBYREF  = 0x16,
    ELEMENT_TYPE_I           = 0x18,  /* native int  */
    ELEMENT_TYPE_U           = 0x19,  /* native uint */
    ELEMENT_TYPE_FNPTR       = 0x1B,  /* full method signature */
    ELEMENT_TYPE_OBJECT      = 0x1C,
    ELEMENT_TYPE_SZARRAY     = 0x1D,  /* CustomMod* Type             -> T[]    */
    ELEMENT_TYPE_MVAR        = 0x1E,  /* compressed index of a method generic arg */
    ELEMENT_TYPE_CMOD_REQD   = 0x1F,  /* TypeDefOrRefEncoded follows */
    ELEMENT_TYPE_CMOD_OPT    = 0x20,  /* TypeDefOrRefEncoded follows */
    ELEMENT_TYPE_INTERNAL    = 0x21,  /* runtime-only, never in metadata */
    ELEMENT_TYPE_MODIFIER    = 0x40,
    ELEMENT_TYPE_SENTINEL    = 0x41,  /* start of the vararg part of a call-site sig */
    ELEMENT_TYPE_PINNED      = 0x45   /* locals only */
} CorElementType;

_Static_assert(sizeof(CorElementType) == 4, "CorElementType is a 4-byte enum");

/* ========================================================================
 * Structs used by the import interfaces.
 * ======================================================================== */

typedef const char *MDUTF8CSTR;      /* UTF-8 name inside the metadata heap */
typedef const void *UVCP_CONSTANT;   /* possibly unaligned constant value */

/* Field offset from the ObjectID pointer (also used by ICorProfilerInfo2::GetClassLayout). */
typedef struct COR_FIELD_OFFSET {
    mdFieldDef ridOfField;
    ULONG      ulOffset;
} COR_FIELD_OFFSET;

typedef struct OSINFO {
    DWORD dwOSPlatformId;
    DWORD dwOSMajorVersion;
    DWORD dwOSMinorVersion;
} OSINFO;

/* Zero it before GetAssemblyProps / GetAssemblyRefProps if only the four
 * version numbers are wanted (NULL szLocale / rProcessor / rOS, 0 counts). */
typedef struct ASSEMBLYMETADATA {
    USHORT  usMajorVersion;
    USHORT  usMinorVersion;
    USHORT  usBuildNumber;
    USHORT  usRevisionNumber;
    WCHAR  *szLocale;
    ULONG   cbLocale;       /* in: buffer size in WCHARs; out: actual size */
    DWORD  *rProcessor;
    ULONG   ulProcessor;
    OSINFO *rOS;
    ULONG   ulOS;
} ASSEMBLYMETADATA;

_Static_assert(sizeof(COR_FIELD_OFFSET) == 8, "COR_FIELD_OFFSET size");
_Static_assert(sizeof(OSINFO) == 12, "OSINFO size");
_Static_assert(sizeof(ASSEMBLYMETADATA) == 56, "ASSEMBLYMETADATA size");
_Static_assert(offsetof(ASSEMBLYMETADATA, szLocale) == 8, "ASSEMBLYMETADATA.szLocale");
_Static_assert(offsetof(ASSEMBLYMETADATA, cbLocale) == 16, "ASSEMBLYMETADATA.cbLocale");
_Static_assert(offsetof(ASSEMBLYMETADATA, rProcessor) == 24, "ASSEMBLYMETADATA.rProcessor");
_Static_assert(offsetof(ASSEMBLYMETADATA, ulProcessor) == 32, "ASSEMBLYMETADATA.ulProcessor");
_Static_assert(offsetof(ASSEMBLYMETADATA, rOS) == 40, "ASSEMBLYMETADATA.rOS");
_Static_assert(offsetof(ASSEMBLYMETADATA, ulOS) == 48, "ASSEMBLYMETADATA.ulOS");

/* ========================================================================
 * Interfaces (section 1.2).
 *
 * String out-parameters follow one protocol: (LPWSTR sz, ULONG cch, ULONG *pch)
 * where *pch receives the length in WCHARs INCLUDING the terminating NUL;
 * pass NULL, 0, &len to ask for the size.  Enumerators: start with
 * HCORENUM h = NULL, call EnumXxx(&h, buf, cMax, &n) until S_FALSE / n == 0,
 * then CloseEnum(h).  Signature and name pointers returned point into the
 * metadata heaps: do not free them.
 * ======================================================================== */

typedef struct IMetaDataImport IMetaDataImport;
typedef struct IMetaDataImport2 IMetaDataImport2;
typedef struct IMetaDataAssemblyImport IMetaDataAssemblyImport;

/* The 65 slots of IMetaDataImport (IUnknown 0-2, own methods 3-64), written
 * once and expanded into both IMetaDataImportVtbl and IMetaDataImport2Vtbl
 * with the right 'This' type.  Two oddities kept from cor.h: CloseEnum
 * returns void, IsValidToken returns BOOL; GetEventProps' and
 * GetPropertyProps' name buffers are declared LPCWSTR although they are
 * written to (ABI-identical to LPWSTR). */
#define CLRPROBE_IMETADATAIMPORT_MEMBERS(This_t)                                                             \
    /*   0 */ HRESULT (*QueryInterface)(This_t *This, REFIID riid, void **ppvObject);                        \
    /*   1 */ ULONG (*AddRef)(This_t *This);                                                                 \
    /*   2 */ ULONG (*Release)(This_t *This);                                                                \
    /*   3 */ void (*CloseEnum)(This_t *This, HCORENUM hEnum);                                               \
    /*   4 */ HRESULT (*CountEnum)(This_t *This, HCORENUM hEnum, ULONG *pulCount);                           \
    /*   5 */ HRESULT (*ResetEnum)(This_t *This, HCORENUM hEnum, ULONG ulPos);                               \
    /*   6 */ HRESULT (*EnumTypeDefs)(This_t *This, HCORENUM *phEnum, mdTypeDef *rTypeDefs, ULONG cMax,      \
                ULONG *pcTypeDefs);                                                                          \
    /*   7 */ HRESULT (*EnumInterfaceImpls)(This_t *This, HCORENUM *phEnum, mdTypeDef td,                    \
                mdInterfaceImpl *rImpls, ULONG cMax, ULONG *pcImpls);                                        \
    /*   8 */ HRESULT (*EnumTypeRefs)(This_t *This, HCORENUM *phEnum, mdTypeRef *rTypeRefs, ULONG cMax,      \
                ULONG *pcTypeRefs);                                                                          \
    /*   9 */ HRESULT (*FindTypeDefByName)(This_t *This, LPCWSTR szTypeDef, mdToken tkEnclosingClass,        \
                mdTypeDef *ptd);                                                                             \
    /*  10 */ HRESULT (*GetScopeProps)(This_t *This, LPWSTR szName, ULONG cchName, ULONG *pchName,           \
                GUID *pmvid);                                                                                \
    /*  11 */ HRESULT (*GetModuleFromScope)(This_t *This, mdModule *pmd);                                    \
    /*  12 */ HRESULT (*GetTypeDefProps)(This_t *This, mdTypeDef td, LPWSTR szTypeDef, ULONG cchTypeDef,     \
                ULONG *pchTypeDef, DWORD *pdwTypeDefFlags, mdToken *ptkExtends);                             \
    /*  13 */ HRESULT (*GetInterfaceImplProps)(This_t *This, mdInterfaceImpl iiImpl, mdTypeDef *pClass,      \
                mdToken *ptkIface);                                                                          \
    /*  14 */ HRESULT (*GetTypeRefProps)(This_t *This, mdTypeRef tr, mdToken *ptkResolutionScope,            \
                LPWSTR szName, ULONG cchName, ULONG *pchName);                                               \
    /*  15 */ HRESULT (*ResolveTypeRef)(This_t *This, mdTypeRef tr, REFIID riid, IUnknown **ppIScope,        \
                mdTypeDef *ptd);                                                                             \
    /*  16 */ HRESULT (*EnumMembers)(This_t *This, HCORENUM *phEnum, mdTypeDef cl, mdToken *rMembers,        \
                ULONG cMax, ULONG *pcTokens);                                                                \
    /*  17 */ HRESULT (*EnumMembersWithName)(This_t *This, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName,   \
                mdToken *rMembers, ULONG cMax, ULONG *pcTokens);                                             \
    /*  18 */ HRESULT (*EnumMethods)(This_t *This, HCORENUM *phEnum, mdTypeDef cl, mdMethodDef *rMethods,    \
                ULONG cMax, ULONG *pcTokens);                                                                \
    /*  19 */ HRESULT (*EnumMethodsWithName)(This_t *This, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName,   \
                mdMethodDef *rMethods, ULONG cMax, ULONG *pcTokens);                                         \
    /*  20 */ HRESULT (*EnumFields)(This_t *This, HCORENUM *phEnum, mdTypeDef cl, mdFieldDef *rFields,       \
                ULONG cMax, ULONG *pcTokens);                                                                \
    /*  21 */ HRESULT (*EnumFieldsWithName)(This_t *This, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName,    \
                mdFieldDef *rFields, ULONG cMax, ULONG *pcTokens);                                           \
    /*  22 */ HRESULT (*EnumParams)(This_t *This, HCORENUM *phEnum, mdMethodDef mb, mdParamDef *rParams,     \
                ULONG cMax, ULONG *pcTokens);                                                                \
    /*  23 */ HRESULT (*EnumMemberRefs)(This_t *This, HCORENUM *phEnum, mdToken tkParent,                    \
                mdMemberRef *rMemberRefs, ULONG cMax, ULONG *pcTokens);                                      \
    /*  24 */ HRESULT (*EnumMethodImpls)(This_t *This, HCORENUM *phEnum, mdTypeDef td, mdToken *rMethodBody, \
                mdToken *rMethodDecl, ULONG cMax, ULONG *pcTokens);                                          \
    /*  25 */ HRESULT (*EnumPermissionSets)(This_t *This, HCORENUM *phEnum, mdToken tk, DWORD dwActions,     \
                mdPermission *rPermission, ULONG cMax, ULONG *pcTokens);                                     \
    /*  26 */ HRESULT (*FindMember)(This_t *This, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,   \
                ULONG cbSigBlob, mdToken *pmb);                                                              \
    /*  27 */ HRESULT (*FindMethod)(This_t *This, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,   \
                ULONG cbSigBlob, mdMethodDef *pmb);                                                          \
    /*  28 */ HRESULT (*FindField)(This_t *This, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,    \
                ULONG cbSigBlob, mdFieldDef *pmb);                                                           \
    /*  29 */ HRESULT (*FindMemberRef)(This_t *This, mdTypeRef td, LPCWSTR szName,                           \
                PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, mdMemberRef *pmr);                               \
    /*  30 */ HRESULT (*GetMethodProps)(This_t *This, mdMethodDef mb, mdTypeDef *pClass, LPWSTR szMethod,    \
                ULONG cchMethod, ULONG *pchMethod, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,              \
                ULONG *pcbSigBlob, ULONG *pulCodeRVA, DWORD *pdwImplFlags);                                  \
    /*  31 */ HRESULT (*GetMemberRefProps)(This_t *This, mdMemberRef mr, mdToken *ptk, LPWSTR szMember,      \
                ULONG cchMember, ULONG *pchMember, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pbSig);               \
    /*  32 */ HRESULT (*EnumProperties)(This_t *This, HCORENUM *phEnum, mdTypeDef td,                        \
                mdProperty *rProperties, ULONG cMax, ULONG *pcProperties);                                   \
    /*  33 */ HRESULT (*EnumEvents)(This_t *This, HCORENUM *phEnum, mdTypeDef td, mdEvent *rEvents,          \
                ULONG cMax, ULONG *pcEvents);                                                                \
    /*  34 */ HRESULT (*GetEventProps)(This_t *This, mdEvent ev, mdTypeDef *pClass, LPCWSTR szEvent,         \
                ULONG cchEvent, ULONG *pchEvent, DWORD *pdwEventFlags, mdToken *ptkEventType,                \
                mdMethodDef *pmdAddOn, mdMethodDef *pmdRemoveOn, mdMethodDef *pmdFire,                       \
                mdMethodDef *rmdOtherMethod, ULONG cMax, ULONG *pcOtherMethod);                              \
    /*  35 */ HRESULT (*EnumMethodSemantics)(This_t *This, HCORENUM *phEnum, mdMethodDef mb,                 \
                mdToken *rEventProp, ULONG cMax, ULONG *pcEventProp);                                        \
    /*  36 */ HRESULT (*GetMethodSemantics)(This_t *This, mdMethodDef mb, mdToken tkEventProp,               \
                DWORD *pdwSemanticsFlags);                                                                   \
    /*  37 */ HRESULT (*GetClassLayout)(This_t *This, mdTypeDef td, DWORD *pdwPackSize,                      \
                COR_FIELD_OFFSET *rFieldOffset, ULONG cMax, ULONG *pcFieldOffset, ULONG *pulClassSize);      \
    /*  38 */ HRESULT (*GetFieldMarshal)(This_t *This, mdToken tk, PCCOR_SIGNATURE *ppvNativeType,           \
                ULONG *pcbNativeType);                                                                       \
    /*  39 */ HRESULT (*GetRVA)(This_t *This, mdToken tk, ULONG *pulCodeRVA, DWORD *pdwImplFlags);           \
    /*  40 */ HRESULT (*GetPermissionSetProps)(This_t *This, mdPermission pm, DWORD *pdwAction,              \
                void const **ppvPermission, ULONG *pcbPermission);                                           \
    /*  41 */ HRESULT (*GetSigFromToken)(This_t *This, mdSignature mdSig, PCCOR_SIGNATURE *ppvSig,           \
                ULONG *pcbSig);                                                                              \
    /*  42 */ HRESULT (*GetModuleRefProps)(This_t *This, mdModuleRef mur, LPWSTR szName, ULONG cchName,      \
                ULONG *pchName);                                                                             \
    /*  43 */ HRESULT (*EnumModuleRefs)(This_t *This, HCORENUM *phEnum, mdModuleRef *rModuleRefs,            \
                ULONG cmax, ULONG *pcModuleRefs);                                                            \
    /*  44 */ HRESULT (*GetTypeSpecFromToken)(This_t *This, mdTypeSpec typespec, PCCOR_SIGNATURE *ppvSig,    \
                ULONG *pcbSig);                                                                              \
    /*  45 */ HRESULT (*GetNameFromToken)(This_t *This, mdToken tk, MDUTF8CSTR *pszUtf8NamePtr);             \
    /*  46 */ HRESULT (*EnumUnresolvedMethods)(This_t *This, HCORENUM *phEnum, mdToken *rMethods,            \
                ULONG cMax, ULONG *pcTokens);                                                                \
    /*  47 */ HRESULT (*GetUserString)(This_t *This, mdString stk, LPWSTR szString, ULONG cchString,         \
                ULONG *pchString);                                                                           \
    /*  48 */ HRESULT (*GetPinvokeMap)(This_t *This, mdToken tk, DWORD *pdwMappingFlags,                     \
                LPWSTR szImportName, ULONG cchImportName, ULONG *pchImportName, mdModuleRef *pmrImportDLL);  \
    /*  49 */ HRESULT (*EnumSignatures)(This_t *This, HCORENUM *phEnum, mdSignature *rSignatures,            \
                ULONG cmax, ULONG *pcSignatures);                                                            \
    /*  50 */ HRESULT (*EnumTypeSpecs)(This_t *This, HCORENUM *phEnum, mdTypeSpec *rTypeSpecs, ULONG cmax,   \
                ULONG *pcTypeSpecs);                                                                         \
    /*  51 */ HRESULT (*EnumUserStrings)(This_t *This, HCORENUM *phEnum, mdString *rStrings, ULONG cmax,     \
                ULONG *pcStrings);                                                                           \
    /*  52 */ HRESULT (*GetParamForMethodIndex)(This_t *This, mdMethodDef md, ULONG ulParamSeq,              \
                mdParamDef *ppd);                                                                            \
    /*  53 */ HRESULT (*EnumCustomAttributes)(This_t *This, HCORENUM *phEnum, mdToken tk, mdToken tkType,    \
                mdCustomAttribute *rCustomAttributes, ULONG cMax, ULONG *pcCustomAttributes);                \
    /*  54 */ HRESULT (*GetCustomAttributeProps)(This_t *This, mdCustomAttribute cv, mdToken *ptkObj,        \
                mdToken *ptkType, void const **ppBlob, ULONG *pcbSize);                                      \
    /*  55 */ HRESULT (*FindTypeRef)(This_t *This, mdToken tkResolutionScope, LPCWSTR szName,                \
                mdTypeRef *ptr);                                                                             \
    /*  56 */ HRESULT (*GetMemberProps)(This_t *This, mdToken mb, mdTypeDef *pClass, LPWSTR szMember,        \
                ULONG cchMember, ULONG *pchMember, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,              \
                ULONG *pcbSigBlob, ULONG *pulCodeRVA, DWORD *pdwImplFlags, DWORD *pdwCPlusTypeFlag,          \
                UVCP_CONSTANT *ppValue, ULONG *pcchValue);                                                   \
    /*  57 */ HRESULT (*GetFieldProps)(This_t *This, mdFieldDef mb, mdTypeDef *pClass, LPWSTR szField,       \
                ULONG cchField, ULONG *pchField, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,                \
                ULONG *pcbSigBlob, DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue, ULONG *pcchValue);       \
    /*  58 */ HRESULT (*GetPropertyProps)(This_t *This, mdProperty prop, mdTypeDef *pClass,                  \
                LPCWSTR szProperty, ULONG cchProperty, ULONG *pchProperty, DWORD *pdwPropFlags,              \
                PCCOR_SIGNATURE *ppvSig, ULONG *pbSig, DWORD *pdwCPlusTypeFlag,                              \
                UVCP_CONSTANT *ppDefaultValue, ULONG *pcchDefaultValue, mdMethodDef *pmdSetter,              \
                mdMethodDef *pmdGetter, mdMethodDef *rmdOtherMethod, ULONG cMax, ULONG *pcOtherMethod);      \
    /*  59 */ HRESULT (*GetParamProps)(This_t *This, mdParamDef tk, mdMethodDef *pmd, ULONG *pulSequence,    \
                LPWSTR szName, ULONG cchName, ULONG *pchName, DWORD *pdwAttr, DWORD *pdwCPlusTypeFlag,       \
                UVCP_CONSTANT *ppValue, ULONG *pcchValue);                                                   \
    /*  60 */ HRESULT (*GetCustomAttributeByName)(This_t *This, mdToken tkObj, LPCWSTR szName,               \
                const void **ppData, ULONG *pcbData);                                                        \
    /*  61 */ BOOL (*IsValidToken)(This_t *This, mdToken tk);                                                \
    /*  62 */ HRESULT (*GetNestedClassProps)(This_t *This, mdTypeDef tdNestedClass,                          \
                mdTypeDef *ptdEnclosingClass);                                                               \
    /*  63 */ HRESULT (*GetNativeCallConvFromSig)(This_t *This, void const *pvSig, ULONG cbSig,              \
                ULONG *pCallConv);                                                                           \
    /*  64 */ HRESULT (*IsGlobal)(This_t *This, mdToken pd, int *pbGlobal);                                  \
    /* end of IMetaDataImport */

typedef struct IMetaDataImportVtbl {
    CLRPROBE_IMETADATAIMPORT_MEMBERS(IMetaDataImport)
} IMetaDataImportVtbl;

struct IMetaDataImport {
    const IMetaDataImportVtbl *lpVtbl;
};

/* IMetaDataImport2 = IMetaDataImport's 65 slots + 8 own (65-72).  Get it with
 * QueryInterface(&IID_IMetaDataImport2) or GetModuleMetaData directly. */
typedef struct IMetaDataImport2Vtbl {
    CLRPROBE_IMETADATAIMPORT_MEMBERS(IMetaDataImport2)

    /* ---- IMetaDataImport2 own methods (slots 65..72) ---- */
    /*  65 */ HRESULT (*EnumGenericParams)(IMetaDataImport2 *This, HCORENUM *phEnum, mdToken tk,
                mdGenericParam *rGenericParams, ULONG cMax, ULONG *pcGenericParams);
    /*  66 */ HRESULT (*GetGenericParamProps)(IMetaDataImport2 *This, mdGenericParam gp, ULONG *pulParamSeq,
                DWORD *pdwParamFlags, mdToken *ptOwner, DWORD *reserved, LPWSTR wzname, ULONG cchName,
                ULONG *pchName);
    /*  67 */ HRESULT (*GetMethodSpecProps)(IMetaDataImport2 *This, mdMethodSpec mi, mdToken *tkParent,
                PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob);
    /*  68 */ HRESULT (*EnumGenericParamConstraints)(IMetaDataImport2 *This, HCORENUM *phEnum,
                mdGenericParam tk, mdGenericParamConstraint *rGenericParamConstraints, ULONG cMax,
                ULONG *pcGenericParamConstraints);
    /*  69 */ HRESULT (*GetGenericParamConstraintProps)(IMetaDataImport2 *This, mdGenericParamConstraint gpc,
                mdGenericParam *ptGenericParam, mdToken *ptkConstraintType);
    /*  70 */ HRESULT (*GetPEKind)(IMetaDataImport2 *This, DWORD *pdwPEKind, DWORD *pdwMAchine);
    /*  71 */ HRESULT (*GetVersionString)(IMetaDataImport2 *This, LPWSTR pwzBuf, DWORD ccBufSize,
                DWORD *pccBufSize);
    /*  72 */ HRESULT (*EnumMethodSpecs)(IMetaDataImport2 *This, HCORENUM *phEnum, mdToken tk,
                mdMethodSpec *rMethodSpecs, ULONG cMax, ULONG *pcMethodSpecs);
} IMetaDataImport2Vtbl;

struct IMetaDataImport2 {
    const IMetaDataImport2Vtbl *lpVtbl;
};

/* IMetaDataAssemblyImport: IUnknown + 14 own methods (slots 3-16).  Note its
 * CloseEnum is at slot 15, not 3. */
typedef struct IMetaDataAssemblyImportVtbl {
    /*   0 */ HRESULT (*QueryInterface)(IMetaDataAssemblyImport *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(IMetaDataAssemblyImport *This);
    /*   2 */ ULONG (*Release)(IMetaDataAssemblyImport *This);
    /*   3 */ HRESULT (*GetAssemblyProps)(IMetaDataAssemblyImport *This, mdAssembly mda,
                const void **ppbPublicKey, ULONG *pcbPublicKey, ULONG *pulHashAlgId, LPWSTR szName,
                ULONG cchName, ULONG *pchName, ASSEMBLYMETADATA *pMetaData, DWORD *pdwAssemblyFlags);
    /*   4 */ HRESULT (*GetAssemblyRefProps)(IMetaDataAssemblyImport *This, mdAssemblyRef mdar,
                const void **ppbPublicKeyOrToken, ULONG *pcbPublicKeyOrToken, LPWSTR szName, ULONG cchName,
                ULONG *pchName, ASSEMBLYMETADATA *pMetaData, const void **ppbHashValue, ULONG *pcbHashValue,
                DWORD *pdwAssemblyRefFlags);
    /*   5 */ HRESULT (*GetFileProps)(IMetaDataAssemblyImport *This, mdFile mdf, LPWSTR szName, ULONG cchName,
                ULONG *pchName, const void **ppbHashValue, ULONG *pcbHashValue, DWORD *pdwFileFlags);
    /*   6 */ HRESULT (*GetExportedTypeProps)(IMetaDataAssemblyImport *This, mdExportedType mdct,
                LPWSTR szName, ULONG cchName, ULONG *pchName, mdToken *ptkImplementation,
                mdTypeDef *ptkTypeDef, DWORD *pdwExportedTypeFlags);
    /*   7 */ HRESULT (*GetManifestResourceProps)(IMetaDataAssemblyImport *This, mdManifestResource mdmr,
                LPWSTR szName, ULONG cchName, ULONG *pchName, mdToken *ptkImplementation, DWORD *pdwOffset,
                DWORD *pdwResourceFlags);
    /*   8 */ HRESULT (*EnumAssemblyRefs)(IMetaDataAssemblyImport *This, HCORENUM *phEnum,
                mdAssemblyRef *rAssemblyRefs, ULONG cMax, ULONG *pcTokens);
    /*   9 */ HRESULT (*EnumFiles)(IMetaDataAssemblyImport *This, HCORENUM *phEnum, mdFile *rFiles,
                ULONG cMax, ULONG *pcTokens);
    /*  10 */ HRESULT (*EnumExportedTypes)(IMetaDataAssemblyImport *This, HCORENUM *phEnum,
                mdExportedType *rExportedTypes, ULONG cMax, ULONG *pcTokens);
    /*  11 */ HRESULT (*EnumManifestResources)(IMetaDataAssemblyImport *This, HCORENUM *phEnum,
                mdManifestResource *rManifestResources, ULONG cMax, ULONG *pcTokens);
    /*  12 */ HRESULT (*GetAssemblyFromScope)(IMetaDataAssemblyImport *This, mdAssembly *ptkAssembly);
    /*  13 */ HRESULT (*FindExportedTypeByName)(IMetaDataAssemblyImport *This, LPCWSTR szName,
                mdToken tkEnclosingType, mdExportedType *ptkExportedType);
    /*  14 */ HRESULT (*FindManifestResourceByName)(IMetaDataAssemblyImport *This, LPCWSTR szName,
                mdManifestResource *ptkManifestResource);
    /*  15 */ void (*CloseEnum)(IMetaDataAssemblyImport *This, HCORENUM hEnum);
    /*  16 */ HRESULT (*FindAssembliesByName)(IMetaDataAssemblyImport *This, LPCWSTR szAppBase,
                LPCWSTR szPrivateBin, LPCWSTR szAssemblyName, IUnknown **ppIUnk, ULONG cMax,
                ULONG *pcAssemblies);
} IMetaDataAssemblyImportVtbl;

struct IMetaDataAssemblyImport {
    const IMetaDataAssemblyImportVtbl *lpVtbl;
};

/* IMetaDataEmit: IUnknown + its own methods; only the slots up to
 * GetTokenFromSig (23) are declared, the method tracer's one need (a
 * StandAloneSig token for a signature: the probes' calli and the locals of
 * a rewritten method).  Get it with GetModuleMetaData(ofRead | ofWrite,
 * &IID_IMetaDataEmit); Release it. */
typedef struct IMetaDataEmit IMetaDataEmit;
typedef struct IMetaDataEmitVtbl {
    /*   0 */ HRESULT (*QueryInterface)(IMetaDataEmit *This, REFIID riid, void **ppvObject);
    /*   1 */ ULONG (*AddRef)(IMetaDataEmit *This);
    /*   2 */ ULONG (*Release)(IMetaDataEmit *This);
    /* 3 SetModuleProps, 4 Save, 5 SaveToStream, 6 GetSaveSize, 7 DefineTypeDef, 8 DefineNestedType,
     * 9 SetHandler, 10 DefineMethod, 11 DefineMethodImpl, 12 DefineTypeRefByName, 13 DefineImportType,
     * 14 DefineMemberRef, 15 DefineImportMember, 16 DefineEvent, 17 SetClassLayout, 18 DeleteClassLayout,
     * 19 SetFieldMarshal, 20 DeleteFieldMarshal, 21 DefinePermissionSet, 22 SetRVA: not used */
    void *unused_3_22[20];
    /*  23 */ HRESULT (*GetTokenFromSig)(IMetaDataEmit *This, PCCOR_SIGNATURE pvSig, ULONG cbSig,
                mdSignature *pmsig);
} IMetaDataEmitVtbl;

struct IMetaDataEmit {
    const IMetaDataEmitVtbl *lpVtbl;
};

extern const GUID IID_IMetaDataImport;
extern const GUID IID_IMetaDataImport2;
extern const GUID IID_IMetaDataEmit;
extern const GUID IID_IMetaDataAssemblyImport;

/* ========================================================================
 * Compile-time layout checks: every method at its slot from section 1.2.
 * ======================================================================== */

#define METADATA_CHECK_SLOT(type, member, slot) \
    _Static_assert(COM_SLOT(type, member) == (slot), #type "::" #member " must be slot " #slot)

_Static_assert(COM_VTBL_ENTRIES(IMetaDataImportVtbl) == 65, "IMetaDataImport: 65 slots");
_Static_assert(COM_VTBL_ENTRIES(IMetaDataImport2Vtbl) == 73, "IMetaDataImport2: 73 slots");
_Static_assert(COM_VTBL_ENTRIES(IMetaDataAssemblyImportVtbl) == 17, "IMetaDataAssemblyImport: 17 slots");

METADATA_CHECK_SLOT(IMetaDataImportVtbl, QueryInterface, 0);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, AddRef, 1);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, Release, 2);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, CloseEnum, 3);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, CountEnum, 4);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, ResetEnum, 5);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumTypeDefs, 6);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumInterfaceImpls, 7);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumTypeRefs, 8);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, FindTypeDefByName, 9);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetScopeProps, 10);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetModuleFromScope, 11);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetTypeDefProps, 12);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetInterfaceImplProps, 13);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetTypeRefProps, 14);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, ResolveTypeRef, 15);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumMembers, 16);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumMembersWithName, 17);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumMethods, 18);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumMethodsWithName, 19);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumFields, 20);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumFieldsWithName, 21);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumParams, 22);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumMemberRefs, 23);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumMethodImpls, 24);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumPermissionSets, 25);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, FindMember, 26);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, FindMethod, 27);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, FindField, 28);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, FindMemberRef, 29);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetMethodProps, 30);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetMemberRefProps, 31);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumProperties, 32);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumEvents, 33);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetEventProps, 34);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumMethodSemantics, 35);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetMethodSemantics, 36);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetClassLayout, 37);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetFieldMarshal, 38);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetRVA, 39);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetPermissionSetProps, 40);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetSigFromToken, 41);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetModuleRefProps, 42);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumModuleRefs, 43);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetTypeSpecFromToken, 44);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetNameFromToken, 45);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumUnresolvedMethods, 46);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetUserString, 47);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetPinvokeMap, 48);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumSignatures, 49);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumTypeSpecs, 50);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumUserStrings, 51);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetParamForMethodIndex, 52);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, EnumCustomAttributes, 53);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetCustomAttributeProps, 54);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, FindTypeRef, 55);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetMemberProps, 56);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetFieldProps, 57);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetPropertyProps, 58);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetParamProps, 59);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetCustomAttributeByName, 60);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, IsValidToken, 61);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetNestedClassProps, 62);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, GetNativeCallConvFromSig, 63);
METADATA_CHECK_SLOT(IMetaDataImportVtbl, IsGlobal, 64);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, QueryInterface, 0);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, AddRef, 1);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, Release, 2);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, CloseEnum, 3);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, CountEnum, 4);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, ResetEnum, 5);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumTypeDefs, 6);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumInterfaceImpls, 7);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumTypeRefs, 8);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, FindTypeDefByName, 9);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetScopeProps, 10);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetModuleFromScope, 11);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetTypeDefProps, 12);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetInterfaceImplProps, 13);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetTypeRefProps, 14);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, ResolveTypeRef, 15);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumMembers, 16);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumMembersWithName, 17);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumMethods, 18);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumMethodsWithName, 19);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumFields, 20);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumFieldsWithName, 21);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumParams, 22);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumMemberRefs, 23);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumMethodImpls, 24);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumPermissionSets, 25);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, FindMember, 26);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, FindMethod, 27);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, FindField, 28);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, FindMemberRef, 29);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetMethodProps, 30);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetMemberRefProps, 31);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumProperties, 32);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumEvents, 33);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetEventProps, 34);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumMethodSemantics, 35);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetMethodSemantics, 36);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetClassLayout, 37);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetFieldMarshal, 38);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetRVA, 39);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetPermissionSetProps, 40);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetSigFromToken, 41);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetModuleRefProps, 42);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumModuleRefs, 43);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetTypeSpecFromToken, 44);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetNameFromToken, 45);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumUnresolvedMethods, 46);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetUserString, 47);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetPinvokeMap, 48);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumSignatures, 49);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumTypeSpecs, 50);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumUserStrings, 51);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetParamForMethodIndex, 52);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumCustomAttributes, 53);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetCustomAttributeProps, 54);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, FindTypeRef, 55);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetMemberProps, 56);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetFieldProps, 57);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetPropertyProps, 58);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetParamProps, 59);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetCustomAttributeByName, 60);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, IsValidToken, 61);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetNestedClassProps, 62);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetNativeCallConvFromSig, 63);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, IsGlobal, 64);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumGenericParams, 65);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetGenericParamProps, 66);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetMethodSpecProps, 67);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumGenericParamConstraints, 68);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetGenericParamConstraintProps, 69);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetPEKind, 70);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, GetVersionString, 71);
METADATA_CHECK_SLOT(IMetaDataImport2Vtbl, EnumMethodSpecs, 72);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, QueryInterface, 0);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, AddRef, 1);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, Release, 2);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyProps, 3);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyRefProps, 4);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, GetFileProps, 5);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, GetExportedTypeProps, 6);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, GetManifestResourceProps, 7);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, EnumAssemblyRefs, 8);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, EnumFiles, 9);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, EnumExportedTypes, 10);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, EnumManifestResources, 11);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyFromScope, 12);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, FindExportedTypeByName, 13);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, FindManifestResourceByName, 14);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, CloseEnum, 15);
METADATA_CHECK_SLOT(IMetaDataAssemblyImportVtbl, FindAssembliesByName, 16);
METADATA_CHECK_SLOT(IMetaDataEmitVtbl, GetTokenFromSig, 23);

#endif /* CLRPROBE_API_CORMETADATA_H */
