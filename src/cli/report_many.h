/* report_many.h - `clrprobe report` over several traces (files, or
 * directories of *.clrp): the processes of a run together, each process,
 * "PROGRAM (pid N)", the root frame of its samples (report_many.c). */
#ifndef CLRPROBE_CLI_REPORT_MANY_H
#define CLRPROBE_CLI_REPORT_MANY_H

#include <stddef.h>
#include <stdio.h>

#include "report/formats.h"

typedef struct rp_report_options {
    enum rp_view view;
    int view_given;            /* --view was given (not the default) */
    const char *thread;        /* --thread, or NULL */
    int by_thread;
    unsigned profile_options;  /* RP_PROFILE_* (--raw-frames, --lines) */
    const char *output;        /* -o, or NULL: standard output */
    const char *symbols_dir;   /* --symbols DIR, or NULL */
} rp_report_options;

/* Writes one report of the traces args names (files or directories) in
 * format fmt: their profiles merged, given to fmt->write, or to
 * fmt->write_many with the traces themselves (formats.h); a format that
 * needs no profile is refused.  Returns the command's exit status. */
int cli_report_many(char **args, size_t nargs, const rp_format *fmt, const rp_report_options *opt);

/* After the report of the trace at path (RP_LISTS_CHILDREN): the traces of the processes
 * it started, found beside it (STEM.PROGRAM-PID.clrp, started while it
 * ran), with their duration, if there are any. */
void cli_report_children(const char *path, const rp_trace *parent, FILE *out);

/* The error for a --thread that matches no sampled thread of p (every
 * format, one or several traces), with a few of the labels that would. */
void cli_report_no_thread(const char *thread, const rp_profile *p);

/* The error for a view whose records none of in's traces has (what: the
 * trace's path, or "these N traces"): what is missing and how to record it,
 * and the views the traces do have records for. */
void cli_report_no_records(const char *what, const rp_format *fmt, enum rp_view view, const rp_report_input *in);

/* The error for a view with records of which none is kept (the thread
 * filter, the CPU view's rule, the live view's: it says why). */
void cli_report_empty_view(const char *what, const char *thread, const rp_profile *p);

#endif
