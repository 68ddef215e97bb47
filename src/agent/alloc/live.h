/* live.h - the live-objects service: follows sampled objects through later
 * GCs with weak handles (ICorProfilerInfo13::CreateHandle), so the report
 * can show what is still alive after the most recent GC, by allocation
 * stack, and for how many GCs it has lived (docs/sampling.md, "live").
 *
 * The allocation path (eventpipe.c) gives it each sampled object
 * (live_follow, on the allocating thread: one handle, appended to a list
 * under a lock that no runtime call is ever made under).  Each
 * GarbageCollectionFinished (cb_gc.c, on the GC's thread, the runtime
 * suspended) only counts the GC and wakes the service's thread through an
 * eventfd; that thread then reads every handle (GetObjectIDFromHandle: 0
 * once the GC collected the object), destroys the dead ones' handles, and
 * writes a live_gc record: the GC count, how many are alive, the ids that
 * died.  Why weak handles and not MovedReferences: docs/sampling.md.
 * Stopping destroys every handle (a detach leaves none behind). */
#ifndef CLRPROBE_AGENT_LIVE_H
#define CLRPROBE_AGENT_LIVE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "api/corprof.h"

typedef struct profiler profiler;

#define LIVE_MAX_FOLLOWED (1u << 20)   /* objects followed at once; more are sampled, not followed */

typedef struct live_item {
    uint64_t id;                     /* the alloc_sample's id */
    ObjectHandleID handle;
} live_item;

typedef struct live_state {
    int running;
    pthread_t thread;
    int wake;                        /* eventfd: a GC finished, or stop */
    atomic_int stop;
    pthread_mutex_t lock;            /* guards incoming, next_id, followed */
    int lock_ok;
    live_item *incoming;             /* followed since the thread last looked */
    size_t nincoming, capincoming;
    live_item *items;                /* the thread's own: followed and alive at its last look */
    size_t nitems, capitems;
    uint64_t next_id;
    size_t followed;                 /* incoming + items */
    int full_noted;
    atomic_uint gcs;                 /* GarbageCollectionFinished seen */
    atomic_uint_fast64_t gc_end_t;   /* the time the last one finished */
    uint32_t gcs_checked;
} live_state;

int live_start(profiler *p);
void live_stop(profiler *p);

/* Follows obj (a sampled object, valid on this thread now): returns the id
 * its alloc_sample gets, or 0 when not followed (service off, too many
 * followed, the runtime refused a handle). */
uint64_t live_follow(profiler *p, ObjectID obj);

/* A GC finished (GarbageCollectionFinished): no lock, no runtime call. */
void live_gc_finished(profiler *p);

#endif
