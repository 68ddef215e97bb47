/* html_heap.h - the html report's heap view data (html_heap.c). */
#ifndef CLRPROBE_REPORT_HTML_HEAP_H
#define CLRPROBE_REPORT_HTML_HEAP_H

#include <stdio.h>

#include "report/model.h"

/* Writes the "heap" member of the page's data ("heap":{...}, no comma),
 * from tr's last heap snapshot; writes nothing when it has none.  0, or -1
 * (out of memory, I/O). */
int rp_write_html_heap(const rp_trace *tr, FILE *out);

/* Whether tr has a heap snapshot (a page with a heap view). */
int rp_html_has_heap(const rp_trace *tr);

#endif
