/* heap.h - the heap service: heap snapshots inside the profiled process
 * (docs/trace-format.md, "Heap snapshots").  Every cfg.heap_every_ms its
 * thread (a native thread of the agent's own) induces a full GC with
 * ForceGC; during that GC only, the GC callbacks (ObjectReferences,
 * RootReferences2, with COR_PRF_MONITOR_GC) are encoded into heap_objects
 * and heap_roots records without allocating; after it, each type seen is
 * named once (heap_type) and heap_end closes the snapshot.  The analysis
 * (dominators, retained sizes) is the report's (report/heap_model.h).
 * Launch only for now: COR_PRF_MONITOR_GC is asked in Initialize when the
 * configuration wants snapshots. */
#ifndef CLRPROBE_AGENT_HEAP_H
#define CLRPROBE_AGENT_HEAP_H

#include "api/corprof.h"

typedef struct profiler profiler;

/* The heap service's state in a profiler instance (heap.c's business). */
typedef struct heap_state {
    struct heap_service *running;
} heap_state;

int heap_start(profiler *p);
void heap_stop(profiler *p);
/* Frees the state: only when no callback can run any more (the instance is freed). */
void heap_release(profiler *p);

/* The GC callbacks' part (no-ops unless a snapshot's GC is under way). */
void heap_gc_started(profiler *p, int cGenerations, const BOOL *collected);
void heap_gc_finished(profiler *p);
HRESULT cb_ObjectReferences(ICorProfilerCallback11 *This, ObjectID objectId, ClassID classId, ULONG cObjectRefs,
                            ObjectID *objectRefIds);
HRESULT cb_RootReferences2(ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID *rootRefIds,
                           COR_PRF_GC_ROOT_KIND *rootKinds, COR_PRF_GC_ROOT_FLAGS *rootFlags, UINT_PTR *rootIds);

#endif
