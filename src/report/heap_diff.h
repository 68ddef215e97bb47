/* heap_diff.h - the leak view: how the heap changed between two analysed
 * snapshots, per type (matched by name, so the snapshots may come from two
 * traces): the change in count, shallow and retained bytes, biggest growth
 * first.  When the later snapshot follows the earlier one in the same trace
 * and the agent matched their objects (HEAP_OBJ_SEEN, no
 * HEAP_END_NO_IDENTITY), it also counts per type the objects that are new:
 * allocated after the earlier snapshot and alive at the later one. */
#ifndef CLRPROBE_REPORT_HEAP_DIFF_H
#define CLRPROBE_REPORT_HEAP_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "report/heap_model.h"

typedef struct rp_heap_diff_row {
    const char *type;                /* points into one of the traces */
    uint64_t count[2], shallow[2], retained[2];   /* before, after */
    uint64_t fresh;                  /* new objects in the later snapshot (with identity) */
} rp_heap_diff_row;

typedef struct rp_heap_diff {
    rp_heap_diff_row *rows;          /* by growth of retained bytes, then of shallow bytes, largest first */
    size_t nrows;
    int identity;                    /* fresh is known */
    uint64_t t_between_ns;           /* the later snapshot's time minus the earlier's (same trace; else 0) */
} rp_heap_diff;

/* a (analysed, of trace ha) before b (analysed, of hb).  same_trace: both
 * are in one trace, b the snapshot right after a.  0, or -1 out of memory. */
int rp_heap_diff_build(const rp_heap *ha, const rp_heap_snapshot *a, const rp_heap *hb, const rp_heap_snapshot *b,
                       int same_trace, rp_heap_diff *d);
void rp_heap_diff_free(rp_heap_diff *d);

#endif
