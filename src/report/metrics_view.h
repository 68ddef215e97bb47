/* metrics_view.h - a process's metrics as `clrprobe counters` shows them:
 * one series per meter, instrument and attribute set, with its latest
 * interval's figure (a counter's increase per second, an up-down counter's
 * or gauge's value, a histogram's quantiles), built from the decoded
 * events of the metrics source; and the formats that print it (table, csv,
 * json, prometheus), one registry. */
#ifndef CLRPROBE_REPORT_METRICS_VIEW_H
#define CLRPROBE_REPORT_METRICS_VIEW_H

#include "eventpipe/metrics_source.h"

#include <stdio.h>

typedef enum mv_kind {
    MV_RATE,                    /* a counter: value is its increase per second; total its running total */
    MV_VALUE,                   /* an up-down counter or a gauge: value now */
    MV_QUANTILE,                /* one quantile of a histogram (its "quantile" attribute) */
} mv_kind;

typedef struct mv_series {
    char *meter, *instrument, *unit, *tags;   /* tags: "k=v,k2=v2" */
    mv_kind kind;
    double value, total;
    double increase;            /* a counter's increase over the interval, as reported */
    int has_value, has_total;
    unsigned interval;          /* the interval it was last reported in */
} mv_series;

typedef struct mv_table {
    mv_series *series;
    size_t n, cap;
    unsigned interval;          /* intervals completed */
    double interval_s;          /* the last one's length */
    double end_unix;            /* and its end */
    char **meters;              /* meters that published an instrument */
    size_t nmeters;
} mv_table;

void mv_init(mv_table *t);
void mv_free(mv_table *t);

/* Takes one decoded event: instruments (their meters), values into the
 * current interval, and MX_COLLECTION_STOP ends it (returns 1 then, else
 * 0).  refresh_s stands for the interval's length when the event has none. */
int mv_take(mv_table *t, const mx_event *e, double refresh_s);

/* Whether meter published any instrument. */
int mv_has_meter(const mv_table *t, const char *meter);

/* The Prometheus name of a metric (OpenTelemetry's rules: characters
 * outside [a-zA-Z0-9_:] become '_', the unit a suffix ("By" bytes, "s"
 * seconds, "{...}" dropped), "_total" for a counter) into out. */
void mv_prometheus_name(const char *metric, const char *unit, int counter, char *out, size_t cap);

/* What a format prints about the process. */
typedef struct mv_context {
    int pid;
    const char *process;        /* its name */
    int in_place;               /* a terminal: the table redraws itself */
} mv_context;

typedef struct mv_format {
    const char *name;
    /* After each interval (NULL: nothing then). */
    void (*interval)(FILE *out, const mv_table *t, const mv_context *c, int first);
    /* Once at the end, when at least one interval was complete (NULL: nothing). */
    void (*finish)(FILE *out, const mv_table *t, const mv_context *c);
} mv_format;

/* The format called name, or NULL; MV_FORMAT_NAMES lists them. */
const mv_format *mv_format_find(const char *name);
#define MV_FORMAT_NAMES "table, csv, json, prometheus"

#endif
