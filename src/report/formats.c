/* formats.c - the registry of report formats (formats.h): each entry, and
 * the adapters from the one writer signature to each format's writer
 * (report.h). */
#include "report/formats.h"
#include "report/hot_lines.h"
#include "report/heap_query.h"
#include "report/heapsnapshot.h"
#include "report/report.h"
#include "report/view_profiles.h"

#include "common/escape.h"

#include <inttypes.h>
#include <string.h>

/* The heap's growth over the trace's own snapshots (when it has two). */
static int heap_growth(const rp_report_input *in, int jsonl, FILE *out)
{
    return rp_write_heap_diff(NULL, in->trace, jsonl, out);
}

/* A heap question asked (--why, --diff): only its answer, in text under
 * one line that says which trace it is about. */
static int heap_question(const rp_report_input *in, int jsonl, FILE *out)
{
    if (!jsonl) {
        fputs("clrprobe trace ", out);
        esc_puts(out, in->path);
        fprintf(out, " (pid %" PRIu32 ", ", in->trace->file.pid);
        esc_puts(out, in->trace->file.command_line);
        fputs(")", out);
        if (in->old) {
            fputs(", against ", out);
            esc_puts(out, in->old_path ? in->old_path : "the older trace");
        }
        fputc('\n', out);
    }
    if (in->why)
        return rp_write_heap_why(in->trace, in->why, jsonl, out);
    return rp_write_heap_diff(in->old, in->trace, jsonl, out);
}

/* The answers first: a header of a few lines, then where time goes (the
 * view asked for), where memory is allocated, what stays alive, where
 * threads wait, exceptions, the heap; then the view by thread and what
 * else the trace holds. */
static int write_text(const rp_report_input *in, FILE *out)
{
    int rc;

    if (in->why || in->old)
        return heap_question(in, 0, out);
    rc = rp_write_text_header(in->trace, in->path, in->profile, out);
    if (rc == 0 && in->profile && in->profile->total_samples) {
        rp_write_profile_text(in->profile, out);
        rc = rp_write_hot_lines(in->trace, in->profile, in->thread, in->profile_options, out);
    }
    if (rc == 0)
        rc = rp_write_text_views(in->trace, in->thread, in->profile_options, out);
    if (rc == 0)
        rc = rp_write_text_answers(in->trace, out);
    if (rc == 0)
        rc = heap_growth(in, 0, out);
    if (rc == 0 && in->profile && in->profile->total_samples)
        rp_write_profile_threads(in->profile, out);
    if (rc == 0)
        rc = rp_write_text_inventory(in->trace, out);
    return rc;
}

/* Several traces: the processes, where time goes in all of them, then each
 * one's report. */
static int write_text_many(const rp_report_input *in, FILE *out)
{
    int rc = 0;

    rp_write_processes("Processes", in->traces, in->ntraces, out);
    if (in->profile->total_samples) {
        fputc('\n', out);
        rp_write_profile_text(in->profile, out);
        rp_write_profile_threads(in->profile, out);
    }
    for (size_t i = 0; i < in->ntraces && rc == 0; i++) {
        fprintf(out, "\n== %s ==\n", in->traces[i].label);
        rc = rp_write_text_header(in->traces[i].trace, in->traces[i].path, NULL, out);
        if (rc == 0)
            rc = rp_write_text_views(in->traces[i].trace, in->thread, in->profile_options, out);
        if (rc == 0)
            rc = rp_write_text_answers(in->traces[i].trace, out);
        if (rc == 0)
            rc = rp_write_text_inventory(in->traces[i].trace, out);
    }
    return rc;
}

static int write_jsonl(const rp_report_input *in, FILE *out)
{
    int rc;

    if (in->why || in->old)
        return heap_question(in, 1, out);
    rc = rp_write_jsonl(in->trace, out);
    if (rc == 0)
        rc = heap_growth(in, 1, out);
    return rc;
}

static int write_collapsed(const rp_report_input *in, FILE *out)
{
    return rp_write_collapsed(in->profile, in->by_thread, out);
}

static int write_speedscope(const rp_report_input *in, FILE *out)
{
    return rp_write_speedscope(in->profile, in->title, out);
}

/* The heap snapshot's profile, or the view's; the live view's values are
 * those of every allocation sample (alloc_*) beside the live (inuse_*). */
static int write_pprof(const rp_report_input *in, FILE *out)
{
    rp_profile all;
    int rc;

    if (in->heap)
        return rp_write_pprof_heap(in->trace, in->title, out);
    if (in->profile->view != RP_VIEW_LIVE || !in->trace)
        return rp_write_pprof(in->profile, in->title, out);
    if (rp_input_profile(in, RP_VIEW_ALLOC, &all) < 0)
        return -1;
    rc = rp_write_pprof_memory(&all, in->profile, in->title, out);
    rp_profile_free(&all);
    return rc;
}

static int write_heapsnapshot(const rp_report_input *in, FILE *out)
{
    return rp_write_heapsnapshot(in->trace, out);
}

/* The flame graph of the view, with the other views the traces have
 * records for (and samples of the threads asked for) in its view picker,
 * and the GC timeline of the trace beside it when the profile is one
 * process's. */
static int write_html(const rp_report_input *in, FILE *out)
{
    rp_profile others[RP_VIEW_COUNT];
    const rp_profile *views[RP_VIEW_COUNT];
    size_t n = 0, built = 0;
    int rc = 0;

    views[n++] = in->profile;
    for (int v = 0; v < RP_VIEW_COUNT && rc == 0 && in->trace; v++) {
        if (v == (int)in->profile->view || !rp_input_view_records(in, (enum rp_view)v))
            continue;
        if (rp_input_profile(in, (enum rp_view)v, &others[built]) < 0) {
            rc = -1;
            break;
        }
        if (others[built].nsamples)
            views[n++] = &others[built];
        built++;
    }
    if (rc == 0)
        rc = rp_write_html_views(views, n, in->ntraces > 1 ? NULL : in->trace, in->title, out);
    for (size_t i = 0; i < built; i++)
        rp_profile_free(&others[i]);
    return rc;
}

static int write_chrome(const rp_report_input *in, FILE *out)
{
    return rp_write_chrome(in->trace, out);
}

const rp_format rp_formats[] = {
    { .name = "text",
      .description = "a readable summary (default), the answers first: what was recorded and the\n"
                     "process's CPU, where time goes (the view's profile and its hot source\n"
                     "lines), where memory is allocated, what stays alive, where threads wait,\n"
                     "exceptions, the heap; then each thread's top, events by kind, modules, the\n"
                     "slowest JIT compilations, threads, GCs (pauses, heap sizes)",
      .needs = RP_NEED_EVENTS | RP_NEED_PROFILE,
      .caps = RP_HEAP_QUESTIONS | RP_LISTS_CHILDREN,
      .write = write_text, .write_many = write_text_many },
    { .name = "jsonl", .description = "one JSON object per event, in time order (schema: docs/jsonl.md)",
      .needs = RP_NEED_EVENTS, .caps = RP_HEAP_QUESTIONS, .write = write_jsonl },
    { .name = "collapsed", .description = "'root;...;leaf count' lines (Brendan Gregg's format, for flamegraph.pl)",
      .needs = RP_NEED_PROFILE | RP_NEED_SAMPLES, .caps = RP_BY_THREAD_OPTION, .write = write_collapsed },
    { .name = "speedscope",
      .description = "speedscope's JSON format (https://www.speedscope.app), one profile per thread",
      .needs = RP_NEED_PROFILE | RP_NEED_SAMPLES, .write = write_speedscope },
    { .name = "pprof",
      .description = "gzip-compressed profile.proto for 'go tool pprof' and profiling backends (the\n"
                     "allocation views: alloc_objects, alloc_space, inuse_objects, inuse_space); with\n"
                     "--heap (or a trace with a heap snapshot and no samples), the last snapshot:\n"
                     "inuse_objects and inuse_space by type under its path from a GC root; source\n"
                     "lines always, in its Line and Function tables (go tool pprof -lines)",
      .needs = RP_NEED_PROFILE | RP_NEED_SAMPLES,
      .caps = RP_HEAP_PROFILE_OPTION | RP_HEAP_ONLY_VIEW | RP_BINARY | RP_ALWAYS_LINES,
      .write = write_pprof },
    { .name = "html",
      .description = "one self-contained interactive flame graph (no network needed) with a view\n"
                     "picker, a strip of the samples over time to show one time range, and the heap\n"
                     "per generation over time and the GC pauses beside it",
      .needs = RP_NEED_PROFILE | RP_NEED_SAMPLES, .caps = RP_HEAP_ONLY_VIEW, .write = write_html },
    { .name = "chrome",
      .description = "the trace as one timeline (Trace Event Format JSON) for Perfetto's UI and\n"
                     "chrome://tracing: a lane per thread with its CPU samples, JIT compilations,\n"
                     "exceptions, GCs, suspensions, heap snapshots and traced calls; the heap per\n"
                     "generation and the samples per second as counters (docs/timeline.md)",
      .needs = RP_NEED_EVENTS, .write = write_chrome,
      .misread_suffix = ".chrome.json",
      .misread_why = "speedscope takes a file of that name for a Chrome performance panel recording and "
                     "refuses it; name it *.json or *.trace.json for speedscope (Perfetto reads either)" },
    { .name = "heapsnapshot",
      .description = "the last heap snapshot as a V8 .heapsnapshot, for the Memory panel of Chrome\n"
                     "DevTools (summary by type, retainers, dominators, comparison)",
      .needs = RP_NEED_EVENTS | RP_NEED_HEAP, .write = write_heapsnapshot },
    { .name = NULL },
};

const rp_format *rp_format_find(const char *name)
{
    for (const rp_format *f = rp_formats; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}
