/* names.c - resolving FunctionIDs, ClassIDs, modules, assemblies and app
 * domains to names through ICorProfilerInfo and IMetaDataImport, with a
 * cache per profiler instance (see names.h).  Algorithm: docs/runtime-abi.md,
 * "Building a function's name": GetFunctionInfo2 / GetClassIDInfo2 for the exact instantiation,
 * GetTypeDefProps and GetNestedClassProps for the declaring type chain, with
 * the flattened type arguments shared out by each level's arity. */
#include "agent/core/names.h"
#include "api/cormetadata.h"
#include "common/hash.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NESTING 8
#define MAX_TYPE_ARGS 16
#define MAX_DEPTH 4          /* generic arguments nested this deep are shown as "..." */
#define WNAME 512

/* ---- the cache: id -> name, with the module and class each belongs to ----
 * A table of its own rather than common/idmap.h: its entries own their
 * names and are removed on unloads, and every runtime thread reads it under
 * a reader-writer lock. */

typedef struct entry {
    uintptr_t id;            /* 0 empty, 1 deleted */
    uintptr_t module, cls;
    char *name;
} entry;

typedef struct table {
    entry *slots;
    size_t cap, used;
} table;

/* Metadata interfaces, one per module, opened on first use and released
 * when the module unloads (GetModuleMetaData is the costly call). */
#define MAX_IMPORTS 256
typedef struct import_slot {
    ModuleID module;
    IMetaDataImport *imp;
} import_slot;

struct names {
    ICorProfilerInfo15 *info;
    int info_version;
    pthread_rwlock_t lock;       /* readers: lookups; writers: inserts and unloads */
    table functions, classes;
    table typedefs;              /* (module, typedef) -> declaring-type chain, "Outer`1\nInner" */
    import_slot imports[MAX_IMPORTS];
    unsigned nimports;
    uint64_t generation;         /* bumped by every unload: results computed across one are not cached */
};

#define EMPTY 0
#define DELETED 1

static size_t slot_of(uintptr_t id, size_t cap)
{
    uint64_t k = id;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 29;
    return (size_t)k & (cap - 1);
}

static const entry *table_entry(const table *t, uintptr_t id)
{
    if (!t->cap)
        return NULL;
    for (size_t i = slot_of(id, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (t->slots[i].id == EMPTY)
            return NULL;
        if (t->slots[i].id == id)
            return &t->slots[i];
    }
}

static int table_put(table *t, uintptr_t id, uintptr_t module, uintptr_t cls, const char *name);

/* The entry for id whose module and cls fields also match, or NULL. */
static const entry *table_find(const table *t, uintptr_t id, uintptr_t module, uintptr_t cls)
{
    if (!t->cap)
        return NULL;
    for (size_t i = slot_of(id, t->cap);; i = (i + 1) & (t->cap - 1)) {
        const entry *e = &t->slots[i];
        if (e->id == EMPTY)
            return NULL;
        if (e->id == id && e->module == module && e->cls == cls)
            return e;
    }
}

static int table_grow(table *t)
{
    table n = { calloc(t->cap ? t->cap * 2 : 1024, sizeof(entry)), t->cap ? t->cap * 2 : 1024, 0 };
    if (!n.slots)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        entry *e = &t->slots[i];
        if (e->id > DELETED) {
            size_t j = slot_of(e->id, n.cap);
            while (n.slots[j].id != EMPTY)
                j = (j + 1) & (n.cap - 1);
            n.slots[j] = *e;
            n.used++;
        }
    }
    free(t->slots);
    *t = n;
    return 0;
}

static int table_put(table *t, uintptr_t id, uintptr_t module, uintptr_t cls, const char *name)
{
    size_t i;
    char *copy;

    if (id <= DELETED)
        return -1;
    if ((t->used + 1) * 10 >= t->cap * 7 && table_grow(t) < 0)
        return -1;
    for (i = slot_of(id, t->cap); t->slots[i].id > DELETED; i = (i + 1) & (t->cap - 1))
        if (t->slots[i].id == id)
            return 0;                         /* another thread got there first */
    copy = strdup(name);
    if (!copy)
        return -1;
    if (t->slots[i].id == EMPTY)
        t->used++;
    t->slots[i] = (entry){ id, module, cls, copy };
    return 0;
}

/* Drops the entry for id, if any. */
static void table_remove(table *t, uintptr_t id)
{
    if (!t->cap)
        return;
    for (size_t i = slot_of(id, t->cap);; i = (i + 1) & (t->cap - 1)) {
        entry *e = &t->slots[i];
        if (e->id == EMPTY)
            return;
        if (e->id == id) {
            free(e->name);
            e->name = NULL;
            e->id = DELETED;
            return;
        }
    }
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].id > DELETED)
            free(t->slots[i].name);
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}

/* Copies a cached name into sb and returns 1; otherwise returns 0 with the
 * unload generation in *gen, to be handed to remember(). */
static int cached(names *n, table *t, uintptr_t id, sbuf *sb, uint64_t *gen, ModuleID *module)
{
    const entry *e;
    pthread_rwlock_rdlock(&n->lock);
    e = table_entry(t, id);
    if (e) {
        sb_add(sb, e->name);
        if (module)
            *module = e->module;
    }
    *gen = n->generation;
    pthread_rwlock_unlock(&n->lock);
    return e != NULL;
}

/* Caches a name, unless an unload happened since gen was read (the name
 * may then belong to a dead ID). */
static void remember(names *n, table *t, uintptr_t id, uintptr_t module, uintptr_t cls, const char *name,
                     uint64_t gen)
{
    pthread_rwlock_wrlock(&n->lock);
    if (n->generation == gen)
        table_put(t, id, module, cls, name);
    pthread_rwlock_unlock(&n->lock);
}

int names_create(names **out, ICorProfilerInfo15 *info, int info_version)
{
    names *n = calloc(1, sizeof(*n));
    if (!n)
        return -1;
    n->info = info;
    n->info_version = info_version;
    pthread_rwlock_init(&n->lock, NULL);
    *out = n;
    return 0;
}

/* Takes the cached imports of module only (0: all) out of the cache into
 * out[]; the caller releases them after dropping the lock. */
static unsigned take_imports(names *n, ModuleID only, IMetaDataImport **out)
{
    unsigned i = 0, k = 0;
    while (i < n->nimports) {
        if (!only || n->imports[i].module == only) {
            out[k++] = n->imports[i].imp;
            n->imports[i] = n->imports[--n->nimports];
        } else {
            i++;
        }
    }
    return k;
}

static void release_all(IMetaDataImport **imps, unsigned k)
{
    for (unsigned i = 0; i < k; i++)
        imps[i]->lpVtbl->Release(imps[i]);
}

void names_free(names *n)
{
    IMetaDataImport *imps[MAX_IMPORTS];

    if (!n)
        return;
    release_all(imps, take_imports(n, 0, imps));
    table_free(&n->functions);
    table_free(&n->classes);
    table_free(&n->typedefs);
    pthread_rwlock_destroy(&n->lock);
    free(n);
}

/* A module is unloading (in .NET Core only collectible ones do).  Forget
 * every cached name, not only the module's own: functions and classes
 * instantiated over its types (List<PluginType>) belong to other modules
 * but die with it.  Unloads are rare, so re-resolving later is cheap. */
void names_forget_module(names *n, ModuleID m)
{
    IMetaDataImport *imps[MAX_IMPORTS];
    unsigned k;

    pthread_rwlock_wrlock(&n->lock);
    n->generation++;
    table_free(&n->functions);
    table_free(&n->classes);
    table_free(&n->typedefs);
    k = take_imports(n, m, imps);
    pthread_rwlock_unlock(&n->lock);
    release_all(imps, k);
}

/* A class is unloading: forget its own name now (its module's unload,
 * which follows, clears the rest). */
void names_forget_class(names *n, ClassID c)
{
    pthread_rwlock_wrlock(&n->lock);
    n->generation++;
    table_remove(&n->classes, c);
    pthread_rwlock_unlock(&n->lock);
}

/* ---- resolution ---- */

/* The module's IMetaDataImport with a reference for the caller (Release
 * it), or NULL.  Served from the per-module cache when possible. */
static IMetaDataImport *open_import(names *n, ModuleID m)
{
    IUnknown *unk = NULL;
    IMetaDataImport *imp;
    uint64_t gen;
    HRESULT hr;

    pthread_rwlock_rdlock(&n->lock);
    gen = n->generation;
    for (unsigned i = 0; i < n->nimports; i++) {
        if (n->imports[i].module == m) {
            imp = n->imports[i].imp;
            imp->lpVtbl->AddRef(imp);
            pthread_rwlock_unlock(&n->lock);
            return imp;
        }
    }
    pthread_rwlock_unlock(&n->lock);

    hr = n->info->lpVtbl->GetModuleMetaData(n->info, m, ofRead, &IID_IMetaDataImport, &unk);
    if (FAILED(hr) || hr == S_FALSE || !unk)
        return NULL;
    imp = (IMetaDataImport *)unk;
    pthread_rwlock_wrlock(&n->lock);
    if (n->nimports < MAX_IMPORTS && n->generation == gen) {
        unsigned i;
        for (i = 0; i < n->nimports && n->imports[i].module != m; i++)
            ;
        if (i == n->nimports) {                /* not added meanwhile by another thread */
            imp->lpVtbl->AddRef(imp);
            n->imports[n->nimports++] = (import_slot){ m, imp };
        }
    }
    pthread_rwlock_unlock(&n->lock);
    return imp;
}

IMetaDataImport *names_metadata(names *n, ModuleID m)
{
    return open_import(n, m);
}

/* Appends the name of class c; its module into *module when not NULL. */
static void class_append(names *n, sbuf *sb, ClassID c, int depth, ModuleID *module);

static uintptr_t typedef_key(ModuleID m, mdTypeDef td)
{
    uint64_t k = ((uint64_t)m * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)td << 1);
    return (uintptr_t)(k | 2);   /* never EMPTY or DELETED */
}

/* The declaring-type chain of td, outermost first, as metadata names with
 * their arity ("Outer`1\nInner`2"), into out.  Returns 1 when exact (then
 * cached per module and typedef: most classes are instantiations of a few
 * generic definitions), 0 when a name could not be read or was cut. */
static int typedef_levels(names *n, IMetaDataImport *imp, ModuleID mod, mdTypeDef td, char *out, size_t cap)
{
    uintptr_t key = typedef_key(mod, td);
    mdTypeDef chain[MAX_NESTING];
    int levels = 0, exact = 1;
    const entry *e;
    uint64_t gen;
    sbuf sb;

    pthread_rwlock_rdlock(&n->lock);
    e = table_find(&n->typedefs, key, mod, td);
    if (e)
        snprintf(out, cap, "%s", e->name);
    gen = n->generation;
    pthread_rwlock_unlock(&n->lock);
    if (e)
        return 1;

    for (mdTypeDef cur = td; levels < MAX_NESTING;) {
        mdTypeDef outer = 0;
        chain[levels++] = cur;
        if (FAILED(imp->lpVtbl->GetNestedClassProps(imp, cur, &outer)) || outer == 0)
            break;
        cur = outer;
    }
    sb_init(&sb, out, cap);
    for (int i = levels - 1; i >= 0; i--) {
        WCHAR w[WNAME];
        char u[WNAME * 3];
        ULONG len = 0;
        DWORD flags = 0;
        mdToken extends = 0;
        HRESULT hr = imp->lpVtbl->GetTypeDefProps(imp, chain[i], w, WNAME, &len, &flags, &extends);

        if (i != levels - 1)
            sb_addc(&sb, '\n');
        if (FAILED(hr)) {
            sb_add(&sb, "?");
            exact = 0;
            continue;
        }
        names_utf16_to_utf8(w, len, u, sizeof(u));
        sb_add(&sb, u);
        if (hr == CLDB_S_TRUNCATION || len > WNAME) {   /* the name did not fit: show it cut */
            sb_add(&sb, "...");
            exact = 0;
        }
    }
    if (sb.truncated)
        exact = 0;
    if (exact) {
        pthread_rwlock_wrlock(&n->lock);
        if (n->generation == gen && !table_find(&n->typedefs, key, mod, td))
            table_put(&n->typedefs, key, mod, td, out);
        pthread_rwlock_unlock(&n->lock);
    }
    return exact;
}

/* Appends the declaring-type chain of td (Outer+Inner), giving each level
 * its share of args (NULL: placeholders). */
static void typedef_append(names *n, sbuf *sb, IMetaDataImport *imp, ModuleID mod, mdTypeDef td,
                           const ClassID *args, ULONG32 nargs, int depth)
{
    char levels[2048];
    const char *p = levels;
    ULONG32 next_arg = 0;
    int first = 1;

    if (!typedef_levels(n, imp, mod, td, levels, sizeof(levels)))
        sb->inexact = 1;
    while (*p) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char u[WNAME * 3 + 4];
        unsigned arity;
        size_t base;

        if (len >= sizeof(u))
            len = sizeof(u) - 1;
        memcpy(u, p, len);
        u[len] = '\0';
        p = end ? end + 1 : p + strlen(p);
        if (!first)
            sb_addc(sb, '+');
        first = 0;
        if (!args) {
            names_add_type_level(sb, u, NULL, 0);
            continue;
        }
        base = names_strip_arity(u, &arity);
        sb_addn(sb, u, base);
        if (arity == 0)
            continue;
        sb_addc(sb, '<');
        for (unsigned a = 0; a < arity; a++) {
            if (a)
                sb_addc(sb, ',');
            if (next_arg < nargs)
                class_append(n, sb, args[next_arg++], depth + 1, NULL);
            else
                sb_addc(sb, '?');
        }
        sb_addc(sb, '>');
    }
}

/* Element type name of an array class. */
static void array_append(names *n, sbuf *sb, ClassID c, int depth)
{
    CorElementType et = 0;
    ClassID elem = 0;
    ULONG rank = 0;
    HRESULT hr = n->info->lpVtbl->IsArrayClass(n->info, c, &et, &elem, &rank);
    const char *prim;

    if (hr != S_OK) {
        sb_add(sb, "?");
        return;
    }
    if (elem)
        class_append(n, sb, elem, depth + 1, NULL);
    else if ((prim = names_primitive(et)) != NULL)
        sb_add(sb, prim);
    else
        sb_add(sb, "?");
    names_add_array_suffix(sb, rank ? rank : 1);
}

static void class_append(names *n, sbuf *sb, ClassID c, int depth, ModuleID *module)
{
    ModuleID mod = 0;
    mdTypeDef td = 0;
    ClassID parent = 0, args[MAX_TYPE_ARGS];
    ULONG32 nargs = 0;
    IMetaDataImport *imp;
    char buf[1024];
    sbuf own;
    uint64_t gen;
    HRESULT hr;

    if (module)
        *module = 0;
    if (!c) {
        sb_add(sb, "?");
        return;
    }
    if (depth > MAX_DEPTH) {
        sb_add(sb, "...");
        return;
    }
    if (cached(n, &n->classes, c, sb, &gen, module))
        return;
    sb_init(&own, buf, sizeof(buf));
    hr = n->info->lpVtbl->GetClassIDInfo2(n->info, c, &mod, &td, &parent, MAX_TYPE_ARGS, &nargs, args);
    if (SUCCEEDED(hr) && module)
        *module = mod;
    if (hr == CORPROF_E_CLASSID_IS_ARRAY) {
        array_append(n, &own, c, depth);
    } else if (FAILED(hr)) {
        sb_add(sb, "?");
        sb->inexact = 1;
        return;                                   /* not cached: may resolve later */
    } else if ((imp = open_import(n, mod)) == NULL) {
        sb_add(sb, "?");
        sb->inexact = 1;
        return;
    } else {
        if (nargs > MAX_TYPE_ARGS)
            nargs = MAX_TYPE_ARGS;
        typedef_append(n, &own, imp, mod, td, args, nargs, depth);
        imp->lpVtbl->Release(imp);
    }
    sb_add(sb, own.buf);
    if (own.inexact)
        sb->inexact = 1;
    if (!own.truncated && !own.inexact)
        remember(n, &n->classes, c, mod, 0, own.buf, gen);
}

void names_class(names *n, ClassID c, char *buf, size_t cap, ModuleID *module)
{
    sbuf sb;
    sb_init(&sb, buf, cap);
    class_append(n, &sb, c, 0, module);
}

int names_dynamic_function(names *n, FunctionID f, char *buf, size_t cap, ModuleID *module)
{
    BOOL dynamic = FALSE;
    ModuleID mod = 0;
    WCHAR w[WNAME];
    ULONG len = 0;
    sbuf sb;
    HRESULT hr;

    if (n->info_version < 8 || !f || FAILED(n->info->lpVtbl->IsFunctionDynamic(n->info, f, &dynamic)) || !dynamic)
        return 0;
    hr = n->info->lpVtbl->GetDynamicFunctionInfo(n->info, f, &mod, NULL, NULL, WNAME, &len, w);
    sb_init(&sb, buf, cap);
    if (SUCCEEDED(hr) && len > 1) {
        char u[WNAME * 3];
        names_utf16_to_utf8(w, len, u, sizeof(u));
        sb_add(&sb, u);
    } else {
        /* (a name longer than the buffer: the runtime gives none) */
        char id[32];
        snprintf(id, sizeof(id), "?(0x%llx)", (unsigned long long)f);
        sb_add(&sb, id);
    }
    sb_add(&sb, " [dynamic]");
    if (module)
        *module = mod;
    return 1;
}

int names_function_once(names *n, FunctionID f, int dynamic, uint64_t *key, char *buf, size_t cap,
                        ModuleID *module)
{
    uint64_t now = NAMES_KEY_NAMED;

    if (!dynamic && *key == NAMES_KEY_NAMED)
        return 0;
    if (!dynamic || !names_dynamic_function(n, f, buf, cap, module))
        names_function(n, f, buf, cap, module);
    if (dynamic)
        now = cp_fnv1a_str(buf) | 2;
    if (now == *key)
        return 0;
    *key = now;
    return 1;
}

mdToken names_function_token(names *n, FunctionID f)
{
    ClassID cls = 0;
    ModuleID mod = 0;
    mdToken tk = 0;
    if (FAILED(n->info->lpVtbl->GetFunctionInfo(n->info, f, &cls, &mod, &tk)) || (tk >> 24) != 0x06)
        return 0;
    return tk;
}

void names_function(names *n, FunctionID f, char *buf, size_t cap, ModuleID *module)
{
    ClassID cls = 0, margs[MAX_TYPE_ARGS];
    ModuleID mod = 0;
    mdToken tk = 0;
    mdTypeDef td = 0;
    ULONG32 nmargs = 0;
    IMetaDataImport *imp;
    WCHAR w[WNAME];
    char u[WNAME * 3];
    ULONG len = 0;
    sbuf sb;
    uint64_t gen;
    HRESULT hr;

    sb_init(&sb, buf, cap);
    *module = 0;
    /* (the cache first: a method named before, as its precompiled code was
     * found, is met again when it is compiled at a higher tier) */
    if (cached(n, &n->functions, f, &sb, &gen, module))
        return;
    hr = n->info->lpVtbl->GetFunctionInfo2(n->info, f, 0, &cls, &mod, &tk, MAX_TYPE_ARGS, &nmargs, margs);
    if (FAILED(hr)) {
        nmargs = 0;
        hr = n->info->lpVtbl->GetFunctionInfo(n->info, f, &cls, &mod, &tk);
        if (FAILED(hr)) {
            if (!names_dynamic_function(n, f, buf, cap, module))
                snprintf(buf, cap, "?(0x%llx)", (unsigned long long)f);
            return;
        }
    }
    *module = mod;
    if (names_dynamic_function(n, f, buf, cap, module))
        return;                               /* (never cached, see names.h) */
    imp = open_import(n, mod);
    if (!imp) {
        snprintf(buf, cap, "?(0x%llx)", (unsigned long long)f);
        return;
    }
    hr = imp->lpVtbl->GetMethodProps(imp, tk, &td, w, WNAME, &len, NULL, NULL, NULL, NULL, NULL);
    if (FAILED(hr)) {
        imp->lpVtbl->Release(imp);
        if (!names_dynamic_function(n, f, buf, cap, module))
            snprintf(buf, cap, "?(0x%llx)", (unsigned long long)f);
        return;
    }
    if (cls)
        class_append(n, &sb, cls, 0, NULL);
    else
        typedef_append(n, &sb, imp, mod, td, NULL, 0, 0);
    imp->lpVtbl->Release(imp);
    sb_addc(&sb, '.');
    names_utf16_to_utf8(w, len, u, sizeof(u));
    sb_add(&sb, u);
    if (hr == CLDB_S_TRUNCATION || len > WNAME) {
        sb_add(&sb, "...");
        sb.inexact = 1;
    }
    if (nmargs > MAX_TYPE_ARGS)
        nmargs = MAX_TYPE_ARGS;
    if (nmargs) {
        sb_addc(&sb, '<');
        for (ULONG32 i = 0; i < nmargs; i++) {
            if (i)
                sb_addc(&sb, ',');
            class_append(n, &sb, margs[i], 1, NULL);
        }
        sb_addc(&sb, '>');
    }
    if (!sb.truncated && !sb.inexact && !strchr(sb.buf, '?'))
        remember(n, &n->functions, f, mod, cls, sb.buf, gen);
}

void names_method_def(names *n, ModuleID m, mdMethodDef md, char *buf, size_t cap)
{
    IMetaDataImport *imp = open_import(n, m);
    WCHAR w[WNAME];
    char u[WNAME * 3];
    ULONG len = 0;
    mdTypeDef td = 0;
    sbuf sb;

    sb_init(&sb, buf, cap);
    if (!imp || FAILED(imp->lpVtbl->GetMethodProps(imp, md, &td, w, WNAME, &len, NULL, NULL, NULL, NULL, NULL))) {
        if (imp)
            imp->lpVtbl->Release(imp);
        snprintf(buf, cap, "?(0x%08x)", (unsigned)md);
        return;
    }
    typedef_append(n, &sb, imp, m, td, NULL, 0, 0);
    imp->lpVtbl->Release(imp);
    sb_addc(&sb, '.');
    names_utf16_to_utf8(w, len, u, sizeof(u));
    sb_add(&sb, u);
}

void names_module(names *n, ModuleID m, char *buf, size_t cap, AssemblyID *assembly, DWORD *flags)
{
    WCHAR w[1024];
    ULONG len = 0;
    LPCBYTE base = NULL;
    HRESULT hr;

    *assembly = 0;
    *flags = 0;
    buf[0] = '\0';
    hr = n->info->lpVtbl->GetModuleInfo2(n->info, m, &base, 1024, &len, w, assembly, flags);
    /* (before its load finished, the runtime fills in the name but says
     * CORPROF_E_DATAINCOMPLETE: the name is still right) */
    if ((SUCCEEDED(hr) || hr == CORPROF_E_DATAINCOMPLETE) && len > 0)
        names_utf16_to_utf8(w, len, buf, cap);
    if (buf[0] == '\0') {
        /* no file (dynamic or in-memory module): use the metadata scope name */
        IMetaDataImport *imp = open_import(n, m);
        if (imp) {
            if (SUCCEEDED(imp->lpVtbl->GetScopeProps(imp, w, 1024, &len, NULL)))
                names_utf16_to_utf8(w, len, buf, cap);
            imp->lpVtbl->Release(imp);
        }
    }
}

void names_assembly(names *n, AssemblyID a, char *name, size_t cap, char *version, size_t vcap,
                    AppDomainID *appdomain, ModuleID *module)
{
    WCHAR w[WNAME];
    ULONG len = 0;
    IUnknown *unk = NULL;

    name[0] = '\0';
    version[0] = '\0';
    *appdomain = 0;
    *module = 0;
    if (FAILED(n->info->lpVtbl->GetAssemblyInfo(n->info, a, WNAME, &len, w, appdomain, module)))
        return;
    names_utf16_to_utf8(w, len, name, cap);
    if (*module && SUCCEEDED(n->info->lpVtbl->GetModuleMetaData(n->info, *module, ofRead,
                                                                &IID_IMetaDataAssemblyImport, &unk)) && unk) {
        IMetaDataAssemblyImport *ai = (IMetaDataAssemblyImport *)unk;
        mdAssembly tk = 0;
        ASSEMBLYMETADATA md;
        memset(&md, 0, sizeof(md));
        if (SUCCEEDED(ai->lpVtbl->GetAssemblyFromScope(ai, &tk)) &&
            SUCCEEDED(ai->lpVtbl->GetAssemblyProps(ai, tk, NULL, NULL, NULL, NULL, 0, NULL, &md, NULL)))
            snprintf(version, vcap, "%u.%u.%u.%u", md.usMajorVersion, md.usMinorVersion, md.usBuildNumber,
                     md.usRevisionNumber);
        ai->lpVtbl->Release(ai);
    }
}

void names_appdomain(names *n, AppDomainID d, char *buf, size_t cap)
{
    WCHAR w[WNAME];
    ULONG len = 0;
    ProcessID pid = 0;

    buf[0] = '\0';
    if (SUCCEEDED(n->info->lpVtbl->GetAppDomainInfo(n->info, d, WNAME, &len, w, &pid)))
        names_utf16_to_utf8(w, len, buf, cap);
}
