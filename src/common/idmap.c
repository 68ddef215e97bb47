/* idmap.c - clrprobe's hash tables (idmap.h): idmap with tombstones for
 * its deletions; idindex with no deletions, each slot one word (a part of
 * the hash and the entry), so that growing moves words and never asks the
 * caller for a key again. */
#include "common/idmap.h"

#include <stdlib.h>
#include <string.h>

static size_t hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

void idmap_init(idmap *m) { memset(m, 0, sizeof(*m)); }

void idmap_free(idmap *m)
{
    free(m->keys);
    free(m->vals);
    free(m->state);
    memset(m, 0, sizeof(*m));
}

int idmap_get(const idmap *m, uint64_t key, uint64_t *val)
{
    if (!m->cap)
        return 0;
    for (size_t i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->state[i] == 0)
            return 0;
        if (m->state[i] == 1 && m->keys[i] == key) {
            if (val)
                *val = m->vals[i];
            return 1;
        }
    }
}

int idmap_at(const idmap *m, size_t i, uint64_t *key, uint64_t *val)
{
    if (i >= m->cap || m->state[i] != 1)
        return 0;
    if (key)
        *key = m->keys[i];
    if (val)
        *val = m->vals[i];
    return 1;
}

void idmap_clear(idmap *m)
{
    if (m->cap)
        memset(m->state, 0, m->cap);
    m->count = m->used = 0;
}

static int grow(idmap *m)
{
    idmap n;
    n.cap = m->cap ? m->cap * 2 : 64;
    while (n.cap < (m->count + 1) * 2)
        n.cap *= 2;
    n.keys = malloc(n.cap * sizeof(uint64_t));
    n.vals = malloc(n.cap * sizeof(uint64_t));
    n.state = calloc(n.cap, 1);
    n.count = n.used = 0;
    if (!n.keys || !n.vals || !n.state) {
        free(n.keys); free(n.vals); free(n.state);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->state[i] == 1)
            idmap_put(&n, m->keys[i], m->vals[i]);
    idmap_free(m);
    *m = n;
    return 0;
}

int idmap_put(idmap *m, uint64_t key, uint64_t val)
{
    size_t i, tomb = (size_t)-1;
    if ((m->used + 1) * 4 >= m->cap * 3 && grow(m) < 0)
        return -1;
    for (i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->state[i] == 0)
            break;
        if (m->state[i] == 2 && tomb == (size_t)-1)
            tomb = i;
        if (m->state[i] == 1 && m->keys[i] == key) {
            m->vals[i] = val;
            return 0;
        }
    }
    if (tomb != (size_t)-1)
        i = tomb;
    else
        m->used++;
    m->state[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->count++;
    return 0;
}

void idmap_del(idmap *m, uint64_t key)
{
    if (!m->cap)
        return;
    for (size_t i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->state[i] == 0)
            return;
        if (m->state[i] == 1 && m->keys[i] == key) {
            m->state[i] = 2;
            m->count--;
            return;
        }
    }
}

/* ---- idindex ---- */

struct idindex {
    size_t cap, count;       /* slots (a power of two), entries */
    uint64_t slot[];         /* tag << 32 | (entry + 1), 0 = empty */
};

/* The part of a key's hash kept in its slot; its low bits are the slot
 * where probing starts. */
static uint32_t tag_of(uint64_t h)
{
    return (uint32_t)hash(h);
}

long idindex_find(const idindex *x, uint64_t h, idindex_same_fn same, const void *ctx)
{
    uint32_t tag = tag_of(h);
    size_t mask;

    if (!x)
        return -1;
    mask = x->cap - 1;
    for (size_t i = tag & mask; x->slot[i]; i = (i + 1) & mask)
        if ((uint32_t)(x->slot[i] >> 32) == tag && same(ctx, (uint32_t)x->slot[i] - 1))
            return (long)((uint32_t)x->slot[i] - 1);
    return -1;
}

static void place(idindex *x, uint64_t slot)
{
    size_t mask = x->cap - 1, i = (uint32_t)(slot >> 32) & mask;
    while (x->slot[i])
        i = (i + 1) & mask;
    x->slot[i] = slot;
    x->count++;
}

int idindex_reserve(idindex **xp, size_t n)
{
    idindex *x = *xp, *nx;
    size_t cap = 64;

    while (cap / 4 * 3 < n) {            /* at most 3/4 full (the tags keep long probes cheap) */
        if (cap > SIZE_MAX / 4 / sizeof(uint64_t))
            return -1;
        cap *= 2;
    }
    if (x && x->cap >= cap)
        return 0;
    nx = calloc(1, sizeof(*nx) + cap * sizeof(uint64_t));
    if (!nx)
        return -1;
    nx->cap = cap;
    if (x)
        for (size_t i = 0; i < x->cap; i++)
            if (x->slot[i])
                place(nx, x->slot[i]);
    free(x);
    *xp = nx;
    return 0;
}

int idindex_add(idindex **xp, uint64_t h, uint32_t entry)
{
    if (entry >= UINT32_MAX)
        return -1;
    if ((!*xp || (*xp)->count + 1 > (*xp)->cap / 4 * 3) && idindex_reserve(xp, (*xp ? (*xp)->count : 0) + 1) < 0)
        return -1;
    place(*xp, (uint64_t)tag_of(h) << 32 | ((uint64_t)entry + 1));
    return 0;
}

void idindex_free(idindex *x)
{
    free(x);
}
