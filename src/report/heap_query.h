/* heap_query.h - the heap questions `clrprobe report` answers on request,
 * in text or jsonl (docs/jsonl.md): why the instances of a type are alive
 * (--why TYPE: heap_paths.h) and how the heap changed (--diff OLD, or the
 * first and last snapshots of one trace: heap_diff.h).  Each looks at the
 * last complete snapshot of a trace (the last one if none is complete). */
#ifndef CLRPROBE_REPORT_HEAP_QUERY_H
#define CLRPROBE_REPORT_HEAP_QUERY_H

#include <stddef.h>
#include <stdio.h>

#include "report/model.h"

/* Whether --why TYPE can be answered for tr: 0, or -1 with the reason (no
 * snapshot, no such type: the candidates) in err. */
int rp_heap_why_check(const rp_trace *tr, const char *type, char *err, size_t errlen);

/* Whether tr has a heap snapshot to compare: 0, or -1 with the reason. */
int rp_heap_diff_check(const rp_trace *tr, const char *path, char *err, size_t errlen);

/* "Why TYPE is alive" (text), or heap_root_path lines (jsonl).  0, or -1
 * (I/O, out of memory). */
int rp_write_heap_why(const rp_trace *tr, const char *type, int jsonl, FILE *out);

/* "Heap growth" (text) or heap_diff lines (jsonl): old's last snapshot to
 * tr's; old NULL: tr's first to its last (nothing when it has fewer than
 * two).  0, or -1. */
int rp_write_heap_diff(const rp_trace *old, const rp_trace *tr, int jsonl, FILE *out);

#endif
