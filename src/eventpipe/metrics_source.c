/* metrics_source.c - decoding the "System.Diagnostics.Metrics" event source's
 * events (metrics_source.h).  Fields are found by name, so later versions
 * that add fields decode the same; numbers the source writes as text
 * ("rate", "value": formatted doubles, "" when unknown) are parsed here. */
#include "eventpipe/metrics_source.h"
#include "ipc/ipc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* .NET ticks (DateTime as FILETIME: 100 ns since 1601) to Unix seconds. */
#define FILETIME_UNIX_OFFSET 11644473600.0

static const struct {
    const char *name;
    mx_kind kind;
} events[] = {
    { "InstrumentPublished", MX_INSTRUMENT },
    { "BeginInstrumentReporting", MX_INSTRUMENT },
    { "InitialInstrumentEnumerationComplete", MX_ENUMERATED },
    { "CollectionStart", MX_COLLECTION_START },
    { "CollectionStop", MX_COLLECTION_STOP },
    { "CounterRateValuePublished", MX_COUNTER },
    { "UpDownCounterRateValuePublished", MX_UPDOWN },
    { "GaugeValuePublished", MX_GAUGE },
    { "HistogramValuePublished", MX_HISTOGRAM },
    { "Error", MX_ERROR },
    { "MultipleSessionsNotSupportedError", MX_ERROR },
    { "MultipleSessionsConfiguredIncorrectlyError", MX_ERROR },
    { "ObservableInstrumentCallbackError", MX_WARNING },
    { "TimeSeriesLimitReached", MX_WARNING },
    { "HistogramLimitReached", MX_WARNING },
};

typedef struct fields {
    const nt_event *ev;
    uint32_t n, off[NT_MAX_FIELDS], len[NT_MAX_FIELDS];
} fields;

static int find(const fields *f, const char *name)
{
    int i = nt_field_index(f->ev->meta, name);
    return i >= 0 && (uint32_t)i < f->n ? i : -1;
}

static void get_string(const fields *f, const char *name, char *out, size_t cap)
{
    int i = find(f, name);
    out[0] = 0;
    if (i >= 0 && f->ev->meta->fields[i].type == NT_TYPE_STRING)
        ipc_utf16le_to_utf8(f->ev->payload + f->off[i], f->len[i] / 2, out, cap);
}

/* A number the source wrote as text (or as a double or int): 1 and *v, or 0. */
static int get_number(const fields *f, const char *name, double *v)
{
    int i = find(f, name);
    char text[64], *end;
    if (i < 0)
        return 0;
    switch (f->ev->meta->fields[i].type) {
    case NT_TYPE_DOUBLE:
        memcpy(v, f->ev->payload + f->off[i], 8);
        return 1;
    case NT_TYPE_INT32: {
        int32_t x;
        memcpy(&x, f->ev->payload + f->off[i], 4);
        *v = x;
        return 1;
    }
    case NT_TYPE_INT64: {
        int64_t x;
        memcpy(&x, f->ev->payload + f->off[i], 8);
        *v = (double)x;
        return 1;
    }
    case NT_TYPE_STRING:
        get_string(f, name, text, sizeof(text));
        if (!text[0])
            return 0;
        *v = strtod(text, &end);
        return *end == 0;
    default:
        return 0;
    }
}

static int get_time(const fields *f, const char *name, double *unix_s)
{
    int i = find(f, name);
    int64_t ft;
    if (i < 0 || f->ev->meta->fields[i].type != NT_TYPE_DATETIME)
        return 0;
    memcpy(&ft, f->ev->payload + f->off[i], 8);
    *unix_s = (double)ft / 1e7 - FILETIME_UNIX_OFFSET;
    return 1;
}

mx_kind mx_decode(const nt_event *ev, mx_event *out)
{
    fields f;
    double start, end;

    memset(out, 0, sizeof(*out));
    if (!ev->meta || strcmp(ev->meta->provider, MX_PROVIDER))
        return MX_OTHER;
    for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
        if (!strcmp(ev->meta->event_name, events[i].name))
            out->kind = events[i].kind;
    if (out->kind == MX_OTHER)
        return MX_OTHER;
    f.ev = ev;
    f.n = nt_locate_fields(ev->meta, ev->payload, ev->payload_len, f.off, f.len);
    snprintf(out->text, sizeof(out->text), "%s", ev->meta->event_name);
    get_string(&f, "sessionId", out->session, sizeof(out->session));
    get_string(&f, "meterName", out->meter, sizeof(out->meter));
    get_string(&f, "instrumentName", out->instrument, sizeof(out->instrument));
    get_string(&f, "instrumentType", out->instrument_type, sizeof(out->instrument_type));
    get_string(&f, "unit", out->unit, sizeof(out->unit));
    get_string(&f, "description", out->description, sizeof(out->description));
    get_string(&f, "tags", out->tags, sizeof(out->tags));
    get_string(&f, "quantiles", out->quantiles, sizeof(out->quantiles));
    switch (out->kind) {
    case MX_COLLECTION_START:
    case MX_COLLECTION_STOP:
        if (get_time(&f, "intervalStartTime", &start) && get_time(&f, "intervalEndTime", &end)) {
            out->end_unix = end;
            out->interval_s = end - start;
        }
        break;
    case MX_COUNTER:
    case MX_UPDOWN:
        out->has_rate = get_number(&f, "rate", &out->rate);
        out->has_value = get_number(&f, "value", &out->value);
        break;
    case MX_GAUGE:
        out->has_value = get_number(&f, "lastValue", &out->value);
        break;
    case MX_HISTOGRAM:
        get_number(&f, "count", &out->count);
        get_number(&f, "sum", &out->sum);
        break;
    case MX_ERROR:
    case MX_WARNING:
        get_string(&f, "errorMessage", out->text, sizeof(out->text));
        if (!out->text[0])
            snprintf(out->text, sizeof(out->text), "%s", ev->meta->event_name);
        get_string(&f, "clientId", out->client_id, sizeof(out->client_id));
        get_string(&f, "runningSessionId", out->running_session, sizeof(out->running_session));
        break;
    default:
        break;
    }
    return out->kind;
}

int mx_filter_args(char *out, size_t cap, const char *session_id, const char *client_id, const char *meters,
                   double refresh_s, unsigned max_series, unsigned max_histograms)
{
    int n = snprintf(out, cap, "SessionId=%s;Metrics=%s;RefreshInterval=%g;MaxTimeSeries=%u;MaxHistograms=%u;"
                     "ClientId=%s", session_id, meters, refresh_s, max_series, max_histograms, client_id);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}
