/* heap_model.h - the heap snapshots of a trace as graphs, and what the
 * report computes from them out of process: the dominator tree, each
 * object's retained size, and per type count, shallow and retained bytes.
 *
 * A snapshot is built from its records (docs/trace-format.md, "Heap
 * snapshots"; the entries decoded with trace/heap_codec.h): objects sorted
 * by address, their references as object indexes in CSR form (references
 * to addresses the snapshot does not have are dropped and counted), and
 * its roots.  Retention follows the GC's rules: weak-handle roots retain
 * nothing; a dependent handle (ConditionalWeakTable) is an edge from its
 * key to its value; frozen objects (the runtime holds them) and objects no
 * root reaches ("unrooted": the approximate method has no stack or handle
 * roots) hang from the virtual root directly, so that every object has a
 * retained size. */
#ifndef CLRPROBE_REPORT_HEAP_MODEL_H
#define CLRPROBE_REPORT_HEAP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "report/model.h"

#define RP_HEAP_NONE UINT32_MAX      /* no object / the virtual root */

typedef struct rp_heap_root {
    uint32_t kind, flags;            /* HEAP_ROOT_*, COR_PRF_GC_ROOT_FLAGS */
    uint32_t object;                 /* object index */
    uint64_t id;                     /* per kind (trace/heap_codec.h) */
} rp_heap_root;

typedef struct rp_heap_type_stat {
    uint32_t type;                   /* type index (rp_heap.type_names) */
    uint64_t count, shallow, retained;   /* retained: of the objects of this type that no other
                                            object of the same type dominates (no double count) */
} rp_heap_type_stat;

typedef struct rp_heap_snapshot {
    uint32_t index, method;          /* heap_begin */
    uint64_t t_begin, t_end;         /* ns since the trace started (t_end 0: cut short) */
    int complete;                    /* its heap_end was seen */
    uint32_t status, end_flags;      /* heap_end */
    uint64_t pause_ns;
    size_t nobjects;
    uint64_t *addr;                  /* sorted */
    uint64_t *size;
    uint32_t *type;
    uint8_t *flags;                  /* HEAP_OBJ_* */
    size_t *edge_start;              /* nobjects + 1 */
    uint32_t *edges;
    uint32_t *edge_slot;             /* per edge: the word of the source object that holds it (0: not
                                        known; rp_heap_field_name); NULL when the trace has none */
    size_t nedges, dropped_refs, duplicate_objects;
    size_t frozen;                   /* objects flagged HEAP_OBJ_FROZEN */
    size_t seen;                     /* objects flagged HEAP_OBJ_SEEN: in the previous snapshot too */
    size_t unnamed_types;            /* objects whose type index no heap_type record names (a damaged
                                        or cut-short trace): their type is the table's last, "?" */
    rp_heap_root *roots;
    size_t nroots;
    uint64_t total_bytes;
    /* analysis (rp_heap_analyse) */
    uint32_t *idom;                  /* immediate dominator: an object, or RP_HEAP_NONE (the root) */
    uint64_t *retained;
    size_t unrooted;                 /* objects no root reaches */
    rp_heap_type_stat *types;        /* by retained bytes, largest first */
    size_t ntypes;
} rp_heap_snapshot;

typedef struct rp_heap {
    rp_heap_snapshot *snap;
    size_t nsnap;
    /* The type table: the types the heap_type records name, in order of
     * their index in the trace, then, when some object's index none names,
     * one slot ("?") for those objects.  Objects and fields hold indexes of
     * this table, always below ntype_names: an index read from the trace
     * sizes nothing. */
    const char **type_names;         /* ("?" when NULL) */
    uint32_t *type_ids;              /* the trace's index of each named type, sorted */
    size_t ntype_names;
    struct rp_heap_root_name { uint32_t index; const char *name; } *root_names;   /* HEAP_ROOT_STATIC ids, sorted */
    size_t nroot_names;
    struct rp_heap_frame { uint64_t id; const char *name; } *frames;   /* stack roots' methods, by id */
    size_t nframes;
    struct rp_heap_field { uint32_t type, offset; const char *name; } *fields;   /* by type, offset */
    size_t nfields;
    uint64_t malformed;              /* heap entries that did not decode */
} rp_heap;

/* Builds the snapshots of tr (none: h->nsnap == 0).  0, or -1 when out of
 * memory.  The names point into tr's memory: free h before tr. */
int rp_heap_build(const rp_trace *tr, rp_heap *h);

/* Dominators, retained sizes and the per-type table of one snapshot.
 * 0, or -1 when out of memory. */
int rp_heap_analyse(rp_heap *h, rp_heap_snapshot *s);

/* The dominator tree of a graph in CSR form: n nodes, node 0 the root;
 * idom[v] gets the immediate dominator of v (idom[0] = 0; UINT32_MAX for a
 * node the root does not reach).  Lengauer and Tarjan's algorithm with
 * path compression (O(m log n)), written without recursion, so a chain of
 * millions of nodes needs no deep stack.  0, or -1 out of memory. */
int rp_dominators(size_t n, const size_t *start, const uint32_t *edges, uint32_t *idom);

const char *rp_heap_type_name(const rp_heap *h, uint32_t type);

/* The field of an object of type that holds the reference at word slot of
 * it (heap_field records: the field at that offset, or the struct field
 * that holds it), or NULL when not known. */
const char *rp_heap_field_name(const rp_heap *h, uint32_t type, uint32_t slot);

/* The snapshot a question or an export is about: the last complete one,
 * else the last one; NULL when there is none. */
rp_heap_snapshot *rp_heap_pick(rp_heap *h);

/* Whether s holds only part of the heap: cut short (no heap_end), ended by
 * an error or abandoned, or its walk stopped early.  Its objects, references
 * or roots are then missing, so an object no recorded root reaches need not
 * be unrooted, and retained sizes are of the recorded part only. */
int rp_heap_partial(const rp_heap_snapshot *s);

/* Whether s's objects were matched with the previous snapshot's (flagged
 * seen or not: the agent followed them through the GCs between): its
 * heap_end says so; a snapshot without one (cut short) claims nothing. */
int rp_heap_identity(const rp_heap_snapshot *s);

/* What a root is, for people: "static Namespace.Type.field", "local in
 * Namespace.Type.Method" (a stack root; "local in a runtime frame" when the
 * frame's method is unknown), "strong handle", "pinned handle", "weak
 * handle", "ref-counted handle", "finalizer queue", "dependent handle" (a
 * ConditionalWeakTable entry), "other root".  Returns buf. */
const char *rp_heap_root_describe(const rp_heap *h, const rp_heap_root *root, char *buf, size_t cap);

/* The retaining roots of an analysed snapshot grouped by description
 * (rp_heap_root_describe), the group that holds the most first
 * (heap_roots.c): each group's roots, the distinct objects they hold,
 * what it holds (held: the bytes of the objects --why's shortest paths
 * reach from it first, in its order: statics, stack, handles, the others;
 * every object a root reaches is in exactly one group) and what it alone
 * retains (retained: the bytes of the objects the group dominates in the
 * dominator tree where every group is one node between the virtual root
 * and its roots' objects: what a GC would free were those roots gone, so
 * one local among many of its method counts whole; an object that roots of
 * several groups reach is in none).  *out is malloc'd.  0, or -1 out of
 * memory. */
#define RP_HEAP_ROOT_DESC 256

typedef struct rp_heap_root_group {
    char desc[RP_HEAP_ROOT_DESC];
    uint64_t roots, objects, retained;
    uint64_t held;                   /* the bytes of the objects whose shortest path from a root, as --why
                                        finds it, starts at this group (each object in one group) */
} rp_heap_root_group;
int rp_heap_root_groups(const rp_heap *h, const rp_heap_snapshot *s, rp_heap_root_group **out, size_t *nout);

/* Whether a root keeps its object alive (weak handles and dependent-handle
 * entries do not). */
int rp_heap_root_retains(const rp_heap_root *root);
/* The order in which --why's search (heap_paths.h) and the roots table
 * start from roots: 0 statics, 1 stack, 2 handles, 3 the others. */
int rp_heap_root_rank(const rp_heap_root *root);
void rp_heap_free(rp_heap *h);

#endif
