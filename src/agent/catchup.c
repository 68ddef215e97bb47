/* catchup.c - per-kind ID state for the attach catch-up (see catchup.h).
 * A small open-addressing hash table under a mutex; the gate is a
 * reader-writer lock. */
#include "agent/catchup.h"

#include <stdlib.h>
#include <string.h>

struct cu_table {
    pthread_mutex_t lock;
    uint64_t *ids;
    uint8_t *states;             /* 0 = empty slot, else enum cu_state */
    size_t cap, used;
};

int cu_gate_init(cu_gate *g)
{
    g->unloads = 0;
    return pthread_rwlock_init(&g->lock, NULL) == 0 ? 0 : -1;
}

void cu_gate_destroy(cu_gate *g) { pthread_rwlock_destroy(&g->lock); }
void cu_gate_enter(cu_gate *g) { pthread_rwlock_rdlock(&g->lock); }
void cu_gate_leave(cu_gate *g) { pthread_rwlock_unlock(&g->lock); }
uint64_t cu_gate_unloads(cu_gate *g) { return __atomic_load_n(&g->unloads, __ATOMIC_ACQUIRE); }

cu_table *cu_table_create(void)
{
    cu_table *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    return t;
}

void cu_table_free(cu_table *t)
{
    if (!t)
        return;
    pthread_mutex_destroy(&t->lock);
    free(t->ids);
    free(t->states);
    free(t);
}

static size_t slot_of(uint64_t id, size_t cap)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    return (size_t)id & (cap - 1);
}

/* Slot of id, inserting it (state UNKNOWN) if absent; -1 if out of memory.
 * Caller holds the lock. */
static long find(cu_table *t, uint64_t id, int insert)
{
    size_t i;

    if (t->cap == 0 || (insert && (t->used + 1) * 4 >= t->cap * 3)) {
        if (!insert)
            return -1;
        size_t ncap = t->cap ? t->cap * 2 : 256;
        uint64_t *nids = calloc(ncap, sizeof(*nids));
        uint8_t *nst = calloc(ncap, 1);
        if (!nids || !nst) {
            free(nids);
            free(nst);
            return -1;
        }
        for (size_t j = 0; j < t->cap; j++) {
            if (!t->states[j])
                continue;
            size_t k = slot_of(t->ids[j], ncap);
            while (nst[k])
                k = (k + 1) & (ncap - 1);
            nids[k] = t->ids[j];
            nst[k] = t->states[j];
        }
        free(t->ids);
        free(t->states);
        t->ids = nids;
        t->states = nst;
        t->cap = ncap;
    }
    for (i = slot_of(id, t->cap); t->states[i]; i = (i + 1) & (t->cap - 1))
        if (t->ids[i] == id)
            return (long)i;
    if (!insert)
        return -1;
    t->ids[i] = id;
    t->states[i] = 0xff;         /* present, state UNKNOWN until set */
    t->used++;
    return (long)i;
}

static enum cu_state stored(const cu_table *t, long i)
{
    return i < 0 || t->states[i] == 0xff ? CU_UNKNOWN : (enum cu_state)t->states[i];
}

enum cu_state cu_state_of(cu_table *t, uint64_t id)
{
    enum cu_state s;
    pthread_mutex_lock(&t->lock);
    s = stored(t, find(t, id, 0));
    pthread_mutex_unlock(&t->lock);
    return s;
}

enum cu_state cu_on_load(cu_table *t, uint64_t id)
{
    enum cu_state prev = CU_UNKNOWN;
    long i;
    pthread_mutex_lock(&t->lock);
    i = find(t, id, 1);
    if (i >= 0) {
        prev = stored(t, i);
        t->states[i] = CU_LIVE;
    }
    pthread_mutex_unlock(&t->lock);
    return prev;
}

void cu_on_unload(cu_table *t, uint64_t id)
{
    long i;
    pthread_mutex_lock(&t->lock);
    i = find(t, id, 1);
    if (i >= 0)
        t->states[i] = CU_DEAD;
    pthread_mutex_unlock(&t->lock);
}

void cu_gate_bump(cu_gate *g)
{
    pthread_rwlock_wrlock(&g->lock);
    __atomic_add_fetch(&g->unloads, 1, __ATOMIC_RELEASE);
    pthread_rwlock_unlock(&g->lock);
}

void cu_on_unload_gated(cu_gate *g, cu_table *t, uint64_t id, int code_unloads)
{
    pthread_rwlock_wrlock(&g->lock);
    if (code_unloads)
        __atomic_add_fetch(&g->unloads, 1, __ATOMIC_RELEASE);
    cu_on_unload(t, id);
    pthread_rwlock_unlock(&g->lock);
}

int cu_claim(cu_table *t, uint64_t id)
{
    int claim = 0;
    long i;
    pthread_mutex_lock(&t->lock);
    i = find(t, id, 1);
    if (i >= 0 && stored(t, i) == CU_UNKNOWN) {
        t->states[i] = CU_LIVE;
        claim = 1;
    }
    pthread_mutex_unlock(&t->lock);
    return claim;
}

void cu_counts(cu_table *t, unsigned *live, unsigned *dead)
{
    *live = *dead = 0;
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->cap; i++) {
        if (t->states[i] == CU_LIVE) (*live)++;
        if (t->states[i] == CU_DEAD) (*dead)++;
    }
    pthread_mutex_unlock(&t->lock);
}
