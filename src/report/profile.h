/* profile.h - the samples of a trace as a profile: every sample's stack as
 * frame numbers (root first) into one table of function names, with its
 * thread, time, and whether the thread was on a CPU since its previous
 * sample.  Names are those in force at the sample's time (IDs are reused
 * after unloads).  The formats that show samples (text, collapsed,
 * speedscope, pprof, html: formats.h) read this; profile.c builds it. */
#ifndef CLRPROBE_REPORT_PROFILE_H
#define CLRPROBE_REPORT_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/model.h"

enum rp_view { RP_VIEW_CPU = 0, RP_VIEW_WALL = 1 };

typedef struct rp_pthread {
    const char *name;        /* the thread's label, unique in the profile: "NAME (TID)" with NAME its
                                managed name, else its kernel name; "thread TID" without either.
                                Whole, as the trace has it (escape it to print it as text).  Every
                                format shows this label; --thread and the html page match it. */
    const char *managed_name;/* its managed name, its kernel name ("" if none): what else --thread */
    const char *os_name;     /* matches (rp_thread_matches) */
    uint64_t managed_id;     /* managed ThreadID (0 if unknown) */
    uint32_t os_tid;
    uint64_t samples;        /* in the chosen view */
    uint64_t cpu_ns;         /* the CPU its kept samples measured (sum of their cpu_ns) */
} rp_pthread;

typedef struct rp_sample {
    uint64_t t;              /* ns since the trace start */
    uint32_t thread;         /* index into threads */
    uint32_t nframes;
    uint32_t *frames;        /* frame indices, root first */
    uint64_t cpu_ns;         /* CPU the thread used since its previous sample (CPU view: it was on a CPU
                                for at least a quarter of that time) */
} rp_sample;

typedef struct rp_profile {
    enum rp_view view;
    uint64_t period_ns;      /* the sampling period (from the ticks) */
    char **frames;           /* frame names */
    size_t nframes;
    rp_pthread *threads;
    size_t nthreads;
    rp_sample *samples;      /* the samples of the view and filter, in time order */
    size_t nsamples;
    uint64_t total_samples;  /* before view and filter */
    uint64_t ticks, suspend_ns, max_suspend_ns, sampler_cpu_ns, failed;
    /* The numbers every format states (docs/sampling.md, "What the totals mean"): */
    uint64_t duration_ns;    /* the recording window: first tick to last tick plus one period (without
                                ticks: first to last sample) */
    uint64_t cpu_ns;         /* CPU time: the sum of the kept samples' cpu_ns, measured by the kernel's
                                per-thread CPU clocks (never samples x period) */
    uint64_t cpu_unshown_ns; /* CPU view: cpu_ns of the matching threads' samples left out as waiting */
    double rate_hz;          /* ticks achieved per second of the window (0: no ticks) */
    uint64_t process_cpu_ns; /* the reference: the whole process's CPU over the sampling as the kernel counts
                                it (every thread: the runtime's native ones, the sampler), the last
                                process_cpu record's cpu_ns minus the first's; 0 when the trace has fewer
                                than two (an earlier agent) */
    uint32_t processes;      /* how many processes' CPU process_cpu_ns adds up (several when merged) */
    int filtered;            /* a --thread filter was given: other sampled threads are left out too */
    /* The --thread filter: whether any sample's thread matched it (in any view), and the labels of
     * the sampled threads (for the error that lists them). */
    int filter_matched;
    const char **labels;
    size_t nlabels;
    struct rp_arena *arena;  /* names and frame arrays (arena.h) */
} rp_profile;

/* Builds the profile of tr for a view, keeping only threads that match
 * thread_filter (NULL: all; rp_thread_matches).  Async state machines are
 * shown as their methods and the builders' Start frames folded
 * (async_frames.h).  Returns 0, or -1 (out of memory). */
int rp_profile_build(const rp_trace *tr, enum rp_view view, const char *thread_filter, rp_profile *out);

/* rp_profile_build with options (a bit set). */
enum rp_profile_option {
    RP_PROFILE_RAW_FRAMES = 1 << 0,   /* frames as recorded: no async renaming or folding */
};
int rp_profile_build_opts(const rp_trace *tr, enum rp_view view, const char *thread_filter, unsigned options,
                          rp_profile *out);
void rp_profile_free(rp_profile *p);

/* Several processes' profiles as one (profile_merge.c): every sample of
 * parts[i] gets roots[i] (e.g. "Sample (pid 42)") as its root frame and its
 * time shifted by offsets_ns[i] (NULL: none), threads follow one another,
 * counts add up; fields not named here are parts[0]'s.  Returns 0, or -1
 * (out of memory).  Free out with rp_profile_free. */
int rp_profile_merge(const rp_profile *parts, const char *const *roots, const uint64_t *offsets_ns, size_t n,
                     rp_profile *out);

/* The weight of a sample in nanoseconds: its measured cpu_ns in the CPU
 * view, one period in the wall view.  What the formats add up. */
uint64_t rp_sample_weight(const rp_profile *p, const rp_sample *s);
/* The sum of the weights of the kept samples: cpu_ns in the CPU view, the
 * thread time (samples x period) in the wall view. */
uint64_t rp_profile_total(const rp_profile *p);
/* How the process's CPU (process_cpu_ns, the kernel's count) divides, in
 * percent of it: the view's total (cpu_ns), the samples left out as
 * waiting (cpu_unshown_ns), the sampler's own CPU, and the rest (threads
 * the sampler never sees: the runtime's native threads, GC, JIT; with a
 * filter, the sampled threads it left out), never below 0.  Returns 0 when
 * the trace has no process CPU (all zero), else 1. */
typedef struct rp_process_share {
    double view_pct, waiting_pct, sampler_pct, rest_pct;
} rp_process_share;
int rp_profile_process_share(const rp_profile *p, rp_process_share *out);
/* The asked rate in Hz (1e9 / period_ns). */
double rp_profile_asked_hz(const rp_profile *p);
/* Whether the achieved rate is below 90% of the asked one. */
int rp_profile_rate_low(const rp_profile *p);

/* The --thread rule (docs/sampling.md): filter equals the thread's label,
 * its managed name, its kernel name (bare or in parentheses), its OS thread
 * id in decimal or its managed id as 0x... (lowercase hex). */
int rp_thread_matches(const char *filter, const char *label, const char *name, const char *os_name,
                      uint32_t os_tid, uint64_t managed);

/* Frame names by number, each name once (profile.c): the builder's and the
 * merge's table.  All zero is empty; names are copied into p's arena;
 * the caller takes names (p->frames) and frees slots with idindex_free. */
typedef struct rp_interner {
    char **names;
    size_t n, cap;
    struct idindex *slots;   /* the names by their hash (common/idmap.h) */
} rp_interner;
/* The number of name in the table, added if new; -1 when out of memory. */
long rp_intern(rp_interner *in, rp_profile *p, const char *name);

/* Number of sample records in a trace (any view). */
uint64_t rp_count_samples(const rp_trace *tr);

#endif
