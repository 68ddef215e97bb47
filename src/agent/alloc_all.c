/* alloc_all.c - every allocation, added up per thread (alloc_all.h). */
#include "agent/alloc_all.h"
#include "agent/callbacks.h"
#include "agent/names.h"
#include "agent/profiler.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TABLE_SLOTS 256             /* (type, stack) pairs per thread before it is written out */
#define STACK_MAX 64                 /* frames kept per allocation (the root side is lost) */

typedef struct entry {
    uint64_t hash;                   /* 0: empty */
    uint64_t class_id;
    uint64_t count, bytes;
    uint16_t nframes;
    uint64_t frames[STACK_MAX];
} entry;

struct alloc_table {
    pthread_mutex_t lock;            /* its thread adds, the stop writes out */
    size_t used;
    entry slots[TABLE_SLOTS];
};

static uint64_t hash_of(uint64_t class_id, const uint64_t *frames, size_t n)
{
    uint64_t h = class_id * 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ frames[i]) * 0x100000001B3ull;
    return h ? h : 1;
}

/* Writes the table's entries as records and empties it; under its lock. */
static void write_out(profiler *p, alloc_table *t)
{
    uint64_t now = cp_monotonic_ns();

    for (size_t i = 0; i < TABLE_SLOTS && t->used; i++) {
        entry *en = &t->slots[i];
        char type[512];
        emit e;
        if (!en->hash)
            continue;
        names_class(p->names, (ClassID)en->class_id, type, sizeof(type), NULL);
        if (emit_begin_at(p, &e, TK_ALLOC_SAMPLE, now)) {
            rec_alloc_sample_put(&e.r, &(rec_alloc_sample){ .method = ALLOC_METHOD_EXACT,
                                                            .class_id = en->class_id, .size = en->bytes,
                                                            .count = en->count, .type = type[0] ? type : "?",
                                                            .nframes = en->nframes, .frames = en->frames });
            emit_end(&e);
        }
        en->hash = 0;
        t->used--;
    }
    t->used = 0;
}

HRESULT cb_ObjectAllocated(ICorProfilerCallback11 *This, ObjectID obj, ClassID cls)
{
    profiler *p = profiler_from(This);
    alloc_all_state *s = &p->alloc_all;
    uint64_t frames[STACK_MAX];
    thread_state *ts;
    SIZE_T size = 0;
    size_t n, i;
    uint64_t h;

    atomic_fetch_add(&s->in_flight, 1);
    if (!atomic_load(&s->active) || !(ts = thread_state_get(p)))
        goto out;
    if (!ts->allocs) {
        if (!(ts->allocs = calloc(1, sizeof(*ts->allocs))))
            goto out;
        pthread_mutex_init(&ts->allocs->lock, NULL);
    }
    if (FAILED(INFO(p)->GetObjectSize2(p->info, obj, &size)))
        size = 0;
    n = ip_functions_own_stack(p, &s->ipf, frames, STACK_MAX, 0);
    h = hash_of(cls, frames, n);
    pthread_mutex_lock(&ts->allocs->lock);
    for (;;) {
        alloc_table *t = ts->allocs;
        for (i = h % TABLE_SLOTS; t->slots[i].hash; i = (i + 1) % TABLE_SLOTS)
            if (t->slots[i].hash == h && t->slots[i].class_id == cls && t->slots[i].nframes == n &&
                memcmp(t->slots[i].frames, frames, n * sizeof(*frames)) == 0)
                break;
        if (t->slots[i].hash) {
            t->slots[i].count++;
            t->slots[i].bytes += size;
            break;
        }
        if (t->used * 4 >= TABLE_SLOTS * 3) {         /* three quarters full: out with them */
            write_out(p, t);
            continue;
        }
        t->slots[i] = (entry){ .hash = h, .class_id = cls, .count = 1, .bytes = size, .nframes = (uint16_t)n };
        memcpy(t->slots[i].frames, frames, n * sizeof(*frames));
        t->used++;
        break;
    }
    pthread_mutex_unlock(&ts->allocs->lock);
out:
    atomic_fetch_sub(&s->in_flight, 1);
    return S_OK;
}

int alloc_all_start(profiler *p)
{
    alloc_all_state *s = &p->alloc_all;

    if (!(p->cfg.collect & CP_COLLECT_ALLOC_ALL))
        return 0;
    if (p->attached) {
        profiler_note(p, "alloc-all needs the agent from the program's start (clrprobe run): not recorded");
        return 0;
    }
    if (!s->ipf_ok) {
        if (ip_functions_init(&s->ipf) < 0)
            return -1;
        s->ipf_ok = 1;
    }
    atomic_store(&s->active, 1);
    return 0;
}

void alloc_all_stop(profiler *p)
{
    alloc_all_state *s = &p->alloc_all;
    struct timespec ms = { 0, 1000000 };

    if (!atomic_load(&s->active))
        return;
    atomic_store(&s->active, 0);
    for (int i = 0; i < 2000 && atomic_load(&s->in_flight) > 0; i++)
        nanosleep(&ms, NULL);
    pthread_mutex_lock(&p->threads_lock);
    for (thread_state *ts = p->threads; ts; ts = ts->next)
        if (ts->allocs) {
            pthread_mutex_lock(&ts->allocs->lock);
            write_out(p, ts->allocs);
            pthread_mutex_unlock(&ts->allocs->lock);
        }
    pthread_mutex_unlock(&p->threads_lock);
}

void alloc_all_table_free(profiler *p, alloc_table *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    write_out(p, t);                 /* (nothing once recording has ended) */
    pthread_mutex_unlock(&t->lock);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

void alloc_all_free(profiler *p)
{
    alloc_all_state *s = &p->alloc_all;
    if (s->ipf_ok)
        ip_functions_free(&s->ipf);
    s->ipf_ok = 0;
}
