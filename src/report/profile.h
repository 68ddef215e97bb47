/* profile.h - the samples of one view of a trace as a profile (views.h:
 * the CPU samples of the cpu and wall views, the allocation samples of the
 * alloc, alloc-count and live views, the lock waits of the contention
 * view): every sample's stack as frame numbers (root first) into one table
 * of function names, with its thread, time and weight.  Names are those in
 * force at the sample's time (IDs are reused after unloads).  In the
 * allocation views the leaf frame is the allocated type, in the
 * contention view the lock's type as "lock TYPE" where known (the sample's
 * typed flag).  The formats that show samples (text, collapsed,
 * speedscope, pprof, html: formats.h) read this; profile.c builds it. */
#ifndef CLRPROBE_REPORT_PROFILE_H
#define CLRPROBE_REPORT_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/model.h"
#include "report/views.h"

/* The frame put over an allocation's stack for its type when the record
 * names none, and the prefix of a lock's type in the contention view. */
#define RP_UNKNOWN_TYPE "[unknown type]"
#define RP_LOCK_PREFIX "lock "

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
    uint64_t count;          /* those samples as the view counts them (rp_sample_count): what its rows add
                                up to (in the signal engine's CPU view the periods of CPU they hold) */
    uint64_t cpu_ns;         /* the CPU its kept samples measured (sum of their cpu_ns) */
    uint64_t weight;         /* the allocation and contention views: the sum of its samples' weights */
} rp_pthread;

typedef struct rp_sample {
    uint64_t t;              /* ns since the trace start */
    uint32_t thread;         /* index into threads */
    uint32_t nframes;
    uint32_t *frames;        /* frame indices, root first */
    uint64_t cpu_ns;         /* CPU the thread used since its previous sample (CPU view: it was on a CPU
                                for at least a quarter of that time); 0 in the other families */
    uint64_t weight;         /* the allocation and contention views: what it weighs in the view's unit
                                (views.h): its upscaled bytes (alloc, live) or objects (alloc-count), as
                                whole numbers that carry their rounding (alloc_estimate.h), or the wait's
                                nanoseconds (contention); 0 in cpu and wall (rp_sample_weight) */
    double bytes, objects;   /* the allocation views: the bytes and objects it stands for
                                (rp_alloc_estimate), unrounded */
    uint32_t age;            /* the allocation views, a followed object: the GCs it survived (live_gc
                                GCs after its allocation, up to the one it died in or to the last) */
    uint8_t live;            /* the allocation views: followed, allocated before the last GC and never
                                found dead (what the live view keeps) */
    uint8_t typed;           /* its leaf frame is a type the builder added (the allocated type, the
                                lock's type), not a function */
    uint8_t waiting;         /* a wall sample of a thread blocked in a system call (signal engine) */
    uint8_t truncated;       /* its walk stopped before the thread's first frame (signal engine) */
    uint8_t signal;          /* a signal engine's sample: in the CPU view, weight is the periods of CPU it
                                holds, whole numbers carrying their rounding per thread (rp_sample_count) */
} rp_sample;

/* Where a frame's code is in the program's source (source_lines.h), when
 * the trace has IL offsets and the program's PDB was found. */
typedef struct rp_frame_source {
    const char *name;        /* the frame's name without its location (frames[] may add it) */
    const char *file;        /* the document as the PDB names it; NULL: no source known */
    const char *base;        /* its last path component */
    uint32_t line;           /* at_line: the line the frame stands for; else its method's first line */
    uint8_t at_line;         /* a frame of one line (RP_PROFILE_LINES) */
} rp_frame_source;

typedef struct rp_profile {
    enum rp_view view;
    uint64_t period_ns;      /* the sampling period (from the ticks) */
    char **frames;           /* frame names (with RP_PROFILE_LINES, a frame of one line is "NAME (FILE:LINE)") */
    size_t nframes;
    rp_frame_source *sources;/* one per frame, or NULL when no frame's source is known */
    rp_pthread *threads;
    size_t nthreads;
    rp_sample *samples;      /* the samples of the view and filter, in time order */
    size_t nsamples;
    uint64_t total_samples;  /* the view's records, before the view's rule and the filter */
    uint64_t total_count;    /* the same as the view counts them (rp_sample_count; the cpu and wall views):
                                in the signal engine's CPU view the periods of CPU every thread's samples
                                hold, else total_samples.  Every format's "N samples of M" states
                                rp_profile_count_total and this, which the rows add up to */
    uint64_t ticks, suspend_ns, max_suspend_ns, sampler_cpu_ns, failed;
    /* The signal engine's ticks (engine SAMPLER_ENGINE_SIGNAL; all 0 for the suspend engine's): */
    unsigned engine;         /* SAMPLER_ENGINE_* of the ticks (the last one's) */
    unsigned clock;          /* SAMPLER_CLOCK_* of the signal engine's ticks (perf if any tick says so) */
    unsigned sampler_flags;  /* SAMPLER_FLAG_* of its sampler_start record */
    char sampler_why[400];   /* why that engine and clock (the record's; "" from an earlier agent) */
    uint64_t signals;        /* samples it took (CPU timer and wall signals) */
    uint64_t periods;        /* the CPU its CPU samples hold, in periods */
    uint64_t cpu_signals;    /* its CPU-timer samples (in any view), the draws the rate counts */
    uint64_t thread_cpu_ns;  /* the sampled threads' CPU over its ticks, by the kernel's per-thread clocks */
    uint64_t waiting;        /* wall view: the kept samples of threads blocked in a system call */
    uint64_t truncated;      /* kept samples whose walk stopped before the thread's first frame */
    uint64_t wall_period_ns; /* the period of its wall-clock samples (--collect wall), 0 without */
    /* The numbers every format states (docs/sampling.md, "What the totals mean"): */
    uint64_t duration_ns;    /* the recording window: first tick to last tick plus one period (without
                                ticks: first to last sample) */
    uint64_t cpu_ns;         /* CPU time: the sum of the kept samples' cpu_ns, measured by the kernel's
                                per-thread CPU clocks (never samples x period) */
    uint64_t cpu_unshown_ns; /* CPU view: cpu_ns of the matching threads' samples left out as waiting */
    double rate_hz;          /* ticks achieved per second of the window (0: no ticks); the signal engine:
                                CPU samples per second of the sampled threads' CPU */
    uint64_t process_cpu_ns; /* the reference: the whole process's CPU over the sampling as the kernel counts
                                it (every thread: the runtime's native ones, the sampler), the last
                                process_cpu record's cpu_ns minus the first's; 0 when the trace has fewer
                                than two (an earlier agent) */
    uint32_t processes;      /* how many processes' CPU process_cpu_ns adds up (several when merged) */
    /* The allocation and contention views (in cpu and wall all 0): */
    uint64_t weight_total;   /* the sum of the kept samples' weights (rp_profile_total) */
    uint64_t first_t, last_t;/* the view's records' first and last time (a wait's end), any thread */
    double bytes, objects;   /* allocation views: the kept samples' estimates, summed unrounded */
    unsigned alloc_methods;  /* allocation views: 1 << ALLOC_METHOD_* of every alloc_sample record (bit 0:
                                an unknown method); rp_alloc_scaling says how to read the figures */
    uint64_t followed;       /* allocation views: alloc samples with an id (followed for the live view)
                                that match the filter */
    uint64_t unexamined;     /* allocation views: followed samples never found dead that no GC able to free
                                them has looked at yet (allocated after the last check, or large objects no
                                gen2 GC has passed): the live view leaves them out */
    uint32_t live_gcs;       /* the GCs the live tracker saw (live_gc records, one per gc number) */
    uint32_t live_last_gc;   /* the latest one's number, and its time: the live view's moment */
    uint64_t live_last_gc_t;
    int filtered;            /* a --thread filter was given: other sampled threads are left out too */
    unsigned options;        /* RP_PROFILE_* it was built with */
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
    RP_PROFILE_LINES = 1 << 1,        /* a managed frame per source line where the trace's IL offsets and
                                         the program's PDB tell it (report --lines; pprof always) */
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

/* Frame f's name without the location RP_PROFILE_LINES adds to it. */
static inline const char *rp_frame_plain(const rp_profile *p, size_t f)
{
    return p->sources && p->sources[f].name ? p->sources[f].name : p->frames[f];
}

/* The weight of a sample in the view's unit: its measured cpu_ns in the CPU
 * view, one period in the wall view, its weight in the others.  What the
 * formats that weigh samples (speedscope, pprof) add up. */
uint64_t rp_sample_weight(const rp_profile *p, const rp_sample *s);
/* The sum of the weights of the kept samples: cpu_ns in the CPU view, the
 * thread time (samples x period) in the wall view, weight_total in the
 * others. */
uint64_t rp_profile_total(const rp_profile *p);
/* What the counting formats (text's tables, collapsed, the html widths)
 * add up for a sample: 1 in the views that count samples (cpu, wall), its
 * weight in the others (views.h, counts_samples); and their sum over the
 * kept samples. */
uint64_t rp_sample_count(const rp_profile *p, const rp_sample *s);
uint64_t rp_profile_count_total(const rp_profile *p);
/* "N followed objects not yet examined: allocated since the last GC, or
 * large objects (85,000 bytes or more) no gen2 GC has looked at since"
 * (p->unexamined) into buf; returns buf. */
const char *rp_live_unexamined(const rp_profile *p, char *buf, size_t len);
/* The allocation views: why the live view has no sample, or NULL when it
 * has some (or p is of another family): the trace has no allocation
 * samples, they were not followed (live not collected), no GC was seen
 * since they were recorded, or none of them is alive after the last GC. */
const char *rp_live_empty_reason(const rp_profile *p);
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
/* What one sample stands for in the wall view: the sampling period (the
 * signal engine's wall-clock period, which may be longer than its CPU one). */
uint64_t rp_profile_sample_period(const rp_profile *p);
/* The asked rate in Hz (1e9 / period_ns). */
double rp_profile_asked_hz(const rp_profile *p);
/* Whether the achieved rate is below 90% of the asked one (the signal
 * engine's: 80%, its samples coming at the kernel's tick). */
int rp_profile_rate_low(const rp_profile *p);
/* How the rate is counted, for people: "ticks/s" (the suspend engine's
 * ticks per second) or "samples per CPU-second" (the signal engine's
 * periods sampled per second of the threads' CPU); and what makes it low. */
const char *rp_profile_rate_unit(const rp_profile *p);
/* A signal engine's clock (SAMPLER_CLOCK_*): its short name, as jsonl and
 * the html page give it ("percpu", "perf", "timer"), and what it is, as
 * the text says it ("per-CPU perf events of the clrprobe command's"). */
const char *rp_clock_name(unsigned clock);
const char *rp_clock_phrase(unsigned clock);
const char *rp_profile_rate_low_reason(const rp_profile *p);

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
/* A new number with frame f's name, not in the table's index (a name still
 * finds f): a frame of one of f's source lines.  -1 when out of memory. */
long rp_intern_alias(rp_interner *in, uint32_t f);

/* Number of sample records in a trace (any view). */
uint64_t rp_count_samples(const rp_trace *tr);
/* Number of records of the kind a view's samples come from (views.h); in
 * the live view, the followed allocation samples. */
uint64_t rp_count_view_records(const rp_trace *tr, enum rp_view view);

#endif
