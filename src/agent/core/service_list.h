/* service_list.h - the agent's services, one line each, in start order
 * (they stop in the reverse one).  Everything the core keeps per service
 * is generated from this list: the profiler instance's pointer to the
 * service's state (profiler.h), the table, the count and the start/stop
 * locks (services.c, session.h).  Each NAME stands for a descriptor
 * `const agent_service NAME_service` (service.h) that the service defines
 * in its own folder, and for its state `struct NAME_state`.
 *
 * Why this order (docs/architecture.md, "The services"):
 *  - flusher first: it drains what the others record, so it starts before
 *    them and stops after them, once recording has ended;
 *  - the runtime's events next (no thread: their callbacks and mask bits);
 *  - sampler, heap, heap_listener, live, eventpipe, alloc_all, tracer and
 *    rejit wait for the attach catch-up; a service comes after the one it
 *    uses, so it stops first: heap_listener after heap (it runs heap_run
 *    on heap's state), eventpipe after live (it hands objects to
 *    live_follow); the sampler first of them so that the heap snapshots'
 *    GCs fall inside its CPU window;
 *  - control last: its thread may stop the services above it (a detach,
 *    the end of a child's run), so it is stopped before any of them. */
#ifndef CLRPROBE_AGENT_SERVICE_LIST_H
#define CLRPROBE_AGENT_SERVICE_LIST_H

#define AGENT_SERVICES(X)    \
    X(flusher)               \
    X(events)                \
    X(sampler)               \
    X(heap)                  \
    X(heap_listener)         \
    X(live)                  \
    X(eventpipe)             \
    X(alloc_all)             \
    X(tracer)                \
    X(rejit)                 \
    X(exceptions)            \
    X(control)

/* The number of services, and each one's index in the table (SERVICE_sampler). */
#define AGENT_SERVICE_INDEX_(name) SERVICE_##name,
enum { AGENT_SERVICES(AGENT_SERVICE_INDEX_) SERVICE_COUNT };

#endif
