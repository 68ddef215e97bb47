/* metrics_source.h - the events of the runtime's "System.Diagnostics.Metrics"
 * event source (the measurements of System.Diagnostics.Metrics meters, the
 * runtime's own "System.Runtime" among them, as dotnet-counters reads them),
 * decoded from nettrace events by their field names, and the arguments that
 * ask the source for them.  Pure.  docs/counters.md says what each event
 * carries. */
#ifndef CLRPROBE_EVENTPIPE_METRICS_SOURCE_H
#define CLRPROBE_EVENTPIPE_METRICS_SOURCE_H

#include "eventpipe/nettrace.h"

#include <stddef.h>
#include <stdint.h>

#define MX_PROVIDER "System.Diagnostics.Metrics"
/* Keywords: Messages (errors, limits) 1, TimeSeriesValues 2, InstrumentPublishing 4. */
#define MX_KEYWORDS 0x7u
#define MX_LEVEL    4           /* Informational */

typedef enum mx_kind {
    MX_OTHER = 0,
    MX_INSTRUMENT,              /* InstrumentPublished / BeginInstrumentReporting: meter, instrument, type, unit, description */
    MX_ENUMERATED,              /* InitialInstrumentEnumerationComplete */
    MX_COLLECTION_START,
    MX_COLLECTION_STOP,         /* an interval's values are all out: interval_s, end_unix */
    MX_COUNTER,                 /* CounterRateValuePublished: rate (increase over the interval), value (total) */
    MX_UPDOWN,                  /* UpDownCounterRateValuePublished: value (now) */
    MX_GAUGE,                   /* GaugeValuePublished: value (last) */
    MX_HISTOGRAM,               /* HistogramValuePublished: quantiles, count, sum */
    MX_ERROR,                   /* Error, MultipleSessions*Error: text (the session has failed) */
    MX_WARNING,                 /* ObservableInstrumentCallbackError, *LimitReached: text (it goes on) */
} mx_kind;

typedef struct mx_event {
    mx_kind kind;
    char session[64];
    char meter[256];
    char instrument[256];
    char instrument_type[64];   /* "Counter`1", "ObservableGauge`1", ... */
    char unit[64];
    char description[512];
    char tags[1024];            /* "k=v,k2=v2" as the source writes them */
    char quantiles[256];        /* "0.5=1;0.95=2;0.99=3" */
    char text[512];             /* an error's message, or the event's name */
    char client_id[64];         /* MultipleSessionsConfiguredIncorrectlyError: the client it is for */
    char running_session[64];   /* MultipleSessionsNotSupportedError: the session that runs */
    int has_rate, has_value;
    double rate, value, count, sum;
    double interval_s;          /* MX_COLLECTION_*: the interval's length */
    double end_unix;            /* MX_COLLECTION_*: its end, seconds since the epoch */
} mx_event;

/* Decodes ev (of any provider: MX_OTHER when not the metrics source's)
 * into *out.  Returns out->kind. */
mx_kind mx_decode(const nt_event *ev, mx_event *out);

/* The source's arguments for a session: "SessionId=ID;Metrics=LIST;
 * RefreshInterval=S;MaxTimeSeries=N;MaxHistograms=N;ClientId=ID" into out.
 * meters is a comma-separated list of meter names (a "meter\instrument"
 * names one instrument).  0, or -1 when it does not fit. */
int mx_filter_args(char *out, size_t cap, const char *session_id, const char *client_id, const char *meters,
                   double refresh_s, unsigned max_series, unsigned max_histograms);

#endif
