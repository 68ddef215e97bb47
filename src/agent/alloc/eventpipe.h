/* eventpipe.h - the EventPipe service: an in-process EventPipe session
 * (ICorProfilerInfo12::EventPipeStartSession) on the runtime's provider,
 * whose events the runtime hands to ICorProfilerCallback10::
 * EventPipeEventDelivered synchronously, on the thread that raised them.
 * It records:
 *   - allocations (--collect alloc, live): on .NET 10 the randomized
 *     AllocationSampled event (each byte a trial with probability 1/102400:
 *     upscaled without bias in the report), before it AllocationTick (one
 *     per ~100 KB, "not upscaled"); an alloc_sample record with the type,
 *     size and the allocation's stack, and the object handed to the live
 *     service (live.h) with live;
 *   - lock contention (--collect contention): ContentionStart keeps the
 *     stack and the lock in the waiting thread's state, ContentionStop
 *     writes one contention record with the runtime's measured duration.
 * Works at launch and after an attach (COR_PRF_HIGH_MONITOR_EVENT_PIPE is
 * allowed then).  The callback returns at once unless the service records;
 * stop ends the session and waits for callbacks in flight to leave. */
#ifndef CLRPROBE_AGENT_EVENTPIPE_H
#define CLRPROBE_AGENT_EVENTPIPE_H

#include <stdatomic.h>
#include <stdint.h>

#include "agent/core/service.h"
#include "api/corprof.h"

typedef struct profiler profiler;

#define EP_MAX_FRAMES 256             /* deeper stacks are cut (the root side is lost) */

typedef struct eventpipe_state {
    EVENTPIPE_SESSION session;
    int started;                      /* a session is open */
    atomic_int active;                /* the callback records */
    atomic_int in_flight;             /* callbacks inside our code */
    uint32_t alloc_method;            /* ALLOC_METHOD_SAMPLED or ALLOC_METHOD_TICK */
    int follow;                       /* sampled objects go to the live service */
    ip_functions ipf;                 /* lives until the instance is freed (a late callback) */
    int ipf_ok;
} eventpipe_state;

#define EP_TYPE_CACHE 8                /* types a thread remembers the names of */

/* What a thread keeps between its events (thread_state.ep, allocated at its
 * first): its lock wait between ContentionStart and ContentionStop, the
 * names of the types it allocated last, and its last stack, whose
 * functions are named (a loop allocating from one place names nothing
 * again).  The caches belong to an unload count: an unload empties them. */
typedef struct ep_thread {
    struct {
        int open;
        uint64_t t0;
        uint32_t flags;
        uint64_t lock_id, owner;
        uint16_t nframes;
        uint64_t frames[EP_MAX_FRAMES];
        uint32_t il[EP_MAX_FRAMES];       /* their IL offsets */
        char type[256];
    } wait;
    uint64_t unloads;
    struct {
        uint64_t class_id;
        char name[240];
    } types[EP_TYPE_CACHE];
    uint16_t nnamed;
    uint64_t named[EP_MAX_FRAMES];
    UINT_PTR ips[EP_MAX_FRAMES];          /* the own stack's code addresses (event_stack) */
    uint32_t il[EP_MAX_FRAMES];           /* an allocation's frames' IL offsets */
} ep_thread;

int eventpipe_start(profiler *p);
void eventpipe_stop(profiler *p);
/* Frees what may outlive a stop (the instance's teardown). */
void eventpipe_free(profiler *p);

#endif
