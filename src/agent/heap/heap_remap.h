/* heap_remap.h - carries the object addresses of one heap snapshot through
 * the GCs that follow it, so that the next snapshot knows which of its
 * objects were already in this one (HEAP_OBJ_SEEN, trace/heap_codec.h).
 * Pure: no runtime call, no agent state; the GC callbacks feed it.
 *
 * One GC, as the runtime reports it (docs/gc-tracking.md, "One blocking
 * GC, in order"):
 *
 *   GarbageCollectionStarted   which generations are condemned, and their
 *                              address ranges (GetGenerationBounds):
 *                              heap_remap_begin(m, gens, n, collected)
 *   MovedReferences2           (old, new, len) ranges: every object whose old
 *                              address is in [old, old + len) now lives at
 *                              new + (address - old):
 *                              heap_remap_add(m, n, old, new, len)
 *   SurvivingReferences2       (start, len) ranges that did not move:
 *                              heap_remap_add(m, n, start, NULL, len)
 *   GarbageCollectionFinished  heap_remap_end(m, set, &n): the set of
 *                              addresses now holds the survivors' new ones
 *
 * Ranges arrive in batches (at most 512 a call), in any number of calls,
 * compacting and non-compacting ones mixed in one GC (regions), possibly
 * from several GC threads at once (server GC): heap_remap_add locks.  The
 * v1 callbacks (MovedReferences, SurvivingReferences), which the runtime
 * calls after the *2 ones with the same ranges, must not be fed: a range
 * counted twice is harmless, but a truncated v1 length is not.
 *
 * What becomes of a tracked object (address a) in one GC:
 *   - a is in a reported range: it survived, at the range's new address;
 *   - else a is in a condemned generation's range: it died;
 *   - else (a generation that was not collected, or outside every GC
 *     range, as frozen objects are): it is untouched, same address.
 *
 * Memory: the ranges of one GC are kept in a growing array (malloc: allowed
 * in GC callbacks, never in a signal handler), at most max_ranges of them;
 * one more and the GC is "lost".  heap_remap_end frees it all.  Cost of a GC:
 * O(r log r) to sort its r ranges, O(n + r) to map the n tracked addresses
 * (both sorted), O(n log r) to sort the survivors again (a natural merge of
 * the at most 2r + 1 ascending runs the mapping leaves).
 *
 * A lost GC (no generation bounds, too many ranges, out of memory, or a
 * begin while the previous GC never ended) cannot be followed: heap_remap_end returns -1 and the caller must forget the set (no
 * object of the next snapshot is then marked seen).  The caller must also
 * call heap_remap_begin at every GarbageCollectionStarted while it tracks a
 * set: ranges fed outside begin/end are ignored.
 *
 * Not thread-safe except heap_remap_add; begin and end come from the GC's
 * Started and Finished callbacks, which never overlap for one GC. */
#ifndef CLRPROBE_AGENT_HEAP_REMAP_H
#define CLRPROBE_AGENT_HEAP_REMAP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* What heap_remap_lookup answers for an object that died (no object lives
 * at address 0). */
#define HEAP_REMAP_DIED 0

/* The ranges one GC may report before it is lost, when heap_remap_init is
 * given 0: 4 Mi ranges of 24 bytes, 96 MiB at the most. */
#define HEAP_REMAP_DEFAULT_MAX_RANGES (1u << 22)

/* One range of a generation, as GetGenerationBounds gives it (generation
 * 0, 1, 2, 3 = LOH, 4 = POH; len is the used length, rangeLength). */
typedef struct heap_remap_gen {
    uint64_t start, len;
    uint32_t generation;
} heap_remap_gen;

/* One reported range: [old_start, old_start + len) now at new_start. */
typedef struct heap_remap_move {
    uint64_t old_start, new_start, len;
} heap_remap_move;

/* A span of condemned addresses: [start, end). */
typedef struct heap_remap_span {
    uint64_t start, end;
} heap_remap_span;

typedef struct heap_remap {
    pthread_mutex_t lock;         /* heap_remap_add's */
    size_t max_ranges;
    heap_remap_span *condemned;   /* sorted, merged */
    size_t ncondemned;
    heap_remap_move *moves;       /* in arrival order until sealed, then by old_start */
    size_t nmoves, cap;
    int active;                   /* between begin and end */
    int sealed;                   /* moves sorted: lookups allowed */
    int lost;                     /* this GC cannot be followed */
} heap_remap;

/* Set up; max_ranges 0 takes HEAP_REMAP_DEFAULT_MAX_RANGES. */
void heap_remap_init(heap_remap *m, size_t max_ranges);
/* Frees what a GC in progress holds (an end that will not come). */
void heap_remap_destroy(heap_remap *m);

/* A GC starts: gens[0..n) are all the generation ranges GetGenerationBounds
 * gave at GarbageCollectionStarted (those of generations that are not in
 * collected are skipped); collected has bit g set when generation g is
 * condemned (as GarbageCollectionStarted's collected[] array says; a gen2
 * GC also condemns 3 and 4).  gens NULL means the bounds could not be read:
 * the GC is lost; so is one that begins before the previous one ended.
 * Returns 0, or -1 if the GC is lost. */
int heap_remap_begin(heap_remap *m, const heap_remap_gen *gens, size_t n, uint32_t collected);

/* One batch of ranges: new_start NULL for SurvivingReferences2 (new = old).
 * Thread-safe.  A batch over the limit (or out of memory) loses the GC. */
void heap_remap_add(heap_remap *m, size_t n, const uint64_t *old_start, const uint64_t *new_start,
                    const uint64_t *len);

/* Ends the additions of this GC and sorts its ranges; returns -1 if it is
 * lost.  Optional: heap_remap_end seals; lookups need it. */
int heap_remap_seal(heap_remap *m);
/* Where the object that was at old lives now, or HEAP_REMAP_DIED; only
 * after a successful seal and before the end.  O(log r). */
uint64_t heap_remap_lookup(const heap_remap *m, uint64_t old);
/* The same for n addresses sorted in ascending order: out[i] for old[i]
 * (out may be old).  O(n + r). */
void heap_remap_map(const heap_remap *m, const uint64_t *old, size_t n, uint64_t *out);

/* The GC is finished: set[0..*n), sorted ascending, is replaced by the new
 * addresses of the objects that survived, sorted ascending, and *n by their
 * count; the GC's ranges are freed.  Returns 0, or -1 if the GC was lost
 * (set and *n are then left as they were, and must be forgotten). */
int heap_remap_end(heap_remap *m, uint64_t *set, size_t *n);

/* Sorts a[0..n) ascending: a natural merge sort, fast on addresses made of
 * few ascending runs (a heap walk's order: region by region). */
void heap_remap_sort(uint64_t *a, size_t n);

/* Whether addr is in set[0..n) (sorted ascending): was the object at addr
 * in the previous snapshot.  O(log n). */
int heap_remap_seen(const uint64_t *set, size_t n, uint64_t addr);

#endif
