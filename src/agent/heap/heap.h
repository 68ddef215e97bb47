/* heap.h - the heap service: heap snapshots inside the profiled process
 * (docs/trace-format.md, "Heap snapshots").  Every cfg.heap_every_ms its
 * thread (a native thread of the agent's own) induces a full GC with
 * ForceGC; during that GC only, the GC callbacks (ObjectReferences,
 * RootReferences2, with COR_PRF_MONITOR_GC) are encoded into heap_objects
 * and heap_roots records without allocating; after it, each type seen is
 * named once (heap_type) and heap_end closes the snapshot.  The analysis
 * (dominators, retained sizes) is the report's (report/heap_model.h).
 * COR_PRF_MONITOR_GC is asked in Initialize or InitializeForAttach when
 * the configuration wants snapshots (runtime.c); a plan started later (the
 * heap listener, heap_listener.h) turns it on for its snapshots and off
 * after them, which the runtime allows only when background GC is off.
 *
 * Snapshots follow a plan (heap_run): count snapshots (0: until stopped),
 * interval_ms apart, the first at once or after one interval.  The
 * service's thread runs the configured plan (cfg.heap_every_ms, and
 * cfg.heap_count for `clrprobe heap`, whose progress lines go to the
 * command over the control connection); one plan runs at a time. */
#ifndef CLRPROBE_AGENT_HEAP_H
#define CLRPROBE_AGENT_HEAP_H

#include "api/corprof.h"

#include <stdatomic.h>
#include <stdint.h>

typedef struct profiler profiler;

/* The heap service's state in a profiler instance (heap.c's business). */
typedef struct heap_state {
    struct heap_service *_Atomic running;    /* made on first use, freed with the instance */
} heap_state;

typedef struct heap_plan {
    uint32_t count;                          /* snapshots to take (0: until stopped) */
    uint64_t interval_ms;                    /* between two snapshots */
    int first_at_once;                       /* else the first after one interval */
} heap_plan;

/* Where a plan's progress lines go (common/control_protocol.h: "snapshot
 * ...", "heap-refused ...", "heap-done"), one line (no newline) a call. */
typedef struct heap_sink {
    void (*line)(void *ctx, const char *line);
    void *ctx;
} heap_sink;

enum { HEAP_RUN_DONE = 0, HEAP_RUN_STOPPED = 1, HEAP_RUN_BUSY = 2, HEAP_RUN_FAILED = -1 };

/* Takes the plan's snapshots on the calling thread (an agent thread that
 * has called InitializeCurrentThread; never a runtime thread or a
 * callback), telling sink (may be NULL) after each.  Returns once done
 * (HEAP_RUN_DONE, "heap-done" told), stopped (heap_stop, *stop set,
 * recording ended: HEAP_RUN_STOPPED), refused by the runtime
 * (HEAP_RUN_FAILED, told and noted), or at once with HEAP_RUN_BUSY when
 * another plan runs. */
int heap_run(profiler *p, const heap_plan *plan, const heap_sink *sink, atomic_int *stop);

int heap_start(profiler *p);
void heap_stop(profiler *p);
/* Frees the state: only when no callback can run any more (the instance is freed). */
void heap_release(profiler *p);

/* The GC callbacks' part (no-ops unless a snapshot's GC is under way). */
void heap_gc_started(profiler *p, int cGenerations, const BOOL *collected);
void heap_gc_finished(profiler *p);

#endif
