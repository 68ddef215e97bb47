/* heap_statics.c - static fields as named heap roots (heap_statics.h). */
#include "agent/heap/heap_statics.h"
#include "agent/core/service.h"
#include "api/cormetadata.h"
#include "common/idmap.h"
#include "trace/heap_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLASSES_MAX (1u << 15)          /* classes looked at per trace */
#define FIELD_BATCH 64
#define JIT_BATCH 64

/* ECMA-335 field attributes and signature bytes */
#define FD_STATIC 0x10u
#define FD_LITERAL 0x40u
#define FD_HAS_RVA 0x100u
#define SIG_FIELD 0x06u
#define ET_STRING 0x0eu
#define ET_CLASS 0x12u
#define ET_ARRAY 0x14u
#define ET_GENERICINST 0x15u
#define ET_OBJECT 0x1cu
#define ET_SZARRAY 0x1du
#define ET_CMOD_REQD 0x1fu
#define ET_CMOD_OPT 0x20u

typedef struct slot {
    uint64_t addr;                       /* the static's slot (an ObjectID lives there) */
    uint32_t name;                       /* heap_root_name index */
} slot;

struct heap_statics {
    idmap seen;                          /* classes looked at (keys; the values unused) */
    slot *slots;
    size_t nslots, cap;
    uint32_t names;                      /* heap_root_name indexes given */
    int jitted_done;
};

heap_statics *heap_statics_create(void)
{
    heap_statics *st = calloc(1, sizeof(*st));

    if (st)
        idmap_init(&st->seen);
    return st;
}

void heap_statics_free(heap_statics *st)
{
    if (!st)
        return;
    idmap_free(&st->seen);
    free(st->slots);
    free(st);
}

/* 1 if c was not seen before (and is now), 0 if it was, or the table is
 * full or out of memory. */
static int first_look(heap_statics *st, ClassID c)
{
    if (idmap_get(&st->seen, c, NULL) || st->seen.count >= CLASSES_MAX)
        return 0;
    return idmap_put(&st->seen, c, 0) == 0;
}

/* Forgets c, to look at it again later (its statics were not ready). */
static void forget(heap_statics *st, ClassID c)
{
    idmap_del(&st->seen, c);
}

/* Whether a field signature is that of an object reference. */
static int is_reference(const uint8_t *sig, ULONG len)
{
    ULONG i = 1;

    if (len < 2 || sig[0] != SIG_FIELD)
        return 0;
    while (i < len && (sig[i] == ET_CMOD_REQD || sig[i] == ET_CMOD_OPT)) {
        i++;                                 /* the modifier's compressed token */
        while (i < len && (sig[i] & 0x80u))
            i++;
        i++;
    }
    if (i >= len)
        return 0;
    switch (sig[i]) {
    case ET_STRING: case ET_CLASS: case ET_ARRAY: case ET_OBJECT: case ET_SZARRAY:
        return 1;
    case ET_GENERICINST:
        return i + 1 < len && sig[i + 1] == ET_CLASS;
    default:
        return 0;                            /* value types, primitives, generic parameters */
    }
}

static int add_slot(heap_statics *st, profiler *p, uint64_t addr, const char *type, const char *field)
{
    char name[1024];
    emit e;

    if (st->nslots == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 256;
        slot *s = realloc(st->slots, cap * sizeof(*s));
        if (!s)
            return -1;
        st->slots = s;
        st->cap = cap;
    }
    snprintf(name, sizeof(name), "%s.%s", type, field);
    if (emit_begin(p, &e, TK_HEAP_ROOT_NAME)) {
        rec_heap_root_name_put(&e.r, &(rec_heap_root_name){ .index = st->names, .name = name });
        emit_end(&e);
    }
    st->slots[st->nslots++] = (slot){ addr, st->names++ };
    return 0;
}

/* The static reference fields of class c (not its bases): all of them, or
 * none while any is not ready (the class is tried again later). */
static void learn_one(heap_statics *st, profiler *p, ClassID c, ModuleID mod, mdTypeDef td)
{
    IMetaDataImport *imp;
    HCORENUM henum = NULL;
    mdFieldDef fields[FIELD_BATCH];
    struct { uint64_t addr; char field[256]; } found[FIELD_BATCH];
    ULONG n = 0;
    AppDomainID domain = 0;
    ULONG32 ndomains = 0;
    DWORD flags = 0;
    size_t nfound = 0;
    int incomplete = 0;

    if (FAILED(INFO(p)->GetModuleInfo2(p->info, mod, NULL, 0, NULL, NULL, NULL, &flags)) ||
        (flags & COR_PRF_MODULE_COLLECTIBLE))
        return;                              /* (statics of collectible types die with them) */
    if (FAILED(INFO(p)->GetAppDomainsContainingModule(p->info, mod, 1, &ndomains, &domain)) || ndomains == 0)
        return;
    if ((imp = names_metadata(p->names, mod)) == NULL)
        return;
    while (!incomplete && SUCCEEDED(imp->lpVtbl->EnumFields(imp, &henum, td, fields, FIELD_BATCH, &n)) && n > 0) {
        for (ULONG i = 0; i < n && !incomplete && nfound < FIELD_BATCH; i++) {
            uint16_t wname[256];
            ULONG wlen = 0, siglen = 0;
            DWORD attr = 0;
            PCCOR_SIGNATURE sig = NULL;
            COR_PRF_STATIC_TYPE kind = COR_PRF_FIELD_NOT_A_STATIC;
            void *addr = NULL;
            HRESULT hr;

            if (FAILED(imp->lpVtbl->GetFieldProps(imp, fields[i], NULL, (LPWSTR)wname, 256, &wlen, &attr, &sig,
                                                  &siglen, NULL, NULL, NULL)))
                continue;
            if (!(attr & FD_STATIC) || (attr & (FD_LITERAL | FD_HAS_RVA)) || !is_reference(sig, siglen))
                continue;
            if (FAILED(INFO(p)->GetStaticFieldInfo(p->info, c, fields[i], &kind)) ||
                !(kind & COR_PRF_FIELD_APP_DOMAIN_STATIC) || (kind & COR_PRF_FIELD_THREAD_STATIC))
                continue;
            hr = INFO(p)->GetAppDomainStaticAddress(p->info, c, fields[i], domain, &addr);
            if (hr == CORPROF_E_DATAINCOMPLETE) {
                incomplete = 1;              /* (the class is not initialized yet) */
                break;
            }
            if (FAILED(hr) || !addr || ((uintptr_t)addr & 7u))
                continue;
            found[nfound].addr = (uint64_t)(uintptr_t)addr;
            names_utf16_to_utf8(wname, wlen && wlen <= 256 ? wlen - 1 : 0, found[nfound].field,
                                sizeof(found[nfound].field));
            nfound++;
        }
        if (n < FIELD_BATCH)
            break;
    }
    if (henum)
        imp->lpVtbl->CloseEnum(imp, henum);
    imp->lpVtbl->Release(imp);
    if (incomplete) {
        forget(st, c);
        return;
    }
    if (nfound) {
        char type[768];
        names_class(p->names, c, type, sizeof(type), NULL);
        for (size_t i = 0; i < nfound; i++)
            if (add_slot(st, p, found[i].addr, type, found[i].field) < 0)
                break;
    }
}

void heap_statics_learn_class(heap_statics *st, profiler *p, ClassID c)
{
    for (int depth = 0; c && depth < 32 && first_look(st, c); depth++) {
        ModuleID mod = 0;
        mdTypeDef td = 0;
        ClassID parent = 0;
        ULONG32 nargs = 0;

        if (FAILED(INFO(p)->GetClassIDInfo2(p->info, c, &mod, &td, &parent, 0, &nargs, NULL)) || !mod)
            return;                          /* (arrays, pointers, not ready) */
        learn_one(st, p, c, mod, td);
        c = parent;
    }
}

void heap_statics_learn_function(heap_statics *st, profiler *p, FunctionID f)
{
    ClassID c = 0;
    ModuleID m = 0;
    mdToken tok = 0;

    if (f && SUCCEEDED(INFO(p)->GetFunctionInfo(p->info, f, &c, &m, &tok)) && c)
        heap_statics_learn_class(st, p, c);
}

/* The modules loaded now (EnumModules) into live; 0, or -1.  The runtime
 * takes an unloading assembly off this list before its UnloadStarted
 * callbacks, and its code off the JIT-compiled functions only after its
 * modules are gone: a function whose module is not listed here belongs to
 * an unload under way, and its module must not be queried. */
static int live_modules(profiler *p, idmap *live)
{
    ICorProfilerModuleEnum *en = NULL;
    ModuleID ids[JIT_BATCH];
    ULONG got = 0;

    if (FAILED(INFO(p)->EnumModules(p->info, &en)) || !en)
        return -1;
    while (SUCCEEDED(en->lpVtbl->Next(en, JIT_BATCH, ids, &got)) && got > 0)
        for (ULONG i = 0; i < got; i++)
            idmap_put(live, ids[i], 1);
    en->lpVtbl->Release(en);
    return 0;
}

/* Off a callback (the heap service's thread): each function is looked at
 * inside the unload gate, only while no unload has come since the module
 * list was read, and only if its module was on it. */
void heap_statics_learn_jitted(heap_statics *st, profiler *p)
{
    ICorProfilerFunctionEnum *en = NULL;
    COR_PRF_FUNCTION batch[JIT_BATCH];
    ULONG got = 0;
    uint64_t unloads = 0, v;
    idmap live;
    int stale = 0;

    if (st->jitted_done || !p->gate_ok)
        return;
    st->jitted_done = 1;
    idmap_init(&live);
    cu_gate_enter(&p->gate);
    unloads = cu_gate_unloads(&p->gate);
    if (FAILED(INFO(p)->EnumJITedFunctions(p->info, &en)) || !en || live_modules(p, &live) < 0)
        stale = 1;
    cu_gate_leave(&p->gate);
    while (!stale && en && SUCCEEDED(en->lpVtbl->Next(en, JIT_BATCH, batch, &got)) && got > 0) {
        for (ULONG i = 0; i < got && !stale; i++) {
            ClassID c = 0;
            ModuleID m = 0;
            mdToken tok = 0;

            cu_gate_enter(&p->gate);
            if (cu_gate_unloads(&p->gate) != unloads)
                stale = 1;                   /* (the rest: at a later snapshot's frames, or not at all) */
            else if (SUCCEEDED(INFO(p)->GetFunctionInfo(p->info, batch[i].functionId, &c, &m, &tok)) && c &&
                     idmap_get(&live, m, &v))
                heap_statics_learn_class(st, p, c);
            cu_gate_leave(&p->gate);
        }
        if (got < JIT_BATCH)
            break;
    }
    if (en)
        en->lpVtbl->Release(en);
    idmap_free(&live);
}

size_t heap_statics_read(heap_statics *st, void (*put)(void *ctx, uint64_t object, uint32_t name), void *ctx)
{
    for (size_t i = 0; i < st->nslots; i++) {
        uint64_t v = *(volatile const uint64_t *)(uintptr_t)st->slots[i].addr;
        if (v)
            put(ctx, v, st->slots[i].name);
    }
    return st->nslots;
}
