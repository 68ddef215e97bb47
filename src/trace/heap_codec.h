/* heap_codec.h - the dense encoding inside a heap snapshot's heap_objects
 * and heap_roots records (records.def), once for both ends: the agent's
 * encoder and the report's decoder.
 *
 * Both are a sequence of entries made of LEB128 varints (7 bits a byte,
 * low first; at most 10 bytes).  Addresses are coded as the zigzag of a
 * difference, so that neighbours (objects allocated together) cost one or
 * two bytes.  Every record decodes on its own: the "previous address" that
 * differences start from is 0 at the start of each record's data.
 *
 * heap_objects data, one entry per object (or a continuation of one):
 *
 *   head       varint: HEAP_OBJ_* flags
 *   if not HEAP_OBJ_CONT:
 *     addr     zigzag(addr - previous entry's addr)   the ObjectID
 *     type     varint: a type index (named by a heap_type record)
 *     size     varint: bytes (GetObjectSize2)
 *   nrefs      varint: references that follow in this entry
 *   ref...     zigzag(ref - addr), nrefs times: the object's non-null
 *              references, in the runtime's order (duplicates kept); with
 *              HEAP_OBJ_SLOTS each is followed by
 *     slot     varint: the word of the object that holds it (its byte
 *              offset from the ObjectID / 8; 0 = not found), which a
 *              heap_field record of the object's type names
 *
 * An object with more references than one record holds is continued in the
 * next record(s) by HEAP_OBJ_CONT entries, which repeat its address (coded
 * as above) and carry more references; the other flags of a continuation
 * are 0 but HEAP_OBJ_SLOTS.
 *
 * heap_roots data, one entry per root:
 *
 *   kind       varint: HEAP_ROOT_*
 *   flags      varint: COR_PRF_GC_ROOT_FLAGS, HEAP_ROOT_FLAG_* (below)
 *   object     zigzag(object - previous entry's object)
 *   id         varint: per kind (below)
 *
 * The encoder writes into a caller's buffer and never allocates, so the
 * agent can call it inside a GC callback. */
#ifndef CLRPROBE_TRACE_HEAP_CODEC_H
#define CLRPROBE_TRACE_HEAP_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* heap_begin.method: how the snapshot is taken. */
#define HEAP_METHOD_GC_ROOTS     1   /* an induced full GC with COR_PRF_MONITOR_GC: RootReferences2 +
                                        ObjectReferences (exact) */
#define HEAP_METHOD_ENUMERATE    2   /* ICorProfilerInfo15::EnumerateGCHeapObjects: no GC run, no stack
                                        or handle roots (dead objects may be included, roots approximate) */

/* heap_end.flags */
#define HEAP_END_ROOTS_APPROXIMATE 0x1u  /* no roots from the runtime (HEAP_METHOD_ENUMERATE) */
#define HEAP_END_WALK_STOPPED      0x2u  /* the heap walk was stopped early (limit, or out of room) */
#define HEAP_END_ABANDONED         0x4u  /* a detach or the process's end interrupted it */
#define HEAP_END_NO_IDENTITY       0x8u  /* objects were not matched with the previous snapshot's */

/* Object entry flags (the head varint). */
#define HEAP_OBJ_CONT     0x1u   /* more references of the object at addr */
#define HEAP_OBJ_FROZEN   0x2u   /* in the frozen (non-GC) heap: string literals, RuntimeType... */
#define HEAP_OBJ_SEEN     0x4u   /* the same object was in this trace's previous snapshot (its
                                    address carried across GCs by Moved/SurvivingReferences) */
#define HEAP_OBJ_SLOTS    0x8u   /* each reference is followed by its slot (above) */
#define HEAP_OBJ_KNOWN    0xfu   /* the flags this decoder knows: an entry with another is malformed */

/* Root kinds: 1-3 are COR_PRF_GC_ROOT_KIND's values. */
#define HEAP_ROOT_STACK       1  /* id: the FunctionID of the frame (may be stale or 0: runtime frames) */
#define HEAP_ROOT_FINALIZER   2  /* id: 0 (the f-reachable queue) */
#define HEAP_ROOT_HANDLE      3  /* id: the handle; its kind in flags (none: strong, HEAP_ROOT_FLAG_*) */
#define HEAP_ROOT_STATIC      4  /* id: a heap_root_name index ("Namespace.Type.field") */
#define HEAP_ROOT_DEPENDENT   5  /* a dependent handle (ConditionalWeakTable): object is the value,
                                    id the key's address: an edge key -> value, not a root */
#define HEAP_ROOT_KIND_MAX    5

/* A root entry's flags: the runtime's COR_PRF_GC_ROOT_FLAGS as it gives them (api/corprof.h). */
#define HEAP_ROOT_FLAG_PINNING    0x1u   /* a pinned handle, or a pinned local */
#define HEAP_ROOT_FLAG_WEAKREF    0x2u   /* weak: a weak handle, or a ref-counted one not held */
#define HEAP_ROOT_FLAG_INTERIOR   0x4u   /* a pointer into the object */
#define HEAP_ROOT_FLAG_REFCOUNTED 0x8u   /* a ref-counted handle */

/* The longest entry head: flags, addr, type, size, nrefs (10 bytes each). */
#define HEAP_ENTRY_HEAD_MAX 50
#define HEAP_VARINT_MAX 10

/* ---- encoding (the agent) ---- */

/* One record's data being filled: buf/cap the room, prev the last address. */
typedef struct heap_enc {
    uint8_t *buf;
    size_t cap, len;
    uint64_t prev;
    uint32_t count;      /* entries written */
} heap_enc;

void heap_enc_init(heap_enc *e, uint8_t *buf, size_t cap);

/* Writes the object at addr with as many of refs[*from..nrefs) as fit (all
 * of them when there is room), as a continuation entry when *from > 0, and
 * advances *from past what it wrote.  1 = an entry was written (the object
 * is whole when *from == nrefs), 0 = the record is full, nothing written
 * (start a new one and call again).  Into an empty record of at least
 * HEAP_RECORD_MIN bytes an entry always goes, so the loop
 *
 *     size_t from = 0; int wrote = 0;
 *     while (!wrote || from < nrefs)
 *         if (heap_enc_object(e, ..., &from)) wrote = 1; else NEW RECORD;
 *
 * ends. */
#define HEAP_RECORD_MIN (HEAP_ENTRY_HEAD_MAX + 3 * HEAP_VARINT_MAX)
int heap_enc_object(heap_enc *e, uint64_t addr, uint32_t type, uint64_t size, uint32_t flags,
                    const uint64_t *refs, size_t nrefs, size_t *from);
/* The same with each reference's slot (slots[k] for refs[k]): HEAP_OBJ_SLOTS. */
int heap_enc_object_slots(heap_enc *e, uint64_t addr, uint32_t type, uint64_t size, uint32_t flags,
                          const uint64_t *refs, const uint32_t *slots, size_t nrefs, size_t *from);

/* Writes one root: 1, or 0 when it does not fit. */
int heap_enc_root(heap_enc *e, uint32_t kind, uint32_t flags, uint64_t object, uint64_t id);

/* ---- decoding (the report) ---- */

typedef struct heap_dec {
    const uint8_t *p, *end;
    uint64_t prev;
} heap_dec;

typedef struct heap_obj {
    uint64_t addr;
    uint32_t flags;          /* HEAP_OBJ_* */
    uint32_t type;           /* 0 and size 0 for a continuation */
    uint64_t size;
    size_t nrefs;            /* references in this entry */
} heap_obj;

typedef struct heap_root {
    uint32_t kind, flags;
    uint64_t object, id;
} heap_root;

void heap_dec_init(heap_dec *d, const uint8_t *data, size_t len);

/* The next object entry: its head into o, and its references into refs
 * (room for max; an entry never has more than its record's bytes, so
 * max = the data's length is always enough).  1 = an entry, 0 = the end,
 * -1 = malformed (the rest of the data is unusable). */
int heap_dec_object(heap_dec *d, heap_obj *o, uint64_t *refs, size_t max);
/* The same with the references' slots into slots (room for max; 0 for
 * each when the entry has none). */
int heap_dec_object_slots(heap_dec *d, heap_obj *o, uint64_t *refs, uint32_t *slots, size_t max);

/* The next root: 1, 0 at the end, -1 malformed. */
int heap_dec_root(heap_dec *d, heap_root *r);

/* The varint and zigzag primitives (for tests and the size estimates). */
size_t heap_put_varint(uint8_t *p, uint64_t v);
static inline uint64_t heap_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t heap_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

#endif
