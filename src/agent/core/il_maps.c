/* il_maps.c - managed frames' IL offsets from the runtime's native-to-IL
 * maps, one map per compiled code version, kept (il_maps.h). */
#include "agent/core/il_maps.h"
#include "agent/core/profiler.h"
#include "common/idmap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CODE_VERSIONS 16        /* of one method at once (tiers, ReJIT) */
#define MAX_RANGES 4                /* code ranges of one version (hot, cold) */
#define MAP_MAX 65536               /* entries of one version's map read at most */
#define MISSES_MAX 65536            /* addresses without a map remembered */
#define SMALL_MAP 64                /* entries of a map read on the stack (768 bytes) */

typedef struct il_entry {
    uint32_t native_start, native_end, il;
} il_entry;

typedef struct il_version {
    uintptr_t start[MAX_RANGES];
    uint32_t size[MAX_RANGES];
    uint32_t nranges;
    uint32_t first, n;              /* its entries in m->entries */
    uint32_t next;                  /* the method's next version + 1 (0: none) */
} il_version;

struct il_maps {
    pthread_mutex_t lock;
    idmap by_fid;                   /* FunctionID -> its latest version + 1 */
    idmap misses;                   /* addresses no map was found for */
    il_version *versions;           /* grown as needed, up to IL_MAPS_MAX_VERSIONS */
    uint32_t nversions, versions_cap;
    il_entry *entries;              /* up to IL_MAPS_MAX_ENTRIES */
    uint32_t nentries, entries_cap;
    uint64_t unloads;               /* the unload count the cache belongs to */
};

int il_maps_create(il_maps **out)
{
    il_maps *m = calloc(1, sizeof(*m));

    *out = NULL;
    if (!m)
        return -1;
    if (pthread_mutex_init(&m->lock, NULL) != 0) {
        free(m);
        return -1;
    }
    idmap_init(&m->by_fid);
    idmap_init(&m->misses);
    *out = m;
    return 0;
}

void il_maps_free(il_maps *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->lock);
    idmap_free(&m->by_fid);
    idmap_free(&m->misses);
    free(m->versions);
    free(m->entries);
    free(m);
}

/* Under the lock: forgets everything. */
static void clear(il_maps *m)
{
    idmap_clear(&m->by_fid);
    idmap_clear(&m->misses);
    m->nversions = 0;
    m->nentries = 0;
}

static uint64_t unloads_now(profiler *p)
{
    return p->gate_ok ? __atomic_load_n(&p->gate.unloads, __ATOMIC_ACQUIRE) : 0;
}

/* The offset of `at` in the code of v (its ranges one after another, as
 * the map counts them), or -1 when v does not hold it. */
static long offset_in(const il_version *v, uintptr_t at)
{
    uint64_t before = 0;
    for (uint32_t r = 0; r < v->nranges; r++) {
        if (at >= v->start[r] && at - v->start[r] < v->size[r])
            return (long)(before + (at - v->start[r]));
        before += v->size[r];
    }
    return -1;
}

/* The IL offset of native offset off in v's map: the entry whose range
 * holds it (the last such: the runtime lists a range's IL offsets in
 * order), else the last one starting before it. */
static uint32_t lookup(const il_maps *m, const il_version *v, uint32_t off)
{
    const il_entry *e = m->entries + v->first;
    uint32_t best = TRACE_IL_NONE, best_start = 0;
    int have = 0, inside = 0;

    for (uint32_t i = 0; i < v->n; i++) {
        int holds = off >= e[i].native_start && off < e[i].native_end;
        if (holds) {
            if (!inside || e[i].native_start >= best_start) {
                best = e[i].il;
                best_start = e[i].native_start;
            }
            inside = have = 1;
        } else if (!inside && e[i].native_start <= off && (!have || e[i].native_start >= best_start)) {
            best = e[i].il;
            best_start = e[i].native_start;
            have = 1;
        }
    }
    return best;
}

/* Under the lock: room for one more version of n entries (growing the
 * arrays, or emptying the cache when full); 0, or -1 (out of memory). */
static int make_room(il_maps *m, uint32_t n)
{
    if (m->nversions >= IL_MAPS_MAX_VERSIONS || (uint64_t)m->nentries + n > IL_MAPS_MAX_ENTRIES)
        clear(m);                   /* full: start again (maps are read again as needed) */
    if (m->nversions == m->versions_cap) {
        uint32_t cap = m->versions_cap ? m->versions_cap * 2 : 256;
        il_version *nv = realloc(m->versions, cap * sizeof(*nv));
        if (!nv)
            return -1;
        m->versions = nv;
        m->versions_cap = cap;
    }
    if ((uint64_t)m->nentries + n > m->entries_cap) {
        uint64_t cap = m->entries_cap ? m->entries_cap : 4096;
        il_entry *ne;
        while (cap < (uint64_t)m->nentries + n)
            cap *= 2;
        if (cap > IL_MAPS_MAX_ENTRIES)
            cap = IL_MAPS_MAX_ENTRIES;
        if ((ne = realloc(m->entries, cap * sizeof(*ne))) == NULL)
            return -1;
        m->entries = ne;
        m->entries_cap = (uint32_t)cap;
    }
    return 0;
}

/* Under the lock: the cached version of fid holding at. */
static const il_version *find(const il_maps *m, uint64_t fid, uintptr_t at)
{
    uint64_t v = 0;
    if (!idmap_get(&m->by_fid, fid, &v))
        return NULL;
    for (uint32_t guard = 0; v && v <= m->nversions && guard < MAX_CODE_VERSIONS * 4; guard++) {
        const il_version *ver = &m->versions[v - 1];
        if (offset_in(ver, at) >= 0)
            return ver;
        v = ver->next;
    }
    return NULL;
}

/* Outside the lock: reads the version of fid that holds at (its ranges and
 * map) into *v and *map: small[] (small_cap entries) when the map fits, which
 * most do (one call of the runtime, not two), else memory of its own that
 * the caller frees; returns the map's length, or -1. */
static long read_version(profiler *p, uint64_t fid, uintptr_t at, il_version *v,
                         COR_DEBUG_IL_TO_NATIVE_MAP *small, ULONG32 small_cap, COR_DEBUG_IL_TO_NATIVE_MAP **map)
{
    FunctionID f = 0;
    ReJITID rejit = 0;
    UINT_PTR starts[MAX_CODE_VERSIONS];
    ULONG32 nstarts = 0;

    *map = NULL;
    if (p->info_version < 9)
        return -1;
    if (FAILED(INFO(p)->GetFunctionFromIP3(p->info, (LPCBYTE)at, &f, &rejit)) || f != fid)
        return -1;
    if (FAILED(INFO(p)->GetNativeCodeStartAddresses(p->info, f, rejit, MAX_CODE_VERSIONS, &nstarts, starts)))
        return -1;
    if (nstarts > MAX_CODE_VERSIONS)
        nstarts = MAX_CODE_VERSIONS;
    for (ULONG32 i = 0; i < nstarts; i++) {
        COR_PRF_CODE_INFO ci[MAX_RANGES];
        ULONG32 nci = 0, nmap = 0;
        HRESULT hr;

        if (FAILED(INFO(p)->GetCodeInfo4(p->info, starts[i], MAX_RANGES, &nci, ci)) || nci == 0)
            continue;
        memset(v, 0, sizeof(*v));
        for (ULONG32 r = 0; r < nci && r < MAX_RANGES; r++) {
            v->start[r] = ci[r].startAddress;
            v->size[r] = (uint32_t)ci[r].size;
            v->nranges++;
        }
        if (offset_in(v, at) < 0)
            continue;
        hr = INFO(p)->GetILToNativeMapping3(p->info, starts[i], small_cap, &nmap, small);
        if (SUCCEEDED(hr) && nmap > 0 && nmap <= small_cap) {
            *map = small;
            return (long)nmap;
        }
        /* (larger: the runtime said how large, or is asked) */
        if ((FAILED(hr) && FAILED(INFO(p)->GetILToNativeMapping3(p->info, starts[i], 0, &nmap, NULL))) || nmap == 0)
            return -1;
        if (nmap > MAP_MAX)
            nmap = MAP_MAX;
        *map = malloc(nmap * sizeof(**map));
        if (!*map)
            return -1;
        if (FAILED(INFO(p)->GetILToNativeMapping3(p->info, starts[i], nmap, &nmap, *map))) {
            free(*map);
            *map = NULL;
            return -1;
        }
        return nmap > MAP_MAX ? MAP_MAX : (long)nmap;
    }
    return -1;
}

uint32_t il_maps_offset(profiler *p, il_maps *m, uint64_t fid, uintptr_t ip, int is_return)
{
    uintptr_t at = ip;
    const il_version *found;
    il_version v;
    COR_DEBUG_IL_TO_NATIVE_MAP small[SMALL_MAP], *map = NULL;
    uint64_t unloads;
    uint32_t il = TRACE_IL_NONE;
    long n;

    if (!m || !fid || !ip)
        return TRACE_IL_NONE;
    if (is_return)
        at = ip - 1;                /* the call's last byte: in the call's range of the map */
    unloads = unloads_now(p);
    pthread_mutex_lock(&m->lock);
    if (m->unloads != unloads) {
        clear(m);
        m->unloads = unloads;
    }
    if ((found = find(m, fid, at)) != NULL) {
        il = lookup(m, found, (uint32_t)offset_in(found, at));
        pthread_mutex_unlock(&m->lock);
        return il;
    }
    if (idmap_get(&m->misses, at, NULL)) {
        pthread_mutex_unlock(&m->lock);
        return TRACE_IL_NONE;
    }
    pthread_mutex_unlock(&m->lock);

    n = read_version(p, fid, at, &v, small, SMALL_MAP, &map);

    pthread_mutex_lock(&m->lock);
    if (m->unloads != unloads_now(p)) {
        /* an unload while we read: what we read may belong to freed code */
        pthread_mutex_unlock(&m->lock);
        if (map != small)
            free(map);
        return TRACE_IL_NONE;
    }
    if (n < 0) {
        if (m->misses.count >= MISSES_MAX)
            idmap_clear(&m->misses);
        idmap_put(&m->misses, at, 1);
    } else if ((found = find(m, fid, at)) != NULL) {
        il = lookup(m, found, (uint32_t)offset_in(found, at));   /* another thread read it meanwhile */
    } else {
        uint64_t prev = 0;
        if (make_room(m, (uint32_t)n) < 0) {
            pthread_mutex_unlock(&m->lock);
            if (map != small)
                free(map);
            return TRACE_IL_NONE;
        }
        v.first = m->nentries;
        v.n = (uint32_t)n;
        for (long i = 0; i < n; i++)
            m->entries[m->nentries++] = (il_entry){ map[i].nativeStartOffset, map[i].nativeEndOffset,
                                                    map[i].ilOffset };
        idmap_get(&m->by_fid, fid, &prev);
        v.next = (uint32_t)prev;
        m->versions[m->nversions++] = v;
        if (idmap_put(&m->by_fid, fid, m->nversions) < 0)
            clear(m);
        else
            il = lookup(m, &v, (uint32_t)offset_in(&v, at));
    }
    pthread_mutex_unlock(&m->lock);
    if (map != small)
        free(map);
    return il;
}

void il_maps_stack(profiler *p, il_maps *m, const uint64_t *fids, const uintptr_t *ips, size_t n,
                   int leaf_is_return, uint32_t *il)
{
    for (size_t i = 0; i < n; i++)
        il[i] = fids[i] && ips[i] ? il_maps_offset(p, m, fids[i], ips[i], i > 0 || leaf_is_return)
                                  : TRACE_IL_NONE;
}
