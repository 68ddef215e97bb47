/* alloc_all.c - every allocation, added up per thread (alloc_all.h). */
#include "agent/alloc/alloc_all.h"
#include "agent/core/service.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
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
    alloc_table *next;
    uint32_t tid;                    /* its thread */
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

/* Takes the tables of threads that have exited off the list (under
 * s->lock); returns them, to be written out and freed outside it. */
static alloc_table *take_dead(alloc_all_state *s)
{
    pid_t pid = getpid();
    alloc_table *dead = NULL;

    for (alloc_table **pp = &s->tables, *t; (t = *pp) != NULL;) {
        if (syscall(SYS_tgkill, pid, (pid_t)t->tid, 0) < 0 && errno == ESRCH) {
            *pp = t->next;
            t->next = dead;
            dead = t;
        } else {
            pp = &t->next;
        }
    }
    return dead;
}

/* The calling thread's table, made at its first allocation. */
static alloc_table *own_table(profiler *p, alloc_all_state *s)
{
    alloc_table *t = pthread_getspecific(s->key), *dead;

    if (t)
        return t;
    if (!(t = calloc(1, sizeof(*t))))
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    t->tid = cp_gettid();
    if (pthread_setspecific(s->key, t) != 0) {
        pthread_mutex_destroy(&t->lock);
        free(t);
        return NULL;
    }
    pthread_mutex_lock(&s->lock);
    dead = take_dead(s);
    t->next = s->tables;
    s->tables = t;
    pthread_mutex_unlock(&s->lock);
    while (dead) {                   /* (their threads are gone: nobody else holds their locks) */
        alloc_table *d = dead;
        dead = d->next;
        write_out(p, d);
        pthread_mutex_destroy(&d->lock);
        free(d);
    }
    return t;
}

static HRESULT cb_ObjectAllocated(ICorProfilerCallback11 *This, ObjectID obj, ClassID cls)
{
    profiler *p = profiler_from(This);
    alloc_all_state *s = p->alloc_all;
    uint64_t frames[STACK_MAX];
    alloc_table *t;
    SIZE_T size = 0;
    size_t n, i;
    uint64_t h;

    atomic_fetch_add(&s->in_flight, 1);
    if (!atomic_load(&s->active) || !(t = own_table(p, s)))
        goto out;
    if (FAILED(INFO(p)->GetObjectSize2(p->info, obj, &size)))
        size = 0;
    n = ip_functions_own_stack(p, &s->ipf, frames, NULL, STACK_MAX, 0);
    h = hash_of(cls, frames, n);
    pthread_mutex_lock(&t->lock);
    for (;;) {
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
    pthread_mutex_unlock(&t->lock);
out:
    atomic_fetch_sub(&s->in_flight, 1);
    return S_OK;
}

int alloc_all_start(profiler *p)
{
    alloc_all_state *s = p->alloc_all;

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
    if (!s->key_ok) {
        if (pthread_key_create(&s->key, NULL) != 0)
            return -1;
        pthread_mutex_init(&s->lock, NULL);
        s->key_ok = 1;
    }
    atomic_store(&s->active, 1);
    return 0;
}

void alloc_all_stop(profiler *p)
{
    alloc_all_state *s = p->alloc_all;
    struct timespec ms = { 0, 1000000 };

    if (!atomic_load(&s->active))
        return;
    atomic_store(&s->active, 0);
    for (int i = 0; i < 2000 && atomic_load(&s->in_flight) > 0; i++)
        nanosleep(&ms, NULL);
    pthread_mutex_lock(&s->lock);
    for (alloc_table *t = s->tables; t; t = t->next) {
        pthread_mutex_lock(&t->lock);
        write_out(p, t);
        pthread_mutex_unlock(&t->lock);
    }
    pthread_mutex_unlock(&s->lock);
}

void alloc_all_free(profiler *p)
{
    alloc_all_state *s = p->alloc_all;
    if (s->key_ok) {
        while (s->tables) {
            alloc_table *t = s->tables;
            s->tables = t->next;
            pthread_mutex_destroy(&t->lock);
            free(t);
        }
        pthread_key_delete(s->key);
        pthread_mutex_destroy(&s->lock);
        s->key_ok = 0;
    }
    if (s->ipf_ok)
        ip_functions_free(&s->ipf);
    s->ipf_ok = 0;
}

/* ---- the service ---- */

static void alloc_all_event_mask(const cp_config *cfg, int attach, DWORD *low, DWORD *high)
{
    if (cfg->collect & CP_COLLECT_ALLOC_ALL)   /* every allocation: startup only */
        *low |= COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_MONITOR_OBJECT_ALLOCATED | COR_PRF_ENABLE_STACK_SNAPSHOT;
}

static void alloc_all_callbacks(ICorProfilerCallbackVtbl *v)
{
    v->ObjectAllocated = cb_ObjectAllocated;
}

const agent_service alloc_all_service = {
    .name = "alloc_all",
    .state_size = sizeof(alloc_all_state),
    .event_mask = alloc_all_event_mask,
    .callbacks = alloc_all_callbacks,
    .when = AFTER_CATCHUP, .start = alloc_all_start, .stop = alloc_all_stop,
    .failed_note = "alloc-all could not start (out of memory)",
    .stop_before_detach = 1,
    .release = alloc_all_free,
};
