/* formats.h - the registry of report formats: for each, its name (what
 * `clrprobe report --format` takes), the description its usage shows, what
 * it reads (the event list, a profile, a heap snapshot), what it offers
 * beyond its plain report (the heap questions, --heap, ...), and its
 * writers, all with one signature.  `clrprobe report` (cli/cmd_report.c,
 * cli/report_many.c) knows formats only from here: which names are valid,
 * the usage's list, whether to build a profile, whether samples or a heap
 * snapshot are required, which options a format takes, and names no format
 * itself.  A new format is one entry in formats.c. */
#ifndef CLRPROBE_REPORT_FORMATS_H
#define CLRPROBE_REPORT_FORMATS_H

#include <stdio.h>

#include "report/model.h"
#include "report/profile.h"
#include "report/report.h"

/* What a format reads (a bit set). */
enum rp_need {
    RP_NEED_EVENTS = 1 << 0,   /* the trace's event list (always loaded: the command tests this bit nowhere) */
    RP_NEED_PROFILE = 1 << 1,  /* the profile (profile.h), built for the view and thread filter */
    RP_NEED_SAMPLES = 1 << 2,  /* it shows samples: a trace without any, or a view and filter that
                                  leave none, is an error rather than an empty report */
    RP_NEED_HEAP = 1 << 3,     /* it shows a heap snapshot: a trace without one is an error */
};

/* What a format offers besides its report (a bit set): the command tests
 * these, never a format's name, and its messages list the formats that have
 * the bit. */
enum rp_cap {
    RP_HEAP_QUESTIONS = 1 << 0,      /* answers --why TYPE and --diff OLD (in->why, in->old) */
    RP_HEAP_PROFILE_OPTION = 1 << 1, /* takes --heap: the last heap snapshot's profile instead of the
                                        samples' (in->heap; neither profile nor samples needed then) */
    RP_HEAP_ONLY_VIEW = 1 << 2,      /* a trace with a heap snapshot and no samples is shown as its heap
                                        rather than refused for lack of samples: with
                                        RP_HEAP_PROFILE_OPTION as with --heap, otherwise the writer is
                                        given the (empty) profile and shows the heap */
    RP_LISTS_CHILDREN = 1 << 3,      /* the report of one trace is followed by the processes it started,
                                        their traces found beside it (cli_report_children) */
    RP_BY_THREAD_OPTION = 1 << 4,    /* uses --by-thread (in->by_thread): the thread as the root frame */
    RP_BINARY = 1 << 5,              /* binary output: never written to a terminal */
    RP_ALWAYS_LINES = 1 << 6,        /* its profile always has a frame per source line where known (as with
                                        --lines: RP_PROFILE_LINES), the format keeping lines apart from
                                        names (pprof's Line table) */
};

/* What a writer is given. */
typedef struct rp_report_input {
    const rp_trace *trace;     /* the loaded trace (always) */
    const rp_profile *profile; /* with RP_NEED_PROFILE, else NULL */
    const char *path;          /* the trace file as named on the command line */
    const char *title;         /* its base name, for formats with room for a title */
    int by_thread;             /* --by-thread (collapsed: the thread as the root frame) */
    size_t ntraces;            /* the traces the profile merges (report_many.c); 0 or 1: one, in trace */
    const rp_report_trace *traces; /* with ntraces > 1: each of them, in the order they started; else NULL */
    const char *why;           /* --why TYPE (RP_HEAP_QUESTIONS: heap_query.h), or NULL */
    const rp_trace *old;       /* --diff OLD (RP_HEAP_QUESTIONS), or NULL, and its path as named */
    const char *old_path;
    int heap;                  /* RP_HEAP_PROFILE_OPTION: the heap snapshot's profile, not the CPU samples' */
    const char *thread;        /* --thread, or NULL, and the RP_PROFILE_* options (--raw-frames) profile */
    unsigned profile_options;  /* was built with: a writer that shows other views builds theirs alike
                                  (view_profiles.h) */
} rp_report_input;

typedef struct rp_format {
    const char *name;
    const char *description;   /* for the usage: wrapped to fit after the name's column, lines
                                  separated by '\n', no '\n' at the end */
    unsigned needs;            /* enum rp_need bits */
    unsigned caps;             /* enum rp_cap bits */
    /* Writes the report to out.  Returns 0, or -1 (I/O or out of memory). */
    int (*write)(const rp_report_input *in, FILE *out);
    /* Several traces (in->traces, in->ntraces; in->profile merges theirs),
     * for a format that shows more of them than the merged profile; NULL:
     * write, given the merged profile (and in->trace the first trace).  A
     * format that needs no profile reads one trace at a time. */
    int (*write_many)(const rp_report_input *in, FILE *out);
    /* An output name a well-known reader misreads (its suffix), and why
     * (the command warns); NULL: none. */
    const char *misread_suffix, *misread_why;
} rp_format;

/* Every format, in the order the usage lists them; the first is the
 * default.  Ends with an entry whose name is NULL. */
extern const rp_format rp_formats[];

/* The format called name, or NULL. */
const rp_format *rp_format_find(const char *name);

#endif
