/* report.h - the report formats, each writing a loaded trace to a stream. */
#ifndef CLRPROBE_REPORT_REPORT_H
#define CLRPROBE_REPORT_REPORT_H

#include <stdio.h>

#include "report/model.h"

/* Readable summary.  path is shown in the title.  Returns 0 or -1 (I/O). */
int rp_write_text(const rp_trace *tr, const char *path, FILE *out);

/* One JSON object per line (docs/jsonl.md).  Returns 0 or -1 (I/O). */
int rp_write_jsonl(const rp_trace *tr, FILE *out);

/* "gc", "gc_prep", ... for a COR_PRF_SUSPEND_REASON. */
const char *rp_suspend_reason(uint32_t reason);

#endif
