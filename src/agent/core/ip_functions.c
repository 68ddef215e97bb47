/* ip_functions.c - code addresses to named functions (ip_functions.h). */
#include "agent/core/ip_functions.h"
#include "agent/core/il_maps.h"
#include "agent/core/names.h"
#include "agent/core/profiler.h"
#include "agent/core/thread_state.h"

#include <string.h>

int ip_functions_init(ip_functions *f)
{
    memset(f, 0, sizeof(*f));
    idmap_init(&f->ips);
    idmap_init(&f->named);
    idmap_init(&f->dynamic_ips);
    idmap_init(&f->dynamic_named);
    if (pthread_mutex_init(&f->lock, NULL) != 0)
        return -1;
    f->lock_ok = 1;
    return 0;
}

void ip_functions_free(ip_functions *f)
{
    if (f->lock_ok)
        pthread_mutex_destroy(&f->lock);
    idmap_free(&f->ips);
    idmap_free(&f->named);
    idmap_free(&f->dynamic_ips);
    idmap_free(&f->dynamic_named);
    memset(f, 0, sizeof(*f));
}

/* The module unload count (bumped under the gate's write side). */
static uint64_t unloads_now(profiler *p)
{
    return p->gate_ok ? __atomic_load_n(&p->gate.unloads, __ATOMIC_ACQUIRE) : 0;
}

static uint64_t dynamic_unloads_now(profiler *p)
{
    return atomic_load_explicit(&p->dynamic_unloads, memory_order_acquire);
}

/* Under f->lock: empties the caches after a module's unload; the dynamic
 * methods' after one of theirs (maps of their own, so that forgetting them
 * costs what they hold, however often it comes). */
static void check_unloads(profiler *p, ip_functions *f)
{
    uint64_t u = unloads_now(p), d = dynamic_unloads_now(p);
    if (u != f->unloads) {
        idmap_clear(&f->ips);
        idmap_clear(&f->named);
    }
    if (u != f->unloads || d != f->dynamic_unloads) {
        idmap_clear(&f->dynamic_ips);
        idmap_clear(&f->dynamic_named);
    }
    f->unloads = u;
    f->dynamic_unloads = d;
}

/* Writes fid's name unless already written (a dynamic method: unless its
 * name is the same as last time). */
static void name_one(profiler *p, ip_functions *f, uint64_t fid, int dynamic, uint64_t t)
{
    char name[1024];
    ModuleID module = 0;
    uint64_t key = 0, gen;
    emit e;

    pthread_mutex_lock(&f->lock);
    idmap_get(dynamic ? &f->dynamic_named : &f->named, fid, &key);
    gen = f->dynamic_unloads;
    pthread_mutex_unlock(&f->lock);
    if (dynamic && key && atomic_load(&p->dynamic_unloads_told))
        return;                         /* (named since its last unload could be) */
    if (!names_function_once(p->names, (FunctionID)fid, dynamic, &key, name, sizeof(name), &module))
        return;
    pthread_mutex_lock(&f->lock);
    if (!dynamic)
        idmap_put(&f->named, fid, key);
    else if (gen == f->dynamic_unloads && gen == dynamic_unloads_now(p))
        idmap_put(&f->dynamic_named, fid, key);         /* (not if one was unloaded meanwhile) */
    pthread_mutex_unlock(&f->lock);
    if (emit_begin_at(p, &e, TK_FUNC_NAME, t)) {
        rec_function_name_put(&e.r, &(rec_function_name){ .function = fid, .module = module, .name = name,
                                                           .token = dynamic ? 0 : names_function_token(p->names, fid) });
        emit_end(&e);
    }
}

size_t ip_functions_resolve(profiler *p, ip_functions *f, const UINT_PTR *ips, size_t n, uint64_t *out,
                            uint64_t t)
{
    return ip_functions_resolve_ex(p, f, ips, n, out, NULL, t);
}

size_t ip_functions_resolve_ex(profiler *p, ip_functions *f, const UINT_PTR *ips, size_t n, uint64_t *out,
                               uint8_t *dynamic_out, uint64_t t)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0, gen;
        int hit, dynamic = 0;

        pthread_mutex_lock(&f->lock);
        check_unloads(p, f);
        hit = idmap_get(&f->ips, ips[i], &v);
        if (!hit)
            hit = dynamic = idmap_get(&f->dynamic_ips, ips[i], &v);
        gen = f->dynamic_unloads;
        pthread_mutex_unlock(&f->lock);
        if (!hit) {
            FunctionID fid = 0;
            ReJITID rejit = 0;
            if (FAILED(INFO(p)->GetFunctionFromIP3(p->info, (LPCBYTE)ips[i], &fid, &rejit)))
                fid = 0;
            if (fid) {
                char probe[8];
                ModuleID m = 0;
                dynamic = names_dynamic_function(p->names, fid, probe, sizeof(probe), &m);
            }
            v = (uint64_t)fid;
            pthread_mutex_lock(&f->lock);
            if (!dynamic)
                idmap_put(&f->ips, ips[i], v);
            else if (gen == f->dynamic_unloads && gen == dynamic_unloads_now(p))
                idmap_put(&f->dynamic_ips, ips[i], v);      /* (not if one was unloaded meanwhile) */
            pthread_mutex_unlock(&f->lock);
        }
        out[i] = v;
        if (dynamic_out)
            dynamic_out[i] = (uint8_t)dynamic;
        if (out[i])
            name_one(p, f, out[i], dynamic, t);
    }
    return n;
}

void ip_functions_name(profiler *p, ip_functions *f, const uint64_t *fids, size_t n, uint64_t t)
{
    uint32_t todo[64];
    size_t at = 0;
    int told = atomic_load(&p->dynamic_unloads_told);     /* (dynamic methods' names kept too) */

    while (at < n) {
        size_t ntodo = 0;
        /* one lock for a stack's known functions (the common case) */
        pthread_mutex_lock(&f->lock);
        check_unloads(p, f);
        for (; at < n && ntodo < 64; at++) {
            uint64_t had = 0;
            if (fids[at] && !idmap_get(&f->named, fids[at], &had) &&
                !(told && idmap_get(&f->dynamic_named, fids[at], &had)))
                todo[ntodo++] = (uint32_t)at;  /* new, or a dynamic method named again */
        }
        pthread_mutex_unlock(&f->lock);
        for (size_t k = 0; k < ntodo; k++) {
            char probe[8];
            ModuleID m = 0;
            uint64_t fid = fids[todo[k]];
            name_one(p, f, fid, names_dynamic_function(p->names, (FunctionID)fid, probe, sizeof(probe), &m), t);
        }
    }
}

typedef struct own_walk {
    uint64_t *frames;
    UINT_PTR *ips;
    size_t n, max;
} own_walk;

static HRESULT on_own_frame(FunctionID fid, UINT_PTR ip, COR_PRF_FRAME_INFO info, ULONG32 ctx_size, BYTE ctx[],
                            void *data)
{
    own_walk *w = data;
    (void)info;
    (void)ctx_size;
    (void)ctx;
    if (w->n >= w->max)
        return E_FAIL;                  /* deep enough */
    if (fid || !w->n || w->frames[w->n - 1]) {
        if (w->ips)
            w->ips[w->n] = ip;
        w->frames[w->n++] = fid;        /* (one 0 per run of native frames) */
    }
    return S_OK;
}

size_t ip_functions_walk_own(profiler *p, uint64_t *frames, UINT_PTR *ips, size_t max)
{
    own_walk w = { frames, ips, 0, max };

    if (FAILED(INFO(p)->DoStackSnapshot(p->info, 0, on_own_frame, COR_PRF_SNAPSHOT_DEFAULT, &w, NULL, 0)) &&
        w.n == 0)
        return 0;
    while (w.n > 0 && frames[w.n - 1] == 0)
        w.n--;                          /* (the thread's native base) */
    return w.n;
}

size_t ip_functions_own_stack(profiler *p, ip_functions *f, uint64_t *frames, uint32_t *il, size_t max, uint64_t t)
{
    UINT_PTR ips[IP_FUNCTIONS_OWN_MAX];
    size_t n;

    if (!il) {                              /* (alloc-all's every allocation: no addresses kept) */
        n = ip_functions_walk_own(p, frames, NULL, max);
        ip_functions_name(p, f, frames, n, t);
        return n;
    }
    if (max > IP_FUNCTIONS_OWN_MAX)
        max = IP_FUNCTIONS_OWN_MAX;
    n = ip_functions_walk_own(p, frames, ips, max);
    ip_functions_name(p, f, frames, n, t);
    ip_functions_il(p, frames, ips, n, il);
    return n;
}

void ip_functions_il(profiler *p, const uint64_t *fids, const UINT_PTR *ips, size_t n, uint32_t *il)
{
    il_maps_stack(p, p->il_maps, fids, (const uintptr_t *)ips, n, 1, il);
}

uint64_t ip_functions_unloads(profiler *p)
{
    return unloads_now(p);
}
