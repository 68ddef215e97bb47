/* heap_paths.h - why objects are alive: for the instances of a type in an
 * analysed heap snapshot, the shortest path from a GC root to each, grouped
 * by the path's root and the types along it (`clrprobe report --why TYPE`).
 *
 * The paths come from one breadth-first search of the object graph from
 * the retaining roots (statics first, then stack roots, handles and the
 * finalizer queue, so that of two paths of one length the static's wins),
 * then frozen objects and last the objects no root reaches, each its own
 * start.  A hop is a type and, when the trace names it (heap_field), the
 * field of that type that holds the next hop. */
#ifndef CLRPROBE_REPORT_HEAP_PATHS_H
#define CLRPROBE_REPORT_HEAP_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "report/heap_model.h"

/* The path's start when it is not a root. */
#define RP_PATH_FROZEN "frozen object (the runtime holds it)"
#define RP_PATH_UNROOTED "no retaining root (held by weak references only, or roots not seen)"

typedef struct rp_heap_path {
    char root[RP_HEAP_ROOT_DESC];    /* rp_heap_root_describe, or RP_PATH_FROZEN / RP_PATH_UNROOTED */
    uint32_t *types;                 /* the types along the path: the object the root holds first, the
                                        instance's type last */
    size_t ntypes;
    const char **fields;             /* fields[k]: the field of types[k] that holds types[k + 1] (NULL:
                                        not known, an array's element, or the last hop) */
    int truncated;                   /* longer than the types kept: the hops nearest the root are left out */
    uint64_t instances, shallow, retained;   /* the instances that share it: their count, shallow and
                                                retained bytes */
    uint64_t hash;                   /* (grouping) */
} rp_heap_path;

#define RP_HEAP_ALL_TYPES UINT32_MAX

/* The type the user means by query in h: its exact name, else the one type
 * whose name ends with "." query or "+" query (HeapLeaf for
 * ClrProbe.Sample.HeapLeaf).  0 with *type set; -1 with a message in err
 * (none or several match: the candidates named). */
int rp_heap_resolve_type(const rp_heap *h, const rp_heap_snapshot *s, const char *query, uint32_t *type, char *err,
                         size_t errlen);

/* The paths to the instances of type in s (analysed; RP_HEAP_ALL_TYPES:
 * every object), grouped, by retained bytes, largest first.  *out is malloc'd (free with rp_heap_paths_free).
 * 0, or -1 out of memory. */
int rp_heap_paths(const rp_heap *h, const rp_heap_snapshot *s, uint32_t type, rp_heap_path **out, size_t *n);
void rp_heap_paths_free(rp_heap_path *p, size_t n);

#endif
