/* report.h - the report formats, each writing a loaded trace to a stream. */
#ifndef CLRPROBE_REPORT_REPORT_H
#define CLRPROBE_REPORT_REPORT_H

#include <stdio.h>

#include "report/model.h"
#include "report/profile.h"

/* Readable summary.  path is shown in the title.  Returns 0 or -1 (I/O). */
int rp_write_text(const rp_trace *tr, const char *path, FILE *out);

/* One JSON object per line (docs/jsonl.md).  Returns 0 or -1 (I/O). */
int rp_write_jsonl(const rp_trace *tr, FILE *out);

/* Profile exporters.  title names the trace (file name) where the format
 * has room for it.  Each returns 0, or -1 (I/O or out of memory). */
int rp_write_speedscope(const rp_profile *p, const char *title, FILE *out);   /* speedscope JSON */
int rp_write_pprof(const rp_profile *p, const char *title, FILE *out);        /* gzipped profile.proto */
int rp_write_html(const rp_profile *p, const char *title, FILE *out);         /* self-contained flame graph */

/* "gc", "gc_prep", ... for a COR_PRF_SUSPEND_REASON. */
const char *rp_suspend_reason(uint32_t reason);

#endif
