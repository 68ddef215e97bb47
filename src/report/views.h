/* views.h - the views of a profile (`clrprobe report --view VIEW`), in one
 * table: each view's name on the command line, what its samples are, what a
 * sample weighs and in which unit, the records it is made of and how they
 * are recorded.  The profile builder (profile.c), the command and every
 * format read the table; none of them compares a view's name
 * (docs/sampling.md, "Views"). */
#ifndef CLRPROBE_REPORT_VIEWS_H
#define CLRPROBE_REPORT_VIEWS_H

#include <stddef.h>
#include <stdint.h>

enum rp_view {
    RP_VIEW_CPU = 0,          /* CPU samples of threads that were on a CPU: nanoseconds of CPU */
    RP_VIEW_WALL = 1,         /* every CPU sample, running or waiting: nanoseconds of thread time */
    RP_VIEW_ALLOC = 2,        /* allocation samples: bytes allocated (upscaled) */
    RP_VIEW_ALLOC_COUNT = 3,  /* allocation samples: objects allocated (upscaled) */
    RP_VIEW_LIVE = 4,         /* followed allocation samples alive after the last GC: bytes */
    RP_VIEW_CONTENTION = 5,   /* lock waits: nanoseconds waited */
    RP_VIEW_EXCEPTIONS = 6,   /* exceptions thrown, by throw stack (sampled stacks, weighted) */
    RP_VIEW_COUNT = 7
};

/* Views that show the same records (and so the same pprof profile). */
enum rp_view_family {
    RP_FAMILY_TIME,           /* cpu, wall: the sampler's samples */
    RP_FAMILY_MEMORY,         /* alloc, alloc-count, live: alloc_sample records */
    RP_FAMILY_CONTENTION,     /* contention: contention records */
    RP_FAMILY_EXCEPTIONS,     /* exceptions: exception_thrown records with a stack */
};

typedef struct rp_view_info {
    enum rp_view view;
    const char *name;         /* on the command line: cpu, wall, alloc, alloc-count, live, contention */
    const char *unit;         /* what its weights count: nanoseconds, bytes, objects or exceptions */
    const char *title;        /* in headers and messages, "the TITLE view": CPU, wall-clock, allocation... */
    const char *counts;       /* what it counts, one short phrase for --help and headers */
    const char *records;      /* its records, for messages: "CPU samples", "allocation samples" */
    const char *collect;      /* how they are recorded, for messages: "--collect cpu (...)" */
    int kind;                 /* the record kind its samples come from (TK_*) */
    enum rp_view_family family;
    int counts_samples;       /* 1: the counting formats (text's tables, collapsed, the html widths)
                                 count samples, as they always did for cpu and wall; 0: they add up
                                 the samples' weights (bytes, objects, nanoseconds) */
    const char *pprof_type;   /* pprof's sample type shown first (default_sample_type) */
} rp_view_info;

/* Every view, in the order --help lists them; rp_views[v].view == v. */
extern const rp_view_info rp_views[RP_VIEW_COUNT];

/* The view called name, or NULL. */
const rp_view_info *rp_view_find(const char *name);
/* The entry of v. */
const rp_view_info *rp_view_of(enum rp_view v);
/* The views' names joined by sep ("cpu, wall, ...") into buf. */
void rp_view_names(char *buf, size_t len, const char *sep);
/* value in v's unit for people: "1.23 MiB", "4567 objects", "12.3 ms". */
void rp_view_format(enum rp_view v, uint64_t value, char *buf, size_t len);
/* Bytes as "812 B", "31.2 KiB", "4.50 MiB", "1.25 GiB". */
void rp_format_bytes(uint64_t bytes, char *buf, size_t len);

#endif
