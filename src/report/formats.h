/* formats.h - the registry of report formats: for each, its name (what
 * `clrprobe report --format` takes), the description its usage shows, what
 * it reads (the event list, a profile), and its writer, all writers with one
 * signature.  `clrprobe report` (cli/cmd_report.c) knows formats only from
 * here: which names are valid, the usage's list, whether to build a profile
 * and whether samples are required.  A new format is one entry in
 * formats.c. */
#ifndef CLRPROBE_REPORT_FORMATS_H
#define CLRPROBE_REPORT_FORMATS_H

#include <stdio.h>

#include "report/model.h"
#include "report/profile.h"

/* What a format reads (a bit set). */
enum rp_need {
    RP_NEED_EVENTS = 1 << 0,   /* the trace's event list */
    RP_NEED_PROFILE = 1 << 1,  /* the profile (profile.h), built for the view and thread filter */
    RP_NEED_SAMPLES = 1 << 2,  /* it shows samples: a trace without any, or a view and filter that
                                  leave none, is an error rather than an empty report */
    RP_NEED_HEAP = 1 << 3,     /* it shows a heap snapshot: a trace without one is an error */
};

/* What a writer is given. */
typedef struct rp_report_input {
    const rp_trace *trace;     /* the loaded trace (always) */
    const rp_profile *profile; /* with RP_NEED_PROFILE, else NULL */
    const char *path;          /* the trace file as named on the command line */
    const char *title;         /* its base name, for formats with room for a title */
    int by_thread;             /* --by-thread (collapsed: the thread as the root frame) */
    size_t ntraces;            /* the traces the profile merges (report_many.c); 0 or 1: one, in trace */
    const char *why;           /* --why TYPE (text, jsonl: heap_query.h), or NULL */
    const rp_trace *old;       /* --diff OLD (text, jsonl), or NULL */
    int heap;                  /* pprof: the heap snapshot's profile, not the CPU samples' */
} rp_report_input;

typedef struct rp_format {
    const char *name;
    const char *description;   /* for the usage: wrapped to fit after the name's column, lines
                                  separated by '\n', no '\n' at the end */
    unsigned needs;            /* enum rp_need bits */
    /* Writes the report to out.  Returns 0, or -1 (I/O or out of memory). */
    int (*write)(const rp_report_input *in, FILE *out);
} rp_format;

/* Every format, in the order the usage lists them; the first is the
 * default.  Ends with an entry whose name is NULL. */
extern const rp_format rp_formats[];

/* The format called name, or NULL. */
const rp_format *rp_format_find(const char *name);

#endif
