/* metrics_table.c - the series of a process's metrics as the metrics
 * source's events report them, interval by interval (metrics_table.h). */
#include "eventpipe/metrics_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void mt_init(mt_table *t)
{
    memset(t, 0, sizeof(*t));
}

void mt_free(mt_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->series[i].meter);
        free(t->series[i].instrument);
        free(t->series[i].unit);
        free(t->series[i].tags);
    }
    for (size_t i = 0; i < t->nmeters; i++)
        free(t->meters[i]);
    free(t->meters);
    free(t->series);
    mt_init(t);
}

int mt_has_meter(const mt_table *t, const char *meter)
{
    for (size_t i = 0; i < t->nmeters; i++)
        if (!strcmp(t->meters[i], meter))
            return 1;
    return 0;
}

static void add_meter(mt_table *t, const char *meter)
{
    char **grown, *copy;
    if (!meter[0] || t->nmeters >= MT_MAX_METERS || mt_has_meter(t, meter))
        return;
    grown = realloc(t->meters, (t->nmeters + 1) * sizeof(*grown));
    copy = strdup(meter);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            t->meters = grown;
        return;
    }
    t->meters = grown;
    t->meters[t->nmeters++] = copy;
}

static mt_series *series(mt_table *t, const char *meter, const char *instrument, const char *unit,
                         const char *tags, mt_kind kind)
{
    mt_series *s;
    for (size_t i = 0; i < t->n; i++) {
        s = &t->series[i];
        if (s->kind == kind && !strcmp(s->meter, meter) && !strcmp(s->instrument, instrument) &&
            !strcmp(s->tags, tags))
            return s;
    }
    if (t->n >= MT_MAX_SERIES)
        return NULL;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        mt_series *grown = realloc(t->series, cap * sizeof(*grown));
        if (!grown)
            return NULL;
        t->series = grown;
        t->cap = cap;
    }
    s = &t->series[t->n];
    memset(s, 0, sizeof(*s));
    s->meter = strdup(meter);
    s->instrument = strdup(instrument);
    s->unit = strdup(unit);
    s->tags = strdup(tags);
    s->kind = kind;
    if (!s->meter || !s->instrument || !s->unit || !s->tags) {
        free(s->meter);
        free(s->instrument);
        free(s->unit);
        free(s->tags);
        return NULL;
    }
    t->n++;
    return s;
}

/* A histogram's "0.5=1;0.95=2;0.99=3": one series a quantile. */
static void take_quantiles(mt_table *t, const mx_event *e)
{
    char q[sizeof(e->quantiles)], *save = NULL;
    snprintf(q, sizeof(q), "%s", e->quantiles);
    for (char *part = strtok_r(q, ";", &save); part; part = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(part, '='), tags[sizeof(e->tags) + 32], *end;
        double v;
        mt_series *s;
        if (!eq)
            continue;
        *eq = 0;
        v = strtod(eq + 1, &end);
        if (*end)
            continue;
        snprintf(tags, sizeof(tags), "%s%squantile=%s", e->tags, e->tags[0] ? "," : "", part);
        s = series(t, e->meter, e->instrument, e->unit, tags, MT_QUANTILE);
        if (s) {
            s->value = v;
            s->has_value = 1;
            s->interval = t->interval;
        }
    }
}

/* Instruments the runtime declares as (observable) counters although
 * their figure goes up and down, a level (.NET 9 and 10; OpenTelemetry's
 * conventions make them up-down counters): shown as their value. */
static int is_level(const char *meter, const char *instrument)
{
    static const char *const levels[] = { "dotnet.thread_pool.thread.count", "dotnet.thread_pool.queue.length" };
    if (strcmp(meter, "System.Runtime"))
        return 0;
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
        if (!strcmp(instrument, levels[i]))
            return 1;
    return 0;
}

int mt_take(mt_table *t, const mx_event *e, double refresh_s)
{
    mt_series *s;

    switch (e->kind) {
    case MX_INSTRUMENT:
        add_meter(t, e->meter);
        return 0;
    case MX_COLLECTION_STOP:
        /* (the interval's length comes with its end: counters' increases become rates now) */
        t->interval_s = e->interval_s > 0 ? e->interval_s : refresh_s;
        t->end_unix = e->end_unix > 0 ? e->end_unix : (double)time(NULL);
        for (size_t i = 0; i < t->n; i++)
            if (t->series[i].kind == MT_RATE && t->series[i].interval == t->interval)
                t->series[i].value = t->series[i].increase / t->interval_s;
        t->interval++;
        return 1;
    case MX_COUNTER:
        if (is_level(e->meter, e->instrument))
            goto level;
        s = series(t, e->meter, e->instrument, e->unit, e->tags, MT_RATE);
        if (!s)
            return 0;
        s->has_value = e->has_rate;
        s->increase = e->rate;
        s->has_total = e->has_value;
        s->total = e->value;
        s->interval = t->interval;
        return 0;
    case MX_UPDOWN:
    case MX_GAUGE:
    level:
        s = series(t, e->meter, e->instrument, e->unit, e->tags, MT_VALUE);
        if (!s)
            return 0;
        s->has_value = e->has_value;
        s->value = e->value;
        s->interval = t->interval;
        return 0;
    case MX_HISTOGRAM:
        take_quantiles(t, e);
        return 0;
    default:
        return 0;
    }
}

