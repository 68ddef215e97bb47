/* report.h - the writers of the report formats, each writing a loaded
 * trace or its profile to a stream.  Which format is which, and what each
 * needs, is the registry's (formats.h), whose entries call these. */
#ifndef CLRPROBE_REPORT_REPORT_H
#define CLRPROBE_REPORT_REPORT_H

#include <stdio.h>

#include "report/model.h"
#include "report/profile.h"

/* One of several traces that make one report (cli/report_many.c). */
typedef struct rp_report_trace {
    const rp_trace *trace;
    const char *path;          /* as found */
    const char *label;         /* "PROGRAM (pid N)" */
} rp_report_trace;

/* title, then one line per trace: its label, its duration and its path
 * (escaped) (text.c). */
void rp_write_processes(const char *title, const rp_report_trace *t, size_t n, FILE *out);

/* The text report in three parts (text.c), each returning 0 or -1 (I/O):
 * the header, a few lines on what the trace is (path shown in its title),
 * what it holds, the process's CPU (from p, a CPU view's profile; NULL:
 * not said) and the warnings that matter (the trace's problem, the
 * agent's notes, a sampler short of its rate); the answers of the trace's
 * own records that are not a profile's (exceptions, heap snapshots,
 * traced methods); the inventory (events by kind, modules, JIT, threads,
 * GCs).  rp_write_text writes all three. */
int rp_write_text_header(const rp_trace *tr, const char *path, const rp_profile *p, FILE *out);
int rp_write_text_answers(const rp_trace *tr, FILE *out);
int rp_write_text_inventory(const rp_trace *tr, FILE *out);
int rp_write_text(const rp_trace *tr, const char *path, FILE *out);

/* The summary's sections on allocations, live objects and lock waits, each
 * when tr has their records (text_views.c): allocation sites by upscaled
 * bytes, sites by live bytes with ages, wait sites by time waited; of the
 * threads thread names (NULL: all), frames as options say (RP_PROFILE_*).
 * Returns 0 or -1 (I/O, out of memory). */
int rp_write_text_views(const rp_trace *tr, const char *thread, unsigned options, FILE *out);

/* One JSON object per line (jsonl.c, docs/jsonl.md).  Returns 0 or -1 (I/O). */
int rp_write_jsonl(const rp_trace *tr, FILE *out);

/* The profile part of the text report (profile_text.c): top functions by
 * self and total (names escaped), in the view's
 * unit ("Where time goes" in the cpu and wall views). */
void rp_write_profile_text(const rp_profile *p, FILE *out);
/* Each thread's top functions by self, in the view's unit ("By thread"),
 * which the text report puts after the answers (profile_text.c). */
void rp_write_profile_threads(const rp_profile *p, FILE *out);
/* The profile's totals and rate as lines of text, each after indent: "N.NN
 * s of CPU time in N.NN s ...", with a process CPU "the process used N.NN
 * s of CPU time ...", then "rate: ..." (profile_text.c); in the other
 * views, what the view adds up and how to read it ("1.25 GiB allocated in
 * ... objects ...; upscaled estimates ...", "... waited in N lock
 * waits"). */
void rp_write_profile_totals(const rp_profile *p, const char *indent, FILE *out);
/* "the process used N.NN s of CPU time (the kernel's count, every thread):
 * N% in this view, ..." (rp_profile_process_share) into buf; 0 (buf "")
 * when the trace has no process CPU. */
int rp_format_process_cpu(const rp_profile *p, char *buf, size_t len);
/* "signal engine, perf events on each thread's task clock; why: the default
 * where ..." for a sampler_start record's engine, clock and reason (every
 * report that says which sampler ran says it so), into buf (not escaped). */
void rp_format_sampler(unsigned engine, unsigned clock, const char *why, char *buf, size_t len);

/* `root;...;leaf count` lines, aggregated (collapsed.c); with by_thread the
 * thread name is the root frame.  Names are escaped (common/escape.h), ';'
 * as \x3b since it separates frames.  Returns 0 or -1 (I/O). */
int rp_write_collapsed(const rp_profile *p, int by_thread, FILE *out);

/* Profile exporters.  title names the trace (file name) where the format
 * has room for it.  Each returns 0, or -1 (I/O or out of memory). */
int rp_write_speedscope(const rp_profile *p, const char *title, FILE *out);   /* speedscope.c: speedscope JSON */
int rp_write_pprof(const rp_profile *p, const char *title, FILE *out);        /* pprof.c: gzipped profile.proto */
/* Every thread's stack now, as Go's goroutine profile (goroutine/count):
 * p holds one sample per thread (its stack now); a sample's value is the
 * number of threads with that stack. */
int rp_write_pprof_threads(const rp_profile *p, const char *title, FILE *out);
/* The allocation views' pprof profile (pprof.c): the values of all's samples (an alloc or alloc-count profile:
 * every allocation sample, the live ones flagged), shown as shown's view (its totals, window, default sample
 * type).  rp_write_pprof(p) is this with all = shown = p: given a live profile alone, its alloc_* values are
 * those of the live samples. */
int rp_write_pprof_memory(const rp_profile *all, const rp_profile *shown, const char *title, FILE *out);
/* The trace's last heap snapshot as a pprof heap profile (pprof.c): inuse_objects and inuse_space, the stacks
 * being each object's type under the types of its path from a GC root. */
int rp_write_pprof_heap(const rp_trace *tr, const char *title, FILE *out);
int rp_write_html(const rp_profile *p, const char *title, FILE *out);         /* html.c: self-contained flame graph */
/* The same page with tr's GC timeline (heap size per generation over time, the pauses marked) beside the
 * flame graph; tr NULL: none. */
int rp_write_html_gc(const rp_profile *p, const rp_trace *tr, const char *title, FILE *out);
/* The same page with the view picker: views[0] is the view shown first, the others (of other views of the
 * same samples' traces) are offered beside it. */
int rp_write_html_views(const rp_profile *const *views, size_t nviews, const rp_trace *tr, const char *title,
                        FILE *out);

/* The trace as one timeline in the Trace Event Format (chrome.c: Perfetto, chrome://tracing, DevTools). */
int rp_write_chrome(const rp_trace *tr, FILE *out);

/* "gc", "gc_prep", ... for a COR_PRF_SUSPEND_REASON. */
const char *rp_suspend_reason(uint32_t reason);
/* "unhandled", "native", "filter", "superseded" for an EXC_OUTCOME_*. */
const char *rp_exception_outcome(uint32_t outcome);

#endif
