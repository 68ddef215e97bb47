/* hot_lines.h - the text report's "Hot lines": the self time of the
 * methods with the most of it, by source line (report --lines' frames,
 * source_lines.h), so that the line of a long method where its time goes
 * is on the first screen; or, when the trace's frames have IL offsets but
 * the program's own assemblies had no symbols, a note saying so. */
#ifndef CLRPROBE_REPORT_HOT_LINES_H
#define CLRPROBE_REPORT_HOT_LINES_H

#include <stdio.h>

#include "report/model.h"
#include "report/profile.h"

/* Writes the table for shown's view (a profile of it with a frame per
 * line is built when shown has none, with the thread filter and options
 * given), nothing when no line is known.  Returns 0, or -1 (out of
 * memory). */
int rp_write_hot_lines(const rp_trace *tr, const rp_profile *shown, const char *thread, unsigned options, FILE *out);

#endif
