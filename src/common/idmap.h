/* idmap.h - clrprobe's hash tables, open addressing with linear probing,
 * not thread-safe (a user that shares one holds its own lock):
 *
 *   idmap    maps 64-bit keys (runtime IDs, or anything that packs into 64
 *            bits) to 64-bit values; the table holds both.
 *   idindex  finds entries that the caller keeps (in an array, say) by a key
 *            of any size - a string, a stack, a record: the table holds each
 *            entry's number and a part of its hash, the caller gives a key's
 *            hash and says whether entry i has that key.
 *
 * Used by the report (IDs, names, stacks, the --why paths' groups) and by
 * the agent (the catch-up's ID states, the sampler's named functions, the
 * classes whose statics were looked at).  Four agent tables are of their
 * own kind, each for its reason:
 *   - the name cache (agent/core/names.c): entries that own their names, read by
 *     every runtime thread under a reader-writer lock;
 *   - the sampler's CPU-time table (agent/sampling/sampler.c): fixed size, used while
 *     the runtime is suspended, when nothing may be allocated;
 *   - the heap snapshot's ClassID -> type index table and its stack roots'
 *     FunctionIDs (agent/heap/heap.c, type_index and note_frame): looked up once
 *     per object or root inside the snapshot's GC, where heap.c allocates
 *     nothing per object (heap.c's header): fixed size, allocated with the
 *     service's state, never grown or moved during a walk; a full table
 *     gives the type "?" / leaves a frame unnamed. */
#ifndef CLRPROBE_COMMON_IDMAP_H
#define CLRPROBE_COMMON_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct idmap {
    uint64_t *keys, *vals;
    uint8_t *state;          /* 0 empty, 1 full, 2 deleted */
    size_t cap, count, used;
} idmap;

void idmap_init(idmap *m);
void idmap_free(idmap *m);
int idmap_get(const idmap *m, uint64_t key, uint64_t *val);   /* 1 found */
int idmap_put(idmap *m, uint64_t key, uint64_t val);          /* 0 ok, -1 oom */
void idmap_del(idmap *m, uint64_t key);
/* Walking every entry: slot i (0 <= i < m->cap) holds one if idmap_at
 * returns 1, with its key and value (either pointer may be NULL). */
int idmap_at(const idmap *m, size_t i, uint64_t *key, uint64_t *val);
/* Empties m and keeps its memory. */
void idmap_clear(idmap *m);

/* An idindex is one allocated block behind a pointer: NULL is an empty
 * index, and idindex_free() frees it.  Entries are
 * numbers below UINT32_MAX; none is ever removed. */
typedef struct idindex idindex;

/* Whether entry holds the key looked for (ctx: the caller's key and entries). */
typedef int (*idindex_same_fn)(const void *ctx, uint32_t entry);

/* The entry with this key (hash: the key's hash, any 64-bit hash: the index
 * mixes it; same: compares an entry that may match), or -1 if none. */
long idindex_find(const idindex *x, uint64_t hash, idindex_same_fn same, const void *ctx);

/* Adds entry for a key not in the index yet.  Returns 0, or -1 (out of
 * memory, or entry too big); *x may move. */
int idindex_add(idindex **x, uint64_t hash, uint32_t entry);

/* Makes room for n entries in all, so that adding them does not grow the
 * index again.  Returns 0 or -1 (out of memory). */
int idindex_reserve(idindex **x, size_t n);

void idindex_free(idindex *x);

#endif
