/* test_nettrace.c - the nettrace stream reader (eventpipe/nettrace.c) and
 * the metrics source's events (eventpipe/metrics_source.c) on streams
 * written here byte by byte as the runtime writes them: whole, in pieces of
 * every size, uncompressed and compressed headers, the end mark; and cut,
 * lying and mutated streams refused without reading past their end.  Then
 * the series and formats of `clrprobe counters` (report/metrics_view.c). */
#include "unit.h"
#include "eventpipe/metrics_source.h"
#include "eventpipe/nettrace.h"
#include "report/metrics_view.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- a writer of test streams ---- */

typedef struct wbuf {
    uint8_t b[16384];
    size_t n;
} wbuf;

/* v little-endian in n bytes (beyond 8, zeros). */
static void put(wbuf *w, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        w->b[w->n++] = i < 8 ? (uint8_t)(v >> (8 * i)) : 0;
}

static void put_bytes(wbuf *w, const void *p, size_t n)
{
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void put_utf16(wbuf *w, const char *s)
{
    for (; *s; s++)
        put(w, (unsigned char)*s, 2);
    put(w, 0, 2);
}

static void put_varint(wbuf *w, uint64_t v)
{
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        w->b[w->n++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
}

static void put_type(wbuf *w, const char *name)
{
    put(w, 5, 1);
    put(w, 5, 1);
    put(w, 1, 1);
    put(w, 4, 4);
    put(w, 4, 4);
    put(w, strlen(name), 4);
    put_bytes(w, name, strlen(name));
    put(w, 6, 1);
}

static void put_stream_start(wbuf *w)
{
    put_bytes(w, "Nettrace", 8);
    put(w, 20, 4);
    put_bytes(w, "!FastSerialization.1", 20);
    put_type(w, "Trace");
    for (int i = 0; i < 8; i++)
        put(w, 1, 2);
    put(w, 0, 8);               /* sync QPC */
    put(w, 1000000000, 8);      /* QPC frequency */
    put(w, 8, 4);
    put(w, 4242, 4);            /* pid */
    put(w, 2, 4);
    put(w, 0, 4);
    put(w, 6, 1);
}

/* A block of blobs (each blob's payload given whole) with compressed or
 * plain headers; metadata ids from ids[]. */
static void put_block(wbuf *w, const char *type, int compressed, const uint32_t *ids, const wbuf *payloads,
                      size_t n)
{
    size_t size_at, start, pad;
    put_type(w, type);
    size_at = w->n;
    put(w, 0, 4);
    pad = (4 - (w->n & 3)) & 3;
    put(w, 0, pad);
    start = w->n;
    put(w, 20, 2);              /* header size */
    put(w, compressed ? 1 : 0, 2);
    put(w, 0, 8);
    put(w, 0, 8);
    for (size_t i = 0; i < n; i++) {
        if (compressed) {
            put(w, 1 | 4 | 128, 1);             /* metadata id, thread id, payload size */
            put_varint(w, ids[i]);
            put_varint(w, 77);                  /* thread */
            put_varint(w, 10);                  /* timestamp delta */
            put_varint(w, payloads[i].n);
        } else {
            put(w, 76 + payloads[i].n, 4);
            put(w, ids[i], 4);
            put(w, 1, 4);
            put(w, 77, 8);
            put(w, 77, 8);
            put(w, 0, 4);
            put(w, 0, 4);
            put(w, 10, 8);
            put(w, 0, 16);
            put(w, 0, 16);
            put(w, payloads[i].n, 4);
        }
        put_bytes(w, payloads[i].b, payloads[i].n);
        if (!compressed)
            put(w, 0, (4 - (w->n & 3)) & 3);
    }
    {
        size_t size = w->n - start;
        for (int i = 0; i < 4; i++)
            w->b[size_at + i] = (uint8_t)(size >> (8 * i));
    }
    put(w, 6, 1);
}

/* A metadata record: id, provider, event id and name, version, string or
 * double fields ("s:name" / "d:name" / "t:name" for a DateTime). */
static void make_metadata(wbuf *m, uint32_t id, const char *provider, uint32_t event_id, const char *name,
                          uint32_t version, const char *const *fields, size_t nfields)
{
    m->n = 0;
    put(m, id, 4);
    put_utf16(m, provider);
    put(m, event_id, 4);
    put_utf16(m, name);
    put(m, 0x2, 8);
    put(m, version, 4);
    put(m, 4, 4);
    put(m, nfields, 4);
    for (size_t i = 0; i < nfields; i++) {
        put(m, fields[i][0] == 's' ? 18 : fields[i][0] == 'd' ? 14 : 16, 4);
        put_utf16(m, fields[i] + 2);
    }
}

static const char *const counter_fields[] = { "s:sessionId", "s:meterName", "s:meterVersion", "s:instrumentName",
                                              "s:unit", "s:tags", "s:rate", "s:value", "d:extra" };
static const char *const stop_fields[] = { "s:sessionId", "t:intervalStartTime", "t:intervalEndTime" };

static void make_counter(wbuf *p, const char *instrument, const char *tags, const char *rate, const char *value)
{
    p->n = 0;
    put_utf16(p, "SHARED");
    put_utf16(p, "System.Runtime");
    put_utf16(p, "");
    put_utf16(p, instrument);
    put_utf16(p, "{exception}");
    put_utf16(p, tags);
    put_utf16(p, rate);
    put_utf16(p, value);
    put(p, 0, 8);
}

/* 2026-11-28T00:00:00Z and 2 s later, as FILETIMEs. */
#define FT_UNIX(s) ((uint64_t)((s) + 11644473600ull) * 10000000ull)

static void make_stop(wbuf *p)
{
    p->n = 0;
    put_utf16(p, "SHARED");
    put(p, FT_UNIX(1795824000ull), 8);
    put(p, FT_UNIX(1795824002ull), 8);
}

/* A whole stream: metadata for a counter event (id 1) and CollectionStop
 * (id 2), an event block with two counters and a stop, a stack block, the
 * end mark. */
static void make_stream(wbuf *w, int compressed)
{
    wbuf meta[2], ev[3];
    uint32_t meta_ids[2] = { 0, 0 }, ev_ids[3] = { 1, 1, 2 };

    w->n = 0;
    put_stream_start(w);
    make_metadata(&meta[0], 1, MX_PROVIDER, 4, "CounterRateValuePublished", 2, counter_fields, 9);
    make_metadata(&meta[1], 2, MX_PROVIDER, 3, "CollectionStop", 0, stop_fields, 3);
    put_block(w, "MetadataBlock", compressed, meta_ids, meta, 2);
    make_counter(&ev[0], "dotnet.exceptions", "error.type=A", "30", "120");
    make_counter(&ev[1], "dotnet.exceptions", "error.type=B", "", "7");
    make_stop(&ev[2]);
    put_block(w, "EventBlock", compressed, ev_ids, ev, 3);
    put_type(w, "StackBlock");
    put(w, 8, 4);
    put(w, 0, (4 - (w->n & 3)) & 3);
    put(w, 1, 4);
    put(w, 0, 4);
    put(w, 6, 1);
    put(w, 1, 1);               /* the end */
}

typedef struct seen {
    int n, counters, stops;
    mx_event last;
    mt_table table;
} seen;

static int on_event(void *ctx, const nt_event *ev)
{
    seen *s = ctx;
    mx_event e;
    s->n++;
    switch (mx_decode(ev, &e)) {
    case MX_COUNTER: s->counters++; s->last = e; break;
    case MX_COLLECTION_STOP: s->stops++; break;
    default: break;
    }
    mt_take(&s->table, &e, 1);
    return 0;
}

static int feed_in_pieces(const wbuf *w, size_t piece, seen *s)
{
    nt_reader *r = nt_reader_new(on_event, s);
    int rc = NT_OK;
    memset(s, 0, sizeof(*s));
    mt_init(&s->table);
    for (size_t at = 0; at < w->n && rc == NT_OK; at += piece)
        rc = nt_feed(r, w->b + at, w->n - at < piece ? w->n - at : piece);
    if (rc == NT_OK && nt_reader_process_id(r) != 4242)
        rc = -100;
    nt_reader_free(r);
    return rc;
}

TEST(nettrace_reads_whole_and_in_pieces)
{
    static wbuf w;
    seen s;
    for (int compressed = 0; compressed <= 1; compressed++) {
        make_stream(&w, compressed);
        for (size_t piece = 1; piece <= w.n; piece = piece < 64 ? piece + 1 : piece * 2) {
            CHECK_EQ(feed_in_pieces(&w, piece, &s), NT_END);
            CHECK_EQ(s.n, 3);
            CHECK_EQ(s.counters, 2);
            CHECK_EQ(s.stops, 1);
            mt_free(&s.table);
        }
        CHECK_EQ(feed_in_pieces(&w, w.n, &s), NT_END);
        CHECK_STR(s.last.instrument, "dotnet.exceptions");
        CHECK_STR(s.last.tags, "error.type=B");
        CHECK_STR(s.last.session, "SHARED");
        CHECK(!s.last.has_rate);            /* "" is no rate */
        CHECK(s.last.has_value && s.last.value == 7);
        /* the stop ended an interval of 2 s: 30 in it is 15 a second */
        CHECK_EQ(s.table.interval, 1);
        CHECK(s.table.interval_s > 1.999 && s.table.interval_s < 2.001);
        CHECK(s.table.end_unix > 1795824001.9 && s.table.end_unix < 1795824002.1);
        for (size_t i = 0; i < s.table.n; i++)
            if (!strcmp(s.table.series[i].tags, "error.type=A"))
                CHECK(s.table.series[i].value == 15 && s.table.series[i].total == 120);
        mt_free(&s.table);
    }
}

TEST(nettrace_refuses_what_is_not_a_stream)
{
    static wbuf w;
    seen s;
    nt_reader *r;

    make_stream(&w, 1);
    w.b[3] = 'X';                            /* "NetXrace" */
    CHECK_EQ(feed_in_pieces(&w, w.n, &s), NT_ERROR);
    make_stream(&w, 1);
    w.b[32] = 9;                             /* the first object's tag */
    CHECK_EQ(feed_in_pieces(&w, w.n, &s), NT_ERROR);
    /* a block that claims 1 GiB is refused at once, not waited for */
    w.n = 0;
    put_stream_start(&w);
    put_type(&w, "EventBlock");
    put(&w, 1u << 30, 4);
    CHECK_EQ(feed_in_pieces(&w, w.n, &s), NT_ERROR);
    /* a stream cut anywhere is incomplete, never an event read past its end */
    make_stream(&w, 1);
    for (size_t cut = 0; cut + 1 < w.n; cut += 7) {
        r = nt_reader_new(on_event, &s);
        memset(&s, 0, sizeof(s));
        mt_init(&s.table);
        CHECK_EQ(nt_feed(r, w.b, cut), NT_OK);
        nt_reader_free(r);
        mt_free(&s.table);
    }
}

TEST(nettrace_survives_mutated_streams)
{
    static wbuf w, m;
    seen s;
    unsigned seed = 12345;
    int ends = 0, errors = 0;
    make_stream(&w, 1);
    for (int round = 0; round < 3000; round++) {
        m = w;
        for (int k = 0; k < 1 + round % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = 32 + (seed >> 8) % (m.n - 32);
            seed = seed * 1103515245u + 12345u;
            m.b[at] = (uint8_t)(seed >> 16);
        }
        switch (feed_in_pieces(&m, 1 + round % 97, &s)) {
        case NT_END: ends++; break;
        case NT_ERROR: errors++; break;
        default: break;
        }
        mt_free(&s.table);
    }
    CHECK(errors > 0);      /* (and under the sanitizers: nothing read out of bounds) */
    CHECK(ends > 0);
}

TEST(metrics_filter_arguments)
{
    char buf[400];
    CHECK_EQ(mx_filter_args(buf, sizeof(buf), "SHARED", "c1", "System.Runtime,My\\hits", 1, 1000, 10), 0);
    CHECK_STR(buf, "SessionId=SHARED;Metrics=System.Runtime,My\\hits;RefreshInterval=1;MaxTimeSeries=1000;"
                   "MaxHistograms=10;ClientId=c1");
    CHECK_EQ(mx_filter_args(buf, 20, "SHARED", "c1", "System.Runtime", 1, 1000, 10), -1);
}

TEST(metrics_prometheus_names)
{
    char n[200];
    mv_prometheus_name("dotnet.gc.collections", "{collection}", 1, n, sizeof(n));
    CHECK_STR(n, "dotnet_gc_collections_total");
    mv_prometheus_name("dotnet.gc.heap.total_allocated", "By", 1, n, sizeof(n));
    CHECK_STR(n, "dotnet_gc_heap_total_allocated_bytes_total");
    mv_prometheus_name("dotnet.process.cpu.time", "s", 1, n, sizeof(n));
    CHECK_STR(n, "dotnet_process_cpu_time_seconds_total");
    mv_prometheus_name("dotnet.process.memory.working_set", "By", 0, n, sizeof(n));
    CHECK_STR(n, "dotnet_process_memory_working_set_bytes");
    mv_prometheus_name("http.server.request.duration", "s", 0, n, sizeof(n));
    CHECK_STR(n, "http_server_request_duration_seconds");
    mv_prometheus_name("cache.hit_ratio", "1", 0, n, sizeof(n));
    CHECK_STR(n, "cache_hit_ratio");
    mv_prometheus_name("io.rate", "By/s", 0, n, sizeof(n));
    CHECK_STR(n, "io_rate_bytes_per_seconds");
    mv_prometheus_name("requests_total", "", 1, n, sizeof(n));
    CHECK_STR(n, "requests_total");
    mv_prometheus_name("9lives-x", "", 0, n, sizeof(n));
    CHECK_STR(n, "_9lives_x");
}

static char *format_of(const char *name, const mt_table *t, int first)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    const mv_format *fmt = mv_format_find(name);
    mv_context c = { 4242, "web\x1b[2J", 0, NULL, NULL };
    if (fmt->interval)
        fmt->interval(f, t, &c, first);
    if (fmt->finish)
        fmt->finish(f, t, &c);
    fclose(f);
    return text;
}

TEST(metrics_formats_print_the_last_interval)
{
    mt_table t;
    mx_event e;
    char *s;

    mt_init(&t);
    memset(&e, 0, sizeof(e));
    e.kind = MX_COUNTER;
    snprintf(e.meter, sizeof(e.meter), "System.Runtime");
    snprintf(e.instrument, sizeof(e.instrument), "dotnet.exceptions");
    snprintf(e.unit, sizeof(e.unit), "{exception}");
    snprintf(e.tags, sizeof(e.tags), "error.type=Bad\"Thing,x=1");
    e.has_rate = e.has_value = 1;
    e.rate = 400;
    e.value = 1000;
    mt_take(&t, &e, 2);
    /* attribute names Prometheus would refuse, or that clash with the process's labels */
    snprintf(e.instrument, sizeof(e.instrument), "odd.names");
    snprintf(e.tags, sizeof(e.tags), "pid=7,http:method=GET,range=1,5,9lives=y,=empty");
    mt_take(&t, &e, 2);
    snprintf(e.instrument, sizeof(e.instrument), "dotnet.exceptions");
    e.kind = MX_UPDOWN;
    snprintf(e.instrument, sizeof(e.instrument), "dotnet.process.memory.working_set");
    snprintf(e.unit, sizeof(e.unit), "By");
    e.tags[0] = 0;
    e.value = 5e7;
    mt_take(&t, &e, 2);
    e.kind = MX_COLLECTION_STOP;
    e.interval_s = 2;
    e.end_unix = 1795824002.5;
    CHECK_EQ(mt_take(&t, &e, 2), 1);

    s = format_of("json", &t, 1);
    CHECK(strstr(s, "{\"time\": \"2026-11-28T00:00:02.500Z\", \"meter\": \"System.Runtime\", \"metric\": "
                    "\"dotnet.exceptions\", \"attributes\": {\"error.type\": \"Bad\\\"Thing\", \"x\": \"1\"}, "
                    "\"value\": 200, \"unit\": \"{exception}/s\"}\n") != NULL);
    CHECK(strstr(s, "\"value\": 50000000, \"unit\": \"By\"}") != NULL);
    free(s);
    s = format_of("csv", &t, 1);
    CHECK(!strncmp(s, "time,meter,metric,attributes,value,unit\n", 40));
    CHECK(strstr(s, "System.Runtime,dotnet.exceptions,\"error.type=Bad\"\"Thing,x=1\",200,{exception}/s\n") != NULL);
    free(s);
    s = format_of("prometheus", &t, 1);
    CHECK(strstr(s, "# TYPE dotnet_exceptions_total counter\n") != NULL);
    CHECK(strstr(s, "dotnet_exceptions_total{pid=\"4242\",process=\"web?[2J\",otel_scope_name=\"System.Runtime\","
                    "error_type=\"Bad\\\"Thing\",x=\"1\"} 1000\n") != NULL);
    CHECK(strstr(s, "dotnet_process_memory_working_set_bytes{pid=\"4242\",process=\"web?[2J\","
                    "otel_scope_name=\"System.Runtime\"} 50000000\n") != NULL);
    CHECK(strstr(s, "odd_names_total{pid=\"4242\",process=\"web?[2J\",otel_scope_name=\"System.Runtime\","
                    "exported_pid=\"7\",http_method=\"GET\",range=\"1,5\",_9lives=\"y\"} 1000\n") != NULL);
    CHECK(strchr(s, '\x1b') == NULL);
    free(s);
    s = format_of("table", &t, 1);
    CHECK(strstr(s, "\x1b") == NULL);        /* the name's escape is shown, not sent */
    CHECK(strstr(s, "dotnet.exceptions ({exception}/s)\n    error.type=Bad\"Thing,x=1") != NULL);
    free(s);
    CHECK(mv_format_find("xml") == NULL);
    mt_free(&t);
}
