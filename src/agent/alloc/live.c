/* live.c - the live-objects service (live.h). */
#include "agent/alloc/live.h"
#include "agent/core/service.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Dead ids per live_gc record (its list's count is 16 bits). */
#define DEAD_PER_RECORD 8192

static int wanted(const profiler *p)
{
    return (p->cfg.collect & CP_COLLECT_LIVE) && INFO_HAS(p, CreateHandle);
}

static int grow(live_item **a, size_t *cap, size_t need)
{
    size_t nc;
    live_item *n;

    if (need <= *cap)
        return 0;
    nc = *cap ? *cap * 2 : 1024;
    while (nc < need)
        nc *= 2;
    if (!(n = realloc(*a, nc * sizeof(*n))))
        return -1;
    *a = n;
    *cap = nc;
    return 0;
}

uint64_t live_follow(profiler *p, ObjectID obj)
{
    live_state *L = p->live;
    ObjectHandleID h = NULL;
    uint64_t id = 0;
    int note = 0;

    if (!L->running || atomic_load(&L->stop) || !obj)
        return 0;
    if (FAILED(INFO(p)->CreateHandle(p->info, obj, COR_PRF_HANDLE_TYPE_WEAK, &h)) || !h)
        return 0;
    pthread_mutex_lock(&L->lock);
    if (L->followed < LIVE_MAX_FOLLOWED && grow(&L->incoming, &L->capincoming, L->nincoming + 1) == 0) {
        id = ++L->next_id;
        L->incoming[L->nincoming++] = (live_item){ .id = id, .handle = h };
        L->followed++;
    } else if (!L->full_noted) {
        L->full_noted = note = 1;
    }
    pthread_mutex_unlock(&L->lock);
    if (!id)
        INFO(p)->DestroyHandle(p->info, h);
    if (note)
        profiler_note(p, "live objects: %u sampled objects are followed at once; later samples are not "
                         "followed until some die (the live view leaves them out)", LIVE_MAX_FOLLOWED);
    return id;
}

void live_gc_finished(profiler *p)
{
    live_state *L = p->live;
    uint64_t one = 1;

    if (!L->running)
        return;
    atomic_store(&L->gc_end_t, cp_monotonic_ns());
    atomic_fetch_add(&L->gcs, 1);
    if (write(L->wake, &one, sizeof(one)) < 0) {
        /* (a full counter: the thread is awake anyway) */
    }
}

/* Writes one GC's result: the dead ids, several records if many. */
static void write_gc(profiler *p, uint32_t gc, uint64_t t, uint32_t alive, const uint64_t *dead, size_t ndead)
{
    size_t at = 0;
    emit e;

    do {
        size_t n = ndead - at > DEAD_PER_RECORD ? DEAD_PER_RECORD : ndead - at;
        if (emit_begin_at(p, &e, TK_LIVE_GC, t)) {
            rec_live_gc_put(&e.r, &(rec_live_gc){ .gc = gc, .alive = alive, .more = at + n < ndead,
                                                  .ndead = (uint16_t)n, .dead = dead + at });
            emit_end(&e);
        }
        at += n;
    } while (at < ndead);
}

/* After a GC: takes in what was followed since, reads every handle. */
static void check(profiler *p)
{
    live_state *L = p->live;
    uint32_t gcs = atomic_load(&L->gcs);
    uint64_t t = atomic_load(&L->gc_end_t);
    uint64_t *dead = NULL;
    size_t ndead = 0, kept = 0;

    if (gcs == L->gcs_checked)
        return;
    L->gcs_checked = gcs;
    pthread_mutex_lock(&L->lock);
    if (grow(&L->items, &L->capitems, L->nitems + L->nincoming) == 0) {
        memcpy(L->items + L->nitems, L->incoming, L->nincoming * sizeof(*L->items));
        L->nitems += L->nincoming;
        L->nincoming = 0;
    }
    pthread_mutex_unlock(&L->lock);
    dead = malloc((L->nitems ? L->nitems : 1) * sizeof(*dead));
    for (size_t i = 0; i < L->nitems; i++) {
        ObjectID obj = 0;
        live_item it = L->items[i];
        if (SUCCEEDED(INFO(p)->GetObjectIDFromHandle(p->info, it.handle, &obj)) && obj == 0 && dead) {
            INFO(p)->DestroyHandle(p->info, it.handle);
            dead[ndead++] = it.id;
        } else {
            L->items[kept++] = it;
        }
    }
    L->nitems = kept;
    pthread_mutex_lock(&L->lock);
    L->followed -= ndead;
    pthread_mutex_unlock(&L->lock);
    write_gc(p, gcs, t, (uint32_t)kept, dead, ndead);
    free(dead);
}

static void *live_main(void *arg)
{
    profiler *p = arg;
    live_state *L = p->live;

    while (!atomic_load(&L->stop)) {
        struct pollfd pf = { .fd = L->wake, .events = POLLIN };
        uint64_t v;
        if (poll(&pf, 1, -1) < 0 && errno != EINTR)
            break;
        if (read(L->wake, &v, sizeof(v)) < 0 && errno != EAGAIN && errno != EINTR)
            break;
        if (atomic_load(&L->stop))
            break;
        check(p);
    }
    return NULL;
}

int live_start(profiler *p)
{
    live_state *L = p->live;
    int rc;

    if (L->running || !wanted(p))
        return 0;
    if (!L->lock_ok) {
        if (pthread_mutex_init(&L->lock, NULL) != 0)
            return -1;
        L->lock_ok = 1;
    }
    if ((L->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
        return -1;
    atomic_store(&L->stop, 0);
    rc = agent_thread_start(&L->thread, NULL, live_main, p);
    if (rc != 0) {
        close(L->wake);
        L->wake = -1;
        return -1;
    }
    L->running = 1;
    return 0;
}

void live_stop(profiler *p)
{
    live_state *L = p->live;
    uint64_t one = 1;

    if (!L->running)
        return;
    atomic_store(&L->stop, 1);
    if (write(L->wake, &one, sizeof(one)) < 0) {
        /* (the thread wakes on its counter anyway) */
    }
    pthread_join(L->thread, NULL);
    L->running = 0;
    close(L->wake);
    L->wake = -1;
    /* No handle of ours stays in the process (a detach follows). */
    {
        live_item *incoming;
        size_t n;
        pthread_mutex_lock(&L->lock);                 /* (no runtime call under the lock) */
        incoming = L->incoming;
        n = L->nincoming;
        L->incoming = NULL;
        L->nincoming = L->capincoming = L->followed = 0;
        pthread_mutex_unlock(&L->lock);
        for (size_t i = 0; i < n; i++)
            INFO(p)->DestroyHandle(p->info, incoming[i].handle);
        free(incoming);
    }
    for (size_t i = 0; i < L->nitems; i++)
        INFO(p)->DestroyHandle(p->info, L->items[i].handle);
    free(L->items);
    L->items = NULL;
    L->nitems = L->capitems = 0;
}

/* ---- the service ---- */

static void live_event_mask(const cp_config *cfg, int attach, DWORD *low, DWORD *high)
{
    if (cfg->collect & CP_COLLECT_LIVE)
        *high |= COR_PRF_HIGH_BASIC_GC;          /* GarbageCollectionFinished */
}

const agent_service live_service = {
    .name = "live",
    .state_size = sizeof(live_state),
    .event_mask = live_event_mask,
    .when = AFTER_CATCHUP, .start = live_start, .stop = live_stop,
    .failed_note = "live objects could not start (out of threads)",
    .stop_before_detach = 1,
    .gc_finished = live_gc_finished,
};
