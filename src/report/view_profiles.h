/* view_profiles.h - the profile of any view (views.h) for what a report
 * writer is given (formats.h): the one trace's, or the several traces'
 * merged with each process as the root frame, built with the same thread
 * filter and options as the report's own profile.  The command builds the
 * report's profile with it, and the writers that show more than the asked
 * view (html's view picker, pprof's memory profile, text's summary of
 * allocations and waits) build the others' with it too. */
#ifndef CLRPROBE_REPORT_VIEW_PROFILES_H
#define CLRPROBE_REPORT_VIEW_PROFILES_H

#include "report/formats.h"

/* The profile of view for in (in->trace, or in->traces when in->ntraces >
 * 1, in the order they started: each as root frame with its label, its
 * times shifted by its start after the first's).  Returns 0, or -1 (out of
 * memory).  Free out with rp_profile_free. */
int rp_input_profile(const rp_report_input *in, enum rp_view view, rp_profile *out);

/* The number of records of view's kind in in's traces
 * (rp_count_view_records). */
uint64_t rp_input_view_records(const rp_report_input *in, enum rp_view view);

#endif
