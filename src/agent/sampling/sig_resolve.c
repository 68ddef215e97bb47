/* sig_resolve.c - a signal sample's addresses to the trace's IDs
 * (sig_resolve.h). */
#include "agent/sampling/sig_resolve.h"
#include "agent/core/service.h"
#include "unwind/stack_walk.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define STUB_NAME "[stub: runtime-generated code]"
#define HIJACK_NAME "[stub: return hijacked for a GC suspension (caller unknown)]"
#define UNKNOWN_NAME "[unknown code]"
#define DEFERRED_NAME "[CPU since a hardware fault (NullReferenceException), sampled when the agent's " \
                      "ExceptionThrown let the signal in]"
#define COLLECTED_NAME "[dynamic method collected before its sample was named]"
#define UNBLOCK_SYMBOL "sig_engine_thread_unblock"

int sig_resolver_init(sig_resolver *r, profiler *p)
{
    memset(r, 0, sizeof(*r));
    r->p = p;
    idmap_init(&r->functions);
    idmap_init(&r->addresses);
    idmap_init(&r->il_at);
    if (ip_functions_init(&r->managed) < 0)
        return -1;
    r->managed_ok = 1;
    r->next_id = 1;
    {
        Dl_info info;
        if (dladdr((void *)sig_resolver_init, &info) && info.dli_fname) {
            const char *slash = strrchr(info.dli_fname, '/');
            snprintf(r->agent, sizeof(r->agent), "%s", slash ? slash + 1 : info.dli_fname);
        }
    }
    return 0;
}

void sig_resolver_free(sig_resolver *r)
{
    if (r->managed_ok)
        ip_functions_free(&r->managed);
    idmap_free(&r->functions);
    idmap_free(&r->addresses);
    idmap_free(&r->il_at);
    memset(r, 0, sizeof(*r));
}

void sig_native_name(const cm_range *range, uintptr_t at, char *buf, size_t cap, uint64_t *key)
{
    const cm_object *o = range->obj;

    if (o && o->ok)
        cm_object_prepare((cm_object *)o);        /* its symbols and table, at its first sample */
    uint64_t addr = at - range->bias, start = 0;
    const char *sym = NULL;

    if (o && o->ok) {
        sym = elf_image_symbol(&o->img, addr, &start);
        if (!sym && !cfi_find(&o->cfi, addr, &start))
            start = addr;
    } else {
        start = addr;
    }
    if (sym)
        snprintf(buf, cap, "%s!%s", o ? o->name : "?", sym);
    else
        snprintf(buf, cap, "%s+0x%llx", o ? o->name : "?", (unsigned long long)start);
    /* one ID per function: the object and the function's start */
    *key = (uint64_t)(o ? o->serial : 0) << 40 | (start & ((1ull << 40) - 1));
}

static uint64_t new_named_id(sig_resolver *r, const char *name, uint64_t t)
{
    uint64_t id = SIG_NATIVE_ID_BIT | r->next_id++;
    emit e;
    if (emit_begin_at(r->p, &e, TK_FUNC_NAME, t)) {
        rec_function_name_put(&e.r, &(rec_function_name){ .function = id, .module = 0, .name = name });
        emit_end(&e);
    }
    return id;
}

static uint64_t fixed_id(sig_resolver *r, uint64_t *slot, const char *name, uint64_t t)
{
    if (!*slot)
        *slot = new_named_id(r, name, t);
    return *slot;
}

/* A native frame's ID (by its function), named when new. */
static uint64_t native_id(sig_resolver *r, const cm_range *range, uintptr_t at, uint64_t t)
{
    char name[512];
    uint64_t key, id;

    sig_native_name(range, at, name, sizeof(name), &key);
    if (idmap_get(&r->functions, key, &id))
        return id;
    id = new_named_id(r, name, t);
    if (idmap_put(&r->functions, key, id) < 0)
        idmap_clear(&r->functions);             /* (named again later rather than grow without memory) */
    return id;
}

/* The ID of one address; *dynamic set when it is a dynamic method's. */
static uint64_t resolve_one(sig_resolver *r, const code_map *m, uintptr_t at, int dynamic_gone, int *dynamic_out,
                            uint64_t t)
{
    const cm_range *range;
    uint64_t id = 0;

    *dynamic_out = 0;
    if (at == SW_MARK_HIJACK)
        return fixed_id(r, &r->hijack_id, HIJACK_NAME, t);
    if (idmap_get(&r->addresses, at, &id))
        return id;
    range = cm_find(m, at);
    if (range && range->kind == CM_NATIVE) {
        id = native_id(r, range, at, t);
    } else {
        /* managed code: JIT-compiled (anonymous memory, or newer than the
         * map), ReadyToRun (an image); kept here once named, but for
         * dynamic methods, looked up each time (the runtime reuses a
         * collected one's ID and code) */
        UINT_PTR ip = at;
        uint64_t fid = 0;
        uint8_t dynamic = 0;
        ip_functions_resolve_ex(r->p, &r->managed, &ip, 1, &fid, &dynamic, t);
        *dynamic_out = dynamic;
        if (fid && dynamic && dynamic_gone)
            return fixed_id(r, &r->collected_id, COLLECTED_NAME, t);
        if (fid) {
            if (!dynamic && idmap_put(&r->addresses, at, fid) < 0)
                idmap_clear(&r->addresses);
            return fid;
        }
        if (!range) {
            id = fixed_id(r, &r->unknown_id, UNKNOWN_NAME, t);
        } else if (range->kind == CM_MANAGED_IMAGE) {
            char name[512];
            uint64_t key = (uint64_t)range->start ^ 0x8000000000000000ull;
            snprintf(name, sizeof(name), "[stub: in %s]", range->image ? range->image : "?");
            if (!idmap_get(&r->functions, key, &id)) {
                id = new_named_id(r, name, t);
                idmap_put(&r->functions, key, id);
            }
        } else {
            id = fixed_id(r, &r->stub_id, STUB_NAME, t);
        }
    }
    if (idmap_put(&r->addresses, at, id) < 0)
        idmap_clear(&r->addresses);
    return id;
}

/* Is at in the agent's own library (and, with symbol, in that function)? */
static int in_agent(const sig_resolver *r, const code_map *m, uintptr_t at, const char *symbol)
{
    const cm_range *range = at > SW_MARK_OSR ? cm_find(m, at) : NULL;
    const char *sym;
    if (!range || range->kind != CM_NATIVE || !range->obj || !r->agent[0] || strcmp(range->obj->name, r->agent) != 0)
        return 0;
    if (!symbol)
        return 1;
    sym = range->obj->ok ? elf_image_symbol(&range->obj->img, at - range->bias, NULL) : NULL;
    return sym && strcmp(sym, symbol) == 0;
}

/* The frames of a signal that waited through a hardware fault's handling
 * and came in at the agent's unblocking (libc's, then the agent's): their
 * number, or 0. */
static size_t deferred_frames(const sig_resolver *r, const code_map *m, const uintptr_t *frames, size_t n)
{
    size_t j = 0;
    while (j < n && j < 3 && !in_agent(r, m, frames[j], NULL))
        j++;
    if (j == n || !in_agent(r, m, frames[j], UNBLOCK_SYMBOL))
        return 0;
    while (j < n && in_agent(r, m, frames[j], NULL))
        j++;
    return j;
}

/* The IL offset of frame `at` of ID id (frame i of the sample: 0 is the
 * interrupted instruction, the others return addresses). */
static uint32_t il_of(sig_resolver *r, uint64_t id, uintptr_t at, size_t i)
{
    uint64_t key = (uint64_t)at | (i > 0 ? 1ull << 63 : 0), v;
    uint32_t il;

    if (!id || (id & SIG_NATIVE_ID_BIT) || at <= SW_MARK_OSR)
        return TRACE_IL_NONE;
    if (idmap_get(&r->il_at, key, &v))
        return (uint32_t)(v - 1);
    il = il_maps_offset(r->p, r->p->il_maps, id, at, i > 0);
    if (r->il_at.count >= (1u << 16))
        idmap_clear(&r->il_at);             /* (bounded: looked up again as needed) */
    idmap_put(&r->il_at, key, (uint64_t)il + 1);
    return il;
}

size_t sig_resolve(sig_resolver *r, const code_map *m, const uintptr_t *frames, size_t n, uint64_t *out,
                   uint32_t *il, int dynamic_gone, uint64_t t)
{
    size_t k = 0, skip, base = 0;
    int dynamic;

    if (r->map_serial < m->kept_since || ip_functions_unloads(r->p) != r->unloads) {
        /* (a library may have been replaced at the same place: a map that
         * only added code keeps what was found; an unload frees code, and
         * its FunctionIDs are reused) */
        idmap_clear(&r->addresses);
        idmap_clear(&r->il_at);
        r->map_serial = m->serial;
        r->unloads = ip_functions_unloads(r->p);
    }
    if ((skip = deferred_frames(r, m, frames, n)) > 0) {
        if (il)
            il[k] = TRACE_IL_NONE;
        out[k++] = fixed_id(r, &r->deferred_id, DEFERRED_NAME, t);
        frames += skip;
        n -= skip;
        base = skip;
    }
    for (size_t i = 0; i < n; i++) {
        if (frames[i] == SW_MARK_OSR) {
            /* the caller an OSR frame hides: only after two frames of one
             * method (its OSR code and its tier-0 frame: one call of it,
             * shown once, as the runtime's own stack walk shows it) */
            if (i + 1 < n && k >= 2 && out[k - 1] == out[k - 2] && !(out[k - 1] & SIG_NATIVE_ID_BIT)) {
                out[k - 1] = resolve_one(r, m, frames[i + 1], dynamic_gone, &dynamic, t);
                if (il)
                    il[k - 1] = dynamic ? TRACE_IL_NONE : il_of(r, out[k - 1], frames[i + 1], base + i + 1);
            }
            i++;
            continue;
        }
        out[k] = resolve_one(r, m, frames[i], dynamic_gone, &dynamic, t);
        if (il)      /* (a dynamic method's IL offset: no source to show it in, and its ID's IL changes) */
            il[k] = dynamic ? TRACE_IL_NONE : il_of(r, out[k], frames[i], base + i);
        k++;
    }
    return k;
}
