/* gc_timeline.h - the garbage collections of a trace, one entry each: when
 * it started and ended, which generations, whether it was induced, its
 * pause, and the size of each generation before and after it; with the
 * figures the text report shows (per generation: count, total and longest
 * pause; the share of the wall time paused; the heap at the start, at its
 * peak and at the end).  Read by the text report and the html page. */
#ifndef CLRPROBE_REPORT_GC_TIMELINE_H
#define CLRPROBE_REPORT_GC_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "report/model.h"

/* The generations whose sizes gc_start and gc_end carry, in this order. */
#define RP_GC_GENS 5            /* gen0, gen1, gen2, LOH, POH */
extern const char *const rp_gc_gen_names[RP_GC_GENS];

typedef struct rp_gc {
    uint64_t t;                 /* its gc_start */
    uint64_t end_t;             /* its gc_end, 0 if none was recorded */
    uint32_t generations;       /* bit g: generation g collected */
    uint32_t reason;            /* 1 induced, 0 other */
    int gen;                    /* the oldest of 0..2 it collected (gen2 if LOH or POH) */
    uint64_t pause_ns;          /* the runtime's suspension for it (reason gc or gc_prep, from
                                   before its start to after it), or start..end without
                                   suspension records */
    uint64_t pause_start;       /* when that pause began */
    uint64_t before[RP_GC_GENS], after[RP_GC_GENS];   /* bytes, all 0 = unknown */
} rp_gc;

typedef struct rp_gc_timeline {
    rp_gc *gc;
    size_t n;
    int from_suspensions;       /* the pauses are suspensions (else start..end) */
    uint64_t count[3], total_ns[3], longest_ns[3], induced;
    uint64_t paused_ns;         /* all of the pauses */
    uint64_t wall_ns;           /* the recording's length (the trace's last record) */
    /* The heap, per generation and in all (index RP_GC_GENS): before the
     * first GC whose sizes are known, the most any GC saw (before or after
     * it; the total's peak is the largest sum, not the sum of the peaks),
     * and after the last one.  have_sizes 0: no GC had them. */
    int have_sizes;
    uint64_t first[RP_GC_GENS + 1], peak[RP_GC_GENS + 1], last[RP_GC_GENS + 1];
} rp_gc_timeline;

/* Builds the timeline of tr's events (in time order).  Returns 0, or -1
 * out of memory. */
int rp_gc_timeline_build(const rp_trace *tr, rp_gc_timeline *out);
void rp_gc_timeline_free(rp_gc_timeline *tl);

/* Whether any of the RP_GC_GENS sizes is known (not all 0). */
int rp_gc_sizes_known(const uint64_t *bytes);

#endif
