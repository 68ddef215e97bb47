/* exception_stats.h - the exceptions of a trace by type and throw site:
 * how many, the time from their throw to the end of their handling (their
 * share of all exceptions' handling time), a message, where they were
 * caught, and those no managed catch clause took (exceptions.h in the
 * agent; docs/jsonl.md, exception_thrown to exception_unhandled).  The
 * throw site is the function that threw (the first frame the first pass
 * searched; for one that never ended, its stack's leaf).  Traces of agents
 * before exceptions were followed through have types only (site ""). */
#ifndef CLRPROBE_REPORT_EXCEPTION_STATS_H
#define CLRPROBE_REPORT_EXCEPTION_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "report/model.h"

typedef struct rp_exc_row {
    const char *type;
    const char *site;              /* the thrower's name ("" unknown) */
    uint64_t count;                /* thrown */
    uint64_t handled;              /* their catch clause ended */
    uint64_t not_caught;           /* no managed catch clause took them */
    uint64_t handling_ns;          /* throw to end, of those that ended */
    const char *message;           /* the first non-empty message ("" none) */
    const char *catcher;           /* where the last of them was caught ("" none) */
} rp_exc_row;

typedef struct rp_exc_stats {
    rp_exc_row *rows;              /* by count, then handling time, largest first */
    size_t nrows;
    uint64_t thrown, handled, open, nested, rethrows;
    uint64_t outcomes[5];          /* exception_unhandled by EXC_OUTCOME_* (index 0: unknown) */
    uint64_t handling_ns;          /* of all that ended */
    const rp_event **unhandled;    /* the exception_thrown records of those with outcome "unhandled" */
    size_t nunhandled;
    int followed;                  /* the trace has exception ids (an agent that follows them through) */
} rp_exc_stats;

/* 0, or -1 (out of memory). */
int rp_exc_stats_build(const rp_trace *tr, rp_exc_stats *s);
void rp_exc_stats_free(rp_exc_stats *s);

#endif
