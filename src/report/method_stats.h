/* method_stats.h - the traced methods of a trace (--trace): each thread's
 * last method_stats record per method, merged per method, with latency
 * percentiles from the merged histograms (common/latency_hist.h), and the
 * methods a pattern matched that could not be traced, with the reason. */
#ifndef CLRPROBE_REPORT_METHOD_STATS_H
#define CLRPROBE_REPORT_METHOD_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "report/model.h"

typedef struct rp_mstat {
    uint64_t function;
    const char *name;
    uint64_t thread;          /* ThreadID; 0 in a merged row */
    uint32_t os_tid;          /* 0 in a merged row */
    uint32_t threads;         /* merged row: the threads that called it */
    uint32_t how;             /* TRACE_HOW_* of its traced_method record */
    uint64_t calls, exceptions, total_ns, self_ns, max_ns;
    uint64_t p50_ns, p90_ns, p99_ns;
} rp_mstat;

typedef struct rp_mstats {
    rp_mstat *per_thread;     /* by method name, then thread */
    size_t nper_thread;
    rp_mstat *merged;         /* by total_ns, largest first */
    size_t nmerged;
    const rp_event **untraced; /* traced_method records with how TRACE_HOW_NONE */
    size_t nuntraced;
    size_t ntraced;           /* traced_method records with a way of counting */
    uint64_t calls_logged;    /* call records */
    uint64_t wall_ns;         /* the trace's span: what shares are of */
    char **owned;             /* names made here (overloads told apart), freed with the rest */
    size_t nowned;
} rp_mstats;

/* 0, or -1 when out of memory.  A trace without --trace gives empty lists.
 * Methods whose names are the same (overloads: names carry no parameters)
 * are told apart as "NAME [overload K of N]", K in the order the agent met
 * them. */
int rp_mstats_build(const rp_trace *tr, rp_mstats *m);
void rp_mstats_free(rp_mstats *m);

#endif
