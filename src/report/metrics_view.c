/* metrics_view.c - the four formats of `clrprobe counters` and the
 * Prometheus names (metrics_view.h). */
#include "report/metrics_view.h"
#include "common/escape.h"
#include "report/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Prometheus names ---- */

static void append_name(char *out, size_t cap, size_t *n, const char *s)
{
    for (; *s && *n + 1 < cap; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':'))
            c = '_';
        if (c == '_' && *n > 0 && out[*n - 1] == '_')
            continue;       /* "a..b" and "a_.b" read as one separator */
        out[(*n)++] = c;
    }
    out[*n] = 0;
}

/* The unit's words: "By" bytes, "s" seconds, "ms" milliseconds, "{x}" none,
 * "1" ratio (gauges only), "%" percent, "X/Y" X_per_Y. */
static const char *unit_word(const char *u, char *buf, size_t cap)
{
    static const struct { const char *ucum, *word; } words[] = {
        { "By", "bytes" }, { "KiBy", "kibibytes" }, { "MiBy", "mebibytes" }, { "s", "seconds" },
        { "ms", "milliseconds" }, { "us", "microseconds" }, { "ns", "nanoseconds" }, { "min", "minutes" },
        { "h", "hours" }, { "d", "days" }, { "%", "percent" }, { "Hz", "hertz" }, { "bit", "bits" },
    };
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (!strcmp(u, words[i].ucum))
            return words[i].word;
    if (u[0] == '{' || !u[0])
        return "";
    snprintf(buf, cap, "%s", u);
    return buf;
}

void mv_prometheus_name(const char *metric, const char *unit, int counter, char *out, size_t cap)
{
    char u[64], a[64], b[64], *slash;
    size_t n = 0;
    const char *w1, *w2;

    out[0] = 0;
    if (cap == 0)
        return;
    if (metric[0] >= '0' && metric[0] <= '9')
        append_name(out, cap, &n, "_");
    append_name(out, cap, &n, metric);
    snprintf(u, sizeof(u), "%s", unit);
    slash = strchr(u, '/');
    if (slash)
        *slash = 0;
    w1 = unit_word(u, a, sizeof(a));
    w2 = slash ? unit_word(slash + 1, b, sizeof(b)) : "";
    if (!counter && !strcmp(unit, "1"))
        w1 = "ratio";
    else if (!strcmp(u, "1"))
        w1 = "";
    if (w1[0] && !strstr(out, w1)) {
        append_name(out, cap, &n, "_");
        append_name(out, cap, &n, w1);
    }
    if (w2[0]) {
        append_name(out, cap, &n, "_per_");
        append_name(out, cap, &n, w2);
    }
    if (counter) {
        size_t len = strlen(out);
        if (len < 6 || strcmp(out + len - 6, "_total"))
            append_name(out, cap, &n, "_total");
    }
}

/* ---- Attributes ---- */

/* The next attribute of a "k=v,k2=v2" text at *p: its key and value (a
 * value may hold commas: a part without '=' continues the value before it).
 * 0 at the end. */
static int next_attribute(const char **p, char *key, size_t kcap, char *val, size_t vcap)
{
    const char *s = *p, *eq, *end;
    if (!*s)
        return 0;
    eq = strchr(s, '=');
    end = eq ? eq + 1 : s + strlen(s);
    for (;;) {                      /* the value ends at a comma followed by "key=" */
        const char *comma = strchr(end, ',');
        const char *next_eq, *next_comma;
        if (!comma) {
            end += strlen(end);
            break;
        }
        next_eq = strchr(comma + 1, '=');
        next_comma = strchr(comma + 1, ',');
        if (next_eq && (!next_comma || next_eq < next_comma)) {
            end = comma;
            break;
        }
        end = comma + 1;
    }
    if (eq && eq < end) {
        snprintf(key, kcap, "%.*s", (int)(eq - s), s);
        snprintf(val, vcap, "%.*s", (int)(end - eq - 1), eq + 1);
    } else {
        snprintf(key, kcap, "%.*s", (int)(end - s), s);
        val[0] = 0;
    }
    *p = *end ? end + 1 : end;
    return 1;
}

/* ---- The formats ---- */

static int by_name(const void *a, const void *b)
{
    const mt_series *x = *(const mt_series *const *)a, *y = *(const mt_series *const *)b;
    int c = strcmp(x->meter, y->meter);
    if (!c)
        c = strcmp(x->instrument, y->instrument);
    if (!c)
        c = strcmp(x->tags, y->tags);
    return c;
}

/* The series reported in the last interval, sorted: a malloc'd array. */
static const mt_series **latest(const mt_table *t, size_t *n)
{
    const mt_series **v = malloc((t->n ? t->n : 1) * sizeof(*v));
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        if (t->series[i].interval + 1 == t->interval)
            v[(*n)++] = &t->series[i];
    qsort(v, *n, sizeof(*v), by_name);
    return v;
}

static void iso_time(double unix_s, char *out, size_t cap)
{
    time_t s = (time_t)floor(unix_s);
    struct tm tm;
    int ms = (int)((unix_s - floor(unix_s)) * 1000);
    gmtime_r(&s, &tm);
    snprintf(out, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, ms > 999 ? 999 : ms);
}

static void unit_label(const mt_series *s, char *out, size_t cap)
{
    if (s->kind == MT_RATE)
        snprintf(out, cap, "%s/s", s->unit[0] ? s->unit : "1");
    else
        snprintf(out, cap, "%s", s->unit);
}

/* A figure as a person reads it: whole numbers without a fraction,
 * others with up to 4 significant decimals. */
static void number(char *out, size_t cap, double v)
{
    if (fabs(v) < 1e15 && v == floor(v))
        snprintf(out, cap, "%.0f", v);
    else if (fabs(v) >= 100)
        snprintf(out, cap, "%.1f", v);
    else
        snprintf(out, cap, "%.4g", v);
}

static void table_interval(FILE *out, const mt_table *t, const mv_context *c, int first)
{
    size_t n;
    const mt_series **v = latest(t, &n);
    const char *meter = NULL, *instrument = NULL;
    char when[80], unit[80], num[48];

    if (!v)
        return;
    iso_time(t->end_unix, when, sizeof(when));
    if (c->in_place)
        fputs("\033[H\033[J", out);
    else if (!first)
        fputc('\n', out);
    fprintf(out, "process %d (", c->pid);
    esc_puts(out, c->process);
    fprintf(out, ")  %s  interval %.1f s\n", when, t->interval_s);
    for (size_t i = 0; i < n; i++) {
        const mt_series *s = v[i];
        int grouped;
        if (!meter || strcmp(meter, s->meter)) {
            fputs("[", out);
            esc_puts(out, s->meter);
            fputs("]\n", out);
            meter = s->meter;
            instrument = NULL;
        }
        unit_label(s, unit, sizeof(unit));
        grouped = s->tags[0] != 0;
        if (!instrument || strcmp(instrument, s->instrument)) {
            char name[400];
            int w;
            instrument = s->instrument;
            w = snprintf(name, sizeof(name), "  %s (%s)", s->instrument, unit);
            esc_puts(out, name);
            if (grouped) {
                fputc('\n', out);
            } else {
                number(num, sizeof(num), s->value);
                fprintf(out, "%*s\n", w < 62 ? 76 - w : 14, s->has_value ? num : "-");
                continue;
            }
        }
        {
            char tags[1100];
            int w = snprintf(tags, sizeof(tags), "    %s", s->tags);
            esc_puts(out, tags);
            number(num, sizeof(num), s->value);
            fprintf(out, "%*s\n", w < 62 ? 76 - w : 14, s->has_value ? num : "-");
        }
    }
    fflush(out);
    free(v);
}

/* CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        esc_puts(out, s);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        if (*s != '\r' && *s != '\n')
            esc_write(out, s, 1, NULL);
    }
    fputc('"', out);
}

/* Calls row for each series of the last interval that has a figure, in
 * name order, with the interval's end as ISO 8601 and the series' unit. */
static void each_figure(FILE *out, const mt_table *t,
                        void (*row)(FILE *out, const mt_series *s, const char *when, const char *unit))
{
    size_t n;
    const mt_series **v = latest(t, &n);
    char when[80], unit[80];

    if (!v)
        return;
    iso_time(t->end_unix, when, sizeof(when));
    for (size_t i = 0; i < n; i++) {
        if (!v[i]->has_value)
            continue;
        unit_label(v[i], unit, sizeof(unit));
        row(out, v[i], when, unit);
    }
    fflush(out);
    free(v);
}

static void csv_row(FILE *out, const mt_series *s, const char *when, const char *unit)
{
    fprintf(out, "%s,", when);
    csv_field(out, s->meter);
    fputc(',', out);
    csv_field(out, s->instrument);
    fputc(',', out);
    csv_field(out, s->tags);
    fprintf(out, ",%.17g,", s->value);
    csv_field(out, unit);
    fputc('\n', out);
}

static void csv_interval(FILE *out, const mt_table *t, const mv_context *c, int first)
{
    if (first)
        fputs("time,meter,metric,attributes,value,unit\n", out);
    each_figure(out, t, csv_row);
}

/* The attributes "k=v,k2=v2" as a JSON object. */
static void json_attributes(FILE *out, const char *tags)
{
    char key[256], val[1100];
    int k = 0;
    fputc('{', out);
    while (next_attribute(&tags, key, sizeof(key), val, sizeof(val))) {
        fputs(k++ ? ", " : "", out);
        json_string(out, key);
        fputs(": ", out);
        json_string(out, val);
    }
    fputc('}', out);
}

static void json_row(FILE *out, const mt_series *s, const char *when, const char *unit)
{
    fprintf(out, "{\"time\": \"%s\", \"meter\": ", when);
    json_string(out, s->meter);
    fputs(", \"metric\": ", out);
    json_string(out, s->instrument);
    fputs(", \"attributes\": ", out);
    json_attributes(out, s->tags);
    fprintf(out, ", \"value\": %.17g, \"unit\": ", s->value);
    json_string(out, unit);
    fputs("}\n", out);
}

static void json_interval(FILE *out, const mt_table *t, const mv_context *c, int first)
{
    each_figure(out, t, json_row);
}

/* A label value: backslash, quote and line feed escaped, as the format asks;
 * other control characters, which it has no escape for, shown as '?' (a
 * process's name must not reach a terminal as a command). */
static void prom_label_value(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\' || c == '"')
            fputc('\\', out);
        if (c == '\n')
            fputs("\\n", out);
        else
            fputc(c < 0x20 || c == 0x7f ? '?' : c, out);
    }
}

/* A label name made of an attribute's key: [a-zA-Z0-9_] kept, anything else
 * '_', a leading digit preceded by '_'; a name the labels of the process
 * use, or one of Prometheus' own ("__..."), prefixed with "exported_" (as
 * Prometheus itself renames a clash).  0 when the key makes no name. */
static int label_name(const char *key, char *out, size_t cap)
{
    static const char *const ours[] = { "pid", "process", "container_id", "runtime_version", "otel_scope_name" };
    size_t n = 0;
    if (!key[0] || cap < 16)
        return 0;
    if (key[0] >= '0' && key[0] <= '9')
        out[n++] = '_';
    for (; *key && n + 1 < cap; key++) {
        char ch = *key;
        out[n++] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ? ch : '_';
    }
    out[n] = 0;
    for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
        if (!strcmp(out, ours[i]) || !strncmp(out, "__", 2)) {
            char copy[256];
            snprintf(copy, sizeof(copy), "%s", out);
            snprintf(out, cap, "exported_%s", copy);
            break;
        }
    return 1;
}

/* The labels of a series: the process's, its meter's (as OpenTelemetry's
 * exporter names it: two meters may have instruments of one name), then
 * its attributes. */
static void prom_labels(FILE *out, const mt_series *s, const mv_context *c)
{
    const char *tags = s->tags;
    char key[256], val[1100], name[300];
    fprintf(out, "{pid=\"%d\",process=\"", c->pid);
    prom_label_value(out, c->process);
    fputc('"', out);
    if (c->container && c->container[0]) {
        fputs(",container_id=\"", out);
        prom_label_value(out, c->container);
        fputc('"', out);
    }
    if (c->runtime && c->runtime[0]) {
        fputs(",runtime_version=\"", out);
        prom_label_value(out, c->runtime);
        fputc('"', out);
    }
    fputs(",otel_scope_name=\"", out);
    prom_label_value(out, s->meter);
    fputc('"', out);
    while (next_attribute(&tags, key, sizeof(key), val, sizeof(val))) {
        if (!label_name(key, name, sizeof(name)))
            continue;
        fprintf(out, ",%s=\"", name);
        prom_label_value(out, val);
        fputc('"', out);
    }
    fputc('}', out);
}

int mv_prometheus_rows(mv_prom_rows *rows, const mt_table *t, const mv_context *c)
{
    size_t n;
    const mt_series **v = latest(t, &n);
    int rc = 0;

    if (!v)
        return -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const mt_series *s = v[i];
        int counter = s->kind == MT_RATE;
        char name[512], *labels = NULL;
        size_t len = 0;
        FILE *f;
        if (counter ? !s->has_total : !s->has_value)
            continue;
        if (rows->n == rows->cap) {
            size_t cap = rows->cap ? rows->cap * 2 : 256;
            mv_prom_row *grown = realloc(rows->v, cap * sizeof(*grown));
            if (!grown) {
                rc = -1;
                break;
            }
            rows->v = grown;
            rows->cap = cap;
        }
        mv_prometheus_name(s->instrument, s->unit, counter, name, sizeof(name));
        if (!(f = open_memstream(&labels, &len))) {
            rc = -1;
            break;
        }
        prom_labels(f, s, c);
        fclose(f);
        rows->v[rows->n].name = strdup(name);
        rows->v[rows->n].labels = labels;
        rows->v[rows->n].counter = counter;
        rows->v[rows->n].value = counter ? s->total : s->value;
        if (!rows->v[rows->n].name || !labels) {
            free(rows->v[rows->n].name);
            free(labels);
            rc = -1;
            break;
        }
        rows->n++;
    }
    free(v);
    return rc;
}

static int by_name_and_labels(const void *a, const void *b)
{
    const mv_prom_row *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->labels, y->labels);
}

void mv_prometheus_write(FILE *out, mv_prom_rows *rows)
{
    const char *last = "";
    if (rows->n)
        qsort(rows->v, rows->n, sizeof(*rows->v), by_name_and_labels);
    for (size_t i = 0; i < rows->n; i++) {
        const mv_prom_row *r = &rows->v[i];
        if (strcmp(r->name, last)) {
            fprintf(out, "# TYPE %s %s\n", r->name, r->counter ? "counter" : "gauge");
            last = r->name;
        }
        fprintf(out, "%s%s %.17g\n", r->name, r->labels, r->value);
    }
    fflush(out);
}

void mv_prometheus_rows_free(mv_prom_rows *rows)
{
    for (size_t i = 0; i < rows->n; i++) {
        free(rows->v[i].name);
        free(rows->v[i].labels);
    }
    free(rows->v);
    memset(rows, 0, sizeof(*rows));
}

static void prometheus_finish(FILE *out, const mt_table *t, const mv_context *c)
{
    mv_prom_rows rows = { 0 };
    mv_prometheus_rows(&rows, t, c);
    mv_prometheus_write(out, &rows);
    mv_prometheus_rows_free(&rows);
}

static const mv_format formats[] = {
    { "table", table_interval, NULL },
    { "csv", csv_interval, NULL },
    { "json", json_interval, NULL },
    { "prometheus", NULL, prometheus_finish },
};

const mv_format *mv_format_find(const char *name)
{
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (!strcmp(formats[i].name, name))
            return &formats[i];
    return NULL;
}
