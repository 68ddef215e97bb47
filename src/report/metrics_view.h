/* metrics_view.h - a process's metrics (eventpipe/metrics_table.h) as
 * `clrprobe counters` prints them: the formats (table, csv, json,
 * prometheus), one registry, and the Prometheus names. */
#ifndef CLRPROBE_REPORT_METRICS_VIEW_H
#define CLRPROBE_REPORT_METRICS_VIEW_H

#include "eventpipe/metrics_table.h"

#include <stdio.h>

/* The Prometheus name of a metric (OpenTelemetry's rules: characters
 * outside [a-zA-Z0-9_:] become '_', the unit a suffix ("By" bytes, "s"
 * seconds, "{...}" dropped), "_total" for a counter) into out. */
void mv_prometheus_name(const char *metric, const char *unit, int counter, char *out, size_t cap);

/* What a format prints about the process. */
typedef struct mv_context {
    int pid;
    const char *process;        /* its name */
    int in_place;               /* a terminal: the table redraws itself */
    const char *container;      /* prometheus: its container's id and its runtime's version, */
    const char *runtime;        /* labels when not NULL or "" */
} mv_context;

/* The Prometheus exposition of several processes: each process's samples
 * of its last interval added as rows (mv_prometheus_rows: 0, or -1 out of
 * memory), then written grouped by metric, one TYPE line each
 * (counters as their totals, the rest as gauges). */
typedef struct mv_prom_row {
    char *name, *labels;        /* labels: "{pid=\"1\",...}" */
    int counter;
    double value;
} mv_prom_row;
typedef struct mv_prom_rows {
    mv_prom_row *v;
    size_t n, cap;
} mv_prom_rows;
int mv_prometheus_rows(mv_prom_rows *rows, const mt_table *t, const mv_context *c);
void mv_prometheus_write(FILE *out, mv_prom_rows *rows);
void mv_prometheus_rows_free(mv_prom_rows *rows);

typedef struct mv_format {
    const char *name;
    /* After each interval (NULL: nothing then). */
    void (*interval)(FILE *out, const mt_table *t, const mv_context *c, int first);
    /* Once at the end, when at least one interval was complete (NULL: nothing). */
    void (*finish)(FILE *out, const mt_table *t, const mv_context *c);
} mv_format;

/* The format called name, or NULL; MV_FORMAT_NAMES lists them. */
const mv_format *mv_format_find(const char *name);
#define MV_FORMAT_NAMES "table, csv, json, prometheus"

#endif
