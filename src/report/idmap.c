/* idmap.c - open addressing with linear probing and tombstones. */
#include "report/idmap.h"

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
