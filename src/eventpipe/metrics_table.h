/* metrics_table.h - a process's metrics as the metrics source reports
 * them: one series per meter, instrument and attribute set, with its latest
 * interval's figure (a counter's increase per second and its total, an
 * up-down counter's or gauge's value, a histogram's quantiles), built from
 * the decoded events (metrics_source.h).  Pure. */
#ifndef CLRPROBE_EVENTPIPE_METRICS_TABLE_H
#define CLRPROBE_EVENTPIPE_METRICS_TABLE_H

#include "eventpipe/metrics_source.h"

#include <stddef.h>

#define MT_MAX_SERIES 4096          /* series kept (the source's own limits: 1000 time series, 10 histograms) */
#define MT_MAX_METERS 256

typedef enum mt_kind {
    MT_RATE,                    /* a counter: value is its increase per second; total its running total */
    MT_VALUE,                   /* an up-down counter or a gauge: value now */
    MT_QUANTILE,                /* one quantile of a histogram (its "quantile" attribute) */
} mt_kind;

typedef struct mt_series {
    char *meter, *instrument, *unit, *tags;   /* tags: "k=v,k2=v2" */
    mt_kind kind;
    double value, total;
    double increase;            /* a counter's increase over the interval, as reported */
    int has_value, has_total;
    unsigned interval;          /* the interval it was last reported in */
} mt_series;

typedef struct mt_table {
    mt_series *series;
    size_t n, cap;
    unsigned interval;          /* intervals completed */
    double interval_s;          /* the last one's length */
    double end_unix;            /* and its end */
    char **meters;              /* meters that published an instrument */
    size_t nmeters;
} mt_table;

void mt_init(mt_table *t);
void mt_free(mt_table *t);

/* Takes one decoded event: instruments (their meters), values into the
 * current interval, and MX_COLLECTION_STOP ends it (returns 1 then, else
 * 0).  refresh_s stands for the interval's length when the event has none. */
int mt_take(mt_table *t, const mx_event *e, double refresh_s);

/* Whether meter published any instrument. */
int mt_has_meter(const mt_table *t, const char *meter);

#endif
