/* heapsnapshot.h - the V8/Chrome .heapsnapshot exporter (heapsnapshot.c). */
#ifndef CLRPROBE_REPORT_HEAPSNAPSHOT_H
#define CLRPROBE_REPORT_HEAPSNAPSHOT_H

#include <stdio.h>

#include "report/model.h"

/* The trace's last complete heap snapshot (the last one if none is
 * complete) as a .heapsnapshot.  0, or -1 (no snapshot, I/O, out of
 * memory). */
int rp_write_heapsnapshot(const rp_trace *tr, FILE *out);

#endif
