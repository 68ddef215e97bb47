/* flusher.c - the flusher service (flusher.h): every FLUSH_INTERVAL_MS it
 * writes out the records buffered by every thread and reaps the state of
 * threads that have exited.  Calls only the trace writer and
 * thread_state.c. */
#include "agent/core/flusher.h"
#include "agent/core/agent_thread.h"
#include "agent/core/profiler.h"
#include "agent/core/service.h"
#include "agent/core/thread_state.h"

#include <signal.h>
#include <time.h>

#define FLUSH_INTERVAL_MS 250

static void *flusher_main(void *arg)
{
    profiler *p = arg;
    flusher_state *f = p->flusher;

    pthread_setname_np(pthread_self(), "clrprobe-flush");
    pthread_mutex_lock(&f->lock);
    while (!f->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += FLUSH_INTERVAL_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&f->cond, &f->lock, &until);
        if (f->stop)
            break;
        pthread_mutex_unlock(&f->lock);
        trace_writer_flush(p->writer);
        thread_state_reap(p);
        pthread_mutex_lock(&f->lock);
    }
    pthread_mutex_unlock(&f->lock);
    return NULL;
}

/* Starts the flusher with every signal blocked, so the program's signal
 * handling never runs on our thread. */
int flusher_start(profiler *p)
{
    flusher_state *f = p->flusher;
    pthread_condattr_t ca;
    int rc;

    if (f->running)
        return 0;
    pthread_mutex_init(&f->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&f->cond, &ca);
    pthread_condattr_destroy(&ca);
    f->stop = 0;

    rc = agent_thread_start(&f->thread, NULL, flusher_main, p);
    if (rc != 0) {
        pthread_cond_destroy(&f->cond);
        pthread_mutex_destroy(&f->lock);
        return -1;
    }
    f->running = 1;
    return 0;
}

void flusher_stop(profiler *p)
{
    flusher_state *f = p->flusher;

    if (!f->running)
        return;
    pthread_mutex_lock(&f->lock);
    f->stop = 1;
    pthread_cond_signal(&f->cond);
    pthread_mutex_unlock(&f->lock);
    pthread_join(f->thread, NULL);
    pthread_cond_destroy(&f->cond);
    pthread_mutex_destroy(&f->lock);
    f->running = 0;
}

const agent_service flusher_service = {
    .name = "flusher",
    .state_size = sizeof(flusher_state),
    .when = AT_OPEN, .start = flusher_start, .stop = flusher_stop,
    .drains = 1,
};
