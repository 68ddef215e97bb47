/* heap.c - the heap service (heap.h): a thread that takes a heap snapshot
 * every cfg.heap_every_ms by inducing a full GC, and the GC callbacks that
 * record that GC's objects, references and roots.
 *
 * Only the GC the service asked for is recorded: the service arms the
 * snapshot (ARMED) and calls ForceGC; the first GarbageCollectionStarted
 * that collects generation 2 after that turns recording on (RECORDING) and
 * its GarbageCollectionFinished turns it off, so callbacks of a GC that was
 * in progress before, or of any other GC, are ignored.  (ForceGC may be
 * satisfied by another thread's full GC; its callbacks then come from that
 * thread, which is why the GC-side state is guarded by a lock.)  Per object
 * nothing is allocated: entries go into two fixed record-sized buffers, and
 * ClassIDs into a fixed table sized before the GC; a type beyond its
 * capacity is recorded as the type "?" (index TYPE_OVERFLOW). */
#include "agent/heap/heap.h"
#include "agent/core/service.h"
#include "agent/heap/heap_fields.h"
#include "agent/heap/heap_remap.h"
#include "agent/heap/heap_statics.h"
#include "common/config.h"
#include "trace/heap_codec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DATA_CAP (TRACE_MAX_RECORD - 64)    /* a heap_objects/heap_roots record's data */
#define CLASS_SLOTS (1u << 16)              /* distinct types per trace (a power of 2) */
#define TYPE_OVERFLOW (CLASS_SLOTS - 1)     /* the index of "?" */
#define FRAME_SLOTS (1u << 12)              /* distinct stack-root methods named per trace */
#define FROZEN_BATCH 64
#define ENUM_REFS 4096                      /* references kept per object by the enumeration path */

enum { IDLE, ARMED, RECORDING, DONE };

/* Root flags go into the trace as the runtime gives them (heap_codec.h). */
_Static_assert(HEAP_ROOT_FLAG_PINNING == COR_PRF_GC_ROOT_PINNING && HEAP_ROOT_FLAG_WEAKREF == COR_PRF_GC_ROOT_WEAKREF &&
               HEAP_ROOT_FLAG_INTERIOR == COR_PRF_GC_ROOT_INTERIOR &&
               HEAP_ROOT_FLAG_REFCOUNTED == COR_PRF_GC_ROOT_REFCOUNTED, "HEAP_ROOT_FLAG_*");

/* type_info bits, per type index */
#define TI_CHECKED 0x1u                     /* IsArrayClass was asked */
#define TI_ARRAY   0x2u                     /* an array (or not known): no slots */
#define TI_SLOTS   0x4u                     /* its objects' references carried slots: name its fields */
#define TI_NAMED   0x8u                     /* its fields were named (heap_field records) */

static struct heap_service *heap_get(profiler *p);

/* One snapshot, for the progress line. */
typedef struct heap_result {
    uint32_t index, status, flags, roots;
    uint64_t objects, bytes, pause_ns;
} heap_result;

struct heap_service {
    profiler *p;
    pthread_t thread;                        /* the configured plan's (heap_start) */
    int thread_started;
    atomic_int stop;                         /* heap_stop: the thread's plan ends */
    pthread_mutex_t snap_lock;               /* one snapshot at a time */
    atomic_int counted_plan;                 /* a plan with a count (someone waits for it) runs */
    int gc_set_by_us;                        /* monitor_gc_on turned COR_PRF_MONITOR_GC on */
    uint64_t unloads_before;                 /* the unload gate's count before the snapshot's GC */

    /* the snapshot's GC (guarded by gc_lock) */
    pthread_mutex_t gc_lock;
    atomic_int state;
    uint32_t snapshot;
    uint64_t gc_start_ns, gc_end_ns;
    uint64_t objects, bytes;
    uint32_t roots;
    int walk_stopped;
    heap_enc objs, rts;
    uint8_t objs_data[DATA_CAP], roots_data[DATA_CAP];

    /* ClassID -> type index (open addressing; 0 = empty); types named so far.  Not an idmap
     * (common/idmap.h): looked up per object inside the GC, where nothing is allocated per object */
    ClassID *class_ids;
    uint32_t *class_index;
    uint32_t ntypes, named;
    ClassID *by_index;                       /* type index -> ClassID */
    uint8_t *type_info;                      /* type index -> TI_* */
    uint32_t slots[HEAP_FIELDS_MAX_REFS];    /* the object's references' slots (heap_fields.h) */

    /* the FunctionIDs of stack roots' frames (open addressing; 0 = empty), named once per trace
     * (fixed size, like the ClassIDs', for the same reason) */
    FunctionID *frames;
    uint8_t *frame_named;
    uint32_t nframes;
    uint64_t frozen;                         /* frozen objects in this snapshot */
    int frozen_recorded;                     /* the enumeration path recorded them (at its first object) */
    uint64_t enum_refs[ENUM_REFS];           /* an object's references (the enumeration path) */
    size_t nenum_refs;

    heap_statics *statics;                   /* static fields' slots (NULL: none) */
    uint32_t statics_types;                  /* type indexes whose classes it has learned */

    /* object identity across GCs (heap_remap.h), while more snapshots are to come: the addresses of the
     * last snapshot's objects, carried through every GC since (guarded by gc_lock) */
    atomic_int identity;                     /* tracking wanted */
    heap_remap remap;
    uint64_t *prev;                          /* sorted */
    size_t nprev, prev_hint;
    int prev_valid;                          /* prev follows every GC since its snapshot */
    int remapping;                           /* a GC's ranges are being fed */
    uint64_t *cur;                           /* this snapshot's objects, in walk order */
    size_t ncur, cur_cap;
    int cur_failed;
    atomic_uint_fast64_t gcs;                /* GCs finished (all of them) */
    uint64_t gcs_at_end;                     /* gcs when the snapshot's GC finished */
    int walk_identity;                       /* this snapshot's walk used a valid prev */
    int told_enumerate;                      /* the note about the fallback was written */
};

/* ---- recording (inside the GC, under gc_lock) ---- */

static void flush_objects(profiler *p, struct heap_service *h)
{
    emit e;

    if (h->objs.count && emit_begin(p, &e, TK_HEAP_OBJECTS)) {
        rec_heap_objects_put(&e.r, &(rec_heap_objects){ .snapshot = h->snapshot, .count = h->objs.count,
                                                         .data = h->objs_data, .data_len = (uint16_t)h->objs.len });
        emit_end(&e);
    }
    heap_enc_init(&h->objs, h->objs_data, DATA_CAP);
}

static void flush_roots(profiler *p, struct heap_service *h)
{
    emit e;

    if (h->rts.count && emit_begin(p, &e, TK_HEAP_ROOTS)) {
        rec_heap_roots_put(&e.r, &(rec_heap_roots){ .snapshot = h->snapshot, .count = h->rts.count,
                                                     .data = h->roots_data, .data_len = (uint16_t)h->rts.len });
        emit_end(&e);
    }
    heap_enc_init(&h->rts, h->roots_data, DATA_CAP);
}

static uint32_t type_index(struct heap_service *h, ClassID c)
{
    uint32_t i = (uint32_t)((c >> 3) * 0x9E3779B1u) & (CLASS_SLOTS - 1);

    if (c == 0)
        return TYPE_OVERFLOW;
    for (uint32_t probe = 0; probe < CLASS_SLOTS; probe++, i = (i + 1) & (CLASS_SLOTS - 1)) {
        if (h->class_ids[i] == c)
            return h->class_index[i];
        if (h->class_ids[i] == 0) {
            if (h->ntypes >= TYPE_OVERFLOW)
                return TYPE_OVERFLOW;
            h->class_ids[i] = c;
            h->class_index[i] = h->ntypes;
            h->by_index[h->ntypes] = c;
            return h->ntypes++;
        }
    }
    return TYPE_OVERFLOW;
}

/* The slots of an object's references (heap_fields.h), or NULL: an array,
 * a type without an index, too many references, no size. */
static const uint32_t *ref_slots(profiler *p, struct heap_service *h, uint64_t obj, ClassID c, uint32_t type,
                                 uint64_t size, const uint64_t *refs, size_t n)
{
    uint8_t *ti;

    if (n == 0 || n > HEAP_FIELDS_MAX_REFS || type == TYPE_OVERFLOW || size < 3 * sizeof(uint64_t) || c == 0)
        return NULL;
    ti = &h->type_info[type];
    if (!(*ti & TI_CHECKED)) {
        /* (IsArrayClass: no lock, no GC; S_FALSE for a class that is not an array) */
        *ti |= TI_CHECKED;
        if (INFO(p)->IsArrayClass(p->info, c, NULL, NULL, NULL) != S_FALSE)
            *ti |= TI_ARRAY;
    }
    if (*ti & TI_ARRAY)
        return NULL;
    /* the object's words but the header before it (GetObjectSize2 counts it) */
    heap_fields_slots((const uint64_t *)(uintptr_t)obj, (size_t)(size / sizeof(uint64_t)) - 1, refs, n, h->slots);
    *ti |= TI_SLOTS;
    return h->slots;
}

/* Keeps a stack root's FunctionID to name it after the GC (no room: it
 * stays unnamed). */
static void note_frame(struct heap_service *h, FunctionID f)
{
    uint32_t i = (uint32_t)((f >> 3) * 0x9E3779B1u) & (FRAME_SLOTS - 1);

    if (f == 0 || h->nframes >= FRAME_SLOTS / 2)
        return;
    for (uint32_t probe = 0; probe < FRAME_SLOTS; probe++, i = (i + 1) & (FRAME_SLOTS - 1)) {
        if (h->frames[i] == f)
            return;
        if (h->frames[i] == 0) {
            h->frames[i] = f;
            h->nframes++;
            return;
        }
    }
}

/* The objects of the frozen (non-GC) heap: string literals, RuntimeType
 * objects...  They are not collected, but GC objects refer to them.  The
 * heap walk reports them too (with their references), unmarked; here each
 * is written once more, without references, flagged HEAP_OBJ_FROZEN: the
 * report merges the two entries (so an object the walk missed is still
 * there).  Under gc_lock, where the runtime allows object inspection
 * (GetClassFromObject, GetObjectSize2): inside GarbageCollectionFinished,
 * or inside EnumerateGCHeapObjects' callback (the runtime suspended by it);
 * nothing allocated on our side. */
static void record_frozen(profiler *p, struct heap_service *h)
{
    ICorProfilerObjectEnum *en = NULL;
    ObjectID batch[FROZEN_BATCH];
    ULONG got = 0;

    if (!INFO_HAS(p, EnumerateNonGCObjects) || FAILED(INFO(p)->EnumerateNonGCObjects(p->info, &en)) || !en)
        return;
    while (SUCCEEDED(en->lpVtbl->Next(en, FROZEN_BATCH, batch, &got)) && got > 0) {
        for (ULONG i = 0; i < got; i++) {
            ClassID c = 0;
            SIZE_T size = 0;
            size_t from = 0;
            if (FAILED(INFO(p)->GetClassFromObject(p->info, batch[i], &c)))
                c = 0;
            if (FAILED(INFO(p)->GetObjectSize2(p->info, batch[i], &size)))
                size = 0;
            if (!heap_enc_object(&h->objs, batch[i], type_index(h, c), size, HEAP_OBJ_FROZEN, NULL, 0, &from)) {
                flush_objects(p, h);
                (void)heap_enc_object(&h->objs, batch[i], type_index(h, c), size, HEAP_OBJ_FROZEN, NULL, 0, &from);
            }
            h->frozen++;
        }
        if (got < FROZEN_BATCH)
            break;
    }
    en->lpVtbl->Release(en);
}

/* ---- identity (under gc_lock) ---- */

/* Was the object at addr in the previous snapshot?  Lookups come in walk
 * order, ascending within a region: a galloping search from the last hit. */
static int seen_before(struct heap_service *h, uint64_t addr)
{
    size_t lo, hi, step = 1, n = h->nprev;

    if (!h->prev_valid || n == 0)
        return 0;
    lo = h->prev_hint < n && h->prev[h->prev_hint] <= addr ? h->prev_hint : 0;
    hi = lo + 1;
    while (hi < n && h->prev[hi] <= addr) {
        lo = hi;
        hi = lo + (step *= 2);
    }
    if (hi > n)
        hi = n;
    while (lo + 1 < hi) {                    /* prev[lo] <= addr < prev[hi] */
        size_t mid = lo + (hi - lo) / 2;
        if (h->prev[mid] <= addr)
            lo = mid;
        else
            hi = mid;
    }
    h->prev_hint = lo;
    return h->prev[lo] == addr;
}

static void keep_current(struct heap_service *h, uint64_t addr)
{
    if (h->cur_failed)
        return;
    if (h->ncur == h->cur_cap) {             /* (rare: sized before the GC; malloc is allowed here) */
        size_t cap = h->cur_cap ? h->cur_cap * 2 : 65536;
        uint64_t *c = realloc(h->cur, cap * sizeof(*c));
        if (!c) {
            h->cur_failed = 1;
            return;
        }
        h->cur = c;
        h->cur_cap = cap;
    }
    h->cur[h->ncur++] = addr;
}

/* A GC starts while the previous snapshot's objects are tracked: its
 * condemned ranges (GetGenerationBounds). */
static void track_gc_start(profiler *p, struct heap_service *h, int cGenerations, const BOOL *collected)
{
    COR_PRF_GC_GENERATION_RANGE *r = NULL;
    heap_remap_gen *g = NULL;
    ULONG n = 0;
    uint32_t mask = 0;

    for (int i = 0; collected && i < cGenerations && i < 32; i++)
        if (collected[i])
            mask |= 1u << i;
    if (SUCCEEDED(INFO(p)->GetGenerationBounds(p->info, 0, &n, NULL)) && n > 0 &&
        (r = malloc((n + 16) * sizeof(*r))) != NULL && (g = malloc((n + 16) * sizeof(*g))) != NULL &&
        SUCCEEDED(INFO(p)->GetGenerationBounds(p->info, n + 16, &n, r))) {
        for (ULONG i = 0; i < n; i++)
            g[i] = (heap_remap_gen){ (uint64_t)r[i].rangeStart, (uint64_t)r[i].rangeLength, (uint32_t)r[i].generation };
        if (heap_remap_begin(&h->remap, g, n, mask) < 0)
            h->prev_valid = 0;
    } else {
        (void)heap_remap_begin(&h->remap, NULL, 0, mask);
        h->prev_valid = 0;
    }
    h->remapping = h->prev_valid;
    free(r);
    free(g);
}

/* The GC's ranges are all in: prev now holds the survivors' new addresses. */
static void track_gc_end(struct heap_service *h)
{
    if (!h->remapping)
        return;
    h->remapping = 0;
    if (heap_remap_end(&h->remap, h->prev, &h->nprev) < 0)
        h->prev_valid = 0;
    h->prev_hint = 0;
}

static HRESULT cb_MovedReferences2(ICorProfilerCallback11 *This, ULONG cRanges, ObjectID *oldStart, ObjectID *newStart,
                                   SIZE_T *len)
{
    profiler *p = profiler_from(This);
    struct heap_service *h = p->heap->running;

    if (h && h->remapping && oldStart && newStart && len)   /* (heap_remap_add locks itself) */
        heap_remap_add(&h->remap, cRanges, (const uint64_t *)oldStart, (const uint64_t *)newStart,
                       (const uint64_t *)len);
    return S_OK;
}

static HRESULT cb_SurvivingReferences2(ICorProfilerCallback11 *This, ULONG cRanges, ObjectID *start, SIZE_T *len)
{
    profiler *p = profiler_from(This);
    struct heap_service *h = p->heap->running;

    if (h && h->remapping && start && len)
        heap_remap_add(&h->remap, cRanges, (const uint64_t *)start, NULL, (const uint64_t *)len);
    return S_OK;
}

typedef struct static_put {
    profiler *p;
    struct heap_service *h;
} static_put;

static void put_static(void *ctx, uint64_t object, uint32_t name)
{
    static_put *sp = ctx;

    if (!heap_enc_root(&sp->h->rts, HEAP_ROOT_STATIC, 0, object, name)) {
        flush_roots(sp->p, sp->h);
        if (!heap_enc_root(&sp->h->rts, HEAP_ROOT_STATIC, 0, object, name))
            return;
    }
    sp->h->roots++;
}

void heap_gc_started(profiler *p, int cGenerations, const BOOL *collected)
{
    struct heap_service *h = p->heap->running;

    if (h && atomic_load(&h->identity)) {
        pthread_mutex_lock(&h->gc_lock);
        if (h->prev_valid)
            track_gc_start(p, h, cGenerations, collected);
        pthread_mutex_unlock(&h->gc_lock);
    }
    if (!h || atomic_load(&h->state) != ARMED || !collected || cGenerations < 3 || !collected[2])
        return;
    pthread_mutex_lock(&h->gc_lock);
    if (atomic_load(&h->state) == ARMED) {
        h->gc_start_ns = cp_monotonic_ns();
        atomic_store(&h->state, RECORDING);
    }
    pthread_mutex_unlock(&h->gc_lock);
}

void heap_gc_finished(profiler *p)
{
    struct heap_service *h = p->heap->running;

    if (!h)
        return;
    atomic_fetch_add(&h->gcs, 1);
    if (h->remapping) {
        pthread_mutex_lock(&h->gc_lock);
        track_gc_end(h);
        pthread_mutex_unlock(&h->gc_lock);
    }
    if (atomic_load(&h->state) != RECORDING)
        return;
    pthread_mutex_lock(&h->gc_lock);
    if (atomic_load(&h->state) == RECORDING) {
        record_frozen(p, h);
        if (h->statics) {                    /* the slots' values, final addresses (runtime suspended) */
            static_put sp = { p, h };
            heap_statics_read(h->statics, put_static, &sp);
        }
        flush_objects(p, h);
        flush_roots(p, h);
        h->gc_end_ns = cp_monotonic_ns();
        h->gcs_at_end = atomic_load(&h->gcs);
        atomic_store(&h->state, DONE);
    }
    pthread_mutex_unlock(&h->gc_lock);
}

static HRESULT cb_ObjectReferences(ICorProfilerCallback11 *This, ObjectID objectId, ClassID classId, ULONG cObjectRefs,
                                   ObjectID *objectRefIds)
{
    profiler *p = profiler_from(This);
    struct heap_service *h = p->heap->running;
    SIZE_T size = 0;
    size_t from = 0;
    int wrote = 0;

    if (!h || atomic_load(&h->state) != RECORDING)
        return S_OK;
    if ((p->cfg.heap_max_objects > 0 && h->objects >= (uint64_t)p->cfg.heap_max_objects) ||
        trace_writer_stopped(p->writer)) {
        /* The limit or a recording that stopped: a failure ends this GC's
         * walk (the runtime's rule), this GC's only.  A stop (detach,
         * shutdown) does not: it waits for the snapshot under way, which the
         * runtime's pause already holds, so that the trace has it whole. */
        h->walk_stopped = 1;
        return E_FAIL;
    }
    if (FAILED(INFO(p)->GetObjectSize2(p->info, objectId, &size)))
        size = 0;
    pthread_mutex_lock(&h->gc_lock);
    if (atomic_load(&h->state) == RECORDING) {
        uint32_t type = type_index(h, classId);
        size_t n = objectRefIds ? cObjectRefs : 0;
        uint32_t flags = 0;
        if (h->remapping)                    /* (this GC's ranges are all in by now: walk is post-GC) */
            track_gc_end(h);
        if (h->objects == 0)
            h->walk_identity = atomic_load(&h->identity) && h->prev_valid;
        if (atomic_load(&h->identity)) {
            if (seen_before(h, objectId))
                flags = HEAP_OBJ_SEEN;
            keep_current(h, objectId);
        }
        const uint32_t *slots = ref_slots(p, h, objectId, classId, type, size, (const uint64_t *)objectRefIds, n);
        while (!wrote || from < n) {
            if (heap_enc_object_slots(&h->objs, objectId, type, size, wrote ? 0 : flags, (const uint64_t *)objectRefIds,
                                      slots, n, &from))
                wrote = 1;
            else
                flush_objects(p, h);
        }
        h->objects++;
        h->bytes += size;
    }
    pthread_mutex_unlock(&h->gc_lock);
    return S_OK;
}

static HRESULT cb_RootReferences2(ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID *rootRefIds,
                                  COR_PRF_GC_ROOT_KIND *rootKinds, COR_PRF_GC_ROOT_FLAGS *rootFlags,
                                  UINT_PTR *rootIds)
{
    profiler *p = profiler_from(This);
    struct heap_service *h = p->heap->running;

    if (!h || atomic_load(&h->state) != RECORDING || !rootRefIds)
        return S_OK;
    pthread_mutex_lock(&h->gc_lock);
    if (atomic_load(&h->state) == RECORDING)
        for (ULONG i = 0; i < cRootRefs; i++) {
            uint32_t kind = rootKinds ? (uint32_t)rootKinds[i] : 0, flags = rootFlags ? (uint32_t)rootFlags[i] : 0;
            uint64_t id = rootIds ? (uint64_t)rootIds[i] : 0;
            if (rootRefIds[i] == 0)
                continue;
            if (kind > HEAP_ROOT_HANDLE)
                kind = 0;
            if (kind == HEAP_ROOT_STACK)
                note_frame(h, (FunctionID)id);
            if (!heap_enc_root(&h->rts, kind, flags, rootRefIds[i], id)) {
                flush_roots(p, h);
                if (!heap_enc_root(&h->rts, kind, flags, rootRefIds[i], id))
                    continue;
            }
            h->roots++;
        }
    pthread_mutex_unlock(&h->gc_lock);
    return S_OK;
}

/* Dependent handles (ConditionalWeakTable entries, ICorProfilerCallback5):
 * the value lives as long as the key; recorded as HEAP_ROOT_DEPENDENT
 * entries, which the report turns into edges key -> value. */
static HRESULT cb_ConditionalWeakTableElementReferences(ICorProfilerCallback11 *This, ULONG cRootRefs,
                                                        ObjectID *keyRefIds, ObjectID *valueRefIds,
                                                        GCHandleID *rootIds)
{
    profiler *p = profiler_from(This);
    struct heap_service *h = p->heap->running;

    (void)rootIds;
    if (!h || atomic_load(&h->state) != RECORDING || !keyRefIds || !valueRefIds)
        return S_OK;
    pthread_mutex_lock(&h->gc_lock);
    if (atomic_load(&h->state) == RECORDING)
        for (ULONG i = 0; i < cRootRefs; i++) {
            if (!keyRefIds[i] || !valueRefIds[i])
                continue;
            if (!heap_enc_root(&h->rts, HEAP_ROOT_DEPENDENT, 0, valueRefIds[i], keyRefIds[i])) {
                flush_roots(p, h);
                if (!heap_enc_root(&h->rts, HEAP_ROOT_DEPENDENT, 0, valueRefIds[i], keyRefIds[i]))
                    continue;
            }
            h->roots++;
        }
    pthread_mutex_unlock(&h->gc_lock);
    return S_OK;
}

/* ---- the service thread ---- */

/* The snapshot's IDs are named after its GC, off the callbacks, while a
 * collectible type or module may be unloading: each lookup is made inside
 * the unload gate, and only while no unload has come since before the GC
 * (after one, an ID of the snapshot may be gone: it is not looked up).
 * 1 inside the gate, or 0 outside it. */
static int naming_enter(profiler *p, const struct heap_service *h)
{
    if (!p->gate_ok)
        return 0;
    cu_gate_enter(&p->gate);
    if (cu_gate_unloads(&p->gate) == h->unloads_before)
        return 1;
    cu_gate_leave(&p->gate);
    return 0;
}

static void naming_leave(profiler *p) { cu_gate_leave(&p->gate); }

/* The gate's count before a snapshot's GC (naming_enter compares). */
static void note_unloads(profiler *p, struct heap_service *h)
{
    h->unloads_before = p->gate_ok ? cu_gate_unloads(&p->gate) : 0;
}

/* Names the types first seen in the last snapshot (outside the GC: the
 * name lookups call into the runtime); "?" after an unload. */
static void name_new_types(profiler *p, struct heap_service *h)
{
    char name[1024];
    emit e;

    if (h->named == 0 && emit_begin(p, &e, TK_HEAP_TYPE)) {   /* (index TYPE_OVERFLOW, once) */
        rec_heap_type_put(&e.r, &(rec_heap_type){ .index = TYPE_OVERFLOW, .class_id = 0, .name = "?" });
        emit_end(&e);
    }
    for (; h->named < h->ntypes; h->named++) {
        ModuleID m = 0;
        snprintf(name, sizeof(name), "?");
        if (naming_enter(p, h)) {
            names_class(p->names, h->by_index[h->named], name, sizeof(name), &m);
            naming_leave(p);
        }
        if (emit_begin(p, &e, TK_HEAP_TYPE)) {
            rec_heap_type_put(&e.r, &(rec_heap_type){ .index = h->named, .class_id = h->by_index[h->named],
                                                      .name = name });
            emit_end(&e);
        }
    }
}

/* Names the fields of the types whose references carried slots in the
 * last snapshot (outside the GC), once per trace. */
static void name_new_fields(profiler *p, struct heap_service *h)
{
    for (uint32_t t = 0; t < h->ntypes; t++)
        if ((h->type_info[t] & (TI_SLOTS | TI_NAMED)) == TI_SLOTS) {
            h->type_info[t] |= TI_NAMED;
            if (naming_enter(p, h)) {
                (void)heap_fields_name_type(p, t, h->by_index[t]);
                naming_leave(p);
            }
        }
}

/* Names the stack roots' methods first seen in the last snapshot (outside
 * the GC). */
static void name_new_frames(profiler *p, struct heap_service *h)
{
    char name[1024];
    emit e;

    for (uint32_t i = 0; i < FRAME_SLOTS; i++) {
        ModuleID m = 0;
        if (!h->frames[i] || h->frame_named[i])
            continue;
        h->frame_named[i] = 1;
        snprintf(name, sizeof(name), "?");
        if (naming_enter(p, h)) {
            names_function(p->names, h->frames[i], name, sizeof(name), &m);
            if (h->statics)
                heap_statics_learn_function(h->statics, p, h->frames[i]);   /* (for the next snapshot) */
            naming_leave(p);
        }
        if (emit_begin(p, &e, TK_HEAP_FRAME_NAME)) {
            rec_heap_frame_name_put(&e.r, &(rec_heap_frame_name){ .function_id = h->frames[i], .name = name });
            emit_end(&e);
        }
    }
}

/* The static fields of the types first seen in the last snapshot. */
static void learn_statics(profiler *p, struct heap_service *h)
{
    for (; h->statics_types < h->ntypes; h->statics_types++)
        if (naming_enter(p, h)) {
            heap_statics_learn_class(h->statics, p, h->by_index[h->statics_types]);
            naming_leave(p);
        }
}

static void snapshot(profiler *p, struct heap_service *h, heap_result *res)
{
    HRESULT hr;
    emit e;
    uint32_t status = 0, flags = 0;

    pthread_mutex_lock(&h->gc_lock);
    h->snapshot++;
    h->objects = h->bytes = 0;
    h->roots = 0;
    h->frozen = 0;
    h->gc_start_ns = h->gc_end_ns = 0;
    h->walk_identity = 0;
    h->walk_stopped = 0;
    heap_enc_init(&h->objs, h->objs_data, DATA_CAP);
    heap_enc_init(&h->rts, h->roots_data, DATA_CAP);
    if (atomic_load(&h->identity)) {         /* room for this snapshot's addresses, before the GC */
        size_t want = h->nprev + h->nprev / 4 + 65536;
        h->ncur = 0;
        h->cur_failed = 0;
        if (h->cur_cap < want) {
            uint64_t *c = realloc(h->cur, want * sizeof(*c));
            if (c) {
                h->cur = c;
                h->cur_cap = want;
            }
        }
    }
    pthread_mutex_unlock(&h->gc_lock);
    if (emit_begin(p, &e, TK_HEAP_BEGIN)) {
        rec_heap_begin_put(&e.r, &(rec_heap_begin){ .snapshot = h->snapshot, .method = HEAP_METHOD_GC_ROOTS });
        emit_end(&e);
    }
    if (h->statics)                          /* (classes with compiled code: static holders' .cctor) */
        heap_statics_learn_jitted(h->statics, p);
    note_unloads(p, h);
    atomic_store(&h->state, ARMED);
    hr = INFO(p)->ForceGC(p->info);
    pthread_mutex_lock(&h->gc_lock);
    if (atomic_load(&h->state) != DONE) {           /* no full GC of ours came: nothing recorded */
        status = FAILED(hr) ? (uint32_t)hr : (uint32_t)E_FAIL;
        flags |= HEAP_END_ABANDONED;
    }
    if (h->walk_stopped)
        flags |= HEAP_END_WALK_STOPPED;
    if (!h->walk_identity || (flags & (HEAP_END_ABANDONED | HEAP_END_WALK_STOPPED)))
        flags |= HEAP_END_NO_IDENTITY;
    if (atomic_load(&h->identity)) {
        /* This snapshot's objects become the ones to follow, unless a GC ran
         * since ours (its ranges were applied to the old set, not to these). */
        if (!(flags & (HEAP_END_ABANDONED | HEAP_END_WALK_STOPPED)) && !h->cur_failed &&
            atomic_load(&h->gcs) == h->gcs_at_end) {
            uint64_t *t = h->prev;
            size_t tc = h->nprev;
            heap_remap_sort(h->cur, h->ncur);
            h->prev = h->cur;
            h->nprev = h->ncur;
            h->cur = t;
            h->cur_cap = tc > h->cur_cap ? tc : h->cur_cap;
            h->prev_hint = 0;
            h->prev_valid = 1;
        } else {
            h->prev_valid = 0;
        }
    }
    atomic_store(&h->state, IDLE);
    pthread_mutex_unlock(&h->gc_lock);
    name_new_types(p, h);
    name_new_fields(p, h);
    name_new_frames(p, h);
    if (h->statics)                          /* the statics of the types seen (for the next snapshot) */
        learn_statics(p, h);
    if (emit_begin(p, &e, TK_HEAP_END)) {
        rec_heap_end_put(&e.r, &(rec_heap_end){ .snapshot = h->snapshot, .status = status, .objects = h->objects,
                                                .bytes = h->bytes, .roots = h->roots,
                                                .flags = flags,
                                                .pause_ns = h->gc_end_ns - h->gc_start_ns });
        emit_end(&e);
    }
    *res = (heap_result){ .index = h->snapshot, .status = status, .flags = flags,
                          .objects = h->objects, .bytes = h->bytes, .roots = h->roots,
                          .pause_ns = h->gc_end_ns - h->gc_start_ns };
}

/* ---- the fallback: ICorProfilerInfo15::EnumerateGCHeapObjects ---- */

static BOOL enum_ref(ObjectID root, ObjectID *reference, void *ctx)
{
    struct heap_service *h = ctx;
    (void)root;
    if (reference && *reference && h->nenum_refs < ENUM_REFS)
        h->enum_refs[h->nenum_refs++] = (uint64_t)*reference;
    return TRUE;
}

/* One object of the enumeration (the runtime is suspended by it, on this
 * thread): its type, size and references, encoded as the heap walk's are. */
static BOOL enum_object(ObjectID obj, void *ctx)
{
    struct heap_service *h = ctx;
    profiler *p = h->p;
    ClassID c = 0;
    SIZE_T size = 0;
    size_t from = 0;
    int wrote = 0;
    uint32_t type;
    const uint32_t *slots;

    if ((p->cfg.heap_max_objects > 0 && h->objects >= (uint64_t)p->cfg.heap_max_objects) ||
        trace_writer_stopped(p->writer)) {
        h->walk_stopped = 1;                 /* (as in ObjectReferences: not for a stop, which waits for it) */
        return FALSE;
    }
    if (FAILED(INFO(p)->GetClassFromObject(p->info, obj, &c)))
        c = 0;
    if (FAILED(INFO(p)->GetObjectSize2(p->info, obj, &size)))
        size = 0;
    if (!h->frozen_recorded) {               /* (once, while inspection is allowed: not after the walk) */
        h->frozen_recorded = 1;
        record_frozen(p, h);
    }
    h->nenum_refs = 0;
    (void)INFO(p)->EnumerateObjectReferences(p->info, obj, enum_ref, h);
    type = type_index(h, c);
    slots = ref_slots(p, h, obj, c, type, size, h->enum_refs, h->nenum_refs);
    while (!wrote || from < h->nenum_refs) {
        if (heap_enc_object_slots(&h->objs, obj, type, size, 0, h->enum_refs, slots, h->nenum_refs, &from))
            wrote = 1;
        else
            flush_objects(p, h);
    }
    h->objects++;
    h->bytes += size;
    return TRUE;
}

/* A snapshot without GC monitoring: a full GC first (ForceGC needs no
 * event flag: fewer dead objects), then every object the heap holds, dead or
 * alive, with its references; no stack or handle roots.  The frozen objects
 * are recorded at the walk's first object (record_frozen: inspecting them
 * needs the suspension the walk holds), the statics' slots are read after
 * it (their values only, no inspection).  All of it under gc_lock, as the
 * GC path's.  HEAP_METHOD_ENUMERATE, HEAP_END_ROOTS_APPROXIMATE. */
static void snapshot_enumerate(profiler *p, struct heap_service *h, heap_result *res)
{
    uint32_t status = 0, flags = HEAP_END_ROOTS_APPROXIMATE | HEAP_END_NO_IDENTITY;
    uint64_t t0, t1;
    HRESULT hr;
    emit e;

    pthread_mutex_lock(&h->gc_lock);
    h->snapshot++;
    h->objects = h->bytes = 0;
    h->roots = 0;
    h->frozen = 0;
    h->frozen_recorded = 0;
    h->walk_stopped = 0;
    heap_enc_init(&h->objs, h->objs_data, DATA_CAP);
    heap_enc_init(&h->rts, h->roots_data, DATA_CAP);
    pthread_mutex_unlock(&h->gc_lock);
    if (emit_begin(p, &e, TK_HEAP_BEGIN)) {
        rec_heap_begin_put(&e.r, &(rec_heap_begin){ .snapshot = h->snapshot, .method = HEAP_METHOD_ENUMERATE });
        emit_end(&e);
    }
    if (h->statics)
        heap_statics_learn_jitted(h->statics, p);
    note_unloads(p, h);
    (void)INFO(p)->ForceGC(p->info);
    pthread_mutex_lock(&h->gc_lock);
    t0 = cp_monotonic_ns();
    hr = INFO(p)->EnumerateGCHeapObjects(p->info, enum_object, h);
    t1 = cp_monotonic_ns();
    if (FAILED(hr)) {
        status = (uint32_t)hr;
        flags |= HEAP_END_ABANDONED;
    }
    if (h->walk_stopped)
        flags |= HEAP_END_WALK_STOPPED;
    flush_objects(p, h);
    if (SUCCEEDED(hr) && h->statics) {       /* (the slots' values now; nothing has moved since the walk ended) */
        static_put sp = { p, h };
        heap_statics_read(h->statics, put_static, &sp);
    }
    flush_roots(p, h);
    pthread_mutex_unlock(&h->gc_lock);
    name_new_types(p, h);
    name_new_fields(p, h);
    if (h->statics)
        learn_statics(p, h);
    if (emit_begin(p, &e, TK_HEAP_END)) {
        rec_heap_end_put(&e.r, &(rec_heap_end){ .snapshot = h->snapshot, .status = status, .objects = h->objects,
                                                .bytes = h->bytes, .roots = h->roots, .flags = flags,
                                                .pause_ns = t1 - t0 });
        emit_end(&e);
    }
    *res = (heap_result){ .index = h->snapshot, .status = status, .flags = flags, .objects = h->objects,
                          .bytes = h->bytes, .roots = h->roots, .pause_ns = t1 - t0 };
}

/* COR_PRF_MONITOR_GC on, for the snapshot's GC to deliver its objects and
 * roots.  Asked at launch or in InitializeForAttach when the configuration
 * wants snapshots (runtime.c), so it is usually on; otherwise (an agent
 * asked later, through the heap listener) the runtime accepts it only if
 * background GC is off (docs/gc-tracking.md).  S_OK, or the runtime's refusal. */
static HRESULT monitor_gc_on(profiler *p, struct heap_service *h)
{
    DWORD low = 0, high = 0;
    HRESULT hr;

    if (!INFO_HAS(p, GetEventMask2) || !INFO_HAS(p, SetEventMask2))
        return E_NOTIMPL;
    if (FAILED(hr = INFO(p)->GetEventMask2(p->info, &low, &high)))
        return hr;
    if (low & COR_PRF_MONITOR_GC)
        return S_OK;
    if (SUCCEEDED(hr = INFO(p)->SetEventMask2(p->info, low | COR_PRF_MONITOR_GC, high)))
        h->gc_set_by_us = 1;
    return hr;
}

/* Turns COR_PRF_MONITOR_GC off again if monitor_gc_on turned it on: every
 * GC walks the heap while it is on. */
static void monitor_gc_restore(profiler *p, struct heap_service *h)
{
    DWORD low = 0, high = 0;

    if (!h->gc_set_by_us)
        return;
    h->gc_set_by_us = 0;
    if (SUCCEEDED(INFO(p)->GetEventMask2(p->info, &low, &high)))
        (void)INFO(p)->SetEventMask2(p->info, low & ~(DWORD)COR_PRF_MONITOR_GC, high);
}

/* Sleeps until the monotonic time `until` (ns), or until a stop is asked:
 * 1 if it slept the whole time. */
static int wait_until(struct heap_service *h, uint64_t until, atomic_int *stop)
{
    for (;;) {
        uint64_t now = cp_monotonic_ns(), left;
        struct timespec ts;

        if (atomic_load(&h->stop) || (stop && atomic_load(stop)))
            return 0;
        if (now >= until)
            return 1;
        left = until - now < 50000000u ? until - now : 50000000u;   /* checks a stop every 50 ms */
        ts.tv_sec = 0;
        ts.tv_nsec = (long)left;
        nanosleep(&ts, NULL);
    }
}

/* A snapshot is over: its records go to the file now (not at the flusher's
 * next turn, up to 250 ms away), before anyone is told it was taken, so a
 * process killed right after keeps it.  Outside the GC, on our thread. */
/* After a snapshot: everything it recorded goes to the file.  If the
 * trace stopped on the way (a full disk), not all of it got there: its
 * result says so rather than its counts alone. */
static void snapshot_written(profiler *p, heap_result *r)
{
    trace_writer_flush(p->writer);
    if (trace_writer_stopped(p->writer) && r->status == 0)
        r->status = CP_HEAP_SNAPSHOT_CUT;
}

static void tell(const heap_sink *sink, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tell(const heap_sink *sink, const char *fmt, ...)
{
    char line[CP_CTL_LINE_MAX];
    va_list ap;

    if (!sink || !sink->line)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    sink->line(sink->ctx, line);
}

int heap_run(profiler *p, const heap_plan *plan, const heap_sink *sink, atomic_int *stop)
{
    struct heap_service *h = heap_get(p);
    uint64_t next;
    uint32_t taken = 0;
    int rc = HEAP_RUN_DONE;

    if (!h)
        return HEAP_RUN_FAILED;
    if (plan->count > 0) {                   /* (an endless plan, --heap-every, lets others in between) */
        int none = 0;
        if (!atomic_compare_exchange_strong(&h->counted_plan, &none, 1))
            return HEAP_RUN_BUSY;
    }
    if (plan->count != 1)                    /* more than one: follow the objects from one to the next */
        atomic_store(&h->identity, 1);
    next = cp_monotonic_ns() + (plan->first_at_once ? 0 : (uint64_t)plan->interval_ms * 1000000u);
    while (plan->count == 0 || taken < plan->count) {
        heap_result r;
        HRESULT hr;
        int enumerate;

        if (!wait_until(h, next, stop)) {
            rc = HEAP_RUN_STOPPED;
            break;
        }
        if (!atomic_load(&p->recording) || trace_writer_stopped(p->writer)) {
            rc = HEAP_RUN_STOPPED;
            break;
        }
        pthread_mutex_lock(&h->snap_lock);
        /* (a notification profiler may not monitor GCs: the enumeration
         * always, as its session's note says) */
        enumerate = p->cfg.heap_method == CP_HEAP_METHOD_ENUMERATE || p->notification;
        if (p->cfg.heap_method != CP_HEAP_METHOD_GC && INFO_HAS(p, EnumerateGCHeapObjects) &&
            (enumerate || FAILED(monitor_gc_on(p, h)))) {
            if (!enumerate && !h->told_enumerate) {
                h->told_enumerate = 1;
                profiler_note(p, "heap snapshots by enumeration (ICorProfilerInfo15): the runtime refused GC "
                              "monitoring (background GC is on); roots are approximate: no stack or handle roots");
            }
            snapshot_enumerate(p, h, &r);
            pthread_mutex_unlock(&h->snap_lock);
            snapshot_written(p, &r);
            taken++;
            tell(sink, CP_CTL_SNAPSHOT_FMT, r.index, r.status, r.flags, (unsigned long long)r.objects,
                 (unsigned long long)r.bytes, r.roots, (unsigned long long)r.pause_ns);
            next = cp_monotonic_ns() + (uint64_t)plan->interval_ms * 1000000u;
            continue;
        }
        if (p->notification) {               /* (no enumeration in this runtime, and no GC monitoring) */
            pthread_mutex_unlock(&h->snap_lock);
            profiler_note(p, "no heap snapshot: a notification profiler may not monitor GCs, and this runtime has "
                          "no heap enumeration (ICorProfilerInfo15, .NET 9 and later)");
            tell(sink, CP_CTL_HEAP_REFUSED_FMT, (unsigned)CORPROF_E_UNSUPPORTED_CALL_SEQUENCE);
            rc = HEAP_RUN_FAILED;
            break;
        }
        if (FAILED(hr = monitor_gc_on(p, h))) {
            pthread_mutex_unlock(&h->snap_lock);
            profiler_note(p, "no heap snapshot: the runtime refused COR_PRF_MONITOR_GC (HRESULT 0x%08x): "
                          "background GC is on in this process; start it with DOTNET_gcConcurrent=0 or under "
                          "clrprobe run --heap-every", (unsigned)hr);
            tell(sink, CP_CTL_HEAP_REFUSED_FMT, (unsigned)hr);
            rc = HEAP_RUN_FAILED;
            break;
        }
        snapshot(p, h, &r);
        pthread_mutex_unlock(&h->snap_lock);
        snapshot_written(p, &r);
        taken++;
        tell(sink, CP_CTL_SNAPSHOT_FMT, r.index, r.status, r.flags, (unsigned long long)r.objects,
             (unsigned long long)r.bytes, r.roots, (unsigned long long)r.pause_ns);
        next = cp_monotonic_ns() + (uint64_t)plan->interval_ms * 1000000u;
    }
    if (plan->count > 0) {
        int endless = h->thread_started && p->cfg.heap_every_ms > 0 && p->cfg.heap_count == 0;
        pthread_mutex_lock(&h->snap_lock);
        if (!endless) {
            monitor_gc_restore(p, h);        /* (no endless plan needs it on) */
            pthread_mutex_lock(&h->gc_lock); /* nor the objects followed */
            atomic_store(&h->identity, 0);
            h->prev_valid = 0;
            if (h->remapping) {
                uint64_t none = 0;
                size_t zero = 0;
                h->remapping = 0;
                (void)heap_remap_end(&h->remap, &none, &zero);
            }
            pthread_mutex_unlock(&h->gc_lock);
        }
        pthread_mutex_unlock(&h->snap_lock);
        atomic_store(&h->counted_plan, 0);
    }
    if (rc == HEAP_RUN_DONE)
        tell(sink, CP_CTL_HEAP_DONE);
    return rc;
}

/* The configured plan's sink: progress lines to the command (`clrprobe
 * heap` attached us with heap_count; no-op when nobody listens). */
static void control_line(void *ctx, const char *line)
{
    control_send(ctx, "%s", line);
}

static void *heap_main(void *arg)
{
    struct heap_service *h = arg;
    profiler *p = h->p;
    heap_plan plan = { .count = (uint32_t)p->cfg.heap_count, .interval_ms = (uint64_t)p->cfg.heap_every_ms,
                       .first_at_once = p->cfg.heap_count > 0 };
    heap_sink sink = { control_line, p };
    int rc;

    pthread_setname_np(pthread_self(), "clrprobe-heap");
    while (!atomic_load(&h->stop) && FAILED(INFO(p)->InitializeCurrentThread(p->info))) {
        struct timespec wait = { 0, 10000000 };
        nanosleep(&wait, NULL);
    }
    rc = heap_run(p, &plan, p->cfg.heap_count > 0 ? &sink : NULL, NULL);
    if (rc == HEAP_RUN_BUSY)
        profiler_note(p, "heap snapshots: another clrprobe heap was under way; the configured ones were not taken");
    return NULL;
}

static void heap_free(struct heap_service *h)
{
    pthread_mutex_destroy(&h->snap_lock);
    pthread_mutex_destroy(&h->gc_lock);
    free(h->class_ids);
    free(h->class_index);
    free(h->by_index);
    free(h->type_info);
    free(h->frames);
    free(h->frame_named);
    heap_statics_free(h->statics);
    heap_remap_destroy(&h->remap);
    free(h->prev);
    free(h->cur);
    free(h);
}

/* The instance's heap state, made on first use (by the service thread or
 * the listener's), never freed before the instance: the GC callbacks read
 * it without a lock.  NULL when out of memory. */
static struct heap_service *heap_get(profiler *p)
{
    struct heap_service *h = atomic_load(&p->heap->running), *none = NULL;

    if (h)
        return h;
    if ((h = calloc(1, sizeof(*h))) == NULL)
        return NULL;
    h->class_ids = calloc(CLASS_SLOTS, sizeof(ClassID));
    h->class_index = calloc(CLASS_SLOTS, sizeof(uint32_t));
    h->by_index = calloc(CLASS_SLOTS, sizeof(ClassID));
    h->type_info = calloc(CLASS_SLOTS, 1);
    h->frames = calloc(FRAME_SLOTS, sizeof(FunctionID));
    h->frame_named = calloc(FRAME_SLOTS, 1);
    h->statics = heap_statics_create();      /* (NULL: snapshots without named statics) */
    heap_remap_init(&h->remap, 0);
    pthread_mutex_init(&h->snap_lock, NULL);
    pthread_mutex_init(&h->gc_lock, NULL);
    if (!h->class_ids || !h->class_index || !h->by_index || !h->type_info || !h->frames || !h->frame_named) {
        heap_free(h);
        return NULL;
    }
    atomic_init(&h->stop, 0);
    atomic_init(&h->state, IDLE);
    atomic_init(&h->counted_plan, 0);
    atomic_init(&h->identity, 0);
    atomic_init(&h->gcs, 0);
    h->p = p;
    if (!atomic_compare_exchange_strong(&p->heap->running, &none, h)) {
        heap_free(h);                        /* another thread made it first */
        return none;
    }
    return h;
}

int heap_start(profiler *p)
{
    struct heap_service *h;
    int rc;

    if (p->cfg.heap_every_ms <= 0 && p->cfg.heap_count <= 0)
        return 0;                            /* not configured */
    if (!INFO_HAS(p, GetObjectSize2)) {
        profiler_note(p, "heap snapshots need ICorProfilerInfo4 (GetObjectSize2); no snapshots");
        return 0;
    }
    if ((h = heap_get(p)) == NULL)
        return -1;
    if (h->thread_started)
        return 0;                            /* (started once already) */
    atomic_store(&h->stop, 0);
    rc = agent_thread_start(&h->thread, NULL, heap_main, h);
    if (rc != 0)
        return -1;
    h->thread_started = 1;
    return 0;
}

void heap_stop(profiler *p)
{
    struct heap_service *h = atomic_load(&p->heap->running);

    if (!h || !h->thread_started)
        return;
    atomic_store(&h->stop, 1);
    pthread_join(h->thread, NULL);          /* (a snapshot under way ends first: ForceGC returns) */
    h->thread_started = 0;
    /* The state stays allocated (IDLE: the callbacks do nothing) for as long
     * as the instance: a GC callback on another thread may be reading it
     * right now.  Freed with the instance (heap_release). */
}

void heap_release(profiler *p)
{
    struct heap_service *h = atomic_load(&p->heap->running);

    if (h) {
        heap_free(h);
        atomic_store(&p->heap->running, NULL);
    }
}

/* ---- the service ---- */

static void heap_event_mask(const cp_config *cfg, int attach, DWORD *low, DWORD *high)
{
    /* snapshots by a GC of ours (after an attach only asked for here) */
    if ((cfg->heap_every_ms > 0 || cfg->heap_count > 0) && cfg->heap_method != CP_HEAP_METHOD_ENUMERATE)
        *low |= COR_PRF_MONITOR_GC;
}

static void heap_callbacks(ICorProfilerCallbackVtbl *v)
{
    v->ObjectReferences = cb_ObjectReferences;
    v->RootReferences2 = cb_RootReferences2;
    v->ConditionalWeakTableElementReferences = cb_ConditionalWeakTableElementReferences;
    v->MovedReferences2 = cb_MovedReferences2;
    v->SurvivingReferences2 = cb_SurvivingReferences2;
}

const agent_service heap_service = {
    .name = "heap",
    .state_size = sizeof(heap_state),
    .event_mask = heap_event_mask,
    .callbacks = heap_callbacks,
    .when = AFTER_CATCHUP, .start = heap_start, .stop = heap_stop,
    .failed_note = "heap snapshots could not start (out of memory or threads)",
    .stop_before_detach = 1,
    .release = heap_release,
    .gc_started = heap_gc_started,
    .gc_finished = heap_gc_finished,
};
