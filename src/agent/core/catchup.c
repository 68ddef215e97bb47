/* catchup.c - per-kind ID state for the attach catch-up (see catchup.h):
 * a table of common/idmap.h under a mutex; the gate is a reader-writer
 * lock. */
#include "agent/core/catchup.h"
#include "common/idmap.h"

#include <stdlib.h>
#include <string.h>

struct cu_table {
    pthread_mutex_t lock;
    idmap states;                /* id -> enum cu_state; no entry: CU_UNKNOWN */
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
    idmap_init(&t->states);
    return t;
}

void cu_table_free(cu_table *t)
{
    if (!t)
        return;
    pthread_mutex_destroy(&t->lock);
    idmap_free(&t->states);
    free(t);
}

/* Caller holds the lock. */
static enum cu_state stored(const cu_table *t, uint64_t id)
{
    uint64_t v;
    return idmap_get(&t->states, id, &v) ? (enum cu_state)v : CU_UNKNOWN;
}

enum cu_state cu_state_of(cu_table *t, uint64_t id)
{
    enum cu_state s;
    pthread_mutex_lock(&t->lock);
    s = stored(t, id);
    pthread_mutex_unlock(&t->lock);
    return s;
}

enum cu_state cu_on_load(cu_table *t, uint64_t id)
{
    enum cu_state prev;
    pthread_mutex_lock(&t->lock);
    prev = stored(t, id);
    idmap_put(&t->states, id, CU_LIVE);     /* (out of memory: the ID stays unknown) */
    pthread_mutex_unlock(&t->lock);
    return prev;
}

void cu_on_unload(cu_table *t, uint64_t id)
{
    pthread_mutex_lock(&t->lock);
    idmap_put(&t->states, id, CU_DEAD);
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
    pthread_mutex_lock(&t->lock);
    if (stored(t, id) == CU_UNKNOWN && idmap_put(&t->states, id, CU_LIVE) == 0)
        claim = 1;
    pthread_mutex_unlock(&t->lock);
    return claim;
}

int cu_gate_enter_live(cu_gate *g, cu_table *t, uint64_t id)
{
    cu_gate_enter(g);
    if (cu_state_of(t, id) == CU_LIVE)
        return 1;
    cu_gate_leave(g);
    return 0;
}

void cu_counts(cu_table *t, unsigned *live, unsigned *dead)
{
    *live = *dead = 0;
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->states.cap; i++) {
        uint64_t state;
        if (!idmap_at(&t->states, i, NULL, &state))
            continue;
        if (state == CU_LIVE) (*live)++;
        if (state == CU_DEAD) (*dead)++;
    }
    pthread_mutex_unlock(&t->lock);
}
